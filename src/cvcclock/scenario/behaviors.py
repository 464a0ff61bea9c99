"""Behaviors: generators yielding ``take(*actions)`` or ``wait()`` once per time step.

A behavior is a generator function called with its agent (and any extra arguments given to
``add_agent``). Each time step the runner resumes it until it yields; ``yield from`` runs a
sub-behavior until it returns. A top-level behavior that returns waits forever.

Guards: ``@precondition(pred)`` and ``@invariant(pred)`` decorate a behavior; ``pred`` is
called with the behavior's own arguments. When the behavior is called (started), its
preconditions and invariants are checked; its invariants are checked again whenever it is
resumed while not inside a sub-behavior (a ``yield from`` in progress): before the step's
resumption, or, when a sub-behavior returns to it, once that resumption has yielded and
before its actions are taken. A violation rejects the attempt (or raises, with
``raise_guard_violations=True``).

So when a sub-behavior returns, its parent's invariants are checked after the parent has
resumed and yielded, not at the instant of the return: Python offers no hook at the end of
a ``yield from``. The parent's code up to that yield has run by then (its side effects and
``rng`` draws included), but the action it yielded is never executed when an invariant is
violated.
"""

from __future__ import annotations

import functools
import inspect
import weakref
from collections.abc import Callable, Generator
from types import GeneratorType
from typing import Any, TypeVar

from cvcclock.scenario._arguments import check_callable, check_instance
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

    Raises
    ------
    TypeError
        If ``actions`` is not a tuple.
    """

    __slots__ = ("actions",)

    def __init__(self, actions: tuple[Any, ...]) -> None:
        self.actions = check_instance(actions, tuple, "actions")

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
_Entry = tuple[_Guards, tuple[Any, ...], dict[str, Any]]
_RUNNING: weakref.WeakKeyDictionary[Generator[Any, None, Any], _Entry] = weakref.WeakKeyDictionary()


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
        raise TypeError(
            f"@precondition/@invariant decorate a behavior (a generator function), got {fn!r}")
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


def _guard(kind: str, pred: Callable[..., object]) -> Callable[[F], F]:
    check_callable(pred, "pred", "a predicate (a callable)")

    def decorate(fn: F) -> F:
        start = _guarded(fn)
        getattr(start.__cvc_guards__, f"{kind}s").insert(0, pred)  # type: ignore[attr-defined]
        return start

    return decorate


def precondition(pred: Callable[..., object]) -> Callable[[F], F]:
    """Decorate a behavior with a precondition, checked when the behavior is started.

    Parameters
    ----------
    pred : callable
        Called with the behavior's arguments; a false result violates the precondition.
    """
    return _guard("precondition", pred)


def invariant(pred: Callable[..., object]) -> Callable[[F], F]:
    """Decorate a behavior with an invariant, checked at start and whenever it is resumed.

    Not checked while the behavior is inside a sub-behavior (``yield from``); the
    sub-behavior's own invariants are checked then, and the behavior's own again once the
    sub-behavior returns to it.

    Parameters
    ----------
    pred : callable
        Called with the behavior's arguments; a false result violates the invariant.
    """
    return _guard("invariant", pred)


def guards_running() -> bool:
    """Whether any guarded behavior may be running: if not, invariant checks can be skipped."""
    return bool(_RUNNING)


def _check_running(gen: Any) -> None:
    entry = _RUNNING.get(gen) if type(gen) is GeneratorType else None
    if entry is not None:
        guards, args, kwargs = entry
        _check(guards, "invariant", guards.invariants, args, kwargs)


Chain = list[tuple[Any, Any]]
"""A behavior's delegation chain, outermost first: (generator or iterator, its frame or None)."""


def check_invariants(gen: Generator[Any, None, Any]) -> Chain:
    """Before resuming ``gen``: check the invariants of the innermost behavior of its chain.

    Only the innermost one is not inside a sub-behavior, so only its invariants apply.
    Returns the chain, for :func:`resume`.
    """
    chain: Chain = [(gen, getattr(gen, "gi_frame", None))]
    while (sub := getattr(chain[-1][0], "gi_yieldfrom", None)) is not None:
        chain.append((sub, getattr(sub, "gi_frame", None)))
    _check_running(chain[-1][0])
    return chain


def _check_resumed(chain: Chain, error: BaseException | None = None) -> None:
    """After resuming a chain's outermost generator: check the invariants of each behavior in
    the chain that a returning sub-behavior resumed, innermost first.

    Checked once the resumption has yielded (or raised ``error``), so before the step's
    actions are taken. A behavior was resumed when the sub-behavior it delegated to
    returned: it no longer delegates to it, or, when ``error`` passed up the chain, the
    sub-behavior's frame is not in the error's traceback (it returned; the error rose later).
    """
    raised = set()
    tb = error.__traceback__ if error is not None else None
    while tb is not None:
        raised.add(tb.tb_frame)
        tb = tb.tb_next
    for i in range(len(chain) - 2, -1, -1):
        outer = chain[i][0]
        sub, sub_frame = chain[i + 1]
        if error is None:
            resumed = outer.gi_yieldfrom is not sub
        else:
            resumed = sub_frame is not None and sub_frame not in raised
        if not resumed:
            return
        _check_running(outer)


def resume(gen: Any, chain: Chain | None, end: object) -> Any:
    """``next(gen, end)``, then check the invariants of the behaviors of ``gen``'s ``chain``
    (from :func:`check_invariants`, None if no guarded behavior runs) that it resumed."""
    if chain is None or len(chain) == 1:
        return next(gen, end)
    try:
        item = next(gen, end)
    except Exception as e:
        _check_resumed(chain, e)
        raise
    _check_resumed(chain)
    return item
