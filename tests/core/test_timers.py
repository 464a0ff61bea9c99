"""Timers fire once per elapsed interval, in order, and lose nothing (core and oracle alike);
their countdowns, cancel_all, and advance_to_next_due."""

import copy
import gc
import re
import tracemalloc
import weakref

import pytest

from cvcclock import ClockConfig, ClockFollower, Mode, StepResult, Timer, WorldClock
from support.pacings import DRIVER_PACINGS
from support.probes import Log, observable
from support.worlds import Ship


class Recorder:
    """A callback that records (due tick, clock.tick, clock.t[, count]) for every call."""

    def __init__(self, clock, name="timer", log=None):
        self.clock, self.name = clock, name
        self.log = [] if log is None else log

    def __call__(self, tick, *count):
        self.log.append((self.name, tick, self.clock.tick, self.clock.t, *count))


def ten_seconds(pacing, clock):
    if pacing == "batch":
        clock.advance_ticks(1000)
    elif pacing == "single-step":
        clock.mode = "stepping"
        for _ in range(1000):
            clock.step_once()
    elif pacing.startswith("live"):
        scale = float(pacing.split()[1])
        clock.scale = scale
        for _ in range(round(600 / scale)):
            clock.advance(1 / 60)
    elif pacing == "lockstep":
        clock.mode = "lockstep"
        clock.lockstep_steps = 8
        for _ in range(125):
            clock.advance(1 / 60)
    assert clock.tick == 1000


PACINGS = ["batch", "single-step", "live 1", "live 2", "live 0.5", "lockstep"]


@pytest.mark.parametrize("pacing", PACINGS)
def test_a_one_second_timer_fires_ten_times_in_ten_seconds_under_every_pacing(make_clock, pacing):
    clock = make_clock(fixed_dt=0.01, max_steps_per_advance=1000)
    rec = Recorder(clock)
    timer = clock.every(1.0, rec)
    ten_seconds(pacing, clock)
    assert rec.log == [("timer", k * 100, k * 100, k * 100 * 0.01) for k in range(1, 11)]
    assert timer.fired == 10
    assert timer.next_tick == 1100


def test_coalesce_fires_once_per_call_at_the_last_due_tick_with_the_count(make_clock):
    clock = make_clock(fixed_dt=0.01)
    rec = Recorder(clock)
    clock.every(1.0, rec, catch_up="coalesce")
    clock.advance_ticks(1000)
    assert rec.log == [("timer", 1000, 1000, 10.0, 10)]
    clock.advance_ticks(250)
    assert rec.log[-1] == ("timer", 1200, 1200, 12.0, 2)
    clock.advance_ticks(40)
    assert len(rec.log) == 2
    clock.advance_ticks(10)
    assert rec.log[-1] == ("timer", 1300, 1300, 13.0, 1)


def test_coalesce_fires_in_due_order_at_its_last_covered_tick(make_clock):
    clock = make_clock(fixed_dt=0.01)
    log = []
    clock.every_ticks(10, Recorder(clock, "ui", log), catch_up="coalesce")
    clock.every_ticks(25, Recorder(clock, "each", log))
    clock.advance_ticks(50)
    # at tick 50 the coalesced timer (made first) fires before the other one
    assert [(name, tick) for name, tick, *_ in log] == [("each", 25), ("ui", 50), ("each", 50)]
    assert log[1][-1] == 5


def test_first_fire_is_one_period_after_creation(make_clock):
    clock = make_clock(fixed_dt=0.01)
    clock.advance_ticks(37)
    rec = Recorder(clock)
    clock.every_ticks(10, rec)
    clock.advance_ticks(30)
    assert [tick for _, tick, *_ in rec.log] == [47, 57, 67]


def test_timers_due_at_the_same_tick_fire_in_creation_order(make_clock):
    clock = make_clock()
    log = []
    for name in "cab":
        clock.every_ticks(5, Recorder(clock, name, log))
    clock.after_ticks(5, Recorder(clock, "once", log))
    clock.advance_ticks(10)
    assert [(n, t) for n, t, *_ in log] == [("c", 5), ("a", 5), ("b", 5), ("once", 5),
                                             ("c", 10), ("a", 10), ("b", 10)]


def test_callbacks_may_create_and_cancel_timers(make_clock):
    clock = make_clock()
    log = []
    later = clock.after_ticks(20, Recorder(clock, "cancelled", log))
    same_tick = []

    def spawn(tick):
        log.append(("spawn", tick))
        clock.after_ticks(3, Recorder(clock, "child", log))  # due inside this advance
        later.cancel()
        same_tick[0].cancel()  # due at this tick, after us: never fires

    clock.after_ticks(5, spawn)
    same_tick.append(clock.after_ticks(5, Recorder(clock, "sibling", log)))
    clock.advance_ticks(100)
    assert [(e[0], e[1]) for e in log] == [("spawn", 5), ("child", 8)]
    assert not later.active and later.next_tick is None and later.fired == 0


def test_a_raising_callback_stops_the_advance_and_loses_nothing(make_clock):
    def run(raise_at):
        clock = make_clock(fixed_dt=0.01, max_steps_per_advance=8)
        log = []
        clock.every_ticks(7, Recorder(clock, "a", log))
        clock.every_ticks(10, Recorder(clock, "b", log))

        def maybe_raise(tick):
            log.append(("c", tick))
            if tick == raise_at:
                raise KeyError("boom")

        clock.every_ticks(10, maybe_raise)
        clock.every_ticks(10, Recorder(clock, "d", log))
        error = KeyError("unused")
        try:
            clock.advance_ticks(100)
        except KeyError as exc:
            error = exc
            assert clock.tick == raise_at
            assert clock.t == raise_at * 0.01
            assert clock.owed == 100 - raise_at
            # paused runs nothing, owed or not; the next live advance runs the owed first
            clock.mode = "paused"
            r = clock.advance(1 / 60)
            assert (r.first_tick, r.steps, clock.tick, clock.owed) == (
                raise_at, 0, raise_at, 100 - raise_at)
            clock.mode = "live"
        for _ in range(30):
            clock.advance(1 / 60)
        return log, clock.tick, clock.total_dropped, error

    clean_log, clean_tick, clean_dropped, _ = run(raise_at=None)
    log, tick, dropped, error = run(raise_at=40)
    assert error.args == ("boom",)
    assert (log, tick, dropped) == (clean_log, clean_tick, clean_dropped)
    assert ("d", 40, 40, 0.4) in log  # the timer after the raising one at that tick still fired


def test_the_exception_propagates_unchanged(make_clock):
    clock = make_clock()
    error = ValueError("mine")

    def boom(tick):
        raise error

    clock.after_ticks(3, boom)
    with pytest.raises(ValueError) as info:
        clock.advance_ticks(10)
    assert info.value is error
    assert clock.tick == 3
    assert clock.owed == 7
    r = clock.step_once()    # exactly one quantum: the first owed one
    assert (r.first_tick, r.steps, clock.tick, clock.owed) == (3, 1, 4, 6)
    r = clock.advance_ticks(10)   # exactly ten: the six owed, then four more
    assert (r.first_tick, r.steps, clock.tick, clock.owed) == (4, 10, 14, 0)


@pytest.mark.parametrize("mode", ["paused", "stepping", "replay"])
def test_advance_runs_nothing_owed_in_the_modes_that_run_nothing(make_clock, mode):
    clock = make_clock(fixed_dt=0.01)
    clock.after_ticks(2, lambda tick: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        clock.advance_ticks(995 + 2)
    clock.mode = mode
    for _ in range(3):
        r = clock.advance(1 / 60)
        assert (r.steps, clock.tick, clock.owed) == (0, 2, 995)
    clock.mode = "lockstep"
    r = clock.advance(1 / 60)       # the owed first, then lockstep's own quantum
    assert (r.first_tick, r.steps, clock.tick, clock.owed) == (2, 996, 998, 0)


def test_drop_owed_discards_the_owed_quanta_and_counts_them(make_clock):
    clock = make_clock(fixed_dt=0.01)
    log = []
    clock.after_ticks(2, lambda tick: 1 / 0)
    clock.every_ticks(2, log.append)   # due at the raising tick, after the raising timer
    with pytest.raises(ZeroDivisionError):
        clock.advance_ticks(10)
    assert (clock.tick, clock.owed, log) == (2, 8, [])
    assert clock.drop_owed() == 8
    assert (clock.tick, clock.owed, clock.total_dropped) == (2, 0, 8)
    assert clock.drop_owed() == 0
    clock.mode = "stepping"
    assert clock.advance(1 / 60).steps == 0 and log == []
    r = clock.step_once()              # the timer still due at tick 2 fires on the way
    assert (r.first_tick, r.steps, log) == ((2, 1, [2]))


def test_owed_quanta_run_outside_the_cap_in_live_mode(make_clock):
    clock = make_clock(fixed_dt=0.01, max_steps_per_advance=2)
    clock.after_ticks(1, lambda tick: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        clock.advance_ticks(50)
    r = clock.advance(0.02)
    assert (r.first_tick, r.steps, r.dropped) == (1, 51, 0)


def test_pause_keeps_the_grid_and_owes_nothing(make_clock):
    clock = make_clock()
    rec = Recorder(clock)
    timer = clock.every_ticks(100, rec)
    clock.advance_ticks(150)
    timer.pause()
    assert (timer.active, timer.paused) == (False, True)
    clock.advance_ticks(270)  # 200, 300, 400 paused through
    assert timer.next_tick == 500
    timer.resume()
    assert (timer.active, timer.paused, timer.next_tick) == (True, False, 500)
    clock.advance_ticks(200)
    assert [t for _, t, *_ in rec.log] == [100, 500, 600]
    assert timer.fired == 3


def test_a_one_shot_paused_past_its_tick_ends_without_firing(make_clock):
    clock = make_clock()
    rec = Recorder(clock)
    once = clock.after_ticks(10, rec)
    assert once.period_ticks is None
    once.pause()
    clock.advance_ticks(20)
    assert (once.paused, once.next_tick) == (True, None)  # nothing left to resume to
    once.resume()
    assert (once.active, once.paused, once.next_tick, once.fired) == (False, False, None, 0)
    clock.advance_ticks(20)
    assert rec.log == []


def test_a_one_shot_resumed_before_its_tick_fires_on_time(make_clock):
    clock = make_clock()
    rec = Recorder(clock)
    once = clock.after_ticks(10, rec)
    once.pause()
    clock.advance_ticks(5)
    once.resume()
    clock.advance_ticks(20)
    assert [t for _, t, *_ in rec.log] == [10]
    assert not once.active


def test_configure_ends_every_timer(make_clock, impl):
    clock = make_clock()
    rec = Recorder(clock)
    running = clock.every_ticks(5, rec)
    paused = clock.every_ticks(5, rec)
    paused.pause()
    clock.configure(impl.Config(fixed_dt=0.02))
    paused.resume()
    clock.advance_ticks(50)
    assert rec.log == []
    assert not running.active and not paused.active and running.next_tick is None
    assert clock.next_due_tick is None


@pytest.mark.parametrize("target", [1000, 250, 20, 150])
def test_seeking_fires_nothing_and_realigns_to_the_grid(make_clock, target):
    clock = make_clock()
    rec = Recorder(clock)
    repeating = clock.every_ticks(100, rec)
    once_ahead = clock.after_ticks(400, rec)
    clock.advance_ticks(150)
    fired = list(rec.log)
    clock.mode = "replay"
    clock.seek_tick(target)
    assert rec.log == fired
    assert repeating.next_tick == (target // 100 + 1) * 100
    assert once_ahead.active == (target < 400)
    clock.advance_ticks(100)
    assert [t for _, t, *_ in rec.log[len(fired):]] == sorted(
        [(target // 100 + 1) * 100] + ([400] if target < 400 <= target + 100 else []))


def test_next_due_tick_lets_a_harness_jump_to_the_next_event(make_clock):
    clock = make_clock()
    assert clock.next_due_tick is None
    rec = Recorder(clock)
    clock.after_ticks(1234, rec)
    clock.every_ticks(5000, rec)
    while clock.next_due_tick is not None and clock.tick < 10_000:
        clock.advance_ticks(clock.next_due_tick - clock.tick)
    assert [t for _, t, *_ in rec.log] == [1234, 5000, 10000]


def test_advancing_inside_a_callback_is_refused():
    clock = WorldClock()
    errors = []
    assert clock.can_advance

    def nested(tick):
        assert not clock.can_advance
        for call in (clock.step_once, lambda: clock.advance(0.1), lambda: clock.advance_ticks(1)):
            with pytest.raises(RuntimeError, match="timer callback"):
                call()
        errors.append(tick)

    clock.after_ticks(2, nested)
    clock.advance_ticks(5)
    assert errors == [2] and clock.tick == 5


def test_presentation_costs_zero_world_time():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    follower = ClockFollower.for_step(clock, 0.06)
    clock.advance(0.137)
    twin = WorldClock(ClockConfig(fixed_dt=0.01))
    twin.advance(0.137)
    before = (clock.tick, clock.t, clock.alpha, clock.frame)
    with clock.presenting() as presented:
        assert presented is clock and not clock.can_advance
        frame = (clock.alpha, clock.t, follower.alpha(clock.tick, clock.alpha))
        for call in (lambda: clock.advance(1 / 60), clock.step_once, lambda: clock.advance_ticks(1),
                     lambda: clock.configure(ClockConfig())):
            with pytest.raises(RuntimeError, match="presenting"):
                call()
        clock.mode = "replay"
        with pytest.raises(RuntimeError, match="presenting"):
            clock.seek_tick(3)
        clock.mode = "live"
    assert frame[2] == pytest.approx((clock.tick % 6 + frame[0]) / 6)
    assert (clock.tick, clock.t, clock.alpha, clock.frame) == before
    assert clock.advance(0.013) == twin.advance(0.013)  # the bank is untouched


@pytest.mark.parametrize(
    "make, error, words",
    [(lambda c: c.every(0.015, print), ValueError, ["interval", "0.015", "1.5 quanta"]),
     (lambda c: c.after(-1.0, print), ValueError, ["delay", "-1.0"]),
     (lambda c: c.every_ticks(0, print), ValueError, ["k", "0"]),
     (lambda c: c.after_ticks(2.5, print), TypeError, ["k", "2.5"]),
     (lambda c: c.every(1.0, "print"), TypeError, ["callback", "'print'"]),
     (lambda c: c.every(1.0, print, catch_up="burst"), ValueError, ["catch_up", "'burst'"])],
)
def test_bad_timer_arguments_name_the_argument_and_add_nothing(make, error, words):
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    clock.every_ticks(50, print)
    with pytest.raises(error) as info:
        make(clock)
    for word in words:
        assert word in str(info.value)
    assert clock.next_due_tick == 50
    clock.advance_ticks(49)
    assert clock.next_due_tick == 50


def test_timer_handles_cannot_be_made_directly():
    from cvcclock import Timer

    with pytest.raises(TypeError):
        Timer()


def test_ten_thousand_far_timers_stay_put_through_a_wide_advance_and_cancels():
    """Correctness only; that skipping them costs nothing is benchmarks/test_bench_timers.py."""
    clock = WorldClock()
    timers = [clock.every_ticks(10**7 + i, print) for i in range(10_000)]
    clock.advance_ticks(10**6)
    assert clock.tick == 10**6 and all(t.fired == 0 for t in timers)
    for t in timers[:9_000]:
        t.cancel()
    assert clock.next_due_tick == 10**7 + 9_000
    assert [t.next_tick for t in timers[9_000:]] == [10**7 + i for i in range(9_000, 10_000)]


# -- a coalescing timer after another callback raised ------------------------------------------


def test_a_coalesce_timer_fires_once_per_call_after_another_callback_raised(make_clock):
    clock = make_clock(fixed_dt=0.01)
    fires = []   # (call number, tick, count)
    call = [0]
    clock.every_ticks(2, lambda tick, count: fires.append((call[0], tick, count)),
                      catch_up="coalesce")
    clock.after_ticks(3, lambda tick: 1 / 0)
    call[0] = 1
    with pytest.raises(ZeroDivisionError):
        clock.advance_ticks(10)    # covers 2..10; raises at 3, before the coalesced fire at 10
    assert fires == []
    call[0] = 2
    clock.advance_ticks(10)        # runs 4..13: the last due tick it covers is 12
    assert fires == [(2, 12, 6)]
    call[0] = 3
    clock.advance_ticks(1)
    clock.advance_ticks(1)         # 14
    assert fires == [(2, 12, 6), (3, 14, 1)]


# -- paused timers nobody holds are released ---------------------------------------------------


def test_a_paused_timer_whose_handle_is_dropped_is_released():
    """The clock keeps no paused timer alive: pausing takes it off the queue at once."""
    clock = WorldClock()
    refs = []
    for _ in range(1000):
        timer = clock.every_ticks(5, lambda tick: None)
        timer.pause()
        refs.append(weakref.ref(timer))
        del timer
    gc.collect()
    assert sum(ref() is not None for ref in refs) == 0
    kept = clock.every_ticks(5, lambda tick: None)
    kept.pause()
    clock.advance_ticks(12)
    kept.resume()                  # a handle still held resumes on its grid
    assert kept.next_tick == 15
    kept.pause()
    clock.configure(ClockConfig())
    assert not kept.paused and kept.next_tick is None   # configure still ends it


def test_memory_stays_bounded_over_many_paused_and_dropped_timers():
    clock = WorldClock()

    def cycles(n):
        for _ in range(n):
            clock.every_ticks(7, lambda tick: None).pause()

    cycles(1000)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        cycles(100_000)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 256 * 1024, grown


# -- a timer's countdown: remaining_ticks, remaining and fraction ------------------------------
# The core's own, as the sections after it (test_parity runs the oracle through them).


def test_a_repeating_timers_countdown_runs_from_its_period_to_zero():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    seen = []
    timer = clock.every_ticks(4, lambda tick: seen.append(
        (tick, timer.remaining_ticks, timer.fraction)))
    readings = []
    for _ in range(9):
        readings.append((clock.tick, timer.remaining_ticks, timer.remaining, timer.fraction))
        clock.step_once()
    assert readings == [(0, 4, 0.04, 0.0), (1, 3, 0.03, 0.25), (2, 2, 0.02, 0.5),
                        (3, 1, 0.01, 0.75), (4, 4, 0.04, 0.0), (5, 3, 0.03, 0.25),
                        (6, 2, 0.02, 0.5), (7, 1, 0.01, 0.75), (8, 4, 0.04, 0.0)]
    assert seen == [(4, 4, 0.0), (8, 4, 0.0)]       # just fired: a full period to go


def test_a_one_shot_counts_down_its_delay_and_reads_spent_after():
    clock = WorldClock()
    clock.advance_ticks(10)
    timer = clock.after_ticks(5, lambda tick: None)
    clock.advance_ticks(2)
    assert (timer.remaining_ticks, timer.fraction) == (3, 0.4)
    assert timer.remaining == 3 * clock.fixed_dt
    clock.advance_ticks(3)
    assert not timer.active
    assert (timer.remaining_ticks, timer.remaining, timer.fraction) == (0, 0.0, 1.0)


def test_a_cancelled_or_bare_timer_reads_ended():
    clock = WorldClock()
    timer = clock.every_ticks(6, print)
    clock.advance_ticks(2)
    timer.cancel()
    for t in (timer, Timer.__new__(Timer)):
        assert (t.remaining_ticks, t.remaining, t.fraction) == (0, 0.0, 1.0)


def test_a_timer_still_due_at_the_current_tick_reads_zero_remaining():
    clock = WorldClock()

    def boom(tick):
        raise RuntimeError("boom")

    clock.after_ticks(3, boom)
    later = clock.after_ticks(3, print)            # due at the same tick, after boom
    with pytest.raises(RuntimeError):
        clock.advance_ticks(3)
    assert clock.tick == 3 and later.active
    assert (later.remaining_ticks, later.fraction) == (0, 1.0)


def test_the_countdown_is_frozen_while_paused_and_follows_the_grid_once_resumed():
    clock = WorldClock()
    timer = clock.every_ticks(10, print)
    clock.advance_ticks(3)
    timer.pause()
    frozen = (timer.remaining_ticks, timer.remaining, timer.fraction)
    assert frozen == (7, 7 * clock.fixed_dt, 0.3)
    clock.advance_ticks(15)                         # tick 18: the grid goes on
    assert (timer.remaining_ticks, timer.remaining, timer.fraction) == frozen
    assert timer.next_tick == 20
    state = clock.state()
    assert state.timers[0].paused_at == 3
    assert (copy.deepcopy((clock, timer))[1].remaining_ticks) == 7
    timer.resume()
    assert (timer.remaining_ticks, timer.fraction) == (2, 0.8)
    assert clock.state().timers[0].paused_at is None
    clock.restore(state)                            # paused again, frozen as it was
    assert (timer.paused, timer.remaining_ticks, timer.fraction) == (True, 7, 0.3)


def test_a_one_shot_sought_back_before_it_was_made_reads_no_progress():
    clock = WorldClock()
    clock.advance_ticks(50)
    timer = clock.after_ticks(10, print)
    clock.mode = "replay"
    clock.seek_tick(20)                             # before its anchor: more than its delay
    assert (timer.remaining_ticks, timer.fraction) == (40, 0.0)


def test_a_coalescing_timer_carried_past_several_intervals_clamps_its_fraction():
    clock = WorldClock()
    seen = []
    coalescing = clock.every_ticks(2, lambda tick, count: None, catch_up="coalesce")
    clock.after_ticks(3, lambda tick: seen.append(
        (tick, coalescing.remaining_ticks, coalescing.fraction)))
    clock.advance_ticks(9)       # coalescing moves to tick 8 at tick 2; the one-shot reads at 3
    assert seen == [(3, 5, 0.0)]


@pytest.mark.parametrize("pacing", DRIVER_PACINGS)
def test_the_countdown_read_at_each_tick_is_the_same_under_every_pacing(pacing):
    assert countdown_log(pacing) == countdown_log("single-step")


def countdown_log(pacing):
    """A timer's countdown read by a probe at every tick through a pause and a resume."""
    setup, frame = DRIVER_PACINGS[pacing]
    clock = WorldClock()
    cooldown = clock.every_ticks(9, print)
    one_shot = clock.after_ticks(40, print)
    log = []
    clock.every_ticks(1, lambda tick: log.append(
        (tick, cooldown.remaining_ticks, cooldown.remaining, cooldown.fraction,
         one_shot.remaining_ticks, one_shot.fraction)))
    clock.after_ticks(13, lambda tick: cooldown.pause())
    clock.after_ticks(29, lambda tick: cooldown.resume())
    setup(clock)
    while clock.tick < 60:
        frame(clock)
    return log[:60]


# -- cancel_all: every timer of one callback ---------------------------------------------------


def test_cancel_all_cancels_every_live_timer_with_an_equal_callback():
    clock = WorldClock()
    ship, other = Ship(), Ship()
    timers = [clock.every_ticks(3, ship.fire), clock.after_ticks(5, ship.fire),
              clock.every_ticks(4, other.fire), clock.every_ticks(7, ship.fire)]
    timers[3].pause()
    assert clock.cancel_all(ship.fire) == 3          # a new bound method: equal, not identical
    assert [t.active or t.paused for t in timers] == [False, False, True, False]
    assert clock.cancel_all(ship.fire) == 0
    clock.advance_ticks(10)
    assert ship.shots == [] and other.shots == [4, 8]
    assert clock.cancel_all(print) == 0


def test_cancel_all_from_inside_a_callback_cancels_the_firing_timer_too():
    clock = WorldClock()
    log = []

    def fire(tick):
        log.append(tick)
        if tick == 6:
            log.append(clock.cancel_all(fire))

    timers = [clock.every_ticks(3, fire), clock.every_ticks(2, fire)]
    clock.advance_ticks(20)
    assert log == [2, 3, 4, 6, 2]          # tick 6: the 3s fire first and cancel both
    assert not any(t.active for t in timers) and clock.tick == 20


def test_cancel_all_compares_every_callback_before_cancelling_any():
    class Touchy:
        def __init__(self, clock, blow_up):
            self.clock, self.blow_up = clock, blow_up

        def __call__(self, tick):
            pass

        def __eq__(self, other):
            if self.blow_up:
                raise RuntimeError("cannot compare")
            return other is target

        __hash__ = object.__hash__

    clock = WorldClock()
    target = Touchy(clock, False)
    timers = [clock.every_ticks(2, target), clock.every_ticks(3, Touchy(clock, True))]
    before = observable(clock)
    with pytest.raises(RuntimeError, match="cannot compare"):
        clock.cancel_all(target)
    assert observable(clock) == before and all(t.active for t in timers)


def test_cancel_all_counts_a_timer_an_eq_cancelled_first_only_once():
    clock = WorldClock()

    class Cancelling:
        def __call__(self, tick):
            pass

        def __eq__(self, other):
            victim.cancel()                  # a comparison with side effects
            return True

        __hash__ = object.__hash__

    victim = clock.every_ticks(2, print)
    clock.every_ticks(3, Cancelling())
    assert clock.cancel_all(print) == 1 and clock.next_due_tick is None


@pytest.mark.parametrize("bad", [None, 3, "print"])
def test_cancel_all_refuses_what_is_not_callable_and_changes_nothing(bad):
    clock = WorldClock()
    clock.every_ticks(2, print)
    before = observable(clock)
    with pytest.raises(TypeError, match=re.escape(f"callback must be callable, got {bad!r}")):
        clock.cancel_all(bad)
    assert observable(clock) == before


@pytest.mark.parametrize("pacing", DRIVER_PACINGS)
def test_cancel_all_stops_the_same_firings_under_every_pacing(pacing):
    assert cancel_log(pacing) == cancel_log("single-step")


def cancel_log(pacing):
    setup, frame = DRIVER_PACINGS[pacing]
    clock = WorldClock()
    ship, log = Ship(), []
    clock.every_ticks(3, ship.fire)
    clock.every_ticks(5, ship.fire)
    clock.every_ticks(4, lambda tick: log.append(("probe", tick)))
    clock.after_ticks(23, lambda tick: log.append(("cancelled", clock.cancel_all(ship.fire))))
    setup(clock)
    while clock.tick < 40:
        frame(clock)
    return ship.shots, [entry for entry in log if entry[0] == "cancelled" or entry[1] <= 40]


# -- advance_to_next_due: jump to the next timer and fire it -----------------------------------


def test_advance_to_next_due_runs_to_the_next_timer_and_fires_it():
    clock = WorldClock()
    log = Log()
    clock.every_ticks(5, log)
    clock.after_ticks(7, log)
    clock.advance_ticks(1)
    results = []
    while result := clock.advance_to_next_due():
        results.append((result.first_tick, result.steps, result.last_tick))
        if clock.tick >= 15:
            break
    assert results == [(1, 4, 5), (5, 2, 7), (7, 3, 10), (10, 5, 15)]
    assert log.ticks == [(5,), (7,), (10,), (15,)]


def test_advance_to_next_due_is_advance_ticks_to_the_next_due_tick_in_every_mode():
    for mode in list(Mode):
        jumping, batch = WorldClock(), WorldClock()
        for clock in (jumping, batch):
            clock.mode = mode
            clock.every_ticks(6, Log())
            clock.advance_ticks(2)
        assert jumping.advance_to_next_due() == batch.advance_ticks(batch.next_due_tick
                                                                    - batch.tick)
        assert jumping.state() == batch.state()


def test_with_no_timer_advance_to_next_due_runs_nothing_and_is_falsy():
    clock = WorldClock()
    clock.advance_ticks(4)
    before = observable(clock)
    result = clock.advance_to_next_due()
    assert result == StepResult(0, 4, 0, 0.0) and not result
    assert observable(clock) == before


def test_the_harness_loop_ends_when_the_timers_are_spent():
    clock = WorldClock()
    log = Log()
    for k in (3, 8, 8, 20):
        clock.after_ticks(k, log)
    jumps = 0
    while clock.advance_to_next_due():
        jumps += 1
    assert (jumps, clock.tick, log.ticks) == (3, 20, [(3,), (8,), (8,), (20,)])


def boom(tick):
    raise RuntimeError(f"boom at {tick}")


def test_owed_quanta_are_the_first_it_runs_and_those_beyond_the_due_tick_stay_owed():
    clock = WorldClock()
    clock.after_ticks(2, boom)
    clock.every_ticks(5, Log())
    with pytest.raises(RuntimeError):
        clock.advance_ticks(20)                   # stops at 2, owing 18
    assert (clock.tick, clock.owed) == (2, 18)
    result = clock.advance_to_next_due()         # to 5: three of the owed
    assert (result.steps, clock.tick, clock.owed) == (3, 5, 15)


def test_timers_left_due_at_the_current_tick_fire_first_then_it_runs_on():
    clock = WorldClock()
    log = Log()
    clock.after_ticks(4, boom)
    clock.after_ticks(4, log)                     # due at 4 too, after boom
    clock.after_ticks(9, log)
    with pytest.raises(RuntimeError):
        clock.advance_to_next_due()
    assert (clock.tick, clock.owed, log.ticks) == (4, 0, [])
    result = clock.advance_to_next_due()
    assert (result.first_tick, result.steps, log.ticks) == (4, 5, [(4,), (9,)])
    clock.after_ticks(3, boom)
    clock.after_ticks(3, log)
    with pytest.raises(RuntimeError):
        clock.advance_to_next_due()
    assert not clock.advance_to_next_due()       # fires the one left due; nothing after it
    assert log.ticks[-1] == (12,) and clock.next_due_tick is None


def test_advance_to_next_due_is_refused_inside_a_callback_and_presenting():
    clock = WorldClock()
    errors = []

    def inside(tick):
        try:
            clock.advance_to_next_due()
        except RuntimeError as exc:
            errors.append(str(exc))

    clock.after_ticks(2, inside)
    clock.after_ticks(6, print)
    clock.advance_ticks(3)
    assert errors == ["the clock cannot advance from inside a timer callback"]
    before = observable(clock)
    with clock.presenting(), pytest.raises(RuntimeError, match="presenting"):
        clock.advance_to_next_due()
    assert observable(clock) == before


def test_advance_to_next_due_takes_no_arguments():
    clock = WorldClock()
    clock.every_ticks(2, print)
    before = observable(clock)
    with pytest.raises(TypeError):
        clock.advance_to_next_due(3)
    assert observable(clock) == before
