"""``simulate_many``: seeded runs of a scenario on a process pool or a Dask cluster, nothing lost.

A batch runs ``simulate(scenario, seed=seed, **options)`` for every seed, in chunks of
consecutive seeds, each chunk a task on the executor (:mod:`._executors`). Results are
yielded in the order of the seeds given and are ``==`` to running the seeds one by one in
this process, whatever the executor, the number of workers or the chunk sizes.

What crosses back from a worker is what the parent needs (the seed, the status and the
summary: every field of a result but ``records``, ``trajectory`` and ``actions``) and what
the caller keeps (``keep``, :func:`~cvcclock.batch._records.kept`), pickled, one chunk's
results in one message. With ``out``, the worker also makes each result's whole line and
writes the chunk's lines to a part file (:mod:`._file`), which the parent copies into the
results file when the chunk's outcome is in. The parent is the one process every result
passes through, so it gets the cheap half of the work: it unpickles only what is kept and
copies bytes it never parses. A CloseCall result kept whole is about 365 objects for the
garbage collector and 0.2 ms of unpickling; its summary and records are a few dozen
objects. Without ``out`` a batch keeps everything (each result ``==`` to ``simulate``'s);
with ``out`` it keeps the summary (``KEEP_WITH_OUT``) and the file holds the rest: the
line's form is exact, so :func:`read_results` gives what ``simulate`` returned.

Chunk size: per-task overhead measured on this project's 2-core machine was 0.13 ms of
wall time on a ProcessPoolExecutor and 3.2 ms on a 2-worker Dask LocalCluster (2,000 and
500 empty tasks), against about 2 ms for the README's CloseCall run; and the pool's own
threads spend about 0.4 ms of this process's CPU on each task, which with 0.1 s chunks was
a third of the batch's CPU per result. So unless ``chunk_size`` is given, the first chunks
hold one seed, and after that a chunk holds as many seeds as the workers have been taking
per 0.25 s (``TARGET_CHUNK_SECONDS``): the overhead stays under about 1.5 % on Dask and a
few microseconds a run on a pool, a dead worker costs at most about 0.25 s of work per
chunk it held, and the bar moves several times a second. No chunk is bigger than an even
share of what is left over twice the workers, so the last chunks do not leave workers
idle, nor smaller than a quarter of that size, so the tail is not a string of one-seed
tasks, unless that quarter is more than a worker's share of what is left: then each
worker still takes part of the tail.

A worker that dies: its chunks are run again. A chunk lost twice is split into single
seeds, each run alone (on Dask, which names the task that keeps killing workers, that
chunk is split at once, and a seed it names again runs alone). A seed alone whose worker
dies is run again, in a fresh pool, up to three times (``DEATHS_ALONE``) before it becomes a
:class:`FailedRun` saying how many times it died (on Dask, once: a ``KilledWorker``
already means that the task was on several workers that died), so a run that crashes the
interpreter ends its own seed and not the batch, and a worker that died once of something
else (the OOM killer) costs nothing. A run that goes on past ``run_timeout`` has its worker
killed and becomes a FailedRun saying it timed out; the chunks that went down with that
worker run again, uncounted.

Results come back in phases: the worker's pickled (kept) results are unpickled here one by one
(:func:`_unpacked`: one that will not unpickle becomes its seed's FailedRun), then kept,
written, and counted.
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import dataclasses
import gc
import math
import os
import pickle
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any

from cvcclock.batch._executors import (
    Backend,
    Chunk,
    DaskBackend,
    Done,
    FuturesBackend,
    LocalPool,
    Lost,
    Outcome,
    TimedOut,
    cpu_count,
    dump_scenario,
    is_dask_client,
)
from cvcclock.batch._file import Part, ResultsFile
from cvcclock.batch._progress import ProgressCallback, Reporter, reporter
from cvcclock.batch._records import (
    ALL,
    BatchKey,
    BatchResult,
    FailedRun,
    encode_record,
    kept,
    line_bytes,
)
from cvcclock.checks import (
    check_bool,
    check_count,
    check_keep,
    check_path,
    check_seconds,
    check_seed,
    check_time_limit,
    check_wall_limit,
)
from cvcclock.replay import FORMAT_VERSION as TRACE_FORMAT_VERSION
from cvcclock.scenario.runner import check_dt
from cvcclock.scenario.scenarios import Scenario

__all__ = ["DEATHS_ALONE", "KEEP_WITH_OUT", "TARGET_CHUNK_SECONDS", "Executor", "refused",
           "simulate_many"]

TARGET_CHUNK_SECONDS = 0.25
"""The work a chunk aims at, in seconds of the workers' time (see the module doc)."""

_MAX_CHUNK = 10_000
_LOSSES_BEFORE_SPLIT = 2
DEATHS_ALONE = 3
"""How many times a seed's worker may die while it runs alone before the seed fails."""
KEEP_WITH_OUT: frozenset[str] = frozenset()
"""What a batch with ``out`` keeps by default: each result's summary, every field but the
per-step ``records``, ``trajectory`` and ``actions``, whose size grows with the run's length
(they stay in the file, :func:`read_results`)."""
_OPTIONS: dict[str, Callable[[Any], Any]] = {
    "max_steps": lambda v: check_count(v, "max_steps"),
    "time_limit": check_time_limit,
    "max_iterations": lambda v: check_count(v, "max_iterations", minimum=1),
    "dt": lambda v: check_seconds(v, "dt", minimum=1e-6),
    "raise_guard_violations": lambda v: check_bool(v, "raise_guard_violations"),
}
_NOT_IN_BATCHES = {
    "seed": "the seeds are simulate_many's second argument",
    "trace": "a trace callback would run in the worker processes, not here",
    "simulator": ("override the scenario's simulator() method instead, so it travels with the "
                  "scenario"),
}

Executor = Any
"""A ``concurrent.futures.Executor``, a function making one, or a ``distributed.Client``."""


@dataclasses.dataclass(frozen=True)
class _Batch:
    """A checked call of simulate_many."""

    scenario: bytes
    key: BatchKey
    seeds: list[int]
    options: dict[str, Any]
    executor: Executor
    workers: int | None
    chunk_size: int | None
    out: str | None
    report: Reporter
    run_timeout: float | None
    keep: frozenset[str]


def simulate_many(scenario: Scenario, seeds: Iterable[int], *, executor: Executor | None = None,
                  workers: int | None = None, chunk_size: int | None = None,
                  out: str | os.PathLike[str] | None = None,
                  progress: bool | ProgressCallback | None = None,
                  run_timeout: float | None = None,
                  keep: str | Collection[str] | None = None,
                  **simulate_kwargs: Any) -> Iterator[BatchResult]:
    """Run ``simulate(scenario, seed=seed, **simulate_kwargs)`` for every seed, in parallel.

    The arguments are checked at once; the runs start when the first result is asked
    for, and go on only while the results are being consumed. Stop iterating (or raise,
    or press Ctrl-C) and the batch stops: what is queued is cancelled, and what completed
    is in ``out``.

    Parameters
    ----------
    scenario : Scenario
        Pickled for the workers: its class must be importable there by module and name
        (or be defined in ``__main__``, with cloudpickle installed).
    seeds : iterable of int
        Distinct seeds, each a non-negative int of any size (numpy integers too); the
        results come in this order.
    executor : optional
        None: a local process pool of ``workers`` processes (default: one per CPU), made
        and shut down here, and replaced if a worker dies. A
        ``concurrent.futures.Executor``: used and left open; if it breaks the batch ends
        with its error, so give instead a function returning a new executor, called
        again to replace a broken one (those are shut down here). A
        ``distributed.Client``: tasks on its cluster (``pip install '.[dask]'`` in a
        checkout, ``pip install 'cvcclock[dask]'`` from an index).
    workers : int, optional
        The size of the default pool; only without ``executor``.
    chunk_size : int, optional
        Seeds per task; by default sized to about ``TARGET_CHUNK_SECONDS`` of work.
    out : path, optional
        A JSON Lines results file, appended as runs complete. Seeds already in it are not
        run again but read from it, and a partial last line left by a crash is removed:
        rerunning an interrupted batch with the same ``out`` finishes it. It must hold
        results of the same batch only: the same scenario (module, class and instance
        attributes), time step, ``simulate_kwargs`` and trace format. Every line is
        checked when it is opened; :func:`repair_results` moves damaged ones aside.
    progress : bool or callable, optional
        None: when stdout is a terminal, a tqdm bar (a plain line rewritten in place
        without tqdm); True: always a tqdm bar; False: nothing; a callable
        ``progress(done, total, failed)``: called as runs complete (raising from it stops
        the batch).
    run_timeout : float, optional
        A wall-clock limit on each run, in seconds (default: none). A run that goes on
        longer has its worker process killed (and replaced) and becomes a
        :class:`FailedRun` of type ``TimeoutError``; the batch goes on. With the default
        pool, or a Dask client (whose workers must have nannies, which restart them);
        not with another executor, whose workers are not the batch's to kill.
    keep : str or collection of str, optional
        What each yielded result keeps beyond its summary (every field but ``records``,
        ``trajectory`` and ``actions``): ``"all"``, ``"records"``, ``"trajectory"`` (with
        its ``actions``), ``"summary"`` (neither), or a collection of ``"records"`` and
        ``"trajectory"``. What is not kept is empty (``{}`` or ``()``) and never crosses
        from the workers to this process. Default: without ``out``, ``"all"`` (each result
        ``==`` to ``simulate``'s); with ``out``, whose lines hold every result whole
        (:func:`read_results`), ``"summary"``: what grows with a run's length is read from
        the file when it is wanted, and the workers write the file's lines themselves, so
        a batch costs this process a few dozen microseconds a run, however long the runs.
        Pass ``keep="records"`` or ``keep="all"`` to have more.
    **simulate_kwargs
        ``max_steps``, ``time_limit``, ``max_iterations``, ``dt``,
        ``raise_guard_violations``: passed to every ``simulate`` call, and checked here
        as it checks them (``time_limit=math.inf`` for runs that end only when their
        scenario does; without a limit, a run that goes past 100,000 time steps warns in
        its worker).

    Yields
    ------
    SimulationResult or FailedRun
        One per seed: the run's result (what ``keep`` says of it), or how it failed (its
        exception's type, message
        and traceback; that its worker process died each time it ran it, and how many
        times; that it timed out; or that its result would not unpickle here).

    Raises
    ------
    TypeError, ValueError
        Bad arguments (before anything runs), naming the argument and the value.
    ValueError
        When iterated: ``out`` holds results of another batch (naming what differs), is
        damaged (naming the line) or is not a results file.
    RuntimeError
        When iterated: another batch is writing to ``out``; or a Dask cluster has had no
        worker for ``NO_WORKERS_WAIT`` (300) seconds.
    """
    try:
        batch = _check(scenario, seeds, executor, workers, chunk_size, out, progress,
                       run_timeout, keep, simulate_kwargs)
    except (TypeError, ValueError) as error:
        _refusal(error)
        raise
    return _run(batch)


def _refusal(error: BaseException) -> BaseException:
    """Mark ``error`` as simulate_many's refusal of its call (an attribute, not a note: the
    message the user and their tests see stays the rule's)."""
    error._cvcclock_refused = True  # type: ignore[attr-defined]
    return error


def refused(error: BaseException) -> bool:
    """Whether ``simulate_many`` raised ``error`` to refuse its call, before any run.

    A refusal is bad arguments, a scenario that cannot be pickled, an ``out`` file of another
    batch or one another batch is writing, or an executor that cannot be made: something to
    fix in the call. Anything else came from a run, a worker or a bug, and keeps its
    traceback.

    Parameters
    ----------
    error : BaseException
        What iterating ``simulate_many(...)``, or calling it, raised.

    Returns
    -------
    bool
    """
    return getattr(error, "_cvcclock_refused", False) is True


# -- phase 1: the arguments -----------------------------------------------------------------


def _check(scenario: Scenario, seeds: Iterable[int], executor: Executor, workers: int | None,
           chunk_size: int | None, out: str | os.PathLike[str] | None,
           progress: bool | ProgressCallback | None, run_timeout: float | None,
           keep: object, simulate_kwargs: dict[str, Any]) -> _Batch:
    if not isinstance(scenario, Scenario):
        raise TypeError(f"scenario must be a Scenario instance, got {scenario!r}")
    options = _check_options(simulate_kwargs)
    dt = check_dt(scenario, options.get("dt"))     # here, not once per run in the workers
    run_timeout = check_wall_limit(run_timeout, "run_timeout")
    if run_timeout is not None and executor is not None and not is_dask_client(executor):
        raise ValueError(f"run_timeout={run_timeout!r} needs the default process pool or a "
                         "Dask client: a stuck run's worker is killed, and the workers of "
                         "an executor of yours are not the batch's to kill")
    if workers is not None:
        if executor is not None:
            raise ValueError(f"workers={workers!r} sizes the default process pool; "
                             f"with an executor, size the executor instead")
        workers = check_count(workers, "workers", minimum=1)
    if executor is not None and not (isinstance(executor, cf.Executor) or is_dask_client(executor)
                                     or callable(executor)):
        raise TypeError(f"executor must be a concurrent.futures.Executor, a function returning "
                        f"one, or a distributed.Client, got {executor!r}")
    if chunk_size is not None:
        chunk_size = check_count(chunk_size, "chunk_size", minimum=1, maximum=_MAX_CHUNK)
    if out is not None:
        out = check_path(out, "out")
    kept_parts = check_keep(keep, "keep")
    if kept_parts is None:
        kept_parts = ALL if out is None else KEEP_WITH_OUT
    return _Batch(dump_scenario(scenario),
                  BatchKey.of(scenario, options, dt, TRACE_FORMAT_VERSION), _check_seeds(seeds),
                  options, executor, workers, chunk_size, out, reporter(progress), run_timeout,
                  kept_parts)


def _check_options(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The simulate keyword arguments, checked, in a fixed order (they are written per line)."""
    options = {}
    for name in sorted(kwargs):
        if name not in _OPTIONS:
            why = _NOT_IN_BATCHES.get(
                name, f"simulate_many passes on only {', '.join(sorted(_OPTIONS))}")
            raise TypeError(
                f"simulate_many() got the keyword argument {name}={kwargs[name]!r}: {why}")
        if kwargs[name] is not None:
            options[name] = _OPTIONS[name](kwargs[name])
    return options


def _check_seeds(seeds: Iterable[int]) -> list[int]:
    """The seeds as ints, each by the one seed rule (a run_seed is 64 bits), distinct."""
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Iterable):
        raise TypeError(f"seeds must be an iterable of ints, got {seeds!r}")
    checked = [check_seed(seed, f"seeds[{i}]") for i, seed in enumerate(seeds)]
    if len(set(checked)) != len(checked):
        repeated = sorted(s for s, n in collections.Counter(checked).items() if n > 1)
        raise ValueError(
            f"seeds must be distinct (each seed has one result); repeated: {repeated[:10]}")
    return checked


# -- phase 2: where results go ----------------------------------------------------------------


class _Results:
    """The batch's results until each is yielded; with ``out``, also the file they go to, from
    which the seeds it already held are read."""

    def __init__(self, file: ResultsFile | None, keep: frozenset[str]) -> None:
        self._file = file
        self._keep = keep
        self._new: dict[int, BatchResult] = {}

    def __contains__(self, seed: int) -> bool:
        return seed in self._new or (self._file is not None and seed in self._file)

    @property
    def staging(self) -> str | None:
        """Where the workers write their parts; None without a file, or a staging directory."""
        return None if self._file is None else self._file.staging

    def discard(self, lines: Part | list[bytes] | None) -> None:
        """Delete a part, if ``lines`` is one (its chunk runs again)."""
        if self._file is not None and isinstance(lines, Part):
            self._file.discard(lines)

    def failed(self, seed: int) -> bool:
        """Whether the run of ``seed``, held (in the file) before the batch, failed."""
        return self._file is not None and self._file.failed(seed)

    def add(self, results: list[BatchResult], lines: Part | list[bytes] | None) -> bool:
        """Hold the results, and write their lines or copy their part; False, and nothing
        held, if the part is missing or cut short."""
        if self._file is not None:
            if isinstance(lines, Part):
                if not self._file.append_part(results, lines):
                    return False
            else:
                assert lines is not None
                self._file.append(results, lines)
        for result in results:
            self._new[result.seed] = result
        return True

    def take(self, seed: int) -> BatchResult:
        if seed in self._new:
            return self._new.pop(seed)
        assert self._file is not None
        return kept(self._file.read(seed), self._keep)

    def close(self) -> None:
        self._new.clear()
        if self._file is not None:
            self._file.close()


# -- phase 3: chunks --------------------------------------------------------------------------


class _Chunks:
    """The seeds still to run, cut into chunks; lost chunks go first, split if lost again."""

    def __init__(self, seeds: list[int], fixed: int | None, workers: int) -> None:
        self._fresh = collections.deque(seeds)
        self._again: collections.deque[Chunk] = collections.deque()
        self._fixed = fixed
        self._workers = workers
        self._seconds = 0.0
        self._runs = 0
        self.alone: Chunk | None = None
        """The chunk running with nothing else in flight, if any."""

    def __bool__(self) -> bool:
        return bool(self._fresh or self._again)

    def fill(self, backend: Backend) -> None:
        """Submit chunks until twice the workers are in flight; a chunk that must run alone
        waits for an empty window and then has it to itself."""
        window = 2 * backend.workers
        while self and self.alone is None and backend.in_flight() < window:
            if self._again and self._again[0].exclusive:
                if backend.in_flight():
                    return
                self.alone = self._again[0]
            backend.submit(self._take())

    def _take(self) -> Chunk:
        if self._again:
            return self._again.popleft()
        size = min(self._size(), len(self._fresh))
        return Chunk(tuple(self._fresh.popleft() for _ in range(size)))

    def _size(self) -> int:
        if self._fixed is not None:
            return self._fixed
        if self._runs == 0:
            return 1
        size = (round(TARGET_CHUNK_SECONDS * self._runs / self._seconds) if self._seconds > 0
                else _MAX_CHUNK)
        left = len(self._fresh)
        share = math.ceil(left / (2 * self._workers))
        return max(1, min(size, max(share, size // 4), math.ceil(left / self._workers),
                          _MAX_CHUNK))

    def timed(self, runs: int, seconds: float) -> None:
        """Learn the workers' pace from a chunk that ran."""
        self._runs += runs
        self._seconds += seconds

    def back(self, chunk: Chunk) -> None:
        """A chunk's outcome is in."""
        if chunk is self.alone:
            self.alone = None

    def lost(self, outcome: Lost) -> list[int]:
        """Queue a lost chunk again; the seeds to blame (they become failed runs).

        A seed is blamed only when its worker died while it ran alone, ``DEATHS_ALONE``
        times (a Dask ``KilledWorker`` once: Dask has retried it already). A pool cannot
        say which chunk killed it, so a chunk lost twice is split into seeds that each run
        alone; Dask names the task, so its chunk is split at once and only a seed it names
        runs alone. A chunk lost through no fault of its own runs again as it was.
        """
        chunk = outcome.chunk
        if outcome.blameless:
            self._again.appendleft(chunk)
            return []
        chunk.losses += 1
        if chunk.exclusive:
            chunk.deaths_alone += 1
            if outcome.attributed or chunk.deaths_alone >= DEATHS_ALONE:
                return list(chunk.seeds)
            self._again.appendleft(chunk)       # alone again, in the fresh pool
            return []
        if outcome.attributed or chunk.losses >= _LOSSES_BEFORE_SPLIT:
            alone = not outcome.attributed or len(chunk.seeds) == 1
            self._again.extend(Chunk((seed,), exclusive=alone) for seed in chunk.seeds)
        else:
            self._again.append(chunk)
        return []

    def one_by_one(self, chunk: Chunk) -> None:
        """Queue again each seed of a chunk whose results would not unpickle here, a chunk
        each, so that only the seeds whose results will not fail (runs are deterministic)."""
        self._again.extendleft(Chunk((seed,)) for seed in reversed(chunk.seeds))

    def timed_out(self, outcome: TimedOut) -> None:
        """Queue again the seeds of a timed-out chunk but the stuck one, uncounted."""
        rest = tuple(seed for seed in outcome.chunk.seeds if seed != outcome.seed)
        if rest:
            self._again.appendleft(Chunk(rest))


# -- phase 4: the run -------------------------------------------------------------------------


def _run(batch: _Batch) -> Iterator[BatchResult]:
    try:
        store = _open_store(batch)
    except (ValueError, RuntimeError, OSError) as error:
        _refusal(error)
        raise
    report = batch.report
    backend: Backend | None = None
    interrupted = True
    try:
        todo = [seed for seed in batch.seeds if seed not in store]
        progress = _Progress(report, batch.seeds, store)
        if todo:
            backend = _backend(batch, store.staging)
        chunks = _Chunks(todo, batch.chunk_size, backend.workers if backend else 1)
        for seed in batch.seeds:
            while seed not in store:
                assert backend is not None
                chunks.fill(backend)
                if not backend.in_flight():
                    raise AssertionError(f"seed {seed} has no result and nothing is running")
                _handle(backend.wait(block=True), batch, store, chunks, progress)
            yield store.take(seed)
            if backend is not None and backend.in_flight():    # keep the workers busy meanwhile
                _handle(backend.wait(block=False), batch, store, chunks, progress)
                chunks.fill(backend)
        interrupted = False
    finally:
        try:
            if backend is not None:
                backend.close(interrupted)
        finally:
            store.close()
            report.close()


def _open_store(batch: _Batch) -> _Results:
    if batch.out is None:
        return _Results(None, batch.keep)
    return _Results(ResultsFile(batch.out, batch.key), batch.keep)


def _backend(batch: _Batch, staging: str | None) -> Backend:
    executor = batch.executor
    task = (batch.scenario, batch.options, None if batch.out is None else batch.key, batch.keep,
            staging)
    if is_dask_client(executor):
        return DaskBackend(executor, task, batch.run_timeout)
    if executor is None:
        pool = LocalPool(batch.workers or cpu_count(), watch=batch.run_timeout is not None)
        return FuturesBackend(pool(), pool, pool.workers, task, pool, batch.run_timeout)
    if isinstance(executor, cf.Executor):
        return FuturesBackend(executor, None, cpu_count(), task)
    made = executor()
    if not isinstance(made, cf.Executor):
        raise _refusal(TypeError(
            f"executor() must return a concurrent.futures.Executor, got {made!r}"))
    return FuturesBackend(made, executor, cpu_count(), task)


class _Progress:
    """Counts runs done and failed for the reporter."""

    def __init__(self, report: Reporter, seeds: list[int], store: _Results) -> None:
        self._report = report
        self.total = len(seeds)
        recorded = [seed for seed in seeds if seed in store]
        self.done = len(recorded)
        self.failed = sum(store.failed(seed) for seed in recorded)
        report(self.done, self.total, self.failed)

    def add(self, results: list[BatchResult]) -> None:
        self.done += len(results)
        self.failed += sum(isinstance(r, FailedRun) for r in results)
        self._report(self.done, self.total, self.failed)


def _handle(outcomes: list[Outcome], batch: _Batch, store: _Results, chunks: _Chunks,
            progress: _Progress) -> None:
    """Keep what came back, requeue what was lost, and fail the seeds that kill workers or
    time out."""
    for outcome in outcomes:
        chunks.back(outcome.chunk)
        if isinstance(outcome, Done):
            unpacked = _unpacked(outcome, batch, store)
            if unpacked is None:
                chunks.one_by_one(outcome.chunk)
                store.discard(outcome.lines)
                continue
            results, lines = unpacked
            if store.add(results, lines):
                chunks.timed(len(outcome.chunk.seeds), outcome.seconds)
                progress.add(results)
                continue
            outcome = _part_lost(outcome)      # its part went missing: lost, like a dead worker's
        if isinstance(outcome, TimedOut):
            chunks.timed_out(outcome)
            results = [_timed_out(outcome, batch)]
        else:
            results = [_died(seed, outcome) for seed in chunks.lost(outcome)]
        if results:
            store.add(results, _lines(results, batch))
            progress.add(results)


def _unpacked(done: Done, batch: _Batch,
              store: _Results) -> tuple[list[BatchResult], Part | list[bytes] | None] | None:
    """The chunk's results unpickled, and their part or lines; None if they will not unpickle
    here and the chunk has several seeds. A single seed's that will not is its FailedRun, and
    so is its line (the line holds what would not unpickle either): its part is dropped."""
    # A whole result is hundreds of objects the collector tracks: unpickled with collections
    # on, a chunk of them triggers dozens, each scanning what the caller already holds
    # (measured: 650 µs a CloseCall result kept whole, 290 with collections paused per chunk).
    # Nothing here makes cycles; the next collection, once they are on again, sees all.
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        results: list[BatchResult] = pickle.loads(done.results)
    except Exception as e:  # noqa: BLE001 -- a result this process cannot load
        if len(done.chunk.seeds) > 1:
            return None
        store.discard(done.lines)
        failed: list[BatchResult] = [_not_unpickled(done.chunk.seeds[0], e)]
        return failed, _lines(failed, batch)
    finally:
        if paused:
            gc.enable()
    return results, done.lines


def _part_lost(done: Done) -> Lost:
    assert isinstance(done.lines, Part)
    return Lost(done.chunk, FileNotFoundError(
        f"the part {done.lines.path} its worker wrote is missing or cut short"), False)


def _lines(results: list[BatchResult], batch: _Batch) -> list[bytes] | None:
    if batch.out is None:
        return None
    return [line_bytes(encode_record(r, batch.key)) for r in results]


def _not_unpickled(seed: int, error: Exception) -> FailedRun:
    kind = type(error)
    failed = FailedRun.from_exception(seed, error)
    return dataclasses.replace(
        failed, message=(f"the result of seed {seed} was pickled in its worker but cannot be "
                         f"unpickled here: {kind.__qualname__}: {error}"))


def _died(seed: int, lost: Lost) -> FailedRun:
    error, times = lost.error, lost.chunk.deaths_alone
    kind = type(error)
    return FailedRun(seed, f"{kind.__module__}.{kind.__qualname__}",
                     f"the worker process died each time it ran seed {seed} (alone, "
                     f"{times} time{'s' if times != 1 else ''}): {error}",
                     f"{kind.__qualname__}: {error} (no traceback: the worker process died)\n")


def _timed_out(outcome: TimedOut, batch: _Batch) -> FailedRun:
    message = (f"seed {outcome.seed} timed out: its run went on longer than "
               f"run_timeout={batch.run_timeout:g} s (stopped after {outcome.seconds:.1f} s), "
               "and its worker process was replaced")
    return FailedRun(outcome.seed, "TimeoutError", message,
                     f"TimeoutError: {message} (no traceback: the run was stopped from outside)\n")
