"""Behaviors: generators yielding ``take(*actions)`` or ``wait()`` once per time step.

A behavior is a generator function called with its agent (and any extra arguments given to
``add_agent``). Each time step the runner resumes it until it yields; ``yield from`` runs a
sub-behavior until it returns. A top-level behavior that returns waits forever.

Guards: ``@precondition(pred)`` and ``@invariant(pred)`` decorate a behavior; ``pred`` is
called with the behavior's own arguments. When the behavior is called (started), its
preconditions and invariants are checked; its invariants are checked again whenever it is
resumed while not inside a sub-behavior (a ``yield from`` in progress). A violation rejects
the attempt (or raises, with ``raise_guard_violations=True``).
"""

from __future__ import annotations

import functools
import inspect
import weakref
from collections.abc import Callable, Generator
from types import GeneratorType
from typing import Any, TypeVar

from cvcclock.scenario.errors import GuardViolation
from cvcclock.scenario.requirements import describe

__all__ = ["WAIT", "Take", "invariant", "precondition", "take", "wait"]

F = TypeVar("F", bound=Callable[..., Generator[Any, None, Any]])


class Take:
    """What a behavior yields for one time step: its actions (none for a wait).

    Parameters
    ----------
    actions : tuple
        The simulator's action objects, executed in order.
    """

    __slots__ = ("actions",)

    def __init__(self, actions: tuple[Any, ...]) -> None:
        self.actions = actions

    def __eq__(self, other: object) -> bool:
        return type(other) is Take and other.actions == self.actions

    def __hash__(self) -> int:
        return hash(self.actions)

    def __repr__(self) -> str:
        return f"take({', '.join(map(repr, self.actions))})" if self.actions else "wait()"


WAIT = Take(())
"""The value ``wait()`` returns: no actions this step."""


def take(*actions: Any) -> Take:
    """Take ``actions`` this time step: ``yield take(Throttle(0.5), Steer(0.1))``."""
    return Take(actions)


def wait() -> Take:
    """Take no action this time step: ``yield wait()``."""
    return WAIT


class _Guards:
    __slots__ = ("name", "preconditions", "invariants")

    def __init__(self, name: str) -> None:
        self.name = name
        self.preconditions: list[Callable[..., object]] = []
        self.invariants: list[Callable[..., object]] = []


# Running guarded generators -> (guards, args, kwargs). Weak, so a finished behavior goes
# away with its generator; generators cannot carry attributes of their own.
_RUNNING: weakref.WeakKeyDictionary[Generator[Any, None, Any], tuple[_Guards, tuple[Any, ...], dict[str, Any]]]
_RUNNING = weakref.WeakKeyDictionary()


def _check(guards: _Guards, kind: str, preds: list[Callable[..., object]], args: tuple[Any, ...],
           kwargs: dict[str, Any]) -> None:
    for pred in preds:
        if not pred(*args, **kwargs):
            raise GuardViolation(f"{kind} {describe(pred)} of behavior {guards.name!r} violated")


def _guarded(fn: F) -> F:
    guards = getattr(fn, "__cvc_guards__", None)
    if guards is not None:
        return fn
    if not inspect.isgeneratorfunction(fn):
        raise TypeError(f"@precondition/@invariant decorate a behavior (a generator function), got {fn!r}")
    guards = _Guards(fn.__name__)

    @functools.wraps(fn)
    def start(*args: Any, **kwargs: Any) -> Generator[Any, None, Any]:
        _check(guards, "precondition", guards.preconditions, args, kwargs)
        _check(guards, "invariant", guards.invariants, args, kwargs)
        gen = fn(*args, **kwargs)
        _RUNNING[gen] = (guards, args, kwargs)
        return gen

    start.__cvc_guards__ = guards  # type: ignore[attr-defined]
    return start  # type: ignore[return-value]


def precondition(pred: Callable[..., object]) -> Callable[[F], F]:
    """Decorate a behavior with a precondition, checked when the behavior is started.

    Parameters
    ----------
    pred : callable
        Called with the behavior's arguments; a false result violates the precondition.
    """
    if not callable(pred):
        raise TypeError(f"precondition takes a predicate, got {pred!r}")

    def decorate(fn: F) -> F:
        start = _guarded(fn)
        start.__cvc_guards__.preconditions.insert(0, pred)  # type: ignore[attr-defined]
        return start

    return decorate


def invariant(pred: Callable[..., object]) -> Callable[[F], F]:
    """Decorate a behavior with an invariant, checked at start and whenever it is resumed.

    Not checked while the behavior is inside a sub-behavior (``yield from``); the
    sub-behavior's own invariants are checked then.

    Parameters
    ----------
    pred : callable
        Called with the behavior's arguments; a false result violates the invariant.
    """
    if not callable(pred):
        raise TypeError(f"invariant takes a predicate, got {pred!r}")

    def decorate(fn: F) -> F:
        start = _guarded(fn)
        start.__cvc_guards__.invariants.insert(0, pred)  # type: ignore[attr-defined]
        return start

    return decorate


def guards_running() -> bool:
    """Whether any guarded behavior may be running: if not, invariant checks can be skipped."""
    return bool(_RUNNING)


def check_invariants(gen: Generator[Any, None, Any]) -> None:
    """Check the invariants of the innermost running behavior of ``gen``'s delegation chain.

    Only the innermost one is not inside a sub-behavior, so only its invariants apply.
    """
    inner: Any = gen
    while (sub := getattr(inner, "gi_yieldfrom", None)) is not None:
        inner = sub
    entry = _RUNNING.get(inner) if type(inner) is GeneratorType else None
    if entry is not None:
        guards, args, kwargs = entry
        _check(guards, "invariant", guards.invariants, args, kwargs)
