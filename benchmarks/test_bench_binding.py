"""A frame through the state-tree binding beside the bare ``advance``, in one run.

Run with ``pytest benchmarks/test_bench_binding.py --benchmark-only``. As in
``test_bench_clock.py``, every benchmarked function makes N = 1000 calls over a list of N
callables, with a ``loop`` row for the loop alone: the cost of one frame net of the loop is
``(row - loop) / N``, so a 700 us median is 0.7 us a frame.

Every frame is ``wall_dt = 1/60`` on a live 1/120 s clock (2 quanta) with one follower
stepping every 2 quanta (one step due a frame), the tree a plain ``dict`` holding the ten
``sim.*`` keys. The binding's overhead is the ``drive`` row minus the ``advance`` row (or
``drive+take`` minus ``advance+take``); the goal (issue 22) is a ``drive`` row at most 20x the
``advance`` row of the same run. A dict tree's quiet frame is the compiled one; the
``UserDict tree`` row, any other mapping, goes lane by lane, as every frame did before.
"""

from collections import UserDict

import pytest

from calls import WALL_DT, N, call_each, loop_only
from cvcclock import ClockConfig, ClockFollower, WorldClock
from cvcclock.binding import WorldClockBinding


def frame_fns(subject):
    """The function one row calls N times, and the clock, tree and follower behind it."""
    clock = WorldClock(ClockConfig(fixed_dt=1.0 / 120.0))
    clock.advance_ticks(10**6)            # far from tick 0, so ticks are not cached small ints
    tree = UserDict() if subject == "drive, UserDict tree" else {}
    binding = WorldClockBinding(tree, clock)
    follower = ClockFollower.for_step(clock, WALL_DT)
    take = follower.take
    # Two equal floats that are different objects: a UI writing the same speed every frame.
    speeds = [float("1.0"), float("1.0")]

    def advance_frame(wall_dt):
        clock.advance(wall_dt)
        for _ in range(take(clock)):
            pass

    def drive_frame(wall_dt):
        binding.drive(wall_dt)
        for _ in range(take(clock)):
            pass

    def measured_frame(wall_dt):
        binding.drive()
        for _ in range(take(clock)):
            pass

    def rewritten_frame(wall_dt):
        tree["sim.speed"] = speeds[clock.frame & 1]
        binding.drive(wall_dt)
        for _ in range(take(clock)):
            pass

    fn = {"loop": None, "advance": clock.advance, "drive": binding.drive,
          "drive, UserDict tree": binding.drive,
          "advance+take": advance_frame, "drive+take": drive_frame,
          "drive()+take, measured": measured_frame,
          "drive+take, speed rewritten": rewritten_frame}[subject]
    return fn, clock, tree, follower


@pytest.mark.benchmark(group="a frame: drive(1/60) on a dict tree vs advance(1/60); x1000")
@pytest.mark.parametrize("subject", ["loop", "advance", "drive", "drive, UserDict tree",
                                     "advance+take", "drive+take", "drive()+take, measured",
                                     "drive+take, speed rewritten"])
def test_frame(benchmark, subject):
    fn, clock, tree, follower = frame_fns(subject)
    runner = loop_only if fn is None else call_each
    benchmark(runner, [fn] * N, WALL_DT)
    if subject in ("advance", "drive", "drive, UserDict tree", "advance+take", "drive+take",
                   "drive+take, speed rewritten"):
        assert clock.tick == 10**6 + 2 * clock.frame
    if subject.startswith("drive"):
        assert tree["sim.tick"] == clock.tick and tree["sim.dropped"] == 0
    if subject.endswith("take") or "take," in subject:
        assert follower.last_tick == clock.tick
