"""The argument rules every part of cvcclock shares, so each rule and its message lives once.

The numeric, callable and timeout rules are the compiled core's own (it calls them itself);
this module gives the Python layer (and hosts that wrap cvcclock) the same checks the clock
applies, and adds the rules the core has no argument for (seeds, strings):

- ``check_seconds(value, name, minimum=0.0, maximum=inf)``: a finite real number of seconds;
- ``check_real(value, name)``: a finite real number of either sign;
- ``check_count(value, name, minimum=0, maximum=MAX_TICK)``: an integer (any ``__index__``
  type such as ``numpy.int64``, never a bool);
- ``check_bool(value, name)``: a ``bool`` or ``numpy.bool_``, nothing else;
- ``check_seed(value, name="seed")``: a run's seed, a non-negative integer of any size;
- ``check_str(value, name)``: a ``str``;
- ``check_path(value, name)``: a file's path, a ``str`` or ``os.PathLike``;
- ``check_callable(value, name)``: anything callable;
- ``check_timeout(value, name="timeout")``: a wait's timeout, None or seconds;
- ``check_time_limit(value, name="time_limit")``: a run's time limit, seconds or ``math.inf``;
- ``check_wall_limit(value, name)``: a wall-clock limit, None (none) or seconds > 0;
- ``check_keep(value, name="keep")``: what of a batch's runs to keep, as a frozenset of
  ``"records"`` and ``"trajectory"`` (None: the batch's default);
- ``MAX_TICK``: 2**62, the largest tick, count or due tick.

A wrong type raises TypeError, a wrong value ValueError; both name the argument and the value.
"""

from __future__ import annotations

import math
import operator
import os
from typing import Literal, TypeVar, overload

from cvcclock._core import (
    MAX_TICK,
    check_bool,
    check_callable,
    check_count,
    check_real,
    check_seconds,
    check_timeout,
)

__all__ = ["KEEPABLE", "MAX_TICK", "check_bool", "check_callable", "check_count", "check_keep",
           "check_path", "check_real", "check_seconds", "check_seed", "check_str",
           "check_time_limit", "check_timeout", "check_wall_limit"]

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


def check_path(value: object, name: str) -> str:
    """Return ``value``, a file's path, as a str.

    Parameters
    ----------
    value : str or os.PathLike
        The argument to check (``pathlib.Path`` and bytes paths too).
    name : str
        The argument's name, for the error message.

    Returns
    -------
    str
        ``os.fsdecode(os.fspath(value))``.

    Raises
    ------
    TypeError
        If ``value`` is not a str, bytes or ``os.PathLike``.
    ValueError
        If it is empty.
    """
    try:
        path = os.fsdecode(os.fspath(value))   # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"{name} must be a path (str or os.PathLike), got {value!r}") from None
    if not path:
        raise ValueError(f"{name} must name a file, got {value!r}")
    return path


def check_time_limit(value: object, name: str = "time_limit") -> float:
    """Return ``value`` as a run's time limit in seconds: ``check_seconds``, or ``math.inf``
    for none, on purpose (the run ends when its scenario does, however long that takes).

    Parameters
    ----------
    value : float
        The argument to check.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If it is NaN, negative or ``-inf``.
    """
    try:
        return check_seconds(value, name)
    except ValueError as e:
        if value == math.inf:   # check_seconds took it as a real number: this one is +inf
            return math.inf
        raise ValueError(f"{e} (or math.inf for no limit)") from None


def check_wall_limit(value: object, name: str) -> float | None:
    """Return ``value`` as a wall-clock limit: None for none, else finite seconds > 0.

    A limit of 0 would fail everything at once, so it is refused rather than taken as "no
    limit" (that is None).

    Parameters
    ----------
    value : float or None
        The argument to check.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    float or None

    Raises
    ------
    TypeError
        If ``value`` is neither None nor a real number.
    ValueError
        If it is not finite or not > 0.
    """
    if value is None:
        return None
    seconds = check_seconds(value, name)
    if seconds == 0:
        raise ValueError(f"{name} must be > 0 seconds (or None for no limit), got {value!r}")
    return seconds


KEEPABLE = ("records", "trajectory")
"""What a batch may keep of a run beyond its summary, in ``check_keep``'s words."""

_KEEP_WORDS = {"all": frozenset(KEEPABLE), "summary": frozenset(),
               **{part: frozenset((part,)) for part in KEEPABLE}}


def check_keep(value: object, name: str = "keep") -> frozenset[str] | None:
    """Return what a batch keeps of each run beyond its summary: a set of ``KEEPABLE`` names.

    ``"all"`` is both, ``"summary"`` neither, ``"records"`` or ``"trajectory"`` one; a
    tuple, list, set or frozenset of those two names (empty for the summary alone) says
    the same. None stays None: the batch's default.

    Parameters
    ----------
    value : str, collection of str or None
        The argument to check.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    frozenset of str or None

    Raises
    ------
    TypeError
        If ``value`` is none of those types, or the collection holds a non-string.
    ValueError
        If a word is not one of those above.
    """
    if value is None:
        return None
    words = ", ".join(repr(w) for w in _KEEP_WORDS)
    if isinstance(value, str):
        if value not in _KEEP_WORDS:
            raise ValueError(f"{name} must be one of {words}, or a collection of "
                             f"{' and '.join(map(repr, KEEPABLE))}, got {value!r}")
        return _KEEP_WORDS[value]
    if not isinstance(value, (tuple, list, set, frozenset)):
        raise TypeError(f"{name} must be a str, a tuple, list or set of str, or None, "
                        f"got {value!r}")
    for part in value:
        if not isinstance(part, str):
            raise TypeError(f"{name} must hold only str, got {part!r} in {value!r}")
        if part not in KEEPABLE:
            raise ValueError(f"{name} may hold only {' and '.join(map(repr, KEEPABLE))}, "
                             f"got {part!r} in {value!r}")
    return frozenset(value)
