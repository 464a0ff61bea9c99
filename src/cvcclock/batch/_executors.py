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

Orphans: the default pool's workers die with the batch's process, however it ends
(SIGKILL included). Each watches a pipe only the parent holds the writing end of, and
exits when it reads its end of file; on Linux each also asks for SIGKILL when its own
parent dies (``PR_SET_PDEATHSIG``: that covers a worker started by spawn, whose parent is
the batch, and a forkserver's worker if the forkserver is killed). Once the workers are
gone, the forkserver and the resource tracker, which each wait for their last user, end by
themselves. A batch stopped midway (Ctrl-C, SIGTERM, ``break``) lets its workers finish the
chunk they run, as before, and they exit then; the pipe only ends them if this process
ends first.

Stuck runs (``run_timeout``): a worker of the default pool tells the parent, through a
queue, each time it starts a run (a Dask worker, through an event: see
:class:`DaskBackend`); a run that has gone on longer than the limit (as the parent counts,
from when it heard of the start, so never early) has its worker killed. The pool breaks
and is replaced, the stuck seed's chunk comes back :class:`TimedOut`, and the chunks that
went down with it come back lost through no fault of theirs.
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import ctypes
import dataclasses
import importlib
import itertools
import os
import pickle
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, Protocol

from cvcclock.batch._file import Part, write_part
from cvcclock.batch._records import ALL, BatchKey, line_bytes, run_records
from cvcclock.scenario.scenarios import Scenario

__all__ = ["NO_WORKERS_WAIT", "Backend", "Chunk", "ChunkOutput", "DaskBackend", "Done",
           "FuturesBackend", "LocalPool", "Lost", "Task", "TimedOut", "cpu_count", "dump_scenario",
           "is_dask_client", "run_chunk"]

_BREAK_TIMEOUT = 30.0
"""Seconds to wait for a broken pool to settle its futures (it fails them at once)."""

NO_WORKERS_WAIT = 300.0
"""Seconds a batch waits for a Dask cluster that has no worker before it gives up: long
enough for nannies to restart killed workers on a loaded machine (over a minute was seen
on a 2-core machine at a load of 11), short enough that a lost cluster is reported."""

_GATHER_TIMEOUT = 30.0
"""Seconds a Dask result may take to arrive once its task finished (then it is waited for
again: its worker may have died, and Dask is computing it once more)."""

_DASK_POLL = 1.0
"""Seconds between looks at a Dask cluster's workers while waiting for a result."""

_ORPHANED = 70
"""The exit status of a worker whose batch went away."""

_STUCK = 71
"""The exit status of a Dask worker made to exit because its run was stuck."""

_PR_SET_PDEATHSIG = 1


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
    deaths_alone : int
        How many times a worker died running it with nothing else in flight.
    """

    seeds: tuple[int, ...]
    losses: int = 0
    exclusive: bool = False
    deaths_alone: int = 0


class Done(NamedTuple):
    """A chunk that ran: the list of its kept results pickled; if lines were asked for, the part
    its worker wrote them to, or the lines (bytes, each with its end); the worker's seconds."""

    chunk: Chunk
    results: bytes
    lines: Part | list[bytes] | None
    seconds: float


class Lost(NamedTuple):
    """A chunk whose worker died; ``attributed`` when the backend knows the chunk killed it,
    ``blameless`` when the backend knows it did not (it killed the worker itself)."""

    chunk: Chunk
    error: BaseException
    attributed: bool
    blameless: bool = False


class TimedOut(NamedTuple):
    """A chunk whose run of ``seed`` went on past the run timeout: its worker was killed."""

    chunk: Chunk
    seed: int
    seconds: float


Outcome = Done | Lost | TimedOut


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

    def wait(self, block: bool) -> list[Outcome]:
        """The outcomes ready now; with ``block``, wait for at least one (if any is in flight)."""
        ...

    def close(self, interrupted: bool) -> None:
        """Cancel what is queued; an executor the backend made is shut down."""
        ...


ChunkOutput = tuple[bytes, Part | list[bytes] | None, float]
"""What :func:`run_chunk` returns."""


def run_chunk(scenario: bytes, seeds: tuple[int, ...], options: Mapping[str, Any],
              key: BatchKey | None, attempt: int | None = None,
              topic: str | None = None, keep: frozenset[str] = ALL,
              staging: str | None = None) -> ChunkOutput:
    """The task a worker runs: :func:`~cvcclock.batch._records.run_records`, timed.

    Parameters
    ----------
    scenario : bytes
        The pickled scenario (:func:`dump_scenario`).
    seeds : tuple of int
    options : mapping
        ``simulate`` keyword arguments.
    key : BatchKey or None
        What the lines say decided the runs, or None for no lines.
    attempt : int, optional
        The chunk's submission, named in the run starts the worker reports when the
        parent watches for stuck runs: on the queue of a :class:`LocalPool`, or with
        ``topic``, as Dask events of that topic.
    topic : str, optional
        On a Dask worker, the event topic the run starts go to.
    keep : frozenset of str
        What of each result to send back beyond its summary.
    staging : str, optional
        The batch's staging directory: the lines go to a part there (:func:`write_part`)
        when this process can write it, else back with the results.

    Returns
    -------
    (bytes, Part or list of bytes or None, float)
        The kept results pickled (a list), the part or the lines, and the seconds the chunk
        took.
    """
    start = time.perf_counter()
    events = _EVENTS
    started: Callable[[int], None] | None = None
    if attempt is not None and topic is not None:
        worker = importlib.import_module("distributed").get_worker()

        def started(seed: int) -> None:
            worker.log_event(topic, [attempt, seed, worker.address])
    elif attempt is not None and events is not None:
        pid = os.getpid()

        def started(seed: int) -> None:
            events.put((attempt, pid, seed))
    results, lines = run_records(pickle.loads(scenario), seeds, options, key, started, keep)
    if lines is None:
        return results, None, time.perf_counter() - start
    # Written here: the batch's process copies the part into its file, and never sees the
    # results' bulk (the parent is the one process every result passes through).
    data = [line_bytes(line) for line in lines]
    part = None if staging is None else write_part(staging, data)
    return results, data if part is None else part, time.perf_counter() - start


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


# -- the default pool's workers: they die with the batch, and report the runs they start -----

_EVENTS: Any = None
"""In a worker of a watched pool: the queue it reports run starts to."""


def _start_worker(parent: Any, events: Any) -> None:
    """A default pool worker's initializer: ignore SIGINT, die with the batch, report runs."""
    global _EVENTS
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(parent)
    _EVENTS = events


def _die_with_parent(parent: Any) -> None:
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass        # the pipe below is the rule; this is the quicker exit where it works
    threading.Thread(target=_watch_parent, args=(parent,), name="cvcclock-batch-parent",
                     daemon=True).start()


def _watch_parent(parent: Any) -> None:
    """Exit when the batch's process is gone: its end of the pipe closed, nothing is sent."""
    try:
        while True:
            parent.recv_bytes()
    except (EOFError, OSError):
        os._exit(_ORPHANED)


class LocalPool:
    """Makes the default pools: ``workers`` processes by forkserver (or spawn), tied to this one.

    Every pool it makes has workers that ignore SIGINT and die with this process; with
    ``watch``, they report each run they start on :attr:`events`. :meth:`close` lets the
    workers of every pool it made go (they exit at once, whatever they run).

    Parameters
    ----------
    workers : int
    watch : bool
        Whether the workers report run starts.

    Attributes
    ----------
    workers : int
    events : multiprocessing.SimpleQueue or None
        ``(attempt, pid, seed)`` for each run started, with ``watch``.
    """

    def __init__(self, workers: int, watch: bool) -> None:
        import multiprocessing  # here: importing the scenario package needs none of it

        method = ("forkserver" if "forkserver" in multiprocessing.get_all_start_methods()
                  else "spawn")
        self.workers = workers
        self._context = multiprocessing.get_context(method)
        # Only this process holds the writing end: at its end, the workers read end of file.
        self._parent_r, self._parent_w = self._context.Pipe(duplex=False)
        self.events = self._context.SimpleQueue() if watch else None

    def __call__(self) -> cf.ProcessPoolExecutor:
        """A new pool."""
        return cf.ProcessPoolExecutor(self.workers, mp_context=self._context,
                                      initializer=_start_worker,
                                      initargs=(self._parent_r, self.events))

    def close(self, interrupted: bool) -> None:
        """Close the pipe once the pools' workers have nothing left to do.

        After an interruption the workers may be running a chunk, or sending one back: one
        that exited halfway through a message would leave the pool's own thread waiting
        for the rest for ever (and the interpreter, which joins it at exit). So the pipe is
        kept open until this process ends, by any means; the workers end sooner, once
        their chunk is done, as a pool that was shut down tells them to.
        """
        if interrupted:
            _LINGERING.append(self._parent_w)
        else:
            self._parent_w.close()
        self._parent_r.close()
        if self.events is not None:
            self.events.close()


_LINGERING: list[Any] = []
"""The pipes of pools stopped midway, open until the process ends (see LocalPool.close)."""


def _fatal(error: BaseException, chunk: Chunk) -> BaseException:
    error.add_note(f"(raised by the task running seeds {chunk.seeds[0]}..{chunk.seeds[-1]} of a "
                   f"simulate_many batch: not by a run, which would have become a FailedRun)")
    return error


class Task(NamedTuple):
    """``run_chunk``'s arguments but the seeds and the watch's."""

    scenario: bytes
    """Pickled (:func:`dump_scenario`)."""
    options: Mapping[str, Any]
    key: BatchKey | None
    """None for no lines."""
    keep: frozenset[str] = ALL
    """What of each result is sent back beyond its summary."""
    staging: str | None = None
    """Where the workers write their parts (:func:`write_part`), with lines."""


class _RunWatch:
    """The runs the workers of a :class:`LocalPool` started, and which went on too long."""

    def __init__(self, events: Any, timeout: float) -> None:
        self.timeout = timeout
        self.poll = max(0.01, min(0.25, timeout / 4))
        self._events = events
        self._attempts = itertools.count()
        self._running: dict[int, tuple[int, int, float]] = {}    # attempt -> pid, seed, since
        self._live: set[int] = set()
        self.timed_out: dict[int, tuple[int, float]] = {}       # attempt -> seed, seconds
        self.killed = False

    def attempt(self) -> int:
        attempt = next(self._attempts)
        self._live.add(attempt)
        return attempt

    def back(self, attempt: int) -> None:
        self._live.discard(attempt)
        self._running.pop(attempt, None)

    def check(self) -> None:
        """Hear of the runs started; kill the worker of one past the timeout."""
        now = time.monotonic()
        while not self._events.empty():
            attempt, pid, seed = self._events.get()
            if attempt in self._live:            # else a late word of a chunk already back
                self._running[attempt] = (pid, seed, now)
        for attempt, (pid, seed, since) in list(self._running.items()):
            if now - since > self.timeout and attempt not in self.timed_out:
                self.timed_out[attempt] = (seed, now - since)
                self.killed = True
                try:
                    os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
                except ProcessLookupError:
                    pass                         # it ended meanwhile: the pool breaks anyway


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
        A :class:`Task`, or the tuple of its fields (``keep`` and ``staging`` may be left
        out: all, and no parts).
    pool : LocalPool, optional
        What ``make`` is, when the executor is the default pool: closed with the backend,
        and with ``run_timeout`` the source of the run starts it watches.
    run_timeout : float, optional
        Kill the worker of a run that goes on longer, in seconds (needs ``pool``).
    """

    def __init__(self, executor: cf.Executor, make: Callable[[], cf.Executor] | None, workers: int,
                 task: tuple[Any, ...], pool: LocalPool | None = None,
                 run_timeout: float | None = None) -> None:
        self.workers = workers
        self._executor = executor
        self._make = make
        self._task = Task(*task)
        self._pool = pool
        self._watch = None
        if run_timeout is not None:
            assert pool is not None and pool.events is not None
            self._watch = _RunWatch(pool.events, run_timeout)
        self._futures: dict[cf.Future[ChunkOutput], tuple[Chunk, int | None]] = {}
        self._lost: list[Outcome] = []
        # Futures that finished since the last look, appended by the executor's thread: a
        # look that finds none costs nothing (cf.wait locks every future in flight, and the
        # batch looks after every result it yields).
        self._finished: collections.deque[cf.Future[ChunkOutput]] = collections.deque()

    def submit(self, chunk: Chunk) -> None:
        """Start running ``chunk``."""
        scenario, options, key, keep, staging = self._task
        attempt = None if self._watch is None else self._watch.attempt()
        try:
            future = self._executor.submit(run_chunk, scenario, chunk.seeds, options, key,
                                           attempt, None, keep, staging)
        except cf.BrokenExecutor as e:         # broke since the last wait
            self._lost.append(self._lost_outcome(chunk, attempt, e))
            self._lost.extend(self._replace(e))
            return
        self._futures[future] = (chunk, attempt)
        future.add_done_callback(self._finished.append)

    def in_flight(self) -> int:
        """Chunks submitted and not yet handed back."""
        return len(self._futures) + len(self._lost)

    def wait(self, block: bool) -> list[Outcome]:
        """The outcomes ready now; with ``block``, wait for at least one."""
        outcomes, self._lost = self._lost, []
        if not self._futures or (outcomes and block):
            return outcomes
        if not block and not self._finished and self._watch is None:
            return outcomes
        self._finished.clear()          # what finishes from now on is seen by _ready or later
        done = self._ready(block)
        broken: cf.BrokenExecutor | None = None
        for future in done:
            chunk, attempt = self._futures.pop(future)
            error = future.exception()
            if error is None:
                outcomes.append(self._done(chunk, attempt, future))
            elif isinstance(error, cf.BrokenExecutor):
                broken = error
                outcomes.append(self._lost_outcome(chunk, attempt, error))
            else:
                raise _fatal(error, chunk)
        if broken is not None:
            outcomes.extend(self._replace(broken))
        return outcomes

    def _ready(self, block: bool) -> set[cf.Future[ChunkOutput]]:
        """The futures done; with ``block``, at least one (checking meanwhile for stuck runs)."""
        watch = self._watch
        if watch is None:
            return cf.wait(self._futures, timeout=None if block else 0,
                           return_when=cf.FIRST_COMPLETED)[0]
        while True:
            watch.check()
            done = cf.wait(self._futures, timeout=watch.poll if block else 0,
                           return_when=cf.FIRST_COMPLETED)[0]
            if done or not block:
                return done

    def _done(self, chunk: Chunk, attempt: int | None, future: cf.Future[ChunkOutput]) -> Done:
        if attempt is not None:
            assert self._watch is not None
            self._watch.back(attempt)
        return Done(chunk, *future.result())

    def _lost_outcome(self, chunk: Chunk, attempt: int | None, error: BaseException) -> Outcome:
        watch = self._watch
        if watch is None or attempt is None:
            return Lost(chunk, error, False)
        watch.back(attempt)
        if attempt in watch.timed_out:
            seed, seconds = watch.timed_out.pop(attempt)
            return TimedOut(chunk, seed, seconds)
        return Lost(chunk, error, False, blameless=watch.killed)

    def _replace(self, error: cf.BrokenExecutor) -> list[Outcome]:
        """Every chunk still in flight went down with the pool, unless it finished first."""
        cf.wait(self._futures, timeout=_BREAK_TIMEOUT)
        outcomes: list[Outcome] = []
        for future, (chunk, attempt) in self._futures.items():
            if future.done() and future.exception() is None:
                outcomes.append(self._done(chunk, attempt, future))
            else:
                outcomes.append(self._lost_outcome(chunk, attempt, error))
        self._futures.clear()
        if self._watch is not None:
            self._watch.killed = False
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
        try:
            if self._make is not None:
                # After an interruption, do not wait for the chunks running now: they end alone.
                self._executor.shutdown(wait=not interrupted, cancel_futures=True)
        finally:
            if self._pool is not None:
                self._pool.close(interrupted)


def is_dask_client(executor: object) -> bool:
    """Whether ``executor`` is a ``distributed.Client`` (without importing Dask)."""
    distributed = sys.modules.get("distributed")
    return distributed is not None and isinstance(executor, distributed.Client)


def _exit_soon() -> None:
    """Run on a Dask worker whose run is stuck: exit just after replying (``client.run``)."""
    threading.Timer(0.2, os._exit, (_STUCK,)).start()


class DaskBackend:
    """Chunks as tasks on a Dask cluster, through its client.

    A result is fetched once its task finished; if the worker holding it died meanwhile,
    Dask computes it again, and a ``KilledWorker`` on the way (the task was on too many
    workers that died) comes back as the chunk :class:`Lost`, never raised. A cluster
    with no worker for :data:`NO_WORKERS_WAIT` seconds ends the batch.

    With ``run_timeout``, the workers log an event (a topic of this batch's) as each run
    starts; a run that has gone on longer has its task cancelled and its worker made to
    exit (``client.run``), which its nanny replaces as it does a crashed one, and its chunk
    comes back :class:`TimedOut`.

    Parameters
    ----------
    client : distributed.Client
    task : tuple
        As for :class:`FuturesBackend`.
    run_timeout : float, optional
        In seconds.
    """

    def __init__(self, client: Any, task: tuple[Any, ...],
                 run_timeout: float | None = None) -> None:
        distributed: Any = importlib.import_module("distributed")    # untyped: Any
        self.workers = max(1, sum(client.nthreads().values()))
        self._distributed = distributed
        self._client = client
        self._task = Task(*task)
        self._futures: dict[Any, Chunk] = {}
        self._workerless_since: float | None = None
        self._timeout = run_timeout
        self._poll = _DASK_POLL if run_timeout is None else min(_DASK_POLL, run_timeout / 4)
        self._topic: str | None = None
        self._attempts = itertools.count()
        self._of_attempt: dict[int, Any] = {}                       # attempt -> future
        self._attempt_of: dict[Any, int] = {}                       # future -> attempt
        self._running: dict[int, tuple[int, str, float]] = {}       # attempt -> seed, worker, since
        self._heard: collections.deque[Any] = collections.deque()
        self._timed_out: list[Outcome] = []
        if run_timeout is not None:
            self._topic = f"cvcclock-batch-{uuid.uuid4().hex}"
            client.subscribe_topic(self._topic, self._heard.append)

    def submit(self, chunk: Chunk) -> None:
        """Start running ``chunk``."""
        scenario, options, key, keep, staging = self._task
        attempt = None if self._topic is None else next(self._attempts)
        future = self._client.submit(run_chunk, scenario, chunk.seeds, options, key, attempt,
                                     self._topic, keep, staging, pure=False)
        self._futures[future] = chunk
        if attempt is not None:
            self._of_attempt[attempt] = future
            self._attempt_of[future] = attempt

    def in_flight(self) -> int:
        """Chunks submitted and not yet handed back."""
        return len(self._futures)

    def wait(self, block: bool) -> list[Outcome]:
        """The outcomes ready now; with ``block``, wait for at least one."""
        outcomes, self._timed_out = self._timed_out, []
        while self._futures:
            for future in [f for f in self._futures if f.done()]:
                outcome = self._outcome(future)
                if outcome is not None:
                    self._forget(future)
                    outcomes.append(outcome)
            self._check_runs()
            outcomes.extend(self._timed_out)
            self._timed_out = []
            if outcomes or not block:
                return outcomes
            try:
                self._distributed.wait(list(self._futures), timeout=self._poll,
                                       return_when="FIRST_COMPLETED")
            except TimeoutError:        # distributed.TimeoutError: none done yet
                self._check_workers()
        return outcomes

    def _check_runs(self) -> None:
        """Hear of the runs started; stop one past the run timeout, restarting its worker."""
        if self._timeout is None:
            return
        now = time.monotonic()
        while self._heard:
            _, (attempt, seed, worker) = self._heard.popleft()
            if self._of_attempt.get(attempt) in self._futures:
                self._running[attempt] = (seed, worker, now)
        for attempt, (seed, worker, since) in list(self._running.items()):
            future = self._of_attempt.get(attempt)
            if future not in self._futures:
                del self._running[attempt]
            elif now - since > self._timeout:
                del self._running[attempt]
                chunk = self._forget(future)
                self._client.cancel([future])
                # On a thread: the other workers' results keep coming in meanwhile.
                threading.Thread(target=self._restart, args=(worker,), daemon=True,
                                 name="cvcclock-batch-restart").start()
                self._timed_out.append(TimedOut(chunk, seed, now - since))

    def _restart(self, worker: str) -> None:
        # The worker exits as a crashed one does, and its nanny starts a new one. (A nanny's
        # restart_workers asks the worker to close first, which a stuck task thread can hold
        # up past any timeout: seen on a loaded machine.)
        try:
            self._client.run(_exit_soon, workers=[worker])
        except Exception:  # noqa: BLE001 -- the worker is gone already, or the client is closed
            pass

    def _outcome(self, future: Any) -> Outcome | None:
        """What a done task gave; None if it is being computed again (its result was lost)."""
        chunk = self._futures[future]
        try:
            return Done(chunk, *future.result(timeout=_GATHER_TIMEOUT))
        except TimeoutError as e:       # distributed.TimeoutError
            if future.status == "error":      # the task's own: not a wait that ran out
                raise _fatal(e, chunk) from None
            return None
        except self._distributed.KilledWorker as e:
            return Lost(chunk, e, True)
        except cf.CancelledError as e:          # e.g. client.restart(): no one to blame
            return Lost(chunk, e, False)
        except Exception as e:
            if future.status in ("pending", "lost"):    # its result went with a worker
                return None
            raise _fatal(e, chunk) from None

    def _forget(self, future: Any) -> Chunk:
        """Drop every reference to ``future`` (a held future keeps its result on the cluster)."""
        attempt = self._attempt_of.pop(future, None)
        if attempt is not None:
            self._of_attempt.pop(attempt, None)
            self._running.pop(attempt, None)
        return self._futures.pop(future)

    def _check_workers(self) -> None:
        """End the batch when the cluster has had no worker for ``NO_WORKERS_WAIT`` s."""
        if self._client.nthreads():
            self._workerless_since = None
            return
        now = time.monotonic()
        if self._workerless_since is None:
            self._workerless_since = now
        elif now - self._workerless_since > NO_WORKERS_WAIT:
            raise RuntimeError(
                f"the Dask cluster of the batch has had no worker for {NO_WORKERS_WAIT:g} s, "
                f"with {len(self._futures)} chunks of seeds waiting for one: start workers "
                "and run the batch again (the runs done are in its out file, if it has one)")

    def close(self, interrupted: bool) -> None:
        """Cancel the chunks in flight; the client and its cluster stay the caller's."""
        if self._futures:
            self._client.cancel(list(self._futures))
        self._futures.clear()
        self._of_attempt.clear()
        self._attempt_of.clear()
        if self._topic is not None:
            self._client.unsubscribe_topic(self._topic)
