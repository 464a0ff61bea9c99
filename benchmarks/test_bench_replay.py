"""Seek and rollback: their cost against the keyframe spacing N.

Run with ``pytest benchmarks/test_bench_replay.py --benchmark-only``. A small world (a
damped spring, a tuple snapshot, ~0.3 µs a step) steps every quantum for 6,000 steps.

Group ``replay-step``: one world step through ``Replayer.pump`` (applying inputs, the
default state hash of every step off), the unit the other groups are made of.

Group ``seek``: ``Replayer.seek(tick)`` backwards, to targets spread over the run, each
between keyframes at a different offset; it restores the clock's and the world's keyframes
at or before the target and re-simulates, one ``advance_ticks`` and one pump a step, about
N/2 steps on average. Expect the cost to grow linearly in N, from a floor (the restores)
at N = 1.

Group ``rollback``: ``Recorder.give_late`` of an input stamped 10 steps in the past: it
rolls back to the keyframe at or before the input's tick and re-simulates to the present,
10 + (tick mod N) steps, about 10 + N/2. The clock is not touched.
"""

import pytest

from cvcclock import ClockConfig, Mode, WorldClock
from cvcclock.replay import Recorder, Replayer

STEPS = 6_000
SPACINGS = (1, 10, 100, 1000)
ROUNDS = 60
LATE = 10


class Spring:
    def __init__(self):
        self.x, self.v = 1.0, 0.0

    def step(self, dt):
        self.v += (-40.0 * self.x - 0.8 * self.v) * dt
        self.x += self.v * dt

    def apply(self, name, value):
        self.v += value

    def snapshot(self):
        return (self.x, self.v)

    def restore(self, snapshot):
        self.x, self.v = snapshot


def new_clock():
    return WorldClock(ClockConfig(fixed_dt=0.01))


def recorded(keyframe_every):
    """A recorder stepped to STEPS with a kick every 97 ticks."""
    clock = new_clock()
    recorder = Recorder(Spring(), clock, 0.01, keyframe_every=keyframe_every)
    for tick in range(0, STEPS, 97):
        clock.advance_ticks(tick - clock.tick)
        recorder.pump()
        recorder.give("kick", 0.01)
    clock.advance_ticks(STEPS - clock.tick)
    recorder.pump()
    return recorder


@pytest.fixture(scope="module")
def trace():
    return recorded(STEPS).trace()


def test_replay_step(benchmark, trace):
    clock = new_clock()
    replayer = Replayer(Spring(), clock, trace, keyframe_every=STEPS)

    def one_step():
        clock.advance_ticks(1)
        replayer.pump()

    benchmark.group = "replay-step"
    benchmark.pedantic(one_step, rounds=2_000, iterations=1)


@pytest.mark.parametrize("keyframe_every", SPACINGS)
def test_seek_back(benchmark, trace, keyframe_every):
    clock = new_clock()
    replayer = Replayer(Spring(), clock, trace, keyframe_every=keyframe_every)
    for _ in range(STEPS):      # played a quantum a frame: each keyframe holds its own tick
        clock.advance_ticks(1)
        replayer.pump()
    clock.mode = Mode.REPLAY
    # Backwards each time, at offsets into the keyframe interval that cover it evenly.
    targets = iter([STEPS - 1 - i * (STEPS - 1) // ROUNDS - 1 for i in range(ROUNDS + 1)])

    def seek():
        replayer.seek(next(targets))

    benchmark.group = "seek"
    benchmark.extra_info["keyframe_every"] = keyframe_every
    benchmark.pedantic(seek, rounds=ROUNDS, iterations=1)
    assert clock.tick < STEPS


@pytest.mark.parametrize("keyframe_every", SPACINGS)
def test_rollback(benchmark, keyframe_every):
    recorder = recorded(keyframe_every)
    ticks = iter(range(STEPS - LATE, STEPS - LATE - ROUNDS - 1, -1))

    def late_input():
        assert recorder.give_late(next(ticks), "kick", 0.001) >= LATE

    benchmark.group = "rollback"
    benchmark.extra_info["keyframe_every"] = keyframe_every
    benchmark.pedantic(late_input, rounds=ROUNDS, iterations=1)
