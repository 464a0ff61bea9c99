"""simulate_many on process pools: results == serial runs, failures kept, nothing lost or doubled.

The scenarios are defined here, in a test module, on purpose: the workers (forkserver or
spawn, never fork) must import them by module and name. Every test is bounded in time by
the watchdog fixture; pools are shut down by simulate_many or by the test's ``with``.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import math
import multiprocessing
import os
import re
import subprocess
import sys
import textwrap
import threading

import pytest

from cvcclock.batch import refused, repair_results
from cvcclock.scenario import (
    FailedRun,
    SimulationResult,
    read_results,
    simulate,
    simulate_many,
    summarize,
)
from support.batch_scenarios import (
    POSIX_SIGNALS,
    CloseCall,
    DiesTimes,
    Doomed,
    Flaky,
    HomeSick,
    Kamikaze,
    Spaced,
    Stuck,
    assert_no_new_grandchildren,
    comparable,
    grandchildren,
    seeds_in_file,
    serial,
)
from support.idle_scenarios import Ends

# -- results --------------------------------------------------------------------------------


def test_a_pool_gives_the_serial_results_in_the_order_of_the_seeds(pool):
    seeds = [17, 3, 10, 0, 24, 5, 31, 2, 8, 13, 1, 20]        # not sorted: the order given is kept
    got = list(simulate_many(Flaky(), seeds, executor=pool))
    assert [r.seed for r in got] == seeds
    assert comparable(got) == comparable(serial(Flaky(), seeds))
    failed = [r for r in got if isinstance(r, FailedRun)]
    assert {17, 3, 10, 24, 31} <= {r.seed for r in failed}     # seed % 7 == 3, and some resamples
    assert failed[0].error_type == "ZeroDivisionError"
    assert failed[0].message == "seed 17 divides by zero"
    assert "raise ZeroDivisionError" in failed[0].traceback and "in setup" in failed[0].traceback
    assert any(r.rejections for r in got if isinstance(r, SimulationResult))


def test_a_spawned_pool_from_a_factory_and_any_chunk_size_give_the_same_results():
    seeds = range(30)
    expected = comparable(serial(Flaky(), seeds, max_steps=40))

    def spawned():
        return cf.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn"))
    assert comparable(simulate_many(Flaky(), seeds, executor=spawned, chunk_size=7,
                                    max_steps=40)) == expected
    with cf.ThreadPoolExecutor(3) as threads:      # an executor of the caller's: used and left open
        assert comparable(simulate_many(Flaky(), seeds, executor=threads, chunk_size=1,
                                        max_steps=40)) == expected
        assert threads.submit(int, "5").result(timeout=10) == 5


def test_numpy_seeds_and_an_empty_batch():
    import numpy

    with cf.ThreadPoolExecutor(2) as threads:
        got = list(simulate_many(CloseCall(), numpy.arange(3, 6), executor=threads))
        assert got == serial(CloseCall(), [3, 4, 5])
        assert list(simulate_many(CloseCall(), [], executor=threads)) == []


def test_out_file_holds_exactly_what_was_yielded(pool, tmp_path):
    out = tmp_path / "runs.jsonl"
    seeds = range(20)
    got = list(simulate_many(Flaky(), seeds, executor=pool, out=out, keep="all"))
    assert comparable(got) == comparable(serial(Flaky(), seeds))
    assert read_results(out) == got                      # failed runs' tracebacks included
    assert len(out.read_bytes().splitlines()) == 20
    pandas = pytest.importorskip("pandas")
    frame = pandas.read_json(out, lines=True)
    assert sorted(frame["seed"]) == list(seeds)
    assert set(frame["status"]) == {"completed", "failed"}


# -- nothing lost -----------------------------------------------------------------------------


@POSIX_SIGNALS
def test_a_killed_worker_costs_nothing(tmp_path):
    marker = tmp_path / "killed"
    scenario = Kamikaze(victim=9, marker=marker)
    seeds = range(24)
    got = list(simulate_many(scenario, seeds, workers=2, out=tmp_path / "runs.jsonl", keep="all"))
    assert marker.exists() and int(marker.read_text()) != os.getpid()     # a worker did die
    assert got == serial(scenario, seeds)
    assert seeds_in_file(tmp_path / "runs.jsonl") == list(seeds)          # each seed exactly once


@POSIX_SIGNALS
def test_a_seed_that_always_kills_its_worker_fails_alone():
    before = grandchildren()
    seeds = range(16)
    got = list(simulate_many(Doomed(victim=5), seeds, workers=2))
    assert [r.seed for r in got] == list(seeds)
    dead = got[5]
    assert isinstance(dead, FailedRun)
    assert dead.error_type == "concurrent.futures.process.BrokenProcessPool"
    assert "died each time it ran seed 5 (alone, 3 times)" in dead.message
    assert got[:5] + got[6:] == serial(Doomed(victim=5), [s for s in seeds if s != 5])
    assert_no_new_grandchildren(before)


@POSIX_SIGNALS
@pytest.mark.parametrize("victims, times", [((4,), 3), ((1, 3, 5, 7, 9, 11, 13, 15), 1)])
def test_a_seed_whose_worker_died_is_retried_alone_and_a_transient_death_costs_nothing(
        tmp_path, victims, times):
    """(4,), 3: seed 4's worker dies in a chunk twice, then once alone: retried, it
    completes. Eight seeds that each kill a worker once: none fails."""
    before = grandchildren()
    scenario = DiesTimes(victims, times, tmp_path)
    seeds = range(16)
    got = list(simulate_many(scenario, seeds, workers=2))
    assert [scenario.deaths(seed) for seed in victims] == [times] * len(victims)   # they died
    assert got == serial(scenario, seeds)                       # and nothing failed
    assert_no_new_grandchildren(before)


@POSIX_SIGNALS
def test_a_stuck_run_times_out_its_worker_is_replaced_and_the_batch_goes_on(tmp_path):
    before = grandchildren()
    out = tmp_path / "runs.jsonl"
    seeds = range(12)
    got = list(simulate_many(Stuck(victim=4), seeds, workers=2, run_timeout=1.5, out=out,
                              keep="all"))
    stuck = got[4]
    assert isinstance(stuck, FailedRun) and stuck.error_type == "TimeoutError"
    assert stuck.message.startswith("seed 4 timed out: its run went on longer than "
                                    "run_timeout=1.5 s (stopped after ")
    assert got[:4] + got[5:] == serial(Stuck(victim=4), [s for s in seeds if s != 4])
    assert read_results(out) == got
    assert_no_new_grandchildren(before)
    # the rerun reads the timed-out seed from the file: it does not hang on it again
    assert list(simulate_many(Stuck(victim=4), seeds, workers=2, run_timeout=1.5,
                              out=out, keep="all")) == got


def test_a_result_that_will_not_unpickle_here_fails_its_seed_only(pool, tmp_path):
    out = tmp_path / "runs.jsonl"
    seeds = range(8)
    scenario = HomeSick(victim=3, home=os.getpid())
    got = list(simulate_many(scenario, seeds, executor=pool, out=out, keep="all"))
    failed = got[3]
    assert isinstance(failed, FailedRun) and failed.error_type == "RuntimeError"
    assert failed.message == ("the result of seed 3 was pickled in its worker but cannot be "
                              "unpickled here: RuntimeError: this value does not load in the "
                              "batch's process")
    assert got[:3] + got[4:] == serial(scenario, [s for s in seeds if s != 3])
    assert read_results(out) == got                 # the file holds the failed run, readable


def test_breaking_out_then_rerunning_gives_each_seed_once(pool, tmp_path):
    out = tmp_path / "runs.jsonl"
    seeds = range(40)
    uninterrupted = list(simulate_many(Flaky(), seeds, executor=pool, out=tmp_path / "whole.jsonl"))
    first = []
    for result in simulate_many(Flaky(), seeds, executor=pool, out=out):
        first.append(result)
        if len(first) == 12:
            break
    recorded = seeds_in_file(out)
    assert len(recorded) >= 12 and len(set(recorded)) == len(recorded)
    reports = []
    again = list(simulate_many(Flaky(), seeds, executor=pool, out=out,
                               progress=lambda done, total, failed: reports.append(done)))
    assert reports[0] == len(recorded)                   # the rerun started from what was saved
    assert again == uninterrupted
    assert first == uninterrupted[:12]
    assert seeds_in_file(out) == list(seeds)
    assert read_results(out) == read_results(tmp_path / "whole.jsonl")


def test_a_batch_takes_an_infinite_time_limit_and_resumes_its_file(tmp_path):
    out = tmp_path / "runs.jsonl"
    with cf.ThreadPoolExecutor(1) as threads:
        first = list(simulate_many(Ends(12), [0, 1], executor=threads, out=out,
                                   time_limit=math.inf, keep="all"))
        both = list(simulate_many(Ends(12), [0, 1, 2], executor=threads, out=out,
                                  time_limit=math.inf, keep="all"))
    assert all(isinstance(r, SimulationResult) and r.steps == 12 for r in both)
    assert both[:2] == first and both == [simulate(Ends(12), seed=s) for s in (0, 1, 2)]
    assert '"options":{"time_limit":{"$float":"inf"}}' in out.read_text().splitlines()[0]
    assert [r.seed for r in read_results(out)] == [0, 1, 2]     # three runs, none twice


def test_a_progress_callback_that_raises_stops_the_batch_and_a_rerun_finishes_it(pool, tmp_path):
    out = tmp_path / "runs.jsonl"
    seeds = range(40)

    class Stop(Exception):
        pass

    def stop_at_ten(done, total, failed):
        assert total == 40
        if done >= 10:
            raise Stop

    with pytest.raises(Stop):
        for _ in simulate_many(Flaky(), seeds, executor=pool, out=out, progress=stop_at_ten):
            pass
    assert 10 <= len(seeds_in_file(out)) < 40
    reports = []
    again = list(simulate_many(Flaky(), seeds, executor=pool, out=out, keep="all",
                               progress=lambda *counts: reports.append(counts)))
    assert comparable(again) == comparable(serial(Flaky(), seeds))
    failures = sum(isinstance(r, FailedRun) for r in again)
    assert reports[-1] == (40, 40, failures)
    assert seeds_in_file(out) == list(seeds)


def test_a_partial_last_line_is_skipped_by_the_reader_and_redone_by_a_rerun(pool, tmp_path):
    out = tmp_path / "runs.jsonl"
    seeds = range(10)
    whole = list(simulate_many(CloseCall(), seeds, executor=pool, out=out, keep="all"))
    data = out.read_bytes()
    start = data.rstrip(b"\n").rfind(b"\n") + 1
    cut = start + 100                                     # the crash: 100 bytes into the last line
    out.write_bytes(data[:cut])
    lost = json.loads(data[start:])["seed"]
    assert read_results(out) == [r for r in whole if r.seed != lost]
    reports = []
    again = list(simulate_many(CloseCall(), seeds, executor=pool, out=out, keep="all",
                               progress=lambda done, total, failed: reports.append(done)))
    assert reports[0] == 9
    assert again == whole
    assert out.read_bytes() == data                      # the partial line was replaced, not kept
    out.write_bytes(data[:cut])
    pandas = pytest.importorskip("pandas")
    with pytest.raises(ValueError):
        pandas.read_json(out, lines=True)                # why read_results is there


def test_an_out_file_of_another_batch_is_refused_untouched(pool, tmp_path):
    out = tmp_path / "runs.jsonl"
    list(simulate_many(CloseCall(), range(3), executor=pool, out=out))
    before = out.read_bytes()
    with pytest.raises(ValueError, match=r"holds results of another batch \(line 1, seed \d\): "
                       "the scenario: support.batch_scenarios:CloseCall there, "
                       "support.batch_scenarios:Flaky here"):
        next(simulate_many(Flaky(), range(3), executor=pool, out=out))
    with pytest.raises(ValueError, match=r"option max_steps: not set there, 5 here"):
        next(simulate_many(CloseCall(), range(3), executor=pool, out=out, max_steps=5))
    other = tmp_path / "notes.txt"
    other.write_text("my notes\nnot results")
    with pytest.raises(ValueError, match=r"line 1: not a cvcclock results record"):
        next(simulate_many(CloseCall(), range(3), executor=pool, out=other))
    assert out.read_bytes() == before and other.read_text() == "my notes\nnot results"


def test_an_out_file_is_keyed_by_the_scenarios_attributes_and_time_step(pool, tmp_path):
    out = tmp_path / "runs.jsonl"
    first = list(simulate_many(Spaced(20.0), range(4), executor=pool, out=out, keep="all"))
    before = out.read_bytes()
    with pytest.raises(ValueError, match=r"holds results of another batch \(line 1, seed \d\): "
                       r"the scenario's attribute gap: 20.0 there, 25.0 here\. Give this batch "
                       "another out file"):
        next(simulate_many(Spaced(25.0), range(4), executor=pool, out=out))
    with pytest.raises(ValueError, match="the scenario's attribute gap: 20.0 there, 20 here"):
        next(simulate_many(Spaced(20), range(4), executor=pool, out=out))   # int, not float
    finer = Spaced(20.0)
    finer.dt = 0.05
    with pytest.raises(ValueError, match=r"dt: 0.1 there, 0.05 here; the scenario's attribute "
                       r"dt: not set there, 0.05 here"):
        next(simulate_many(finer, range(4), executor=pool, out=out))
    assert out.read_bytes() == before
    again = list(simulate_many(Spaced(20.0), range(6), executor=pool, out=out,  # the same: reused
                               keep="all"))
    assert again[:4] == first and again == serial(Spaced(20.0), range(6))
    assert out.read_bytes().startswith(before)


def test_a_line_of_the_first_format_resumes_only_a_scenario_without_attributes(pool, tmp_path):
    """Version 1 lines (no key) are read; they resume a batch only if it has nothing more
    to say than they do (no instance attributes), and are refused, saying so, otherwise."""
    out = tmp_path / "runs.jsonl"
    old = ('{"seed":0,"status":"failed","scenario":"support.batch_scenarios:Spaced",'
           '"options":{},"version":1,"error_type":"ZeroDivisionError","message":"old",'
           '"traceback":"Traceback"}\n')
    out.write_text(old)
    assert read_results(out) == [FailedRun(0, "ZeroDivisionError", "old", "Traceback")]
    with pytest.raises(ValueError, match=r"the scenario's attributes \(gap\): that line, "
                       "written by an older cvcclock, does not record them"):
        next(simulate_many(Spaced(20.0), range(2), executor=pool, out=out))
    assert out.read_text() == old


def damage(out, number, old, new):
    """Line ``number`` (from 1) of ``out`` with ``old`` replaced by ``new`` once."""
    lines = out.read_bytes().splitlines(keepends=True)
    assert old in lines[number - 1]
    lines[number - 1] = lines[number - 1].replace(old, new, 1)
    out.write_bytes(b"".join(lines))
    return lines[number - 1]


def test_a_damaged_middle_record_is_named_and_repair_moves_it_aside(pool, tmp_path):
    out = tmp_path / "runs.jsonl"
    seeds = range(10)
    whole = list(simulate_many(CloseCall(), seeds, executor=pool, out=out))
    flipped = damage(out, 4, b'"steps":60', b'"steps":61')      # still valid JSON
    broken = damage(out, 7, b'"records":{', b'"records":[')       # no longer JSON
    name = re.escape(str(out))
    for call in (lambda: next(simulate_many(CloseCall(), seeds, executor=pool, out=out)),
                 lambda: read_results(out)):
        with pytest.raises(ValueError, match=rf"^{name}, line 4: a damaged results record "
                           r"\(its checksum does not match: a byte of it changed\) and 1 more; "
                           rf"repair_results\('{name}'\) \(the batch command's --repair\)"):
            call()
    repair = repair_results(out)
    assert repair.rejected == f"{out}.rejected" and repair.kept == 8
    assert [number for number, _ in repair.lines] == [4, 7]
    assert (tmp_path / "runs.jsonl.rejected").read_bytes() == flipped + broken
    again = list(simulate_many(CloseCall(), seeds, executor=pool, out=out))
    assert again == whole                               # the two seeds ran again
    assert seeds_in_file(out) == list(seeds)
    assert repair_results(out).lines == ()              # nothing more to move


def test_a_refusal_says_so_and_an_error_from_elsewhere_does_not(pool, tmp_path):
    """refused(e): the call was wrong (fix the call); anything else keeps its traceback."""
    out = tmp_path / "runs.jsonl"
    list(simulate_many(CloseCall(), range(3), executor=pool, out=out))
    refusals = [
        lambda: simulate_many(CloseCall(), [1], workers=0),                      # an argument
        lambda: next(simulate_many(Flaky(), range(3), executor=pool, out=out)),  # another's file
        lambda: next(simulate_many(CloseCall(), [1], executor=lambda: 5)),       # no executor
    ]
    for call in refusals:
        with pytest.raises((TypeError, ValueError)) as caught:
            call()
        assert refused(caught.value), caught.value

    def broken_progress(done, total, failed):
        raise ValueError("a bug in the caller's callback")

    with pytest.raises(ValueError, match="a bug in the caller's callback") as caught:
        list(simulate_many(CloseCall(), range(2), executor=pool, progress=broken_progress))
    assert not refused(caught.value)


@pytest.mark.skipif(sys.platform == "win32", reason="no advisory file lock on Windows (documented)")
def test_two_batches_cannot_write_one_file(tmp_path):
    out = tmp_path / "runs.jsonl"
    with cf.ThreadPoolExecutor(1) as threads:
        first = simulate_many(CloseCall(), range(5), executor=threads, out=out)
        next(first)
        with pytest.raises(RuntimeError, match="being written by another batch"):
            next(simulate_many(CloseCall(), range(5), executor=threads, out=out))
        assert len(list(first)) == 4
        assert len(list(simulate_many(CloseCall(), range(5), executor=threads, out=out))) == 5


def test_a_scenario_defined_in_main_runs_on_a_pool(tmp_path):
    pytest.importorskip("cloudpickle")
    script = textwrap.dedent("""
        from cvcclock.scenario import Scenario, Vehicle, simulate, simulate_many

        class Parked(Scenario):
            def setup(self, s):
                car = s.add_agent("car", Vehicle(x=s.rng.uniform(0, 1)))
                s.record_final("x", lambda: car.x)

        if __name__ == "__main__":
            got = list(simulate_many(Parked(), range(4), workers=1, max_steps=3))
            assert got == [simulate(Parked(), seed=s, max_steps=3) for s in range(4)], got
            print("same")
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "same"


# -- arguments -----------------------------------------------------------------------------


@pytest.mark.parametrize("call, error, match", [
    (lambda: simulate_many(CloseCall, range(3)), TypeError, "scenario must be a Scenario instance"),
    (lambda: simulate_many(CloseCall(), 5), TypeError, "seeds must be an iterable of ints, got 5"),
    (lambda: simulate_many(CloseCall(), "012"), TypeError, "seeds must be an iterable"),
    (lambda: simulate_many(CloseCall(), [1, True]), TypeError,
     r"seeds\[1\] must be an integer, got True"),
    (lambda: simulate_many(CloseCall(), [1.0]), TypeError,
     r"seeds\[0\] must be an integer, got 1.0"),
    (lambda: simulate_many(CloseCall(), [1, -1]), ValueError, r"seeds\[1\] must be >= 0, got -1"),
    (lambda: simulate_many(CloseCall(), [1, 2, 1]), ValueError, r"distinct.*repeated: \[1\]"),
    (lambda: simulate_many(CloseCall(), [1], workers=0), ValueError, "workers.*0"),
    (lambda: simulate_many(CloseCall(), [1], workers=1.5), TypeError, "workers.*1.5"),
    (lambda: simulate_many(CloseCall(), [1], workers=2, executor=cf.ThreadPoolExecutor), ValueError,
     "workers=2 sizes the default process pool"),
    (lambda: simulate_many(CloseCall(), [1], executor="tcp://x:1"), TypeError, "executor must be"),
    (lambda: simulate_many(CloseCall(), [1], chunk_size=0), ValueError, "chunk_size.*0"),
    (lambda: simulate_many(CloseCall(), [1], out=3), TypeError, "out must be a path"),
    (lambda: simulate_many(CloseCall(), [1], progress="yes"), TypeError, "progress must be"),
    (lambda: simulate_many(CloseCall(), [1], max_steps=-1), ValueError, "max_steps.*-1"),
    (lambda: simulate_many(CloseCall(), [1], max_steps=True), TypeError, "max_steps.*True"),
    (lambda: simulate_many(CloseCall(), [1], time_limit=float("nan")), ValueError,
     "time_limit.*nan"),
    (lambda: simulate_many(CloseCall(), [1], max_iterations=0), ValueError, "max_iterations.*0"),
    (lambda: simulate_many(CloseCall(), [1], raise_guard_violations=1), TypeError,
     "raise_guard_violations"),
    (lambda: simulate_many(CloseCall(), [1], trace=print), TypeError,
     "trace=.*would run in the worker"),
    (lambda: simulate_many(CloseCall(), [1], simulator=list), TypeError,
     "override the scenario's simulator"),
    (lambda: simulate_many(CloseCall(), [1], seed=3), TypeError,
     "seeds are simulate_many's second argument"),
    (lambda: simulate_many(CloseCall(), [1], max_step=3), TypeError, "max_step=3.*passes on only"),
    (lambda: simulate_many(CloseCall(), [1], run_timeout=0), ValueError,
     r"run_timeout must be > 0 seconds \(or None for no limit\), got 0"),
    (lambda: simulate_many(CloseCall(), [1], run_timeout=-1.0), ValueError, "run_timeout.*-1.0"),
    (lambda: simulate_many(CloseCall(), [1], run_timeout="5"), TypeError, "run_timeout.*'5'"),
    (lambda: simulate_many(CloseCall(), [1], run_timeout=5, executor=cf.ThreadPoolExecutor),
     ValueError, "run_timeout=5.0 needs the default process pool or a Dask client"),
])
def test_bad_arguments_are_refused_before_anything_runs(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_a_scenario_that_cannot_be_pickled_is_refused():
    scenario = CloseCall()
    scenario.lock = threading.Lock()
    with pytest.raises(TypeError, match="cannot be pickled to send it to worker processes"):
        simulate_many(scenario, range(3))


def test_a_scenario_class_made_by_exec_or_in_a_function_goes_by_value(pool):
    pytest.importorskip("cloudpickle")
    namespace = {}
    exec(textwrap.dedent("""
        from cvcclock.scenario import Scenario, Vehicle

        class Parked(Scenario):
            def setup(self, s):
                car = s.add_agent("car", Vehicle(x=s.rng.uniform(0, 1)))
                s.record_final("x", lambda: car.x)
    """), namespace)
    scenario = namespace["Parked"]()
    scenario.offset = lambda x: x + 1          # an attribute plain pickle refuses
    assert type(scenario).__module__ == "builtins"
    got = list(simulate_many(scenario, range(4), executor=pool, max_steps=2))
    assert got == serial(scenario, range(4), max_steps=2)


def test_a_scenario_workers_cannot_load_ends_the_batch_with_the_reason():
    with cf.ThreadPoolExecutor(1) as threads:
        batch = simulate_many(Unloadable(), range(3), executor=threads)
        with pytest.raises(RuntimeError, match="cannot be loaded") as caught:
            next(batch)
    assert any("not by a run" in note for note in caught.value.__notes__)


class Unloadable(CloseCall):
    def __reduce__(self):
        return (_refuse, ())


def _refuse():
    raise RuntimeError("this scenario cannot be loaded")


# -- progress and summary --------------------------------------------------------------------


def test_progress_is_silent_off_a_terminal_and_a_bar_when_asked(capsys):
    with cf.ThreadPoolExecutor(1) as threads:
        list(simulate_many(CloseCall(), range(3), executor=threads))
        assert capsys.readouterr().out == ""                       # stdout is not a terminal here
        list(simulate_many(CloseCall(), range(3), executor=threads, progress=False))
        assert capsys.readouterr().out == ""
        pytest.importorskip("tqdm")
        list(simulate_many(Flaky(), range(8), executor=threads, progress=True))
        bar = capsys.readouterr().out
        assert "8/8" in bar and "failed=2" in bar


def test_the_summary_counts_and_describes_the_batch(pool):
    results = list(simulate_many(Flaky(), range(30), executor=pool, max_steps=40))
    summary = summarize(results)
    completed = [r for r in results if isinstance(r, SimulationResult)]
    failed = [r for r in results if isinstance(r, FailedRun)]
    assert (summary.runs, summary.completed, summary.failed) == (30, len(completed), len(failed))
    assert summary.failures == {"ZeroDivisionError": len(failed)}
    assert summary.failed_seeds == tuple(r.seed for r in failed)
    by_type = {}
    for r in completed:
        by_type[r.termination_type.value] = by_type.get(r.termination_type.value, 0) + 1
    assert summary.by_termination == by_type
    rejected = sum(r.rejections for r in completed)
    assert summary.rejected == rejected > 0
    assert summary.rejection_rate == rejected / (rejected + len(completed))
    gaps = [gap for r in completed for _, gap in r.records["gap"]]
    stats = {s.name: s for s in summary.statistics}
    assert list(stats) == ["steps", "final lead speed", "gap (per step)"]
    gap = stats["gap (per step)"]
    assert gap.count == len(gaps) and (gap.min, gap.max) == (min(gaps), max(gaps))
    assert gap.mean == pytest.approx(sum(gaps) / len(gaps), rel=1e-12)
    numpy = pytest.importorskip("numpy")
    assert gap.std == pytest.approx(numpy.std(gaps, ddof=1), rel=1e-9)
    table = str(summary)
    assert "  failed" in table and "ZeroDivisionError" in table and "rejection rate" in table
    assert "gap (per step)" in table
    pandas = pytest.importorskip("pandas")
    frame = summary.to_frame()
    assert frame.loc[("runs", "failed"), "count"] == len(failed)
    assert frame.loc[("attempts", "rejected"), "mean"] == pytest.approx(summary.rejection_rate)
    assert frame.loc[("statistic", "gap (per step)"), "max"] == max(gaps)
    assert isinstance(frame, pandas.DataFrame)
    assert summarize(iter(results)) == summary


def test_summarize_refuses_other_items():
    with pytest.raises(TypeError, match="SimulationResult and FailedRun items, got 3"):
        summarize([3])
