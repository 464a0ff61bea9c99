"""``python -m cvcclock batch MODULE:SCENARIO --seeds START:STOP``: a batch, then its summary.

Exit status: 0 when every run completed (a run whose rejected attempts were resampled
into an accepted one counts as completed), 1 when some failed, 2 for bad arguments (a
scenario that cannot be loaded, a results file of another batch, a scheduler that cannot
be reached), 130 when interrupted (Ctrl-C); rerun the same command with ``--out`` to
resume. This module imports nothing heavy until the command runs.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

__all__ = ["add_arguments", "add_parser", "main", "run"]

_Fail = Callable[[str], NoReturn]

_DESCRIPTION = ("Run simulate() for every seed of a scenario on local worker processes or a Dask "
                "cluster and print the batch's summary.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``batch`` command's arguments to ``parser``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
    """
    parser.add_argument("scenario", metavar="MODULE:SCENARIO",
                        help="a Scenario subclass (made with no arguments) or instance, e.g. "
                             "mypackage.scenarios:CloseCall; MODULE is imported as python -m would")
    parser.add_argument("--seeds", required=True, metavar="START:STOP",
                        help="the seeds START, START+1, ..., STOP-1 (e.g. 0:1000)")
    parser.add_argument("--workers", metavar="N",
                        help="local worker processes (default: one per CPU)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run on the Dask cluster whose scheduler is at ADDRESS (e.g. "
                             "tcp://10.0.0.5:8786); needs pip install 'cvcclock[dask]'")
    parser.add_argument("--out", metavar="PATH",
                        help="append each result to this JSON Lines file as it completes; the same "
                             "command again resumes an interrupted batch")
    parser.add_argument("--max-steps", metavar="N",
                        help="end each run (time limit) at this time step")


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``batch`` command to an ``add_subparsers()`` object; returns its parser.

    Parameters
    ----------
    commands : argparse._SubParsersAction
        What ``ArgumentParser.add_subparsers`` returned.

    Returns
    -------
    argparse.ArgumentParser
        Pass it to :func:`run`, which reports bad arguments through it.
    """
    parser: argparse.ArgumentParser = commands.add_parser(
        "batch", help="run a scenario for many seeds, in parallel, and print the summary",
        description=_DESCRIPTION)
    add_arguments(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``cvcclock batch`` as a program of its own.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after ``batch``; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    int
        The exit status (bad arguments exit 2 through ``SystemExit``, as argparse does).
    """
    parser = argparse.ArgumentParser(prog="cvcclock batch", description=_DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv), parser)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the batch ``args`` describes and print its summary.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed by a parser that :func:`add_arguments` set up.
    parser : argparse.ArgumentParser
        That parser: bad arguments are reported through ``parser.error`` (exit 2).

    Returns
    -------
    int
        0 when every run completed, 1 when some failed, 130 when interrupted.
    """
    from cvcclock.checks import check_count

    def fail(message: str) -> NoReturn:
        parser.error(message)

    def count(text: str | None, name: str, minimum: int) -> int | None:
        if text is None:
            return None
        try:
            value = int(text)
        except ValueError:
            fail(f"{name} must be an integer, got {text!r}")
        try:
            return check_count(value, name, minimum=minimum)
        except ValueError as e:
            fail(str(e))

    workers = count(args.workers, "--workers", 1)
    max_steps = count(args.max_steps, "--max-steps", 0)
    if workers is not None and args.scheduler is not None:
        fail("give --workers or --scheduler, not both: a Dask cluster has its own workers")
    seeds = _seeds(args.seeds, fail)
    scenario = _scenario(args.scenario, fail)
    client = None if args.scheduler is None else _connect(args.scheduler, fail)
    try:
        return _run_batch(scenario, seeds, client, workers, args.out, max_steps, fail)
    finally:
        if client is not None:
            client.close()


def _seeds(text: str, fail: _Fail) -> range:
    start, sep, stop = text.partition(":")
    try:
        first, end = int(start), int(stop)
    except ValueError:
        fail(f"--seeds must be START:STOP, two integers (e.g. 0:1000), got {text!r}")
    if not sep or end <= first:
        fail(f"--seeds START:STOP needs START < STOP (the seeds START..STOP-1), got {text!r}")
    from cvcclock.checks import check_seed

    try:
        check_seed(first, "--seeds START")
    except ValueError as e:
        fail(str(e))
    return range(first, end)


def _scenario(reference: str, fail: _Fail) -> Any:
    from cvcclock.scenario import Scenario

    module_name, sep, qualname = reference.partition(":")
    if not sep or not module_name or not qualname:
        fail("the scenario must be MODULE:SCENARIO (e.g. mypackage.scenarios:CloseCall), "
             f"got {reference!r}")
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())         # as python -m does, also for the cvcclock script
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as e:
        fail(f"cannot import module {module_name!r} of {reference!r}: {e}")
    for part in qualname.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            fail(f"module {module_name!r} has no {qualname!r}")
    if isinstance(target, type) and issubclass(target, Scenario):
        try:
            return target()
        except TypeError as e:
            fail(f"{reference} cannot be made with no arguments ({e}); name an instance instead")
    if isinstance(target, Scenario):
        return target
    fail(f"{reference} is {target!r}, not a Scenario subclass or instance")


def _connect(address: str, fail: _Fail) -> Any:
    try:
        distributed = importlib.import_module("distributed")
    except ImportError:
        fail("--scheduler runs on Dask, which is not installed: pip install 'cvcclock[dask]'")
    try:
        return distributed.Client(address, timeout=30)
    except (OSError, ValueError) as e:      # TimeoutError is an OSError
        fail(f"cannot connect to the Dask scheduler at {address!r}: {e}")


def _run_batch(scenario: Any, seeds: range, client: Any, workers: int | None, out: str | None,
               max_steps: int | None, fail: _Fail) -> int:
    from cvcclock.batch import simulate_many, summarize

    try:
        summary = summarize(simulate_many(scenario, seeds, executor=client, workers=workers,
                                          out=out, max_steps=max_steps))
    except KeyboardInterrupt:
        resume = (f"; the finished runs are in {out}: run the same command again to resume"
                  if out else "")
        print(f"cvcclock batch: interrupted{resume}", file=sys.stderr)
        return 130
    except (TypeError, ValueError, RuntimeError, OSError, ImportError) as e:
        # an out file of another batch, a locked one, a scenario workers cannot load
        fail(str(e))
    print(summary)
    if out:
        print(f"\nresults: {out}")
    return 1 if summary.failed else 0
