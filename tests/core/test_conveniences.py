"""The conveniences of issue 15 (item 4): clock pause/resume, repr, alpha_of, StepResult's
truth and last_tick, a timer's countdown, cancel_all and advance_to_next_due."""

import copy
import pickle
import re
import sysconfig

import pytest

from cvcclock import ClockBank, ClockConfig, ClockFollower, Mode, StepResult, Timer, WorldClock
from cvcclock._core import _clock_state_from_fields
from support.held_driver import driver_held_in_a_callback
from support.worlds import DampedSpring

OTHER_MODES = [Mode.LIVE, Mode.LOCKSTEP, Mode.STEPPING, Mode.REPLAY]


class Log:
    """A picklable callback recording (tick, clock tick) at each call."""

    def __init__(self, clock=None):
        self.clock, self.ticks = clock, []

    def __call__(self, tick, *count):
        self.ticks.append((tick, *count))


def observable(clock):
    """Everything a bad call must leave as it was."""
    return (clock.state(), clock.discontinuities)


# Each pacing sets the clock up once, then makes one advancing call per frame: the same
# quanta, run at different moments. None of them touches the mode after setup, so a pause
# made by a callback holds until the driver resumes.
def _setup(mode=Mode.LIVE, scale=1.0, lockstep_steps=1):
    def setup(clock):
        clock.mode, clock.scale, clock.lockstep_steps = mode, scale, lockstep_steps
    return setup


PACINGS = {
    "live 1x": (_setup(), lambda c: c.advance(1 / 60)),
    "live 2x": (_setup(scale=2.0), lambda c: c.advance(1 / 60)),
    "live 0.5x": (_setup(scale=0.5), lambda c: c.advance(1 / 60)),
    "live 2.5x": (_setup(scale=2.5), lambda c: c.advance(1 / 60)),
    "lockstep": (_setup(Mode.LOCKSTEP, lockstep_steps=3), lambda c: c.advance(1 / 60)),
    "batch": (_setup(), lambda c: c.advance_ticks(5)),
    "single-step": (_setup(Mode.STEPPING), lambda c: c.step_once()),
    "next due": (_setup(), lambda c: c.advance_to_next_due()),
}
ADVANCING = {"live 1x", "live 2x", "live 0.5x", "live 2.5x", "lockstep"}


# -- pause, resume, paused -------------------------------------------------------------------


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


# -- repr(WorldClock) ---------------------------------------------------------------------------


def test_the_clock_repr_shows_tick_t_mode_and_fixed_dt():
    clock = WorldClock()
    clock.advance_ticks(120)
    assert repr(clock) == "<WorldClock tick=120 t=1.0 mode='live' fixed_dt=0.008333333333333333>"
    clock.scale = 2.5
    clock.mode = "lockstep"
    clock.pause()
    assert repr(clock) == ("<WorldClock tick=120 t=1.0 mode='paused' "
                           "fixed_dt=0.008333333333333333 scale=2.5 resume_mode='lockstep'>")


def test_the_clock_repr_never_raises():
    class Sub(WorldClock):
        pass

    bare = WorldClock.__new__(WorldClock)
    assert repr(bare) == "<WorldClock tick=0 t=0.0 mode='live' fixed_dt=0.008333333333333333>"
    assert repr(Sub.__new__(Sub)).startswith("<Sub tick=0 ")
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    seen = []
    clock.after_ticks(3, lambda tick: seen.append(repr(clock)))
    clock.advance_ticks(5)
    with clock.presenting():
        seen.append(repr(clock))
    assert seen == ["<WorldClock tick=3 t=0.03 mode='live' fixed_dt=0.01>",
                    "<WorldClock tick=5 t=0.05 mode='live' fixed_dt=0.01>"]


# -- follower.alpha_of --------------------------------------------------------------------------


@pytest.mark.parametrize("pacing", PACINGS)
def test_alpha_of_is_alpha_at_the_clocks_tick_and_alpha_under_every_pacing(pacing):
    setup, frame = PACINGS[pacing]
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


# -- StepResult: last_tick and truth ---------------------------------------------------------


def test_a_step_result_is_falsy_exactly_when_no_quanta_ran():
    clock = WorldClock()
    assert not clock.advance(0.0) and not clock.advance_ticks(0)
    assert clock.advance(1 / 60) and clock.step_once() and clock.advance_ticks(3)
    assert bool(StepResult(0, 5, 0, 0.5)) is False
    assert bool(StepResult(1, 5, 0, 0.0)) is True
    clock.mode = "paused"
    assert not clock.advance(1 / 60)


def test_last_tick_is_the_tick_after_the_last_quantum_and_repr_stays_a_call():
    clock = WorldClock()
    clock.advance_ticks(7)
    for call in (lambda: clock.advance(1 / 60), lambda: clock.advance_ticks(5),
                 clock.step_once, lambda: clock.advance_ticks(0)):
        result = call()
        assert result.last_tick == result.first_tick + result.steps == clock.tick
        again = eval(repr(result), {"StepResult": StepResult})
        assert again == result and again.last_tick == result.last_tick
        assert pickle.loads(pickle.dumps(result)) == result
    assert "last_tick" not in repr(result)


# -- Timer.remaining_ticks, remaining, fraction ------------------------------------------------


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


@pytest.mark.parametrize("pacing", PACINGS)
def test_the_countdown_read_at_each_tick_is_the_same_under_every_pacing(pacing):
    assert countdown_log(pacing) == countdown_log("single-step")


def countdown_log(pacing):
    """A timer's countdown read by a probe at every tick through a pause and a resume."""
    setup, frame = PACINGS[pacing]
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


# -- cancel_all -------------------------------------------------------------------------------


class Ship:
    def __init__(self):
        self.shots = []

    def fire(self, tick):
        self.shots.append(tick)


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


@pytest.mark.parametrize("pacing", PACINGS)
def test_cancel_all_stops_the_same_firings_under_every_pacing(pacing):
    assert cancel_log(pacing) == cancel_log("single-step")


def cancel_log(pacing):
    setup, frame = PACINGS[pacing]
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


# -- advance_to_next_due ------------------------------------------------------------------------


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


# -- determinism: pause, resume and jumps under every pacing ------------------------------------


END = 480


def world_run(pacing):
    """A world paused by a callback and resumed by its driver, with timers paused, resumed,
    cancelled by group and counted down; the trajectory, the timers' log, and how it ended."""
    setup, frame = PACINGS[pacing]
    clock = WorldClock(ClockConfig(fixed_dt=1 / 120))
    follower = ClockFollower.for_step(clock, 6 / 120)
    spring, states, log, ship = DampedSpring(), [], [], Ship()
    cooldown = clock.every_ticks(11, lambda tick: log.append(("cooldown", tick)))
    clock.every_ticks(5, ship.fire)
    clock.every_ticks(7, ship.fire)
    clock.every_ticks(3, lambda tick: log.append(
        ("probe", tick, cooldown.remaining_ticks, cooldown.fraction)))
    clock.after_ticks(100, lambda tick: clock.pause())
    clock.after_ticks(150, lambda tick: cooldown.pause())
    clock.after_ticks(222, lambda tick: cooldown.resume())
    clock.after_ticks(301, lambda tick: log.append(("cancelled", clock.cancel_all(ship.fire))))
    setup(clock)
    mode = clock.mode
    paused_frames = 0
    while clock.tick < END:
        frame(clock)
        if clock.paused:
            paused_frames += 1
            if paused_frames % 4 == 0:
                clock.resume()
        for _ in range(follower.take(clock)):
            states.append(spring.step(follower.period * clock.fixed_dt))
        assert follower.alpha_of(clock) == follower.alpha(clock.tick, clock.alpha)
    assert clock.mode is mode                   # resume went back to the pacing's own mode
    if pacing in ADVANCING:
        assert paused_frames >= 4               # the pause held advance for whole frames
    trimmed = [entry for entry in log if entry[0] == "cancelled" or entry[1] <= END]
    return states[:END // follower.period], trimmed, [s for s in ship.shots if s <= END]


def test_pause_resume_and_jumps_give_the_same_world_under_every_pacing():
    reference = world_run("single-step")
    assert reference[0] and ("cancelled", 2) in reference[1]
    for pacing in PACINGS:
        assert world_run(pacing) == reference, pacing


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


# -- threads: the new driver calls keep the one-driver rule (src/_core/threads.pxi) ---------------

WAIT = 30.0      # a deadlock guard on every wait and join, never a timing assertion


def test_the_new_driver_calls_from_another_thread_during_a_callback_are_refused():
    """While a callback runs on the driver, another thread's advance_to_next_due is refused
    on every build; on a free-threaded build pause, resume and cancel_all are too (they
    would race the driver's mode and timer queue). alpha_of is any thread's read."""
    free_threaded = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    with driver_held_in_a_callback(clock, WAIT) as other:
        before = (clock.tick, clock.owed, clock.mode)
        message = "another thread" if free_threaded else "inside a timer callback"
        with pytest.raises(RuntimeError, match=message):
            clock.advance_to_next_due()
        if free_threaded:
            for call in (clock.pause, clock.resume, lambda: clock.cancel_all(print)):
                with pytest.raises(RuntimeError, match="another thread is advancing or changing"):
                    call()
        assert ClockFollower(1).alpha_of(clock) == 0.0
        assert (clock.tick, clock.owed, clock.mode) == before == (2, 1, Mode.LIVE)
    assert clock.tick == 3 and other.active
