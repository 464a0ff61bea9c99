"""Where a batch's chunks of seeds run: a ``concurrent.futures`` executor or a Dask client.

Both backends take chunks, run :func:`run_chunk` on them remotely and hand back outcomes:
:class:`Done` with the chunk's results, or :class:`Lost` when the worker running it died.
Deciding what to do with a lost chunk is the batch's business, not the backend's.

- A ``ProcessPoolExecutor`` whose worker dies is broken for good
  (``BrokenProcessPool``): every chunk in flight is lost, without knowing which one killed
  it. The backend makes a new pool, when it has a way to (the default pool, or a factory
  the caller gave), and reports the chunks lost.
- Dask reschedules a dead worker's tasks by itself. Each death makes the tasks the worker
  held (running or queued there) more suspicious, and a task that was held by more than
  ``distributed.scheduler.allowed-failures`` (3) dead workers ends in ``KilledWorker``:
  a Dask loss names a suspect. Task ``retries`` are not used: a run's exception is caught
  in the worker and becomes a failed result, so a task raises only when something is
  wrong with the batch itself.

The default pool starts its workers with ``forkserver`` where the platform has it, else
``spawn``; never ``fork``: the parent has threads (the executor's own, tqdm's, a Dask
client's), and forking a process with threads can deadlock the child, which Python 3.12+
warns about. A forkserver worker is a fork of a clean single-threaded server, so it starts
faster than a spawned one. Either way, the scenario reaches a worker pickled
(:func:`dump_scenario`): by reference to an importable class, else by value with
cloudpickle, which comes with Dask. The pool's workers
ignore SIGINT, so a Ctrl-C stops the batch in the parent, which cancels what is queued.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import importlib
import os
import pickle
import signal
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, Protocol

from cvcclock.batch._records import run_records
from cvcclock.scenario.scenarios import Scenario

__all__ = ["Backend", "Chunk", "ChunkOutput", "DaskBackend", "Done", "FuturesBackend", "Lost",
           "cpu_count", "dump_scenario", "is_dask_client", "local_pool", "run_chunk"]

_BREAK_TIMEOUT = 30.0
"""Seconds to wait for a broken pool to settle its futures (it fails them at once)."""


@dataclasses.dataclass
class Chunk:
    """Consecutive seeds run as one task.

    Attributes
    ----------
    seeds : tuple of int
    losses : int
        How many times a worker died with the chunk in flight.
    exclusive : bool
        Run it with nothing else in flight, so that a death is its own.
    """

    seeds: tuple[int, ...]
    losses: int = 0
    exclusive: bool = False


class Done(NamedTuple):
    """A chunk that ran: each seed's result pickled, its line if asked for, the worker's seconds."""

    chunk: Chunk
    results: list[bytes]
    lines: list[str] | None
    seconds: float


class Lost(NamedTuple):
    """A chunk whose worker died; ``attributed`` when the backend knows the chunk killed it."""

    chunk: Chunk
    error: BaseException
    attributed: bool


class Backend(Protocol):
    """What runs a batch's chunks."""

    workers: int
    """How many chunks run at once."""

    def submit(self, chunk: Chunk) -> None:
        """Start running ``chunk``."""
        ...

    def in_flight(self) -> int:
        """Chunks submitted and not yet handed back."""
        ...

    def wait(self, block: bool) -> list[Done | Lost]:
        """The outcomes ready now; with ``block``, wait for at least one (if any is in flight)."""
        ...

    def close(self, interrupted: bool) -> None:
        """Cancel what is queued; an executor the backend made is shut down."""
        ...


ChunkOutput = tuple[list[bytes], list[str] | None, float]
"""What :func:`run_chunk` returns."""


def run_chunk(scenario: bytes, seeds: tuple[int, ...], options: Mapping[str, Any],
              reference: str | None) -> ChunkOutput:
    """The task a worker runs: :func:`~cvcclock.batch._records.run_records`, timed.

    Parameters
    ----------
    scenario : bytes
        The pickled scenario (:func:`dump_scenario`).
    seeds : tuple of int
    options : mapping
        ``simulate`` keyword arguments.
    reference : str or None
        The scenario's name in lines, or None for no lines.

    Returns
    -------
    (list of bytes, list of str or None, float)
        The pickled results, the lines, and the seconds the chunk took.
    """
    start = time.perf_counter()
    results, lines = run_records(pickle.loads(scenario), seeds, options, reference)
    return results, lines, time.perf_counter() - start


def dump_scenario(scenario: Scenario) -> bytes:
    """The scenario pickled for the workers.

    Its class goes by reference (module and name) when it can; a class from ``__main__`` or
    one that cannot be imported by name (made in a function, or by ``exec``), and any
    attribute pickle refuses (a lambda), go by value with cloudpickle when it is installed.

    Parameters
    ----------
    scenario : Scenario

    Returns
    -------
    bytes

    Raises
    ------
    TypeError
        If it cannot be pickled.
    """
    try:
        cloudpickle: Any = importlib.import_module("cloudpickle")
    except ImportError:
        cloudpickle = None
    try:
        if cloudpickle is not None and type(scenario).__module__ == "__main__":
            return bytes(cloudpickle.dumps(scenario))  # a Dask worker has another __main__
        try:
            return pickle.dumps(scenario)
        except Exception:
            if cloudpickle is None:
                raise
            return bytes(cloudpickle.dumps(scenario))
    except Exception as e:
        hint = "" if cloudpickle else ", or install cloudpickle"
        raise TypeError(f"scenario {scenario!r} cannot be pickled to send it to worker processes "
                        f"({e}); define its class at the top level of an importable module{hint}"
                        ) from e


def cpu_count() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "process_cpu_count"):                # Python 3.13+
        return int(os.process_cpu_count() or 1)
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def local_pool(workers: int) -> cf.ProcessPoolExecutor:
    """The default pool: ``workers`` processes started by forkserver (or spawn), ignoring SIGINT.

    Parameters
    ----------
    workers : int

    Returns
    -------
    concurrent.futures.ProcessPoolExecutor
    """
    import multiprocessing  # here: importing the scenario package needs none of it

    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    return cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method),
                                  initializer=_ignore_sigint)


def _fatal(error: BaseException, chunk: Chunk) -> BaseException:
    error.add_note(f"(raised by the task running seeds {chunk.seeds[0]}..{chunk.seeds[-1]} of a "
                   f"simulate_many batch: not by a run, which would have become a FailedRun)")
    return error


class FuturesBackend:
    """Chunks on a ``concurrent.futures.Executor``; a broken pool is replaced if ``make`` is given.

    Parameters
    ----------
    executor : concurrent.futures.Executor
    make : callable, optional
        Makes a fresh executor to replace a broken one; executors it made are shut down on
        close. Without it, a broken executor ends the batch.
    workers : int
        The executor's concurrency, to size the window of chunks in flight.
    task : tuple
        ``run_chunk``'s arguments but the seeds: the pickled scenario, the options, the
        reference.
    """

    def __init__(self, executor: cf.Executor, make: Callable[[], cf.Executor] | None, workers: int,
                 task: tuple[bytes, Mapping[str, Any], str | None]) -> None:
        self.workers = workers
        self._executor = executor
        self._make = make
        self._task = task
        self._futures: dict[cf.Future[ChunkOutput], Chunk] = {}
        self._lost: list[Done | Lost] = []

    def submit(self, chunk: Chunk) -> None:
        """Start running ``chunk``."""
        scenario, options, reference = self._task
        try:
            future = self._executor.submit(run_chunk, scenario, chunk.seeds, options, reference)
        except cf.BrokenExecutor as e:         # broke since the last wait
            self._lost.append(Lost(chunk, e, False))
            self._lost.extend(self._replace(e))
            return
        self._futures[future] = chunk

    def in_flight(self) -> int:
        """Chunks submitted and not yet handed back."""
        return len(self._futures) + len(self._lost)

    def wait(self, block: bool) -> list[Done | Lost]:
        """The outcomes ready now; with ``block``, wait for at least one."""
        outcomes, self._lost = self._lost, []
        if not self._futures or (outcomes and block):
            return outcomes
        done, _ = cf.wait(self._futures, timeout=None if block else 0,
                          return_when=cf.FIRST_COMPLETED)
        broken: cf.BrokenExecutor | None = None
        for future in done:
            chunk = self._futures.pop(future)
            error = future.exception()
            if error is None:
                outcomes.append(Done(chunk, *future.result()))
            elif isinstance(error, cf.BrokenExecutor):
                broken = error
                outcomes.append(Lost(chunk, error, False))
            else:
                raise _fatal(error, chunk)
        if broken is not None:
            outcomes.extend(self._replace(broken))
        return outcomes

    def _replace(self, error: cf.BrokenExecutor) -> list[Done | Lost]:
        """Every chunk still in flight went down with the pool, unless it finished first."""
        cf.wait(self._futures, timeout=_BREAK_TIMEOUT)
        outcomes: list[Done | Lost] = []
        for future, chunk in self._futures.items():
            if future.done() and future.exception() is None:
                outcomes.append(Done(chunk, *future.result()))
            else:
                outcomes.append(Lost(chunk, error, False))
        self._futures.clear()
        if self._make is None:
            error.add_note("a worker of the executor given to simulate_many died; give executor= a "
                           "function making an executor instead, and a broken one is replaced")
            raise error
        self._executor.shutdown(wait=False, cancel_futures=True)
        self._executor = self._make()
        return outcomes

    def close(self, interrupted: bool) -> None:
        """Cancel what is queued; shut down an executor this backend made."""
        for future in self._futures:
            future.cancel()
        self._futures.clear()
        self._lost.clear()
        if self._make is not None:
            # After an interruption, do not wait for the chunks running now: they end alone.
            self._executor.shutdown(wait=not interrupted, cancel_futures=True)


def is_dask_client(executor: object) -> bool:
    """Whether ``executor`` is a ``distributed.Client`` (without importing Dask)."""
    distributed = sys.modules.get("distributed")
    return distributed is not None and isinstance(executor, distributed.Client)


class DaskBackend:
    """Chunks as tasks on a Dask cluster, through its client.

    Parameters
    ----------
    client : distributed.Client
    task : tuple
        As for :class:`FuturesBackend`.
    """

    def __init__(self, client: Any, task: tuple[bytes, Mapping[str, Any], str | None]) -> None:
        distributed: Any = importlib.import_module("distributed")    # untyped: Any
        self.workers = max(1, sum(client.nthreads().values()))
        self._client = client
        self._task = task
        self._futures: dict[Any, Chunk] = {}
        self._completed = distributed.as_completed(loop=client.loop)
        self._killed_worker = distributed.KilledWorker

    def submit(self, chunk: Chunk) -> None:
        """Start running ``chunk``."""
        scenario, options, reference = self._task
        future = self._client.submit(run_chunk, scenario, chunk.seeds, options, reference,
                                     pure=False)
        self._futures[future] = chunk
        self._completed.add(future)

    def in_flight(self) -> int:
        """Chunks submitted and not yet handed back."""
        return len(self._futures)

    def wait(self, block: bool) -> list[Done | Lost]:
        """The outcomes ready now; with ``block``, wait for at least one."""
        outcomes: list[Done | Lost] = []
        if not self._futures or not (block or self._completed.has_ready()):
            return outcomes
        ready = [next(self._completed)]
        while self._completed.has_ready():
            ready.append(next(self._completed))
        for future in ready:
            chunk = self._futures.pop(future)
            if future.status == "finished":
                outcomes.append(Done(chunk, *future.result()))
                continue
            error = (future.exception() if future.status == "error"
                     else cf.CancelledError(future.status))
            if isinstance(error, self._killed_worker):
                outcomes.append(Lost(chunk, error, True))
            elif isinstance(error, cf.CancelledError):   # e.g. client.restart(): no one to blame
                outcomes.append(Lost(chunk, error, False))
            else:
                raise _fatal(error, chunk)
        return outcomes

    def close(self, interrupted: bool) -> None:
        """Cancel the chunks in flight; the client and its cluster stay the caller's."""
        if self._futures:
            self._client.cancel(list(self._futures))
        self._futures.clear()
        self._completed.clear()
