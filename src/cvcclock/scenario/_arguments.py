"""The scenario runner's own argument rules: time steps, time limits and instances, built on
:mod:`cvcclock.checks` (where seeds, numbers, names and callables have theirs).

Every check raises TypeError for a wrong type and ValueError for a wrong value, naming the
argument and the value, and returns the value to use, so a refused call changes nothing.
"""

from __future__ import annotations

import math
from typing import Any, TypeVar

from cvcclock.checks import MAX_TICK, check_seconds

__all__ = [
    "check_instance",
    "check_step",
    "steps_for",
]

T = TypeVar("T")


def check_step(value: object, name: str) -> float:
    """A time step: ``check_seconds``, and more than zero."""
    seconds = check_seconds(value, name)
    if seconds == 0.0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return seconds


def check_instance(value: Any, cls: type[T], name: str) -> T:
    """An instance of ``cls``."""
    if not isinstance(value, cls):
        raise TypeError(f"{name} must be a {cls.__name__}, got {value!r}")
    return value


def steps_for(seconds: object, dt: float, name: str) -> int:
    """Time steps in ``seconds`` (checked as argument ``name``), rounded up: a limit falls on
    the first step at or after it. A limit past the last tick a clock reaches is never met."""
    # The small slack keeps 0.3 / 0.1 = 2.9999999999999996 at 3 steps, not 4.
    steps = check_seconds(seconds, name) / dt - 1e-9
    return MAX_TICK + 1 if steps > MAX_TICK else max(0, math.ceil(steps))


def steps_floor(seconds: object, dt: float, name: str) -> int:
    """Whole time steps in ``seconds`` (checked as argument ``name``), rounded down, as
    Scenic rounds a ``record``'s ``every`` and ``after``."""
    steps = check_seconds(seconds, name) / dt + 1e-9
    return MAX_TICK + 1 if steps > MAX_TICK else math.floor(steps)
