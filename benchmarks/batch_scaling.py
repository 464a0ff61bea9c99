"""Batch scaling, alternated: the loop, pool-1, pool-2 and dask-2, each round in turn.

::

    python benchmarks/batch_scaling.py [--seeds 1000] [--rounds 3] [--out] [--keep all]
                                       [--scheduler apart|here] [--no-dask]

Every row runs the README's CloseCall for the same seeds; the rows are alternated (loop,
pool-1, pool-2, dask-2, then again) ``--rounds`` times, so a change in the machine's load
hits them all. With ``--out`` the ``loop`` row does a batch's work in one process: each
result's line is written to a file as it completes, by the batch's encoder; ``simulate``
is the bare loop beside it, which writes nothing. Printed per row: the median wall time and
its range, runs per second, the ratio to the loop's median, and the parent's CPU per result
(``time.process_time`` of this process over the batch: its every thread, and with
``--scheduler here`` the LocalCluster's scheduler). On a shared machine the CPU per result
is the steady figure; the wall ratios depend on the load average, printed with them.

``--out`` gives each batch a results file; ``--keep`` is passed to simulate_many (``all``,
``records``, ``trajectory``, ``summary``; by default what simulate_many keeps: everything
without ``--out``, the summary with it). The pools and the cluster are started and warmed up
before the timing.

The Dask row's LocalCluster (2 worker processes, a thread each) runs its scheduler in a
process of its own by default (``--scheduler apart``), as a cluster's scheduler does, so
that this process's CPU is the batch's and its client's alone; with ``--scheduler here``,
in this process, as ``LocalCluster()`` in a script does: its scheduler's background work
(heartbeats and monitors: 50-60 ms of CPU a second, measured) then adds to every row's CPU.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import gc
import logging
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cvcclock.batch._records import BatchKey, encode_record, line_bytes
from cvcclock.replay import FORMAT_VERSION as TRACE_FORMAT_VERSION
from cvcclock.scenario import Scenario, Throttle, Vehicle, simulate, simulate_many, take


def keep_distance(car, gap):
    lead = car.sim["lead"]
    while True:
        yield take(Throttle(-1.0 if lead.x - car.x < gap else 0.5))


def cruise(car):
    while True:
        yield take(Throttle(0.0))


class CloseCall(Scenario):
    """The README's scenario, word for word."""

    dt = 0.1

    def setup(self, s):
        ego = s.add_agent("ego", Vehicle(speed=15.0), keep_distance, 20.0)
        lead = s.add_agent("lead", Vehicle(x=40.0, speed=s.rng.uniform(4.0, 8.0)), cruise)
        s.require_eventually(lambda: ego.speed < lead.speed)
        s.record("gap", lambda: round(lead.x - ego.x, 1))
        s.terminate_after(6.0)


def _local_cluster() -> Any:
    """The Dask row's LocalCluster: 2 worker processes, a thread each, no dashboard."""
    import distributed

    return distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                    dashboard_address=None, silence_logs=logging.CRITICAL)


def _serve_cluster(address: Any, stop: Any) -> None:
    """The LocalCluster in this (child) process, until ``stop`` is set."""
    with _local_cluster() as cluster:
        address.put(cluster.scheduler_address)
        stop.wait()


def dask_client(scheduler: str) -> tuple[Any, Any]:
    """A client of a 2-worker LocalCluster, and what closes the cluster."""
    import distributed

    if scheduler == "here":
        cluster = _local_cluster()
        client = distributed.Client(cluster)
        client.wait_for_workers(2, timeout=60)
        return client, cluster.close
    context = multiprocessing.get_context("spawn")
    address, stop = context.Queue(), context.Event()
    server = context.Process(target=_serve_cluster, args=(address, stop))
    server.start()
    client = distributed.Client(address.get(timeout=120))
    client.wait_for_workers(2, timeout=60)

    def close() -> None:
        stop.set()
        server.join(60)
        if server.is_alive():
            server.kill()
    return client, close


def loop(scenario: Scenario, seeds: range, **_: Any) -> list[Any]:
    return [simulate(scenario, seed=seed) for seed in seeds]


def loop_writing(scenario: Scenario, seeds: range, out: Path) -> list[Any]:
    """The loop doing a batch's work with ``out``: each result's line written to the file as it
    completes (the batch's own encoder, so the same bytes), and the results kept."""
    key = BatchKey.of(scenario, {}, scenario.dt, TRACE_FORMAT_VERSION)
    results = []
    with open(out, "wb") as f:
        for seed in seeds:
            result = simulate(scenario, seed=seed)
            f.write(line_bytes(encode_record(result, key)))
            f.flush()
            results.append(result)
    return results


def batch(scenario: Scenario, seeds: range, executor: Any, out: Path | None,
          keep: str | None) -> list[Any]:
    if out is not None and out.exists():
        out.unlink()
    options = {} if keep is None else {"keep": keep}
    return list(simulate_many(scenario, seeds, executor=executor, out=out, progress=False,
                              **options))


class _Collections:
    """The wall time this process spends in the garbage collector (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._since = 0.0
        gc.callbacks.append(self._hear)

    def _hear(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._since = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._since


def timed(run: Any, collections: _Collections) -> tuple[float, float, float, list[Any]]:
    """Wall seconds, this process's CPU seconds, its seconds in collections, the results."""
    in_gc = collections.seconds
    cpu, wall = time.process_time(), time.perf_counter()
    results = run()
    return (time.perf_counter() - wall, time.process_time() - cpu,
            collections.seconds - in_gc, results)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", action="store_true", help="write a results file")
    parser.add_argument("--keep", default=None)
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--scheduler", choices=("apart", "here"), default="apart",
                        help="where the Dask LocalCluster's scheduler runs")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).parent))
    from batch_scaling import CloseCall as Importable  # noqa: I001 -- by reference, for the workers

    scenario = Importable()
    seeds = range(args.seeds)
    warm = range(10**6, 10**6 + 40)
    context = multiprocessing.get_context("forkserver")
    executors: dict[str, Any] = {"pool-1": cf.ProcessPoolExecutor(1, mp_context=context),
                                 "pool-2": cf.ProcessPoolExecutor(2, mp_context=context)}
    close_cluster = None
    if not args.no_dask:
        executors["dask-2"], close_cluster = dask_client(args.scheduler)
    tmp = tempfile.TemporaryDirectory()
    out = Path(tmp.name) / "runs.jsonl" if args.out else None
    try:
        for executor in executors.values():
            batch(scenario, warm, executor, out, args.keep)
        rows: dict[str, list[tuple[float, float, float]]] = (
            {"loop": []} | ({"simulate": []} if out else {}) | {n: [] for n in executors})
        collections = _Collections()
        expected = None
        for _ in range(args.rounds):
            for name in rows:
                if name == "loop" and out is not None:
                    wall, cpu, in_gc, results = timed(
                        lambda: loop_writing(scenario, seeds, out), collections)  # noqa: B023
                elif name in ("loop", "simulate"):
                    wall, cpu, in_gc, results = timed(lambda: loop(scenario, seeds), collections)
                else:
                    executor = executors[name]
                    wall, cpu, in_gc, results = timed(
                        lambda: batch(scenario, seeds, executor, out, args.keep),  # noqa: B023
                        collections)
                seeds_back = [r.seed for r in results]
                assert seeds_back == list(seeds) and all(r.steps == 60 for r in results), name
                expected = expected or [r.termination_type for r in results]
                assert [r.termination_type for r in results] == expected, name
                rows[name].append((wall, cpu, in_gc))
                del results
        loop_wall = statistics.median(w for w, _, _ in rows["loop"])
        print(f"CloseCall, {args.seeds} seeds, {args.rounds} rounds alternated, out="
              f"{'file' if out else 'None'}, keep={args.keep}, Dask scheduler {args.scheduler}; "
              f"load average "
              f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}, {os.cpu_count()} CPUs")
        print(f"{'row':8} {'wall s (min-max)':>22} {'runs/s':>8} {'x loop':>7} "
              f"{'parent CPU µs/result (min-max)':>32} {'in gc':>6}")
        for name, values in rows.items():
            walls = [w for w, _, _ in values]
            cpus = [c / args.seeds * 1e6 for _, c, _ in values]
            in_gc = sum(g for _, _, g in values) / sum(c for _, c, _ in values)
            wall = statistics.median(walls)
            print(f"{name:8} {wall:8.3f} ({min(walls):.3f}-{max(walls):.3f})"
                  f" {args.seeds / wall:8.0f} {loop_wall / wall:7.2f}"
                  f" {statistics.median(cpus):14.1f} ({min(cpus):.1f}-{max(cpus):.1f})"
                  f" {in_gc:6.0%}")
    finally:
        for name, executor in executors.items():
            if name.startswith("pool"):
                executor.shutdown()
            else:
                executor.close()
        if close_cluster is not None:
            close_cluster()
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
