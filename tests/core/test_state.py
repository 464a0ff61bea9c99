"""Clock state as a value: state(), restore(), pickle and deepcopy."""

import copy
import pickle

import pytest

from cvcclock import ClockConfig, ClockFollower, ClockState, Mode, TimerState, WorldClock
from cvcclock._core import _clock_state_from_fields
from support.probes import Log


def busy_clock():
    """A clock mid-run with every kind of timer, a bank, owed quanta and a window."""
    clock = WorldClock(ClockConfig(fixed_dt=0.01, max_steps_per_advance=4))
    log = Log()
    timers = [clock.every_ticks(3, log), clock.after_ticks(40, log),
              clock.every(0.05, log, catch_up="coalesce"), clock.every_ticks(7, log)]
    timers[3].pause()
    for wall_dt in (1 / 60, 0.031, 0.0, 1 / 30):
        clock.advance(wall_dt)
    return clock, timers, log


# Each pacing makes one advancing call per frame; the same quanta, differently paced.
PACINGS = {
    "live 1x": lambda c: c.advance(1 / 60),
    "live 2x": lambda c: (setattr(c, "scale", 2.0), c.advance(1 / 60)),
    "live 0.5x": lambda c: (setattr(c, "scale", 0.5), c.advance(1 / 60)),
    "lockstep": lambda c: (setattr(c, "mode", "lockstep"), c.advance(1 / 60)),
    "batch": lambda c: c.advance_ticks(5),
    "single-step": lambda c: c.step_once(),
}


def run_to(clock, log, tick, pacing):
    """Drive ``clock`` with ``pacing`` until it reaches ``tick``; the timers' log after."""
    while clock.tick < tick:
        pacing(clock)
    return clock.tick, list(log.ticks)


@pytest.mark.parametrize("pacing", PACINGS)
def test_restore_then_the_same_calls_give_the_same_results_under_every_pacing(pacing):
    clock, timers, log = busy_clock()
    saved, logged = clock.state(), len(log.ticks)
    first = [PACINGS[pacing](clock) for _ in range(30)]
    after_first = (clock.state(), log.ticks[logged:])
    clock.restore(saved)
    del log.ticks[logged:]
    clock.mode, clock.scale = saved.mode, saved.config.scale
    again = [PACINGS[pacing](clock) for _ in range(30)]
    assert again == first
    assert (clock.state(), log.ticks[logged:]) == after_first


def test_the_timers_fire_at_the_same_ticks_whatever_pacing_follows_a_restore():
    results = set()
    for pacing in PACINGS.values():
        clock, timers, log = busy_clock()
        saved = clock.state()
        clock.advance_ticks(25)      # move on, then come back
        clock.restore(saved)
        log.ticks.clear()
        clock.mode, clock.scale = Mode.LIVE, 1.0
        results.add(repr(run_to(clock, log, 120, pacing)[1][:12]))
    assert len(results) == 1, results


def test_a_state_is_an_immutable_hashable_value():
    clock, timers, log = busy_clock()
    state = clock.state()
    assert state == clock.state() and hash(state) == hash(clock.state())
    assert isinstance(state.timers[0], TimerState)
    assert [t.timer for t in state.timers] == [timers[0], timers[1], timers[2], timers[3]]
    assert state.timers[3].paused and state.timers[2].catch_up == "coalesce"
    with pytest.raises(AttributeError):
        state.tick = 3
    with pytest.raises(TypeError):
        ClockState()
    with pytest.raises(TypeError):
        TimerState()
    assert copy.copy(state) is state
    clock.advance_ticks(1)
    assert clock.state() != state


def test_restore_counts_one_discontinuity_and_followers_resynchronise():
    clock, _, _ = busy_clock()
    follower = ClockFollower.for_step(clock, 0.02)
    saved = clock.state()
    clock.advance_ticks(50)
    assert follower.take(clock) > 0
    before = clock.discontinuities
    clock.restore(saved)
    assert clock.discontinuities == before + 1
    assert follower.take(clock) == 0          # once, resynchronised to the restored tick
    clock.advance_ticks(4)
    assert follower.take(clock) == 2


def test_restore_brings_back_timers_that_ended_since():
    clock, timers, log = busy_clock()
    saved = clock.state()
    timers[0].cancel()
    clock.advance_ticks(100)                 # the one-shot at 40 fires and ends
    assert not timers[0].active and not timers[1].active
    clock.restore(saved)
    assert timers[0].active and timers[1].active and timers[3].paused
    assert clock.state() == saved


def test_a_state_whose_timers_differ_is_refused_and_changes_nothing():
    clock, timers, log = busy_clock()
    saved = clock.state()
    clock.advance_ticks(9)
    extra = clock.every_ticks(5, log)
    now = clock.state()
    with pytest.raises(ValueError, match="extra") as info:
        clock.restore(saved)
    assert repr(extra) in str(info.value)
    assert clock.state() == now and clock.discontinuities == now.discontinuities
    other, _, _ = busy_clock()
    with pytest.raises(ValueError, match="another clock"):
        WorldClock().restore(other.state())
    extra.cancel()
    clock.restore(saved)
    assert clock.state() == saved


@pytest.mark.parametrize("bad", [None, "state", ClockState.__new__(ClockState)])
def test_restore_refuses_what_is_not_a_state(bad):
    clock, _, _ = busy_clock()
    now = clock.state()
    with pytest.raises(TypeError, match="state must be a ClockState"):
        clock.restore(bad)
    assert clock.state() == now


def test_restore_is_refused_inside_a_callback_and_inside_presenting():
    clock = WorldClock()
    saved = clock.state()
    errors = []

    def cb(tick):
        try:
            clock.restore(saved)
        except RuntimeError as exc:
            errors.append(exc)

    clock.after_ticks(1, cb)
    clock.advance_ticks(2)
    assert len(errors) == 1 and clock.tick == 2
    with clock.presenting(), pytest.raises(RuntimeError):
        clock.restore(saved)


def test_pickle_and_deepcopy_copy_a_clock_exactly():
    clock, timers, log = busy_clock()
    for copied, copied_timers in [pickle.loads(pickle.dumps((clock, timers))),
                                  copy.deepcopy((clock, timers))]:
        assert copied.state() == clock.state()
        assert copied.discontinuities == clock.discontinuities
        assert [t.next_tick for t in copied_timers] == [t.next_tick for t in timers]
        # both go on identically; the copy's timers call the copy's callbacks
        copied_log = copied_timers[0].callback
        assert copied_log is not log
        clock_results = [clock.advance(1 / 60) for _ in range(50)]
        assert [copied.advance(1 / 60) for _ in range(50)] == clock_results
        assert copied_log.ticks == log.ticks
        clock, timers, log = busy_clock()


def test_a_state_pickles_with_its_clock():
    clock, timers, log = busy_clock()
    state = clock.state()
    assert pickle.loads(pickle.dumps(state)) == state


def test_a_paused_timer_nobody_holds_is_not_kept_by_a_copy():
    """The weak rule holds on copies too: copy the handles with the clock to keep them."""
    clock, timers, log = busy_clock()
    alone = copy.deepcopy(clock)
    assert [t.paused for t in alone.state().timers] == [False, False, False]
    together, _ = copy.deepcopy((clock, timers))
    assert together.state() == clock.state()


def test_pickling_names_a_callback_that_does_not_pickle():
    clock = WorldClock()
    clock.every_ticks(2, lambda tick: None)
    with pytest.raises(pickle.PicklingError, match="callback <function"):
        pickle.dumps(clock)
    copied = copy.deepcopy(clock)            # deepcopy needs no pickling
    assert copied.state() == clock.state()


def test_shallow_copies_are_refused():
    clock, timers, _ = busy_clock()
    with pytest.raises(TypeError, match="deepcopy"):
        copy.copy(clock)
    with pytest.raises(TypeError, match="deepcopy"):
        copy.copy(timers[0])


def test_a_live_timer_cannot_be_given_a_state():
    clock, timers, log = busy_clock()
    with pytest.raises(TypeError):
        timers[0].__setstate__((WorldClock(), log))
    with pytest.raises(TypeError):
        timers[0].__setstate__("nonsense")
    assert timers[0].active


def test_states_forged_from_parts_are_refused_not_crashing():
    from cvcclock._core import _clock_state_from_fields

    clock, _, _ = busy_clock()
    fields = list(clock.state().__reduce__()[1])
    fields[-1] = (TimerState.__new__(TimerState),)
    with pytest.raises(TypeError, match="TimerState not made by"):
        clock.restore(_clock_state_from_fields(*fields))
    fields[-1] = ("not a timer state",)
    with pytest.raises(TypeError):
        _clock_state_from_fields(*fields)
    assert repr(TimerState.__new__(TimerState)).startswith("TimerState(")


# -- the mode a pause left: carried by a state, its copies and restore -------------------------


def test_state_restore_pickle_and_deepcopy_carry_the_remembered_mode():
    clock = WorldClock()
    clock.mode = "lockstep"
    clock.pause()
    saved = clock.state()
    assert saved.resume_mode is Mode.LOCKSTEP and "resume_mode='lockstep'" in repr(saved)
    for copied in (pickle.loads(pickle.dumps(clock)), copy.deepcopy(clock)):
        assert copied.state() == saved
        copied.resume()
        assert copied.mode is Mode.LOCKSTEP
    assert pickle.loads(pickle.dumps(saved)) == saved
    clock.mode = "replay"
    clock.mode = "paused"
    other = clock.state()
    assert other != saved and other.resume_mode is Mode.REPLAY   # it decides the future
    clock.restore(saved)
    clock.resume()
    assert clock.mode is Mode.LOCKSTEP


def test_a_state_whose_resume_mode_contradicts_its_mode_is_refused():
    fields = list(WorldClock().state().__reduce__()[1])
    assert fields[1:3] == [Mode.LIVE, Mode.LIVE]
    fields[2] = Mode.LOCKSTEP          # resume_mode must be the mode itself unless paused
    with pytest.raises(ValueError, match="resume_mode.*'live'.*'lockstep'"):
        _clock_state_from_fields(*fields)
    fields[1:3] = [Mode.PAUSED, Mode.PAUSED]
    with pytest.raises(ValueError, match="resume_mode"):
        _clock_state_from_fields(*fields)
    fields[2] = "bogus"
    with pytest.raises(ValueError, match="bogus"):
        _clock_state_from_fields(*fields)


def test_a_run_restored_mid_pause_goes_on_identically():
    clock = WorldClock()
    clock.mode = "lockstep"
    clock.lockstep_steps = 2
    log = Log()
    clock.every_ticks(3, log)
    clock.after_ticks(5, lambda tick: clock.pause())
    for _ in range(4):
        clock.advance(1 / 60)
    assert clock.paused
    saved, logged = clock.state(), len(log.ticks)
    first = [clock.advance(1 / 60), clock.resume(), clock.advance(1 / 60),
             clock.advance_to_next_due(), clock.advance(1 / 60)]
    after = (clock.state(), log.ticks[logged:])
    clock.restore(saved)
    del log.ticks[logged:]
    again = [clock.advance(1 / 60), clock.resume(), clock.advance(1 / 60),
             clock.advance_to_next_due(), clock.advance(1 / 60)]
    assert again == first and (clock.state(), log.ticks[logged:]) == after


_FIRED_ON = []


class _SelfTimedClock(WorldClock):
    """A clock whose timers call its own method."""

    def log(self, tick):
        _FIRED_ON.append((id(self), tick))


def test_a_clock_whose_timers_call_its_own_methods_pickles_and_copies():
    """The callback's trial pickling must not pickle the clock again for each timer (it used
    to recurse to the limit and end in a 20 KB PicklingError)."""
    clock = _SelfTimedClock()
    timers = [clock.every_ticks(period, clock.log) for period in (2, 3, 5)]
    clock.advance_ticks(7)
    for copied, copied_timers in (pickle.loads(pickle.dumps((clock, timers))),
                                  copy.deepcopy((clock, timers))):
        assert type(copied) is _SelfTimedClock and copied.state() == clock.state()
        assert all(t.callback.__self__ is copied for t in copied_timers)
        _FIRED_ON.clear()
        copied.advance_ticks(3)
        assert _FIRED_ON == [(id(copied), 8), (id(copied), 9), (id(copied), 10),
                             (id(copied), 10)]


def test_a_callback_that_does_not_pickle_is_named_even_beside_one_that_reaches_its_clock():
    clock = _SelfTimedClock()
    clock.every_ticks(2, clock.log)
    clock.every_ticks(3, lambda tick: None)
    with pytest.raises(pickle.PicklingError, match="callback <function") as raised:
        pickle.dumps(clock)
    assert len(str(raised.value)) < 1000


class _NamedClock(WorldClock):
    """A subclass with attributes of its own, one of them a timer of its."""

    def __init__(self, name):
        super().__init__()
        self.name = name
        self.heartbeat = self.every_ticks(4, self.log)

    def log(self, tick):
        _FIRED_ON.append((self.name, tick))


def test_a_subclass_keeps_its_own_attributes_through_pickle_and_deepcopy():
    clock = _NamedClock("left")
    clock.advance_ticks(5)
    for copied in (pickle.loads(pickle.dumps(clock)), copy.deepcopy(clock)):
        assert type(copied) is _NamedClock and copied.name == "left"
        assert copied.state() == clock.state() and copied.heartbeat.callback.__self__ is copied
        _FIRED_ON.clear()
        copied.advance_ticks(4)
        assert _FIRED_ON == [("left", 8)] and copied.heartbeat.fired == 2
    assert pickle.loads(pickle.dumps(WorldClock())).state() == WorldClock().state()


@pytest.mark.parametrize("attributes", [["not", "a dict"], {"name": "x"}])
def test_a_state_with_attributes_is_refused_where_it_cannot_go_and_changes_nothing(attributes):
    plain = WorldClock()
    plain.advance_ticks(3)
    before = plain.state()
    with pytest.raises(TypeError, match="with attributes is"):
        plain.__setstate__((WorldClock().state(), attributes))
    assert plain.state() == before and not hasattr(plain, "name")
