"""The clock's argument rules at its own calls: a bad argument to a WorldClock, a ClockConfig or
a ClockFollower gets a clear error naming the argument and the value, and changes nothing.

The rules themselves, and their use across the Python layer, are ``tests/test_checks.py``.
"""

import math

import pytest

from cvcclock import ClockConfig, ClockFollower, Mode, WorldClock


def observable(clock):
    """Everything a user can read off a clock, its config and its timers included."""
    return (clock.tick, clock.t, clock.alpha, clock.total_dropped, clock.frame,
            clock.realized_scale, clock.mode, clock.config, clock.discontinuities,
            clock.next_due_tick, [(t.next_tick, t.fired, t.active) for t in clock.test_timers])


class Observed:
    """A clock with a repeating timer and a paused one-shot on it, remembered for ``observable``."""

    def __init__(self, clock):
        self._clock = clock
        self.test_timers = [clock.every_ticks(7, lambda tick: None),
                            clock.after_ticks(20, lambda tick: None)]
        self.test_timers[1].pause()

    def __getattr__(self, name):
        return getattr(self._clock, name)

    def __setattr__(self, name, value):
        if name in ("_clock", "test_timers"):
            object.__setattr__(self, name, value)
        else:
            setattr(self._clock, name, value)


@pytest.fixture
def clock():
    """A clock with state in every field: ticks run, quanta dropped, a bank, a window."""
    c = WorldClock(ClockConfig(fixed_dt=0.01, max_steps_per_advance=3))
    c.advance(0.1)
    c.advance(0.015)
    return Observed(c)


BAD_CALLS = [
    ("advance", (-0.01,), ValueError, "wall_dt", "-0.01"),
    ("advance", (math.nan,), ValueError, "wall_dt", "nan"),
    ("advance", (math.inf,), ValueError, "wall_dt", "inf"),
    ("advance", ("0.1",), TypeError, "wall_dt", "'0.1'"),
    ("advance", (True,), TypeError, "wall_dt", "True"),
    ("advance", (None,), TypeError, "wall_dt", "None"),
    ("advance_ticks", (-1,), ValueError, "n", "-1"),
    ("advance_ticks", (1.5,), TypeError, "n", "1.5"),
    ("advance_ticks", (True,), TypeError, "n", "True"),
    ("advance_ticks", ("3",), TypeError, "n", "'3'"),
    ("advance_ticks", (2**70,), ValueError, "n", str(2**70)),
    ("seek_tick", (5,), ValueError, "seek_tick", "live"),
    ("configure", ({"fixed_dt": 0.01},), TypeError, "config", "fixed_dt"),
    ("wait_for_tick_change", (1.5, 0.0), TypeError, "tick", "1.5"),
    ("wait_for_tick_change", (0, -1.0), ValueError, "timeout", "-1.0"),
]


@pytest.mark.parametrize("method, args, error, name, value", BAD_CALLS,
                         ids=[f"{c[0]}{c[1]!r}" for c in BAD_CALLS])
def test_bad_calls_name_argument_and_value_and_change_nothing(clock, method, args, error, name,
                                                              value):
    before = observable(clock)
    with pytest.raises(error) as info:
        getattr(clock, method)(*args)
    assert name in str(info.value) and value in str(info.value)
    assert observable(clock) == before


def test_live_advance_too_wide_to_count_is_refused_and_changes_nothing():
    clock = Observed(WorldClock(ClockConfig(fixed_dt=1e-6)))
    before = observable(clock)
    with pytest.raises(ValueError, match="wall_dt=1e\\+300"):
        clock.advance(1e300)
    assert observable(clock) == before


def test_bad_seek_in_replay_changes_nothing(clock):
    clock.mode = "replay"
    before = observable(clock)
    for bad, error in ((-1, ValueError), (2.0, TypeError), (False, TypeError)):
        with pytest.raises(error, match="n"):
            clock.seek_tick(bad)
        assert observable(clock) == before


@pytest.mark.parametrize(
    "attr, value, error",
    [("scale", -1.0, ValueError), ("scale", math.nan, ValueError), ("scale", math.inf, ValueError),
     ("scale", "fast", TypeError), ("mode", "warp", ValueError), ("mode", 3, TypeError),
     ("lockstep_steps", 0, ValueError), ("lockstep_steps", 1.0, TypeError),
     ("max_steps_per_advance", 0, ValueError), ("max_steps_per_advance", True, TypeError)],
)
def test_bad_setters_name_argument_and_value_and_change_nothing(clock, attr, value, error):
    before = observable(clock)
    with pytest.raises(error) as info:
        setattr(clock, attr, value)
    assert attr in str(info.value) and repr(value) in str(info.value)
    assert observable(clock) == before


def test_unknown_mode_lists_the_known_names(clock):
    with pytest.raises(ValueError, match="live, lockstep, paused, stepping, replay"):
        clock.mode = "warp"


@pytest.mark.parametrize(
    "field, value, error",
    [("fixed_dt", 1e-7, ValueError), ("fixed_dt", 0.0, ValueError),
     ("fixed_dt", math.inf, ValueError), ("fixed_dt", math.nan, ValueError),
     ("fixed_dt", "0.01", TypeError),
     ("scale", -0.5, ValueError), ("scale", math.nan, ValueError),
     ("max_steps_per_advance", 0, ValueError), ("max_steps_per_advance", 2.5, TypeError),
     ("lockstep_steps", -3, ValueError), ("lockstep_steps", None, TypeError),
     ("cap_scales_with_rate", 1, TypeError), ("cap_scales_with_rate", "yes", TypeError)],
)
def test_config_validation_names_field_and_value(field, value, error):
    with pytest.raises(error) as info:
        ClockConfig(**{field: value})
    assert field in str(info.value) and repr(value) in str(info.value)


def test_config_is_immutable_and_keyword_only_after_fixed_dt():
    cfg = ClockConfig(fixed_dt=0.01)
    with pytest.raises(AttributeError):
        cfg.fixed_dt = 0.02
    assert ClockConfig(0.01) == cfg      # as help() and inspect.signature() show it
    with pytest.raises(TypeError):
        ClockConfig(0.01, 1.0)
    with pytest.raises(TypeError, match="speed"):
        cfg.replace(speed=2.0)


@pytest.mark.parametrize("k, start, error",
                         [(0, 0, ValueError), (1.5, 0, TypeError), (2, -1, ValueError)])
def test_bad_follower_arguments(k, start, error):
    with pytest.raises(error):
        ClockFollower(k, start)


def test_for_step_with_a_fractional_step_leaves_clock_alone(clock):
    before = observable(clock)
    with pytest.raises(ValueError, match="quanta"):
        ClockFollower.for_step(clock._clock, 0.015)
    assert observable(clock) == before


def test_mode_accepts_enum_and_names(clock):
    for mode in Mode:
        clock.mode = mode.value
        assert clock.mode is mode
        clock.mode = mode
        assert clock.mode is mode
