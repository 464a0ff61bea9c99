"""Timers: the cost of a firing beside the floor, pyglet and simpy; and of a wide advance.

Run with ``pytest benchmarks/ --benchmark-only``. Read the figures as ratios within a group,
never across machines.

Group ``timer-fire``: every row makes the same F = 10,000 firings of the same no-op callback
``cb(*args)``, in the same run, so a median divided by 10,000 is the cost of one firing:

* ``floor``: the bare Python call ``cb(i)`` 10,000 times in a ``for`` loop;
* ``floor-from-C``: the same calls made from C, ``deque(map(cb, range(10_000)), 0)``: the
  goal is a firing costs at most this plus one empty builtin call;
* ``cvcclock``: one ``every_ticks(1, cb)`` timer, one ``advance_ticks(10_000)``;
  ``cvcclock-100x100``: 100 ``every_ticks(100, cb)`` timers, the same advance;
  ``cvcclock-1e5-staggered``: 10**5 timers of period 10**5, one due at each quantum, so
  every firing moves a timer through a queue of 10**5 (goal: within 1.5x of one timer);
* ``pyglet``: ``pyglet.clock.Clock`` on a fake time function, ``schedule_interval(cb, 0.01)``,
  then 10,000 times ``t += 0.01; clock.tick()`` (``cvcclock.bench._cases.pyglet_firings``);
* ``simpy``: one process ``while True: yield env.timeout(1.0); cb()``, run for 10,000 s;
  ``simpy-100x100``: 100 such processes with ``timeout(100.0)``, 100 firings each
  (``cvcclock.bench._cases.simpy_firings``).

Each round gets a fresh subject from a setup that is not timed (the clock, its timers, the
processes), so a round times the firings only. The timed rounds use the no-op; one untimed
run of the same code with a counting callback then asserts the 10,000 firings.

Ratios to compute from the medians: ``cvcclock / floor`` (what a firing costs beyond the bare
call, per call), ``pyglet / cvcclock`` and ``simpy / cvcclock`` (how much more the same
firings cost there).

Group ``wide-advance``: ``advance_ticks(n)`` on a clock holding 10,000 timers none of which is
due (periods of 10**16 + i; the tick grows by n every call, by ~2 * 10**11 over the 201,000
calls, and the asserts check nothing was reached), for n = 1 and n = 10**6, and on a clock
with no timer. The claim: the cost does not depend on the number of quanta, so the ``n=1e6``
rows match ``n=1``. The floor is the empty one-argument builtin call ``[].count(n)`` as in
test_bench_clock.py. Every row has the same fixed 2000 rounds of 100 calls (automatic
calibration picked different iteration counts per row, which skews single calls), so a
median is the time of one call.
"""

from collections import deque

import pytest

from cvcclock import ClockConfig, WorldClock
from cvcclock.bench._cases import FAR, cb, pyglet_firings, simpy_firings, staggered_clock

FIRINGS = 10_000
DT = 0.01
ROUNDS = 20


def new_clock():
    return WorldClock(ClockConfig(fixed_dt=DT))


# Each maker takes the callback and returns a zero-argument run() making 10,000 firings.

def floor(cb):
    def run():
        for i in range(FIRINGS):
            cb(i)
    return run


def floor_from_c(cb):
    return lambda: deque(map(cb, range(FIRINGS)), 0)


def cvcclock_staggered(timers):
    def make(cb):
        advance_ticks = staggered_clock(timers, cb).advance_ticks
        return lambda: advance_ticks(FIRINGS)
    return make


def cvcclock(timers, period):
    def make(cb):
        clock = new_clock()
        for _ in range(timers):
            clock.every_ticks(period, cb)
        return lambda: clock.advance_ticks(FIRINGS)
    return make


def pyglet_clock(cb):
    return pyglet_firings(cb, FIRINGS)


def simpy_env(processes):
    return lambda cb: simpy_firings(cb, FIRINGS, processes)


FIRE = {"floor": floor, "floor-from-C": floor_from_c, "cvcclock": cvcclock(1, 1),
        "cvcclock-100x100": cvcclock(100, 100),
        "cvcclock-1e5-staggered": cvcclock_staggered(10**5),
        "pyglet": pyglet_clock, "simpy": simpy_env(1), "simpy-100x100": simpy_env(100)}


@pytest.mark.benchmark(group="timer-fire: 10,000 firings of a no-op callback")
@pytest.mark.parametrize("subject", list(FIRE))
def test_timer_fire(benchmark, subject):
    make = FIRE[subject]
    benchmark.pedantic(lambda run: run(), setup=lambda: ((make(cb),), {}),
                       rounds=ROUNDS, warmup_rounds=1)
    calls = []
    make(lambda *args: calls.append(args))()
    assert len(calls) == FIRINGS


WIDE = {"floor": (None, 10**6), "10k-timers-n=1": (10_000, 1),
        "10k-timers-n=1e6": (10_000, 10**6), "0-timers-n=1e6": (0, 10**6)}
WIDE_RUNS = dict(rounds=2000, iterations=100, warmup_rounds=10)


@pytest.mark.benchmark(group="wide-advance: advance_ticks(n), nothing due")
@pytest.mark.parametrize("subject", list(WIDE))
def test_wide_advance(benchmark, subject):
    timers, n = WIDE[subject]
    if timers is None:
        benchmark.pedantic([].count, (n,), **WIDE_RUNS)
        return
    clock = new_clock()
    made = [clock.every_ticks(FAR + i, cb) for i in range(timers)]
    benchmark.pedantic(clock.advance_ticks, (n,), **WIDE_RUNS)
    assert 0 < clock.tick < FAR and clock.tick % n == 0
    assert clock.next_due_tick == (FAR if timers else None)
    assert not any(timer.fired for timer in made)
