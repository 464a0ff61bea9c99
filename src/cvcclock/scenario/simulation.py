"""The state of one attempt, as behaviors, monitors and predicates see it: agents and time,
and the attempt's own bookkeeping (what goes into its result)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Generator, Mapping
from typing import TYPE_CHECKING, Any

from cvcclock.checks import check_callable, check_seed, check_str
from cvcclock.scenario._arguments import check_instance, check_step
from cvcclock.scenario.scenarios import Params
from cvcclock.scenario.simulator import Simulator

if TYPE_CHECKING:
    from cvcclock.scenario.blocks import Block
    from cvcclock.scenario.runner import Trace
    from cvcclock.scenario.scopes import Scope

__all__ = ["Agent", "Simulation"]

_SLOTS = frozenset(("name", "handle", "props", "sim", "behavior", "args", "scope", "own",
                    "block"))


class Agent:
    """An object in the simulation: a simulator object, its properties, a behavior.

    Properties read as attributes (``agent.x``, ``agent.speed``): the agent's own
    properties (``own``, given to ``add_agent``) first, then the dynamic properties the
    simulator owns (``props``), which are read back once per time step, after it steps.
    A behavior may set either with immediate effect: ``agent.fuel -= 1`` changes an own
    property; ``agent.x = 3.0`` asks the simulator (its optional ``set_property``) and
    reads the object's properties back at once. A simulator without ``set_property``
    owns its properties outright: setting one is an AttributeError.

    Attributes
    ----------
    name : str
        Unique within the simulation.
    handle : object
        What the simulator's ``create_object`` returned.
    props : Mapping[str, object]
        The dynamic properties read at the end of the last time step (or at creation, or
        when a behavior set one).
    own : dict
        The agent's own properties.
    sim : Simulation
        The simulation the agent belongs to (current step and time, other agents, ``rng``).
    scope : Scope or None
        The scenario that created the agent: what ``terminate()`` in its behavior ends.
    behavior : callable or None
        The behavior (a generator function called as ``behavior(agent, *args)``), or None
        for an object that takes no actions.
    args : tuple
        The behavior's extra arguments.
    block : Block or None
        The running behavior, once started and until it ends.

    Raises
    ------
    TypeError
        If an argument is not of the type above.
    """

    __slots__ = tuple(sorted(_SLOTS))

    def __init__(self, name: str, handle: Any, props: Mapping[str, Any], sim: Simulation,
                 behavior: Callable[..., Generator[Any, Any, Any]] | None,
                 args: tuple[Any, ...], *, scope: Scope | None = None,
                 own: Mapping[str, Any] | None = None) -> None:
        self.name = check_str(name, "name")
        self.handle = handle
        self.props = check_instance(props, Mapping, "props")  # type: ignore[type-abstract]
        self.sim = check_instance(sim, Simulation, "sim")
        self.behavior = check_callable(behavior, "behavior", "a generator function", optional=True)
        self.args = check_instance(args, tuple, "args")
        self.scope = scope
        self.own = {} if own is None else dict(
            check_instance(own, Mapping, "properties"))  # type: ignore[type-abstract]
        clash = sorted(set(self.own) & set(props))
        if clash:
            raise ValueError(f"properties of agent {name!r} must not be the simulator's, got "
                             f"{clash}")
        self.block: Block | None = None

    @property
    def rng(self) -> random.Random:
        """The attempt's seeded random generator (the same object as ``sim.rng``)."""
        return self.sim.rng

    @property
    def last_actions(self) -> tuple[Any, ...]:
        """Scenic's ``lastActions``: the actions this agent took in the last time step,
        ``()`` for none (a wait, no behavior, or before step 0).

        As Scenic keeps it: monitors, requirements and conditions see the previous step's;
        while the behaviors run, an agent whose behavior has already run this step shows
        this step's, and the others (the agent itself, in its own behavior) ``()``.
        """
        return self.sim.last_actions_of(self.name)

    def __getattr__(self, key: str) -> Any:
        if key in _SLOTS:
            raise AttributeError(key)
        own = self.own
        if key in own:
            return own[key]
        try:
            return self.props[key]
        except KeyError:
            raise AttributeError(f"agent {self.name!r} has no property {key!r}; it has "
                                 f"{sorted({**own, **self.props})}") from None

    def __setattr__(self, key: str, value: Any) -> None:
        if key in _SLOTS:
            object.__setattr__(self, key, value)
        elif key in self.own:
            self.own[key] = value
        elif key in self.props:
            self._set_dynamic(key, value)
        else:
            raise AttributeError(f"agent {self.name!r} has no property {key!r}; give it in "
                                 f"add_agent(..., properties={{{key!r}: ...}}) to set it")

    def check_settable(self, key: object) -> str:
        """``key``, if a behavior may set it (an own property, or a simulator property
        where the simulator has ``set_property``); else the error setting it would raise.

        Raises
        ------
        TypeError
            If ``key`` is not a str.
        AttributeError
            If the agent has no such property, or the simulator owns it outright.
        """
        check_str(key, "property name")
        if key in self.own:
            return key  # type: ignore[return-value]
        if key not in self.props or key in _SLOTS:
            raise AttributeError(f"agent {self.name!r} has no property {key!r}; it has "
                                 f"{sorted({**self.own, **self.props})}")
        if getattr(self.sim.simulator, "set_property", None) is None:
            raise AttributeError(
                f"property {key!r} of agent {self.name!r} is the simulator's: "
                f"{type(self.sim.simulator).__name__} has no set_property method")
        return key  # type: ignore[return-value]

    def _set_dynamic(self, key: str, value: Any) -> None:
        simulator = self.sim.simulator
        setter = getattr(simulator, "set_property", None)
        if setter is None:
            raise AttributeError(
                f"property {key!r} of agent {self.name!r} is the simulator's: "
                f"{type(simulator).__name__} reads it back after every step and has no "
                f"set_property method, so change it with an action")
        setter(self.handle, key, value)
        self.props = simulator.get_properties(self.handle)
        self.sim._entry = None      # the next trajectory entry must read it afresh

    def __repr__(self) -> str:
        return f"Agent({self.name!r}, {dict({**self.own, **self.props})!r})"


_SET_PROPS = Agent.props.__set__  # type: ignore[attr-defined,misc,unused-ignore]


class Simulation:
    """One attempt of a run, as seen by behaviors, monitors, predicates and compose blocks.

    Attributes
    ----------
    step : int
        The current time step, from 0; incremented at the end of each step.
    dt : float
        The time step in seconds.
    rng : random.Random
        The attempt's generator, seeded from the sha256 of ``seed`` in decimal; the only
        randomness to use.
    seed : int
        The attempt's seed.
    agents : dict
        Name -> :class:`Agent`, in creation order.
    simulator : Simulator
        The attempt's simulator.
    top : Scope or None
        The top-level scenario's scope, once the runner has made it.
    tracing : bool
        Whether a ``trace`` was given: the runner calls :meth:`note` only then.
    params : Params
        The run's parameters (Scenic's ``globalParameters``), read-only.
    behaving : list of Agent
        The agents with a behavior, in creation order (the runner's schedule).
    scopes : list of Scope or None
        What :meth:`running_scopes` returns, or None until it walks the tree again.
    choosing : dict or None
        While this step's behaviors run, the actions each has taken so far (the runner sets
        it; :meth:`save_actions` clears it), for :attr:`Agent.last_actions`.

    The other methods are the runner's: they keep what goes into the result (the
    trajectory, the actions, the records) and the trace.

    Raises
    ------
    TypeError
        If ``simulator`` lacks a :class:`Simulator` method, ``seed`` is not an integer,
        ``dt`` not a real number or ``trace`` not callable.
    ValueError
        If ``seed`` is negative, or ``dt`` is not a finite number of seconds > 0.
    """

    def __init__(self, simulator: Simulator, seed: int, dt: float,
                 trace: Trace | None = None, params: Params | None = None) -> None:
        self.simulator = check_instance(
            simulator, Simulator, "simulator")  # type: ignore[type-abstract]
        self.seed = seed = check_seed(seed)
        # Seeded from the seed's sha256, not Random(seed), so every run draws what it drew.
        self.rng = random.Random(int.from_bytes(hashlib.sha256(str(seed).encode()).digest(), "big"))
        self.dt = check_step(dt, "dt")
        self.step = 0
        self.agents: dict[str, Agent] = {}
        self.top: Scope | None = None
        self._trace = check_callable(trace, "trace", optional=True)
        self.tracing = trace is not None
        self.params = Params() if params is None else check_instance(params, Params, "params")
        self.scopes: list[Scope] | None = None      # running_scopes(), until one changes
        # The next trajectory entry, made as the properties are read back, until an agent
        # is added or a property set: one pass over the agents a step instead of two.
        self._entry: dict[str, Mapping[str, Any]] | None = None
        self.behaving: list[Agent] = []
        self._trajectory: list[dict[str, Mapping[str, Any]]] = []
        self._actions: list[dict[str, tuple[Any, ...]]] = []
        self.choosing: dict[str, tuple[Any, ...]] | None = None
        self._series: dict[str, list[tuple[int, Any]]] = {}
        self._initial: dict[str, Any] = {}
        self._final: dict[str, Any] = {}
        self._record_owners: dict[str, dict[str, Scope]] = {
            "record": {}, "record_initial": {}, "record_final": {}}

    @property
    def time(self) -> float:
        """World seconds into the attempt: ``step * dt``."""
        return self.step * self.dt

    def __getitem__(self, name: str) -> Agent:
        """The agent called ``name``."""
        check_str(name, "name")
        try:
            return self.agents[name]
        except KeyError:
            raise KeyError(f"no agent {name!r}; the agents are {list(self.agents)}") from None

    # -- the runner's bookkeeping -----------------------------------------------------------

    def note(self, phase: str, subject: str | None = None) -> None:
        """The trace point: ``trace(step, phase, subject)`` as a phase starts, if tracing."""
        if self._trace is not None:
            self._trace(self.step, phase, subject)

    def add_agent(self, name: str, spec: Any, behavior: Callable[..., Any] | None,
                  args: tuple[Any, ...], properties: Mapping[str, Any] | None,
                  scope: Scope | None) -> Agent:
        """Create the simulator object and its agent (``Scope.add_agent``'s work).

        Raises
        ------
        TypeError, ValueError
            For a bad argument, before the simulator is asked for anything.
        """
        check_str(name, "name")
        if name in self.agents:
            raise ValueError(f"agent names must be unique; there is already an agent {name!r}")
        check_callable(behavior, "behavior", "a generator function", optional=True)
        check_instance(args, tuple, "args")
        if properties is not None:
            check_instance(properties, Mapping, "properties")  # type: ignore[type-abstract]
        handle = self.simulator.create_object(name, spec)
        agent = Agent(name, handle, self.simulator.get_properties(handle), self, behavior, args,
                      scope=scope, own=properties)
        self.agents[name] = agent
        self._entry = None
        if behavior is not None:
            self.behaving.append(agent)
        return agent

    def running_scopes(self) -> list[Scope]:
        """The top-level scope (even once it has stopped: its monitors run in that step),
        then the running sub-scopes (:meth:`Scope.tree`); made again only after
        :meth:`scopes_changed`, so a step with no scope starting or stopping walks no tree."""
        scopes = self.scopes
        if scopes is None:
            top = self.top
            scopes = self.scopes = [] if top is None else list(top.tree())
        return scopes

    def scopes_changed(self) -> None:
        """A scope started or stopped: :meth:`running_scopes` walks the tree again (a list
        it returned before stays as it was, for a loop that is going through it)."""
        self.scopes = None

    def save_state(self) -> None:
        """Append this step's trajectory entry: every object's dynamic properties."""
        entry, self._entry = self._entry, None
        if entry is None:
            entry = {a.name: a.props for a in self.agents.values()}
        self._trajectory.append(entry)

    def save_actions(self, actions: dict[str, tuple[Any, ...]]) -> None:
        """Append this step's actions, per agent with a behavior."""
        self._actions.append(actions)
        self.choosing = None

    def last_actions_of(self, name: str) -> tuple[Any, ...]:
        """:attr:`Agent.last_actions` of the agent called ``name``."""
        choosing = self.choosing
        if choosing is not None:
            return choosing.get(name, ())
        return self._actions[-1].get(name, ()) if self._actions else ()

    def read_properties(self) -> None:
        """Read every object's dynamic properties back from the simulator."""
        get = self.simulator.get_properties
        set_props = _SET_PROPS          # the slot's own setter: Agent.__setattr__ is Python
        entry = {}
        for name, agent in self.agents.items():
            entry[name] = props = get(agent.handle)
            set_props(agent, props)
        self._entry = entry

    def claim_record(self, kind: str, name: str, owner: Scope) -> None:
        """Reserve a record name for ``owner``: a running scope may not share it, a later one
        may (the time series of scopes that run one after another join up).

        Raises
        ------
        ValueError
            If a running scope already has a record of this kind and name.
        """
        owners = self._record_owners[kind]
        holder = owners.get(name)
        if holder is not None and (holder is owner or holder.running):
            raise ValueError(f"{kind} names must be unique; there is already a {kind} {name!r}")
        owners[name] = owner
        if kind == "record":
            self._series.setdefault(name, [])

    def save_record(self, kind: str, name: str, value: Any) -> None:
        """Save a record's value: appended at this step for ``record``, kept otherwise."""
        if kind == "record":
            self._series[name].append((self.step, value))
        elif kind == "record_initial":
            self._initial[name] = value
        else:
            self._final[name] = value

    def trajectory(self) -> tuple[dict[str, Mapping[str, Any]], ...]:
        """The trajectory so far."""
        return tuple(self._trajectory)

    def actions(self) -> tuple[dict[str, tuple[Any, ...]], ...]:
        """The actions so far."""
        return tuple(self._actions)

    def records(self) -> tuple[dict[str, tuple[tuple[int, Any], ...]], dict[str, Any],
                               dict[str, Any]]:
        """The ``record``, ``record_initial`` and ``record_final`` values so far."""
        series = {name: tuple(values) for name, values in self._series.items()}
        return series, dict(self._initial), dict(self._final)
