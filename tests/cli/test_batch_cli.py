"""``cvcclock batch``: the summary, exit status 0/1/2, SIGINT and resume, in subprocesses.

The command runs with the tests directory as its working directory, so
``support.batch_scenarios`` (where the scenarios are) is importable as MODULE, as a user's
own module would be.
"""

from __future__ import annotations

import faulthandler
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cvcclock.scenario import read_results
from support.batch_scenarios import (
    POSIX_SIGNALS,
    CloseCall,
    Flaky,
    Slow,
    assert_no_leftovers,
    comparable,
    fast,
    kill_marked,
    marked_env,
    marked_processes,
    serial,
    stop_after_results,
)

TESTS = Path(__file__).parents[1]
CLOSE_CALL = "support.batch_scenarios:CloseCall"
FLAKY = "support.batch_scenarios:Flaky"
MAIN = "import sys; from cvcclock.cli import main; sys.exit(main(['batch', *sys.argv[1:]]))"


@pytest.fixture(autouse=True)
def watchdog():
    """No test here may hang: after 120 s the process dumps every thread's stack and exits."""
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def batch(*args, timeout=60):
    """``cvcclock batch ARGS`` through cvcclock.cli.main; the finished process."""
    return subprocess.run([sys.executable, "-c", MAIN, *map(str, args)], capture_output=True,
                          text=True, cwd=TESTS, timeout=timeout)


def start_batch(*args, env=None):
    return subprocess.Popen([sys.executable, "-c", MAIN, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=TESTS, env=env)


def test_a_batch_prints_its_summary_and_exits_0(tmp_path):
    out = tmp_path / "runs.jsonl"
    proc = batch(CLOSE_CALL, "--seeds", "0:24", "--workers", 2, "--out", out)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["runs", "24"]
    assert "    scenario complete" in proc.stdout and "rejection rate 0.00%" in proc.stdout
    assert any(line.startswith("gap (per step)") for line in lines)
    assert lines[-1] == f"results: {out}"
    assert read_results(out) == serial(CloseCall(), range(24))


def test_failed_runs_exit_1_and_are_listed_max_steps_applies(tmp_path):
    proc = batch(FLAKY, "--seeds", "0:30", "--workers", 2, "--max-steps", 40)
    assert proc.returncode == 1, proc.stderr
    expected = [r for r in comparable(serial(Flaky(), range(30), max_steps=40))
                if isinstance(r, tuple)]
    assert re.search(rf"^    ZeroDivisionError +{len(expected)}$", proc.stdout, re.MULTILINE)
    assert "seeds " + ", ".join(str(seed) for seed, _, _ in expected) in proc.stdout
    assert "    time limit" in proc.stdout


@pytest.mark.parametrize("args, message", [
    ([CLOSE_CALL], "the following arguments are required: --seeds"),
    ([CLOSE_CALL, "--seeds", "100"], "--seeds must be START:STOP, two integers"),
    ([CLOSE_CALL, "--seeds", "9:3"], "--seeds START:STOP needs START < STOP"),
    ([CLOSE_CALL, "--seeds", "5:5"], "needs START < STOP"),
    ([CLOSE_CALL, "--seeds", "a:9"], "--seeds must be START:STOP, two integers"),
    ([CLOSE_CALL, "--seeds=-3:9"], "--seeds START must be >= 0, got -3"),
    ([CLOSE_CALL, "--seeds", "-3:0"], "--seeds START must be >= 0, got -3"),   # a value, not
    ([CLOSE_CALL, "--out", "x", "--seeds", "-3:0"], "--seeds START must be >= 0"),  # an option
    ([CLOSE_CALL, "--seeds", "0:9", "--run-timeout", "0"],
     "--run-timeout must be > 0 seconds"),
    ([CLOSE_CALL, "--seeds", "0:9", "--run-timeout", "soon"],
     "--run-timeout must be a number of seconds, got 'soon'"),
    ([CLOSE_CALL, "--seeds", "0:9", "--repair"], "--repair repairs the --out file: give --out"),
    ([CLOSE_CALL, "--seeds", "0:9", "--workers", "0"], "--workers must be >= 1, got 0"),
    ([CLOSE_CALL, "--seeds", "0:9", "--workers", "two"],
     "--workers must be an integer, got 'two'"),
    ([CLOSE_CALL, "--seeds", "0:9", "--max-steps", "-3"],
     "--max-steps must be >= 0, got -3"),
    ([CLOSE_CALL, "--seeds", "0:9", "--workers", "2", "--scheduler", "tcp://localhost:8786"],
     "give --workers or --scheduler, not both"),
    (["test_batch", "--seeds", "0:9"], "must be MODULE:SCENARIO"),
    (["no_such_module:X", "--seeds", "0:9"], "cannot import module 'no_such_module'"),
    (["support.batch_scenarios:Nothing", "--seeds", "0:9"],
     "module 'support.batch_scenarios' has no 'Nothing'"),
    (["support.batch_scenarios:serial", "--seeds", "0:9"], "is <function serial"),
    (["support.batch_scenarios:Doomed", "--seeds", "0:9"], "cannot be made with no arguments"),
])
def test_bad_arguments_exit_2_with_a_clear_message(args, message):
    proc = batch(*args)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert message in proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("cvcclock batch: error: ")


def test_an_out_file_of_another_batch_exits_2(tmp_path):
    out = tmp_path / "runs.jsonl"
    assert batch(CLOSE_CALL, "--seeds", "0:3", "--workers", 1,
                 "--out", out).returncode == 0
    proc = batch(CLOSE_CALL, "--seeds", "0:3", "--workers", 1, "--out", out,
                 "--max-steps", 9)
    assert proc.returncode == 2
    assert re.search(r"holds results of another batch \(line 1, seed \d\): option max_steps: "
                     "not set there, 9 here", proc.stderr), proc.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no signal to send to one process")
@pytest.mark.parametrize("signum, status, word", [(signal.SIGINT, 130, "interrupted"),
                                                  (signal.SIGTERM, 143, "terminated")])
def test_a_signal_stops_the_batch_and_the_same_command_resumes_it(tmp_path, signum, status,
                                                                   word):
    out = tmp_path / "runs.jsonl"
    args = ("support.batch_scenarios:Slow", "--seeds", "0:120", "--workers", 2, "--out", out)
    proc = start_batch(*args)
    stderr = stop_after_results(proc, out, 20, signum, timeout=60)
    assert proc.returncode == status, stderr
    assert f"{word}; the finished runs are in {out}: run the same command again" in stderr
    done = read_results(out)
    assert 20 <= len(done) < 120
    again = batch(*args)
    assert again.returncode == 0, again.stderr
    # each seed once, as if never stopped
    assert read_results(out) == serial(fast(Slow()), range(120))
    assert len(out.read_bytes().splitlines()) == 120


def test_python_dash_m_cvcclock_batch(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "cvcclock", "batch", CLOSE_CALL,
                           "--seeds", "0:4", "--workers", "1"],
                          capture_output=True, text=True, cwd=TESTS, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].split() == ["runs", "4"]
    bad = subprocess.run([sys.executable, "-m", "cvcclock", "batch", CLOSE_CALL,
                          "--seeds", "x"],
                         capture_output=True, text=True, cwd=TESTS, timeout=60)
    assert bad.returncode == 2 and "usage: cvcclock batch" in bad.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no signal to send to one process")
def test_a_stop_that_a_destructor_swallowed_still_stops_the_batch(monkeypatch):
    """Ctrl-C raises where the main thread is; inside a __del__ (a Dask future's) Python prints
    the KeyboardInterrupt and drops it. The batch's loop raises the stop again."""
    from cvcclock.cli import batch as batch_command

    class Swallows:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)        # the handler runs here, inside __del__

    dropped = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: dropped.append(u.exc_type))
    with batch_command._stop_on_signals() as received:
        Swallows()                  # made and collected: its __del__ swallows the interrupt
        assert received == [KeyboardInterrupt] and dropped == [KeyboardInterrupt]
        with pytest.raises(KeyboardInterrupt):
            list(batch_command._unless_stopped(iter(range(3)), received))
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_seeds_starting_with_a_minus_are_the_value_of_seeds(tmp_path):
    proc = batch(CLOSE_CALL, "--seeds", "-0:3", "--workers", 1)       # -0 is 0
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].split() == ["runs", "3"]


@POSIX_SIGNALS
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_batch_leaves_no_process_behind_and_resumes(tmp_path, signum):
    """SIGKILL gives the batch no chance to clean up: its workers see it gone and exit, and
    then its forkserver and resource tracker do; SIGTERM stops it as Ctrl-C does."""
    out = tmp_path / "runs.jsonl"
    mark = f"batch-kill-{os.getpid()}-{signum}"
    args = ("support.batch_scenarios:Slow", "--seeds", "0:400", "--workers", 2, "--out", out)
    proc = start_batch(*args, env=marked_env(mark))

    def the_batch_has_its_workers():
        running = marked_processes(mark)
        assert proc.pid in running and len(running) >= 4, running   # + forkserver, 2 workers

    try:
        stderr = stop_after_results(proc, out, 10, signum, timeout=60,
                                    before_stop=the_batch_has_its_workers)
        assert proc.returncode == (-signal.SIGKILL if signum == signal.SIGKILL else 143), stderr
        assert_no_leftovers(mark)
    finally:
        kill_marked(mark)
    again = batch(*args, timeout=120)
    assert again.returncode == 0, again.stderr
    assert read_results(out) == serial(fast(Slow()), range(400))       # each seed once


@POSIX_SIGNALS
def test_run_timeout_fails_a_stuck_run_and_the_batch_goes_on(tmp_path):
    proc = batch("support.batch_scenarios:Stuck", "--seeds", "0:8", "--workers", 2,
                 "--run-timeout", "1.5", timeout=90)
    assert proc.returncode == 1, proc.stderr
    assert re.search(r"^    TimeoutError +1$", proc.stdout, re.MULTILINE), proc.stdout
    assert "seeds 3" in proc.stdout


def test_repair_moves_damaged_lines_aside_and_the_batch_resumes(tmp_path):
    out = tmp_path / "runs.jsonl"
    assert batch(CLOSE_CALL, "--seeds", "0:6", "--workers", 1, "--out", out).returncode == 0
    lines = out.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b'"steps":60', b'"steps":66', 1)
    out.write_bytes(b"".join(lines))
    refused = batch(CLOSE_CALL, "--seeds", "0:6", "--workers", 1, "--out", out)
    assert refused.returncode == 2
    assert refused.stderr.splitlines()[-1].startswith(
        f"cvcclock batch: error: {out}, line 3: a damaged results record (its checksum does "
        "not match")
    assert "--repair" in refused.stderr
    proc = batch(CLOSE_CALL, "--seeds", "0:6", "--workers", 1, "--out", out, "--repair")
    assert proc.returncode == 0, proc.stderr
    assert (f"moved 1 damaged line(s) of {out} (line 3) to {out}.rejected; their seeds run "
            "again") in proc.stderr
    assert (tmp_path / "runs.jsonl.rejected").read_bytes() == lines[2]
    assert read_results(out) == serial(CloseCall(), range(6))
