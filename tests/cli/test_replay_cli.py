"""``cvcclock demo --record/--plot`` and ``cvcclock replay``: what they print and exit with."""

import json
import subprocess
import sys

import pytest

from cvcclock.__main__ import main
from cvcclock.demo import SCRIPT, record_demo, replay_demo, trajectory_hash
from cvcclock.replay._trace import InputTrace

TIMEOUT = 120.0


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


def test_an_edited_kick_diverges_at_the_first_step_after_it(trace_file, tmp_path):
    lines = trace_file.read_text().splitlines()
    kick = next(i for i, line in enumerate(lines) if '"value": -2.0' in line)
    tick = json.loads(lines[kick])["tick"]
    lines[kick] = lines[kick].replace("-2.0", "-2.0000001")
    edited = tmp_path / "edited.trace"
    edited.write_text("\n".join(lines) + "\n")
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
