"""A ClockState or TimerState is checked field by field when built or unpickled, by the rules
the clock's own fields obey (issue 21, item 11): a damaged pickle is refused, naming the
field, and never reaches restore(). The oracle's rules (support.oracle.state_fields_problem)
and the core's agree on every damage."""

import math
import pickle
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvcclock import ClockConfig, WorldClock
from cvcclock._core import _clock_state_from_fields, _timer_state_from_fields
from support import oracle
from support.probes import Log

FIELDS = ("config", "mode", "resume_mode", "tick", "bank", "alpha", "owed", "total_dropped",
          "frame", "window_wall", "window_ticks", "realized", "window_done", "discontinuities",
          "timer_seq")
TIMER_FIELDS = ("timer", "seq", "period", "coalesce", "anchor", "due", "pending", "fired",
                "paused", "paused_at")


def busy_clock():
    """A clock mid-run: a bank, a window, and a repeating, a one-shot, a coalescing and a
    paused timer."""
    clock = WorldClock(ClockConfig(fixed_dt=0.01, max_steps_per_advance=4))
    log = Log()
    timers = [clock.every_ticks(3, log), clock.after_ticks(40, log),
              clock.every(0.05, log, catch_up="coalesce"), clock.every_ticks(7, log)]
    timers[3].pause()
    for wall_dt in (1 / 60, 0.031, 0.0, 1 / 30, 0.013):
        clock.advance(wall_dt)
    return clock, timers, log


def damaged_float_pickle(state, value, replacement):
    """The pickle of ``state`` with the 8 bytes of the float ``value`` (pickle's BINFLOAT,
    big-endian) overwritten by ``replacement``'s: damaged bytes, as a disk or a wire makes.
    The first such float after the configuration's is the bank (alpha, equal to it on a live
    clock, follows)."""
    data = pickle.dumps(state)
    old = b"G" + struct.pack(">d", value)
    assert old in data
    return data.replace(old, b"G" + struct.pack(">d", replacement), 1)


@pytest.mark.parametrize("damage", [math.nan, 1e300, -0.25, 1.0, math.inf])
def test_a_pickled_state_with_a_damaged_bank_is_refused_naming_it(damage):
    clock, timers, log = busy_clock()
    saved = clock.state()
    assert 0.0 < saved.bank < 1.0
    data = damaged_float_pickle(saved, saved.bank, damage)
    with pytest.raises(ValueError, match=r"ClockState\.bank must be"):
        pickle.loads(data)
    # The clock's own pickle carries the same state: refused the same way.
    with pytest.raises(ValueError, match=r"ClockState\.bank must be"):
        pickle.loads(damaged_float_pickle(clock, saved.bank, damage))
    # Nothing reached the clock: it goes on as before, tick never negative.
    assert clock.state() == saved
    before = clock.tick
    clock.advance(1 / 60)
    assert clock.tick >= before >= 0


def test_restore_of_an_undamaged_pickle_still_works():
    clock, timers, log = busy_clock()
    saved = clock.state()
    again = pickle.loads(pickle.dumps(saved))
    assert again == saved
    clock.advance(0.1)
    clock.restore(saved)
    assert clock.state() == saved


# -- every field, damaged at random: the core refuses exactly what the oracle refuses ---------

junk = st.one_of(
    st.integers(-2**64, 2**64), st.integers(-3, 300),
    st.floats(allow_nan=True, allow_infinity=True), st.floats(-1.0, 2.0),
    st.booleans(), st.none(), st.just("7"))


def core_refuses(make, *args):
    try:
        make(*args)
    except (TypeError, ValueError):
        return True
    return False


@settings(max_examples=600, deadline=None)
@given(where=st.integers(3, len(FIELDS) - 1), value=junk)
def test_the_core_and_the_oracle_refuse_the_same_damaged_clock_fields(where, value):
    clock, timers, log = busy_clock()
    saved = clock.state()
    fields = list(saved.__reduce__()[1])
    fields[where] = value
    timer_fields = [t.__reduce__()[1] for t in saved.timers]
    want = oracle.state_fields_problem(tuple(fields[:15]), timer_fields)
    assert core_refuses(_clock_state_from_fields, *fields) == (want is not None), (
        FIELDS[where], value, want)
    if want is not None:
        with pytest.raises((TypeError, ValueError), match=FIELDS[where]):
            _clock_state_from_fields(*fields)
    assert clock.state() == saved     # nothing changed


@settings(max_examples=600, deadline=None)
@given(which=st.integers(0, 3), where=st.integers(1, len(TIMER_FIELDS) - 1), value=junk)
def test_the_core_and_the_oracle_refuse_the_same_damaged_timer_fields(which, where, value):
    clock, timers, log = busy_clock()
    saved = clock.state()
    timer_fields = [list(t.__reduce__()[1]) for t in saved.timers]
    timer_fields[which][where] = value
    want = (oracle.timer_fields_problem(tuple(timer_fields[which]))
            or oracle.state_fields_problem(tuple(saved.__reduce__()[1][:15]),
                                           [tuple(f) for f in timer_fields]))
    try:
        made = [_timer_state_from_fields(*f) for f in timer_fields]
        fields = list(saved.__reduce__()[1])
        fields[15] = tuple(made)
        _clock_state_from_fields(*fields)
        refused = False
    except (TypeError, ValueError):
        refused = True
    assert refused == (want is not None), (TIMER_FIELDS[where], value, want)
    assert clock.state() == saved


@pytest.mark.parametrize("field, value, words", [
    ("tick", -1, r"ClockState\.tick must be >= 0"),
    ("tick", 2**62 + 1, r"ClockState\.tick must be <= "),
    ("owed", 2**62, r"ClockState\.owed must be <= "),        # tick + owed past MAX_TICK
    ("alpha", math.nan, r"ClockState\.alpha must be finite"),
    ("window_wall", 0.5, r"ClockState\.window_wall must be in \[0, 0\.5\)"),
    ("realized", math.nan, r"ClockState\.realized must be >= 0"),
    ("window_done", 1, r"ClockState\.window_done must be a bool"),
    ("timer_seq", 2, r"ClockState\.timers must be in creation order"),
])
def test_each_clock_rule_names_its_field(field, value, words):
    clock, timers, log = busy_clock()
    fields = list(clock.state().__reduce__()[1])
    fields[FIELDS.index(field)] = value
    with pytest.raises((TypeError, ValueError), match=words):
        _clock_state_from_fields(*fields)


@pytest.mark.parametrize("field, value, words", [
    ("due", 2, r"TimerState\.due must lie on its grid"),           # the repeating timer
    ("pending", 1, r"TimerState\.pending must be 0"),
    ("coalesce", 1, r"TimerState\.coalesce must be a bool"),
    ("period", -3, r"TimerState\.period_ticks must be >= 0"),
])
def test_each_timer_rule_names_its_field(field, value, words):
    clock, timers, log = busy_clock()
    fields = list(clock.state().timers[0].__reduce__()[1])
    fields[TIMER_FIELDS.index(field)] = value
    with pytest.raises((TypeError, ValueError), match=words):
        _timer_state_from_fields(*fields)


def test_a_scheduled_timer_due_before_the_tick_is_refused():
    clock, timers, log = busy_clock()
    saved = clock.state()
    fields = list(saved.__reduce__()[1])
    fields[3] = saved.timers[0].due + 3       # the tick moved past a scheduled timer
    fields[6] = 0
    with pytest.raises(ValueError, match="due at .* lies before the tick"):
        _clock_state_from_fields(*fields)
