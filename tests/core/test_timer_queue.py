"""The timer queue under load: many timers, random pauses, cancels and widths, against the
oracle (which finds the next timer by a plain minimum over all of them)."""

import gc
import pickle
import random
import weakref

import pytest

from cvcclock import ClockConfig, WorldClock
from support.implementations import CORE, ORACLE


def drive(impl, seed, n_timers=200, steps=250):
    rng = random.Random(seed)
    clock = impl.Clock(impl.Config(fixed_dt=0.01))
    log, timers = [], []
    for i in range(n_timers):
        period = rng.choice([1, 2, 3, 5, 7, 10, 50])
        catch_up = rng.choice(["each", "coalesce"])
        if rng.random() < 0.2:
            timers.append(clock.after_ticks(rng.randint(1, 300),
                                            lambda tick, i=i: log.append((i, tick))))
        else:
            timers.append(clock.every_ticks(
                period, lambda tick, *count, i=i: log.append((i, tick, *count)),
                catch_up=catch_up))
    for _ in range(steps):
        op = rng.random()
        timer = rng.choice(timers)
        if op < 0.1:
            timer.pause()
        elif op < 0.2:
            timer.resume()
        elif op < 0.23:
            timer.cancel()
        else:
            clock.advance_ticks(rng.choice([0, 1, 1, 2, 5, 17]))
        log.append(("next", clock.next_due_tick))
    return log, [(t.active, t.paused, t.next_tick, t.fired) for t in timers]


@pytest.mark.parametrize("seed", range(4))
def test_the_queue_fires_what_the_oracle_fires(seed):
    assert drive(CORE, seed) == drive(ORACLE, seed)


# -- the queue's references -------------------------------------------------------------------
# The queue holds its timers in C arrays (the near heap's and each wheel bucket's), one
# reference each, which the garbage collector sees through the clock. These run timers in
# both parts at once (due within the near epoch and thousands of ticks away) through what
# could leave a reference dangling or hidden from the collector.

NEAR_AND_FAR = [1, 2, 3, 50, 63, 64, 65, 200, 5000, 70_000, 2**30]


class _Owner:
    """Holds a clock whose timers call its methods: the cycle clock -> queue -> timer ->
    bound method -> owner -> clock."""

    def __init__(self, clock_type=WorldClock):
        self.clock = clock_type(ClockConfig(fixed_dt=0.01))
        self.timers = [self.clock.every_ticks(k, self.on_tick) for k in NEAR_AND_FAR]
        self.ticks = []

    def on_tick(self, tick):
        self.ticks.append(tick)


class _SubClock(WorldClock):
    pass



def test_a_callback_cancelling_every_other_timer_leaves_the_rest_as_the_oracle_does():
    def run(impl):
        clock = impl.Clock(impl.Config(fixed_dt=0.01))
        log, timers = [], []

        def cancel_the_others(tick):
            log.append(("cancel", tick))
            for timer in timers[1::2]:
                timer.cancel()

        for i, k in enumerate(NEAR_AND_FAR * 3):
            timers.append(clock.every_ticks(k, lambda tick, i=i: log.append((i, tick))))
        timers.append(clock.every_ticks(100, cancel_the_others))
        for n in (99, 1, 1, 500, 70_000):
            clock.advance_ticks(n)
            log.append(("next", clock.next_due_tick))
        return log, [(t.active, t.next_tick, t.fired) for t in timers]

    assert run(CORE) == run(ORACLE)


def test_timers_whose_only_reference_is_the_queue_fire_and_are_then_freed():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    fired, refs = [], []
    for k in NEAR_AND_FAR[:-1]:
        refs.append(weakref.ref(clock.after_ticks(k, fired.append)))
        refs.append(weakref.ref(clock.every_ticks(k, lambda tick: None)))
    gc.collect()
    assert all(ref() is not None for ref in refs)     # the queue keeps them
    clock.advance_ticks(70_000)
    gc.collect()
    assert fired == sorted(k for k in NEAR_AND_FAR[:-1])
    spent = [ref() for ref in refs[0::2]]
    assert spent == [None] * len(spent)               # spent one-shots are let go
    assert all(ref() is not None and ref().active for ref in refs[1::2])


def test_a_callback_dropping_the_last_reference_to_other_timers_and_to_its_clock():
    # Only the queue and the callback's holder refer to the timers and the clock; the
    # callback cancels the others and drops the holder's references mid-firing.
    holder = {}

    def drop_everything(tick):
        for timer in holder.pop("timers"):
            timer.cancel()
        holder.pop("clock")
        gc.collect()

    clock = _SubClock(ClockConfig(fixed_dt=0.01))      # a subclass: weakly referenced
    holder["timers"] = [clock.every_ticks(k, lambda tick: None) for k in NEAR_AND_FAR]
    clock.after_ticks(10, drop_everything)
    holder["clock"] = clock
    advance = clock.advance_ticks
    clock_ref = weakref.ref(clock)
    del clock
    assert advance(100).steps == 100
    assert clock_ref().next_due_tick is None
    del advance
    gc.collect()
    assert clock_ref() is None


def test_gc_collect_inside_a_callback_while_timers_move_between_the_heap_and_the_wheel():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    log = []

    def collect(tick):
        log.append(tick)
        gc.collect()

    # A full collection a firing would take minutes: the collecting timers fire ~60 times,
    # among the others' ~20,000 firings moving timers between the heap and the wheel.
    for k in NEAR_AND_FAR[:-1]:
        clock.every_ticks(k, collect if k >= 200 else log.append)
        clock.after_ticks(k, lambda tick: gc.collect())
    clock.advance_ticks(10_000)
    assert log == sorted(log) and len(log) == sum(10_000 // k for k in NEAR_AND_FAR[:-1])


@pytest.mark.parametrize("clock_type", [WorldClock, _SubClock])
def test_a_cycle_through_the_queue_is_collected(clock_type):
    owner = _Owner(clock_type)
    owner.clock.advance_ticks(130)
    refs = [weakref.ref(owner)] + [weakref.ref(t) for t in owner.timers]
    if clock_type is not WorldClock:
        refs.append(weakref.ref(owner.clock))
    assert any(r is owner.clock for r in gc.get_referrers(*owner.timers))
    del owner
    gc.collect()
    assert [ref() for ref in refs] == [None] * len(refs)


def test_the_collector_sees_each_queued_timer_as_the_clock_refers_to_it():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    timers = [clock.every_ticks(k, print) for k in NEAR_AND_FAR]
    paused = clock.every_ticks(5, print)
    paused.pause()
    referents = gc.get_referents(clock)
    assert all(sum(r is t for r in referents) == 1 for t in timers)
    assert not any(r is paused for r in referents)    # a paused timer is not queued


def test_a_clock_pickled_and_restored_with_timers_in_both_parts_fires_the_same():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    timers = [clock.every_ticks(k, _noop) for k in NEAR_AND_FAR]
    clock.advance_ticks(70)
    state = clock.state()
    copy = pickle.loads(pickle.dumps(clock))
    gc.collect()
    for c in (clock, copy):
        c.advance_ticks(70_000)
    assert copy.state() == clock.state()
    assert sum(t.fired for t in timers) > 70_000
    clock.restore(state)
    del copy
    gc.collect()
    assert clock.state() == state
    clock.advance_ticks(70_000)
    assert [t.fired for t in timers] == [(70_070) // k for k in NEAR_AND_FAR]


def _noop(tick):
    pass


def test_a_sorted_near_heap_stays_in_order_through_long_runs_and_every_change():
    # Timers of one period keep the near heap sorted (each fired timer moves to its end), so
    # it runs as a queue whose front moves on and is moved back when its room runs out; a
    # timer of another period, a cancel in the middle, a pause and a resume each unsort it.
    def run(impl):
        clock = impl.Clock(impl.Config(fixed_dt=0.01))
        log = []
        timers = [clock.every_ticks(1, lambda tick, i=i: log.append((i, tick)))
                  for i in range(20)]
        for step in range(40):
            clock.advance_ticks(97)
            if step % 4 == 1:
                timers[step % len(timers)].cancel()
            elif step % 4 == 2:
                i = len(timers)
                timers.append(clock.every_ticks(1 + step % 3,
                                                lambda tick, i=i: log.append((i, tick))))
            elif step % 4 == 3:
                timers[(3 * step) % len(timers)].pause()
                timers[(5 * step) % len(timers)].resume()
            log.append(("next", clock.next_due_tick))
        return log, [(t.active, t.paused, t.next_tick, t.fired) for t in timers]

    assert run(CORE) == run(ORACLE)


class _CancelsOnRelease:
    """A callback's owner whose release (the last reference to a spent one-shot) cancels a
    timer and tries to advance the clock."""

    def __init__(self, log, clock, victims):
        self.log, self.clock, self.victims = log, clock, victims

    def fire(self, tick):
        self.log.append(("fired", tick))

    def __del__(self):
        self.log.append("released")
        for timer in self.victims:
            timer.cancel()
        try:
            self.clock.advance_ticks(1)
        except RuntimeError as exc:
            self.log.append(str(exc))


def test_a_spent_timer_released_mid_run_may_cancel_the_next_one_but_not_advance():
    # main crashed here: the loop read the next top, then the spent one-shot's release
    # cancelled that timer, and the loop fired it from an empty queue.
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    log, victims = [], []
    clock.after_ticks(5, _CancelsOnRelease(log, clock, victims).fire)
    victims.append(clock.every_ticks(5, lambda tick: log.append(("victim", tick))))
    far = clock.every_ticks(70, lambda tick: log.append(("far", tick)))
    victims.append(clock.every_ticks(70, lambda tick: log.append(("far victim", tick))))
    assert clock.advance_ticks(140).steps == 140
    assert log == [("fired", 5), "released",
                   "the clock cannot advance from inside a timer callback",
                   ("far", 70), ("far", 140)]
    assert clock.tick == 140 and [t.fired for t in victims] == [0, 0] and far.fired == 2
