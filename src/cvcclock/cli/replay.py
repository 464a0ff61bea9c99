"""The ``cvcclock replay`` command: play a demo trace back and say whether it matched.

``cvcclock replay run.trace [--to TICK] [--speed X] [--pacing lockstep|batch|step|live]``
prints the trace's header, how it was replayed, the final tick and the trajectory's hash,
what was verified, then the verdict.

Every digest the trace records is compared: the state hash after each world step, the
trajectory's hash (the header's ``metadata["trajectory"]``, when the replay goes to the end)
and the sha256 of the file's body (checked as it is read). A digest the trace should hold
and does not (a step without its state hash, no trajectory hash, a version-1 trace, which
has no body digest) leaves the replay unverified, never matched.

What a trace may ask for is checked before anything runs, naming the line: its inputs are
the demo's (``kick``, a finite number; ``speed``, a number from 0.01 to 100, the range of
``--speed``), its clock and step the demo's, and it asks for at most ``STEPS_PER_LINE`` world
steps for each of its lines, so the work a replay does is bounded by the trace's own size.

Exit status: 0 matched: every digest recorded, compared and equal; 1 diverged: a state hash
or the trajectory hash differs (the first differing tick is named); 2 the trace is
unreadable, changed after it was written, asks for what the demo cannot do (the line is
named), is a trace of another world than the demo's, or the arguments are wrong; 3
unverified: nothing differs, but a digest the trace should hold is missing (each is named).
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from collections.abc import Callable

from cvcclock.checks import check_count, check_real, check_seconds, check_small_json, check_str
from cvcclock.cli import _panel
from cvcclock.cli._output import reader_may_leave
from cvcclock.cli.netplay_demo import replay_outcome
from cvcclock.demo import (
    FIXED_DT,
    PACINGS,
    SPRING_DT,
    WORLD,
    DemoReplay,
    replay_demo,
    trajectory_hash,
)
from cvcclock.netplay import MAX_INPUT_BYTES, PONG_WORLD
from cvcclock.replay import InputTrace, JSONValue, TraceFormatError

__all__ = ["DESCRIPTION", "DIVERGED", "INVALID", "MATCHED", "MAX_TRACE_BYTES", "STEPS_PER_LINE",
           "UNVERIFIED", "Outcome", "add_parser", "replay_command", "run"]

MATCHED, DIVERGED, INVALID, UNVERIFIED = 0, 1, 2, 3
"""The exit statuses: every digest equal; one differs; the trace or arguments cannot be
used; nothing differs but a digest is missing."""

STEPS_PER_LINE = 100
"""World steps a trace may ask for per line it has (the demo's recording: 100 steps in 110
lines). A 3-line trace may ask for 300 steps, not the quadrillions of an end near MAX_TICK."""

MAX_TRACE_BYTES = 64 * 2**20
"""The longest trace the command reads (the demo's recording is some 6 KB): reading stops
there, so a device that never ends (``/dev/zero``) is refused at once, not read forever."""

SPEEDS = (0.01, 100.0)
"""The speeds a trace may record, and ``--speed`` take: a live replay runs at least one
quantum every 60 frames."""

DESCRIPTION = """\
Replay a trace written by 'cvcclock demo --record': the demo's spring, stepped
every 0.06 s on a 0.01 s clock, receives the recorded kicks at the recorded
steps while the clock is paced as asked (wall time is passed explicitly, so
nothing sleeps). Every digest the trace records is compared with the replay's:
each step's state hash, the trajectory's hash, the sha256 of the file's body. A
digest missing leaves the replay unverified, never matched. Print the final
tick, the trajectory's hash, what was verified and the verdict."""

EPILOG = """\
exit status: 0 the replay matched: every digest recorded and equal;
1 it diverged (the first differing tick is named);
2 the trace is unreadable, was changed after it was written, asks for what the
demo cannot do (the line is named), is not a demo trace, or an argument is wrong;
3 unverified: nothing differs but a digest is missing (each is named;
a version-1 trace has no body digest); 130 interrupted."""


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
                        help=f"live pacing at X world seconds per wall second, {SPEEDS[0]:g} "
                             f"to {SPEEDS[1]:g} (default: the recorded speed changes)")
    replay.add_argument("--pacing", choices=PACINGS, default="live",
                        help="live: 1/60 s frames; lockstep: 3 quanta a frame; batch: 37 "
                             "quanta a call; step: one quantum a call (default: live)")
    _panel.add_options(replay, "instead, replay it live at 60 fps to scrub")
    return replay


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Replay a trace and print the report; the status says matched (0), diverged (1),
    unusable (2) or unverified (3)."""
    _panel.refuse_without_panel(args, parser)
    if args.panel:
        _panel.refuse_replay_options(args, parser)
        trace = _demo_trace(args)      # the command's own rules, before anything is served
        if trace is None:
            return INVALID
        return _panel.serve_trace(args, parser, trace)
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
        Status 0 (matched), 1 (diverged), 2 (unusable trace) or 3 (unverified) and the
        report to print.
    """
    trace = _read(args.trace)
    if trace is None:
        return Outcome(INVALID, "")
    if trace.header.metadata.get("world") == PONG_WORLD:   # from 'cvcclock netplay-demo'
        return _replay_match(parser, args, trace)
    if not _replayable_demo(args.trace, trace):
        return Outcome(INVALID, "")
    _check_arguments(parser, args, trace)
    try:
        replayed = replay_demo(trace, args.pacing, speed=args.speed, to=args.to)
    except ValueError as error:    # what the checks above did not foresee
        print(f"cvcclock replay: {args.trace}: {error}", file=sys.stderr)
        return Outcome(INVALID, "")
    verdict = _verdict(trace, replayed)
    return Outcome(verdict.status, _report(args.trace, trace, replayed, verdict))


def _read(path: str) -> InputTrace | None:
    """The trace at ``path``, its inputs checked as read; None (the reason on stderr) if it
    cannot be read."""
    try:
        return InputTrace.load(path, check_input=_check_input, max_bytes=MAX_TRACE_BYTES)
    except TraceFormatError as error:
        print(f"cvcclock replay: unreadable trace: {error}", file=sys.stderr)
    except OSError as error:
        print(f"cvcclock replay: cannot read {path}: {error.strerror}", file=sys.stderr)
    return None


def _replayable_demo(path: str, trace: InputTrace) -> bool:
    """Whether ``trace`` is one of the demo's that its replay can do (else why, on stderr)."""
    world = trace.header.metadata.get("world")
    problem = (_not_the_demo(path, world) if world != WORLD
               else _what_the_demo_cannot_replay(trace))
    if problem:
        print(f"cvcclock replay: {problem if world != WORLD else f'{path}, {problem}'}",
              file=sys.stderr)
    return not problem


def _demo_trace(args: argparse.Namespace) -> InputTrace | None:
    """The demo trace ``--panel`` scrubs, by the command's rules; None if it cannot."""
    trace = _read(args.trace)
    return trace if trace is not None and _replayable_demo(args.trace, trace) else None


_PLAYER = re.compile(r"p[0-9]{1,3}")
"""A netplay match's input names: ``p0``, ``p1``, ... (``cvcclock.netplay``)."""


def _check_input(name: str, value: JSONValue) -> None:
    """Refuse an input neither replayable world can take (``InputTrace.load`` names its line):
    the demo's kick and speed, or a netplay match's player inputs."""
    if name == "kick":
        check_real(value, "the kick's value")
    elif name == "speed":
        check_seconds(value, "the speed", minimum=SPEEDS[0], maximum=SPEEDS[1])
    elif _PLAYER.fullmatch(name):
        check_small_json(value, f"the input {name!r}", MAX_INPUT_BYTES)
    else:
        raise ValueError(f"the demo's spring takes the inputs 'kick' and 'speed', not {name!r} "
                         f"(a netplay match takes 'p0', 'p1', ...)")


def _replay_match(parser: argparse.ArgumentParser, args: argparse.Namespace,
                  trace: InputTrace) -> Outcome:
    """A netplay match's trace, under the demo's rules: bounded by its size, every digest
    compared, a missing one unverified."""
    problem = _inputs_problem(trace, _PLAYER.fullmatch, "a netplay match") or _span_problem(trace)
    if problem:
        print(f"cvcclock replay: {args.trace}, {problem}", file=sys.stderr)
        return Outcome(INVALID, "")
    _check_arguments(parser, args, trace)
    status, report = replay_outcome(args.trace, trace, args.pacing, args.speed, args.to)
    missing = []
    if not trace.hashes:
        missing.append("the trace records no state hash")
    if trace.header.version < 2:
        missing.append(f"a version-{trace.header.version} trace carries no digest of its body")
    if status == MATCHED and missing:
        return Outcome(UNVERIFIED, report + f"UNVERIFIED: missing: {'; '.join(missing)}\n")
    return Outcome(status, report)


def _inputs_problem(trace: InputTrace, takes: Callable[[str], object], world: str) -> str | None:
    """The first input the world cannot take, naming its tick; or None."""
    for entry in trace.inputs:
        if not takes(entry.name):
            return f"the input {entry.name!r} at tick {entry.tick}: {world} takes no such input"
    return None


def _span_problem(trace: InputTrace) -> str | None:
    """Why the trace asks for more world steps than its size allows, naming the end line."""
    header = trace.header
    lines = 2 + len(trace.inputs) + len(trace.hashes)   # the header, the entries, the end
    steps = (trace.end_tick - header.start_tick) // header.period
    if steps > STEPS_PER_LINE * lines:
        return (f"line {lines}: the end tick {trace.end_tick} asks for {steps} world steps, "
                f"more than {STEPS_PER_LINE} for each of the trace's {lines} lines: a replay's "
                "work is bounded by its trace's size")
    return None


def _what_the_demo_cannot_replay(trace: InputTrace) -> str | None:
    """Why a readable demo trace asks for what its replay cannot do, naming the line; or None.

    The header must be the demo's clock and step from tick 0, its trajectory hash a str,
    and the span at most ``STEPS_PER_LINE`` world steps per line of the file (the end line
    is named).
    """
    header = trace.header
    if (header.fixed_dt, header.dt, header.start_tick) != (FIXED_DT, SPRING_DT, 0):
        return (f"line 1: the demo's recordings have fixed_dt={FIXED_DT!r}, dt={SPRING_DT!r} "
                f"and start at tick 0; this one has fixed_dt={header.fixed_dt!r}, "
                f"dt={header.dt!r}, start_tick={header.start_tick}")
    recorded = header.metadata.get("trajectory")
    try:
        check_str(recorded, 'metadata["trajectory"]', optional=True)
    except TypeError as error:
        return f"line 1: {error}"
    return (_inputs_problem(trace, {"kick", "speed"}.__contains__, "the demo's spring")
            or _span_problem(trace))


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
            check_seconds(args.speed, "--speed", minimum=SPEEDS[0], maximum=SPEEDS[1])
    except ValueError as error:
        parser.error(str(error))


@dataclasses.dataclass(frozen=True)
class _Verdict:
    """What the replay verified: the status, and each digest missing or differing."""

    status: int
    trajectory: str               # the replayed trajectory's hash
    recorded: str | None          # the recorded one, when the replay went to the end
    missing: tuple[str, ...]      # each digest the trace should hold and does not, in words
    verified: tuple[str, ...]     # each kind of digest compared and equal, in words


def _verdict(trace: InputTrace, replayed: DemoReplay) -> _Verdict:
    """Compare every digest the trace records with the replay; name each one missing."""
    header = trace.header
    period = header.period
    steps = replayed.final_tick // period - header.start_tick // period   # the steps due
    unhashed = steps - sum(1 for tick in trace.hashes if tick <= replayed.final_tick)
    trajectory = trajectory_hash(replayed.trajectory)
    at_end = replayed.final_tick == trace.end_tick
    recorded = header.metadata.get("trajectory") if at_end else None
    assert recorded is None or isinstance(recorded, str)   # checked before the replay
    missing, verified = [], []
    if unhashed:
        missing.append(f"{unhashed} of the {steps} steps replayed have no recorded state hash")
    elif steps and not replayed.divergences:
        verified.append(f"{replayed.checked} state hashes")
    if at_end and recorded is None:
        missing.append("the trace records no trajectory hash")
    elif at_end and recorded == trajectory:
        verified.append("the trajectory hash")
    if header.version < 2:
        missing.append(f"a version-{header.version} trace carries no digest of its body")
    else:
        verified.append("the body's sha256")
    diverged = bool(replayed.divergences) or (recorded is not None and recorded != trajectory)
    status = DIVERGED if diverged else UNVERIFIED if missing else MATCHED
    return _Verdict(status, trajectory, recorded, tuple(missing), tuple(verified))


def _report(path: str, trace: InputTrace, replayed: DemoReplay, verdict: _Verdict) -> str:
    header = trace.header
    lines = [
        f"trace {path}: the demo's spring (dt {header.dt:g} s) on a {header.fixed_dt:g} s "
        f"clock, ticks {header.start_tick}-{trace.end_tick}, {len(trace.inputs)} inputs, "
        f"{len(trace.hashes)} state hashes, format version {header.version}",
        f"replayed {replayed.pacing}: {len(replayed.frames)} frames, "
        f"{len(replayed.trajectory)} steps",
        f"final tick {replayed.final_tick}, trajectory {verdict.trajectory}"
        + (f" (recorded {verdict.recorded})" if verdict.recorded else ""),
    ]
    if verdict.verified:
        lines.append(f"verified: {', '.join(verdict.verified)}")
    if verdict.missing:
        lines.append(f"missing: {'; '.join(verdict.missing)}")
    if verdict.status == DIVERGED and replayed.divergences:
        first = replayed.divergences[0]
        lines.append(f"DIVERGED at tick {first.tick}: recorded state hash {first.recorded}, "
                     f"replayed {first.replayed}; {len(replayed.divergences)} of "
                     f"{replayed.checked} state hashes differ")
    elif verdict.status == DIVERGED:
        lines.append(f"DIVERGED: the trajectory hash is {verdict.trajectory}, the recorded one "
                     f"{verdict.recorded}; all {replayed.checked} state hashes checked are "
                     "equal")
    elif verdict.status == UNVERIFIED:
        lines.append(f"UNVERIFIED: {replayed.checked} state hashes checked, all equal, but "
                     "the trace lacks a digest it should hold (see missing)")
    else:
        lines.append(f"matched: {replayed.checked} state hashes checked, all equal")
    return "".join(line + "\n" for line in lines)
