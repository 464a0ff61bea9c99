"""The ``cvcclock replay`` command: play a demo trace back and say whether it matched.

``cvcclock replay run.trace [--to TICK] [--speed X] [--pacing lockstep|batch|step|live]``
prints the trace's header, how it was replayed, the final tick and the trajectory's hash,
then the verdict. Exit status: 0 every recorded state hash matched; 1 the replay diverged
(the first differing tick is named); 2 the trace is unreadable (the line is named), is a
trace of another world than the demo's, or the arguments are wrong.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from cvcclock.checks import check_count, check_seconds
from cvcclock.cli import _panel
from cvcclock.cli._output import reader_may_leave
from cvcclock.demo import PACINGS, WORLD, DemoReplay, replay_demo, trajectory_hash
from cvcclock.replay import InputTrace, TraceFormatError

__all__ = ["DESCRIPTION", "Outcome", "add_parser", "replay_command", "run"]

DESCRIPTION = """\
Replay a trace written by 'cvcclock demo --record': the demo's spring, stepped
every 0.06 s on a 0.01 s clock, receives the recorded kicks at the recorded
steps while the clock is paced as asked (wall time is passed explicitly, so
nothing sleeps). Every recorded state hash is compared with the replay's. Print
the final tick, the trajectory's hash and whether the replay matched."""

EPILOG = """\
exit status: 0 the replay matched the recording; 1 it diverged (the first
differing tick is named); 2 the trace is unreadable (the line is named), is not
a demo trace, or an argument is wrong; 130 interrupted."""


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What the command prints to stdout and the status it exits with."""

    status: int
    report: str


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]
               ) -> argparse.ArgumentParser:
    """Add the ``replay`` command and its options to ``commands``; return its parser."""
    replay = commands.add_parser("replay", help="replay a recorded demo trace and check it",
                                 description=DESCRIPTION, epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    replay.add_argument("trace", metavar="TRACE", help="a file from 'cvcclock demo --record'")
    replay.add_argument("--to", type=int, metavar="TICK",
                        help="stop at this tick (default: the end of the recording)")
    replay.add_argument("--speed", type=float, metavar="X",
                        help="live pacing at X world seconds per wall second, 0.01 to 100 "
                             "(default: the recorded speed changes)")
    replay.add_argument("--pacing", choices=PACINGS, default="live",
                        help="live: 1/60 s frames; lockstep: 3 quanta a frame; batch: 37 "
                             "quanta a call; step: one quantum a call (default: live)")
    _panel.add_options(replay, "instead, replay it live at 60 fps to scrub")
    return replay


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Replay a trace and print the report; the status says matched (0), diverged (1) or
    unreadable (2)."""
    _panel.refuse_without_panel(args, parser)
    if args.panel:
        return _panel.serve_trace(args, parser)
    outcome = replay_command(parser, args)
    with reader_may_leave(outcome.status):
        print(outcome.report, end="")
    return outcome.status


def replay_command(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Outcome:
    """Run ``cvcclock replay`` for parsed ``args``; errors go to stderr.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The ``replay`` parser (its ``error`` reports a wrong argument, exiting 2).
    args : argparse.Namespace
        Its parsed arguments.

    Returns
    -------
    Outcome
        Status 0 (matched), 1 (diverged) or 2 (unreadable trace) and the report to print.
    """
    try:
        trace = InputTrace.load(args.trace)
    except TraceFormatError as error:
        print(f"cvcclock replay: unreadable trace: {error}", file=sys.stderr)
        return Outcome(2, "")
    except OSError as error:
        print(f"cvcclock replay: cannot read {args.trace}: {error.strerror}", file=sys.stderr)
        return Outcome(2, "")
    world = trace.header.metadata.get("world")
    if world != WORLD:
        print(f"cvcclock replay: {_not_the_demo(args.trace, world)}", file=sys.stderr)
        return Outcome(2, "")
    _check_arguments(parser, args, trace)
    try:
        replayed = replay_demo(trace, args.pacing, speed=args.speed, to=args.to)
    except ValueError as error:    # what the arguments' checks above did not foresee
        print(f"cvcclock replay: {args.trace}: {error}", file=sys.stderr)
        return Outcome(2, "")
    return Outcome(0 if replayed.matched else 1, _report(args.trace, trace, replayed))


def _not_the_demo(path: str, world: object) -> str:
    """Why a readable trace of another world cannot be replayed here, and what can."""
    what = ("its header names no world" if world is None
            else f"its header names the world {world!r}")
    return (f"{path} is a trace, but not of the demo's spring ({what}). 'cvcclock replay' "
            "replays the traces written by 'cvcclock demo --record'; to replay your own "
            "world, use cvcclock.replay.Replayer with that world in Python.")


def _check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace,
                     trace: InputTrace) -> None:
    """Refuse --to outside the recording, --speed out of range or without live pacing."""
    try:
        if args.to is not None:
            check_count(args.to, "--to", minimum=trace.header.start_tick,
                        maximum=trace.end_tick)
        if args.speed is not None:
            if args.pacing != "live":
                raise ValueError(f"--speed applies to --pacing live only, not {args.pacing}")
            check_seconds(args.speed, "--speed", minimum=0.01, maximum=100.0)
    except ValueError as error:
        parser.error(str(error))


def _report(path: str, trace: InputTrace, replayed: DemoReplay) -> str:
    header = trace.header
    recorded = header.metadata.get("trajectory") if replayed.final_tick == trace.end_tick \
        else None
    lines = [
        f"trace {path}: the demo's spring (dt {header.dt:g} s) on a {header.fixed_dt:g} s "
        f"clock, ticks {header.start_tick}-{trace.end_tick}, {len(trace.inputs)} inputs, "
        f"{len(trace.hashes)} state hashes",
        f"replayed {replayed.pacing}: {len(replayed.frames)} frames, "
        f"{len(replayed.trajectory)} steps",
        f"final tick {replayed.final_tick}, trajectory {trajectory_hash(replayed.trajectory)}"
        + (f" (recorded {recorded})" if recorded else ""),
    ]
    if replayed.matched:
        lines.append(f"matched: {replayed.checked} state hashes checked, all equal")
    else:
        first = replayed.divergences[0]
        lines.append(f"DIVERGED at tick {first.tick}: recorded state hash {first.recorded}, "
                     f"replayed {first.replayed}; {len(replayed.divergences)} of "
                     f"{replayed.checked} state hashes differ")
    return "".join(line + "\n" for line in lines)
