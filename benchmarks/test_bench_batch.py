"""simulate_many's throughput: the README's CloseCall for SEEDS seeds, one process vs executors.

Run once, on purpose (the machine is shared and each round is a whole batch)::

    pytest benchmarks/test_bench_batch.py --benchmark-only --benchmark-columns=min,rounds

Rows, every one timing the same SEEDS runs (``extra_info["seeds"]``); runs per second is
``SEEDS / time``:

* ``loop``: ``simulate`` in a loop in this process: the floor;
* ``pool-1``, ``pool-2``: simulate_many on a warm forkserver ProcessPoolExecutor of 1 or 2
  workers (started and warmed up outside the timing, as a long batch amortises them);
* ``pool-2-out``: the same with ``out=``, each result also written to a JSON Lines file
  (the workers write the lines to parts the parent copies in; by default only the
  summary comes back);
* ``pool-2-out-all``: the same with ``keep="all"``: every result whole, as without ``out``;
* ``pool-2-summary``: without ``out``, ``keep="summary"``: the parent's floor;
* ``dask-2``, ``dask-2-out``: a warm Dask LocalCluster of 2 worker processes with one
  thread each, without and with ``out=``.

``benchmarks/batch_scaling.py`` alternates the loop, pool-1, pool-2 and dask-2 over 1,000
seeds, three rounds, for the figures quoted in issue 22.

An executor's cost per run is ``(workers * time - loop time) / SEEDS``: what its runs took
beyond the loop's, in worker-seconds. ``extra_info["parent_cpu_ms_per_run"]`` is this
process's CPU time per run: the whole run for ``loop``, the parent's share (unpickling,
ordering, writing) for a batch. On 2 cores the parent competes with 2 workers, so
``pool-2`` cannot reach 2x.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import multiprocessing
import sys
import time
from pathlib import Path

import pytest

from cvcclock.scenario import Scenario, Throttle, Vehicle, simulate, simulate_many, take

SEEDS = 400


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


def warm(executor):
    """Start every worker and import the scenario there, outside the timing (seeds past the
    timed ones, so no result is reused)."""
    assert len(list(
        simulate_many(CloseCall(), range(10**6, 10**6 + 20), executor=executor, progress=False)
    )) == 20
    return executor


@pytest.fixture(scope="module")
def pools():
    context = multiprocessing.get_context("forkserver")
    with (
        cf.ProcessPoolExecutor(1, mp_context=context) as one,
        cf.ProcessPoolExecutor(2, mp_context=context) as two,
    ):
        yield {1: warm(one), 2: warm(two)}


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip(
        "distributed", reason="the dask-2 row needs Dask: pip install '.[dask]' in a checkout"
    )
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                 dashboard_address=None, silence_logs=logging.CRITICAL) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.wait_for_workers(2, timeout=60)
        yield warm(client)


def loop():
    scenario = CloseCall()
    return [simulate(scenario, seed=seed) for seed in range(SEEDS)]


def batch(executor, out=None, **options):
    if out is not None and out.exists():
        out.unlink()            # every round runs its seeds (pedantic runs one round; still)
    return list(
        simulate_many(CloseCall(), range(SEEDS), executor=executor, out=out, progress=False,
                      **options)
    )


def measure(benchmark, subject, run):
    benchmark.group = (
        f"batch: the README's CloseCall, {SEEDS} seeds a round (Python {sys.version_info[:2]})"
    )
    benchmark.extra_info["seeds"] = SEEDS
    cpu = time.process_time()
    results = benchmark.pedantic(run, rounds=1, iterations=1)
    # This process's CPU per run: all of a run for the loop, the parent's share for a batch;
    # unlike the time, it hardly depends on what else the machine is running.
    benchmark.extra_info["parent_cpu_ms_per_run"] = round(
        (time.process_time() - cpu) / SEEDS * 1e3, 3
    )
    assert (
        [r.seed for r in results] == list(range(SEEDS)) and all(r.steps == 60 for r in results)
    ), subject


def test_loop(benchmark):
    measure(benchmark, "loop", loop)


@pytest.mark.parametrize("workers", [1, 2])
def test_pool(benchmark, pools, workers):
    measure(benchmark, f"pool-{workers}", lambda: batch(pools[workers]))


def test_pool_2_with_out_file(benchmark, pools, tmp_path):
    out = Path(tmp_path) / "runs.jsonl"
    measure(benchmark, "pool-2-out", lambda: batch(pools[2], out))


def test_pool_2_with_out_file_keeping_all(benchmark, pools, tmp_path):
    out = Path(tmp_path) / "runs.jsonl"
    measure(benchmark, "pool-2-out-all", lambda: batch(pools[2], out, keep="all"))


def test_pool_2_keeping_the_summary(benchmark, pools):
    measure(benchmark, "pool-2-summary", lambda: batch(pools[2], keep="summary"))


def test_dask_2(benchmark, dask_client):
    measure(benchmark, "dask-2", lambda: batch(dask_client))


def test_dask_2_with_out_file(benchmark, dask_client, tmp_path):
    out = Path(tmp_path) / "runs.jsonl"
    measure(benchmark, "dask-2-out", lambda: batch(dask_client, out))


def test_the_alternated_scaling_table_runs(capsys):
    """benchmarks/batch_scaling.py, tiny, so that it cannot rot (its figures mean nothing)."""
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        import batch_scaling
    finally:
        sys.path.pop(0)
    assert batch_scaling.main(["--seeds", "12", "--rounds", "1", "--out"]) == 0
    table = capsys.readouterr().out
    assert all(f"\n{row} " in table for row in ("loop", "pool-1", "pool-2", "dask-2")), table
