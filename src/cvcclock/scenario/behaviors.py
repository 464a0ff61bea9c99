"""Behaviors: generators yielding ``take(*actions)`` or ``wait()`` once per time step, and
their guards.

A behavior is a generator function called with its agent (and any extra arguments given to
``add_agent``). Each time step the runner resumes it until it yields an action; it runs a
sub-behavior with ``yield from do(sub(agent))`` (see :mod:`~cvcclock.scenario.control`). A
top-level behavior that returns waits forever.

Guards: ``@precondition(pred)`` and ``@invariant(pred)`` decorate a behavior, and ``pred``
is called with the behavior's own arguments. When the behavior starts (an agent's behavior
as its scenario starts; a sub-behavior when the runner first resumes it, not when it is
called, so a ``do`` whose limit ends it first never checks them), its preconditions and then
its invariants are checked; its invariants are checked again each
time it is resumed: after each action, and at the instant a sub-behavior it runs with
``do`` returns, before any more of its code runs. They are not checked while it is inside
a sub-behavior. A violation raises :class:`~cvcclock.scenario.PreconditionViolation` or
:class:`~cvcclock.scenario.InvariantViolation` into the behavior at the point it was
resumed, so it (or a behavior that delegated to it) may catch it; uncaught, it rejects the
attempt (or is raised to the caller, with ``raise_guard_violations=True``).

The same decorators on a :class:`~cvcclock.scenario.Scenario` subclass are the scenario's
guards: ``pred(scenario, s)`` gets the scenario and its running :class:`Scope`.

A plain ``yield from sub(agent)`` is Python's delegation, which the runner cannot see
return; it is allowed only where no invariant depends on it (see :func:`delegation`).
"""

from __future__ import annotations

import functools
import inspect
import weakref
from collections.abc import Callable, Generator
from types import GeneratorType
from typing import Any, TypeVar

from cvcclock.checks import check_callable
from cvcclock.scenario._arguments import check_instance
from cvcclock.scenario.control import do
from cvcclock.scenario.errors import (
    BehaviorError,
    GuardViolation,
    InvariantViolation,
    PreconditionViolation,
)
from cvcclock.scenario.requirements import describe

__all__ = ["WAIT", "Guards", "Take", "invariant", "precondition", "take", "wait"]

G = TypeVar("G")


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


def wait(*, steps: int | None = None, seconds: float | None = None,
         until: Callable[[], object] | None = None) -> Any:
    """Take no action this time step: ``yield wait()``.

    With a limit it is Scenic's ``wait for``/``wait until``, ``do()`` with nothing to run:
    ``yield from wait(steps=3)``, ``yield from wait(seconds=0.5)``,
    ``yield from wait(until=lambda: car.x > 10)`` (see :func:`~cvcclock.scenario.do`).
    """
    if steps is None and seconds is None and until is None:
        return WAIT
    return do(steps=steps, seconds=seconds, until=until)


class Guards:
    """The preconditions and invariants of a behavior or a scenario class.

    Attributes
    ----------
    what : str
        ``"behavior"`` or ``"scenario"``, for messages.
    name : str
        The behavior's or scenario class's name.
    preconditions, invariants : list of callable
        In the order they are checked (the outermost decorator first).
    """

    __slots__ = ("what", "name", "preconditions", "invariants")

    def __init__(self, what: str, name: str) -> None:
        self.what = what
        self.name = name
        self.preconditions: list[Callable[..., object]] = []
        self.invariants: list[Callable[..., object]] = []

    def check_preconditions(self, args: tuple[Any, ...], kwargs: dict[str, Any],
                            name: str | None = None) -> None:
        """Raise :class:`PreconditionViolation` for the first false ``pred(*args, **kwargs)``;
        the message names the behavior or scenario ``name`` (by default its own)."""
        for pred in self.preconditions:
            if not pred(*args, **kwargs):
                raise PreconditionViolation(self._message("precondition", pred, name))

    def check_invariants(self, args: tuple[Any, ...], kwargs: dict[str, Any],
                         name: str | None = None) -> None:
        """Raise :class:`InvariantViolation` for the first false ``pred(*args, **kwargs)``."""
        for pred in self.invariants:
            if not pred(*args, **kwargs):
                raise InvariantViolation(self._message("invariant", pred, name))

    def _message(self, kind: str, pred: Callable[..., object], name: str | None) -> str:
        return f"{kind} {describe(pred)} of {self.what} {name or self.name!r} violated"


class BoundGuards:
    """The guards of one behavior call, with its arguments, and the generator of its body.

    The call makes nothing run: its guards are checked when the behavior starts (the runner
    first resumes it, or starts it as an agent's behavior), as Scenic checks them when it
    starts a sub-behavior, so a ``do`` that never starts it never checks them.
    """

    __slots__ = ("guards", "args", "kwargs", "body", "started")

    def __init__(self, guards: Guards, args: tuple[Any, ...], kwargs: dict[str, Any],
                 body: Any = None) -> None:
        self.guards, self.args, self.kwargs, self.body = guards, args, kwargs, body
        self.started = False

    @property
    def has_invariants(self) -> bool:
        """Whether there is anything to check on resumption."""
        return bool(self.guards.invariants)

    def check_invariants(self) -> None:
        """Raise :class:`InvariantViolation` for the first false invariant."""
        self.guards.check_invariants(self.args, self.kwargs)

    def enabled(self) -> bool:
        """Whether the preconditions and invariants hold now (``do_choose`` asks this of
        each candidate without starting it)."""
        try:
            self.guards.check_preconditions(self.args, self.kwargs)
            self.guards.check_invariants(self.args, self.kwargs)
        except GuardViolation:
            return False
        return True

    def start(self) -> None:
        """Check the preconditions, then the invariants, once: when the behavior starts."""
        if not self.started:
            self.started = True
            self.guards.check_preconditions(self.args, self.kwargs)
            self.guards.check_invariants(self.args, self.kwargs)


# Running guarded generators -> their guards. Weak, so a finished behavior goes away with
# its generator; generators cannot carry attributes of their own.
_RUNNING: weakref.WeakKeyDictionary[Any, BoundGuards] = weakref.WeakKeyDictionary()


def guards_of(gen: object) -> BoundGuards | None:
    """The guards of a generator a decorated behavior returned, or None."""
    return _RUNNING.get(gen) if type(gen) is GeneratorType else None


def _guarded(bound: BoundGuards, body: Generator[Any, Any, Any]) -> Generator[Any, Any, Any]:
    """What a guarded behavior's call returns: its guards checked as it starts, then its body."""
    bound.start()
    return (yield from body)


_GUARDED = _guarded.__code__


def body_of(gen: Any) -> Any:
    """The generator running a behavior's own code: the body of a guarded behavior's
    generator (whose ``gi_yieldfrom`` is always that body), else ``gen`` itself."""
    if getattr(gen, "gi_code", None) is _GUARDED:
        return _RUNNING[gen].body
    return gen


def scenario_guards(cls: type) -> Guards | None:
    """The guards a scenario class was decorated with (its own or a base class's), or None."""
    for klass in cls.__mro__:
        guards = klass.__dict__.get("__cvc_guards__")
        if guards is not None:
            return guards  # type: ignore[no-any-return]
    return None


def _guards_for(target: G) -> tuple[G, Guards]:
    """The decorated form of ``target`` and its guards, made on first decoration."""
    if isinstance(target, type):
        own = target.__dict__.get("__cvc_guards__")
        if own is None:
            # A subclass's list starts as a copy of its base's, so decorating it never
            # changes the base's guards.
            own = Guards("scenario", target.__name__)
            inherited = scenario_guards(target)
            if inherited is not None:
                own.preconditions[:] = inherited.preconditions
                own.invariants[:] = inherited.invariants
            type.__setattr__(target, "__cvc_guards__", own)
        return target, own
    existing = getattr(target, "__cvc_guards__", None)
    if existing is not None:
        return target, existing
    if not inspect.isgeneratorfunction(target):
        raise TypeError(f"@precondition/@invariant decorate a behavior (a generator function) "
                        f"or a Scenario subclass, got {target!r}")
    guards = Guards("behavior", target.__name__)
    fn: Callable[..., Generator[Any, Any, Any]] = target

    @functools.wraps(fn)
    def start(*args: Any, **kwargs: Any) -> Generator[Any, Any, Any]:
        body = fn(*args, **kwargs)      # binds the arguments (a TypeError now); runs nothing
        bound = BoundGuards(guards, args, kwargs, body)
        gen = _guarded(bound, body)
        _RUNNING[gen] = bound
        return gen

    start.__cvc_guards__ = guards  # type: ignore[attr-defined]
    return start, guards  # type: ignore[return-value]


def _guard(kind: str, pred: Callable[..., object]) -> Callable[[G], G]:
    check_callable(pred, "pred", "a predicate (a callable)")

    def decorate(target: G) -> G:
        decorated, guards = _guards_for(target)
        getattr(guards, f"{kind}s").insert(0, pred)
        return decorated

    return decorate


def precondition(pred: Callable[..., object]) -> Callable[[G], G]:
    """Decorate a behavior or a Scenario subclass with a precondition.

    A behavior's is checked when the behavior starts (first runs), with its arguments. A
    scenario's is checked when the scenario starts, before its ``setup``, as
    ``pred(scenario, s)``.

    Parameters
    ----------
    pred : callable
        A false result raises :class:`~cvcclock.scenario.PreconditionViolation`.

    Raises
    ------
    TypeError
        If ``pred`` is not callable, or what is decorated is neither a generator function
        nor a class.
    """
    return _guard("precondition", pred)


def invariant(pred: Callable[..., object]) -> Callable[[G], G]:
    """Decorate a behavior or a Scenario subclass with an invariant.

    A behavior's is checked when it starts and whenever it is resumed, but not while it is
    inside a sub-behavior it runs with ``do``; the sub-behavior's own invariants are checked
    then, and the behavior's again at the instant the sub-behavior returns. A scenario's
    (``pred(scenario, s)``) is checked when it starts and at each time step while it is not
    running a sub-scenario (see :class:`~cvcclock.scenario.Scope`).

    Parameters
    ----------
    pred : callable
        A false result raises :class:`~cvcclock.scenario.InvariantViolation`.

    Raises
    ------
    TypeError
        If ``pred`` is not callable, or what is decorated is neither a generator function
        nor a class.
    """
    return _guard("invariant", pred)


def delegation(gen: Any, owner: Any) -> Any:
    """After ``gen`` yielded an action while delegating with a plain ``yield from``: whose
    invariants apply when it is next resumed.

    ``owner`` holds the invariants of ``gen``'s own code (a behavior's guards, a scope, or
    None). While ``gen`` delegates with a plain ``yield from``, the runner sees neither the
    delegation start nor its return, so a plain delegation is allowed only where no
    invariant depends on it: ``owner`` and every generator in the chain but the innermost
    must have none. The innermost one's guards then apply (it is a behavior started by a
    call, whose own invariants Scenic checks at each resumption).

    Raises
    ------
    BehaviorError
        If an invariant would be checked at the wrong time.
    """
    inner = getattr(body_of(gen), "gi_yieldfrom", None)
    if inner is None:
        return owner
    chain = [gen, inner]
    while (deeper := getattr(body_of(chain[-1]), "gi_yieldfrom", None)) is not None:
        chain.append(deeper)
    holders = [(gen, owner)] + [(g, guards_of(g)) for g in chain[1:-1]]
    for outer, guards in holders:
        if guards is not None and guards.has_invariants:
            raise BehaviorError(
                f"{_label(outer)} has invariants and delegates to {_label(chain[-1])} with a "
                f"plain 'yield from', so its invariants could not be checked when that "
                f"returns; write 'yield from do(...)' instead")
    return guards_of(chain[-1])


def _label(gen: Any) -> str:
    code = getattr(body_of(gen), "gi_code", None)
    return repr(code.co_name) if code is not None else repr(gen)
