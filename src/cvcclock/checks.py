"""The argument rules every part of cvcclock shares, so each rule and its message lives once.

The numeric rules are the compiled core's own; this module gives the Python layer (and hosts
that wrap cvcclock) the same checks the clock applies, and adds the rules the core has no
argument for:

- ``check_seconds(value, name, minimum=0.0, maximum=inf)``: a finite real number of seconds;
- ``check_real(value, name)``: a finite real number of either sign;
- ``check_count(value, name, minimum=0, maximum=MAX_TICK)``: an integer (any ``__index__``
  type such as ``numpy.int64``, never a bool);
- ``check_bool(value, name)``: a ``bool`` or ``numpy.bool_``, nothing else;
- ``check_seed(value, name="seed")``: a run's seed, a non-negative integer of any size;
- ``check_str(value, name)``: a ``str``;
- ``check_callable(value, name)``: anything callable;
- ``check_timeout(value, name="timeout")``: a wait's timeout, None or seconds;
- ``MAX_TICK``: 2**62, the largest tick, count or due tick.

A wrong type raises TypeError, a wrong value ValueError; both name the argument and the value.
"""

from __future__ import annotations

import operator
import threading
from typing import Literal, TypeVar, overload

from cvcclock._core import MAX_TICK, check_bool, check_count, check_real, check_seconds

__all__ = ["MAX_TICK", "check_bool", "check_callable", "check_count", "check_real",
           "check_seconds", "check_seed", "check_str", "check_timeout"]

T = TypeVar("T")


def check_seed(value: object, name: str = "seed") -> int:
    """Return ``value`` as a run's seed: a non-negative int of any size.

    A seed is what ``numpy.random.SeedSequence`` takes as entropy, so it has no upper bound
    (the seeds ``simulate`` derives for later attempts are 64 bits, three in four of them
    above ``MAX_TICK``): it is not a count. An integer is what ``check_count`` takes for
    one: any ``__index__`` type such as ``numpy.int64``, never a bool.

    Parameters
    ----------
    value : int
        The argument to check.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    int
        ``value`` as a Python int.

    Raises
    ------
    TypeError
        If ``value`` is not an integer, or is a bool.
    ValueError
        If it is negative.
    """
    try:
        return check_count(value, name)
    except ValueError:
        seed = operator.index(value)   # type: ignore[arg-type]  # check_count took it as one
        if seed < 0:
            raise
        return seed


@overload
def check_str(value: object, name: str, *, optional: Literal[False] = ...) -> str: ...
@overload
def check_str(value: object, name: str, *, optional: bool) -> str | None: ...


def check_str(value: object, name: str, *, optional: bool = False) -> str | None:
    """Return ``value`` if it is a ``str`` (or None, with ``optional=True``).

    Parameters
    ----------
    value : str
        The argument to check.
    name : str
        The argument's name, for the error message.
    optional : bool
        Whether None is taken too.

    Returns
    -------
    str or None
        ``value``, unchanged.

    Raises
    ------
    TypeError
        If ``value`` is not a str (nor None, with ``optional=True``).
    """
    if isinstance(value, str) or (optional and value is None):
        return value
    raise TypeError(f"{name} must be a str{' or None' if optional else ''}, got {value!r}")


def check_callable(value: T, name: str, what: str = "callable", *, optional: bool = False) -> T:
    """Return ``value`` if it is callable (or None, with ``optional=True``).

    Parameters
    ----------
    value : callable
        The argument to check.
    name : str
        The argument's name, for the error message.
    what : str
        What the message says ``value`` must be, where a caller wants a kind of callable:
        ``"a generator function"``. Only ``callable(value)`` is checked.
    optional : bool
        Whether None is taken too.

    Returns
    -------
    callable or None
        ``value``, unchanged.

    Raises
    ------
    TypeError
        If ``value`` is not callable (nor None, with ``optional=True``).
    """
    if callable(value) or (optional and value is None):
        return value
    raise TypeError(f"{name} must be {what}{' or None' if optional else ''}, got {value!r}")


@overload
def check_timeout(value: object, name: str = ..., *,
                  forever: Literal[True] = ...) -> float | None: ...
@overload
def check_timeout(value: object, name: str = ..., *, forever: Literal[False]) -> float: ...


def check_timeout(value: object, name: str = "timeout", *, forever: bool = True) -> float | None:
    """Return ``value`` as a timeout in seconds, as ``WorldClock.wait_for_tick_change`` takes it.

    A timeout is finite seconds >= 0 (``check_seconds``). The longest a thread can wait
    with one is ``threading.TIMEOUT_MAX`` seconds (some 292 years on Linux).

    Parameters
    ----------
    value : float or None
        The argument to check.
    name : str
        The argument's name, for the error message.
    forever : bool
        True for a wait that may last for ever: None, or a timeout longer than
        ``threading.TIMEOUT_MAX``, is returned as None (wait for ever). False for a timeout
        that must be a number of seconds (a join that reports what it waited): None is
        refused, and so is one longer than ``threading.TIMEOUT_MAX``.

    Returns
    -------
    float or None
        The timeout in seconds; None to wait for ever (only with ``forever=True``).

    Raises
    ------
    TypeError
        If ``value`` is not a real number (nor None, with ``forever=True``).
    ValueError
        If it is NaN, infinite or negative, or (with ``forever=False``) longer than
        ``threading.TIMEOUT_MAX``.
    """
    if not forever:
        return check_seconds(value, name, maximum=threading.TIMEOUT_MAX)
    if value is None:
        return None
    seconds = check_seconds(value, name)
    return None if seconds > threading.TIMEOUT_MAX else seconds
