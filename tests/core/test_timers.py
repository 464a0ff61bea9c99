"""Timers fire once per elapsed interval, in order, and lose nothing; core and oracle alike."""

import pytest

from cvcclock import ClockConfig, ClockFollower, WorldClock


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
