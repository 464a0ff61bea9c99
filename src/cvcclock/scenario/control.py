"""``do`` and ``interrupt``: what a behavior, monitor or compose block yields besides an action.

Both make a request that the runner carries out: ``result = yield from do(...)`` runs a
sub-behavior (a generator) or, in a compose block, sub-scenarios, and evaluates to what the
sub-behavior returned; ``yield from interrupt(body, (condition, handler), ...)`` is Scenic's
``try``/``interrupt when``. Because the runner, not Python's ``yield from``, drives what
they run, it sees the instant a sub-behavior returns (and checks the parent's invariants
then), the moment a sub-scenario stops (the parent goes on in the same time step), and can
suspend a body for a handler and resume it later.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from types import GeneratorType
from typing import Any

from cvcclock.checks import check_callable, check_count, check_seconds
from cvcclock.scenario._arguments import check_instance, check_weight
from cvcclock.scenario.scenarios import Scenario

__all__ = ["ABORT", "Choose", "Do", "Interrupt", "Request", "do", "do_choose", "do_shuffle",
           "interrupt"]

Condition = Callable[[], object]


class _Abort:
    __slots__ = ()

    def __repr__(self) -> str:
        return "ABORT"

    def __reduce__(self) -> str:
        return "ABORT"


ABORT: Any = _Abort()
"""What a handler returns to end its ``interrupt`` (Scenic's ``abort``), and what ``do``
evaluates to when its ``for``/``until`` limit stopped it first."""


class Request:
    """A request the runner carries out: ``yield from`` it; it evaluates to the result."""

    __slots__ = ()

    def __iter__(self) -> Generator[Any, Any, Any]:
        return (yield self)


class Do(Request):
    """Made by :func:`do`; read by the runner.

    Attributes
    ----------
    subs : tuple
        The sub-behavior generators or the scenarios.
    steps : int or None
        The limit in time steps, or None.
    seconds : float or None
        The limit in seconds, or None (the runner rounds it up to whole steps).
    until : callable or None
        The condition that stops it early, or None.
    """

    __slots__ = ("subs", "steps", "seconds", "until")

    def __init__(self, subs: tuple[Any, ...], steps: int | None, seconds: float | None,
                 until: Condition | None) -> None:
        self.subs, self.steps, self.seconds, self.until = subs, steps, seconds, until

    @property
    def scenarios(self) -> bool:
        """Whether it runs scenarios (else one sub-behavior, or nothing: a timed wait)."""
        return bool(self.subs) and isinstance(self.subs[0], Scenario)


def do(*subs: Any, steps: int | None = None, seconds: float | None = None,
       until: Condition | None = None) -> Do:
    """Run a sub-behavior, or (in a compose block) sub-scenarios: ``yield from do(...)``.

    ``do(sub(agent))`` runs the sub-behavior from this time step on, until it returns; the
    ``yield from`` evaluates to what it returned. ``do(A(), B())`` in a compose block runs
    the scenarios in parallel, each set up and stepped first in this time step, until all
    have stopped; the parent goes on in the step the last one stops. With ``steps=N``,
    ``seconds=T`` (rounded up to whole steps) or ``until=condition``, it also stops at the
    first step, counted from this one, where the limit is reached or the condition holds
    (checked before the sub-behavior or scenarios run in that step, so ``until`` true now
    runs nothing), and evaluates to :data:`ABORT`. With no sub-behavior and a limit, it
    waits: ``yield from do(steps=3)`` is Scenic's ``wait for 3 steps``.

    A sub-behavior is a generator, made by calling a behavior; its guards are checked when it
    starts (the runner first resumes it), as Scenic checks them, so a limit that ends the
    ``do`` first never checks them. Preconditions of scenarios are checked when they start.

    Parameters
    ----------
    *subs : generator or Scenario
        One generator, or any number of scenarios (compose blocks only), or none.
    steps : int, optional
        Time steps at most.
    seconds : float, optional
        Seconds at most (``dt`` of the run; rounded up to a whole number of steps).
    until : callable, optional
        A condition of no arguments.

    Raises
    ------
    TypeError
        If a sub is neither a generator nor a Scenario, generators and scenarios are mixed,
        there is more than one generator, or a limit is of the wrong type.
    ValueError
        If more than one limit is given, none is given with no sub, or a limit is negative.
    """
    kinds = {isinstance(sub, GeneratorType) for sub in subs}
    for sub in subs:
        if not isinstance(sub, GeneratorType):
            check_instance(sub, Scenario, "each argument of do() (a generator or a Scenario)")
    if kinds == {True, False} or (True in kinds and len(subs) > 1):
        raise TypeError(f"do() runs one sub-behavior (a generator) or any number of "
                        f"scenarios, got {subs!r}")
    given = [name for name, v in (("steps", steps), ("seconds", seconds), ("until", until))
             if v is not None]
    if len(given) > 1:
        raise ValueError(f"do() takes at most one of steps, seconds and until, got {given}")
    if not subs and not given:
        raise ValueError("do() with nothing to run needs steps, seconds or until (a wait)")
    if steps is not None:
        steps = check_count(steps, "steps")
    if seconds is not None:
        seconds = check_seconds(seconds, "seconds")
    if until is not None:
        check_callable(until, "until", "a callable of no arguments")
    return Do(subs, steps, seconds, until)


class Choose(Request):
    """Made by :func:`do_choose` and :func:`do_shuffle`; read by the runner.

    Attributes
    ----------
    subs : tuple of generator
        The sub-behaviors.
    weights : tuple of float
        Their weights, in the same order.
    shuffle : bool
        True for ``do_shuffle`` (all of them, in a random order).
    """

    __slots__ = ("subs", "weights", "shuffle")

    def __init__(self, subs: tuple[Any, ...], weights: tuple[float, ...], shuffle: bool) -> None:
        self.subs, self.weights, self.shuffle = subs, weights, shuffle


def _choice(what: str, subs: tuple[Any, ...], shuffle: bool) -> Choose:
    """The request of ``do_choose`` or ``do_shuffle`` (named ``what``), checked."""
    if len(subs) == 1 and isinstance(subs[0], dict):
        pairs = list(subs[0].items())
    else:
        pairs = [(sub, 1.0) for sub in subs]
    if not pairs:
        raise ValueError(f"{what}() needs at least one sub-behavior")
    for sub, weight in pairs:
        if not isinstance(sub, GeneratorType):
            raise TypeError(f"{what}() takes sub-behaviors (generators, made by calling a "
                            f"behavior) or a dict of them to weights, got {sub!r}")
        check_weight(weight, f"the weight of {what}()'s sub-behavior")
    if len({id(sub) for sub, _ in pairs}) != len(pairs):
        raise ValueError(f"{what}() was given the same generator twice: call the behavior "
                         f"once for each")
    return Choose(tuple(sub for sub, _ in pairs), tuple(float(w) for _, w in pairs), shuffle)


def do_choose(*subs: Any) -> Choose:
    """Scenic's ``do choose``: run one of the sub-behaviors, picked at random among those
    enabled, ``result = yield from do_choose(a(car), b(car))``.

    A sub-behavior is enabled when its preconditions and invariants hold at the pick (it is
    not started to find out); the pick is weighted (``do_choose({a(car): 1, b(car): 3})``,
    weights > 0, Scenic's ``do choose {A(): 1, B(): 3}``) and draws from the attempt's
    ``rng``, so a seeded run picks the same; a single enabled one is taken without a draw.
    The ``yield from`` evaluates to what the chosen one returns; the others never start.

    Raises
    ------
    TypeError
        If a sub is not a generator, or a weight not a number.
    ValueError
        If there is none, a weight is not > 0, or a generator is given twice.
    RejectSimulation
        When it runs, if none is enabled (Scenic's 'deadlock in "do choose/shuffle"').
    """
    return _choice("do_choose", subs, shuffle=False)


def do_shuffle(*subs: Any) -> Choose:
    """Scenic's ``do shuffle``: run every sub-behavior, one after another, in a random order:
    ``yield from do_shuffle(a(car), b(car))``.

    Each next one is picked as the last returns, in the same step, among those left that are
    enabled then (their preconditions and invariants hold), weighted as :func:`do_choose`
    picks, from the attempt's ``rng``. It evaluates to None once all have run.

    Raises
    ------
    TypeError, ValueError
        As :func:`do_choose`.
    RejectSimulation
        When it runs, if at a pick none of those left is enabled.
    """
    return _choice("do_shuffle", subs, shuffle=True)


class Interrupt(Request):
    """Made by :func:`interrupt`; read by the runner.

    Attributes
    ----------
    body : callable
        Makes the body's generator.
    handlers : tuple of (callable, callable)
        ``(condition, handler)`` pairs, highest priority first (the reverse of the call).
    """

    __slots__ = ("body", "handlers")

    def __init__(self, body: Callable[[], Any],
                 handlers: tuple[tuple[Condition, Callable[[], Any]], ...]) -> None:
        self.body, self.handlers = body, handlers


def interrupt(body: Any, *handlers: tuple[Condition, Callable[[], Any]]) -> Interrupt:
    """Scenic's ``try``/``interrupt when``: ``result = yield from interrupt(body, (c, h), ...)``.

    Runs ``body`` one time step at a time: a generator, a ``do(...)``, or a callable of no
    arguments making one (or a plain function, which runs at once). Each time the statement
    is resumed (every step, before the body or a handler runs) the conditions are checked,
    the last pair first: the first whose condition holds, or whose handler is in progress,
    runs for this step in the body's place. So a later pair interrupts an earlier pair's
    handler, an interrupted handler or body resumes where it was once the interrupting
    handler is done, and an enclosing ``interrupt`` checks its conditions before an inner
    one. A handler is called afresh each time its condition fires; it may make a generator
    or a ``do(...)`` (which runs; then the handler returns None), or be a plain function. A
    handler that returns None resumes what it interrupted, in the same step; one that
    returns anything else (such as :data:`ABORT`) ends the statement, which evaluates to
    that value. The statement also ends when the body returns, evaluating to its return
    value. An exception from the body, a handler or a condition passes out of the
    statement. The behavior's invariants are checked on each resumption after an action.

    Parameters
    ----------
    body : generator, request or callable
        The body, or what makes it.
    *handlers : (callable, callable)
        ``(condition, handler)``: a condition of no arguments, and a callable of no arguments.

    Raises
    ------
    TypeError
        If ``body`` is neither a generator, a request nor a callable, or a handler is not a
        pair of callables.
    """
    if isinstance(body, (GeneratorType, Request)):
        made = body
        body = lambda: made  # noqa: E731  # made once: the body runs once
    else:
        check_callable(body, "body", "a generator, a do() or a callable making one")
    pairs = []
    for pair in handlers:
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise TypeError(f"each handler of interrupt() must be a (condition, handler) "
                            f"pair, got {pair!r}")
        check_callable(pair[0], "condition", "a callable of no arguments")
        check_callable(pair[1], "handler", "a callable of no arguments")
        pairs.append(pair)
    return Interrupt(body, tuple(reversed(pairs)))
