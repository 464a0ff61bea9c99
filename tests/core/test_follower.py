"""Followers: whole-quantum periods, take, alpha and resynchronisation; core and oracle alike."""

import re

import pytest

from cvcclock import ClockBank, ClockConfig, ClockFollower, WorldClock, ticks_per_step
from support.pacings import DRIVER_PACINGS


@pytest.mark.parametrize(
    "dt, fixed_dt, k",
    [(0.06, 0.01, 6), (0.05, 0.01, 5), (0.1, 0.01, 10), (0.01, 0.01, 1), (1 / 60, 1 / 120, 2),
     (0.3, 0.1, 3), (1.0, 1e-6, 10**6)],
)
def test_ticks_per_step_whole_quanta(impl, dt, fixed_dt, k):
    assert impl.ticks_per_step(dt, fixed_dt) == k


def test_ticks_per_step_names_the_fraction_and_the_nearest_counts():
    with pytest.raises(ValueError, match=r"7\.2 quanta") as info:
        ticks_per_step(0.06, 1 / 120)
    assert "7 (" in str(info.value) and "8 (" in str(info.value)
    assert "dt=0.06" in str(info.value)


@pytest.mark.parametrize("dt", [0.005, 0.015, 0.0])
def test_ticks_per_step_rejects_fractions_and_zero(impl, dt):
    with pytest.raises(ValueError):
        impl.ticks_per_step(dt, 0.01)


def test_take_counts_steps_due_at_multiples_of_k(make_clock, impl):
    clock = make_clock(fixed_dt=0.01)
    f = impl.Follower.for_step(clock, 0.06)
    assert f.period == 6
    seen = []
    for _ in range(20):
        clock.step_once()
        seen.append(f.take(clock))
    assert seen == [0, 0, 0, 0, 0, 1] * 3 + [0, 0]
    clock.advance_ticks(25)  # ticks 21..45 hold 24, 30, 36 and 42
    assert f.take(clock) == 4
    assert f.take(clock) == 0


def test_a_new_follower_owes_nothing_for_the_past(make_clock, impl):
    clock = make_clock(fixed_dt=0.01)
    clock.advance_ticks(100)
    f = impl.Follower.for_step(clock, 0.05)
    assert f.take(clock) == 0
    clock.advance_ticks(5)
    assert f.take(clock) == 1


def test_follower_with_start_tick_owes_steps_after_it(make_clock, impl):
    clock = make_clock(fixed_dt=0.01)
    clock.advance_ticks(60)
    assert impl.Follower(6).take(clock) == 10
    assert impl.Follower(6, 30).take(clock) == 5
    ahead = impl.Follower(6, 100)
    assert ahead.take(clock) == 0  # the clock has not reached its start yet
    clock.advance_ticks(50)
    assert ahead.take(clock) == 2  # ticks 102 and 108


@pytest.mark.parametrize("disruption", ["configure", "seek_forward", "seek_back"])
def test_take_returns_zero_once_after_a_discontinuity_then_resyncs(make_clock, impl, disruption):
    clock = make_clock(fixed_dt=0.01)
    f = impl.Follower.for_step(clock, 0.02)
    clock.advance_ticks(10)
    if disruption == "configure":
        clock.configure(impl.Config(fixed_dt=0.01))
    else:
        clock.mode = "replay"
        clock.seek_tick(1000 if disruption == "seek_forward" else 3)
    assert f.take(clock) == 0
    start = clock.tick
    clock.advance_ticks(4)
    assert f.take(clock) == (start + 4) // 2 - start // 2


def test_seek_to_the_current_tick_is_not_a_discontinuity():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    f = ClockFollower.for_step(clock, 0.02)
    clock.advance_ticks(10)
    clock.mode = "replay"
    before = clock.discontinuities
    clock.seek_tick(10)
    assert clock.discontinuities == before
    assert f.take(clock) == 5


def test_follower_alpha_is_the_fraction_into_its_own_step(impl):
    f = impl.Follower(6)
    assert f.alpha(12, 0.0) == 0.0
    assert f.alpha(15, 0.0) == 0.5
    assert f.alpha(14, 0.5) == pytest.approx(2.5 / 6)


def test_followers_never_advance_the_clock():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    f = ClockFollower.for_step(clock, 0.01)
    for _ in range(10):
        f.take(clock)
        f.alpha(clock.tick, clock.alpha)
    assert (clock.tick, clock.frame) == (0, 0)


def test_pausing_keeps_the_bank_for_followers():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    f = ClockFollower.for_step(clock, 0.02)
    clock.advance(0.015)  # tick 1, half a quantum banked
    clock.mode = "paused"
    clock.advance(5.0)  # not banked
    clock.mode = "live"
    clock.advance(0.005)
    assert clock.tick == 2
    assert f.take(clock) == 1


def test_follower_is_picklable():
    import pickle

    clock = WorldClock()
    f = ClockFollower.for_step(clock, 1 / 60)
    clock.advance_ticks(5)
    g = pickle.loads(pickle.dumps(f))
    assert (g.period, g.last_tick) == (2, 0)
    assert g.take(clock) == f.take(clock) == 2


# -- alpha_of: a follower's alpha read off its clock -------------------------------------------


@pytest.mark.parametrize("pacing", DRIVER_PACINGS)
def test_alpha_of_is_alpha_at_the_clocks_tick_and_alpha_under_every_pacing(pacing):
    setup, frame = DRIVER_PACINGS[pacing]
    clock = WorldClock()
    clock.every_ticks(4, lambda tick: None)        # something for "next due" to jump to
    followers = [ClockFollower(k) for k in (1, 3, 7)]
    setup(clock)
    for i in range(40):
        frame(clock)
        if i == 20:
            clock.pause()
        for f in followers:
            assert f.alpha_of(clock) == f.alpha(clock.tick, clock.alpha)
    clock.configure(ClockConfig(fixed_dt=0.01))
    assert [f.alpha_of(clock) for f in followers] == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("bad", [None, 3, ClockBank(1)])
def test_alpha_of_refuses_what_is_not_a_clock_naming_it(bad):
    follower = ClockFollower(3, start_tick=5)
    with pytest.raises(TypeError, match=re.escape(f"clock must be a WorldClock, got {bad!r}")):
        follower.alpha_of(bad)
    assert follower.last_tick == 5


# -- a follower's repr and the clock alpha it takes --------------------------------------------


def test_follower_repr_is_a_valid_call():
    f = ClockFollower(3, start_tick=7)
    again = eval(repr(f), {"ClockFollower": ClockFollower})
    assert (again.period, again.last_tick) == (3, 7)


@pytest.mark.parametrize("clock_alpha", [1.0, 2.0, -0.1])
def test_follower_alpha_refuses_a_clock_alpha_outside_zero_one(clock_alpha):
    with pytest.raises(ValueError, match=r"clock_alpha must be in \[0, 1\)"):
        ClockFollower(3).alpha(5, clock_alpha)
