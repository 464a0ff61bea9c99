"""``require``, ``terminate`` and ``terminate_simulation``: statements usable in behaviors,
monitors and compose blocks.

Each works by raising an exception the runner catches, so it also ends the generator that
ran it (and the behaviors that delegated to it with ``do``). Requirement predicates
registered on a scope (``require_always`` and the like) are zero-argument callables;
:func:`describe` names them in reasons without anything that varies between processes (no
``id``), so reasons compare equal across runs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from cvcclock.checks import check_str
from cvcclock.scenario.errors import RejectSimulation, Terminate

__all__ = ["describe", "require", "terminate", "terminate_simulation"]


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
    check_str(message, "message", optional=True)
    if not condition:
        if message is None:
            caller = sys._getframe(1)
            where = f"{os.path.basename(caller.f_code.co_filename)}:{caller.f_lineno}"
            message = f"require failed at {where}"
        raise RejectSimulation(message)


def terminate(reason: str | None = None) -> NoReturn:
    """End the current scenario: the one that created the agent (from a behavior), that
    registered the monitor (from a monitor), or that owns the compose block.

    From a behavior, the scenario stops at once and the agent takes no action this step;
    when it is the top-level scenario the simulation ends there, before any action of this
    step is executed (``BEHAVIOR``). From a monitor, the scenario stops once every monitor
    has run this step (``MONITOR`` for the top level). From a compose block, the scenario
    stops (``SCENARIO_COMPLETE`` for the top level). A sub-scenario that stops returns to
    the ``do`` of its parent. The behavior or monitor that called it ends too: it is an
    exception, so the code after it never runs.

    Parameters
    ----------
    reason : str, optional
        Reported in ``SimulationResult.termination_reason``.

    Raises
    ------
    TypeError
        If ``reason`` is neither a str nor None.
    """
    raise Terminate(check_str(reason, "reason", optional=True), simulation=False)


def terminate_simulation(reason: str | None = None) -> NoReturn:
    """End the whole simulation, from any behavior, monitor or compose block.

    From a behavior it ends at once (``BEHAVIOR``); from a monitor, once the other monitors
    have run (``MONITOR``); from a compose block, every scenario from that one up to the
    top level stops and the simulation ends after this step's monitors
    (``SCENARIO_COMPLETE``).

    Parameters
    ----------
    reason : str, optional
        Reported in ``SimulationResult.termination_reason``.

    Raises
    ------
    TypeError
        If ``reason`` is neither a str nor None.
    """
    raise Terminate(check_str(reason, "reason", optional=True), simulation=True)


def describe(fn: Callable[..., Any], name: str | None = None) -> str:
    """A stable human name for a predicate: ``name``, or its ``__name__`` and ``file:line``."""
    label = check_str(name, "name", optional=True)
    if label is not None:
        return label
    code = getattr(fn, "__code__", None)
    short = getattr(fn, "__name__", type(fn).__name__)
    if code is None:
        return short
    return f"{short} ({os.path.basename(code.co_filename)}:{code.co_firstlineno})"
