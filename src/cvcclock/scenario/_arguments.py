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
    "check_probability",
    "check_step",
    "check_weight",
    "steps_for",
]

T = TypeVar("T")


def check_step(value: object, name: str) -> float:
    """A time step: ``check_seconds``, and more than zero."""
    seconds = check_seconds(value, name)
    if seconds == 0.0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return seconds


def check_weight(value: object, name: str) -> float:
    """A weight of a random choice: a finite real number > 0."""
    weight = check_seconds(value, name)
    if weight == 0.0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return weight


def check_probability(value: object, name: str) -> float:
    """A probability: a real number from 0 to 1."""
    return check_seconds(value, name, 0.0, 1.0)


def check_instance(value: Any, cls: type[T], name: str) -> T:
    """An instance of ``cls``."""
    if not isinstance(value, cls):
        raise TypeError(f"{name} must be a {cls.__name__}, got {value!r}")
    return value


def steps_for(seconds: object, dt: float, name: str, *, whole: bool = False) -> int:
    """Time steps in ``seconds`` (checked as argument ``name``) at a step of ``dt``: every
    conversion of seconds into steps (``do``/``wait`` for, ``terminate_after``, time limits,
    and with ``whole=True`` a record's ``every``/``after``) goes through here.

    Scenic's rule, exactly: the quotient ``seconds / dt`` as floating point computes it, with
    no slack. A limit is reached at the first step count ``n`` with ``n >= seconds / dt``, so
    it is rounded up (``2.1 / 0.3 == 7.000000000000001`` is 8 steps, as Scenic runs it); a
    record's spacing is rounded down (``whole``), as Scenic's recorders floor it. A limit
    past the last tick a clock reaches is never met.
    """
    steps = check_seconds(seconds, name) / dt
    if steps > MAX_TICK:
        return MAX_TICK + 1
    return math.floor(steps) if whole else max(0, math.ceil(steps))
