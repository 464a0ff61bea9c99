"""Scenarios: ``setup`` creates agents and requirements; an optional ``compose`` sequences them.

A :class:`Scenario` is a description; every attempt calls its ``setup`` with a fresh
:class:`Scope`, the running instance, so nothing carries over from a rejected attempt.
Sub-scenarios run from a compose block with ``yield from s.do(Sub())`` and get scopes of
their own: their requirements, time limit and termination conditions end with them.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

from cvcclock.scenario._arguments import (
    check_callable,
    check_instance,
    check_name,
    check_str,
)
from cvcclock.scenario.behaviors import WAIT, Take
from cvcclock.scenario.errors import BehaviorError, GuardViolation, RejectSimulation, Terminate
from cvcclock.scenario.requirements import describe
from cvcclock.scenario.simulation import Agent, Monitor, Simulation, steps_for
from cvcclock.scenario.simulator import PointMassSimulator, Simulator

if TYPE_CHECKING:
    from cvcclock.scenario.runner import Trace

__all__ = ["Scenario", "Scope"]

Predicate = Callable[[], object]


class Scenario:
    """A scenario. Subclass it; override :meth:`setup` and, optionally, ``compose``.

    ``compose(self, s)``, when defined, is a generator method run once per time step like a
    behavior: it yields ``wait()``, may ``require``, may ``terminate()`` the scenario, and
    runs sub-scenarios with ``yield from s.do(...)``. The scenario stops when it returns.
    A scenario without compose runs until its time limit, a ``terminate_when`` condition,
    or the end of the simulation.

    Attributes
    ----------
    dt : float
        The time step in seconds, used unless the runner is given one; only the top-level
        scenario's counts.
    """

    dt: float = 0.1
    compose: Callable[[Scope], Generator[Take, None, Any]] | None = None

    @property
    def name(self) -> str:
        """The scenario's name in reasons and traces: its class name."""
        return type(self).__name__

    def setup(self, s: Scope) -> None:
        """Create agents and register requirements, monitors and records on ``s``.

        Called once per attempt, before its first time step (for a sub-scenario, when it
        is started). Randomness must come from ``s.rng``.
        """

    def simulator(self) -> Simulator:
        """A fresh simulator for one attempt: a :class:`PointMassSimulator` unless overridden."""
        return PointMassSimulator()


class Scope:
    """A running instance of a :class:`Scenario` within one attempt.

    Requirements, invariants, time limits and ``terminate_when`` conditions belong to the
    scope; agents, monitors, records and ``terminate_simulation_when`` conditions belong to
    the whole simulation and outlive the scope. Predicates take no arguments: close over
    the agents ``add_agent`` returns.

    Attributes
    ----------
    scenario : Scenario
        What this scope runs.
    sim : Simulation
        The attempt (``sim.step``, ``sim.time``, ``sim.agents``, ``sim.rng``).
    running : bool
        False once the scenario has stopped.

    Every method raises TypeError for an argument of the wrong type and ValueError for a
    name already taken, before it changes anything.
    """

    def __init__(self, scenario: Scenario, sim: Simulation, parent: Scope | None = None) -> None:
        self.scenario = check_instance(scenario, Scenario, "scenario")
        self.sim = check_instance(sim, Simulation, "sim")
        self.parent = parent if parent is None else check_instance(parent, Scope, "parent")
        self.name = scenario.name
        self.running = True
        self._start = sim.step
        self._always: list[tuple[str, Predicate]] = []
        self._eventually: list[tuple[str, Predicate]] = []
        self._satisfied: list[bool] = []
        self._invariants: list[tuple[str, Predicate]] = []
        self._terminate_when: list[tuple[str, Predicate]] = []
        self._limit: int | None = None
        self._limit_seconds = 0.0
        self._compose: Generator[Take, None, Any] | None = None
        self._children: list[Scope] = []     # the sub-scenarios of the do() in progress

    @property
    def rng(self) -> Any:
        """The attempt's seeded ``random.Random``."""
        return self.sim.rng

    # -- the simulation: agents, monitors, records ---------------------------------------

    def add_agent(self, name: str, spec: Any,
                  behavior: Callable[..., Generator[Any, None, Any]] | None = None,
                  *args: Any) -> Agent:
        """Create an object in the simulator; with a behavior, an agent.

        Parameters
        ----------
        name : str
            Unique in the simulation.
        spec : object
            What the simulator's ``create_object`` takes (e.g. a ``Vehicle``).
        behavior : generator function, optional
            Called as ``behavior(agent, *args)`` at the agent's first time step.
        *args
            Extra arguments for the behavior.
        """
        return self.sim._add_agent(name, spec, behavior, args)

    def monitor(self, fn: Callable[..., Generator[Any, None, Any]], *args: Any,
                name: str | None = None) -> None:
        """Run the generator function ``fn(sim, *args)`` once per time step; it yields ``wait()``.

        Monitors run in registration order, for the rest of the simulation. ``name`` (by
        default ``fn.__name__``) names the monitor in reasons and traces.
        """
        check_callable(fn, "fn", "a generator function")
        label = check_name(name)
        if label is None:
            label = str(getattr(fn, "__name__", type(fn).__name__))
        self.sim._monitors.append(Monitor(fn, args, label))

    def record(self, name: str, fn: Predicate) -> None:
        """Save ``fn()`` every time step, as ``result.records[name]``: ``((step, value), ...)``."""
        _register(self.sim._records, name, fn, "record")
        self.sim._records[name] = (fn, [])

    def record_initial(self, name: str, fn: Predicate) -> None:
        """Save ``fn()`` at time step 0, as ``result.records_initial[name]``."""
        _register(self.sim._records_initial, name, fn, "record_initial")
        self.sim._records_initial[name] = fn

    def record_final(self, name: str, fn: Predicate) -> None:
        """Save ``fn()`` when the simulation ends, as ``result.records_final[name]``."""
        _register(self.sim._records_final, name, fn, "record_final")
        self.sim._records_final[name] = fn

    def terminate_simulation_when(self, pred: Predicate, name: str | None = None) -> None:
        """End the simulation at the first termination check where ``pred()`` is true."""
        self.sim._end_conditions.append(_predicate(pred, name))

    # -- this scenario: requirements and termination -------------------------------------

    def require_always(self, pred: Predicate, name: str | None = None) -> None:
        """Reject the attempt if ``pred()`` is false at any time step while this scenario runs."""
        self._always.append(_predicate(pred, name))

    def require_eventually(self, pred: Predicate, name: str | None = None) -> None:
        """Reject the attempt if ``pred()`` is true at no time step before this scenario stops."""
        self._eventually.append(_predicate(pred, name))
        self._satisfied.append(False)

    def invariant(self, pred: Predicate, name: str | None = None) -> None:
        """A scenario invariant, checked each step when not running a sub-scenario."""
        self._invariants.append(_predicate(pred, name))

    def terminate_after(self, seconds: float) -> None:
        """Stop this scenario at the first time step at least ``seconds`` after it started."""
        self._limit = steps_for(seconds, self.sim.dt, "seconds")
        self._limit_seconds = seconds

    def terminate_when(self, pred: Predicate, name: str | None = None) -> None:
        """Stop this scenario at the first time step where ``pred()`` is true."""
        self._terminate_when.append(_predicate(pred, name))

    def do(self, *scenarios: Scenario) -> Generator[Take, None, None]:
        """Run sub-scenarios until they have all stopped: ``yield from s.do(Sub())`` in compose.

        Each is set up at once, with a scope of its own, and runs its first time step in the
        same step, after this one. The scenarios are checked at the call (TypeError for
        anything but a :class:`Scenario`).
        """
        for sc in scenarios:
            check_instance(sc, Scenario, "each scenario given to do()")
        return self._do(scenarios)

    # -- the runner's side -----------------------------------------------------------------

    def _do(self, scenarios: tuple[Scenario, ...]) -> Generator[Take, None, None]:
        children = [self._start_child(sc) for sc in scenarios]
        while any(child.running for child in children):
            yield WAIT

    def _start_child(self, scenario: Scenario) -> Scope:
        child = Scope(scenario, self.sim, self)
        scenario.setup(child)
        self._children = [c for c in self._children if c.running]
        self._children.append(child)
        self.sim._scopes.append(child)
        return child

    def _step(self, n: int, trace: Trace | None) -> None:
        """Step 1 of a time step (a to f) for this scenario."""
        name = self.name
        if trace:
            trace(n, "require_always", name)
        for desc, pred in self._always:
            if not pred():
                raise RejectSimulation(f"require_always {desc} of scenario {name!r} violated")
        if trace:
            trace(n, "require_eventually", name)
        for i, (_, pred) in enumerate(self._eventually):
            if pred():
                self._satisfied[i] = True
        if trace:
            trace(n, "time_limit", name)
        reason = None
        if self._limit is not None and n - self._start >= self._limit:
            reason = f"scenario {name!r} reached its time limit of {self._limit_seconds} s"
        else:
            if trace:
                trace(n, "terminate_when", name)
            for desc, pred in self._terminate_when:
                if pred():
                    reason = f"terminate_when {desc} of scenario {name!r} held"
                    break
        # Running a sub-scenario means one is still running, not that compose is still inside
        # do(): that only returns at compose's next resumption, after this check.
        if reason is None and not any(child.running for child in self._children):
            if trace:
                trace(n, "invariants", name)
            for desc, pred in self._invariants:
                if not pred():
                    raise GuardViolation(f"invariant {desc} of scenario {name!r} violated")
        if reason is None and self.scenario.compose is not None:
            if trace:
                trace(n, "compose", name)
            reason = self._resume_compose(n)
        if reason is not None:
            if trace:
                trace(n, "stopping", name)
            self._stop(reason)

    def _resume_compose(self, n: int) -> str | None:
        gen = self._compose
        name = self.name
        try:
            if gen is None:
                gen = self._compose = self.scenario.compose(self)  # type: ignore[misc]
                if not isinstance(gen, Generator):
                    raise BehaviorError(f"compose of scenario {name!r} returned {gen!r} at step "
                                        f"{n}, not a generator; compose must be a generator "
                                        f"method (it must yield)")
            item = next(gen)
        except StopIteration:
            return f"compose of scenario {name!r} finished"
        except Terminate as t:
            return (f"compose of scenario {name!r} terminated it"
                    + (f": {t.reason}" if t.reason else ""))
        except RejectSimulation as e:
            e.args = (f"compose of scenario {name!r}: {e}",)
            raise
        if item is not WAIT and not (type(item) is Take and not item.actions):
            raise BehaviorError(f"compose of scenario {name!r} yielded {item!r} at step {n}; "
                                f"compose blocks yield wait()")
        return None

    def _check_eventually(self) -> None:
        for (desc, _), ok in zip(self._eventually, self._satisfied, strict=True):
            if not ok:
                raise RejectSimulation(
                    f"require_eventually {desc} of scenario {self.name!r} never held")

    def _stop(self, reason: str) -> None:
        """Step 1f: check the eventually requirements, stop the sub-scenarios, flag the top."""
        self._check_eventually()
        self.running = False
        self.sim._scope_stopped = True
        for child in self._children:
            if child.running:
                child._stop(f"its parent scenario {self.name!r} stopped")
        if self._compose is not None:
            self._compose.close()
        if self.parent is None:
            self.sim._top_done = reason


def _predicate(pred: Predicate, name: str | None) -> tuple[str, Predicate]:
    """A checked predicate and the name reasons give it."""
    check_callable(pred, "pred", "a callable of no arguments")
    return describe(pred, name), pred


def _register(table: dict[str, Any], name: str, fn: Predicate, what: str) -> None:
    check_str(name, "name")
    check_callable(fn, "fn", "a callable of no arguments")
    if name in table:
        raise ValueError(f"{what} names must be unique; there is already a {what} {name!r}")
