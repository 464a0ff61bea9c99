"""Scenarios: descriptions. ``setup`` creates agents and requirements; an optional
``compose`` sequences sub-scenarios. Every attempt runs a scenario in a fresh
:class:`~cvcclock.scenario.Scope`, so nothing carries over from a rejected attempt."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from cvcclock.checks import check_str
from cvcclock.scenario.simulator import PointMassSimulator, Simulator

if TYPE_CHECKING:
    from cvcclock.scenario.scopes import Scope

__all__ = ["Params", "Scenario", "check_params"]


class Params(Mapping[str, Any]):
    """Scenic's ``globalParameters``: the run's parameters, read-only, by key or attribute
    (``sim.params["speed"]``, ``sim.params.speed``).

    Parameters
    ----------
    values : mapping
        Parameter name -> value (copied).
    """

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, Any] = {}) -> None:  # noqa: B006 -- read only
        object.__setattr__(self, "_values", dict(check_params(values, "values")))

    def __getitem__(self, key: str) -> Any:
        try:
            return self._values[key]
        except KeyError:
            raise KeyError(f"no parameter {key!r}; the parameters are "
                           f"{sorted(self._values)}") from None

    def __getattr__(self, key: str) -> Any:
        if key.startswith("__"):
            raise AttributeError(key)
        try:
            return self[key]
        except KeyError as e:
            raise AttributeError(e.args[0]) from None

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("the parameters are read-only while the scenario runs")

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Params({self._values!r})"


def check_params(value: object, name: str) -> Mapping[str, Any]:
    """A mapping of parameter names (str) to values.

    Raises
    ------
    TypeError
        If ``value`` is not a mapping, or a key is not a str; naming ``name``.
    """
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping of parameter names to values, got "
                        f"{value!r}")
    for key in value:
        check_str(key, f"each key of {name}")
    return value


class Scenario:
    """A scenario. Subclass it; override :meth:`setup` and, optionally, ``compose``.

    ``compose(self, s)``, when defined, is a generator method run once per time step like a
    behavior: it yields ``wait()``, may ``require``, may ``terminate()`` the scenario, and
    runs sub-scenarios with ``yield from s.do(Sub(), ...)``, optionally for a number of steps
    or seconds or until a condition (see :func:`~cvcclock.scenario.do`). The scenario stops
    when it returns. A scenario without compose runs until its time limit, a
    ``terminate_when`` condition, or the end of the simulation.

    ``@precondition(pred)`` and ``@invariant(pred)`` on the class are its guards, called as
    ``pred(scenario, s)``: checked when it starts, before ``setup``; invariants again at
    each step it is not running a sub-scenario.

    Attributes
    ----------
    params : mapping
        Scenic's ``param`` statements: the scenario's parameters and their default values,
        which a runner's ``params=`` overrides; every scenario, behavior and monitor reads
        the run's as ``sim.params`` (``s.params`` in a scenario), Scenic's
        ``globalParameters``. Only the top-level scenario's count.
    dt : float
        The time step in seconds; only the top-level scenario's counts. The default, 0.1,
        is used unless the runner is given another. Set on a subclass or an instance, it
        declares the scenario's time step (``declares_dt``): a runner given another
        refuses it. None declares none: the runner must then be given one.
    """

    dt: float = 0.1
    params: Mapping[str, Any] = {}
    compose: Callable[[Scope], Generator[Any, Any, Any]] | None = None

    @property
    def name(self) -> str:
        """The scenario's name in reasons and traces: its class name."""
        return type(self).__name__

    def setup(self, s: Scope) -> None:
        """Create agents and register requirements, monitors and records on ``s``.

        Called once per attempt when the scenario starts: before step 0 for the top-level
        scenario, in the parent's step for a sub-scenario. Randomness must come from
        ``s.rng``.
        """

    def simulator(self) -> Simulator:
        """A fresh simulator for one attempt: a :class:`PointMassSimulator` unless overridden."""
        return PointMassSimulator()


def declares_dt(scenario: Scenario) -> bool:
    """Whether ``scenario`` has a time step of its own: ``dt`` set, and not to None, on it or
    on its class (or a base class) below :class:`Scenario`, rather than the default it
    inherits.

    A scenario that declares its time step may count on it (steps, limits, physics tuned to
    it); one that does not has no time step in mind, as a Scenic scenario has none, and
    ``dt = None`` says that the runner must be given one.
    """
    if scenario.dt is None:
        return False
    if "dt" in getattr(scenario, "__dict__", ()):
        return True
    for cls in type(scenario).__mro__:
        if cls is Scenario:
            return False
        if "dt" in vars(cls):
            return True
    return False
