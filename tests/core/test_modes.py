"""The mode table of the guide (docs/guide/modes.rst), row by row, and the stall guard; run
against the core and the oracle."""

import pytest

from cvcclock import Mode


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


