"""Parts: with ``out``, the workers write each chunk's lines to a part file themselves, and the
batch copies a part into its results file only when the chunk's outcome is in.

So the batch's process never receives the lines, the results file stays one JSON Lines file
(one line per seed, whatever was lost on the way), and a staging directory left by a crash
is deleted by the next batch that opens the file.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import pickle

import pytest

from cvcclock.batch import read_results, simulate_many
from cvcclock.batch._executors import run_chunk
from cvcclock.batch._file import Part, ResultsFile, write_part
from cvcclock.batch._records import ALL, BatchKey, decode_record, encode_record, line_bytes
from cvcclock.replay import FORMAT_VERSION
from cvcclock.scenario import FailedRun
from support.batch_scenarios import CloseCall, Flaky, HomeSick, comparable, seeds_in_file, serial


def key_of(scenario):
    return BatchKey.of(scenario, {}, scenario.dt, FORMAT_VERSION)


def staging_directories(out):
    return sorted(p.name for p in out.parent.iterdir() if p.name.endswith(".parts"))


@pytest.fixture
def results_file(tmp_path):
    with_file = ResultsFile(tmp_path / "runs.jsonl", key_of(Flaky()))
    yield with_file
    with_file.close()


def test_a_worker_writes_its_chunks_lines_to_a_part_and_sends_back_only_what_is_kept(
        results_file):
    scenario = Flaky()
    results, part, _ = run_chunk(pickle.dumps(scenario), (0, 1, 2, 3), {}, key_of(scenario),
                                 keep=frozenset(), staging=results_file.staging)
    assert isinstance(part, Part) and os.path.dirname(part.path) == results_file.staging
    assert len(results) < sum(part.lengths) / 10                         # summaries only
    assert results_file.append_part(pickle.loads(results), part)
    lines = open(results_file.path, "rb").read().splitlines(keepends=True)
    assert tuple(len(line) for line in lines) == part.lengths
    # (a failed run's traceback names the frames it ran in: compared as comparable does)
    assert comparable([decode_record(line) for line in lines]) == comparable(
        serial(scenario, range(4)))
    assert not os.path.exists(part.path)                    # copied once, then deleted


def test_a_worker_that_cannot_see_the_staging_directory_sends_its_lines_back(tmp_path):
    scenario = CloseCall()
    key = key_of(scenario)
    elsewhere = str(tmp_path / "on-another-host")
    _, lines, _ = run_chunk(pickle.dumps(scenario), (5, 6), {}, key, keep=ALL,
                            staging=elsewhere)
    assert lines == [line_bytes(encode_record(r, key)) for r in serial(scenario, [5, 6])]
    assert write_part(elsewhere, [b"x\n"]) is None and not os.path.exists(elsewhere)


def test_a_part_cut_short_missing_or_outside_the_staging_directory_is_not_read(
        results_file, tmp_path):
    part = write_part(results_file.staging, [b"one\n", b"two\n"])
    assert part is not None
    with open(part.path, "r+b") as f:
        f.truncate(6)
    two = [FailedRun(0, "E", "m", "t"), FailedRun(1, "E", "m", "t")]
    assert results_file.append_part(two, part) is False
    assert results_file.append_part(two[:1], Part(os.path.join(results_file.staging,
                                                              "gone.part"), (4,))) is False
    # A part's path comes from a worker: a file elsewhere is neither read nor deleted.
    elsewhere = tmp_path / "precious.txt"
    elsewhere.write_bytes(b"keep\n")
    assert results_file.append_part(two[:1], Part(str(elsewhere), (5,))) is False
    results_file.discard(Part(str(elsewhere), (5,)))
    assert elsewhere.read_bytes() == b"keep\n"
    assert open(results_file.path, "rb").read() == b""      # nothing appended


def test_without_a_staging_directory_the_workers_send_their_lines_back(pool, tmp_path,
                                                                       monkeypatch):
    import cvcclock.batch._file as results_files

    not_a_directory = tmp_path / "a-file"
    not_a_directory.write_bytes(b"")
    assert results_files._new_staging(str(not_a_directory / "runs.jsonl")) is None
    monkeypatch.setattr(results_files, "_new_staging", lambda path: None)
    out = tmp_path / "runs.jsonl"
    got = list(simulate_many(Flaky(), range(6), executor=pool, out=out, keep="all"))
    assert comparable(got) == comparable(serial(Flaky(), range(6)))
    assert comparable(read_results(out)) == comparable(got)
    assert staging_directories(out) == []


def test_a_batch_leaves_no_staging_directory_and_deletes_one_a_crash_left(pool, tmp_path):
    out = tmp_path / "runs.jsonl"
    list(simulate_many(CloseCall(), range(3), executor=pool, out=out))
    assert staging_directories(out) == []
    crashed = tmp_path / ".runs.jsonl.0123456789abcdef.parts"
    crashed.mkdir()
    (crashed / "1-dead.part").write_bytes(b'{"seed":99,"status":"completed"}\n')
    other = tmp_path / ".other.jsonl.0123456789abcdef.parts"     # another file's: left alone
    other.mkdir()
    got = list(simulate_many(CloseCall(), range(6), executor=pool, out=out, keep="all"))
    assert staging_directories(out) == [other.name]
    assert got == serial(CloseCall(), range(6)) == read_results(out)
    assert seeds_in_file(out) == list(range(6))


class _LosesParts(cf.Executor):
    """A pool whose first ``losses`` finished chunks have their part deleted before the batch
    sees them (as a staging directory on a disk that failed would), noting the parts' pids."""

    def __init__(self, inner: cf.Executor, losses: int) -> None:
        self._inner = inner
        self.losses = losses
        self.pids: set[int] = set()

    def submit(self, fn, /, *args, **kwargs):
        outer: cf.Future = cf.Future()

        def relay(inner: cf.Future) -> None:
            error = inner.exception()
            if error is not None:
                outer.set_exception(error)
                return
            results, lines, seconds = inner.result()
            if isinstance(lines, Part):
                self.pids.add(int(os.path.basename(lines.path).split("-")[0]))
                if self.losses > 0:
                    self.losses -= 1
                    os.unlink(lines.path)
            outer.set_result((results, lines, seconds))

        self._inner.submit(fn, *args, **kwargs).add_done_callback(relay)
        return outer


def test_a_chunk_whose_part_went_missing_runs_again_and_each_seed_is_recorded_once(
        pool, tmp_path):
    out = tmp_path / "runs.jsonl"
    executor = _LosesParts(pool, losses=2)
    seeds = range(10)
    got = list(simulate_many(Flaky(), seeds, executor=executor, out=out, chunk_size=3,
                             keep="all"))
    assert executor.losses == 0 and executor.pids and os.getpid() not in executor.pids
    assert comparable(got) == comparable(serial(Flaky(), seeds))
    assert comparable(read_results(out)) == comparable(got)
    assert seeds_in_file(out) == list(seeds)                 # once each, in seed order here


def test_a_part_lost_every_time_ends_its_seeds_as_failed_runs_not_a_hang(pool, tmp_path):
    out = tmp_path / "runs.jsonl"
    got = list(simulate_many(CloseCall(), [7], executor=_LosesParts(pool, losses=10**6),
                             out=out))
    assert [type(r).__name__ for r in got] == ["FailedRun"]
    assert "missing or cut short" in got[0].message
    assert read_results(out) == got


@pytest.mark.parametrize("with_out", [True, False])
def test_a_chunk_with_a_result_that_will_not_unpickle_here_runs_again_seed_by_seed(
        pool, tmp_path, with_out):
    """A chunk's results come back as one pickle: when it will not load, each seed runs again
    in a chunk of its own, and only the seed at fault fails."""
    out = tmp_path / "runs.jsonl" if with_out else None
    seeds = range(8)
    scenario = HomeSick(victim=5, home=os.getpid())
    got = list(simulate_many(scenario, seeds, executor=pool, out=out, chunk_size=4,
                             keep="all"))
    assert isinstance(got[5], FailedRun) and "cannot be unpickled here" in got[5].message
    assert got[:5] + got[6:] == serial(scenario, [s for s in seeds if s != 5])
    if with_out:
        assert read_results(out) == got and staging_directories(out) == []
