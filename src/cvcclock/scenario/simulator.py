"""The simulator interface, and a reference simulator: point-mass vehicles on a plane.

A scenario drives any object implementing :class:`Simulator`: four methods mirroring
Scenic's simulator interface (create an object, execute an agent's action, step the
physics, read an object's dynamic properties). The runner calls them in the order of
Scenic's time step; a simulator never sees the clock.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "InvalidAction",
    "PointMassSimulator",
    "Simulator",
    "Steer",
    "Throttle",
    "Vehicle",
]


class InvalidAction(ValueError):
    """Raised by :meth:`Simulator.apply_action` for an action the simulator cannot execute.

    The runner turns it (and any other exception but a ``RejectSimulation``) into an
    :class:`~cvcclock.scenario.ActionRejected` naming the agent, the step and the action.
    """


@runtime_checkable
class Simulator(Protocol):
    """What a scenario runs on. Implement these four methods; nothing else is called.

    A fresh simulator is made for every attempt (see ``Scenario.simulator``), so a rejected
    attempt never leaks state into the next one.
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
        Acceleration at full throttle and deceleration at full brake, m/s^2.
    max_speed : float
        Speed cap in m/s.
    max_yaw_rate : float
        Turn rate at full steering, rad/s.
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
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"Vehicle.{field.name} must be a finite number, got {value!r}")
        if self.speed < 0.0:
            raise ValueError(f"Vehicle.speed must be >= 0, got {self.speed!r}")


@dataclasses.dataclass(frozen=True)
class Throttle:
    """Set the throttle, held until changed: ``value`` in [-1, 1]; negative brakes."""

    value: float


@dataclasses.dataclass(frozen=True)
class Steer:
    """Set the steering, held until changed: ``value`` in [-1, 1] of the max yaw rate; > 0 turns left."""

    value: float


class _Body:
    __slots__ = ("spec", "x", "y", "heading", "speed", "throttle", "steer")

    def __init__(self, spec: Vehicle) -> None:
        self.spec = spec
        self.x, self.y, self.heading, self.speed = spec.x, spec.y, spec.heading, float(spec.speed)
        self.throttle = self.steer = 0.0


def _unit(action: Throttle | Steer) -> float:
    value = action.value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not -1.0 <= value <= 1.0:
        raise InvalidAction(f"{type(action).__name__}.value must be a number in [-1, 1], got {value!r}")
    return float(value)


class PointMassSimulator:
    """Point-mass vehicles on a plane with throttle and steering: the reference simulator.

    Each step integrates speed, then heading, then position (semi-implicit Euler), with speed
    clamped to ``[0, max_speed]``. Controls hold until the next :class:`Throttle` or
    :class:`Steer`. Dynamic properties are ``x``, ``y``, ``heading`` and ``speed``.
    """

    def __init__(self) -> None:
        self._bodies: list[_Body] = []

    def create_object(self, name: str, spec: Any) -> _Body:
        """Add a vehicle; ``spec`` must be a :class:`Vehicle`."""
        if not isinstance(spec, Vehicle):
            raise TypeError(f"PointMassSimulator objects are Vehicle specs; {name!r} got {spec!r}")
        body = _Body(spec)
        self._bodies.append(body)
        return body

    def apply_action(self, handle: _Body, action: Any) -> None:
        """Execute a :class:`Throttle` or :class:`Steer`; anything else is an :class:`InvalidAction`."""
        kind = type(action)
        if kind is Throttle:
            handle.throttle = _unit(action)
        elif kind is Steer:
            handle.steer = _unit(action)
        else:
            raise InvalidAction(f"PointMassSimulator executes Throttle and Steer actions, not {action!r}")

    def step(self, dt: float) -> None:
        """Advance every vehicle by ``dt`` seconds."""
        for b in self._bodies:
            spec = b.spec
            accel = b.throttle * (spec.max_accel if b.throttle >= 0.0 else spec.max_brake)
            b.speed = min(spec.max_speed, max(0.0, b.speed + accel * dt))
            b.heading += b.steer * spec.max_yaw_rate * dt
            b.x += b.speed * math.cos(b.heading) * dt
            b.y += b.speed * math.sin(b.heading) * dt

    def get_properties(self, handle: _Body) -> dict[str, float]:
        """``{"x", "y", "heading", "speed"}`` of the vehicle, a new dict."""
        return {"x": handle.x, "y": handle.y, "heading": handle.heading, "speed": handle.speed}
