"""The state of one attempt, as behaviors, monitors and predicates see it: agents and time."""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Generator, Mapping
from typing import TYPE_CHECKING, Any

from cvcclock.checks import MAX_TICK, check_seconds
from cvcclock.scenario._arguments import (
    check_instance,
    check_optional_callable,
    check_seed,
    check_step,
    check_str,
)
from cvcclock.scenario.simulator import Simulator

if TYPE_CHECKING:
    from cvcclock.scenario.scenarios import Scope

__all__ = ["Agent", "Simulation"]


def steps_for(seconds: object, dt: float, name: str) -> int:
    """Time steps in ``seconds`` (checked as argument ``name``), rounded up: a limit falls on
    the first step at or after it. A limit past the last tick a clock reaches is never met."""
    # The small slack keeps 0.3 / 0.1 = 2.9999999999999996 at 3 steps, not 4.
    steps = check_seconds(seconds, name) / dt - 1e-9
    return MAX_TICK + 1 if steps > MAX_TICK else max(0, math.ceil(steps))


class Agent:
    """An object in the simulation: a simulator object, its dynamic properties, a behavior.

    Dynamic properties read as attributes (``agent.x``, ``agent.speed``) and are updated
    once per time step from the simulator, after it steps. Treat them as read-only.

    Attributes
    ----------
    name : str
        Unique within the simulation.
    handle : object
        What the simulator's ``create_object`` returned.
    props : Mapping[str, object]
        The dynamic properties read at the end of the last time step (or at creation).
    sim : Simulation
        The simulation the agent belongs to (current step and time, other agents, ``rng``).
    behavior : callable or None
        The behavior (a generator function called as ``behavior(agent, *args)``), or None
        for an object that takes no actions.
    args : tuple
        The behavior's extra arguments.

    Raises
    ------
    TypeError
        If an argument is not of the type above.
    """

    __slots__ = ("name", "handle", "props", "sim", "behavior", "args", "_gen")

    def __init__(self, name: str, handle: Any, props: Mapping[str, Any], sim: Simulation,
                 behavior: Callable[..., Generator[Any, None, Any]] | None,
                 args: tuple[Any, ...]) -> None:
        self.name = check_str(name, "name")
        self.handle = handle
        self.props = check_instance(props, Mapping, "props")  # type: ignore[type-abstract]
        self.sim = check_instance(sim, Simulation, "sim")
        self.behavior = check_optional_callable(behavior, "behavior", "a generator function")
        self.args = check_instance(args, tuple, "args")
        self._gen: Any = None

    @property
    def rng(self) -> random.Random:
        """The attempt's seeded random generator (the same object as ``sim.rng``)."""
        return self.sim.rng

    def __getattr__(self, key: str) -> Any:
        if key in Agent.__slots__:
            raise AttributeError(key)
        try:
            return self.props[key]
        except KeyError:
            raise AttributeError(f"agent {self.name!r} has no property {key!r}; it has "
                                 f"{sorted(self.props)}") from None

    def __repr__(self) -> str:
        return f"Agent({self.name!r}, {dict(self.props)!r})"


class Monitor:
    """Internal: a registered monitor and its generator once started."""

    __slots__ = ("name", "fn", "args", "gen")

    def __init__(self, fn: Callable[..., Generator[Any, None, Any]], args: tuple[Any, ...],
                 name: str) -> None:
        self.name = name
        self.fn = fn
        self.args = args
        self.gen: Any = None


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

    Raises
    ------
    TypeError
        If ``simulator`` lacks a :class:`Simulator` method, ``seed`` is not an integer or
        ``dt`` not a real number.
    ValueError
        If ``dt`` is not a finite number of seconds > 0.
    """

    def __init__(self, simulator: Simulator, seed: int, dt: float) -> None:
        self.simulator = check_instance(
            simulator, Simulator, "simulator")  # type: ignore[type-abstract]
        self.seed = seed = check_seed(seed)
        # Not Random(seed): it seeds from abs(seed), so seed and -seed would share a stream.
        self.rng = random.Random(int.from_bytes(hashlib.sha256(str(seed).encode()).digest(), "big"))
        self.dt = check_step(dt, "dt")
        self.step = 0
        self.agents: dict[str, Agent] = {}
        # Everything below is the runner's bookkeeping, filled through Scope.
        self._behaving: list[Agent] = []
        self._scopes: list[Scope] = []
        self._monitors: list[Monitor] = []
        self._records: dict[str, tuple[Callable[[], Any], list[tuple[int, Any]]]] = {}
        self._records_initial: dict[str, Callable[[], Any]] = {}
        self._records_initial_values: dict[str, Any] = {}
        self._records_final: dict[str, Callable[[], Any]] = {}
        self._end_conditions: list[tuple[str, Callable[[], object]]] = []
        self._top_done: str | None = None
        self._scope_stopped = False     # a scope stopped this step: drop it from _scopes
        self._trajectory: list[dict[str, Mapping[str, Any]]] = []
        self._actions: list[dict[str, tuple[Any, ...]]] = []

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

    def _add_agent(self, name: str, spec: Any, behavior: Callable[..., Any] | None,
                   args: tuple[Any, ...]) -> Agent:
        check_str(name, "name")
        if name in self.agents:
            raise ValueError(f"agent names must be unique; there is already an agent {name!r}")
        check_optional_callable(behavior, "behavior", "a generator function")
        check_instance(args, tuple, "args")
        handle = self.simulator.create_object(name, spec)
        agent = Agent(name, handle, self.simulator.get_properties(handle), self, behavior, args)
        self.agents[name] = agent
        if behavior is not None:
            self._behaving.append(agent)
        return agent
