"""``cvcclock netplay-demo`` and the ``cvcclock replay`` of the match it records."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cvcclock.replay import InputTrace

TIMEOUT = 120.0


def run(*argv):
    return subprocess.run([sys.executable, "-m", "cvcclock", *argv], capture_output=True,
                          text=True, timeout=TIMEOUT)


@pytest.fixture(scope="module")
def match(tmp_path_factory):
    path = tmp_path_factory.mktemp("netplay") / "pong.trace"
    proc = run("netplay-demo", "--frames", "150", "--delay", "0.02", "--jitter", "0.06",
               "--loss", "0.15", "--duplicate", "0.05", "--trace", str(path))
    return proc, path


def test_the_demo_plays_through_the_lossy_relay_and_the_peers_agree(match):
    proc, path = match
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert out[0].startswith("netplay demo: Pong between 2 peer processes on 127.0.0.1, 150 "
                             "frames") and "loss 15%" in out[0]
    assert out[1].startswith("peer 0: 150 frames confirmed, ")
    assert out[2].startswith("peer 1: 150 frames confirmed, ")
    assert "rollbacks" in out[1] and "rtt" in out[1]
    assert out[-2] == "confirmed states agree: yes (15 state hashes exchanged, no desync)"
    final = out[-3].split("state hash ")[1].split(" ")[0]
    assert f"(peer 1: {final})" in out[-3]
    trace = InputTrace.load(path)
    assert trace.end_tick == 300 and len(trace.inputs) == 300 and len(trace.hashes) == 15


@pytest.mark.parametrize("pacing", ["live", "lockstep", "batch", "step"])
def test_cvcclock_replay_reproduces_the_match_under_every_pacing(match, pacing):
    proc, path = match
    replayed = run("replay", str(path), "--pacing", pacing)
    assert replayed.returncode == 0, replayed.stderr
    lines = replayed.stdout.splitlines()
    assert lines[0].startswith(f"trace {path}: a netplay match of Pong, 2 players, 150 frames")
    assert lines[-1] == "matched: 15 state hashes checked, all equal"
    final = proc.stdout.splitlines()[-3].split("state hash ")[1].split(" ")[0]
    assert lines[-2].endswith(f"state hash {final}")


def test_a_changed_input_in_the_record_diverges_at_its_first_hash(match, tmp_path):
    _, path = match
    trace = InputTrace.load(path)
    # Through the trace's own writer, so the file is well formed whatever its format holds.
    # An input of a hashed frame (every 10th): the world's snapshot holds the move it got,
    # so that very hash differs.
    period = trace.header.period
    i = next(i for i, e in enumerate(trace.inputs)
             if e.name == "p1" and e.tick >= 100 and e.tick // period % 10 == 0
             and e.value != -1)
    changed = trace.inputs[i]._replace(value=-1)
    bad = tmp_path / "bad.trace"
    InputTrace(trace.header, trace.inputs[:i] + (changed,) + trace.inputs[i + 1:],
               trace.hashes, trace.end_tick).save(bad)
    replayed = run("replay", str(bad))
    assert replayed.returncode == 1
    assert f"DIVERGED at tick {changed.tick + period}:" in replayed.stdout


@pytest.mark.parametrize("args, message", [
    (["--frames", "0"], "--frames"), (["--loss", "1.5"], "--loss"),
    (["--delay", "-1"], "--delay"), (["--max-prediction", "0"], "--max-prediction"),
])
def test_bad_options_are_usage_errors(args, message):
    proc = run("netplay-demo", *args)
    assert proc.returncode == 2 and message in proc.stderr and proc.stdout == ""


# -- a match's trace follows the replay command's rules (issue 21 items 8-10) ----------------

def rewritten(match, tmp_path, **changes):
    """The match's trace with ``changes`` (fields of InputTrace), through the trace's writer."""
    _, path = match
    trace = InputTrace.load(path)
    fields = {"header": trace.header, "inputs": trace.inputs, "hashes": trace.hashes,
              "end_tick": trace.end_tick, **changes}
    bad = tmp_path / "changed.trace"
    InputTrace(**fields).save(bad)
    return bad


def test_a_match_without_its_state_hashes_is_unverified_never_matched(match, tmp_path):
    replayed = run("replay", str(rewritten(match, tmp_path, hashes={})))
    assert replayed.returncode == 3, replayed.stdout + replayed.stderr
    assert "UNVERIFIED: missing: the trace records no state hash" in replayed.stdout


def test_a_match_asking_for_an_end_beyond_its_size_is_exit_two_in_bounded_time(match,
                                                                               tmp_path):
    replayed = run("replay", str(rewritten(match, tmp_path, end_tick=2**62)))
    assert replayed.returncode == 2
    assert "a replay's work is bounded by its trace's size" in replayed.stderr


def test_a_match_input_that_is_no_player_s_is_exit_two(match, tmp_path):
    _, path = match
    trace = InputTrace.load(path)
    inputs = (trace.inputs[0]._replace(name="kick", value=1.0),) + trace.inputs[1:]
    replayed = run("replay", str(rewritten(match, tmp_path, inputs=inputs)))
    assert replayed.returncode == 2
    assert "a netplay match takes no such input" in replayed.stderr
