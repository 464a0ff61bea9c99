"""Scopes: running instances of scenarios, and step 1 of Scenic's time step (a to f).

A scope owns what its scenario declares: requirements, invariants, time limit, termination
conditions, monitors and records all end with it; agents belong to the simulation and
outlive it. Sub-scopes are started and stepped by their parent's compose block, inside the
parent's step (see :class:`~cvcclock.scenario.blocks.ScenariosBlock`).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Mapping
from typing import Any

from cvcclock.checks import check_callable, check_count, check_str
from cvcclock.scenario._arguments import check_instance, check_probability, steps_for
from cvcclock.scenario.behaviors import scenario_guards
from cvcclock.scenario.blocks import Context, Finished, GenBlock
from cvcclock.scenario.control import Do, do
from cvcclock.scenario.errors import InvariantViolation, RejectSimulation, Terminate
from cvcclock.scenario.requirements import describe
from cvcclock.scenario.scenarios import Scenario
from cvcclock.scenario.simulation import Agent, Simulation
from cvcclock.scenario.temporal import (
    FALSE,
    NAMES,
    PRESUMABLY_FALSE,
    Atom,
    Formula,
    as_formula,
)
from cvcclock.scenario.temporal import Monitor as Temporal

__all__ = ["Monitor", "Scope"]

Predicate = Callable[[], object]


class Monitor:
    """A monitor of a scope: its name, and its running block (None once it has ended).

    Parameters
    ----------
    name : str
        How reasons and traces name it.
    fn : generator function
        Called as ``fn(sim, *args)`` when the monitor starts.
    args : tuple
        Its extra arguments.
    """

    __slots__ = ("name", "fn", "args", "block")

    def __init__(self, name: str, fn: Callable[..., Generator[Any, Any, Any]],
                 args: tuple[Any, ...]) -> None:
        self.name, self.fn, self.args = name, fn, args
        self.block: GenBlock | None = None


class _Record:
    __slots__ = ("kind", "name", "fn", "every", "after")

    def __init__(self, kind: str, name: str, fn: Predicate, every: int, after: int) -> None:
        self.kind, self.name, self.fn, self.every, self.after = kind, name, fn, every, after


class Scope:
    """A running instance of a :class:`Scenario` within one attempt.

    Requirements, invariants, time limits, termination conditions (both kinds), monitors
    and records belong to the scope and end with it; agents belong to the whole simulation
    and outlive it (their behaviors go on). Predicates take no arguments: close over the
    agents ``add_agent`` returns.

    Attributes
    ----------
    scenario : Scenario
        What this scope runs.
    sim : Simulation
        The attempt (``sim.step``, ``sim.time``, ``sim.agents``, ``sim.rng``).
    parent : Scope or None
        The scope whose compose block started this one, or None at the top level.
    name : str
        The scenario's name.
    running : bool
        False once the scenario has stopped.
    stop_reason : str or None
        Why it stopped.
    children : list of Scope
        The running sub-scopes its compose block started.
    monitors : list of Monitor
        Its monitors, in registration order.
    recording, ending : bool
        Whether it has records, and ``terminate_simulation_when`` conditions.

    Every method raises TypeError for an argument of the wrong type and ValueError for a
    name already taken, before it changes anything.
    """

    def __init__(self, scenario: Scenario, sim: Simulation, parent: Scope | None = None) -> None:
        self.scenario = check_instance(scenario, Scenario, "scenario")
        self.sim = check_instance(sim, Simulation, "sim")
        self.parent = parent if parent is None else check_instance(parent, Scope, "parent")
        self.name = scenario.name
        self.running = True
        self.stop_reason: str | None = None
        self.children: list[Scope] = []
        self.monitors: list[Monitor] = []
        self._agents: list[Agent] = []     # with behaviors, to start
        self._started = False
        self._start = sim.step
        self._stepped = 0                   # steps run: a time limit counts these
        self._saved = -1                    # the last step whose records were saved
        self._guards = scenario_guards(type(scenario))
        self._class_invariants = self._guards is not None and bool(self._guards.invariants)
        self._always: list[tuple[str, Predicate]] = []
        self._eventually: list[tuple[str, Predicate]] = []
        self._satisfied: list[bool] = []
        self._temporal: list[tuple[str, Temporal]] = []
        self._invariants: list[tuple[str, Predicate]] = []
        self._terminate_when: list[tuple[str, Predicate]] = []
        self._end_conditions: list[tuple[str, Predicate]] = []
        self._records: list[_Record] = []
        # Whether it has records, terminate_simulation_when conditions: the runner skips
        # the calls for a scope with none.
        self.recording = False
        self.ending = False
        self._limit: int | None = None
        self._limit_text = ""
        self._compose: GenBlock | None = None
        # (agent, the values its overridden properties had, its behavior before, or None)
        self._overrides: list[tuple[Agent, dict[str, Any], Any]] = []

    @property
    def rng(self) -> Any:
        """The attempt's seeded ``random.Random``."""
        return self.sim.rng

    @property
    def params(self) -> Any:
        """The run's parameters (Scenic's ``globalParameters``): ``sim.params``."""
        return self.sim.params

    @property
    def initial(self) -> bool:
        """Scenic's ``initial scenario``: whether this is the very first scenario to run (the
        top level), not one another scenario's compose block started."""
        return self.parent is None

    # -- agents, monitors, records ----------------------------------------------------------

    def add_agent(self, name: str, spec: Any,
                  behavior: Callable[..., Generator[Any, Any, Any]] | None = None,
                  *args: Any, properties: Mapping[str, Any] | None = None) -> Agent:
        """Create an object in the simulator; with a behavior, an agent.

        Parameters
        ----------
        name : str
            Unique in the simulation.
        spec : object
            What the simulator's ``create_object`` takes (e.g. a ``Vehicle``).
        behavior : generator function, optional
            Called as ``behavior(agent, *args)`` when this scope starts (at once if it has
            already started); its guards are checked then.
        *args
            Extra arguments for the behavior.
        properties : mapping, optional
            The agent's own properties (not the simulator's), which behaviors may change.
        """
        agent = self.sim.add_agent(name, spec, behavior, args, properties, self)
        if behavior is not None:
            self._agents.append(agent)
            if self._started:
                self._start_behavior(agent)
        return agent

    def monitor(self, fn: Callable[..., Generator[Any, Any, Any]], *args: Any,
                name: str | None = None) -> None:
        """Run the generator function ``fn(sim, *args)`` once per time step while this
        scenario runs; it yields ``wait()``.

        A scope's monitors run in registration order, after its parent's and before its
        sub-scenarios'; they stop when the scenario stops (the top-level scenario's run in
        the step it stops, too). ``name`` (by default ``fn.__name__``) names the monitor in
        reasons and traces.
        """
        check_callable(fn, "fn", "a generator function")
        label = check_str(name, "name", optional=True)
        if label is None:
            label = str(getattr(fn, "__name__", type(fn).__name__))
        monitor = Monitor(label, fn, args)
        self.monitors.append(monitor)
        if self._started:
            self._start_monitor(monitor)

    def record(self, name: str, fn: Predicate, *, every: int = 1, after: int = 0,
               every_seconds: float | None = None, after_seconds: float | None = None) -> None:
        """Save ``fn()`` at each time step this scenario runs, as ``result.records[name]``:
        ``((step, value), ...)``.

        With ``every=N`` only every Nth step is saved, and with ``after=M`` the first M
        steps are skipped, counted from the step the scenario started; ``every_seconds``
        and ``after_seconds`` give them in seconds, rounded down to whole steps (``every``
        at least 1). Scenarios that run one after another may share a name: their series
        join up.

        Raises
        ------
        ValueError
            If a running scenario has a record of this name, ``every`` is < 1 or
            ``after`` < 0.
        """
        check_str(name, "name")
        check_callable(fn, "fn", "a callable of no arguments")
        dt = self.sim.dt
        period = (max(1, steps_for(every_seconds, dt, "every_seconds", whole=True))
                  if every_seconds is not None else check_count(every, "every", 1))
        delay = (steps_for(after_seconds, dt, "after_seconds", whole=True)
                 if after_seconds is not None else check_count(after, "after"))
        self._add_record(_Record("record", name, fn, period, delay))

    def record_initial(self, name: str, fn: Predicate) -> None:
        """Save ``fn()`` at the first time step this scenario runs (step 0 at the top
        level), as ``result.records_initial[name]``."""
        check_str(name, "name")
        check_callable(fn, "fn", "a callable of no arguments")
        self._add_record(_Record("record_initial", name, fn, 1, 0))

    def record_final(self, name: str, fn: Predicate) -> None:
        """Save ``fn()`` when this scenario stops (at the end of the simulation at the
        latest), as ``result.records_final[name]``."""
        check_str(name, "name")
        check_callable(fn, "fn", "a callable of no arguments")
        self._add_record(_Record("record_final", name, fn, 1, 0))

    def _add_record(self, record: _Record) -> None:
        self.sim.claim_record(record.kind, record.name, self)
        self._records.append(record)
        self.recording = True

    def override(self, agent: Agent, *, behavior: Callable[..., Generator[Any, Any, Any]]
                 | None = None, args: tuple[Any, ...] = (), **properties: Any) -> None:
        """Scenic's ``override``: give ``agent`` other property values, or another behavior,
        for as long as this scenario runs; both are restored when it stops.

        ``s.override(car, speed=3.0)`` sets the properties at once (own properties, or the
        simulator's where it has ``set_property``) and puts the values they had back when
        this scenario stops. ``s.override(car, behavior=brake, args=(0.5,))`` starts
        ``brake(car, 0.5)`` now (its guards checked): it runs in the agent's place from this
        step on, and when this scenario stops it is closed and the agent's own behavior
        resumes where it was. Overrides by nested scenarios undo in reverse order.

        Raises
        ------
        TypeError
            If ``agent`` is not an :class:`Agent` of this simulation, ``behavior`` is not
            callable or ``args`` not a tuple.
        ValueError
            If there is nothing to override, or ``behavior`` is given for an object with no
            behavior of its own.
        AttributeError
            For a property the agent does not have, or that its simulator owns outright.

        A refused call changes nothing; so does a behavior whose guards reject it (the
        properties it overrode are put back before the error passes on).
        """
        check_instance(agent, Agent, "agent")
        if agent.sim is not self.sim:
            raise TypeError(f"override: agent {agent.name!r} belongs to another simulation")
        check_callable(behavior, "behavior", "a generator function", optional=True)
        check_instance(args, tuple, "args")
        if behavior is None and not properties:
            raise ValueError(f"override of agent {agent.name!r} needs properties or a behavior")
        if behavior is not None and agent.behavior is None:
            raise ValueError(f"override of agent {agent.name!r}: it is an object with no "
                             f"behavior; give it one in add_agent to override it")
        for key in properties:
            agent.check_settable(key)
        saved = {key: getattr(agent, key) for key in properties}
        for key, value in properties.items():
            setattr(agent, key, value)
        before = None
        if behavior is not None:
            label = f"the behavior {_name(behavior)} overriding agent {agent.name!r}'s"
            try:
                block = Context(self.sim, self, "behavior", label).start(
                    behavior, (agent, *args))
            except BaseException:
                for key, value in saved.items():
                    setattr(agent, key, value)
                raise
            before = (agent.block, agent.behavior, agent.args)
            agent.block, agent.behavior, agent.args = block, behavior, args
        self._overrides.append((agent, saved, before))

    def _revert_overrides(self) -> None:
        """Undo this scenario's overrides, the last first (Scenic's ``_revert``)."""
        overrides, self._overrides = self._overrides, []
        for agent, saved, before in reversed(overrides):
            if before is not None:
                block = agent.block
                if block is not None:
                    block.close(f"scenario {self.name!r}, which overrode it, stopped")
                agent.block, agent.behavior, agent.args = before
            for key, value in saved.items():
                setattr(agent, key, value)

    # -- this scenario: requirements and termination ----------------------------------------

    def require(self, condition: Formula | Predicate, name: str | None = None, *,
                prob: float | None = None) -> None:
        """Scenic's ``require`` with temporal operators: ``s.require(Always(Implies(near,
        Eventually(braking))))`` (see :mod:`~cvcclock.scenario.temporal`).

        The formula is valued at each time step this scenario runs, first thing in its step:
        a value false for good rejects the attempt at once, one still presumably false when
        the scenario stops (``Eventually`` not yet met, ``Next`` at the last step, an
        ``Until`` still waiting) rejects it then. A bare callable is a formula without
        temporal operators, which speaks of the scenario's first step only.

        ``prob`` makes a condition without temporal operators Scenic's soft requirement
        ``require[prob]``: enforced with that probability, drawn here from the attempt's
        ``rng`` (so a seeded run enforces the same ones; 0 and 1 draw nothing), and
        otherwise dropped. As in Scenic, a formula with temporal operators must be hard.

        Raises
        ------
        TypeError
            If ``condition`` is neither a formula nor callable, ``name`` not a str, or
            ``prob`` not a number.
        ValueError
            If ``prob`` is not from 0 to 1, or is given below 1 for a temporal formula.
        """
        formula = as_formula(condition, "require")
        label = check_str(name, "name", optional=True)
        if prob is not None:
            p = check_probability(prob, "prob")
            if p < 1.0 and not isinstance(formula, Atom):
                raise ValueError(f"require: a requirement with temporal operators must have "
                                 f"probability 1 (as in Scenic), got prob={prob!r} for "
                                 f"{formula!r}")
            if p < 1.0 and not (p > 0.0 and self.sim.rng.random() < p):
                return          # a soft requirement this attempt does not enforce
        self._temporal.append((label or repr(formula), Temporal(formula)))

    def require_always(self, pred: Predicate, name: str | None = None) -> None:
        """Reject the attempt if ``pred()`` is false at any time step while this scenario runs."""
        self._always.append(_predicate(pred, name))

    def require_eventually(self, pred: Predicate, name: str | None = None) -> None:
        """Reject the attempt if ``pred()`` is true at no time step before this scenario stops."""
        self._eventually.append(_predicate(pred, name))
        self._satisfied.append(False)

    def invariant(self, pred: Predicate, name: str | None = None) -> None:
        """A scenario invariant, checked each step while not running a sub-scenario, and at
        the instant a sub-scenario's ``do`` returns; a violation is an
        :class:`~cvcclock.scenario.InvariantViolation`."""
        self._invariants.append(_predicate(pred, name))

    def terminate_after(self, seconds: float | None = None, *, steps: int | None = None) -> None:
        """Stop this scenario once it has run for ``seconds`` (rounded up to whole steps) or
        ``steps`` time steps: at the step that many steps after it started, unless an
        interrupt suspended the ``do`` running it meanwhile (those steps do not count).

        Raises
        ------
        ValueError
            If both or neither of ``seconds`` and ``steps`` are given.
        """
        if (seconds is None) == (steps is None):
            raise ValueError(f"terminate_after takes seconds or steps, got seconds={seconds!r} "
                             f"and steps={steps!r}")
        if steps is not None:
            self._limit = check_count(steps, "steps")
            self._limit_text = f"{self._limit} steps"
        else:
            self._limit = steps_for(seconds, self.sim.dt, "seconds")
            self._limit_text = f"{seconds} s"

    def terminate_when(self, pred: Predicate, name: str | None = None) -> None:
        """Stop this scenario at the first time step where ``pred()`` is true, checked after
        its compose block has run for the step."""
        self._terminate_when.append(_predicate(pred, name))

    def terminate_simulation_when(self, pred: Predicate, name: str | None = None) -> None:
        """End the simulation at the first termination check, while this scenario runs,
        where ``pred()`` is true."""
        self._end_conditions.append(_predicate(pred, name))
        self.ending = True

    def do(self, *scenarios: Scenario, steps: int | None = None, seconds: float | None = None,
           until: Predicate | None = None) -> Do:
        """Run sub-scenarios until they have all stopped: ``yield from s.do(Sub())`` in compose.

        :func:`~cvcclock.scenario.do` for scenarios: each is set up at once, with a scope
        of its own, and runs its first time step in this step, after this one; the compose
        block goes on in the step the last of them stops. The scenarios are checked at the
        call (TypeError for anything but a :class:`Scenario`).
        """
        for sc in scenarios:
            check_instance(sc, Scenario, "each scenario given to do()")
        return do(*scenarios, steps=steps, seconds=seconds, until=until)

    # -- the runner's side: guards, start, step, stop ---------------------------------------

    @property
    def has_invariants(self) -> bool:
        """Whether the scenario has invariants (its class's or registered ones)."""
        return bool(self._invariants or (self._guards is not None and self._guards.invariants))

    def check_invariants(self) -> None:
        """Raise :class:`InvariantViolation` for the first false invariant."""
        if self._guards is not None:
            self._guards.check_invariants((self.scenario, self), {}, self.name)
        self._check_registered()

    def _check_registered(self) -> None:
        for desc, pred in self._invariants:
            if not pred():
                raise InvariantViolation(f"invariant {desc} of scenario {self.name!r} violated")

    def start(self) -> None:
        """Start the scenario: its guards, ``setup``, then its compose block, the behaviors
        of the agents it created and its monitors.

        Raises
        ------
        RejectSimulation
            Including a :class:`~cvcclock.scenario.GuardViolation`; named after the part
            that raised it.
        """
        self.sim.note("start", self.name)
        try:
            self._setup()
        except BaseException:
            self.running = False        # a scenario that failed to start never runs
            raise

    def _setup(self) -> None:
        try:
            if self._guards is not None:
                self._guards.check_preconditions((self.scenario, self), {}, self.name)
                self._guards.check_invariants((self.scenario, self), {}, self.name)
            try:
                self.scenario.setup(self)
            except RejectSimulation as e:
                e.args = (f"setup of scenario {self.name!r}: {e}",)
                raise
        except Terminate as t:
            raise RuntimeError(f"start of scenario {self.name!r}: terminate() was called "
                               f"outside a behavior, a monitor or a compose block") from t
        self._check_registered()        # the invariants setup registered
        self._started = True
        compose = self.scenario.compose
        if compose is not None:
            label = f"compose of scenario {self.name!r}"
            ctx = Context(self.sim, self, "compose", label)
            self._compose = ctx.start(compose, (self,), owner=self)
        for agent in self._agents:
            self._start_behavior(agent)
        for monitor in self.monitors:
            self._start_monitor(monitor)

    def start_child(self, scenario: Scenario) -> Scope:
        """Start a sub-scenario (for ``do``); it is a running child until it stops."""
        child = Scope(scenario, self.sim, self)
        child.start()
        self.children.append(child)
        self.sim.scopes_changed()
        return child

    def _start_behavior(self, agent: Agent) -> None:
        label = f"the behavior {_name(agent.behavior)} of agent {agent.name!r}"
        try:
            agent.block = Context(self.sim, self, "behavior", label).start(
                agent.behavior, (agent, *agent.args))  # type: ignore[arg-type]
        except RejectSimulation as e:
            e.args = (f"behavior of agent {agent.name!r}: {e}",)
            raise

    def _start_monitor(self, monitor: Monitor) -> None:
        ctx = Context(self.sim, self, "monitor", f"monitor {monitor.name!r}")
        monitor.block = ctx.start(monitor.fn, (self.sim, *monitor.args))

    def tree(self) -> Iterator[Scope]:
        """This scope, then its running sub-scopes', recursively, in start order."""
        yield self
        for child in self.children:
            yield from child.tree()

    def step(self) -> None:
        """Step 1 of a time step (a to f) for this scenario.

        Raises
        ------
        RejectSimulation
            A requirement or invariant violated, or a compose block's ``require``.
        """
        sim, name = self.sim, self.name
        tracing = sim.tracing       # the phase notes cost a call each: only when tracing
        if tracing:
            sim.note("require_always", name)
        for desc, pred in self._always:
            if not pred():
                raise RejectSimulation(f"require_always {desc} of scenario {name!r} violated")
        for desc, req in self._temporal:
            if req.update() == FALSE:
                raise RejectSimulation(f"requirement {desc} of scenario {name!r} violated")
        if tracing:
            sim.note("require_eventually", name)
        if self._eventually:
            for i, (_, pred) in enumerate(self._eventually):
                if pred():
                    self._satisfied[i] = True
        if tracing:
            sim.note("time_limit", name)
        # Steps it ran, not steps since it started: an interrupt that suspends the do()
        # running it suspends its clock too (as Scenic counts).
        if self._limit is not None and self._stepped >= self._limit:
            return self.stop(f"scenario {name!r} reached its time limit of {self._limit_text}")
        self._stepped += 1
        if self._compose is None:
            # As Scenic's no-op compose block (``while True: wait``, checking after each
            # wait): not in the first step, whose check was the one at its start.
            if self._stepped > 1:
                if tracing:
                    sim.note("invariants", name)
                if self._invariants or self._class_invariants:
                    self.check_invariants()
        else:
            if tracing:
                sim.note("compose", name)
            reason = self._resume_compose()
            if reason is not None:
                return self.stop(reason)
        if tracing:
            sim.note("terminate_when", name)
        for desc, pred in self._terminate_when:
            if pred():
                return self.stop(f"terminate_when {desc} of scenario {name!r} held")
        return None

    def _resume_compose(self) -> str | None:
        """Resume the compose block for this step: why the scenario stops, or None."""
        name = self.name
        try:
            result = self._compose.resume()  # type: ignore[union-attr]
        except Terminate as t:
            said = f": {t.reason}" if t.reason else ""
            if not t.simulation:
                return f"compose of scenario {name!r} terminated it{said}"
            # Every scope up to the top stops; the first to see it names where it came from.
            if t.origin is None:
                t.origin = f"compose of scenario {name!r}"
            self.stop(f"{t.origin} terminated the simulation{said}")
            raise
        except RejectSimulation as e:
            e.args = (f"compose of scenario {name!r}: {e}",)
            raise
        if type(result) is Finished:
            return f"compose of scenario {name!r} finished"
        return None

    def end_condition(self) -> str | None:
        """The first ``terminate_simulation_when`` condition that holds, described, or None."""
        for desc, pred in self._end_conditions:
            if pred():
                return f"terminate_simulation_when {desc} of scenario {self.name!r} held"
        return None

    def save_records(self) -> None:
        """Save this step's values, once per step: ``record_initial`` at the scope's first
        step, then each ``record`` due."""
        if not self._records:
            return
        sim = self.sim
        n = sim.step
        if self._saved == n:
            return
        self._saved = n
        elapsed = n - self._start
        if elapsed == 0:
            for record in self._records:
                if record.kind == "record_initial":
                    sim.save_record("record_initial", record.name, record.fn())
        for record in self._records:
            if record.kind == "record":
                since = elapsed - record.after
                if since >= 0 and since % record.every == 0:
                    sim.save_record("record", record.name, record.fn())

    def stop(self, reason: str) -> None:
        """Step 1f: save the final records, stop the sub-scenarios and the compose block and
        monitors, then check the ``require_eventually`` conditions.

        Raises
        ------
        RejectSimulation
            If a ``require_eventually`` condition never held.
        """
        if not self.running:
            return
        self.sim.note("stopping", self.name)
        self.running = False
        self.stop_reason = reason
        self.save_records()
        for record in self._records:
            if record.kind == "record_final":
                self.sim.save_record("record_final", record.name, record.fn())
        for child in list(self.children):
            child.stop(f"its parent scenario {self.name!r} stopped")
        compose, self._compose = self._compose, None
        if compose is not None:
            compose.close(f"scenario {self.name!r} stopped")
        if self.parent is not None:
            # The top level's monitors run in the step it stops, as the reference says.
            for monitor in self.monitors:
                if monitor.block is not None:
                    monitor.block.close(f"scenario {self.name!r} stopped")
                    monitor.block = None
            self.parent.children.remove(self)
        if self._overrides:
            self._revert_overrides()
        self.sim.scopes_changed()
        for (desc, _), ok in zip(self._eventually, self._satisfied, strict=True):
            if not ok:
                raise RejectSimulation(
                    f"require_eventually {desc} of scenario {self.name!r} never held")
        for desc, req in self._temporal:
            if req.last_value <= PRESUMABLY_FALSE:
                raise RejectSimulation(
                    f"requirement {desc} of scenario {self.name!r} was "
                    f"{NAMES[req.last_value]} when it stopped")


def _predicate(pred: Predicate, name: str | None) -> tuple[str, Predicate]:
    """A checked predicate and the name reasons give it."""
    check_callable(pred, "pred", "a callable of no arguments")
    return describe(pred, name), pred


def _name(fn: Any) -> str:
    return repr(getattr(fn, "__name__", fn))
