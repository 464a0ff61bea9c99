"""``cvcclock demo --record/--plot`` and ``cvcclock replay``: what they print and exit with."""

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cvcclock.__main__ import main
from cvcclock.cli.replay import DIVERGED, INVALID, MATCHED, STEPS_PER_LINE, UNVERIFIED
from cvcclock.demo import SCRIPT, record_demo, replay_demo, trajectory_hash
from cvcclock.replay import Input
from cvcclock.replay._trace import InputTrace

TIMEOUT = 120.0
COMPAT = Path(__file__).resolve().parents[1] / "compat" / "data"


def run(*argv, cwd=None):
    return subprocess.run([sys.executable, "-m", "cvcclock", *argv], capture_output=True,
                          text=True, timeout=TIMEOUT, cwd=cwd)


@pytest.fixture(scope="module")
def trace_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("replay") / "run.trace"
    proc = run("demo", "--record", str(path))
    assert proc.returncode == 0, proc.stderr
    assert f"recorded 8 inputs and 100 state hashes to {path}: " in proc.stdout
    return path


def test_demo_record_prints_the_table_then_the_recording(trace_file):
    proc = run("demo", "--record", str(trace_file))
    plain = run("demo")
    assert proc.stdout.startswith(plain.stdout)          # the plain output, unchanged
    assert "bytes per input" in proc.stdout.splitlines()[-1]


def test_the_recording_holds_the_scripted_inputs_at_the_ticks_the_user_gave_them(trace_file):
    trace = InputTrace.load(trace_file)
    assert [(e.name, e.value) for e in trace.inputs] == [(n, v) for _, n, v in SCRIPT]
    # Each is stamped with the tick of the frame that reached its scripted tick: at or after.
    assert all(e.tick >= t for e, (t, _, _) in zip(trace.inputs, SCRIPT, strict=True))
    assert [e.tick for e in trace.inputs] != [t for t, _, _ in SCRIPT]   # uneven frames
    assert sorted(trace.hashes) == list(range(6, 601, 6)) and trace.end_tick == 600
    assert trace.header.metadata["trajectory"] == trajectory_hash(record_demo().trajectory)


@pytest.mark.parametrize("options", [[], ["--pacing", "lockstep"], ["--pacing", "batch"],
                                     ["--pacing", "step"], ["--speed", "2"],
                                     ["--speed", "0.5", "--pacing", "live"]])
def test_replay_matches_under_every_pacing_and_exits_zero(trace_file, options):
    proc = run("replay", str(trace_file), *options)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    recorded = InputTrace.load(trace_file).header.metadata["trajectory"]
    assert f"final tick 600, trajectory {recorded} (recorded {recorded})" in proc.stdout
    assert proc.stdout.splitlines()[-1] == "matched: 100 state hashes checked, all equal"


@pytest.mark.parametrize("pacing", ["live", "lockstep", "batch", "step"])
def test_replay_to_a_tick_stops_exactly_there(trace_file, pacing):
    proc = run("replay", str(trace_file), "--to", "301", "--pacing", pacing)
    assert proc.returncode == 0, proc.stderr
    expected = replay_demo(InputTrace.load(trace_file), "step", to=301)
    assert f"final tick 301, trajectory {trajectory_hash(expected.trajectory)}\n" in proc.stdout
    assert "matched: 50 state hashes checked" in proc.stdout


def redigested(path, lines):
    """Write ``lines`` (a trace's, the end line last) to ``path`` with the end line's sha256
    made again by the documented rule, as a tool that edits traces would: of the lines
    before the end line, then ``{"end": N}\\n``."""
    end = json.loads(lines[-1])["end"]
    body = "".join(line + "\n" for line in lines[:-1]) + json.dumps({"end": end}) + "\n"
    digest = hashlib.sha256(body.encode()).hexdigest()
    path.write_text("".join(line + "\n" for line in lines[:-1])
                    + json.dumps({"end": end, "sha256": digest}) + "\n")
    return path


def test_an_edited_kick_diverges_at_the_first_step_after_it(trace_file, tmp_path):
    lines = trace_file.read_text().splitlines()
    kick = next(i for i, line in enumerate(lines) if '"value": -2.0' in line)
    tick = json.loads(lines[kick])["tick"]
    lines[kick] = lines[kick].replace("-2.0", "-2.0000001")
    edited = redigested(tmp_path / "edited.trace", lines)   # its digest vouches for the edit
    proc = run("replay", str(edited))
    assert proc.returncode == 1, proc.stderr
    first = (tick // 6 + 1) * 6
    assert f"DIVERGED at tick {first}: recorded state hash " in proc.stdout
    assert f"of {100} state hashes differ" in proc.stdout


def test_a_cut_short_trace_is_exit_two_naming_the_line(trace_file, tmp_path):
    cut = tmp_path / "cut.trace"
    data = trace_file.read_bytes()
    cut.write_bytes(data[:len(data) // 2])
    proc = run("replay", str(cut))
    lines = data[:len(data) // 2].count(b"\n")
    assert proc.returncode == 2 and proc.stdout == ""
    assert f"unreadable trace: {cut}, line {lines + 1}: no end-of-line" in proc.stderr


@pytest.mark.parametrize("argv, words", [
    (["--to", "601"], "--to must be <= 600, got 601"),
    (["--to", "-1"], "--to must be >= 0, got -1"),
    (["--speed", "0"], "--speed must be finite and >= 0.01"),
    (["--speed", "nan"], "--speed must be finite"),
    (["--speed", "2", "--pacing", "step"], "--speed applies to --pacing live only"),
    (["--pacing", "fast"], "invalid choice: 'fast'"),
])
def test_bad_replay_options_exit_two_naming_them(trace_file, capsys, argv, words):
    with pytest.raises(SystemExit) as exit:
        main(["replay", str(trace_file), *argv])
    assert exit.value.code == 2
    assert words in capsys.readouterr().err


def test_a_missing_file_or_another_worlds_trace_is_exit_two(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "none.trace")]) == 2
    assert "cannot read" in capsys.readouterr().err
    other = tmp_path / "other.trace"
    other.write_text('{"format": "cvcclock-trace", "version": 1, "fixed_dt": 0.01, "dt": 0.06, '
                     '"start_tick": 0, "seed": 0, "cvcclock": "0", "metadata": {}}\n'
                     '{"end": 10}\n')
    assert main(["replay", str(other)]) == 2
    assert "replays the traces written by 'cvcclock demo --record'" in capsys.readouterr().err


def test_replay_help_names_its_exit_statuses(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["replay", "--help"])
    assert exit.value.code == 0
    out = capsys.readouterr().out
    assert "0 the replay matched" in out and "1 it diverged" in out and "2 the trace" in out


def test_demo_record_to_an_unwritable_path_is_exit_two(tmp_path):
    proc = run("demo", "--record", str(tmp_path / "no" / "such" / "dir.trace"))
    assert proc.returncode == 2
    assert "No such file or directory" in proc.stderr
    assert "determinism contract: held" in proc.stdout


def test_demo_plot_writes_a_png(tmp_path):
    path = tmp_path / "pacing.png"
    proc = run("demo", "--plot", str(path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == f"drew the pacing picture to {path}"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 20_000


def test_demo_plot_without_matplotlib_says_how_to_install_it(tmp_path):
    code = ("import sys; sys.modules['matplotlib'] = None; from cvcclock.__main__ import main; "
            f"sys.exit(main(['demo', '--plot', {str(tmp_path / 'p.png')!r}]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert proc.returncode == 2
    assert "pip install 'cvcclock[plot]'" in proc.stderr
    assert not (tmp_path / "p.png").exists()


def test_importing_cvcclock_does_not_import_matplotlib_or_numpy():
    code = ("import sys, cvcclock, cvcclock.__main__; "
            "print(sorted({'matplotlib', 'numpy'} & set(sys.modules)))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert proc.stdout == "[]\n", proc.stderr


# -- what a trace may ask for (issue 21 items 8 and 9) -------------------------------------


def line_of(lines, words):
    return next(i for i, line in enumerate(lines) if words in line)


@pytest.mark.parametrize("name, value, words", [
    ("kick", '"1.5"', "the kick's value must be a real number, got '1.5'"),
    ("kick", "true", "the kick's value must be a real number, got True"),
    ("kick", "null", "the kick's value must be a real number, got None"),
    ("kick", "[1.5]", r"the kick's value must be a real number, got \[1.5\]"),
    ("kick", '{"v": 1}', "the kick's value must be a real number"),
    ("speed", '"2"', "the speed must be a real number, got '2'"),
    ("speed", "false", "the speed must be a real number, got False"),
    ("speed", "null", "the speed must be a real number, got None"),
    ("speed", "[2.0]", "the speed must be a real number"),
    ("speed", "0", "the speed must be finite and >= 0.01"),
    ("speed", "0.0", "the speed must be finite and >= 0.01"),
    ("speed", "1e-300", "the speed must be finite and >= 0.01"),
    ("speed", "-1.0", "the speed must be finite and >= 0.01"),
    ("speed", "1e300", "the speed must be finite and >= 0.01 and <= 100"),
])
@pytest.mark.parametrize("digest", ["remade", "stale"])
def test_a_kick_or_speed_the_demo_cannot_take_is_exit_two_naming_the_line(
        trace_file, tmp_path, name, value, words, digest):
    lines = trace_file.read_text().splitlines()
    i = line_of(lines, f'"input": "{name}"')
    entry = json.loads(lines[i])
    lines[i] = f'{{"tick": {entry["tick"]}, "input": "{name}", "value": {value}}}'
    path = tmp_path / "bad.trace"
    if digest == "remade":
        redigested(path, lines)
    else:                        # the input's line is read, and refused, before the end line
        path.write_text("".join(line + "\n" for line in lines))
    proc = run("replay", str(path))
    assert (proc.returncode, proc.stdout) == (INVALID, ""), proc.stderr
    assert "Traceback" not in proc.stderr
    assert re.search(rf"unreadable trace: {re.escape(str(path))}, line {i + 1}: {words}",
                     proc.stderr), proc.stderr


def test_an_input_the_demo_has_not_is_exit_two_naming_the_line(trace_file, tmp_path):
    trace = InputTrace.load(trace_file)
    odd = InputTrace(trace.header, (*trace.inputs, Input(599, "jump", 1.0)), trace.hashes,
                     trace.end_tick)
    odd.save(tmp_path / "odd.trace")
    lines = (tmp_path / "odd.trace").read_text().splitlines()
    proc = run("replay", str(tmp_path / "odd.trace"))
    assert proc.returncode == INVALID
    assert (f"line {line_of(lines, 'jump') + 1}: the demo's spring takes the inputs 'kick' "
            "and 'speed', not 'jump'") in proc.stderr


@pytest.mark.parametrize("end", [2**62, 2**40, 6 * STEPS_PER_LINE * 4 + 6])
def test_an_end_beyond_what_the_trace_s_size_allows_is_exit_two_in_bounded_time(tmp_path, end):
    """A trace of 3 lines may ask for 300 steps; 2**62 ticks would run for ever."""
    lines = ['{"format": "cvcclock-trace", "version": 2, "fixed_dt": 0.01, "dt": 0.06, '
             '"start_tick": 0, "seed": 0, "cvcclock": "0", "metadata": {"world": '
             '"cvcclock demo spring"}}', '{"tick": 0, "input": "speed", "value": 0.01}',
             '{"tick": 1, "input": "kick", "value": 1.0}', json.dumps({"end": end})]
    path = redigested(tmp_path / "long.trace", lines)
    proc = run("replay", str(path))              # the subprocess's timeout bounds a regression
    assert (proc.returncode, proc.stdout) == (INVALID, ""), proc.stderr
    assert (f"{path}, line 4: the end tick {end} asks for {end // 6} world steps, more than "
            f"{STEPS_PER_LINE} for each of the trace's 4 lines: a replay's work is bounded by "
            "its trace's size") in proc.stderr
    # Within the bound, the same trace replays (unverified: it records no digest of its steps).
    lines[-1] = json.dumps({"end": 6 * STEPS_PER_LINE * 4})
    proc = run("replay", str(redigested(path, lines)), "--pacing", "batch")
    assert proc.returncode == UNVERIFIED, proc.stderr


def test_a_trace_of_another_clock_or_step_is_exit_two_naming_line_one(trace_file, tmp_path):
    lines = trace_file.read_text().splitlines()
    lines[0] = lines[0].replace('"fixed_dt": 0.01', '"fixed_dt": 0.02')
    proc = run("replay", str(redigested(tmp_path / "coarse.trace", lines)))
    assert (proc.returncode, proc.stdout) == (INVALID, "")
    assert ("coarse.trace, line 1: the demo's recordings have fixed_dt=0.01, dt=0.06 and start "
            "at tick 0; this one has fixed_dt=0.02, dt=0.06, start_tick=0") in proc.stderr


# -- every digest compared; a missing one is unverified (issue 21 item 10) ------------------


def test_a_changed_kick_with_the_hash_lines_removed_diverges_on_the_trajectory(trace_file,
                                                                             tmp_path):
    lines = [line for line in trace_file.read_text().splitlines() if '"hash"' not in line]
    kick = line_of(lines, '"value": -2.0')
    lines[kick] = lines[kick].replace("-2.0", "-2.5")
    proc = run("replay", str(redigested(tmp_path / "bare.trace", lines)))
    assert proc.returncode == DIVERGED, proc.stdout + proc.stderr
    recorded = InputTrace.load(trace_file).header.metadata["trajectory"]
    out = proc.stdout.splitlines()
    assert out[-1].startswith("DIVERGED: the trajectory hash is ")
    assert out[-1].endswith(f", the recorded one {recorded}; all 0 state hashes checked are "
                            "equal")
    assert "missing: 100 of the 100 steps replayed have no recorded state hash" in out
    assert "verified: the body's sha256" in out        # and neither hash of the world


def test_a_changed_kick_with_every_digest_removed_is_unverified_never_matched(trace_file,
                                                                            tmp_path):
    lines = [line for line in trace_file.read_text().splitlines() if '"hash"' not in line]
    lines[0] = lines[0].replace(f', "trajectory": '
                                f'"{InputTrace.load(trace_file).header.metadata["trajectory"]}"',
                                "")
    kick = line_of(lines, '"value": -2.0')
    lines[kick] = lines[kick].replace("-2.0", "-2.5")
    for pacing in ("live", "batch"):
        proc = run("replay", str(redigested(tmp_path / "bare.trace", lines)),
                   "--pacing", pacing)
        assert proc.returncode == UNVERIFIED == 3, proc.stdout + proc.stderr
        out = proc.stdout.splitlines()
        assert out[-2] == ("missing: 100 of the 100 steps replayed have no recorded state "
                           "hash; the trace records no trajectory hash")
        assert out[-1].startswith("UNVERIFIED: 0 state hashes checked")
        assert "matched" not in proc.stdout


def test_one_state_hash_missing_is_unverified_and_named(trace_file, tmp_path):
    lines = trace_file.read_text().splitlines()
    del lines[line_of(lines, '{"tick": 300, "hash"')]
    proc = run("replay", str(redigested(tmp_path / "gap.trace", lines)))
    assert proc.returncode == UNVERIFIED, proc.stdout + proc.stderr
    assert ("missing: 1 of the 100 steps replayed have no recorded state hash"
            in proc.stdout.splitlines())
    # Up to a tick before the gap, every digest that covers the replay is there.
    proc = run("replay", str(tmp_path / "gap.trace"), "--to", "299")
    assert proc.returncode == MATCHED, proc.stdout + proc.stderr
    assert "verified: 49 state hashes, the body's sha256" in proc.stdout


def test_a_changed_trajectory_hash_diverges(trace_file, tmp_path):
    lines = trace_file.read_text().splitlines()
    recorded = InputTrace.load(trace_file).header.metadata["trajectory"]
    lines[0] = lines[0].replace(recorded, "000000000000")
    proc = run("replay", str(redigested(tmp_path / "t.trace", lines)))
    assert proc.returncode == DIVERGED
    assert f"DIVERGED: the trajectory hash is {recorded}, the recorded one 000000000000" \
        in proc.stdout


@pytest.mark.parametrize("edit", [
    lambda lines: [*lines[:3], lines[3].replace('"hash": "', '"hash": "0'), *lines[4:]],
    lambda lines: [line for line in lines if '"hash"' not in line],
    lambda lines: [line.replace("-2.0", "-2.5") for line in lines],
    lambda lines: [*lines[:-1], lines[-1].replace('"end": 600', '"end": 660')],
])
def test_an_edit_that_stays_valid_json_is_exit_two_naming_the_end_line(trace_file, tmp_path,
                                                                       edit):
    lines = edit(trace_file.read_text().splitlines())
    path = tmp_path / "edited.trace"
    path.write_text("".join(line + "\n" for line in lines))
    proc = run("replay", str(path))
    assert (proc.returncode, proc.stdout) == (INVALID, "")
    assert (f"unreadable trace: {path}, line {len(lines)}: the trace (every line before this "
            "one, and the end tick) has the sha256 ") in proc.stderr
    assert "the file was changed after it was written" in proc.stderr


def test_a_version_1_demo_trace_replays_and_is_unverified_for_want_of_a_body_digest():
    """The rule for traces written before the body digest: they are read and replayed, every
    state hash and the trajectory hash compared; a difference is a divergence, and with none
    the verdict is unverified (3), since nothing vouches for the file's body."""
    old = COMPAT / "demo_v1.trace"
    proc = run("replay", str(old))
    assert proc.returncode == UNVERIFIED, proc.stdout + proc.stderr
    out = proc.stdout.splitlines()
    assert out[0].endswith("100 state hashes, format version 1")
    assert out[-3] == "verified: 100 state hashes, the trajectory hash"
    assert out[-2] == "missing: a version-1 trace carries no digest of its body"
    assert out[-1] == "UNVERIFIED: 100 state hashes checked, all equal, but the trace lacks a " \
        "digest it should hold (see missing)"


def test_a_version_1_trace_with_a_changed_kick_still_diverges(tmp_path):
    lines = (COMPAT / "demo_v1.trace").read_text().splitlines()
    kick = line_of(lines, '"value": -2.0')
    lines[kick] = lines[kick].replace("-2.0", "-2.5")
    edited = tmp_path / "old.trace"
    edited.write_text("".join(line + "\n" for line in lines))
    proc = run("replay", str(edited))
    assert proc.returncode == DIVERGED
    assert "DIVERGED at tick" in proc.stdout


def test_replay_help_names_the_unverified_status(capsys):
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    out = capsys.readouterr().out
    assert "3 unverified: nothing" in out and "a version-1 trace has no body digest" in out


@pytest.mark.parametrize("value", ['"fast"', "0", "1e-300"])
def test_replay_panel_refuses_what_the_replay_refuses_before_serving(tmp_path, value):
    """``--panel`` scrubs a trace by the command's own rules: nothing is served for a trace
    the replay refuses (a speed it cannot take, an end beyond the trace's size)."""
    lines = ['{"format": "cvcclock-trace", "version": 2, "fixed_dt": 0.01, "dt": 0.06, '
             '"start_tick": 0, "seed": 0, "cvcclock": "0", "metadata": {"world": '
             '"cvcclock demo spring"}}', '{"tick": 0, "input": "speed", "value": ' + value + '}',
             json.dumps({"end": 2**62})]
    proc = run("replay", str(redigested(tmp_path / "bad.trace", lines)), "--panel")
    assert (proc.returncode, proc.stdout) == (INVALID, ""), proc.stderr
    assert "line 2" in proc.stderr and "cvcclock panel" not in proc.stdout
    lines[1] = '{"tick": 0, "input": "speed", "value": 1.0}'
    proc = run("replay", str(redigested(tmp_path / "long.trace", lines)), "--panel")
    assert (proc.returncode, proc.stdout) == (INVALID, ""), proc.stderr
    assert "a replay's work is bounded by its trace's size" in proc.stderr
@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_trace_that_never_ends_is_exit_two_in_bounded_time(capsys, monkeypatch):
    """/dev/zero was read until memory ran out; reading stops past MAX_TRACE_BYTES."""
    monkeypatch.setattr("cvcclock.cli.replay.MAX_TRACE_BYTES", 1000)
    assert main(["replay", "/dev/zero"]) == INVALID
    assert "/dev/zero, line 1: the file is longer than max_bytes=1000 bytes" in \
        capsys.readouterr().err


def test_a_trace_longer_than_the_bound_is_exit_two(trace_file, tmp_path, capsys, monkeypatch):
    assert main(["replay", str(trace_file)]) == MATCHED      # some 6 KB: within the bound
    capsys.readouterr()
    monkeypatch.setattr("cvcclock.cli.replay.MAX_TRACE_BYTES", 2000)
    assert main(["replay", str(trace_file)]) == INVALID
    assert "the file is longer than max_bytes=2000 bytes" in capsys.readouterr().err
