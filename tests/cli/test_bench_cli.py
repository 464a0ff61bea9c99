"""``python -m cvcclock bench``: the table, its JSON, skipped peers and bad options; and that
the cases it times compute what their labels claim.

Nothing here judges a figure (the benchmarks are not timed tests): the runs are tiny
(``--number 50 --repeat 2 --clocks 100``) and the checks are on shape and honesty.
"""

import json
import random
import re
import subprocess
import sys

import pytest

from cvcclock import ClockConfig, Mode, WorldClock
from cvcclock.__main__ import main
from cvcclock.bench import GOALS, run_bench
from cvcclock.bench._cases import (
    QUANTUM,
    WALL_DT,
    FixYourTimestep,
    NumpyBank,
    idle_plus_one_clock,
    staggered_clock,
    table_cases,
)

TINY = ["--number", "50", "--repeat", "2", "--clocks", "100"]
ROW_FIELDS = {"key", "label", "unit", "stmt", "ops", "executions", "floor", "rival",
              "samples_ns", "median_ns", "q1_ns", "q3_ns", "min_ns", "max_ns", "x_floor",
              "x_rival"}
PEER_MODULES = ("arcade", "arcade.clock", "pyglet", "pyglet.clock", "simpy")


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """One tiny run of the command with ``--json``: its status, stdout and JSON document."""
    path = tmp_path_factory.mktemp("bench") / "figures.json"
    proc = subprocess.run([sys.executable, "-m", "cvcclock", "bench", *TINY, "--json",
                           str(path)], capture_output=True, text=True, timeout=120)
    return proc, json.loads(path.read_text(encoding="utf-8"))


def test_the_table_prints_every_row_or_says_it_was_skipped(tiny_run):
    proc, report = tiny_run
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    measured = [row["label"] for row in report["rows"]]
    skipped = [label for skip in report["skipped"] for label in skip["labels"]]
    assert sorted(measured + skipped) == sorted(c.label for c in table_cases(100))
    for label in measured:
        assert any(line.startswith(label) for line in lines), label
    for skip in report["skipped"]:
        assert any(line.startswith(f"skipped, {skip['needs']} unavailable") and
                   all(label in line for label in skip["labels"]) for line in lines)
    for goal in GOALS:
        assert any(goal.text in line for line in lines), goal.text


def test_the_json_holds_the_machine_the_samples_and_the_ratios(tiny_run):
    _, report = tiny_run
    assert set(report) == {"machine", "settings", "rows", "skipped", "goals"}
    assert report["settings"] == {"number": 50, "repeat": 2, "clocks": 100}
    assert {"platform", "python", "cpus", "cvcclock", "packages"} <= set(report["machine"])
    keys = {row["key"] for row in report["rows"]}
    for row in report["rows"]:
        assert set(row) == ROW_FIELDS
        assert len(row["samples_ns"]) == 2 and all(ns > 0 for ns in row["samples_ns"])
        assert row["min_ns"] <= row["q1_ns"] <= row["median_ns"] <= row["q3_ns"] <= row["max_ns"]
        assert row["ops"] * row["executions"] >= min(50, row["ops"])
        if row["floor"] is None:
            assert row["x_floor"] == 1.0
        else:
            assert row["floor"] in keys and row["x_floor"] > 0
        assert (row["x_rival"] is None) == (row["rival"] not in keys)
    for goal in report["goals"]:
        measured = set(goal["rows"]) <= keys
        assert (goal["figure"] is not None) == measured
        assert goal["met"] in ((True, False) if measured else (None,))


def test_a_ratio_is_the_median_of_the_per_round_ratios(tiny_run):
    _, report = tiny_run
    rows = {row["key"]: row for row in report["rows"]}
    advance, floor = rows["advance"]["samples_ns"], rows["floor1"]["samples_ns"]
    per_round = sorted(a / f for a, f in zip(advance, floor, strict=True))
    assert rows["advance"]["x_floor"] == pytest.approx(sum(per_round) / 2)


def test_a_missing_peer_is_skipped_and_named_with_the_reason(monkeypatch, capsys):
    for name in PEER_MODULES:       # None in sys.modules: "import name" raises ImportError
        monkeypatch.setitem(sys.modules, name, None)
    report = run_bench(50, 1, clocks=100)
    out = capsys.readouterr().out
    needs = {skip["needs"]: skip for skip in report["skipped"]}
    assert set(needs) == {"arcade", "pyglet", "simpy"}
    peer_rows = {c.key for c in table_cases(100) if c.needs in ("arcade", "pyglet", "simpy")}
    assert peer_rows == {key for skip in report["skipped"] for key in skip["keys"]}
    assert not peer_rows & {row["key"] for row in report["rows"]}
    for peer in ("arcade", "pyglet", "simpy"):
        line = next(line for line in out.splitlines() if line.startswith(f"skipped, {peer} "))
        assert needs[peer]["reason"] in line and "arcade Clock.tick" in out
    assert "advance" in {row["key"] for row in report["rows"]}


def test_the_bench_needs_neither_pytest_nor_a_display():
    code = ("import sys; from cvcclock.__main__ import main; "
            f"main(['bench', *{TINY!r}]); "
            "assert not {'pytest', 'pytest_benchmark'} & set(sys.modules), sorted(sys.modules)")
    env = {"PATH": "/usr/bin:/bin"}          # no DISPLAY, no WAYLAND_DISPLAY
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "binding.drive(1/60)" in proc.stdout


@pytest.mark.parametrize("argv", [["--number", "0"], ["--repeat", "-1"], ["--clocks", "0"],
                                  ["--number", "abc"], ["--repeat", "2.5"],
                                  ["--clocks", "1e6"]])
def test_a_bad_count_exits_2_naming_the_option_and_the_value(argv, capsys):
    with pytest.raises(SystemExit) as exit:
        main(["bench", *argv])
    assert exit.value.code == 2
    error = capsys.readouterr().err.splitlines()[-1]
    assert argv[0] in error and (repr(argv[1]) in error or f"got {argv[1]}" in error), error
    assert not re.search(r"\b_\w", error), "an internal name leaked: " + error


def test_an_unwritable_json_path_exits_2_before_measuring(tmp_path, capsys):
    """A file that cannot be written is not a usage error: one line, no usage text."""
    path = tmp_path / "no such folder" / "figures.json"
    assert main(["bench", "--json", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (f"cvcclock bench: --json: cannot write {str(path)!r}: "
                            "No such file or directory\n")


@pytest.mark.parametrize("kwargs, error, message", [
    ({"number": 0}, ValueError, "number must be >= 1, got 0"),
    ({"repeat": 0}, ValueError, "repeat must be >= 1, got 0"),
    ({"clocks": -3}, ValueError, "clocks must be >= 1, got -3"),
    ({"number": 2.5}, TypeError, "number must be an integer, got 2.5"),
    ({"clocks": True}, TypeError, "clocks must be an integer"),
])
def test_run_bench_refuses_a_bad_count_naming_it(kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        run_bench(**kwargs)


# ---- the cases compute what they claim -----------------------------------------------------

def test_the_numpy_version_is_the_clocks_arithmetic():
    rng = random.Random(13)
    configs = [ClockConfig(fixed_dt=rng.choice([1e-3, QUANTUM, 0.01, 0.1]),
                           scale=rng.choice([0.0, 0.5, 1.0, 2.5, 40.0]),
                           max_steps_per_advance=rng.randint(1, 9),
                           cap_scales_with_rate=rng.random() < 0.5,
                           lockstep_steps=rng.randint(1, 4)) for _ in range(60)]
    modes = [rng.choice([Mode.LIVE, Mode.LIVE, Mode.LOCKSTEP, Mode.PAUSED]) for _ in configs]
    clocks = [WorldClock(config) for config in configs]
    bank = NumpyBank(len(clocks))
    for i, (clock, config, mode) in enumerate(zip(clocks, configs, modes, strict=True)):
        clock.mode = mode
        bank.scale[i], bank.fixed_dt[i] = config.scale, config.fixed_dt
        bank.max_steps[i], bank.cap_scales[i] = (config.max_steps_per_advance,
                                                 config.cap_scales_with_rate)
        bank.lockstep_steps[i] = config.lockstep_steps
        bank.mode[i] = {Mode.LIVE: bank.LIVE, Mode.LOCKSTEP: bank.LOCKSTEP}.get(mode,
                                                                                bank.PAUSED)
    for _ in range(80):
        wall_dt = rng.choice([0.0, WALL_DT, 0.013, 0.25])
        steps = bank.advance(wall_dt)
        for i, clock in enumerate(clocks):
            assert steps[i] == clock.advance(wall_dt).steps
            state = clock.state()
            assert (bank.tick[i], bank.total_dropped[i], bank.frame[i]) == (
                state.tick, state.total_dropped, state.frame)
            assert (bank.bank[i], bank.window_wall[i], bank.window_ticks[i]) == (
                state.bank, state.window_wall, state.window_ticks)
            if state.window_done:
                assert bank.realized[i] == state.realized
    assert {int(t) for t in bank.total_dropped} != {0}    # the cap and the drop were exercised


def test_the_hand_written_accumulator_runs_what_advance_runs():
    hand, clock = FixYourTimestep(QUANTUM), WorldClock(ClockConfig(fixed_dt=QUANTUM))
    for wall_dt in [WALL_DT] * 50 + [0.2, 0.003, 0.0, 0.05]:
        mine, core = hand.advance(wall_dt), clock.advance(wall_dt)
        assert (mine.steps, mine.dropped) == (core.steps, core.dropped)
        assert mine.alpha == pytest.approx(core.alpha, abs=1e-9)


@pytest.mark.parametrize("make", [staggered_clock, idle_plus_one_clock])
def test_the_many_timer_clocks_fire_once_a_quantum(make):
    clock = make(500)
    assert clock.next_due_tick == clock.tick + 1
    assert sum(s.timer.fired for s in clock.state().timers) == 0   # none fired in the making
    clock.advance_ticks(1000)
    assert sum(s.timer.fired for s in clock.state().timers) == 1000
