"""``python -m cvcclock scenic``: the same run under every pacing, record/replay/seek, and
the exit statuses."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("scenic", reason="needs the scenic extra: pip install '.[scenic]'")

from cvcclock.cli import main  # noqa: E402

PROGRAM = """\
behavior Wander():
    while True:
        take Push(Range(0, 1))
ego = new Object with behavior Wander
other = new Object at (Range(-5, 5), 4), with behavior Wander
record ego.position as pos
terminate when simulation().currentTime >= 15
"""
PUSH = """\
from scenic.core.dynamics.actions import Action
class Push(Action):
    def __init__(self, v):
        self.v = v
    def applyTo(self, obj, sim):
        obj.velocity = Vector(0, self.v, 0)
"""


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "wander.scenic"
    path.write_text(PUSH + PROGRAM)
    return path


def scenic(capsys, *args):
    status = main(["scenic", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


FAST = ("--timestep", "0.01", "--steps", "20")


def test_every_pacing_prints_the_same_run(capsys, program):
    outputs = set()
    for pacing in ("live", "lockstep", "batch", "step"):
        status, out, err = scenic(capsys, program, *FAST, "--pacing", pacing)
        assert (status, err) == (0, "")
        outputs.add(out)
    status, out, _ = scenic(capsys, program, *FAST, "--pacing", "live", "--speed", "3")
    outputs.add(out)
    assert len(outputs) == 1
    lines = out.splitlines()
    assert lines[0] == "final step 15, scenarioComplete: termination condition on line 13"
    assert lines[1].startswith("trajectory ") and len(lines[1]) == len("trajectory ") + 16
    _, other, _ = scenic(capsys, program, *FAST, "--pacing", "batch", "--seed", "1")
    assert other.splitlines()[1] != lines[1]       # the seed decides the run


def test_record_replay_and_seek(capsys, program, tmp_path):
    rec = tmp_path / "run.rec"
    status, recorded, _ = scenic(capsys, program, *FAST, "--pacing", "batch", "--record", rec)
    assert status == 0 and rec.exists()
    status, replayed, err = scenic(capsys, program, "--replay", rec, "--pacing", "step")
    assert (status, err) == (0, "")
    assert replayed == recorded + "matched: 16 step hashes checked, all equal\n"
    status, out, _ = scenic(capsys, program, "--replay", rec, "--seek", "5")
    assert (status, out) == (0, "paused at step 5 (sought), tick 20\n")
    rec.write_text("".join("hash 4 0000000000000000\n" if line.startswith("hash 4 ") else line
                           for line in rec.read_text().splitlines(keepends=True)))
    status, out, _ = scenic(capsys, program, "--replay", rec, "--pacing", "batch")
    assert status == 1
    assert out.splitlines()[-1].startswith("DIVERGED at step 4: the state hash of step 4")


def test_bad_input_exits_2_and_names_it(capsys, program, tmp_path):
    bad = tmp_path / "bad.scenic"
    bad.write_text("ego = new Object\nego2 = new Object at (0,\n")
    status, out, err = scenic(capsys, bad)
    assert (status, out) == (2, "")
    assert f"{bad}:3" in err or f"{bad}:2" in err
    status, _, err = scenic(capsys, tmp_path / "none.scenic")
    assert status == 2 and "no such file" in err
    junk = tmp_path / "junk.rec"
    junk.write_text("junk\n")
    status, _, err = scenic(capsys, program, "--replay", junk)
    assert status == 2 and "line 1: not a cvcclock Scenic recording" in err
    with pytest.raises(SystemExit) as exited:
        scenic(capsys, program, "--pacing", "batch", "--speed", "2")
    assert exited.value.code == 2
    assert "--speed applies to --pacing live only" in capsys.readouterr().err
    failing = tmp_path / "fails.scenic"
    failing.write_text("behavior B():\n    wait\n    x = 1 / 0\nego = new Object with behavior B\n")
    status, _, err = scenic(capsys, failing, "--pacing", "batch", "--steps", "5")
    assert status == 2 and f"{failing}:3: ZeroDivisionError" in err


def test_the_model_and_params_reach_scenic(capsys, tmp_path):
    path = tmp_path / "newtonian.scenic"
    path.write_text(PUSH + PROGRAM)
    status, out, err = scenic(capsys, path, *FAST, "--pacing", "batch", "--model",
                              "scenic.simulators.newtonian.model", "--param", "render", "0")
    assert (status, err) == (0, ""), err
    assert out.startswith("final step ")


def test_ctrl_c_exits_130(tmp_path):
    started = tmp_path / "started"
    path = tmp_path / "long.scenic"
    path.write_text(f"""\
import pathlib
behavior Mark():
    pathlib.Path({str(started)!r}).touch()
    while True:
        wait
ego = new Object with behavior Mark
""")
    proc = subprocess.Popen([sys.executable, "-m", "cvcclock", "scenic", str(path), "--steps",
                             "100000", "--timestep", "0.01"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not started.exists():
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = proc.communicate(timeout=10)
        assert time.monotonic() - sent < 2.0     # the process, not only the run, has ended
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert err.endswith("cvcclock scenic: interrupted\n")
