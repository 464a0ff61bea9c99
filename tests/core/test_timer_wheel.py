"""The timer queue's wheel (timer_wheel.pxi) against the oracle, at every scale of distance.

The near heap holds one 64-tick epoch; later timers wait in a wheel of 64-bucket levels
and move down a level, or into the heap, as the near epoch reaches them. These drive timers
due within an epoch, a few epochs, thousands and 2**40 ticks away, from ticks near 0, near
an epoch's end and far out, through pauses, cancels, a callback that raises, seeks both
ways, restores and wide advances, and compare every firing and every timer with the
oracle's plain minimum over all timers.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from cvcclock import Mode
from support.implementations import CORE, ORACLE

STARTS = [0, 63, 64, 255, 4095, 16_383, 2**20 - 3, 2**40 + 7, 2**61]
distances = st.one_of(st.integers(1, 300), st.integers(250, 70_000),
                      st.integers(60_000, 2**25), st.sampled_from([2**40, 2**40 + 1, 2**54]))
# A one-shot this far files at the wheel's top level. (A repeating timer would reach past
# MAX_TICK within a few periods, where the core ends it and the oracle, which has no limit,
# does not.)
top = st.just(2**60)


class Boom(Exception):
    pass


class Run:
    def __init__(self, impl, start):
        self.clock = impl.Clock(impl.Config(fixed_dt=0.01))
        self.clock.advance_ticks(start)
        self.timers, self.kinds, self.log, self.states = [], [], [], []

    def callback(self, name, raise_on):
        calls = []

        def cb(tick, *count):
            calls.append(tick)
            self.log.append((name, tick, self.clock.tick, *count))
            if len(calls) == raise_on:
                raise Boom(name)

        return cb

    def budget(self, n):
        """``n`` cut so that the "each" timers fire at most 3,000 times (the oracle scans
        every timer at each firing)."""
        each = [t.period_ticks for t, kind in zip(self.timers, self.kinds, strict=True)
                if t.active and t.period_ticks and kind == "each"]
        while n and sum(n // k + 1 for k in each) > 3000:
            n //= 2
        return n

    def apply(self, op, arg):
        try:
            return self._apply(op, arg)
        except Boom as exc:
            return ("raised", exc.args)

    def _apply(self, op, arg):
        clock = self.clock
        if op in ("every", "after") and arg[0] > 2**62 - clock.tick:
            # The core refuses a first due tick past MAX_TICK; the oracle has no limit.
            return "past MAX_TICK"
        if op == "every":
            k, catch_up, raise_on = arg
            self.timers.append(clock.every_ticks(k, self.callback(len(self.timers), raise_on),
                                                 catch_up=catch_up))
            self.kinds.append(catch_up)
        elif op == "after":
            k, raise_on = arg
            self.timers.append(clock.after_ticks(k, self.callback(len(self.timers), raise_on)))
            self.kinds.append("once")
        elif op in ("cancel", "pause", "resume") and self.timers:
            getattr(self.timers[arg % len(self.timers)], op)()
        elif op == "advance_ticks":
            n = self.budget(min(arg, 2**62 - clock.tick - clock.owed))
            return clock.advance_ticks(n).steps
        elif op == "next_due":
            if clock.next_due_tick is None or self.budget(clock.next_due_tick - clock.tick) \
                    == clock.next_due_tick - clock.tick:
                return clock.advance_to_next_due().steps
        elif op == "seek":
            clock.mode = Mode.REPLAY
            clock.seek_tick(max(0, clock.tick + arg))
            clock.mode = Mode.LIVE
        elif op == "state":
            self.states.append(clock.state())
        elif op == "restore" and self.states:
            try:
                clock.restore(self.states[arg % len(self.states)])
            except ValueError:
                return "refused"
        return None

    def observe(self):
        return (self.clock.tick, self.clock.owed, self.clock.next_due_tick,
                [(t.active, t.paused, t.next_tick, t.fired, t.remaining_ticks)
                 for t in self.timers])


operations = st.one_of(
    st.tuples(st.just("every"), st.tuples(distances, st.sampled_from(["each", "coalesce"]),
                                          st.sampled_from([0, 0, 0, 2]))),
    st.tuples(st.just("every"), st.tuples(distances, st.just("each"), st.just(0))),
    st.tuples(st.just("after"), st.tuples(st.one_of(distances, top), st.sampled_from([0, 0, 1]))),
    st.tuples(st.sampled_from(["cancel", "pause", "resume"]), st.integers(0, 50)),
    st.tuples(st.just("advance_ticks"), st.one_of(st.integers(0, 300), distances)),
    st.tuples(st.just("advance_ticks"), st.one_of(st.integers(0, 300), distances)),
    st.tuples(st.just("next_due"), st.none()),
    st.tuples(st.just("next_due"), st.none()),
    st.tuples(st.just("seek"), st.integers(-70_000, 70_000)),
    st.tuples(st.just("state"), st.none()),
    st.tuples(st.just("restore"), st.integers(0, 5)),
)


@settings(max_examples=400, deadline=None)
@given(start=st.sampled_from(STARTS), ops=st.lists(operations, max_size=60))
def test_the_wheel_fires_what_the_oracle_fires(start, ops):
    core, model = Run(CORE, start), Run(ORACLE, start)
    for op, arg in ops:
        assert core.apply(op, arg) == model.apply(op, arg), (op, arg)
        assert core.log == model.log, (op, arg)
        assert core.observe() == model.observe(), (op, arg)


def test_many_timers_across_every_level_fire_in_order():
    # 5,000 timers spread from 1 tick to 2**40 ticks away, then every one of them reached by
    # advance_to_next_due: the core's order is the oracle's (due tick, then creation order).
    core, model = Run(CORE, 1000), Run(ORACLE, 1000)
    for run in (core, model):
        for i in range(5000):
            k = (i * 7919) % 5000 + 1
            run.timers.append(run.clock.after_ticks(k ** 3 if i % 3 else k,
                                                    run.callback(i, 0)))
            run.kinds.append("once")
        while run.clock.next_due_tick is not None:
            run.clock.advance_to_next_due()
    assert core.log == model.log and len(core.log) == 5000


def test_a_timer_weighs_at_most_128_bytes_with_its_share_of_the_queue():
    # The handle, its place in a wheel bucket or the near heap, and the clock's share, over
    # 10**5 timers at every distance (not the test's own list of them; the least of three
    # counts: noise only adds).
    import sys
    import tracemalloc

    from cvcclock import WorldClock

    weights = []
    for _ in range(3):
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            clock = WorldClock()
            timers = [clock.every_ticks(1 + (i * 7919) % 10**6, print) for i in range(10**5)]
            held = tracemalloc.get_traced_memory()[0] - before - sys.getsizeof(timers)
            weights.append(held / len(timers))
        finally:
            tracemalloc.stop()
        del clock, timers
    assert min(weights) <= 128, weights
