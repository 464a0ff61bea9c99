"""Every command's exit statuses mean one thing each: 0 ok; 1 only the contract broken (a
replay diverged, runs of a batch failed, the demo's pacings disagree); 2 a usage error or
input that cannot be read or used; 130 interrupted (143 a batch terminated). And every hint
that names an extra gives the form that works in a checkout and the index's.

The statuses 0 and 1, and most of 2, are tested beside each command (test_batch_cli,
test_replay_cli, test_bench_cli, tests/batch/test_batch_dask for the Dask paths); here are
the exit paths those leave, and the hints.
"""

from __future__ import annotations

import faulthandler
import os
import pathlib
import re
import signal
import subprocess
import sys
import time

import pytest

import cvcclock
import cvcclock.bench
import cvcclock.demo
from cvcclock import ClockConfig, WorldClock
from cvcclock.__main__ import main
from cvcclock._extras import install_hint
from cvcclock.bench import GOALS, print_table
from cvcclock.demo import Spring
from cvcclock.replay import Recorder

TESTS = pathlib.Path(__file__).parents[1]
PACKAGE = pathlib.Path(cvcclock.__file__).parent
BATCH = "import sys; from cvcclock.cli import main; sys.exit(main(['batch', *sys.argv[1:]]))"
NO_DASK = ("import sys; sys.modules['distributed'] = None; "
           "from cvcclock.__main__ import main; sys.exit(main())")
CLOSE_CALL = "support.batch_scenarios:CloseCall"


@pytest.fixture(autouse=True)
def watchdog():
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def python(code, *args, timeout=60):
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                          text=True, cwd=TESTS, timeout=timeout)


# -- the install hints -------------------------------------------------------------------------


def test_the_install_hint_gives_the_checkout_form_and_the_index_form():
    assert install_hint("dask") == ("pip install '.[dask]' (in a checkout) or "
                                    "pip install 'cvcclock[dask]' (from an index)")


def test_every_pip_install_in_the_package_gives_both_forms():
    """Each "pip install" in the package's source comes from install_hint, or names both forms
    itself (a docstring)."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "_extras.py":
            continue
        text = path.read_text()
        for match in re.finditer(r"pip install '([^']*)'", text):
            extra = re.search(r"\[(.*)\]", match.group(1))
            both = extra and (f"pip install '.[{extra.group(1)}]'" in text
                              and f"pip install 'cvcclock[{extra.group(1)}]'" in text)
            if not both:
                offenders.append(f"{path.relative_to(PACKAGE)}: {match.group(0)}")
    assert offenders == []


@pytest.mark.parametrize("command, extra", [("batch", "dask"), ("demo", "plot")])
def test_help_gives_both_install_forms(capsys, command, extra):
    with pytest.raises(SystemExit) as exit:
        main([command, "--help"])
    assert exit.value.code == 0
    out = " ".join(capsys.readouterr().out.split())    # argparse wraps lines
    assert install_hint(extra) in out


# -- batch: Dask missing, options that conflict -------------------------------------------------


@pytest.mark.parametrize("option", [["--dask", "2"], ["--scheduler", "local:2"],
                                    ["--scheduler", "tcp://127.0.0.1:8786"]])
def test_dask_options_without_dask_exit_2_with_the_install_forms(option):
    proc = python(NO_DASK, "batch", CLOSE_CALL, "--seeds", "0:4", *option)
    assert proc.returncode == 2, proc.stderr
    which = "--dask" if option[1].startswith("local:") or option[0] == "--dask" else "--scheduler"
    assert proc.stderr.splitlines() == [
        f"cvcclock batch: error: {which} runs on Dask, which is not installed: "
        f"{install_hint('dask')}"]


@pytest.mark.parametrize("args, message", [
    (["--dask", "0"], "--dask must be >= 1, got 0"),
    (["--dask", "two"], "--dask must be an integer, got 'two'"),
    (["--scheduler", "local:0"], "--scheduler local:N must be >= 1, got 0"),
    (["--scheduler", "local:"], "--scheduler local:N must be an integer, got ''"),
    (["--dask", "2", "--scheduler", "tcp://127.0.0.1:8786"], "give --dask or --scheduler"),
    (["--dask", "2", "--workers", "2"], "give --workers or --dask, not both"),
    (["--scheduler", "local:2", "--workers", "2"], "give --workers or --scheduler, not both"),
])
def test_conflicting_or_bad_dask_options_are_usage_errors(args, message):
    proc = python(BATCH, CLOSE_CALL, "--seeds", "0:4", *args)
    assert proc.returncode == 2, proc.stderr
    assert "usage: " in proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("cvcclock batch: error: ")
    assert message in proc.stderr


def test_input_the_batch_cannot_use_is_2_without_a_usage_line(tmp_path):
    out = tmp_path / "runs.jsonl"
    out.write_text("not a results file\n")
    proc = python(BATCH, CLOSE_CALL, "--seeds", "0:3", "--workers", 1, "--out", out)
    assert proc.returncode == 2, proc.stderr
    assert "usage:" not in proc.stderr
    assert proc.stderr.startswith("cvcclock batch: error: ")


# -- replay: a trace of another world ----------------------------------------------------------


def own_trace(path, metadata=None):
    """A trace of a world of the user's own, recorded with the package's Recorder."""
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    recorder = Recorder(Spring(), clock, 0.06, metadata=metadata)
    clock.advance_ticks(60)
    recorder.pump()
    recorder.trace().save(path)
    return path


@pytest.mark.parametrize("metadata, what", [
    (None, "its header names no world"),
    ({"world": "my pendulum"}, "its header names the world 'my pendulum'"),
])
def test_replay_of_a_trace_of_another_world_says_what_it_is_and_what_to_use(
        tmp_path, capsys, metadata, what):
    path = own_trace(tmp_path / "mine.trace", metadata)
    # --to past its end: the world is named first, not the option.
    assert main(["replay", str(path), "--to", "5000"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"cvcclock replay: {path} is a trace, but not of the demo's spring ({what}). "
        "'cvcclock replay' replays the traces written by 'cvcclock demo --record'; to replay "
        "your own world, use cvcclock.replay.Replayer with that world in Python.\n")


# -- interrupted: 130 for every command --------------------------------------------------------


@pytest.mark.parametrize("command, module, name", [
    (["bench", "--number", "10", "--repeat", "1", "--clocks", "10"], cvcclock.bench,
     "run_bench"),
    (["demo"], cvcclock.demo, "run_all"),
])
def test_ctrl_c_in_any_command_exits_130(monkeypatch, capsys, command, module, name):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(module, name, interrupted)
    assert main(command) == 130
    assert capsys.readouterr().err == f"cvcclock {command[0]}: interrupted\n"


@pytest.mark.skipif(sys.platform == "win32", reason="no SIGINT to send to one process")
def test_sigint_during_bench_exits_130_not_a_traceback():
    proc = subprocess.Popen([sys.executable, "-u", "-c",
                             "import cvcclock.bench, cvcclock.__main__ as m, sys; print('go'); "
                             "sys.exit(m.main(['bench', '--repeat', '1000']))"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "go\n"
        time.sleep(0.5)              # into the timing
        os.kill(proc.pid, signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert stderr.endswith("cvcclock bench: interrupted\n") and "Traceback" not in stderr


# -- bench: a JSON file that cannot be written, the goal lines --------------------------------


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_bench_json_that_cannot_be_written_exits_2_with_one_line():
    proc = subprocess.run([sys.executable, "-m", "cvcclock", "bench", "--number", "10",
                           "--repeat", "1", "--clocks", "10", "--json", "/dev/full"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == ("cvcclock bench: --json: cannot write '/dev/full': "
                           "No space left on device\n")


def test_the_bench_table_names_no_issue_and_each_goal_names_both_sides():
    import io
    report = cvcclock.bench.run_bench(10, 1, clocks=10, out=io.StringIO())
    out = io.StringIO()
    print_table(report, out)
    text = out.getvalue()
    assert "issue" not in text.lower() and not re.search(r"#\d", text)
    goal_lines = [line for line in text.splitlines() if re.match(r"  (met|MISSED|not measured) ",
                                                                line)]
    assert len(goal_lines) == len(GOALS)
    for goal, line in zip(GOALS, goal_lines, strict=True):
        bound = "at most" if goal.at_most else "at least"
        # a figure, negative too (a tiny run's noise can put a firing under its callback)
        assert re.search(rf"{re.escape(goal.text)}: (-?\d+\.\d\dx|-) {re.escape(goal.versus)} "
                         rf"\(goal {bound} {goal.target:g}x\)$", line), line
    assert any(re.search(r" clock\.advance\(1/60\): (\d+\.\d\dx|-) an empty C method call "
                         r"with one argument \(goal at most 1\.5x\)$", line)
               for line in goal_lines)


# -- a reader that left early: the status is still the command's --------------------------------


def into_a_closed_pipe(code, *args):
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run([sys.executable, "-c", code, *map(str, args)], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, cwd=TESTS, timeout=120)
    finally:
        os.close(write_end)


@pytest.mark.parametrize("scenario, status", [(CLOSE_CALL, 0),
                                              ("support.batch_scenarios:Flaky", 1)])
def test_a_batch_whose_reader_left_early_exits_with_the_batchs_status(scenario, status):
    proc = into_a_closed_pipe(BATCH, scenario, "--seeds", "0:8", "--workers", 1)
    assert (proc.returncode, proc.stderr) == (status, "")
