"""How a batch cuts its seeds into chunks (the sizes are timing, never results: these check
the sizing rule on its own, with a backend that completes what it is given in order)."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from cvcclock.batch._simulate import _MAX_CHUNK, _Chunks


class InOrder:
    """A backend of ``workers`` that completes the oldest chunk in flight when asked."""

    def __init__(self, workers):
        self.workers, self.flying = workers, []

    def in_flight(self):
        return len(self.flying)

    def submit(self, chunk):
        self.flying.append(chunk)


def cut(seeds, workers, seconds_a_run, fixed=None):
    """Every chunk taken, with how many fresh seeds were left when it was cut."""
    chunks, backend, taken = _Chunks(list(seeds), fixed, workers), InOrder(workers), []
    left = len(seeds)
    while chunks or backend.flying:
        before = len(backend.flying)
        chunks.fill(backend)
        for chunk in backend.flying[before:]:
            taken.append((chunk.seeds, left))
            left -= len(chunk.seeds)
        done = backend.flying.pop(0)
        chunks.back(done)
        chunks.timed(len(done.seeds), seconds_a_run * len(done.seeds))
    return taken


@given(n=st.integers(1, 3000), workers=st.integers(1, 8),
       seconds_a_run=st.floats(1e-6, 1.0))
def test_every_seed_is_cut_once_in_order_and_no_chunk_is_more_than_a_workers_share(
        n, workers, seconds_a_run):
    taken = cut(range(n), workers, seconds_a_run)
    assert [seed for seeds, _ in taken for seed in seeds] == list(range(n))
    for seeds, left in taken:
        assert 1 <= len(seeds) <= min(math.ceil(left / workers), _MAX_CHUNK)


def test_the_tail_of_a_fast_batch_is_shared_by_the_workers():
    # 40 seeds that take a millisecond each: a quarter of the 0.25 s target is 62 runs, more
    # than the 36 left after the first chunks, which once went to one worker in one chunk.
    sizes = [len(seeds) for seeds, _ in cut(range(40), 2, 0.001)]
    assert sizes[:4] == [1, 1, 1, 1]
    assert max(sizes[4:]) <= 18 and len(sizes) >= 6


def test_a_slow_batch_settles_on_the_target_and_a_given_size_is_kept():
    sizes = [len(seeds) for seeds, _ in cut(range(2000), 2, 0.002)]
    assert sizes.count(125) >= 10                   # 0.25 s of 2 ms runs
    assert len(sizes) < 40                          # not a string of one-seed tasks
    assert {len(seeds) for seeds, _ in cut(range(100), 2, 0.002, fixed=7)[:-1]} == {7}
