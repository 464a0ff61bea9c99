"""simulate_many's ``keep``: what of each run crosses back to the batch's process.

Without ``out`` a batch keeps everything by default (each result ``==`` to ``simulate``'s);
with ``out`` it keeps the summary by default (``keep="records"`` adds the per-step
records, ``keep="all"`` keeps everything), and the file holds every result whole. Whatever
is kept, a resumed batch yields the same as a fresh one.
"""

from __future__ import annotations

import concurrent.futures as cf
import gc
import pickle

import pytest

from cvcclock.batch import KeptResult, read_results, refused, simulate_many, summarize
from cvcclock.batch._records import kept, run_records
from cvcclock.checks import check_keep
from cvcclock.scenario import FailedRun, SimulationResult, simulate
from support.batch_scenarios import CloseCall, Flaky, comparable, serial


def without(results, *parts):
    """The results with ``parts`` ("records", "trajectory") emptied, as a batch keeps them."""
    keep = frozenset({"records", "trajectory"} - set(parts))
    return [kept(r, keep) for r in results]


def test_kept_empties_what_is_not_kept_and_keeps_the_rest_and_the_steps():
    whole = simulate(CloseCall(), seed=4)
    summary = kept(whole, frozenset())
    assert isinstance(summary, KeptResult) and isinstance(summary, SimulationResult)
    assert (summary.records, summary.trajectory, summary.actions) == ({}, (), ())
    assert summary.steps == summary.run_steps == whole.steps == 60
    assert summary.kept == frozenset()
    for name in ("records_initial", "records_final", "termination_type", "termination_reason",
                 "seed", "run_seed", "rejections", "rejection_reasons", "dt"):
        assert getattr(summary, name) == getattr(whole, name), name
    records = kept(whole, frozenset({"records"}))
    assert records.records == whole.records and records.trajectory == ()
    trajectory = kept(whole, frozenset({"trajectory"}))
    assert (trajectory.trajectory, trajectory.actions) == (whole.trajectory, whole.actions)
    assert trajectory.records == {} and kept(whole, frozenset({"records", "trajectory"})) is whole
    assert pickle.loads(pickle.dumps(records)) == records


def test_with_out_the_default_keeps_the_summary_and_the_file_everything(pool, tmp_path):
    out = tmp_path / "runs.jsonl"
    got = list(simulate_many(Flaky(), range(6), executor=pool, out=out))
    whole = serial(Flaky(), range(6))
    assert comparable(got) == comparable(without(whole, "records", "trajectory"))
    assert all(r.records_final for r in got if isinstance(r, SimulationResult))
    assert comparable(read_results(out)) == comparable(whole)
    everything = list(simulate_many(Flaky(), range(6), executor=pool, out=out, keep="all"))
    assert comparable(everything) == comparable(whole)


def test_with_out_records_keeps_summary_and_records_and_the_file_everything(pool, tmp_path):
    out = tmp_path / "runs.jsonl"
    seeds = range(16)
    got = list(simulate_many(Flaky(), seeds, executor=pool, out=out, keep="records"))
    whole = serial(Flaky(), seeds)
    assert comparable(got) == comparable(without(whole, "trajectory"))
    assert all(r.trajectory == () and r.actions == () and r.records
               for r in got if isinstance(r, SimulationResult))
    assert comparable(read_results(out)) == comparable(whole)
    assert summarize(got) == summarize(whole)             # the summary needs only what is kept


def test_a_resumed_batch_keeps_what_a_fresh_one_keeps(pool, tmp_path):
    out = tmp_path / "runs.jsonl"
    seeds = range(12)
    first = list(simulate_many(CloseCall(), seeds[:5], executor=pool, out=out, keep="summary"))
    again = list(simulate_many(CloseCall(), seeds, executor=pool, out=out, keep="summary"))
    assert again[:5] == first
    assert again == without(serial(CloseCall(), seeds), "records", "trajectory")
    whole = list(simulate_many(CloseCall(), seeds, executor=pool, out=out, keep="all"))
    assert whole == serial(CloseCall(), seeds)            # read back from the file, whole


@pytest.mark.parametrize(("keep", "emptied"), [
    ("all", ()), (("records", "trajectory"), ()), ({"trajectory"}, ("records",)),
    ("trajectory", ("records",)), ("records", ("trajectory",)), ([], ("records", "trajectory")),
    ("summary", ("records", "trajectory")),
])
def test_keep_chooses_the_parts_without_out(pool, keep, emptied):
    got = list(simulate_many(CloseCall(), range(4), executor=pool, keep=keep))
    assert got == without(serial(CloseCall(), range(4)), *emptied)


def test_without_out_the_default_keeps_everything(pool):
    assert list(simulate_many(CloseCall(), range(3), executor=pool)) == serial(CloseCall(),
                                                                             range(3))


def test_what_is_not_kept_is_not_sent_back():
    """The workers pickle only what is kept: a summary is a small fraction of a result."""
    whole, _ = run_records(CloseCall(), [1], {}, None)
    summary, _ = run_records(CloseCall(), [1], {}, None, keep=frozenset())
    assert len(summary) * 5 < len(whole)
    assert pickle.loads(summary) == [kept(r, frozenset()) for r in pickle.loads(whole)]


def test_a_failed_run_is_kept_whole():
    failed = FailedRun(3, "ZeroDivisionError", "no", "Traceback")
    assert kept(failed, frozenset()) is failed


@pytest.mark.parametrize(("keep", "error", "match"), [
    ("everything", ValueError, r"keep must be one of 'all', 'summary', 'records', "
                               r"'trajectory'.*got 'everything'"),
    (("records", "actions"), ValueError, r"keep may hold only 'records' and 'trajectory', "
                                         r"got 'actions'"),
    (3, TypeError, r"keep must be a str, a tuple, list or set of str, or None, got 3"),
    ({"records": True}, TypeError, r"keep must be a str.*got \{'records': True\}"),
    ([b"records"], TypeError, r"keep must hold only str, got b'records'"),
])
def test_bad_keep_is_refused_before_anything_runs(keep, error, match):
    with pytest.raises(error, match=match) as caught:
        simulate_many(CloseCall(), [1], keep=keep)
    assert refused(caught.value)
    with pytest.raises(error, match=match):
        check_keep(keep)


def test_check_keep_reads_every_spelling():
    both = frozenset({"records", "trajectory"})
    assert check_keep(None) is None
    assert check_keep("all") == check_keep(["trajectory", "records"]) == both
    assert check_keep("summary") == check_keep(()) == frozenset()
    assert check_keep("records") == check_keep(frozenset({"records"})) == {"records"}
    with pytest.raises(ValueError, match=r"^what must be one of"):
        check_keep("none", "what")


# -- the collector, paused while a chunk's results are unpickled -------------------------------

COLLECTOR_ON: list[bool] = []


def _loaded(value):
    COLLECTOR_ON.append(gc.isenabled())
    return Watched(value)


class Watched:
    """A record value that notes, as it is unpickled, whether the collector was on."""

    def __init__(self, value):
        self.value = value

    def __reduce__(self):
        return (_loaded, (self.value,))

    def __eq__(self, other):
        return isinstance(other, Watched) and other.value == self.value


class WatchedCall(CloseCall):
    def setup(self, s):
        super().setup(s)
        s.record_final("watched", lambda: Watched(s.sim.seed))


@pytest.mark.parametrize("enabled", [True, False])
def test_results_are_unpickled_with_the_collector_paused_and_its_state_kept(enabled):
    COLLECTOR_ON.clear()
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        with cf.ThreadPoolExecutor(1) as threads:
            got = list(simulate_many(WatchedCall(), range(6), executor=threads, chunk_size=3))
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
    assert [r.records_final["watched"] for r in got] == [Watched(s) for s in range(6)]
    assert COLLECTOR_ON == [False] * 6
