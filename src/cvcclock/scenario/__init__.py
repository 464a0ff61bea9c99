"""Scenic-style dynamic scenarios on the clock: behaviors, requirements, monitors, a runner.

A scenario creates agents (a simulator object and a behavior) in ``setup``; behaviors are
generators yielding ``take(*actions)`` or ``wait()`` once per time step. The runner follows
a :class:`~cvcclock.WorldClock` and runs each time step in the order of Scenic's
"Execution of Dynamic Scenarios"; a rejected attempt is resampled with a seed derived from
the caller's, and every run is a function of its seed alone.

>>> from cvcclock.scenario import Scenario, Throttle, Vehicle, simulate, take
>>> def cruise(car):
...     while True:
...         yield take(Throttle(0.5))
>>> class Drive(Scenario):
...     def setup(self, s):
...         car = s.add_agent("car", Vehicle(), cruise)
...         s.record_final("x", lambda: round(car.x, 3))
>>> simulate(Drive(), seed=0, max_steps=10).records_final
{'x': 1.1}
"""

from cvcclock.scenario.batch import BatchSummary, FailedRun, read_results, simulate_many, summarize
from cvcclock.scenario.behaviors import WAIT, Take, invariant, precondition, take, wait
from cvcclock.scenario.errors import (
    ActionRejected,
    BehaviorError,
    GuardViolation,
    RejectSimulation,
    ScenarioFailed,
    TooManyRejections,
)
from cvcclock.scenario.requirements import require, terminate
from cvcclock.scenario.results import SimulationResult, TerminationType
from cvcclock.scenario.runner import ScenarioRunner, simulate
from cvcclock.scenario.scenarios import Scenario, Scope
from cvcclock.scenario.simulation import Agent, Simulation
from cvcclock.scenario.simulator import (
    InvalidAction,
    PointMassSimulator,
    Simulator,
    Steer,
    Throttle,
    Vehicle,
)

__all__ = [
    "WAIT",
    "ActionRejected",
    "Agent",
    "BatchSummary",
    "BehaviorError",
    "FailedRun",
    "GuardViolation",
    "InvalidAction",
    "PointMassSimulator",
    "RejectSimulation",
    "Scenario",
    "ScenarioFailed",
    "ScenarioRunner",
    "Scope",
    "Simulation",
    "SimulationResult",
    "Simulator",
    "Steer",
    "TerminationType",
    "Throttle",
    "TooManyRejections",
    "Take",
    "Vehicle",
    "invariant",
    "precondition",
    "read_results",
    "require",
    "simulate",
    "simulate_many",
    "summarize",
    "take",
    "terminate",
    "wait",
]
