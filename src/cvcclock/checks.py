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
- ``check_stream_name(value, name="name")``: a random stream's name, a ``str`` that UTF-8 can
  encode (its key is the sha256 of those bytes);
- ``check_path(value, name)``: a file's path, a ``str`` or ``os.PathLike``;
- ``check_callable(value, name)``: anything callable;
- ``check_timeout(value, name="timeout")``: a wait's timeout, None or seconds;
- ``check_time_limit(value, name="time_limit")``: a run's time limit, seconds or ``math.inf``;
- ``check_time_limits(value, n, name="time_limits")``: one time limit for each of ``n``
  runs, given once for all or one a run;
- ``check_wall_limit(value, name)``: a wall-clock limit, None (none) or seconds > 0;
- ``check_probability(value, name)``: a real number from 0 to 1;
- ``check_mapping(value, name)``: a mapping, as a dict;
- ``check_address(value, name)``: a UDP address, ``(host, port)``;
- ``check_key(value, name)``: a secret key, at least 16 bytes;
- ``check_small_json(value, name, max_bytes)``: a value as its compact JSON text, size-capped;
- ``check_keep(value, name="keep")``: what of a batch's runs to keep, as a frozenset of
  ``"records"`` and ``"trajectory"`` (None: the batch's default);
- ``MAX_TICK``: 2**62, the largest tick, count or due tick.

A wrong type raises TypeError, a wrong value ValueError; both name the argument and the value.
"""

from __future__ import annotations

import json
import math
import operator
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from cvcclock._core import (
    MAX_TICK,
    check_bool,
    check_callable,
    check_count,
    check_real,
    check_seconds,
    check_timeout,
)

if TYPE_CHECKING:
    import numpy

__all__ = ["KEEPABLE", "MAX_TICK", "check_address", "check_bool", "check_callable",
           "check_count", "check_global_seed", "check_keep", "check_key", "check_mapping",
           "check_path", "check_probability", "check_real", "check_seconds", "check_seed",
           "check_small_json", "check_str", "check_stream_name", "check_time_limit",
           "check_time_limits", "check_timeout", "check_wall_limit"]

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


def check_stream_name(value: object, name: str = "name") -> str:
    """Return ``value`` as a random stream's name: a ``str`` that UTF-8 can encode.

    A stream's key is the sha256 of its name's UTF-8 bytes
    (``cvcclock.seeding.name_key``), so a name holding a lone surrogate (``"\\ud800"``, which
    no UTF-8 encodes) names no stream.

    Parameters
    ----------
    value : str
        The argument to check.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    str
        ``value``, unchanged.

    Raises
    ------
    TypeError
        If ``value`` is not a str.
    ValueError
        If it holds a lone surrogate.
    """
    check_str(value, name)
    assert isinstance(value, str)   # check_str took it
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(f"{name} must be text UTF-8 can encode, got {value!r} (a lone "
                         f"surrogate at index {error.start})") from None
    return value


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


def check_time_limits(value: object, n: int, name: str = "time_limits") -> numpy.ndarray:
    """Return ``value`` as ``n`` time limits: a float64 array, each as ``check_time_limit``.

    Parameters
    ----------
    value : float or sequence of float
        One limit for every run, or a sequence (list, tuple, 1-d array) of one a run.
    n : int
        The number of runs.
    name : str
        The argument's name, for the error message; an item is named ``name[i]``.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(n,)``, a new array.

    Raises
    ------
    TypeError
        If ``value`` or one of its items is not a real number.
    ValueError
        If a limit is NaN, negative or ``-inf``, or a sequence's length is not ``n``.
    """
    import numpy as np  # here: the rules need numpy only for this one

    count = check_count(n, "n")
    if isinstance(value, str | bytes) or not hasattr(value, "__len__"):
        return np.full(count, check_time_limit(value, name), dtype=np.float64)
    if isinstance(value, np.ndarray) and value.ndim != 1:
        raise ValueError(f"{name} must be one limit or a 1-d sequence of them, got an array "
                         f"of shape {value.shape}")
    items = list(value)   # type: ignore[call-overload]
    if len(items) != count:
        raise ValueError(f"{name} must hold one limit for each of the {count} runs, got "
                         f"{len(items)}: {value!r}")
    return np.array([check_time_limit(v, f"{name}[{i}]") for i, v in enumerate(items)],
                    dtype=np.float64)


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


def check_probability(value: object, name: str) -> float:
    """Return ``value`` as a probability: a real number from 0 to 1.

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
        If it is NaN or outside 0 to 1.
    """
    p = check_real(value, name)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{name} must be a probability from 0 to 1, got {value!r}")
    return p


def check_mapping(value: object, name: str) -> dict[Any, Any]:
    """Return ``value``, a mapping, as a dict (a copy: later changes do not reach it).

    Parameters
    ----------
    value : mapping
        The argument to check.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    dict

    Raises
    ------
    TypeError
        If ``value`` is not a ``collections.abc.Mapping``.
    """
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping, got {value!r}")
    return dict(value)


def check_address(value: object, name: str) -> tuple[str, int]:
    """Return ``value`` as a UDP address: a ``(host, port)`` pair.

    Parameters
    ----------
    value : tuple of (str, int)
        The argument to check: a host name or IPv4 address and a port from 0 to 65535.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    tuple of (str, int)

    Raises
    ------
    TypeError
        If ``value`` is not a pair of a str and an integer.
    ValueError
        If the host is empty or the port is out of range.
    """
    if not isinstance(value, tuple | list) or len(value) != 2 or not isinstance(value[0], str):
        raise TypeError(f"{name} must be a (host, port) pair, got {value!r}")
    if not value[0]:
        raise ValueError(f"{name} must name a host, got {value!r}")
    return value[0], check_count(value[1], f"{name} port", maximum=65535)


def check_key(value: object, name: str) -> bytes:
    """Return ``value`` as a secret key: bytes, at least 16 of them.

    Parameters
    ----------
    value : bytes
        The argument to check (``bytes``, ``bytearray`` or ``memoryview``).
    name : str
        The argument's name, for the error message (the key itself is never shown).

    Returns
    -------
    bytes

    Raises
    ------
    TypeError
        If ``value`` is not bytes-like (a str: encode it, or better, use ``secrets``).
    ValueError
        If it is shorter than 16 bytes.
    """
    if not isinstance(value, bytes | bytearray | memoryview):
        raise TypeError(f"{name} must be bytes (secrets.token_bytes(32)), got a "
                        f"{type(value).__qualname__}")
    key = bytes(value)
    if len(key) < 16:
        raise ValueError(f"{name} must be at least 16 bytes, got {len(key)}")
    return key


def check_small_json(value: object, name: str, max_bytes: int) -> str:
    """Return ``value`` as compact JSON text of at most ``max_bytes`` bytes.

    What a peer receives is this text decoded, so the host should apply the decoded value
    too (a tuple comes back a list, an ``IntEnum`` an int).

    Parameters
    ----------
    value : object
        The argument to check: anything ``json.dumps`` encodes, without NaN or infinity.
    name : str
        The argument's name, for the error message.
    max_bytes : int
        The largest encoding taken.

    Returns
    -------
    str
        ``json.dumps(value, separators=(",", ":"), allow_nan=False)`` (ASCII).

    Raises
    ------
    TypeError
        If ``value`` holds something JSON has no form for (a set, an object).
    ValueError
        If it holds NaN or an infinity, is nested too deep, or encodes to more than
        ``max_bytes`` bytes.
    """
    try:
        text = json.dumps(value, separators=(",", ":"), allow_nan=False)
    except TypeError as error:
        raise TypeError(f"{name} must be a JSON value, got {value!r} ({error})") from None
    except (ValueError, RecursionError) as error:
        raise ValueError(f"{name} must be a JSON value, got {value!r} ({error})") from None
    if len(text) > max_bytes:
        raise ValueError(f"{name} must encode to at most {max_bytes} bytes of JSON, got "
                         f"{len(text)} bytes")
    return text


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
