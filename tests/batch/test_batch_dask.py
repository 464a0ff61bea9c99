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
    KillsOnRerun,
    Slow,
    Stuck,
    assert_no_leftovers,
    comparable,
    fast,
    marked_processes,
    seeds_in_file,
    serial,
    stop_after_results,
)

distributed = pytest.importorskip(
    "distributed", reason="Dask is optional: pip install '.[dask]' (or 'cvcclock[dask]')")


@pytest.fixture(autouse=True)
def watchdog():
    """No test here may hang: after 240 s the process dumps every thread's stack and exits."""
    faulthandler.dump_traceback_later(240, exit=True)
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
    """The client, its two workers up (a test before may have killed one: its nanny restarts
    it, which took over a minute on a loaded 2-core machine)."""
    client.wait_for_workers(2, timeout=150)
    return client


def test_a_dask_cluster_gives_the_serial_results_in_seed_order(cluster_of_two, tmp_path):
    seeds = [11, 4, 0, 23, 7, 15, 2, 30, 9, 1]
    out = tmp_path / "runs.jsonl"
    got = list(simulate_many(Flaky(), seeds, executor=cluster_of_two, out=out, keep="all"))
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
    for result in simulate_many(Slow(), seeds, executor=cluster_of_two, out=out, chunk_size=3,
                                keep="all"):
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
    again = list(simulate_many(CloseCall(), seeds, executor=cluster_of_two, out=out,
                               keep="all"))
    assert again == serial(CloseCall(), seeds)
    assert seeds_in_file(out) == list(seeds)


def test_the_command_runs_on_a_dask_scheduler(cluster_of_two, tmp_path):
    out = tmp_path / "runs.jsonl"
    main = "import sys; from cvcclock.cli import main; sys.exit(main(['batch', *sys.argv[1:]]))"
    proc = subprocess.run([sys.executable, "-c", main, "support.batch_scenarios:CloseCall",
                           "--seeds", "0:12",
                           "--scheduler", cluster_of_two.scheduler.address, "--out", str(out)],
                          capture_output=True, text=True, cwd=Path(__file__).parents[1], timeout=90)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].split() == ["runs", "12"]
    assert read_results(out) == serial(CloseCall(), range(12))


# -- the command on Dask: a cluster of its own (--dask N), workers that cannot import ------------

SUPPORT = Path(__file__).parents[1] / "support" / "batch_scenarios.py"
MAIN = "import sys; from cvcclock.cli import main; sys.exit(main(['batch', *sys.argv[1:]]))"


@pytest.fixture
def user_dir(tmp_path):
    """A directory of the user's own with the scenarios as ``closecall.py``: importable only
    from there (not from the tests' path), as a user's module would be."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "closecall.py").write_text(SUPPORT.read_text())
    return work


def command(work, *args, mark=""):
    """``cvcclock batch ARGS`` run from ``work``, its environment marked with ``mark``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["CVCCLOCK_TEST_MARK"] = mark
    return [sys.executable, "-c", MAIN, *map(str, args)], {"cwd": work, "env": env}


def test_workers_that_cannot_import_the_scenario_say_so(cluster_of_two, user_dir):
    # The cluster's workers run with the tests' path, which lacks closecall.py's directory.
    argv, options = command(user_dir, "closecall:CloseCall", "--seeds", "0:6",
                            "--scheduler", cluster_of_two.scheduler.address)
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=90, **options)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stderr.splitlines()[-1] == (
        "cvcclock batch: error: the Dask workers cannot import 'closecall': install it on "
        "them or put it on their PYTHONPATH")
    assert "usage:" not in proc.stderr and proc.stdout == ""


def test_workers_with_another_version_of_the_module_say_so(cluster_of_two, tmp_path):
    # Here support.batch_scenarios has a scenario the workers' copy (the tests') has not.
    work = tmp_path / "work"
    (work / "support").mkdir(parents=True)
    (work / "support" / "__init__.py").write_text("")
    (work / "support" / "batch_scenarios.py").write_text(
        SUPPORT.read_text() + "\n\nclass Newer(CloseCall):\n    pass\n")
    argv, options = command(work, "support.batch_scenarios:Newer", "--seeds", "0:6",
                            "--scheduler", cluster_of_two.scheduler.address)
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=90, **options)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    last = proc.stderr.splitlines()[-1]
    assert last.startswith("cvcclock batch: error: the Dask workers could not load the "
                           "scenario (") and "'Newer'" in last
    assert last.endswith("install the same version of 'support.batch_scenarios' on them")
    assert "usage:" not in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("option", [["--dask", "2"], ["--scheduler", "local:2"]])
def test_dask_n_runs_the_batch_on_a_cluster_of_its_own_and_closes_it(user_dir, tmp_path, option):
    out = tmp_path / "runs.jsonl"
    mark = f"dask-{os.getpid()}-{option[0]}"
    argv, options = command(user_dir, "closecall:Flaky", "--seeds", "0:20", *option,
                            "--out", out, mark=mark)
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, **options)
    assert proc.returncode == 1, proc.stderr            # Flaky: some runs fail
    assert proc.stdout.splitlines()[0].split() == ["runs", "20"]
    assert comparable(read_results(out)) == comparable(serial(Flaky(), range(20)))
    assert_no_leftovers(mark)


@POSIX_SIGNALS
@pytest.mark.parametrize("signum, status, word", [(signal.SIGINT, 130, "interrupted"),
                                                  (signal.SIGTERM, 143, "terminated")])
def test_a_dask_n_batch_stopped_closes_its_cluster_and_resumes(user_dir, tmp_path, signum,
                                                               status, word):
    out = tmp_path / "runs.jsonl"
    mark = f"dask-stop-{os.getpid()}-{signum}"
    argv, options = command(user_dir, "closecall:Slow", "--seeds", "0:400", "--dask", "2",
                            "--out", out, mark=mark)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            **options)

    def the_mark_finds_the_command_and_its_workers():
        if Path("/proc/self/environ").exists():
            running = marked_processes(mark)
            assert proc.pid in running and len(running) >= 3, running

    stderr = stop_after_results(proc, out, 10, signum, timeout=90,
                                before_stop=the_mark_finds_the_command_and_its_workers)
    assert proc.returncode == status, stderr
    assert f"{word}; the finished runs are in {out}: run the same command again" in stderr
    assert 10 <= len(seeds_in_file(out)) < 400
    assert_no_leftovers(mark)
    # The file resumes (on a local pool: quicker to start, and the file is the same file).
    argv, options = command(user_dir, "closecall:Slow", "--seeds", "0:400", "--workers", "2",
                            "--out", out, mark=mark)
    again = subprocess.run(argv, capture_output=True, text=True, timeout=120, **options)
    assert again.returncode == 0, again.stderr
    assert seeds_in_file(out) == list(range(400))                 # each seed once
    assert read_results(out) == serial(fast(Slow()), range(400))


# -- lost after finishing, a cluster without workers -------------------------------------------


@POSIX_SIGNALS
def test_a_result_lost_with_its_worker_after_its_task_finished_is_a_lost_chunk(cluster_of_two,
                                                                              tmp_path):
    """The worker holding a finished chunk's result dies before the result is fetched; Dask
    computes the chunk again, which now kills its workers: KilledWorker, which the backend
    hands back as the chunk lost (to split or fail), never raises."""
    from cvcclock.batch._executors import Chunk, DaskBackend, Done, Lost, dump_scenario

    # The kill races the result's fetch: on a loaded machine the result may be fetched before
    # the worker dies (the chunk is then simply done). Each attempt is a fresh seed and
    # marker; one of three must be the loss this test is about.
    # An attempt's kill leaves that worker restarting: the next attempt waits for two workers
    # again, and one whose holder is gone before its pid is read is retried too.
    for attempt in range(5):
        cluster_of_two.wait_for_workers(2, timeout=60)
        marker = tmp_path / f"ran-{attempt}"
        seed = 5 + attempt
        backend = DaskBackend(cluster_of_two,
                              (dump_scenario(KillsOnRerun(seed, marker)), {}, None))
        chunk = Chunk((seed,))
        backend.submit(chunk)
        deadline = time.monotonic() + 60
        while not (holders := [w for ws in cluster_of_two.who_has().values() for w in ws]):
            assert time.monotonic() < deadline, "the chunk never finished"
            time.sleep(0.05)
        try:
            pid = cluster_of_two.run(os.getpid, workers=holders)[holders[0]]
        except (OSError, distributed.comm.CommClosedError):
            backend.close(interrupted=True)
            continue                                # the holder went meanwhile: no kill
        os.kill(pid, signal.SIGKILL)
        try:
            outcomes = backend.wait(block=True)
        finally:
            backend.close(interrupted=True)
        assert marker.exists() and len(outcomes) == 1
        if not isinstance(outcomes[0], Done):
            break
        assert outcomes[0].chunk is chunk           # the race lost: a whole result, not lost
    assert isinstance(outcomes[0], Lost)
    lost = outcomes[0]
    assert lost.chunk is chunk and lost.attributed
    assert isinstance(lost.error, distributed.KilledWorker)


def test_a_dask_cluster_without_workers_ends_the_batch_after_a_bounded_wait(monkeypatch):
    from cvcclock.batch import _executors

    monkeypatch.setattr(_executors, "NO_WORKERS_WAIT", 2.0)
    monkeypatch.setattr(_executors, "_DASK_POLL", 0.2)
    cluster = distributed.LocalCluster(n_workers=1, processes=True, threads_per_worker=1,
                                       dashboard_address=None, silence_logs=logging.CRITICAL)
    try:
        with distributed.Client(cluster, timeout=60) as client:
            client.wait_for_workers(1, timeout=60)
            batch = simulate_many(Slow(), range(200), executor=client, chunk_size=2)
            next(batch)
            cluster.scale(0)                              # every worker goes, none comes back
            # Timed from the last worker's going: how long Dask takes to retire one (over 30 s
            # once on a loaded CI machine, free-threaded) is Dask's, the wait after it ours.
            deadline = time.monotonic() + 90
            while client.scheduler_info()["workers"]:
                assert time.monotonic() < deadline, "the worker was never retired"
                time.sleep(0.1)
            started = time.monotonic()
            with pytest.raises(RuntimeError, match="the Dask cluster of the batch has had no "
                               "worker for 2 s, with .* chunks of seeds waiting for one"):
                list(batch)
            assert time.monotonic() - started < 30
    finally:
        cluster.close(timeout=30)


def test_a_stuck_run_on_dask_times_out_and_its_worker_is_restarted(cluster_of_two):
    seeds = range(8)
    got = list(simulate_many(Stuck(victim=2), seeds, executor=cluster_of_two, run_timeout=2.0))
    stuck = got[2]
    assert isinstance(stuck, FailedRun) and stuck.error_type == "TimeoutError", stuck
    assert "run_timeout=2 s" in stuck.message and "its worker process was replaced" in \
        stuck.message
    assert got[:2] + got[3:] == serial(Stuck(victim=2), [s for s in seeds if s != 2])
    cluster_of_two.wait_for_workers(2, timeout=150)         # the restarted worker is back
