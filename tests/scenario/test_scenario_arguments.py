"""Every public call of cvcclock.scenario checks its arguments with the clock's rules.

A wrong type is a TypeError, a wrong value a ValueError; the message names the argument and
the value; a refused call changes nothing. numpy numbers are real numbers, numpy ints are
integers and numpy bools are bools wherever those are taken.
"""

import math
import re

import numpy as np
import pytest

from cvcclock import ClockConfig, WorldClock
from cvcclock.checks import MAX_TICK
from cvcclock.scenario import (
    Agent,
    GuardViolation,
    PointMassSimulator,
    Scenario,
    ScenarioRunner,
    Scope,
    Simulation,
    SimulationResult,
    Steer,
    Take,
    TerminationType,
    Throttle,
    Vehicle,
    invariant,
    precondition,
    require,
    simulate,
    simulate_many,
    take,
    terminate,
    wait,
)
from cvcclock.scenario.requirements import describe
from cvcclock.scenario.runner import derive_seed
from support.idle_scenarios import Forever

BIG = 10**400
T, V = TypeError, ValueError    # short names for the tables' error column


def drive(car):
    while True:
        yield take(Throttle(0.5))


class Solo(Scenario):
    """One driving car with a record, a monitor and a requirement; ``extra(s, car)`` runs last."""

    setups = 0

    def __init__(self, extra=None):
        self.extra = extra

    def setup(self, s):
        Solo.setups += 1
        car = s.add_agent("car", Vehicle(), drive)
        s.record("x", lambda: round(car.x, 9))
        s.record_initial("x0", lambda: car.x)
        s.record_final("x1", lambda: round(car.x, 9))
        s.monitor(watch)
        s.require_always(lambda: car.speed >= 0.0, name="forward")
        s.terminate_after(1.0)      # bounds every run, even one given a limit it should refuse
        if self.extra:
            self.extra(s, car)


def watch(sim):
    while True:
        yield wait()


def pred():
    return False


# -- ScenarioRunner and simulate ---------------------------------------------------------

RUN_ARGUMENTS = [
    ({"seed": "1"}, T, "seed must be an integer, got '1'"),
    ({"seed": 1.0}, T, "seed must be an integer, got 1.0"),
    ({"seed": True}, T, "seed must be an integer, got True"),
    ({"seed": np.True_}, T, "seed must be an integer, got np.True_"),
    ({"seed": None}, T, "seed must be an integer, got None"),
    ({"seed": -1}, V, "seed must be >= 0, got -1"),
    ({"max_steps": "2"}, T, "max_steps must be an integer, got '2'"),
    ({"max_steps": 2.0}, T, "max_steps must be an integer, got 2.0"),
    ({"max_steps": True}, T, "max_steps must be an integer, got True"),
    ({"max_steps": -1}, V, "max_steps must be >= 0, got -1"),
    ({"max_steps": BIG}, V, f"max_steps must be <= {MAX_TICK}, got 1000"),
    ({"time_limit": "1"}, T, "time_limit must be a real number, got '1'"),
    ({"time_limit": True}, T, "time_limit must be a real number, got True"),
    ({"time_limit": -0.1}, V, "time_limit must be finite and non-negative, got -0.1"),
    ({"time_limit": math.nan}, V, "time_limit must be finite and non-negative, got nan"),
    ({"time_limit": -math.inf}, V, "time_limit must be finite and non-negative, got -inf "
                                   "(or math.inf for no limit)"),
    ({"time_limit": BIG}, V, "time_limit must be finite, got 1000"),
    ({"max_iterations": "3"}, T, "max_iterations must be an integer, got '3'"),
    ({"max_iterations": True}, T, "max_iterations must be an integer, got True"),
    ({"max_iterations": 0}, V, "max_iterations must be >= 1, got 0"),
    ({"max_iterations": BIG}, V, f"max_iterations must be <= {MAX_TICK}, got 1000"),
    ({"dt": "0.1"}, T, "scenario 'Solo': dt must be a real number, got '0.1'"),
    ({"dt": True}, T, "scenario 'Solo': dt must be a real number, got True"),
    ({"dt": np.True_}, T, "scenario 'Solo': dt must be a real number, got np.True_"),
    ({"dt": 0}, V, "scenario 'Solo': dt must be > 0, got 0"),
    ({"dt": -0.1}, V, "scenario 'Solo': dt must be finite and non-negative, got -0.1"),
    ({"dt": BIG}, V, "scenario 'Solo': dt must be finite, got 1000"),
    ({"simulator": 5}, T, "simulator must be callable or None, got 5"),
    ({"simulator": lambda: 3}, T, "simulator must be a Simulator, got 3"),
    ({"raise_guard_violations": "yes"}, T, "raise_guard_violations must be a bool, got 'yes'"),
    ({"raise_guard_violations": 1}, T, "raise_guard_violations must be a bool, got 1"),
    ({"raise_guard_violations": None}, T, "raise_guard_violations must be a bool, got None"),
    ({"trace": 5}, T, "trace must be callable or None, got 5"),
]


def run_id(kwargs):
    (name, value), = kwargs.items()
    return f"{name}={'a function' if callable(value) else repr(value)[:24]}"


def call_args(kwargs):
    return {"seed": 0, "max_steps": 3, **kwargs}


@pytest.mark.parametrize(("kwargs", "error", "message"), RUN_ARGUMENTS,
                         ids=[run_id(k) for k, _, _ in RUN_ARGUMENTS])
def test_a_bad_run_argument_is_refused_before_anything_runs(kwargs, error, message):
    Solo.setups = 0
    with pytest.raises(error, match="^" + re.escape(message)):
        simulate(Solo(), **call_args(kwargs))
    clock = WorldClock(ClockConfig(fixed_dt=0.1))
    clock.advance_ticks(7)
    with pytest.raises(error, match="^" + re.escape(message)):
        ScenarioRunner(Solo(), clock, **call_args(kwargs))
    assert clock.tick == 7
    assert Solo.setups == 0     # a simulator factory is called, and refused, before setup


def test_runner_only_arguments():
    with pytest.raises(TypeError, match="^clock must be a WorldClock, got 5$"):
        ScenarioRunner(Solo(), 5, seed=0)
    with pytest.raises(TypeError, match="^scenario must be a Scenario, got <class"):
        ScenarioRunner(Solo, WorldClock(ClockConfig(fixed_dt=0.1)), seed=0)


@pytest.mark.parametrize("value, error, message", [
    (-math.inf, ValueError, "time_limit must be finite and non-negative, got -inf (or math.inf "
                            "for no limit)"),
    (math.nan, ValueError, "time_limit must be finite and non-negative, got nan (or math.inf "
                           "for no limit)"),
    ("inf", TypeError, "time_limit must be a real number, got 'inf'")])
def test_a_bad_time_limit_is_refused_by_all_three(value, error, message):
    clock = WorldClock(ClockConfig(fixed_dt=0.1))
    calls = [lambda: simulate(Forever(), seed=0, time_limit=value),
             lambda: ScenarioRunner(Forever(), clock, seed=0, time_limit=value),
             lambda: simulate_many(Forever(), [0], time_limit=value)]
    for call in calls:
        with pytest.raises(error, match="^" + re.escape(message) + "$"):
            call()
    assert clock.tick == 0


@pytest.mark.parametrize("dt", [1e-7, 0.0])
def test_simulate_names_dt_not_the_clocks_fixed_dt(dt):
    class Tiny(Solo):
        pass

    Tiny.dt = dt
    for kwargs, where in (({"dt": dt}, "dt"), ({}, "Tiny.dt")):
        with pytest.raises(ValueError) as info:
            simulate(Tiny(), seed=0, max_steps=1, **kwargs)
        assert str(info.value).startswith(f"scenario 'Tiny': {where} must be ")
        assert f"got {dt!r}" in str(info.value) and "fixed_dt" not in str(info.value)


def test_numpy_numbers_and_bools_are_taken():
    base = simulate(Solo(), seed=3, max_steps=2)
    assert simulate(Solo(), seed=np.int64(3), max_steps=np.int64(2)) == base
    timed = simulate(Solo(), seed=3, max_steps=np.int64(5), time_limit=np.float64(0.2))
    assert timed.trajectory == base.trajectory
    assert timed.termination_reason == "reached time_limit=0.2 s"
    assert simulate(Solo(), seed=3, max_steps=2, max_iterations=np.int64(3),
                    dt=np.float64(0.1)) == base
    assert simulate(Solo(), seed=3, max_steps=2, raise_guard_violations=np.False_) == base
    assert type(simulate(Solo(), seed=np.int64(3), max_steps=0).seed) is int

    @precondition(lambda car: False)
    def never(car):
        yield wait()

    with pytest.raises(GuardViolation):
        simulate(Solo(lambda s, car: s.add_agent("b", Vehicle(), never)), seed=0, max_steps=2,
                 raise_guard_violations=np.True_)


def test_seeds_of_any_size_and_huge_time_limits_are_taken():
    for seed in (0, 2**70, derive_seed(0, 1)):
        assert simulate(Solo(), seed=seed, max_steps=1).seed == seed
    # a time limit past every step a clock reaches never ends the run (no OverflowError)
    huge = simulate(Solo(), seed=0, max_steps=2, time_limit=1.7e308)
    assert huge.termination_reason == "reached max_steps=2"


# -- Scope: refused in setup, the run is exactly the run without the call ----------------

SCOPE_CALLS = [
    (lambda s, car: s.add_agent(3, Vehicle(), drive), T, "name must be a str, got 3"),
    (lambda s, car: s.add_agent("car", Vehicle(), drive), V,
     "agent names must be unique; there is already an agent 'car'"),
    (lambda s, car: s.add_agent("b", Vehicle(), 5), T,
     "behavior must be a generator function or None, got 5"),
    (lambda s, car: s.add_agent("b", 3, drive), T,
     "spec must be a Vehicle (what PointMassSimulator makes), got 3 for 'b'"),
    (lambda s, car: s.monitor(5), T, "fn must be a generator function, got 5"),
    (lambda s, car: s.monitor(watch, name=3), T, "name must be a str or None, got 3"),
    (lambda s, car: s.record(3, pred), T, "name must be a str, got 3"),
    (lambda s, car: s.record("x", pred), V,
     "record names must be unique; there is already a record 'x'"),
    (lambda s, car: s.record("y", 5), T, "fn must be a callable of no arguments, got 5"),
    (lambda s, car: s.record_initial("x0", pred), V, "record_initial names must be unique"),
    (lambda s, car: s.record_initial(None, pred), T, "name must be a str, got None"),
    (lambda s, car: s.record_final("x1", pred), V, "record_final names must be unique"),
    (lambda s, car: s.record_final("z", None), T,
     "fn must be a callable of no arguments, got None"),
    (lambda s, car: s.terminate_simulation_when(5), T,
     "pred must be a callable of no arguments, got 5"),
    (lambda s, car: s.terminate_simulation_when(pred, name=3), T,
     "name must be a str or None, got 3"),
    (lambda s, car: s.require_always(True), T, "pred must be a callable of no arguments, got True"),
    (lambda s, car: s.require_always(pred, 1.5), T, "name must be a str or None, got 1.5"),
    (lambda s, car: s.require_eventually("x > 1"), T,
     "pred must be a callable of no arguments, got 'x > 1'"),
    (lambda s, car: s.invariant(pred, name=b"x"), T, "name must be a str or None, got b'x'"),
    (lambda s, car: s.terminate_when(0), T, "pred must be a callable of no arguments, got 0"),
    (lambda s, car: s.terminate_after("1"), T, "seconds must be a real number, got '1'"),
    (lambda s, car: s.terminate_after(True), T, "seconds must be a real number, got True"),
    (lambda s, car: s.terminate_after(-1), V, "seconds must be finite and non-negative, got -1"),
    (lambda s, car: s.terminate_after(math.nan), V,
     "seconds must be finite and non-negative, got nan"),
    (lambda s, car: s.terminate_after(BIG), V, "seconds must be finite, got 1000"),
    (lambda s, car: s.do(Solo(), 3), T, "each scenario given to do() must be a Scenario, got 3"),
    (lambda s, car: s.sim[3], T, "name must be a str, got 3"),
    (lambda s, car: require(True, 3), T, "message must be a str or None, got 3"),
    (lambda s, car: terminate(3), T, "reason must be a str or None, got 3"),
]


@pytest.mark.parametrize(("call", "error", "message"), SCOPE_CALLS,
                         ids=[re.sub(r"\W+", "_", m)[:40] for _, _, m in SCOPE_CALLS])
def test_a_bad_scope_call_is_refused_and_changes_nothing(call, error, message):
    def refused(s, car):
        with pytest.raises(error, match="^" + re.escape(message)):
            call(s, car)

    assert simulate(Solo(refused), seed=1, max_steps=4) == simulate(Solo(), seed=1, max_steps=4)


def test_terminate_after_takes_numpy_seconds_and_huge_limits():
    def limits(seconds):
        return lambda s, car: s.terminate_after(seconds)

    assert simulate(Solo(limits(np.float64(0.2))), seed=0).steps == 2
    assert simulate(Solo(limits(np.int64(0))), seed=0).steps == 0
    assert simulate(Solo(limits(1.7e308)), seed=0, max_steps=3).steps == 3


# -- the simulator and its values -------------------------------------------------------

VALUE_CALLS = [
    (lambda: Vehicle(x="1"), T, "Vehicle.x must be a real number, got '1'"),
    (lambda: Vehicle(y=True), T, "Vehicle.y must be a real number, got True"),
    (lambda: Vehicle(heading=np.True_), T, "Vehicle.heading must be a real number, got np.True_"),
    (lambda: Vehicle(x=math.nan), V, "Vehicle.x must be finite, got nan"),
    (lambda: Vehicle(x=BIG), V, "Vehicle.x must be finite, got 1000"),
    (lambda: Vehicle(speed=-1.0), V, "Vehicle.speed must be finite and non-negative, got -1.0"),
    (lambda: Vehicle(max_speed=-5), V, "Vehicle.max_speed must be finite and non-negative, got -5"),
    (lambda: Vehicle(max_accel=math.inf), V,
     "Vehicle.max_accel must be finite and non-negative, got inf"),
    (lambda: Vehicle(max_brake=None), T, "Vehicle.max_brake must be a real number, got None"),
    (lambda: Vehicle(max_yaw_rate=-0.5), V, "Vehicle.max_yaw_rate must be finite and non-negative"),
    (lambda: Throttle("a"), T, "Throttle.value must be a real number, got 'a'"),
    (lambda: Throttle(True), T, "Throttle.value must be a real number, got True"),
    (lambda: Throttle(1.5), V, "Throttle.value must be in [-1, 1], got 1.5"),
    (lambda: Steer(math.nan), V, "Steer.value must be finite, got nan"),
    (lambda: Steer(-BIG), V, "Steer.value must be finite, got -1000"),
    (lambda: Take([Throttle(0.5)]), T, "actions must be a tuple, got [Throttle(value=0.5)]"),
    (lambda: precondition(5), T, "pred must be a predicate (a callable), got 5"),
    (lambda: invariant("x"), T, "pred must be a predicate (a callable), got 'x'"),
    (lambda: describe(pred, 3), T, "name must be a str or None, got 3"),
    (lambda: derive_seed("1", 1), T, "seed must be an integer, got '1'"),
    (lambda: derive_seed(1, -1), V, "attempt must be >= 0, got -1"),
    (lambda: Simulation(PointMassSimulator(), "1", 0.1), T, "seed must be an integer, got '1'"),
    (lambda: Simulation(3, 0, 0.1), T, "simulator must be a Simulator, got 3"),
    (lambda: Simulation(PointMassSimulator(), 0, 0), V, "dt must be > 0, got 0"),
    (lambda: Agent("a", None, {}, 3, None, ()), T, "sim must be a Simulation, got 3"),
    (lambda: Agent(1, None, {}, _simulation(), None, ()), T, "name must be a str, got 1"),
    (lambda: Agent("a", None, [], _simulation(), None, ()), T, "props must be a Mapping, got []"),
    (lambda: Agent("a", None, {}, _simulation(), 4, ()), T,
     "behavior must be a generator function or None, got 4"),
    (lambda: Agent("a", None, {}, _simulation(), None, [1]), T, "args must be a tuple, got [1]"),
    (lambda: Scope(3, _simulation()), T, "scenario must be a Scenario, got 3"),
    (lambda: Scope(Solo(), 3), T, "sim must be a Simulation, got 3"),
    (lambda: Scope(Solo(), _simulation(), 3), T, "parent must be a Scope, got 3"),
    (lambda: _result(termination_type="time limit"), T,
     "termination_type must be a TerminationType, got 'time limit'"),
    (lambda: _result(trajectory=[]), T, "trajectory must be a tuple, got []"),
    (lambda: _result(seed=1.5), T, "seed must be an integer, got 1.5"),
    (lambda: _result(rejections=-1), V, "rejections must be >= 0, got -1"),
    (lambda: _result(rejections=2), V, "rejections must be len(rejection_reasons) = 0, got 2"),
    (lambda: _result(dt=0.0), V, "dt must be > 0, got 0.0"),
]


def _simulation():
    return Simulation(PointMassSimulator(), 0, 0.1)


def _result(**changes):
    fields = dict(trajectory=(), actions=(), records={}, records_initial={}, records_final={},
                  termination_type=TerminationType.TIME_LIMIT, termination_reason="", seed=0,
                  run_seed=0, rejections=0, rejection_reasons=(), dt=0.1)
    return SimulationResult(**{**fields, **changes})


@pytest.mark.parametrize(("call", "error", "message"), VALUE_CALLS,
                         ids=[re.sub(r"\W+", "_", m)[:40] for _, _, m in VALUE_CALLS])
def test_a_bad_value_is_refused(call, error, message):
    with pytest.raises(error, match="^" + re.escape(message)):
        call()


def test_good_values_are_taken():
    assert _result(seed=np.int64(2), rejections=np.int64(0), dt=np.float64(0.1)).seed == 2
    spec = Vehicle(x=np.int64(1), y=-3, heading=np.float64(-1.0), max_accel=np.float32(4.0))
    assert (spec.x, spec.y, spec.heading) == (1.0, -3.0, -1.0)
    assert all(type(getattr(spec, field)) is float for field in ("x", "y", "heading", "max_accel"))
    assert Throttle(np.float64(-1.0)) == Throttle(-1.0) and Steer(1) == Steer(1.0)

    class Spec(Solo):
        def setup(self, s):
            spec = Vehicle(x=np.int64(1), speed=np.float32(2.0), max_accel=np.int64(4))
            s.add_agent("car", spec, drive)

    trajectory = simulate(Spec(), seed=0, max_steps=2).trajectory
    assert trajectory[0]["car"] == {"x": 1.0, "y": 0.0, "heading": 0.0, "speed": 2.0}
    assert all(type(v) is float for state in trajectory for v in state["car"].values())


SIMULATOR_CALLS = [
    (lambda sim, car: sim.create_object(3, Vehicle()), T, "name must be a str, got 3"),
    (lambda sim, car: sim.create_object("b", {"x": 1}), T,
     "spec must be a Vehicle (what PointMassSimulator makes), got {'x': 1} for 'b'"),
    (lambda sim, car: sim.apply_action("car", Throttle(1.0)), T,
     "handle must be what PointMassSimulator.create_object returned, got 'car'"),
    (lambda sim, car: sim.get_properties(None), T,
     "handle must be what PointMassSimulator.create_object returned, got None"),
    (lambda sim, car: sim.step("0.1"), T, "dt must be a real number, got '0.1'"),
    (lambda sim, car: sim.step(True), T, "dt must be a real number, got True"),
    (lambda sim, car: sim.step(-0.1), V, "dt must be finite and non-negative, got -0.1"),
    (lambda sim, car: sim.step(BIG), V, "dt must be finite, got 1000"),
]


@pytest.mark.parametrize(("call", "error", "message"), SIMULATOR_CALLS,
                         ids=[re.sub(r"\W+", "_", m)[:40] for _, _, m in SIMULATOR_CALLS])
def test_a_bad_simulator_call_is_refused_and_changes_nothing(call, error, message):
    sim = PointMassSimulator()
    car = sim.create_object("car", Vehicle(speed=1.0))
    sim.apply_action(car, Throttle(1.0))
    before = sim.get_properties(car)
    with pytest.raises(error, match="^" + re.escape(message)):
        call(sim, car)
    assert sim.get_properties(car) == before
    sim.step(0.1)
    assert sim.get_properties(car)["speed"] == pytest.approx(1.4)    # the throttle held; one body
    sim.step(np.float64(0.1))
    assert sim.get_properties(car)["speed"] == pytest.approx(1.8)
