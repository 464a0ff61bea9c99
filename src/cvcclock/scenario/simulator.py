"""The simulator interface, a reference simulator (point-mass vehicles on a plane), and a
dummy one (Scenic's ``DummySimulator``: objects that drift, any action taken).

A scenario drives any object implementing :class:`Simulator`: four methods mirroring
Scenic's simulator interface (create an object, execute an agent's action, step the
physics, read an object's dynamic properties), and optionally a fifth, ``set_property``.
The runner calls them in the order of Scenic's time step; a simulator never sees the clock.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from cvcclock.checks import check_real, check_seconds, check_str

__all__ = [
    "DummyObject",
    "DummySimulator",
    "InvalidAction",
    "PointMassSimulator",
    "Simulator",
    "Steer",
    "Throttle",
    "Vehicle",
]


class InvalidAction(ValueError):
    """Raised by :meth:`Simulator.apply_action` for an action the simulator cannot execute
    (for :class:`PointMassSimulator`, anything but a :class:`Throttle` or a :class:`Steer`).

    The runner turns it (and any other exception but a ``RejectSimulation``) into an
    :class:`~cvcclock.scenario.ActionRejected` naming the agent, the step and the action.
    """


@runtime_checkable
class Simulator(Protocol):
    """What a scenario runs on. Implement these four methods, and optionally a fifth.

    A fresh simulator is made for every attempt (see ``Scenario.simulator``), so a rejected
    attempt never leaks state into the next one.

    The dynamic properties an object has are the simulator's: the runner reads them back
    after every step, so a value set from outside would be overwritten then. A behavior may
    set one anyway, with immediate effect (Scenic's ``self.x = ...``), only through an
    optional method ``set_property(handle, name, value) -> None``: the simulator changes
    its object (or raises, say ValueError for a value it cannot take), and the runner reads
    the object's properties back at once. A simulator without it keeps its properties to
    itself; behaviors change them with actions, and keep any state of their own in the
    agent's own properties (``add_agent(..., properties=...)``), which they may always set.
    """

    def create_object(self, name: str, spec: Any) -> Any:
        """Create an object from ``spec`` and return a handle the runner passes back."""
        ...

    def apply_action(self, handle: Any, action: Any) -> None:
        """Execute one action for the object; raise :class:`InvalidAction` to reject it."""
        ...

    def step(self, dt: float) -> None:
        """Advance the physics by ``dt`` seconds."""
        ...

    def get_properties(self, handle: Any) -> Mapping[str, Any]:
        """The object's dynamic properties now, as a new mapping the runner may keep."""
        ...


_SIGNED = frozenset(("x", "y", "heading"))
"""The Vehicle fields that may be negative."""


@dataclasses.dataclass(frozen=True)
class Vehicle:
    """The spec of a point-mass vehicle for :class:`PointMassSimulator`.

    Parameters
    ----------
    x, y : float
        Initial position in metres.
    heading : float
        Initial heading in radians, counter-clockwise from the x axis.
    speed : float
        Initial speed in m/s, at least 0 (vehicles do not reverse).
    max_accel, max_brake : float
        Acceleration at full throttle and deceleration at full brake, m/s^2, at least 0.
    max_speed : float
        Speed cap in m/s, at least 0.
    max_yaw_rate : float
        Turn rate at full steering, rad/s, at least 0.

    Raises
    ------
    TypeError
        If a field is not a real number (bools are not).
    ValueError
        If a field is not finite, or one that must be at least 0 is negative.
    """

    x: float = 0.0
    y: float = 0.0
    heading: float = 0.0
    speed: float = 0.0
    max_accel: float = 4.0
    max_brake: float = 8.0
    max_speed: float = 40.0
    max_yaw_rate: float = 0.5

    def __post_init__(self) -> None:
        # Stored as plain floats, whatever real type was given (numpy's included).
        for field in dataclasses.fields(self):
            value, name = getattr(self, field.name), f"Vehicle.{field.name}"
            # check_seconds is the core's rule for a finite real >= 0, seconds or not.
            signed = field.name in _SIGNED
            checked = check_real(value, name) if signed else check_seconds(value, name)
            object.__setattr__(self, field.name, checked)


def _check_unit(action: Throttle | Steer) -> None:
    name = f"{type(action).__name__}.value"
    if not -1.0 <= check_real(action.value, name) <= 1.0:
        raise ValueError(f"{name} must be in [-1, 1], got {action.value!r}")


@dataclasses.dataclass(frozen=True)
class Throttle:
    """Set the throttle, held until changed: ``value`` in [-1, 1]; negative brakes.

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If it is not in [-1, 1].
    """

    value: float

    def __post_init__(self) -> None:
        _check_unit(self)


@dataclasses.dataclass(frozen=True)
class Steer:
    """Set the steering, held until changed: ``value`` in [-1, 1] of the max yaw rate; > 0 is left.

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If it is not in [-1, 1].
    """

    value: float

    def __post_init__(self) -> None:
        _check_unit(self)


class _Body:
    __slots__ = ("spec", "x", "y", "heading", "speed", "throttle", "steer")

    def __init__(self, spec: Vehicle) -> None:
        self.spec = spec
        self.x, self.y, self.heading, self.speed = spec.x, spec.y, spec.heading, spec.speed
        self.throttle = self.steer = 0.0


class PointMassSimulator:
    """Point-mass vehicles on a plane with throttle and steering: the reference simulator.

    Each step integrates speed, then heading, then position (semi-implicit Euler), with speed
    clamped to ``[0, max_speed]``. Controls hold until the next :class:`Throttle` or
    :class:`Steer`. Dynamic properties are ``x``, ``y``, ``heading`` and ``speed``, and a
    behavior may set any of them (:meth:`set_property`).
    """

    def __init__(self) -> None:
        self._bodies: list[_Body] = []

    def create_object(self, name: str, spec: Any) -> _Body:
        """Add a vehicle; ``spec`` must be a :class:`Vehicle` (TypeError otherwise)."""
        check_str(name, "name")
        if not isinstance(spec, Vehicle):
            raise TypeError(f"spec must be a Vehicle (what PointMassSimulator makes), got "
                            f"{spec!r} for {name!r}")
        body = _Body(spec)
        self._bodies.append(body)
        return body

    def apply_action(self, handle: _Body, action: Any) -> None:
        """Execute a :class:`Throttle` or :class:`Steer`; anything else is :class:`InvalidAction`.

        ``handle`` must be one :meth:`create_object` returned (TypeError otherwise).
        """
        _check_handle(handle)
        kind = type(action)
        if kind is Throttle:
            handle.throttle = float(action.value)
        elif kind is Steer:
            handle.steer = float(action.value)
        else:
            raise InvalidAction(
                f"PointMassSimulator executes Throttle and Steer actions, not {action!r}")

    def step(self, dt: float) -> None:
        """Advance every vehicle by ``dt`` seconds, a finite real >= 0."""
        dt = check_seconds(dt, "dt")
        for b in self._bodies:
            spec = b.spec
            accel = b.throttle * (spec.max_accel if b.throttle >= 0.0 else spec.max_brake)
            b.speed = min(spec.max_speed, max(0.0, b.speed + accel * dt))
            b.heading += b.steer * spec.max_yaw_rate * dt
            b.x += b.speed * math.cos(b.heading) * dt
            b.y += b.speed * math.sin(b.heading) * dt

    def get_properties(self, handle: _Body) -> dict[str, float]:
        """``{"x", "y", "heading", "speed"}`` of the vehicle, a new dict."""
        _check_handle(handle)
        return {"x": handle.x, "y": handle.y, "heading": handle.heading, "speed": handle.speed}

    def set_property(self, handle: _Body, name: str, value: float) -> None:
        """Put the vehicle at ``x``/``y``, turn it to ``heading``, or set its ``speed``.

        Raises
        ------
        TypeError
            If ``handle`` is not one :meth:`create_object` returned, or ``value`` is not a
            real number.
        ValueError
            If ``name`` is not one of the four, or ``value`` is not finite (or negative,
            for ``speed``).
        """
        _check_handle(handle)
        if name not in ("x", "y", "heading", "speed"):
            raise ValueError(f"name must be 'x', 'y', 'heading' or 'speed', got {name!r}")
        checked = check_real(value, name) if name in _SIGNED else check_seconds(value, name)
        setattr(handle, name, checked)


def _check_handle(handle: object) -> None:
    if type(handle) is not _Body:
        raise TypeError(
            f"handle must be what PointMassSimulator.create_object returned, got {handle!r}")


@dataclasses.dataclass(frozen=True)
class DummyObject:
    """The spec of an object for :class:`DummySimulator`: where it starts.

    Raises
    ------
    TypeError
        If ``position`` is not a tuple of three real numbers.
    ValueError
        If one of them is not finite.
    """

    position: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "position", _position(self.position, "DummyObject.position"))


def _position(value: object, name: str) -> tuple[float, float, float]:
    if not (isinstance(value, tuple) and len(value) == 3):
        raise TypeError(f"{name} must be a tuple (x, y, z), got {value!r}")
    x, y, z = (check_real(v, f"{name}[{i}]") for i, v in enumerate(value))
    return (x, y, z)


class DummySimulator:
    """Scenic's ``DummySimulator``: objects that only drift, and any action taken as is.

    Each step moves every object by ``drift`` along y; actions are accepted and ignored. The
    one dynamic property is ``position``, ``(x, y, z)``, which a behavior may set
    (:meth:`set_property`). For testing behaviors and scenarios without physics, and for
    comparing runs with Scenic's.

    Parameters
    ----------
    drift : float
        Metres per step along y (Scenic's ``drift``), any finite real.

    Raises
    ------
    TypeError
        If ``drift`` is not a real number.
    ValueError
        If it is not finite.
    """

    def __init__(self, drift: float = 0.0) -> None:
        self.drift = check_real(drift, "drift")
        self._positions: dict[str, tuple[float, float, float]] = {}

    def create_object(self, name: str, spec: Any) -> str:
        """Add an object; ``spec`` must be a :class:`DummyObject`. The handle is its name."""
        check_str(name, "name")
        if not isinstance(spec, DummyObject):
            raise TypeError(f"spec must be a DummyObject (what DummySimulator makes), got "
                            f"{spec!r} for {name!r}")
        if name in self._positions:
            raise ValueError(f"there is already an object {name!r}")
        self._positions[name] = spec.position
        return name

    def apply_action(self, handle: str, action: Any) -> None:
        """Take any action: it changes nothing."""
        self._check(handle)

    def step(self, dt: float) -> None:
        """Move every object by ``drift`` along y (``dt`` is checked, not used)."""
        check_seconds(dt, "dt")
        drift = self.drift
        for name, (x, y, z) in self._positions.items():
            self._positions[name] = (x, y + drift, z)

    def get_properties(self, handle: str) -> dict[str, tuple[float, float, float]]:
        """``{"position": (x, y, z)}``, a new dict."""
        return {"position": self._positions[self._check(handle)]}

    def set_property(self, handle: str, name: str, value: Any) -> None:
        """Move the object: ``name`` must be ``"position"``.

        Raises
        ------
        ValueError
            If ``name`` is not ``"position"``, or a coordinate is not finite.
        TypeError
            If ``value`` is not a tuple of three real numbers.
        """
        self._check(handle)
        if name != "position":
            raise ValueError(f"name must be 'position', got {name!r}")
        self._positions[handle] = _position(value, "position")

    def _check(self, handle: object) -> str:
        if not (isinstance(handle, str) and handle in self._positions):
            raise TypeError(
                f"handle must be what DummySimulator.create_object returned, got {handle!r}")
        return handle
