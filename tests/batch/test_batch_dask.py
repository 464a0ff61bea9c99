"""simulate_many on a real Dask LocalCluster of two worker processes (one thread each).

The cluster is shared by the module's tests and closed at the end; its scheduler gives up
on a task after it was running on two workers that died (``allowed_failures=1``, the
default is 3), which keeps the worker-killing tests short while still letting Dask
reschedule a task whose worker died once by itself.
"""

from __future__ import annotations

import faulthandler
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cvcclock.scenario import FailedRun, read_results, simulate_many
from support.batch_scenarios import (
    POSIX_SIGNALS,
    CloseCall,
    Doomed,
    Flaky,
    Slow,
    comparable,
    fast,
    seeds_in_file,
    serial,
)

distributed = pytest.importorskip("distributed",
                                  reason="Dask is optional: pip install 'cvcclock[dask]'")


@pytest.fixture(autouse=True)
def watchdog():
    """No test here may hang: after 150 s the process dumps every thread's stack and exits."""
    faulthandler.dump_traceback_later(150, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                       dashboard_address=None, silence_logs=logging.CRITICAL,
                                       scheduler_kwargs={"allowed_failures": 1})
    try:
        with distributed.Client(cluster, timeout=60) as c:
            c.wait_for_workers(2, timeout=60)
            yield c
    finally:
        cluster.close(timeout=30)


@pytest.fixture
def cluster_of_two(client):
    """The client, its two workers up (a test before may have killed one)."""
    client.wait_for_workers(2, timeout=60)
    return client


def test_a_dask_cluster_gives_the_serial_results_in_seed_order(cluster_of_two, tmp_path):
    seeds = [11, 4, 0, 23, 7, 15, 2, 30, 9, 1]
    out = tmp_path / "runs.jsonl"
    got = list(simulate_many(Flaky(), seeds, executor=cluster_of_two, out=out))
    assert [r.seed for r in got] == seeds
    assert comparable(got) == comparable(serial(Flaky(), seeds))
    assert read_results(out) == sorted(got, key=lambda r: r.seed)
    assert any(isinstance(r, FailedRun) for r in got)


@POSIX_SIGNALS
def test_a_killed_dask_worker_costs_nothing(cluster_of_two, tmp_path):
    out = tmp_path / "runs.jsonl"
    seeds = range(60)
    got = []
    killed = None
    for result in simulate_many(Slow(), seeds, executor=cluster_of_two, out=out, chunk_size=3):
        got.append(result)
        if killed is None:          # some results are in and more are running: kill a worker
            address, pid = sorted(cluster_of_two.run(os.getpid).items())[0]
            os.kill(pid, signal.SIGKILL)
            killed = address
    assert killed is not None
    assert got == serial(fast(Slow()), seeds)
    assert seeds_in_file(out) == list(seeds)            # each seed exactly once
    deadline = time.monotonic() + 60      # the scheduler saw it die (asking the workers could
    while killed in cluster_of_two.scheduler_info()["workers"]:     # wait on the dead one)
        assert time.monotonic() < deadline, "the killed worker is still there"
        time.sleep(0.2)


@POSIX_SIGNALS
def test_a_seed_that_always_kills_its_dask_worker_fails_alone(cluster_of_two):
    seeds = range(8)
    got = list(simulate_many(Doomed(victim=3), seeds, executor=cluster_of_two))
    assert [r.seed for r in got] == list(seeds)
    assert (isinstance(got[3], FailedRun)
            and got[3].error_type == "distributed.scheduler.KilledWorker")
    assert got[:3] + got[4:] == serial(Doomed(victim=3), [0, 1, 2, 4, 5, 6, 7])


def test_a_dask_batch_stopped_midway_resumes_with_each_seed_once(cluster_of_two, tmp_path):
    out = tmp_path / "runs.jsonl"
    seeds = range(30)
    for i, _ in enumerate(simulate_many(CloseCall(), seeds, executor=cluster_of_two, out=out)):
        if i == 9:
            break
    recorded = seeds_in_file(out)
    assert len(recorded) >= 10
    deadline = time.monotonic() + 30              # stopping cancelled the chunks in flight
    while any(cluster_of_two.processing().values()):
        assert time.monotonic() < deadline, cluster_of_two.processing()
        time.sleep(0.1)
    again = list(simulate_many(CloseCall(), seeds, executor=cluster_of_two, out=out))
    assert again == serial(CloseCall(), seeds)
    assert seeds_in_file(out) == list(seeds)


def test_the_command_runs_on_a_dask_scheduler(cluster_of_two, tmp_path):
    out = tmp_path / "runs.jsonl"
    main = "import sys; from cvcclock.cli.batch import main; sys.exit(main())"
    proc = subprocess.run([sys.executable, "-c", main, "support.batch_scenarios:CloseCall",
                           "--seeds", "0:12",
                           "--scheduler", cluster_of_two.scheduler.address, "--out", str(out)],
                          capture_output=True, text=True, cwd=Path(__file__).parents[1], timeout=90)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].split() == ["runs", "12"]
    assert read_results(out) == serial(CloseCall(), range(12))
