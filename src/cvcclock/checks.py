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
- ``check_global_seed(value, name="seed")``: a seed for the global ``random`` and
  ``numpy.random`` streams (as Scenic seeds them), 0 to 2**32 - 1;
- ``check_str(value, name)``: a ``str``;
- ``check_path(value, name)``: a file's path, a ``str`` or ``os.PathLike``;
- ``check_callable(value, name)``: anything callable;
- ``check_timeout(value, name="timeout")``: a wait's timeout, None or seconds;
- ``check_time_limit(value, name="time_limit")``: a run's time limit, seconds or ``math.inf``;
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

__all__ = ["MAX_TICK", "check_bool", "check_callable", "check_count", "check_global_seed",
           "check_path", "check_real", "check_seconds", "check_seed", "check_str",
           "check_time_limit", "check_timeout"]

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


def check_global_seed(value: object, name: str = "seed") -> int:
    """Return ``value`` as a seed of the global streams: ``check_seed``, at most 2**32 - 1.

    Scenic draws from the global ``random`` and ``numpy.random`` streams and its command
    line seeds both with one number; the legacy ``numpy.random.seed`` takes 32 bits.

    Parameters
    ----------
    value : int
        The argument to check.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    int

    Raises
    ------
    TypeError
        If ``value`` is not an integer, or is a bool.
    ValueError
        If it is negative or above 2**32 - 1.
    """
    seed = check_seed(value, name)
    if seed > 2**32 - 1:
        raise ValueError(f"{name} must be at most 2**32 - 1 (numpy.random.seed takes 32 "
                         f"bits), got {value!r}")
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
