"""``python -m cvcclock scenic FILE --panel``: the run, live, under the transport panel."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

pytest.importorskip("scenic", reason="needs the scenic extra: pip install '.[scenic]'")
pytest.importorskip("aiohttp", reason="needs the panel extra: pip install '.[panel]'")

from test_scenic_cli import PROGRAM, PUSH  # noqa: E402

TIMEOUT = 60.0


def start(path, *args):
    return subprocess.Popen([sys.executable, "-m", "cvcclock", "scenic", str(path), "--panel",
                             *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def url_of(proc):
    """The panel's URL, from the first line the command prints."""
    line = proc.stdout.readline()
    assert line.startswith("cvcclock panel: http://127.0.0.1:"), (line, proc.stderr.read())
    return line.split(": ", 1)[1].strip()


def stop(proc):
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


def test_the_run_ends_with_its_report_and_the_page_answers_with_its_token_only(tmp_path):
    path = tmp_path / "wander.scenic"
    path.write_text(PUSH + PROGRAM)
    # 15 steps of 0.01 s at 0.05x: about 3 s of wall time, time for the page to answer.
    proc = start(path, "--timestep", "0.01", "--steps", "20", "--speed", "0.05")
    try:
        url = url_of(proc)
        with urllib.request.urlopen(url, timeout=10) as page:
            assert page.status == 200
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url.split("?")[0], timeout=10)
        assert refused.value.code == 403
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        stop(proc)
    assert proc.returncode == 0, err
    assert "final step 15, scenarioComplete: termination condition on line 13" in out


def test_ctrl_c_under_the_panel_exits_130(tmp_path):
    path = tmp_path / "wander.scenic"
    path.write_text(PUSH + PROGRAM)
    proc = start(path, "--timestep", "0.01", "--steps", "20", "--speed", "0.01")
    try:
        url_of(proc)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        stop(proc)
    assert proc.returncode == 130, err
    assert err.endswith("cvcclock scenic: interrupted\n")


@pytest.mark.parametrize("args, words", [
    (["--pacing", "batch"], "--pacing and --seek do not apply"),
    (["--port", "70000"], "--port must be from 0 to 65535"),
])
def test_panel_options_that_cannot_apply_are_usage_errors(tmp_path, args, words):
    path = tmp_path / "wander.scenic"
    path.write_text(PUSH + PROGRAM)
    proc = start(path, *args)
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        stop(proc)
    assert proc.returncode == 2 and words in err
