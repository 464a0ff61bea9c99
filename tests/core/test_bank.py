"""Exactness of the bank: quanta are never lost or invented by rounding (every quantum the wall
time grants is run, dropped by the stall guard and counted, or still in the bank)."""

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvcclock import ClockConfig, WorldClock


def test_two_quanta_per_sixtieth_on_a_120hz_clock_for_a_million_frames():
    clock = WorldClock(ClockConfig(fixed_dt=1 / 120))
    advance = clock.advance
    counts = {advance(1 / 60).steps for _ in range(10**6)}
    assert counts == {2}
    assert clock.tick == 2 * 10**6
    assert clock.total_dropped == 0


def test_six_thousand_sixtieths_make_tick_ten_thousand_on_a_hundredth_clock():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    for _ in range(6000):
        clock.advance(1 / 60)
    assert clock.tick == 10_000
    assert clock.total_dropped == 0


def test_microsecond_quantum():
    clock = WorldClock(ClockConfig(fixed_dt=1e-6, max_steps_per_advance=10**6))
    for _ in range(1000):
        assert clock.advance(1e-3).steps == 1000
    assert clock.tick == 10**6


def _assert_conserved(clock, banked_quanta):
    accounted = clock.tick + clock.total_dropped + clock.alpha
    assert abs(accounted - math.fsum(banked_quanta)) < 1.0


wall_dts = st.floats(min_value=0.0, max_value=0.2, allow_nan=False)
scales = st.sampled_from([0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.7])
fixed_dts = st.sampled_from([1e-6, 1 / 1000, 1 / 240, 1 / 120, 0.01, 1 / 60, 0.1])


@settings(max_examples=200, deadline=None)
@given(fixed_dt=fixed_dts, frames=st.lists(st.tuples(wall_dts, scales), max_size=300))
def test_conservation_law_property(fixed_dt, frames):
    """Quanta run + dropped + bank = banked world time / fixed_dt, within one quantum."""
    clock = WorldClock(ClockConfig(fixed_dt=fixed_dt, max_steps_per_advance=5))
    banked = []
    for wall_dt, scale in frames:
        clock.scale = scale
        banked.append(wall_dt * scale / fixed_dt)
        clock.advance(wall_dt)
    _assert_conserved(clock, banked)


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), fixed_dt=st.sampled_from([1 / 120, 0.01, 1e-6]))
def test_conservation_law_over_a_million_advances(seed, fixed_dt):
    import random

    rng = random.Random(seed)
    clock = WorldClock(ClockConfig(fixed_dt=fixed_dt, max_steps_per_advance=4))
    advance = clock.advance
    banked = []
    choices = [1 / 60, 1 / 30, 1 / 144, 0.0, 0.0123456789]
    for _ in range(10**6):
        wall_dt = rng.choice(choices)
        banked.append(wall_dt / fixed_dt)
        advance(wall_dt)
    _assert_conserved(clock, banked)


def _exact_quanta(wall_dt, scale, fixed_dt):
    """The true quanta of one frame, from the exact values of the floats given."""
    return Fraction(wall_dt) * Fraction(scale) / Fraction(fixed_dt)


@pytest.mark.parametrize("scale", [1.0, 1e3, 1e6])
def test_conservation_at_the_documented_limits_over_a_million_frames(scale):
    """fixed_dt 1e-6 at scale 1e6 banks 1.7e10 quanta a frame, one ulp of which is 4e-6
    quanta: a rounded quotient would be off by more than a quantum after 10**6 frames."""
    fixed_dt, wall_dt, frames = 1e-6, 1 / 60, 10**6
    clock = WorldClock(ClockConfig(fixed_dt=fixed_dt, scale=scale,
                                   max_steps_per_advance=2**32))
    advance = clock.advance
    for _ in range(frames):
        advance(wall_dt)
    exact = frames * _exact_quanta(wall_dt, scale, fixed_dt)
    accounted = clock.tick + clock.total_dropped + Fraction(clock.alpha)
    assert abs(accounted - exact) < Fraction(1, 1000)
    assert abs(clock.alpha - float(exact - math.floor(exact))) < 1e-3


@settings(max_examples=200, deadline=None)
@given(fixed_dt=fixed_dts,
       frames=st.lists(st.tuples(wall_dts, st.sampled_from([0.0, 1.0, 7.3, 1e3, 123456.7, 1e6])),
                       max_size=300))
def test_conservation_law_property_at_any_scale(fixed_dt, frames):
    """Against the exact rational bank, for quotients on both sides of the exact path."""
    clock = WorldClock(ClockConfig(fixed_dt=fixed_dt, max_steps_per_advance=2**32))
    exact = Fraction(0)
    for wall_dt, scale in frames:
        clock.scale = scale
        exact += _exact_quanta(wall_dt, scale, fixed_dt)
        clock.advance(wall_dt)
    accounted = clock.tick + clock.total_dropped + Fraction(clock.alpha)
    assert abs(accounted - exact) < Fraction(1, 10**6)
