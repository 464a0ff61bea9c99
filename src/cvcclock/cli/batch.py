"""``python -m cvcclock batch MODULE:SCENARIO --seeds START:STOP``: a batch, then its summary.

Exit status: 0 when every run completed (a run whose rejected attempts were resampled
into an accepted one counts as completed), 1 when some failed, 2 for bad arguments or input
(a scenario that cannot be loaded, here or on the workers, a results file of another batch,
Dask not installed, a scheduler that cannot be reached), 130 when interrupted (Ctrl-C) and
143 when terminated (SIGTERM); rerun the same command with ``--out`` to resume (``--repair``
first moves the file's damaged lines aside). ``--dask N``
starts a Dask cluster of N worker processes on this machine and closes it at the end, also
when interrupted. This module imports nothing heavy until the command runs.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

from cvcclock._extras import install_hint
from cvcclock.cli._output import reader_may_leave

__all__ = ["add_parser", "run"]

_Fail = Callable[[str], NoReturn]

_DESCRIPTION = ("Run simulate() for every seed of a scenario on local worker processes or a Dask "
                "cluster and print the batch's summary.")

_EPILOG = f"""\
Dask: --dask N starts a cluster of N worker processes on this machine for the
batch and closes it after; its workers import MODULE as this command does (the
current directory is put on their PYTHONPATH). --scheduler ADDRESS runs on a
cluster of your own: MODULE must be importable on its workers (install it there
or put it on their PYTHONPATH). Both need Dask:
  {install_hint('dask')}

exit status: 0 every run completed; 1 some runs failed; 2 a usage error, a
scenario that cannot be loaded (here or on the workers), a results file of
another batch, or Dask missing or unreachable; 130 interrupted (Ctrl-C); 143
terminated (SIGTERM). Run the same command with --out again to resume; add
--repair if the file was damaged (its bad lines go to PATH.rejected).

--seeds -3:0 is read as --seeds=-3:0 (argparse alone would take -3:0 for an
option)."""

# Exit statuses of a stopped batch: 128 + the signal's number, as a shell reports it.
_INTERRUPTED, _TERMINATED = 130, 143


class _Refused(Exception):
    """Input or an environment the batch cannot run with, found after the arguments parsed:
    exit 2 with the message, without the usage line (the arguments were fine)."""


class _Terminated(BaseException):
    """SIGTERM arrived: unwinds the batch as Ctrl-C does (a BaseException, so no
    ``except Exception`` on the way swallows it)."""


def _add_arguments(parser: argparse.ArgumentParser) -> None:
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
    parser.add_argument("--dask", metavar="N",
                        help="start a Dask cluster of N worker processes on this machine, run "
                             "the batch on it and close it (the same as --scheduler local:N)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run on the Dask cluster whose scheduler is at ADDRESS (e.g. "
                             "tcp://10.0.0.5:8786), or on a new one of N worker processes on "
                             "this machine with local:N")
    parser.add_argument("--out", metavar="PATH",
                        help="append each result to this JSON Lines file as it completes; the same "
                             "command again resumes an interrupted batch")
    parser.add_argument("--max-steps", metavar="N",
                        help="end each run (time limit) at this time step")
    parser.add_argument("--run-timeout", metavar="SECONDS",
                        help="stop a run that takes longer (wall clock) and record it as failed, "
                             "replacing its worker process (default: no limit)")
    parser.add_argument("--repair", action="store_true",
                        help="first move the damaged lines of the --out file into "
                             "PATH.rejected (their seeds run again)")


class _ValueFirst:
    """Reads ``--seeds -3:0`` as ``--seeds=-3:0``.

    argparse takes an argument that starts with ``-`` and is not a plain number for an
    option, so the options whose values may start with ``-`` are joined to the argument
    after them before parsing.
    """

    _TAKES_VALUE = ("--seeds",)

    def __init__(self, parse: Callable[..., Any]) -> None:
        self._parse = parse

    def __call__(self, args: list[str] | None = None, namespace: Any = None) -> Any:
        return self._parse(None if args is None else self.joined(list(args)), namespace)

    @classmethod
    def joined(cls, args: list[str]) -> list[str]:
        """``args`` with each ``--seeds -N...`` as the one argument ``--seeds=-N...``."""
        out: list[str] = []
        rest = iter(args)
        for arg in rest:
            if arg == "--":
                out.append(arg)
                out.extend(rest)
                break
            if arg in cls._TAKES_VALUE:
                value = next(rest, None)
                if value is not None and value[:1] == "-" and value[1:2].isdigit():
                    out.append(f"{arg}={value}")
                    continue
                out.append(arg)
                if value is not None:
                    out.append(value)
                continue
            out.append(arg)
        return out


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
        description=_DESCRIPTION, epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_arguments(parser)
    # The top-level parser hands the command's arguments on whole to parse_known_args.
    parser.parse_known_args = _ValueFirst(  # type: ignore[method-assign, assignment]
        parser.parse_known_args)
    return parser


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
        0 when every run completed, 1 when some failed, 2 when the input or the
        environment is refused (the message on stderr), 130 when interrupted, 143 when
        terminated.
    """
    from cvcclock.checks import check_count, check_wall_limit

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

    def seconds(text: str | None, name: str) -> float | None:
        if text is None:
            return None
        try:
            value = float(text)
        except ValueError:
            fail(f"{name} must be a number of seconds, got {text!r}")
        try:
            return check_wall_limit(value, name)
        except ValueError as e:
            fail(str(e))

    workers = count(args.workers, "--workers", 1)
    run_timeout = seconds(args.run_timeout, "--run-timeout")
    max_steps = count(args.max_steps, "--max-steps", 0)
    local = count(args.dask, "--dask", 1)
    scheduler = args.scheduler
    if scheduler is not None and scheduler.startswith("local:"):
        local, scheduler = count(scheduler.removeprefix("local:"), "--scheduler local:N", 1), None
    if args.dask is not None and args.scheduler is not None:
        fail("give --dask or --scheduler, not both")
    if workers is not None and (args.scheduler is not None or local is not None):
        fail(f"give --workers or {'--dask' if args.dask else '--scheduler'}, not both: a Dask "
             "cluster has its own workers")
    if args.repair and args.out is None:
        fail("--repair repairs the --out file: give --out PATH")
    seeds = _seeds(args.seeds, fail)
    scenario = _scenario(args.scenario, fail)
    module = args.scenario.partition(":")[0]
    try:
        with _stop_on_signals() as received, contextlib.ExitStack() as stack:
            client = None
            if local is not None:
                client = stack.enter_context(_local_cluster(local))
            elif scheduler is not None:
                client = stack.enter_context(_connected(scheduler))
            if args.repair:
                _repair(args.out)
            return _run_batch(scenario, module, seeds, client, workers, args.out, max_steps,
                              run_timeout, received)
    except _Refused as e:
        print(f"cvcclock batch: error: {e}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, _Terminated) as e:
        # Here only if it came before or after the runs (starting or closing a cluster).
        print(f"cvcclock batch: {_stopped(e)}", file=sys.stderr)
        return _TERMINATED if isinstance(e, _Terminated) else _INTERRUPTED


def _stopped(error: BaseException) -> str:
    return "terminated" if isinstance(error, _Terminated) else "interrupted"


@contextlib.contextmanager
def _stop_on_signals() -> Iterator[list[type[BaseException]]]:
    """SIGINT and SIGTERM stop the batch, so a cluster and a results file are closed.

    Yields the stops received, in order. A handler raises its exception where the main thread
    is, which may be inside a destructor (a Dask future's ``__del__``) that prints and drops
    it; the list keeps the stop, so the batch's loop raises it again at its next result.
    Only the main thread can set a handler; elsewhere the signals keep their own.
    """
    received: list[type[BaseException]] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def stop(signum: int, frame: object) -> None:
        kind = _Terminated if signum == signal.SIGTERM else KeyboardInterrupt
        received.append(kind)
        raise kind

    previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGINT,
                                                                   signal.SIGTERM)}
    try:
        yield received
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _unless_stopped(results: Iterator[Any], received: list[type[BaseException]]
                    ) -> Iterator[Any]:
    """The batch's results, until a stop was received (even one a destructor swallowed)."""
    for result in results:
        if received:
            raise received[0]
        yield result


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


def _distributed(option: str) -> Any:
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise _Refused(f"{option} runs on Dask, which is not installed: "
                       f"{install_hint('dask')}") from None


@contextlib.contextmanager
def _connected(address: str) -> Iterator[Any]:
    distributed = _distributed("--scheduler")
    try:
        client = distributed.Client(address, timeout=30)
    except (OSError, ValueError) as e:      # TimeoutError is an OSError
        raise _Refused(f"cannot connect to the Dask scheduler at {address!r}: {e}") from None
    try:
        yield client
    finally:
        client.close()


@contextlib.contextmanager
def _local_cluster(workers: int) -> Iterator[Any]:
    """A Dask cluster of ``workers`` single-threaded processes on this machine, and its client.

    Its workers get the scenario module the way this command did, as ``python -m`` would:
    the current directory goes first on the PYTHONPATH they start with. They are processes
    of this machine, so the environment reaches every one of them, a worker the nanny
    restarts too, and a package works as well as a single file (``client.upload_file``
    would copy one file, or a zip, into each worker's scratch space).
    """
    distributed = _distributed("--dask")
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([os.getcwd(), *([saved] if saved else [])])
    cluster = client = None
    try:
        cluster = distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
            silence_logs=logging.ERROR)
        client = distributed.Client(cluster, timeout=60)
        yield client
    finally:
        try:
            if client is not None:
                client.close(timeout=30)
        finally:
            if cluster is not None:
                cluster.close(timeout=30)
            if saved is None:
                del os.environ["PYTHONPATH"]
            else:
                os.environ["PYTHONPATH"] = saved


def _workers(client: Any) -> str:
    """Who ran the batch's tasks, for a message."""
    return "the Dask workers" if client is not None else "the worker processes"


def _cannot_import(error: ImportError, module: str, client: Any) -> str:
    """What to say when the batch's workers could not import a module."""
    name = error.name or ""
    where = _workers(client)
    if name and (module == name or module.startswith(name + ".")):
        return (f"{where} cannot import {name!r}: install it on them or put it on their "
                "PYTHONPATH")
    return f"{where} could not load the scenario: {error}"


def _raised_by_a_task(error: BaseException) -> bool:
    """Whether a worker's task raised ``error`` (loading the scenario), not a run or this
    process: simulate_many notes that on it."""
    return any(note.startswith("(raised by the task running seeds")
               for note in getattr(error, "__notes__", ()))


def _repair(out: str) -> None:
    """Move the damaged lines of ``out`` aside, saying which (nothing if it does not exist)."""
    from cvcclock.batch import repair_results

    if not os.path.exists(out):
        return
    try:
        repair = repair_results(out)
    except (ValueError, RuntimeError, OSError) as e:
        raise _Refused(str(e)) from None
    if repair.lines:
        numbers = ", ".join(str(number) for number, _ in repair.lines)
        print(f"cvcclock batch: moved {len(repair.lines)} damaged line(s) of {out} (line "
              f"{numbers}) to {repair.rejected}; their seeds run again", file=sys.stderr)


def _run_batch(scenario: Any, module: str, seeds: range, client: Any, workers: int | None,
               out: str | None, max_steps: int | None, run_timeout: float | None,
               received: list[type[BaseException]]) -> int:
    from cvcclock.batch import refused, simulate_many, summarize

    try:
        # keep="records": the summary is all this prints (the trajectories stay in the workers)
        results = simulate_many(scenario, seeds, executor=client, workers=workers, out=out,
                                max_steps=max_steps, run_timeout=run_timeout, keep="records")
        summary = summarize(_unless_stopped(results, received))
    except (KeyboardInterrupt, _Terminated) as e:
        resume = (f"; the finished runs are in {out}: run the same command again to resume"
                  if out else "")
        print(f"cvcclock batch: {_stopped(e)}{resume}", file=sys.stderr)
        return _TERMINATED if isinstance(e, _Terminated) else _INTERRUPTED
    except ImportError as e:
        if not _raised_by_a_task(e):
            raise
        # The scenario imported here, so this is a worker's: its class goes by reference.
        raise _Refused(_cannot_import(e, module, client)) from None
    except AttributeError as e:
        if not _raised_by_a_task(e):
            raise
        # A worker's copy of the module lacks the class: pickle looks it up by name there.
        where = _workers(client)
        raise _Refused(f"{where} could not load the scenario ({e}): install the same version "
                       f"of {module!r} on them") from None
    except (TypeError, ValueError, RuntimeError, OSError) as e:
        if not refused(e):
            raise       # a bug, not the user's input: its traceback says where
        # an out file of another batch, a locked one, a scenario that does not pickle
        raise _Refused(str(e)) from None
    status = 1 if summary.failed else 0
    with reader_may_leave(status):       # | head: the status is still the batch's
        print(summary)
        if out:
            print(f"\nresults: {out}")
    return status
