"""What users saved before the package moved into wings still loads, and compares equal.

The files in ``data/`` were written by ``make_fixtures.py`` with the package as it was
before the move (commit a26e96a): a batch results file (with a failed run), a replay trace,
a pickled ``ClockState`` and a pickled ``StepResult``. Each loads with today's package and
is ``==`` to what the same calls give today. ``demo_v1.trace`` is ``cvcclock demo --record``
at commit 82a1eee, the last trace format without a body digest (version 1).
"""

from __future__ import annotations

import pickle
from pathlib import Path

from compat_world import SEEDS, CompatCar, recorder_run, state_and_step

import cvcclock
from cvcclock.batch import FailedRun, read_results, simulate_many
from cvcclock.replay import FORMAT_VERSION, InputTrace, Replayer

DATA = Path(__file__).resolve().parent / "data"


def test_a_pickled_clock_state_loads_and_equals_todays():
    saved = pickle.loads((DATA / "clock_state.pickle").read_bytes())
    state, _ = state_and_step()
    assert type(saved) is cvcclock.ClockState
    assert saved == state


def test_a_pickled_step_result_loads_and_equals_todays():
    saved = pickle.loads((DATA / "step_result.pickle").read_bytes())
    _, step = state_and_step()
    assert type(saved) is cvcclock.StepResult
    assert saved == step and saved.dropped > 0


def test_a_trace_loads_equals_todays_and_replays_to_the_end(tmp_path):
    saved = InputTrace.load(DATA / "spring.trace")
    assert saved == recorder_run().trace()
    from cvcclock.demo import Spring

    clock = cvcclock.WorldClock(cvcclock.ClockConfig(fixed_dt=saved.header.fixed_dt))
    replayer = Replayer(Spring(), clock, saved)
    clock.advance_ticks(saved.end_tick - saved.header.start_tick)
    replayer.pump()
    assert replayer.done and replayer.divergences == []


def test_a_version_1_demo_trace_loads_equal_to_todays_recording():
    from cvcclock.demo import record_demo

    saved = InputTrace.load(DATA / "demo_v1.trace")
    assert saved.header.version == 1 and FORMAT_VERSION == 2
    assert saved == record_demo().trace


def test_a_results_file_reads_back_equal_to_todays_runs(tmp_path):
    saved = read_results(DATA / "batch.jsonl")
    today = list(simulate_many(CompatCar(), SEEDS, workers=1))
    assert [r.seed if isinstance(r, FailedRun) else r.run_seed for r in saved]  # both kinds
    assert any(isinstance(r, FailedRun) for r in saved)
    assert [comparable(r) for r in saved] == [comparable(r) for r in today]


def test_a_results_file_written_before_the_move_resumes_without_rerunning(tmp_path):
    out = tmp_path / "batch.jsonl"
    out.write_bytes((DATA / "batch.jsonl").read_bytes())
    before = out.read_bytes()
    resumed = list(simulate_many(CompatCar(), SEEDS, workers=1, out=out, keep="all"))
    assert out.read_bytes() == before                       # nothing run again
    assert [comparable(r) for r in resumed] == [comparable(r) for r in read_results(out)]


def comparable(result):
    """A failed run without its traceback, whose frames name the files the run ran in."""
    if isinstance(result, FailedRun):
        return (result.seed, result.error_type, result.message)
    return result
