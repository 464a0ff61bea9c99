"""cvcclock.scenario: behaviors, guards, modular scenarios, requirements, records, run limits,
the time step, bad input, and the runner's repr."""

import doctest
import math
import random
import re
import warnings

import numpy as np
import pytest

import cvcclock.scenario
from cvcclock import ClockConfig, WorldClock
from cvcclock.scenario import (
    WAIT,
    ActionRejected,
    BehaviorError,
    GuardViolation,
    InvalidAction,
    InvariantViolation,
    PointMassSimulator,
    PreconditionViolation,
    Scenario,
    ScenarioRunner,
    Steer,
    TerminationType,
    Throttle,
    TooManyRejections,
    Vehicle,
    do,
    invariant,
    precondition,
    require,
    simulate,
    simulate_many,
    take,
    terminate,
    wait,
)
from cvcclock.scenario import runner as runner_module
from cvcclock.scenario.runner import derive_seed
from support.idle_scenarios import Ends, Forever


class Solo(Scenario):
    """One vehicle running ``behavior``; ``extra(s, car)`` adds requirements and the like."""

    def __init__(self, behavior, extra=None, spec=None):
        self.behavior, self.extra, self.spec = behavior, extra, spec or Vehicle()

    def setup(self, s):
        car = s.add_agent("car", self.spec, self.behavior)
        if self.extra:
            self.extra(s, car)


def idle(car):
    while True:
        yield wait()


def full_throttle(car):
    while True:
        yield take(Throttle(1.0))


def test_package_docstring_example():
    assert doctest.testmod(cvcclock.scenario).failed == 0


# -- behaviors -------------------------------------------------------------------------


def test_take_and_wait_and_a_returned_behavior_waits_forever():
    def twice(car):
        yield take(Throttle(1.0), Steer(0.5))
        yield wait()
        yield take(Throttle(0.0))

    result = simulate(Solo(twice), seed=0, max_steps=5)
    assert [a["car"] for a in result.actions] == [
        (Throttle(1.0), Steer(0.5)), (), (Throttle(0.0),), (), ()]
    assert take() == WAIT and repr(wait()) == "wait()"
    assert repr(take(Throttle(1))) == "take(Throttle(value=1))"
    # controls hold until changed: full throttle for two steps (4 m/s^2), then coasting
    speeds = [round(state["car"]["speed"], 9) for state in result.trajectory]
    assert speeds == [0.0, 0.4, 0.8, 0.8, 0.8, 0.8]
    headings = [round(state["car"]["heading"], 9) for state in result.trajectory]
    assert headings == [0.0, 0.025, 0.05, 0.075, 0.1, 0.125]


def test_sub_behaviors_with_do_and_their_invariants():
    log = []

    def note(label):
        return lambda car: log.append((label, car.sim.step)) or True

    @invariant(note("inner"))
    def inner(car):
        yield wait()
        yield wait()
        return "inner done"

    @invariant(note("outer"))
    def outer(car):
        yield wait()
        log.append((yield from do(inner(car))))
        yield wait()

    simulate(Solo(outer), seed=0, max_steps=6)
    # outer: as it starts (before step 0), when resumed outside inner, and at the instant
    # inner returns to it (step 3), before any more of its code; inner: as it starts, and
    # when resumed
    assert log == [("outer", 0), ("outer", 1), ("inner", 1), ("inner", 2), ("inner", 3),
                   ("outer", 3), "inner done", ("outer", 4)]


def test_a_plain_yield_from_where_invariants_depend_on_it_is_an_error():
    @invariant(lambda car: True)
    def guarded(car):
        yield from _two_steps(car)

    with pytest.raises(BehaviorError, match=r"'guarded' has invariants and delegates to "
                                            r"'_two_steps' with a plain 'yield from'"):
        simulate(Solo(guarded), seed=0, max_steps=3)

    @invariant(lambda car: True)
    def sub(car):
        yield from _two_steps(car)

    def plain(car):                 # no invariant of its own, but its sub-behavior's
        yield from sub(car)

    with pytest.raises(BehaviorError, match="'sub' has invariants"):
        simulate(Solo(plain), seed=0, max_steps=3)

    def helper(car):                # where no invariant depends on it, yield from is fine
        yield from _two_steps(car)
        yield take(Throttle(1.0))

    result = simulate(Solo(helper), seed=0, max_steps=4)
    assert [a["car"] for a in result.actions] == [(), (), (Throttle(1.0),), ()]


def _two_steps(car):
    yield wait()
    yield wait()


@pytest.mark.parametrize("guard_sub", [False, True])
@pytest.mark.parametrize("then", ["take", "terminate", "require"])
@pytest.mark.parametrize("max_steps", [3, 4])
def test_invariant_checked_when_a_sub_behavior_returns(max_steps, then, guard_sub):
    """Its sub-behavior returning at step 2, the parent is checked then, before any more of
    its code (its action, terminate or require): not left unchecked (max_steps=3) nor
    caught a step late."""
    sub = invariant(lambda car: True)(_two_steps) if guard_sub else _two_steps

    @invariant(lambda car: car.sim.step < 2)
    def parent(car):
        yield from do(sub(car))
        if then == "terminate":
            terminate("done")
        require(then != "require")
        while True:
            yield take(Throttle(1.0))

    with pytest.raises(GuardViolation,
                       match=r"^step 2, behavior of agent 'car': invariant .* 'parent' violated"):
        simulate(Solo(parent), seed=0, max_steps=max_steps, raise_guard_violations=True)
    with pytest.raises(TooManyRejections) as info:
        simulate(Solo(parent), seed=0, max_steps=max_steps, max_iterations=2)
    assert all(reason.startswith("step 2, ") and "'parent' violated" in reason
               for reason in info.value.reasons)


def test_precondition_rejects_and_raise_guard_violations_raises():
    @precondition(lambda car: car.speed > 5.0)
    def fast_only(car):
        yield wait()

    with pytest.raises(TooManyRejections) as info:
        simulate(Solo(fast_only), seed=0, max_steps=3, max_iterations=4)
    assert len(info.value.reasons) == 4
    # checked as the scenario starts, before step 0
    assert info.value.reasons[0].startswith("behavior of agent 'car': precondition")
    assert "of behavior 'fast_only' violated" in info.value.reasons[0]
    with pytest.raises(PreconditionViolation, match="^behavior of agent 'car': precondition"):
        simulate(Solo(fast_only), seed=0, max_steps=3, raise_guard_violations=True)
    assert simulate(Solo(fast_only, spec=Vehicle(speed=6.0)), seed=0, max_steps=3).rejections == 0


def test_invariant_violated_when_resumed():
    @invariant(lambda car: car.x < 0.5)
    def speed_up(car):
        while True:
            yield take(Throttle(1.0))

    with pytest.raises(GuardViolation,
                       match=r"step 5, behavior of agent 'car': invariant <lambda> "
                             r"\(test_scenario"):
        simulate(Solo(speed_up), seed=0, max_steps=10, raise_guard_violations=True)
    with pytest.raises(TooManyRejections):
        simulate(Solo(speed_up), seed=0, max_steps=10, max_iterations=2)


def test_guards_decorate_generator_functions_only():
    with pytest.raises(TypeError, match="generator function"):
        invariant(lambda: True)(lambda car: None)


def test_randomness_comes_from_the_runs_generator_only():
    def jitter(car):
        while True:
            yield take(Throttle(car.rng.uniform(-1.0, 1.0)))

    random.seed(1)
    state = random.getstate()
    first = simulate(Solo(jitter), seed=7, max_steps=20)
    assert random.getstate() == state             # the global generator is untouched
    random.seed(2)
    assert simulate(Solo(jitter), seed=7, max_steps=20) == first
    assert simulate(Solo(jitter), seed=8, max_steps=20) != first


def test_seeds_draw_their_own_streams_and_a_negative_seed_is_refused():
    class Draws(Scenario):
        def setup(self, s):
            s.record_initial("u", lambda: [s.rng.random() for _ in range(3)])

    def draws(seed):
        return simulate(Draws(), seed=seed, max_steps=0).records_initial["u"]

    # Random(seed) would fold -5 onto 5; a seed is non-negative (cvcclock.checks.check_seed),
    # so -5 is refused rather than drawing 5's stream.
    assert random.Random(5).random() == random.Random(-5).random()
    with pytest.raises(ValueError, match="^seed must be >= 0, got -5$"):
        draws(-5)
    assert len({tuple(draws(seed)) for seed in (1, 5, 12, 2**70)}) == 4
    assert draws(5) == draws(5)


# -- modular scenarios -----------------------------------------------------------------


def test_compose_runs_sub_scenarios_with_do():
    log = []

    class Sub(Scenario):
        def setup(self, s):
            s.add_agent("late", Vehicle(y=5.0), idle)
            s.require_always(lambda: log.append(("sub always", s.sim.step)) or True)
            s.terminate_after(0.2)

    class Parent(Scenario):
        def setup(self, s):
            s.invariant(lambda: log.append(("parent invariant", s.sim.step)) or True)

        def compose(self, s):
            yield wait()
            yield from s.do(Sub())
            log.append(("after do", s.sim.step))
            yield wait()

    result = simulate(Parent(), seed=0, max_steps=20)
    # Sub starts and runs its first step inside the parent's step 1, and stops at step 3,
    # where the parent's invariant is checked as do() returns and the parent goes on
    assert log == [("parent invariant", 0), ("parent invariant", 1), ("sub always", 1),
                   ("sub always", 2), ("sub always", 3), ("parent invariant", 3),
                   ("after do", 3), ("parent invariant", 4)]
    assert result.termination_type is TerminationType.SCENARIO_COMPLETE
    assert result.termination_reason == "compose of scenario 'Parent' finished"
    assert "late" not in result.trajectory[0] and "late" in result.trajectory[1]
    assert [sorted(a) for a in result.actions] == [[]] + [["late"]] * 3


def test_parent_invariants_checked_the_instant_its_sub_scenario_stops():
    checked = []

    class Child(Scenario):
        def setup(self, s):
            s.terminate_after(2 * self.dt)

    class Parent(Scenario):
        def setup(self, s):
            s.add_agent("car", Vehicle(), idle)
            s.invariant(lambda: checked.append(s.sim.step) or True, name="inv")

        def compose(self, s):
            yield from s.do(Child())
            while True:
                yield wait()

    stops = []
    simulate(Parent(), seed=0, max_steps=6,
             trace=lambda n, phase, subject: phase == "stopping" and stops.append((n, subject)))
    assert stops == [(2, "Child"), (6, "Parent")]
    assert checked == [0, 2, 3, 4, 5, 6]    # as it starts; not while Child runs; then each step

    class Violated(Parent):
        def setup(self, s):
            s.add_agent("car", Vehicle(), idle)
            s.invariant(lambda: s.sim.step != 2, name="not at 2")

    with pytest.raises(InvariantViolation,
                       match="^step 2, compose of scenario 'Violated': invariant not at 2 of "
                             "scenario 'Violated' violated"):
        simulate(Violated(), seed=0, max_steps=6, raise_guard_violations=True)


def test_compose_require_and_terminate_and_terminate_when():
    class Strict(Scenario):
        def compose(self, s):
            yield wait()
            require(False, "compose says no")

    with pytest.raises(TooManyRejections,
                       match="step 1, compose of scenario 'Strict': compose says no"):
        simulate(Strict(), seed=0, max_steps=5, max_iterations=1)

    class Quits(Scenario):
        def compose(self, s):
            yield wait()
            terminate("enough")

    r = simulate(Quits(), seed=0, max_steps=5)
    assert (r.termination_type, r.termination_reason, r.steps) == (
        TerminationType.SCENARIO_COMPLETE, "compose of scenario 'Quits' terminated it: enough", 1)

    def extra(s, car):
        s.terminate_when(lambda: car.x > 1.0, name="past 1 m")

    r = simulate(Solo(full_throttle, extra), seed=0, max_steps=50)
    assert r.termination_reason == "terminate_when past 1 m of scenario 'Solo' held"
    assert r.trajectory[-1]["car"]["x"] > 1.0 >= r.trajectory[-2]["car"]["x"]


# -- requirements, rejection and resampling ---------------------------------------------


def coin_flip(s, car):
    require(s.rng.random() < 0.3, "unlucky start")


def test_rejected_attempts_resample_with_derived_seeds():
    result = simulate(Solo(idle, coin_flip), seed=0, max_steps=4)
    assert result.rejections >= 1
    assert result.rejection_reasons == (
        ("setup of scenario 'Solo': unlucky start",) * result.rejections)
    assert result.run_seed == derive_seed(0, result.rejections) != 0
    replay = simulate(Solo(idle, coin_flip), seed=result.run_seed, max_steps=4)
    assert (replay.rejections, replay.trajectory, replay.actions) == (
        0, result.trajectory, result.actions)
    with pytest.raises(TooManyRejections, match="all 1 attempts of scenario 'Solo' were rejected"):
        simulate(Solo(idle, coin_flip), seed=0, max_steps=4, max_iterations=1)


def test_require_in_a_behavior_mid_run():
    def flaky(car):
        yield wait()
        require(car.rng.random() < 0.5)
        while True:
            yield wait()

    result = simulate(Solo(flaky), seed=0, max_steps=4)
    assert result.rejections >= 1
    assert result.rejection_reasons[0].startswith(
        "step 1, behavior of agent 'car': require failed at test_scenario.py:")


def test_require_always_and_require_eventually():
    def always(s, car):
        s.require_always(lambda: car.x < 0.3, name="x below 0.3")

    def push(car):
        while True:
            yield take(Throttle(1.0))

    with pytest.raises(TooManyRejections,
                       match="step 4, require_always x below 0.3 of scenario 'Solo' violated"):
        simulate(Solo(push, always), seed=0, max_steps=10, max_iterations=1)

    def eventually(s, car):
        s.require_eventually(lambda: car.speed > 1.0, name="fast")

    with pytest.raises(TooManyRejections,
                       match="step 2, require_eventually fast of scenario 'Solo' never held"):
        simulate(Solo(push, eventually), seed=0, max_steps=2, max_iterations=1)
    assert simulate(Solo(push, eventually), seed=0, max_steps=4).rejections == 0


def test_monitors_require_and_terminate():
    ran = []

    def watchdog(sim, limit):
        while True:
            require(sim.step < 100)
            if sim["car"].x > limit:
                terminate(f"past {limit}")
            yield wait()

    def counter(sim):
        while True:
            ran.append(sim.step)
            yield wait()

    def extra(s, car):
        s.monitor(watchdog, 0.5)
        s.monitor(counter)

    r = simulate(Solo(full_throttle, extra), seed=0, max_steps=50)
    assert (r.termination_type, r.termination_reason) == (
        TerminationType.MONITOR, "monitor 'watchdog' terminated the simulation: past 0.5")
    assert ran == list(range(r.steps + 1))      # the other monitor ran in the last step too


def test_records_and_termination_condition():
    def extra(s, car):
        s.record("x", lambda: round(car.x, 6))
        s.record_initial("speed0", lambda: car.speed)
        s.record_final("speed", lambda: round(car.speed, 6))
        s.terminate_simulation_when(lambda: s.sim.step == 3, name="three steps")

    r = simulate(Solo(lambda car: (take(Throttle(0.5)) for _ in iter(int, 1)), extra), seed=0)
    assert r.records == {"x": ((0, 0.0), (1, 0.02), (2, 0.06), (3, 0.12))}
    assert (r.records_initial, r.records_final) == ({"speed0": 0.0}, {"speed": 0.6})
    assert (r.termination_type, r.termination_reason) == (
        TerminationType.TERMINATION_CONDITION,
        "terminate_simulation_when three steps of scenario 'Solo' held")


def test_time_limit_in_seconds_and_behavior_termination():
    r = simulate(Solo(idle), seed=0, time_limit=0.3)
    assert (r.termination_type, r.steps, len(r.trajectory)) == (TerminationType.TIME_LIMIT, 3, 4)

    def done(car):
        yield wait()
        terminate()

    r = simulate(Solo(done), seed=0, max_steps=9)
    assert (r.termination_type, r.termination_reason, r.steps) == (
        TerminationType.BEHAVIOR, "agent 'car' terminated the simulation", 1)


# -- a run with no limit warns; time_limit=math.inf runs unbounded on purpose ------------------


UNBOUNDED = re.compile(r"simulate\(\) has run (?P<steps>[\d,]+) time steps .* of scenario "
                       r"'(?P<name>\w+)' with neither time_limit nor max_steps, .* give "
                       r"max_steps= or time_limit= to bound the run, or time_limit=math.inf "
                       r"to say that an unbounded run is meant \(which silences this warning\)")


@pytest.fixture
def warn_at_20(monkeypatch):
    """The unbounded-run warning after 20 steps instead of 100,000, to keep runs short."""
    monkeypatch.setattr(runner_module, "_UNBOUNDED_WARNING_STEPS", 20)


def unbounded_warnings(caught):
    return [w for w in caught if UNBOUNDED.search(str(w.message))]


def test_a_run_without_a_limit_warns_at_100000_steps():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)   # the warning stops the endless run
        with pytest.raises(RuntimeWarning) as info:
            simulate(Forever(), seed=0)
    found = UNBOUNDED.search(str(info.value))
    assert found and found["steps"] == "100,000" and found["name"] == "Forever"
    assert "(10000 s)" in str(info.value)


def test_a_run_past_the_threshold_warns_once_at_the_callers_line_and_goes_on(warn_at_20):
    with pytest.warns(RuntimeWarning) as caught:
        result = simulate(Ends(50), seed=0)
    assert result.steps == 50 and result.termination_type is TerminationType.SCENARIO_COMPLETE
    assert len(unbounded_warnings(caught)) == len(caught) == 1
    assert caught[0].filename == __file__                 # it points at the simulate() call


def test_a_scenario_that_ends_itself_before_the_threshold_does_not_warn(warn_at_20):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert simulate(Ends(19), seed=0).steps == 19
    with pytest.warns(RuntimeWarning, match="has run 20 time steps"):
        assert simulate(Ends(20), seed=0).steps == 20      # still running after 20 steps


@pytest.mark.parametrize("limits", [{"time_limit": math.inf}, {"time_limit": np.float64("inf")},
                                    {"max_steps": 50}, {"time_limit": 5.0},
                                    {"max_steps": 60, "time_limit": math.inf}],
                         ids=lambda d: ",".join(f"{k}={v!r}" for k, v in d.items()))
def test_a_run_given_a_limit_or_an_infinite_time_limit_does_not_warn(warn_at_20, limits):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = simulate(Ends(50), seed=0, **limits)
    assert result.steps == 50


def test_an_infinite_time_limit_is_no_limit():
    unlimited = simulate(Ends(30), seed=3, time_limit=math.inf)
    assert unlimited == simulate(Ends(30), seed=3)
    assert unlimited.termination_type is TerminationType.SCENARIO_COMPLETE
    clock = WorldClock(ClockConfig(fixed_dt=0.1))
    runner = ScenarioRunner(Forever(), clock, seed=0, time_limit=math.inf)
    for _ in range(40):
        clock.advance_ticks(1)
        assert runner.pump() == 1
    assert runner.result is None and not runner.done


# -- bad input -------------------------------------------------------------------------


def test_yielding_something_else_names_agent_step_and_value():
    def forgot_take(car):
        yield wait()
        yield Throttle(1.0)

    with pytest.raises(BehaviorError,
                       match=r"forgot_take' of agent 'car' yielded Throttle\(value=1.0\) at "
                             r"step 1"):
        simulate(Solo(forgot_take), seed=0, max_steps=5)

    def not_a_generator(car):
        return 3

    with pytest.raises(BehaviorError,
                       match="not_a_generator' of agent 'car' returned 3 at step 0, "
                             "not a generator"):
        simulate(Solo(not_a_generator), seed=0, max_steps=5)

    class Later(Scenario):          # an agent a sub-scenario adds starts its behavior later
        def compose(self, s):
            yield wait()
            yield from s.do(Solo(not_a_generator))

    with pytest.raises(BehaviorError, match="of agent 'car' returned 3 at step 1, not a generator"):
        simulate(Later(), seed=0, max_steps=5)

    def not_a_monitor(sim):
        return None

    with pytest.raises(BehaviorError,
                       match="monitor 'not_a_monitor' returned None at step 0, not a generator"):
        simulate(Solo(idle, lambda s, car: s.monitor(not_a_monitor)), seed=0, max_steps=5)

    class LateMonitor(Scenario):
        def compose(self, s):
            yield wait()
            yield wait()
            s.monitor(lambda sim: 5, name="five")
            yield wait()

    with pytest.raises(BehaviorError, match="monitor 'five' returned 5 at step 2, not a generator"):
        simulate(LateMonitor(), seed=0, max_steps=5)

    class ComposeReturns(Scenario):
        def compose(self, s):
            return 5

    with pytest.raises(BehaviorError,
                       match="compose of scenario 'ComposeReturns' returned 5 at step 0, "
                             "not a gen"):
        simulate(ComposeReturns(), seed=0, max_steps=5)

    class Sub(ComposeReturns):
        pass

    class Starts(Scenario):
        def compose(self, s):
            yield wait()
            yield from s.do(Sub())

    with pytest.raises(BehaviorError,
                       match="compose of scenario 'Sub' returned 5 at step 1, not a generator"):
        simulate(Starts(), seed=0, max_steps=5)

    class ComposeActs(Scenario):
        def compose(self, s):
            yield take(Throttle(1.0))

    with pytest.raises(BehaviorError,
                       match=r"compose of scenario 'ComposeActs' yielded take\(Throttle"):
        simulate(ComposeActs(), seed=0, max_steps=5)


def test_an_action_the_simulator_rejects_names_agent_step_and_value():
    def wrong_kind(car):
        yield wait()
        yield take(Steer(0.0), "left")

    with pytest.raises(ActionRejected, match=r"action 'left' of agent 'car' at step 1: "
                                             r"PointMassSimulator executes Throttle and Steer "
                                             r"actions, not 'left'$") as info:
        simulate(Solo(wrong_kind), seed=0, max_steps=5)
    assert isinstance(info.value.__cause__, InvalidAction)


def test_any_exception_from_apply_action_names_agent_step_and_action():
    class Strict(PointMassSimulator):
        def apply_action(self, handle, action):
            if action.value > 0.5:
                raise ValueError("too much")
            if action.value < -0.5:
                raise KeyError("brakes")
            super().apply_action(handle, action)

    class OnStrict(Solo):
        def simulator(self):
            return Strict()

    def floor_it(car):
        yield take(Throttle(0.1))
        yield take(Throttle(0.9))

    with pytest.raises(ActionRejected, match=r"action Throttle\(value=0.9\) of agent 'car' at "
                                             r"step 1: ValueError: too much$") as info:
        simulate(OnStrict(floor_it), seed=0, max_steps=5)
    assert type(info.value.__cause__) is ValueError

    def brake(car):
        yield take(Throttle(-0.9))

    with pytest.raises(ActionRejected, match=r"action Throttle\(value=-0.9\) of agent 'car' at "
                                             r"step 0: KeyError: 'brakes'") as info:
        simulate(OnStrict(brake), seed=0, max_steps=5)
    assert type(info.value.__cause__) is KeyError

    class Rejecting(PointMassSimulator):
        def apply_action(self, handle, action):
            require(False, "the simulator says no")

    class OnRejecting(Solo):
        def simulator(self):
            return Rejecting()

    with pytest.raises(TooManyRejections, match="step 0, the simulator says no"):
        simulate(OnRejecting(brake), seed=0, max_steps=5, max_iterations=2)


def test_a_time_step_that_is_not_whole_quanta():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    with pytest.raises(ValueError,
                       match=r"scenario 'Solo': time step dt=0.015 is 1.5 quanta .* 1 .* and 2"):
        ScenarioRunner(Solo(idle), clock, 0.015, seed=0)
    assert clock.tick == 0


@pytest.mark.parametrize("dt", [0, 0.0, -0.1, float("nan"), float("inf")])
def test_a_time_step_that_is_not_a_positive_number_names_dt_and_the_scenario(dt):
    bound = "> 0" if dt == 0 else "finite and non-negative"
    got = re.escape(repr(dt))
    with pytest.raises(ValueError, match=rf"scenario 'Solo': dt must be {bound}, got {got}$"):
        simulate(Solo(idle), seed=0, max_steps=1, dt=dt)
    with pytest.raises(ValueError, match=rf"scenario 'Solo': dt must be .* got {got}$"):
        ScenarioRunner(Solo(idle), WorldClock(ClockConfig(fixed_dt=0.01)), dt, seed=0)

    class Odd(Solo):
        pass

    Odd.dt = dt
    with pytest.raises(ValueError, match=rf"scenario 'Odd': Odd.dt must be .* got {got}$"):
        simulate(Odd(idle), seed=0, max_steps=1)


def test_a_time_step_that_is_not_a_number():
    for dt in ("0.1", True):
        with pytest.raises(TypeError, match=r"scenario 'Solo': dt must be a real number, got"):
            simulate(Solo(idle), seed=0, max_steps=1, dt=dt)

    class NoDt(Solo):
        dt = None

    with pytest.raises(TypeError, match="scenario 'NoDt': NoDt.dt must be a real number, got None"):
        simulate(NoDt(idle), seed=0, max_steps=1)


# -- a runner's dt and the one its scenario declares -------------------------------------------


class Declared(Forever):
    dt = 0.05


class Inherits(Declared):
    pass


class Unset(Forever):
    dt = None      # declares none: the runner must be given one


@pytest.mark.parametrize("scenario_class", [Declared, Inherits])
def test_a_dt_other_than_the_declared_one_is_refused_naming_both(scenario_class):
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    clock.advance_ticks(3)
    name = scenario_class.__name__
    message = (f"scenario {name!r}: dt=0.1 differs from the time step the scenario declares, "
               f"{name}.dt=0.05; ")
    with pytest.raises(ValueError, match="^" + re.escape(message) + ".*scenario.dt = 0.1"):
        ScenarioRunner(scenario_class(), clock, 0.1, seed=0)
    assert clock.tick == 3
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        simulate(scenario_class(), seed=0, max_steps=1, dt=0.1)
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        simulate_many(scenario_class(), [0], max_steps=1, dt=0.1)   # up front, not per run


def test_the_declared_dt_given_or_omitted_runs_at_that_step():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    for dt in (None, 0.05, np.float64(0.05)):
        assert ScenarioRunner(Declared(), clock, dt, seed=0).dt == 0.05
    assert simulate(Declared(), seed=0, max_steps=2, dt=0.05).dt == 0.05


def test_a_scenario_that_declares_no_dt_runs_at_any_step_given():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    assert ScenarioRunner(Forever(), clock, 0.03, seed=0).dt == 0.03   # as Scenic's timestep
    assert ScenarioRunner(Unset(), clock, 0.03, seed=0).dt == 0.03
    with pytest.raises(TypeError, match="^scenario 'Unset': Unset.dt must be a real number, "
                                        "got None$"):
        ScenarioRunner(Unset(), clock, seed=0)


def test_the_instance_dt_is_the_way_to_run_a_declared_scenario_at_another_step():
    scenario = Declared()
    scenario.dt = 0.1
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    assert ScenarioRunner(scenario, clock, 0.1, seed=0).dt == 0.1
    assert ScenarioRunner(scenario, clock, seed=0).dt == 0.1
    with pytest.raises(ValueError, match=r"^scenario 'Declared': dt=0.05 differs .* "
                                         r"Declared.dt=0.1; "):
        ScenarioRunner(scenario, clock, 0.05, seed=0)
    loose = Forever()
    loose.dt = 0.2                                  # an instance's dt is a declaration too
    with pytest.raises(ValueError, match=r"dt=0.1 differs .* Forever.dt=0.2; "):
        ScenarioRunner(loose, clock, 0.1, seed=0)


def test_other_bad_arguments():
    with pytest.raises(TypeError, match="seed must be an integer, got '1'"):
        simulate(Solo(idle), seed="1", max_steps=1)
    with pytest.raises(TypeError, match="scenario must be a Scenario, got <class"):
        simulate(Solo, seed=1, max_steps=1)
    with pytest.raises(ValueError, match="max_steps must be >= 0, got -1"):
        simulate(Solo(idle), seed=1, max_steps=-1)
    with pytest.raises(ValueError, match="time_limit must be finite and non-negative, got nan"):
        simulate(Solo(idle), seed=1, time_limit=float("nan"))
    with pytest.raises(ValueError, match="agent names must be unique"):
        simulate(Solo(idle, lambda s, car: s.add_agent("car", Vehicle())), seed=1, max_steps=1)
    with pytest.raises(TypeError, match=r"spec must be a Vehicle \(what PointMassSimulator "
                                        r"makes\), got 3 for 'car'"):
        simulate(Solo(idle, spec=3), seed=1, max_steps=1)
    with pytest.raises(ValueError, match="Vehicle.speed must be finite and non-negative, got -1.0"):
        Vehicle(speed=-1.0)
    for field in ("x", "speed", "max_yaw_rate"):
        with pytest.raises(TypeError, match=f"Vehicle.{field} must be a real number, got True"):
            Vehicle(**{field: True})
    with pytest.raises(AttributeError,
                       match=r"agent 'car' has no property 'colour'; it has \['heading'"):
        simulate(Solo(lambda car: (take() for _ in [car.colour])), seed=1, max_steps=1)
    with pytest.raises(RuntimeError, match="terminate\\(\\) was called outside"):
        simulate(Solo(idle, lambda s, car: s.record("x", terminate)), seed=1, max_steps=1)


def test_point_mass_simulator_alone():
    sim = PointMassSimulator()
    car = sim.create_object("car", Vehicle(speed=1.0, heading=0.0))
    sim.apply_action(car, Throttle(-1.0))
    sim.step(0.1)
    assert sim.get_properties(car) == {"x": pytest.approx(0.02), "y": 0.0, "heading": 0.0,
                                       "speed": pytest.approx(0.2)}
    sim.step(0.1)
    assert sim.get_properties(car)["speed"] == 0.0          # braking stops; it never reverses
    with pytest.raises(InvalidAction, match="executes Throttle and Steer actions, not 'left'"):
        sim.apply_action(car, "left")
    assert sim.get_properties(car)["speed"] == 0.0


# -- repr(ScenarioRunner) ----------------------------------------------------------------------


class Fails(Forever):
    """Its second car's behavior raises in time step 2."""

    def setup(self, s):
        def crash(car):
            for _ in range(2):
                yield wait()
            raise ZeroDivisionError("step 2")

        s.add_agent("crasher", Vehicle(), crash)


class Unnamed(Forever):
    broken = False

    @property
    def name(self) -> str:
        if self.broken:
            raise RuntimeError("no name")
        return "Unnamed"


def test_repr_tells_the_scenario_dt_tick_steps_and_state():
    clock = WorldClock(ClockConfig(fixed_dt=0.05))
    runner = ScenarioRunner(Ends(3), clock, 0.1, seed=0)
    assert repr(runner) == "<ScenarioRunner 'Ends' dt=0.1 clock tick=0 steps=0 running>"
    clock.advance_ticks(4)
    runner.pump()
    assert repr(runner) == "<ScenarioRunner 'Ends' dt=0.1 clock tick=4 steps=2 running>"
    clock.advance_ticks(4)
    runner.pump()
    assert repr(runner) == ("<ScenarioRunner 'Ends' dt=0.1 clock tick=8 steps=3 "
                            "ended (scenario complete)>")


def test_repr_of_a_failed_run_and_of_a_broken_name_never_raises():
    clock = WorldClock(ClockConfig(fixed_dt=0.1))
    runner = ScenarioRunner(Fails(), clock, seed=0)
    clock.advance_ticks(5)
    with pytest.raises(ZeroDivisionError):
        runner.pump()
    assert repr(runner) == ("<ScenarioRunner 'Fails' dt=0.1 clock tick=5 steps=2 "
                            "failed (ZeroDivisionError)>")
    scenario = Unnamed()
    runner = ScenarioRunner(scenario, clock, seed=0)
    scenario.broken = True
    assert repr(runner) == ("<ScenarioRunner <RuntimeError: no name> dt=0.1 clock tick=5 "
                            "steps=0 running>")
