"""A run with no limit warns; time_limit=math.inf runs unbounded on purpose; a runner refuses
a dt other than the one its scenario declares; repr(ScenarioRunner) tells the state."""

from __future__ import annotations

import concurrent.futures as cf
import math
import re
import warnings

import numpy as np
import pytest

from cvcclock import ClockConfig, WorldClock
from cvcclock.scenario import (
    Scenario,
    ScenarioRunner,
    SimulationResult,
    TerminationType,
    Vehicle,
    read_results,
    simulate,
    simulate_many,
    wait,
)
from cvcclock.scenario import runner as runner_module

UNBOUNDED = re.compile(r"simulate\(\) has run (?P<steps>[\d,]+) time steps .* of scenario "
                       r"'(?P<name>\w+)' with neither time_limit nor max_steps, .* give "
                       r"max_steps= or time_limit= to bound the run, or time_limit=math.inf "
                       r"to say that an unbounded run is meant \(which silences this warning\)")


def idle(car):
    while True:
        yield wait()


class Forever(Scenario):
    """One idle car: nothing ever ends the run but a limit."""

    def setup(self, s):
        s.add_agent("car", Vehicle(), idle)


class Ends(Forever):
    """Ends itself after ``steps`` time steps (``terminate_after``)."""

    def __init__(self, steps: int) -> None:
        self.steps = steps

    def setup(self, s):
        super().setup(s)
        s.terminate_after(steps=self.steps)


class Declared(Forever):
    dt = 0.05


class Inherits(Declared):
    pass


class Unset(Forever):
    dt = None      # declares none: the runner must be given one


@pytest.fixture
def warn_at_20(monkeypatch):
    """The unbounded-run warning after 20 steps instead of 100,000, to keep runs short."""
    monkeypatch.setattr(runner_module, "_UNBOUNDED_WARNING_STEPS", 20)


def unbounded_warnings(caught):
    return [w for w in caught if UNBOUNDED.search(str(w.message))]


# -- a run with no limit ------------------------------------------------------------------


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


def test_a_batch_takes_an_infinite_time_limit_and_resumes_its_file(tmp_path):
    out = tmp_path / "runs.jsonl"
    with cf.ThreadPoolExecutor(1) as threads:
        first = list(simulate_many(Ends(12), [0, 1], executor=threads, out=out,
                                   time_limit=math.inf))
        both = list(simulate_many(Ends(12), [0, 1, 2], executor=threads, out=out,
                                  time_limit=math.inf))
    assert all(isinstance(r, SimulationResult) and r.steps == 12 for r in both)
    assert both[:2] == first and both == [simulate(Ends(12), seed=s) for s in (0, 1, 2)]
    assert '"options":{"time_limit":{"$float":"inf"}}' in out.read_text().splitlines()[0]
    assert [r.seed for r in read_results(out)] == [0, 1, 2]     # three runs, none twice


# -- a runner's dt and its scenario's ------------------------------------------------------


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


# -- repr ----------------------------------------------------------------------------------


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
