"""A Scenic run's values in one exact, comparable form: state hashes and result keys.

Scenic's ``SimulationResult`` has no ``__eq__``, its actions are keyed by agent objects, and
its vectors print rounded. ``canonical`` turns a value into nested tuples of plain values,
floats spelled exactly (``float.hex``), so two runs compare with ``==`` and hash alike
across processes.
"""

from __future__ import annotations

import enum
import hashlib
import math
import numbers
from typing import Any

__all__ = ["canonical", "result_key", "state_hash", "step_hashes", "trajectory_hash"]

# How deep canonical follows an object's attributes before falling back to its type name:
# an action that refers to an agent would otherwise walk the whole scene.
_DEPTH = 6


def canonical(value: object, _depth: int = 0) -> Any:
    """``value`` as nested tuples of ints, strs, bools, None and exact float spellings."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        f = float(value)
        return ("f", f.hex() if math.isfinite(f) or math.isinf(f) else "nan")
    if isinstance(value, enum.Enum):
        return ("enum", type(value).__name__, value.name)
    if isinstance(value, (tuple, list)):
        return tuple(canonical(v, _depth) for v in value)
    if isinstance(value, dict):
        # In insertion order: Scenic's action dicts are ordered by the agents' schedule,
        # and their keys are agent objects, which differ between two decodings of a scene.
        return ("dict",) + tuple((canonical(k, _depth + 1) if _depth < _DEPTH else
                                  type(k).__name__, canonical(v, _depth))
                                 for k, v in value.items())
    coordinates = _coordinates(value)
    if coordinates is not None:
        return ("vec",) + tuple(canonical(c) for c in coordinates)
    if _depth >= _DEPTH:
        return ("obj", type(value).__name__)
    fields = getattr(value, "__dict__", None)
    if isinstance(fields, dict) and not _is_scenic_object(value):
        return ("obj", type(value).__name__) + tuple(
            (name, canonical(v, _depth + 1)) for name, v in sorted(fields.items())
            if not name.startswith("_"))
    return ("repr", type(value).__name__, repr(value))


def _coordinates(value: Any) -> tuple[float, ...] | None:
    """A Scenic ``Vector``'s coordinates (it is iterable and has x, y, z), else None."""
    if all(hasattr(value, c) for c in ("x", "y", "z")) and type(value).__name__ == "Vector":
        return tuple(value)
    return None


def _is_scenic_object(value: object) -> bool:
    # A Scenic Object (an agent) in an action or a record: its identity differs between runs
    # and its properties are dynamic, so it is named, never walked.
    return any(cls.__name__ == "Object" and cls.__module__.startswith("scenic.")
               for cls in type(value).__mro__)


def _digest(value: object) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:16]


def state_hash(state: object) -> str:
    """The hash of one trajectory entry (a ``Simulation.currentState()``): 16 hex digits.

    Parameters
    ----------
    state : object
        The state, as Scenic puts it in ``SimulationResult.trajectory``.

    Returns
    -------
    str
    """
    return _digest(canonical(state))


def step_hashes(result: object) -> list[str]:
    """One hash per time step of a result: its state and the actions taken in it.

    Entry ``i`` is ``state_hash((trajectory[i], actions[i]))`` (the actions the agents took
    at time step ``i``, in schedule order; none at the last step), so a replay whose agents
    act differently diverges at that step even on a simulator whose state ignores actions,
    as the DummySimulator's does.

    Parameters
    ----------
    result : scenic.core.simulators.SimulationResult

    Returns
    -------
    list of str
    """
    trajectory, actions = result.trajectory, result.actions  # type: ignore[attr-defined]
    return [state_hash((state, tuple(actions[i].values()) if i < len(actions) else None))
            for i, state in enumerate(trajectory)]


def result_key(result: object) -> tuple[Any, ...]:
    """A ``SimulationResult`` as a value two runs compare with ``==``.

    The trajectory, the actions (each step's tuple of action tuples, in schedule order),
    the termination type's name and reason, and the records, each in ``canonical`` form.

    Parameters
    ----------
    result : scenic.core.simulators.SimulationResult
        A finished run's result.

    Returns
    -------
    tuple
        ``(trajectory, actions, termination_type, termination_reason, records)``.

    Raises
    ------
    TypeError
        If ``result`` has not a ``SimulationResult``'s attributes.
    """
    try:
        fields = (result.trajectory, result.actions,  # type: ignore[attr-defined]
                  result.terminationType, result.terminationReason,  # type: ignore[attr-defined]
                  result.records)  # type: ignore[attr-defined]
    except AttributeError:
        raise TypeError(f"result must be a Scenic SimulationResult, got {result!r}") from None
    trajectory, actions, kind, reason, records = fields
    return (canonical(trajectory),
            tuple(tuple(canonical(a) for a in step.values()) for step in actions),
            getattr(kind, "name", str(kind)), str(reason),
            tuple(sorted((str(k), canonical(v)) for k, v in records.items())))


def trajectory_hash(result: object) -> str:
    """The hash of ``result_key(result)``: 16 hex digits, equal for equal results.

    Parameters
    ----------
    result : scenic.core.simulators.SimulationResult

    Returns
    -------
    str
    """
    return _digest(result_key(result))
