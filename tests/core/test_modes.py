"""The mode table of the guide (docs/guide/modes.rst), row by row, and the stall guard; run
against the core and the oracle."""

import pytest

from cvcclock import ClockBank, ClockConfig, Mode, WorldClock
from support.probes import observable


def test_live_banks_wall_time_and_runs_whole_quanta(make_clock):
    clock = make_clock(fixed_dt=0.01)
    r = clock.advance(0.025)
    assert (r.steps, r.first_tick, r.dropped) == (2, 0, 0)
    assert r.alpha == pytest.approx(0.5)
    assert clock.alpha == r.alpha
    r = clock.advance(0.015)
    assert (r.steps, r.first_tick, r.dropped, r.alpha) == (2, 2, 0, 0.0)
    assert clock.tick == 4


def test_live_scale_multiplies_wall_time(make_clock):
    clock = make_clock(fixed_dt=0.01, scale=2.0)
    assert clock.advance(0.02).steps == 4
    clock.scale = 0.5
    assert clock.advance(0.02).steps == 1
    assert clock.tick == 5


def test_live_stall_guard_drops_and_counts(make_clock):
    clock = make_clock(fixed_dt=0.01, max_steps_per_advance=8)
    r = clock.advance(0.25)
    assert (r.steps, r.dropped) == (8, 17)
    assert clock.total_dropped == 17
    assert clock.tick == 8


def test_cap_scales_with_rate(make_clock):
    clock = make_clock(fixed_dt=0.01, max_steps_per_advance=8, scale=2.5, cap_scales_with_rate=True)
    r = clock.advance(0.25)  # 62.5 quanta banked; cap 8 * ceil(2.5) = 24
    assert (r.steps, r.dropped) == (24, 38)
    assert r.alpha == pytest.approx(0.5)
    clock.configure(clock.config.replace(cap_scales_with_rate=False))
    clock.scale = 2.5
    assert clock.advance(0.25).steps == 8  # without it the cap stays 8 at any speed


def test_cap_does_not_scale_below_rate_one(make_clock):
    clock = make_clock(fixed_dt=0.01, scale=0.5, cap_scales_with_rate=True, max_steps_per_advance=2)
    assert clock.advance(0.1).steps == 2


def test_lockstep_runs_exactly_lockstep_steps_whatever_the_wall(make_clock):
    clock = make_clock(fixed_dt=0.01, lockstep_steps=3)
    clock.advance(0.005)  # bank half a quantum first
    clock.mode = "lockstep"
    for wall in (0.0, 0.001, 10.0):
        r = clock.advance(wall)
        assert (r.steps, r.dropped, r.alpha) == (3, 0, 0.0)
    assert clock.alpha == 0.0
    clock.lockstep_steps = 5
    assert clock.advance(1.0).steps == 5
    assert clock.total_dropped == 0


def test_paused_runs_nothing_banks_nothing_keeps_bank_and_freezes_alpha(make_clock):
    clock = make_clock(fixed_dt=0.01)
    clock.advance(0.015)
    alpha = clock.alpha
    assert alpha == pytest.approx(0.5)
    clock.mode = Mode.PAUSED
    for _ in range(10):
        r = clock.advance(0.1)
        assert (r.steps, r.dropped) == (0, 0)
        assert r.alpha == alpha
    assert clock.tick == 1
    clock.mode = "live"
    r = clock.advance(0.005)  # the half quantum banked before the pause is still there
    assert r.steps == 1
    assert clock.tick == 2


def test_scale_zero_pauses_live(make_clock):
    clock = make_clock(fixed_dt=0.01, scale=0.0)
    assert clock.advance(1.0).steps == 0
    assert clock.tick == 0


def test_stepping_runs_nothing_on_advance_and_one_on_step_once(make_clock):
    clock = make_clock(fixed_dt=0.01)
    clock.advance(0.015)
    clock.mode = "stepping"
    assert clock.alpha == 0.0
    r = clock.advance(1.0)
    assert (r.steps, r.alpha) == (0, 0.0)
    r = clock.step_once()
    assert (r.steps, r.first_tick, r.dropped, r.alpha) == (1, 1, 0, 0.0)
    assert clock.tick == 2


def test_replay_runs_nothing_and_seek_positions(make_clock):
    clock = make_clock(fixed_dt=0.01)
    clock.mode = "replay"
    assert clock.advance(1.0).steps == 0
    clock.seek_tick(500)
    assert clock.tick == 500
    assert clock.t == pytest.approx(5.0)
    clock.seek_tick(20)
    assert clock.tick == 20
    assert clock.alpha == 0.0


@pytest.mark.parametrize("mode", list(Mode))
def test_advance_ticks_and_step_once_run_in_every_mode_without_cap(make_clock, mode):
    clock = make_clock(fixed_dt=0.01, max_steps_per_advance=1)
    clock.mode = mode
    r = clock.advance_ticks(1000)
    assert (r.steps, r.first_tick, r.dropped) == (1000, 0, 0)
    r = clock.step_once()
    assert (r.steps, r.first_tick) == (1, 1000)
    assert clock.advance_ticks(0).steps == 0
    assert clock.tick == 1001
    assert clock.frame == 0  # only advance() counts frames


@pytest.mark.parametrize("mode", [m for m in Mode if m is not Mode.REPLAY])
def test_seek_outside_replay_is_an_error_that_says_so(make_clock, mode):
    clock = make_clock()
    clock.mode = mode
    with pytest.raises(ValueError, match="replay"):
        clock.seek_tick(5)
    assert clock.tick == 0


def test_configure_restarts_and_keeps_mode(make_clock, impl):
    clock = make_clock(fixed_dt=0.01)
    clock.advance(0.5)
    clock.advance(0.123)
    clock.mode = "lockstep"
    clock.configure(impl.Config(fixed_dt=0.02, lockstep_steps=2))
    assert (clock.tick, clock.total_dropped, clock.frame, clock.alpha) == (0, 0, 0, 0.0)
    assert clock.realized_scale == 0.0
    assert clock.mode is Mode.LOCKSTEP
    assert clock.advance(0.0).steps == 2
    assert clock.t == pytest.approx(0.04)


def test_frame_counts_advance_calls_in_every_mode(make_clock):
    clock = make_clock()
    for mode in Mode:
        clock.mode = mode
        clock.advance(0.01)
    assert clock.frame == len(Mode)


def test_realized_scale_windows(make_clock):
    clock = make_clock(fixed_dt=0.01, scale=2.0, max_steps_per_advance=100)
    assert clock.realized_scale == 0.0
    clock.advance(0.1)  # running figure before the first window completes
    assert clock.realized_scale == pytest.approx(2.0)
    for _ in range(4):
        clock.advance(0.1)
    assert clock.realized_scale == pytest.approx(2.0)  # window of 0.5 s completed
    clock.scale = 1.0
    clock.advance(0.1)  # a new window is running: the completed one is still reported
    assert clock.realized_scale == pytest.approx(2.0)
    for _ in range(4):
        clock.advance(0.1)
    assert clock.realized_scale == pytest.approx(1.0)


def test_realized_scale_reads_below_request_when_the_guard_drops(make_clock):
    clock = make_clock(fixed_dt=0.01, max_steps_per_advance=5)
    for _ in range(10):
        clock.advance(0.1)
    assert clock.realized_scale == pytest.approx(0.5)
    assert clock.total_dropped == 50


def test_t_is_computed_from_tick_never_accumulated(make_clock):
    clock = make_clock(fixed_dt=0.01)
    for _ in range(1000):
        clock.step_once()
    assert clock.t == 1000 * 0.01


# -- pause and resume: the clock remembers the mode it left ------------------------------------
# The core's own (test_parity runs the oracle through pause and resume).


OTHER_MODES = [Mode.LIVE, Mode.LOCKSTEP, Mode.STEPPING, Mode.REPLAY]


@pytest.mark.parametrize("mode", OTHER_MODES)
def test_pause_remembers_the_mode_and_resume_returns_to_it(mode):
    clock = WorldClock()
    clock.mode = mode
    assert not clock.paused
    clock.pause()
    assert clock.paused and clock.mode is Mode.PAUSED
    assert clock.state().resume_mode is mode
    clock.resume()
    assert clock.mode is mode and not clock.paused


@pytest.mark.parametrize("mode", OTHER_MODES)
def test_the_mode_setter_entering_paused_is_remembered_too(mode):
    clock = WorldClock()
    clock.mode = mode
    clock.mode = "paused"
    clock.mode = Mode.PAUSED          # paused again: still the mode it first left
    clock.pause()                     # a no-op, likewise
    clock.resume()
    assert clock.mode is mode


def test_pausing_twice_and_resuming_an_unpaused_clock_change_nothing():
    clock = WorldClock()
    clock.mode = "lockstep"
    clock.advance(1 / 60)
    clock.resume()                    # not paused: nothing
    assert clock.mode is Mode.LOCKSTEP
    clock.pause()
    before = observable(clock)
    clock.pause()
    assert observable(clock) == before
    clock.resume()
    before = observable(clock)
    clock.resume()
    assert observable(clock) == before and clock.mode is Mode.LOCKSTEP


def test_a_clock_never_in_another_mode_resumes_to_live():
    for clock in (WorldClock(), WorldClock.__new__(WorldClock)):
        clock.mode = "paused"
        clock.resume()
        assert clock.mode is Mode.LIVE


@pytest.mark.parametrize("mode", OTHER_MODES)
def test_alpha_follows_the_mode_setter_through_pause_and_resume(mode):
    by_calls, by_setter = WorldClock(), WorldClock()
    for clock in (by_calls, by_setter):
        clock.advance(0.013)          # a bank of 0.56 quanta
        clock.mode = mode
        clock.advance(0.013)
    by_calls.pause()
    by_setter.mode = "paused"
    assert by_calls.alpha == by_setter.alpha
    assert by_calls.advance(1 / 60) == by_setter.advance(1 / 60)   # frozen: nothing runs
    by_calls.resume()
    by_setter.mode = mode
    assert by_calls.state() == by_setter.state()
    assert by_calls.alpha == (by_calls.state().bank if mode is Mode.LIVE else 0.0)


def test_configure_keeps_the_mode_and_the_mode_a_pause_left():
    clock = WorldClock()
    clock.mode = "stepping"
    clock.pause()
    clock.configure(ClockConfig(fixed_dt=0.01))
    assert clock.paused
    clock.resume()
    assert clock.mode is Mode.STEPPING


def test_a_bank_slot_remembers_the_mode_it_was_paused_from_as_the_clock_does():
    bank, clock = ClockBank(2), WorldClock()
    bank.set_mode("lockstep", 0)
    bank.set_mode("paused", 0)
    clock.mode = "lockstep"
    clock.pause()
    assert bank.clock_state(0) == clock.state()
    assert bank.clock_state(0).resume_mode is Mode.LOCKSTEP
    bank.mode[1] = ClockBank.MODES.index(Mode.PAUSED)     # written, seen at the next call
    bank.advance(1 / 60)
    clock.advance(1 / 60)
    assert bank.clock_state(1).resume_mode is Mode.LIVE
    bank.set_mode("stepping", 0)
    clock.resume()
    clock.mode = "stepping"
    assert bank.clock_state(0) == clock.state()


def test_pause_and_resume_work_inside_a_timer_callback_and_presenting():
    clock = WorldClock()
    clock.mode = "lockstep"
    clock.lockstep_steps = 4
    clock.after_ticks(2, lambda tick: clock.pause())
    assert clock.advance(1 / 60).steps == 4       # the call's quanta were granted already
    assert clock.paused and clock.advance(1 / 60).steps == 0
    with clock.presenting():
        clock.resume()
    assert clock.mode is Mode.LOCKSTEP


def test_paused_is_read_only_and_pause_takes_no_arguments():
    clock = WorldClock()
    with pytest.raises(AttributeError):
        clock.paused = True
    with pytest.raises(TypeError):
        clock.pause("lockstep")
    with pytest.raises(TypeError):
        clock.resume(Mode.LIVE)
    assert clock.mode is Mode.LIVE
