"""The edges of the int64 world: nothing wraps, nothing crashes, and refusals change nothing."""

import threading

import pytest

from cvcclock import ClockConfig, ClockFollower, Timer, WorldClock, ticks_per_step

MAX_TICK = 2**62


def state(clock):
    return (clock.tick, clock.frame, clock.total_dropped, clock.alpha, clock.next_due_tick)


def test_no_call_takes_the_tick_past_2_62():
    clock = WorldClock()
    clock.advance_ticks(MAX_TICK - 1)
    clock.step_once()
    before = state(clock)
    for call in (clock.step_once, lambda: clock.advance_ticks(1)):
        with pytest.raises(ValueError, match=r"past MAX_TICK \(4611686018427387904\)"):
            call()
        assert state(clock) == before
    clock.mode = "lockstep"
    with pytest.raises(ValueError, match="advance of 1 quanta would take the tick past"):
        clock.advance(0.0)
    assert state(clock) == before


def test_timers_never_fall_due_past_2_62():
    clock = WorldClock()
    clock.advance_ticks(10)
    with pytest.raises(ValueError, match=r"k of .* falls past MAX_TICK \(4611686018427387904\)"):
        clock.every_ticks(MAX_TICK, print)
    assert clock.next_due_tick is None
    fired = []
    timer = clock.every_ticks(MAX_TICK // 2, fired.append)
    clock.advance_ticks(MAX_TICK - 10)
    # it fired at 10 + 2**61; its next grid tick lies past 2**62, so it has ended
    assert fired == [10 + MAX_TICK // 2] and not timer.active and timer.next_tick is None


@pytest.mark.parametrize("dt, fixed_dt", [(1e30, 1.0), (1e20, 0.01)])
def test_whole_quanta_counts_past_2_62_are_refused(dt, fixed_dt):
    with pytest.raises(ValueError, match=r"more than MAX_TICK \(4611686018427387904\)"):
        ticks_per_step(dt, fixed_dt)
    clock = WorldClock(ClockConfig(fixed_dt=fixed_dt))
    with pytest.raises(ValueError, match="interval"):
        clock.every(dt, print)
    with pytest.raises(ValueError, match="dt"):
        ClockFollower.for_step(clock, dt)


def test_ticks_per_step_refuses_a_quantum_below_the_minimum():
    with pytest.raises(ValueError, match="fixed_dt"):
        ticks_per_step(1.0, 1e-9)


def test_total_dropped_saturates_instead_of_wrapping():
    clock = WorldClock(ClockConfig(fixed_dt=1e-6, scale=1e6))
    for _ in range(1200):  # each call drops about 4e15 quanta
        clock.advance(4000.0)
    assert clock.total_dropped == MAX_TICK


@pytest.mark.parametrize("field, value", [("scale", 1e7), ("lockstep_steps", 2**33),
                                          ("max_steps_per_advance", 2**33)])
def test_per_call_bounds(field, value):
    with pytest.raises(ValueError, match=field):
        ClockConfig(**{field: value})
    clock = WorldClock()
    before = clock.config
    with pytest.raises(ValueError, match=field):
        setattr(clock, field, value)
    assert clock.config == before


def test_instances_made_with_new_are_inert_not_crashing():
    follower = ClockFollower.__new__(ClockFollower)
    assert follower.alpha(5, 0.0) == 0.0 and follower.take(WorldClock()) == 0
    timer = Timer.__new__(Timer)
    timer.cancel(), timer.pause(), timer.resume()
    assert (timer.active, timer.next_tick) == (False, None)
    clock = WorldClock.__new__(WorldClock)
    assert clock.advance(1 / 60).steps == 2


def test_a_config_cannot_be_reinitialised():
    cfg = ClockConfig(fixed_dt=0.01)
    with pytest.raises(TypeError, match="immutable"):
        cfg.__init__(fixed_dt=0.5)
    assert cfg == ClockConfig(fixed_dt=0.01)


def test_a_failed_follower_reinit_changes_nothing():
    follower = ClockFollower(2, 4)
    with pytest.raises(ValueError, match="start_tick"):
        follower.__init__(3, -1)
    assert (follower.period, follower.last_tick) == (2, 4)


def test_follower_alpha_names_a_bad_clock_alpha():
    with pytest.raises(TypeError, match="clock_alpha"):
        ClockFollower(3).alpha(3, "x")
    with pytest.raises(ValueError, match="clock_alpha"):
        ClockFollower(3).alpha(3, float("nan"))


def test_an_enormous_timeout_means_forever():
    clock = WorldClock()
    clock.step_once()
    assert clock.wait_for_tick_change(0, 1e300) == 1


def test_presenting_blocks_only_the_thread_inside_it():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    inside, release = threading.Event(), threading.Event()

    def render():
        with clock.presenting():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=render)
    thread.start()
    inside.wait(10)
    assert clock.advance_ticks(3).steps == 3   # the driver thread is not presenting
    release.set()
    thread.join(10)


def test_presenting_contexts_are_entered_once_and_left_by_their_thread():
    clock = WorldClock()
    ctx = clock.presenting()
    with pytest.raises(RuntimeError, match="without being entered"):
        ctx.__exit__(None, None, None)
    with ctx:
        with pytest.raises(RuntimeError, match="already entered"):
            ctx.__enter__()
        with clock.presenting():  # nesting two contexts is fine
            pass
        with pytest.raises(RuntimeError, match="presenting"):
            clock.step_once()
    assert clock.step_once().steps == 1
