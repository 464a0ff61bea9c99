# mypy: disable-error-code="import-untyped, import-not-found"
# (Scenic, the scenic extra, ships no type information; this module types its own side.)
"""The ``cvcclock scenic`` command: run a ``.scenic`` file on the clock, record, replay, seek.

``cvcclock scenic FILE [--model M] [--param K V]... [--seed N] [--steps N]
[--timestep S] [--pacing live|lockstep|batch|step] [--speed X] [--record PATH]
[--replay PATH] [--seek STEP]`` compiles the program, samples a scene (both seeded), runs it
through ``cvcclock.scenic.PacedSimulator`` paced as asked, and prints the final step, the
termination and the trajectory's hash. The phases are functions: ``_compile``, ``_start``,
``PACERS[pacing]`` (a pacer drives the clock until the run ends; a browser panel's pacer
goes in that table), ``_report``.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

from cvcclock._core import ClockConfig, Mode, WorldClock
from cvcclock._extras import install_hint
from cvcclock.checks import check_count, check_global_seed, check_seconds
from cvcclock.cli import _panel
from cvcclock.cli._output import reader_may_leave

__all__ = ["DESCRIPTION", "PACERS", "add_parser", "run"]

DESCRIPTION = """\
Run a Scenic program on cvcclock's clock: compile FILE, sample a scene, and
simulate it with every Scenic step waiting for the clock (the program's own
simulator, or Scenic's DummySimulator when it names none). Pacing decides when
steps run, never which: the final step, termination and trajectory hash are the
same under every pacing and speed. --record writes the run to a file; --replay
runs a recording again and checks every step's hash; --seek re-runs to a step
and stops there."""

EPILOG = """\
exit status: 0 the run ended (or a replay matched); 1 a replay diverged (the
first differing step is named); 2 bad input: an unreadable or damaged file, a
Scenic error (named by file and line), a wrong argument, Scenic not installed;
130 interrupted (Ctrl-C)."""

PACINGS = ("live", "lockstep", "batch", "step")
_QUANTA_PER_STEP = 4     # the clock's quantum is a quarter of the Scenic timestep


class _BadInput(Exception):
    """Input the command cannot run: printed on stderr, exit 2."""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]
               ) -> argparse.ArgumentParser:
    """Add the ``scenic`` command and its options to ``commands``; return its parser."""
    p = commands.add_parser("scenic", help="run a Scenic program paced by the clock",
                            description=DESCRIPTION, epilog=EPILOG,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE", help="a .scenic program")
    p.add_argument("--model", metavar="M", help="the world model (a Scenic module name)")
    p.add_argument("--param", nargs=2, action="append", default=[], metavar=("K", "V"),
                   help="override the global parameter K with V (a number if it reads as "
                        "one); may repeat")
    p.add_argument("--seed", type=int, default=0, metavar="N",
                   help="seeds the scene's sampling and the run (default: 0)")
    p.add_argument("--steps", type=int, default=100, metavar="N",
                   help="the most Scenic steps (default: 100)")
    p.add_argument("--timestep", type=float, default=0.1, metavar="S",
                   help="seconds per Scenic step (default: 0.1)")
    p.add_argument("--pacing", choices=PACINGS, default="live",
                   help="live: real time at --speed; lockstep: one step a frame, no "
                        "waiting; batch: every step at once; step: one quantum at a time "
                        "(default: live)")
    p.add_argument("--speed", type=float, metavar="X",
                   help="world seconds per wall second for --pacing live, 0.01 to 100 "
                        "(default: 1)")
    p.add_argument("--record", metavar="PATH", help="write the run to PATH")
    p.add_argument("--replay", metavar="PATH", help="replay the recording at PATH")
    p.add_argument("--seek", type=int, metavar="STEP",
                   help="re-run to STEP in batch and stop there")
    _panel.add_options(p, "run it live at --speed")
    return p


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the program; the status says ended (0), diverged (1) or bad input (2)."""
    _check_arguments(parser, args)
    _panel.refuse_without_panel(args, parser)
    if args.panel:
        if args.pacing != "live" or args.seek is not None:
            parser.error("--panel runs the program live (the page sets the pacing): "
                         "--pacing and --seek do not apply")
    try:
        status, report = _scenic_command(args, parser)
    except _BadInput as error:
        print(f"cvcclock scenic: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("cvcclock scenic: interrupted", file=sys.stderr)
        return 130
    with reader_may_leave(status):
        print(report, end="")
    return status


def _check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    try:
        check_count(args.steps, "--steps", minimum=1)
        check_global_seed(args.seed, "--seed")
        check_seconds(args.timestep, "--timestep", minimum=1e-4, maximum=3600.0)
        if args.speed is not None:
            if args.pacing != "live":
                raise ValueError(f"--speed applies to --pacing live only, not {args.pacing}")
            check_seconds(args.speed, "--speed", minimum=0.01, maximum=100.0)
        if args.seek is not None:
            check_count(args.seek, "--seek", maximum=args.steps)
        if args.record and args.replay:
            raise ValueError("--record and --replay exclude each other")
    except ValueError as error:
        parser.error(str(error))


def _scenic_command(args: argparse.Namespace, parser: argparse.ArgumentParser
                    ) -> tuple[int, str]:
    scenic = _import_scenic()
    scenario = _compile(scenic, args)
    clock = WorldClock(ClockConfig(fixed_dt=_fixed_dt(args)))
    run = _start(scenario, clock, args)
    with run:
        if args.seek is not None:
            try:
                run.seek(args.seek)
            except ValueError as error:
                raise _BadInput(str(error)) from None
            return 0, f"paused at step {run.steps} (sought), tick {clock.tick}\n"
        if args.panel:
            status = _panel.serve("scenic", args, parser,
                                  lambda **where: _with_panel(run, clock, args, where))
            if status:
                raise _BadInput("--panel: the panel could not start (see above)")
            if not run.done:        # Ctrl-C stopped the panel's loop before the run ended
                raise KeyboardInterrupt
        else:
            PACERS[args.pacing](run, clock, args)
        return _report(run, args)


def _with_panel(run: Any, clock: WorldClock, args: argparse.Namespace,
                where: dict[str, Any]) -> None:
    """The live pacer, with the transport panel: the page drives the run's clock through a
    binding that also publishes ``sim.scenic.step`` and ``sim.scenic.termination``; a page's
    step button runs one Scenic step (the run's follower)."""
    from cvcclock import WorldClockBinding
    from cvcclock.panel import serve as serve_panel

    clock.scale = 1.0 if args.speed is None else args.speed
    binding = WorldClockBinding({}, clock)
    run.bind(binding)
    serve_panel(binding, on_frame=lambda frame, result: run.wait_caught_up(),
                follower=run.follower, until=lambda: run.done, **where)


def _fixed_dt(args: argparse.Namespace) -> float:
    """The clock's quantum: a quarter of the timestep, or a replay's recorded quantum."""
    if not args.replay:
        return float(args.timestep) / _QUANTA_PER_STEP
    from cvcclock.scenic import RecordingError, ScenicRecording

    try:
        fixed_dt = ScenicRecording.load(args.replay).header["fixed_dt"]
        return float(check_seconds(fixed_dt, "the recording's fixed_dt", minimum=1e-6))
    except RecordingError as error:
        raise _BadInput(f"damaged recording: {error}") from None
    except (TypeError, ValueError) as error:
        raise _BadInput(f"damaged recording: {args.replay}: {error}") from None
    except OSError as error:
        raise _BadInput(f"cannot read {args.replay}: {error.strerror or error}") from None


def _import_scenic() -> Any:
    try:
        import scenic
        import scenic.syntax.translator  # noqa: F401 - scenarioFromFile

        import cvcclock.scenic  # noqa: F401
    except ImportError:
        raise _BadInput(f"needs Scenic: {install_hint('scenic')}") from None
    return scenic


def _compile(scenic: Any, args: argparse.Namespace) -> Any:
    """The compiled scenario, its sampling seeded as Scenic's own ``--seed`` seeds it."""
    import random

    import numpy as np

    random.seed(args.seed)
    np.random.seed(args.seed)
    params = {key: _value(value) for key, value in args.param}
    if not os.path.isfile(args.file):
        raise _BadInput(f"cannot read {args.file}: no such file")
    try:
        return scenic.scenarioFromFile(args.file, params=params, model=args.model)
    except OSError as error:
        raise _BadInput(f"cannot read {args.file}: {error.strerror or error}") from None
    except Exception as error:  # noqa: BLE001 - any error of the program is bad input
        raise _BadInput(_where(error, args.file)) from None


def _value(text: str) -> object:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _where(error: BaseException, path: str) -> str:
    """``FILE:LINE: what``: Scenic's syntax errors carry the line, others their traceback."""
    line = getattr(error, "lineno", None)
    filename = getattr(error, "filename", None) or path
    if line is None:
        frames = [f for f in traceback.extract_tb(error.__traceback__)
                  if f.filename.endswith(path.rsplit("/", 1)[-1])]
        if frames:
            filename, line = frames[-1].filename, frames[-1].lineno
    what = getattr(error, "msg", None) or str(error)
    where = f"{filename}:{line}" if line is not None else filename
    return f"{where}: {type(error).__name__}: {what}"


def _start(scenario: Any, clock: WorldClock, args: argparse.Namespace) -> Any:
    from scenic.core.simulators import DummySimulator

    from cvcclock.scenic import PacedSimulator, RecordingError

    inner = scenario.getSimulator() if scenario.simulator is not None else DummySimulator()
    paced = PacedSimulator(inner, clock)
    try:
        if args.replay:
            return paced.replay(scenario, args.replay)
        scene, _ = scenario.generate(maxIterations=2000)
        return paced.start(scene, maxSteps=args.steps, timestep=args.timestep,
                           seed=args.seed, record=args.record, scenario=scenario)
    except RecordingError as error:
        raise _BadInput(f"damaged recording: {error}") from None
    except OSError as error:
        raise _BadInput(f"cannot read {args.replay}: {error.strerror or error}") from None
    except ValueError as error:
        raise _BadInput(str(error)) from None
    except Exception as error:  # noqa: BLE001 - a scene that cannot be sampled, and kin
        raise _BadInput(_where(error, args.file)) from None


# -- pacers: each drives the clock until the run ends --------------------------------------


def _live(run: Any, clock: WorldClock, args: argparse.Namespace) -> None:
    clock.scale = 1.0 if args.speed is None else args.speed
    run.play(fps=60.0)


def _frames(frame: Callable[[WorldClock], object]
            ) -> Callable[[Any, WorldClock, argparse.Namespace], None]:
    def pace(run: Any, clock: WorldClock, args: argparse.Namespace) -> None:
        while not run.done:
            frame(clock)
            run.wait_caught_up()
    return pace


def _lockstep(run: Any, clock: WorldClock, args: argparse.Namespace) -> None:
    clock.mode, clock.lockstep_steps = Mode.LOCKSTEP, _QUANTA_PER_STEP
    _frames(lambda c: c.advance(0.0))(run, clock, args)


def _step(run: Any, clock: WorldClock, args: argparse.Namespace) -> None:
    clock.mode = Mode.STEPPING
    _frames(lambda c: c.step_once())(run, clock, args)


def _batch(run: Any, clock: WorldClock, args: argparse.Namespace) -> None:
    # Every step's quanta in one call (and one step more, past any start alignment).
    _frames(lambda c: c.advance_ticks(_QUANTA_PER_STEP * (args.steps + 1)))(run, clock, args)


#: name -> pacer(run, clock, args): drives the clock until ``run`` ends.
PACERS: dict[str, Callable[[Any, WorldClock, argparse.Namespace], None]] = {
    "live": _live,
    "lockstep": _lockstep,
    "batch": _batch,
    "step": _step,
}


def _report(run: Any, args: argparse.Namespace) -> tuple[int, str]:
    from cvcclock.scenic import trajectory_hash

    try:
        result = run.result
    except Exception as error:  # noqa: BLE001 - the program failed while it ran
        if run.divergence is None:
            raise _BadInput(_where(error, args.file)) from None
        result = None
    lines = []
    if result is None and run.divergence is None:
        lines.append(f"rejected: no simulation satisfied the requirements (step {run.steps})")
    elif result is not None:
        lines.append(f"final step {run.steps}, {result.terminationType.name}: "
                     f"{result.terminationReason}")
        lines.append(f"trajectory {trajectory_hash(result)}")
    status = 0
    if run.is_replay:
        if run.divergence is None:
            lines.append(f"matched: {len(run.state_hashes)} step hashes checked, all equal")
        else:
            d = run.divergence
            lines.append(f"DIVERGED at step {d.step}: {d.message}")
            status = 1
    return status, "".join(line + "\n" for line in lines)
