"""Run one case under Scenic's DummySimulator and under cvcclock's, as comparable outcomes.

An outcome is plain data (JSON): per-step actions and trajectory (object names and
positions), the termination type, the records (``record``, ``record initial`` and ``record
final`` in one mapping, as Scenic keeps them) and the rejected attempts; or, when no attempt
was accepted, the number rejected; or the class of the guard violation raised. Termination
*reasons* are left out: the two word them differently.

Scenic's rejected attempts are counted from the name of the accepted simulation
(``simulate(..., name="run", maxIterations=N)`` names them ``run.1``, ``run.2``...); the
programs read the same name to decide, deterministically, which attempts to reject.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cvcclock.scenario import (
    DummySimulator,
    GuardViolation,
    Scenario,
    TooManyRejections,
    simulate,
)

RECORDED = Path(__file__).with_name("scenic_outcomes.json")
"""Scenic 3.1.1's outcome of every case, as ``record.py`` saved them by running Scenic."""

TERMINATIONS = {               # Scenic's TerminationType names -> cvcclock's values
    "timeLimit": "time limit",
    "scenarioComplete": "scenario complete",
    "simulationTerminationCondition": "termination condition",
    "terminatedByMonitor": "monitor",
    "terminatedByBehavior": "behavior",
}


@dataclasses.dataclass(frozen=True)
class Case:
    """A Scenic program and its cvcclock equivalent, and how to run both.

    Attributes
    ----------
    name : str
        Unique; most are the Scenic test the program comes from.
    scenic : str
        The Scenic program (indented freely).
    make : callable
        Makes the equivalent cvcclock Scenario (afresh for each run).
    max_steps, timestep, max_iterations, drift, raise_guards
        The run: Scenic's ``maxSteps``, ``timestep``, ``maxIterations``, the dummy
        simulator's ``drift`` and ``raiseGuardViolations``; cvcclock gets the same.
    difference : str or None
        For a documented difference: why cvcclock does not do what Scenic's
        implementation does (its documentation says otherwise, or a design choice).
    expected : dict or None
        For a documented difference: cvcclock's outcome (what the documentation says).
    """

    name: str
    scenic: str
    make: Callable[[], Scenario]
    max_steps: int
    timestep: float = 1.0
    max_iterations: int = 1
    drift: float = 0.0
    raise_guards: bool = False
    difference: str | None = None
    expected: dict[str, Any] | None = None


def case_registrar(cases: list[Case]) -> Callable[..., Callable[[Callable[..., Any]], Any]]:
    """``@case(name, scenic, max_steps, **run)``: register the decorated function, which makes
    the cvcclock scenario, as a case in ``cases``."""
    def case(name: str, scenic: str, max_steps: int, **run: Any) -> Callable[..., Any]:
        def register(make: Callable[..., Any]) -> Callable[..., Any]:
            cases.append(Case(name, scenic, make, max_steps, **run))
            return make
        return register
    return case


def plain(value: Any) -> Any:
    """JSON's form of a value: tuples and vectors as lists, floats rounded to 9 places."""
    if isinstance(value, float):
        return round(value, 9) + 0.0
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)) or type(value).__name__ == "Vector":
        return [plain(v) for v in value]
    return value


def recorded() -> dict[str, Any]:
    """The saved Scenic outcomes, by case name."""
    return json.loads(RECORDED.read_text())  # type: ignore[no-any-return]


# -- cvcclock ---------------------------------------------------------------------------------


def cvcclock_outcome(case: Case) -> dict[str, Any]:
    """Run the cvcclock equivalent on a DummySimulator."""
    try:
        result = simulate(case.make(), seed=0, max_steps=case.max_steps, dt=case.timestep,
                          max_iterations=case.max_iterations,
                          simulator=lambda: DummySimulator(case.drift),
                          raise_guard_violations=case.raise_guards)
    except TooManyRejections as e:
        return {"rejected": len(e.reasons)}
    except GuardViolation as e:
        return {"raised": type(e).__name__}
    records: dict[str, Any] = dict(result.records_initial)
    records.update(result.records_final)
    records.update(result.records)
    return plain({
        "actions": [[[name, acts] for name, acts in step.items()] for step in result.actions],
        "trajectory": [[[name, props["position"]] for name, props in state.items()]
                       for state in result.trajectory],
        "termination": result.termination_type.value,
        "records": records,
        "rejections": result.rejections,
    })


# -- Scenic -----------------------------------------------------------------------------------


def scenic_outcome(case: Case) -> dict[str, Any]:
    """Compile the Scenic program, sample its scene and simulate it with DummySimulator."""
    import scenic
    import scenic.syntax.veneer as veneer
    from scenic.core.dynamics import GuardViolation as ScenicGuardViolation
    from scenic.core.simulators import DummySimulator as ScenicDummy

    scene, _ = scenic.scenarioFromString(inspect.cleandoc(case.scenic)).generate(
        maxIterations=1)
    try:
        sim = ScenicDummy(drift=case.drift).simulate(
            scene, maxSteps=case.max_steps, maxIterations=case.max_iterations, name="run",
            timestep=case.timestep, raiseGuardViolations=case.raise_guards)
    except ScenicGuardViolation as e:
        return {"raised": type(e).__name__}
    finally:
        # Scenic 3.1.1 leaves the behavior that was running set as current when an invariant
        # violation rejects from inside "do ... for", and then refuses to compile any program
        # that creates an object ("tried to create an object inside a behavior").
        veneer.currentBehavior = None
    if sim is None:
        return {"rejected": case.max_iterations}
    result = sim.result
    names = [obj.name for obj in sim.objects]
    attempt = sim.name.rpartition(".")[2]
    return plain({
        "actions": [[[agent.name, acts] for agent, acts in step.items()]
                    for step in result.actions],
        "trajectory": [[[names[i], pos] for i, pos in enumerate(state)]
                       for state in result.trajectory],
        "termination": TERMINATIONS[result.terminationType.name],
        "records": {name: value for name, value in result.records.items()},
        "rejections": int(attempt) - 1 if attempt.isdigit() else 0,
    })
