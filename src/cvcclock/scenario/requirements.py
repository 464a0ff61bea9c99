"""``require`` and ``terminate``: statements usable in behaviors, monitors and compose blocks.

Both work by raising an exception the runner catches, so they also end the generator that
ran them. Requirement predicates registered on a scope (``require_always`` and the like) are
zero-argument callables; :func:`describe` names them in reasons without anything that
varies between processes (no ``id``), so reasons compare equal across runs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from cvcclock.scenario._arguments import check_name
from cvcclock.scenario.errors import RejectSimulation, Terminate

__all__ = ["describe", "require", "terminate"]


def require(condition: object, message: str | None = None) -> None:
    """Reject the current attempt unless ``condition`` is true.

    Parameters
    ----------
    condition : object
        Tested for truth.
    message : str, optional
        The rejection reason; by default the file and line of the ``require`` call.

    Raises
    ------
    RejectSimulation
        If ``condition`` is false; the runner resamples.
    TypeError
        If ``message`` is neither a str nor None (whatever ``condition`` is).
    """
    check_name(message, "message")
    if not condition:
        if message is None:
            caller = sys._getframe(1)
            where = f"{os.path.basename(caller.f_code.co_filename)}:{caller.f_lineno}"
            message = f"require failed at {where}"
        raise RejectSimulation(message)


def terminate(reason: str | None = None) -> NoReturn:
    """End the simulation (from a behavior or a monitor) or the scenario (from compose).

    From a behavior the simulation ends at once, before any action of this step is executed;
    from a monitor it ends after the other monitors have run; from a compose block the
    scenario stops (and with the top-level scenario, the simulation).

    Parameters
    ----------
    reason : str, optional
        Reported in ``SimulationResult.termination_reason``.

    Raises
    ------
    TypeError
        If ``reason`` is neither a str nor None.
    """
    raise Terminate(check_name(reason, "reason"))


def describe(fn: Callable[..., Any], name: str | None = None) -> str:
    """A stable human name for a predicate: ``name``, or its ``__name__`` and ``file:line``."""
    label = check_name(name)
    if label is not None:
        return label
    code = getattr(fn, "__code__", None)
    short = getattr(fn, "__name__", type(fn).__name__)
    if code is None:
        return short
    return f"{short} ({os.path.basename(code.co_filename)}:{code.co_firstlineno})"
