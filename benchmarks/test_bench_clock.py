"""The clock's hot paths beside the floor and the hand-written loop, in one run.

Run with ``pytest benchmarks/ --benchmark-only``. Each group is one comparison; read the
figures as ratios within a group, never across machines.

Every benchmarked function makes N = 1000 calls, ``for f in fns: f(arg)`` over a list of N
callables, because one call (20-70 ns) is too short to time on its own. The loop is the same
for the floor and the subject, so the ratio compares like with like; every group also has a
``loop`` row (the same loop with an empty body), so the per-call cost net of the loop is
``(row - loop) / N``. pytest-benchmark reports the time of one function, i.e. of N calls:
divide by 1000 for ns per call (a 30 us median is 30 ns per call).

The floors are empty calls of C-implemented builtin methods, with the calling convention the
Cython core uses (``binding=False``: a builtin method, METH_O for one argument, METH_NOARGS
for none):

* one argument: ``[].count(x)``. On an empty list it is O(1), never looks at its argument
  and returns the cached 0: the call and nothing else. ``{}.__contains__(x)`` is shown beside
  it (row ``dict-contains``) because it is the usual choice, but it hashes its argument, and
  hashing a float such as 1/60 costs about as much as the call, so it flatters the subject.
* no argument: ``[].clear()`` (O(1) on an empty list, returns None). ``[].__len__`` is not a
  builtin method but a method-wrapper, a slower generic path Cython's methods do not take.
"""

import pytest

from calls import WALL_DT, N, call_each, loop_only
from cvcclock import ClockFollower
from cvcclock.bench._cases import FixYourTimestep, live_clock


def call_each_noarg(fns, arg):
    for f in fns:
        f()


def read_tick_each(objs, arg):
    for o in objs:
        o.tick  # noqa: B018 -- the attribute read is what is timed


ONE_ARG_FLOORS = {"loop": (loop_only, [].count), "floor": (call_each, [].count),
                  "dict-contains": (call_each, {}.__contains__)}
SUBJECTS = ["loop", "floor", "dict-contains"]


@pytest.mark.benchmark(group="advance(1/60) on a live 1/120 clock, 2 quanta a call; x1000")
@pytest.mark.parametrize("subject", [*SUBJECTS, "advance", "hand-written"])
def test_advance(benchmark, subject):
    clock, hand = live_clock(), FixYourTimestep(1.0 / 120.0)
    runner, fn = ONE_ARG_FLOORS.get(subject) or (call_each, {
        "advance": clock.advance, "hand-written": hand.advance}[subject])
    benchmark(runner, [fn] * N, WALL_DT)
    assert clock.tick == 10**6 + 2 * clock.frame
    assert abs(hand.tick - 2 * hand.frame) <= 1 and hand.dropped == 0


@pytest.mark.benchmark(group="take(clock), one step due each call; x1000")
@pytest.mark.parametrize("subject", [*SUBJECTS, "take"])
def test_take(benchmark, subject):
    # N followers, and one step_once() per round (0.05 ns a call), so every take finds a
    # step due and runs its whole path rather than the nothing-due shortcut.
    clock = live_clock()
    followers = [ClockFollower.for_step(clock, clock.fixed_dt) for _ in range(N)]
    runner, fn = ONE_ARG_FLOORS.get(subject) or (call_each, None)
    fns = [f.take for f in followers] if subject == "take" else [fn] * N

    def one_round():
        clock.step_once()
        runner(fns, clock)

    benchmark(one_round)
    if subject == "take":
        assert [f.last_tick for f in followers] == [clock.tick] * N


@pytest.mark.benchmark(group="reading clock.tick vs a zero-argument call; x1000")
@pytest.mark.parametrize("subject", ["loop", "floor", "tick"])
def test_tick(benchmark, subject):
    clock = live_clock()
    runner, items = {"loop": (loop_only, [[].clear] * N),
                     "floor": (call_each_noarg, [[].clear] * N),
                     "tick": (read_tick_each, [clock] * N)}[subject]
    benchmark(runner, items, None)
