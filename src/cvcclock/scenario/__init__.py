"""Scenic-style dynamic scenarios on the clock: behaviors, requirements, monitors, a runner.

A scenario creates agents (a simulator object and a behavior) in ``setup``; behaviors are
generators yielding ``take(*actions)`` or ``wait()`` once per time step, and delegating with
``yield from do(...)`` and ``yield from interrupt(...)``. The runner follows a
:class:`~cvcclock.WorldClock` and runs each time step in the order of Scenic's "Execution of
Dynamic Scenarios"; a rejected attempt is resampled with a seed derived from the caller's,
and every run is a function of its seed alone.

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

from typing import Any

from cvcclock._public import publish
from cvcclock.scenario.behaviors import WAIT, Take, invariant, precondition, take, wait
from cvcclock.scenario.control import ABORT, do, do_choose, do_shuffle, interrupt
from cvcclock.scenario.errors import (
    ActionRejected,
    BehaviorError,
    GuardViolation,
    InvariantViolation,
    PreconditionViolation,
    RejectSimulation,
    ScenarioFailed,
    TooManyRejections,
)
from cvcclock.scenario.requirements import require, terminate, terminate_simulation
from cvcclock.scenario.results import SimulationResult, TerminationType
from cvcclock.scenario.runner import ScenarioRunner, simulate
from cvcclock.scenario.scenarios import Params, Scenario
from cvcclock.scenario.scopes import Scope
from cvcclock.scenario.simulation import Agent, Simulation
from cvcclock.scenario.simulator import (
    DummyObject,
    DummySimulator,
    InvalidAction,
    PointMassSimulator,
    Simulator,
    Steer,
    Throttle,
    Vehicle,
)
from cvcclock.scenario.temporal import (
    Always,
    And,
    Eventually,
    Formula,
    Implies,
    Next,
    Not,
    Or,
    Until,
)

__all__ = [
    "ABORT",
    "WAIT",
    "ActionRejected",
    "Agent",
    "Always",
    "And",
    "BehaviorError",
    "DummyObject",
    "DummySimulator",
    "Eventually",
    "Formula",
    "GuardViolation",
    "Implies",
    "InvalidAction",
    "InvariantViolation",
    "Next",
    "Not",
    "Or",
    "Params",
    "PointMassSimulator",
    "PreconditionViolation",
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
    "Until",
    "Vehicle",
    "do",
    "do_choose",
    "do_shuffle",
    "interrupt",
    "invariant",
    "precondition",
    "require",
    "simulate",
    "take",
    "terminate",
    "terminate_simulation",
    "wait",
]

publish(__name__, globals(), __all__)

# Batches moved to their own wing, cvcclock.batch; these names stay importable from here,
# loaded on first use, so that importing the runner loads no pool machinery.
_MOVED_TO_BATCH = frozenset({"BatchSummary", "FailedRun", "read_results", "simulate_many",
                             "summarize"})


def __getattr__(name: str) -> Any:
    if name in _MOVED_TO_BATCH:
        import cvcclock.batch

        return getattr(cvcclock.batch, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_MOVED_TO_BATCH})
