"""The panel's messages: what a page may send, checked against its schema before anything moves.

A message is one JSON object with an ``op`` and that op's fields, no others. Every check runs
before the panel writes a key or queues a seek, so a refused message changes nothing; a
refusal is a :class:`Refusal` (its reason names the field and the value), counted by the
panel and shown on the page, never raised into a frame. No asyncio and no aiohttp here: the
rules are plain functions, tested on their own.
"""

from __future__ import annotations

import collections
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from time import monotonic
from typing import Any

__all__ = ["MAX_MESSAGE_BYTES", "MAX_MESSAGES_PER_SECOND", "MAX_STEPS", "MAX_LOCKSTEP_STEPS",
           "MODES", "SPEED_MAX", "SPEED_MIN", "Command", "RateLimit", "Refusal", "parse"]

MAX_MESSAGE_BYTES = 64 * 1024
"""The largest message a page may send, in bytes (its UTF-8 text)."""

MAX_MESSAGES_PER_SECOND = 100
"""The most messages one page may send in any one second; the rest are refused."""

SPEED_MIN = 1.0 / 16.0
"""The least speed a page may ask for: the slider's left end (the exact entry's bound too)."""

SPEED_MAX = 16.0
"""The greatest speed a page may ask for: the slider's right end (and the exact entry's)."""

MAX_LOCKSTEP_STEPS = 1000
"""The most quanta per frame a page may ask for in lockstep."""

MAX_STEPS = 1000
"""The most steps one ``step`` message may ask for."""

MODES = ("live", "lockstep", "stepping")
"""The modes a page may choose; pausing is the ``paused`` control, replay is the scrub bar's."""


class Refusal(ValueError):
    """A message the panel refused, and why (the field and the value)."""


@dataclass(frozen=True, slots=True)
class Command:
    """A checked message: its op and its value (a float, bool, str or int, by op)."""

    op: str
    value: Any


_SHOWN = 60   # characters of a refused value a reason quotes (it is sent to every page)


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "..."


def _number(value: object, field: str, low: float, high: float) -> float:
    # bool is an int to Python, but a page that sends true for a speed has a bug to hear of.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Refusal(f"{field} must be a number, got {_show(value)}")
    if not math.isfinite(value):
        raise Refusal(f"{field} must be finite, got {_show(value)}")
    if not low <= value <= high:
        raise Refusal(f"{field} must be from {low:g} to {high:g}, got {_show(value)}")
    return float(value)


def _integer(value: object, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Refusal(f"{field} must be an integer, got {_show(value)}")
    if not low <= value <= high:
        raise Refusal(f"{field} must be from {low} to {high}, got {_show(value)}")
    return value


def _boolean(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise Refusal(f"{field} must be true or false, got {_show(value)}")
    return value


def _mode(value: object, field: str) -> str:
    if value not in MODES or not isinstance(value, str):
        raise Refusal(f"{field} must be one of {', '.join(MODES)}, got {_show(value)}")
    return value


# op -> (the field holding its value, its check, whether the field may be left out).
_SCHEMA: dict[str, tuple[str, Callable[[object, str], object], bool]] = {
    "speed": ("value", lambda v, f: _number(v, f, SPEED_MIN, SPEED_MAX), False),
    "paused": ("value", _boolean, False),
    "mode": ("value", _mode, False),
    "lockstep_steps": ("value", lambda v, f: _integer(v, f, 1, MAX_LOCKSTEP_STEPS), False),
    "step": ("count", lambda v, f: _integer(v, f, 1, MAX_STEPS), True),
    "seek": ("tick", lambda v, f: _integer(v, f, 0, 2**62), False),
}


def _refuse_constant(name: str) -> float:
    raise Refusal(f"{name} is not a JSON number")


def parse(text: str | bytes) -> Command:
    """Check one message from a page and return it as a :class:`Command`.

    Parameters
    ----------
    text : str or bytes
        The message as received.

    Returns
    -------
    Command

    Raises
    ------
    Refusal
        If it is over ``MAX_MESSAGE_BYTES``, not UTF-8 JSON, not an object, has an unknown
        ``op`` or key, a value of the wrong type, NaN or an infinity, or a value out of range.
        A seek's tick is checked against the recording by the panel, which knows it.
    """
    size = len(text.encode() if isinstance(text, str) else text)
    if size > MAX_MESSAGE_BYTES:
        raise Refusal(f"the message is {size} bytes, over the {MAX_MESSAGE_BYTES}-byte limit")
    try:
        # NaN and Infinity are not JSON; Python's reader takes them unless told not to.
        message = json.loads(text, parse_constant=_refuse_constant)
    except Refusal:
        raise
    except (ValueError, RecursionError) as error:   # UnicodeDecodeError is a ValueError
        raise Refusal(f"the message is not JSON: {error}") from None
    if not isinstance(message, dict):
        raise Refusal(f"the message must be a JSON object, got {type(message).__name__}")
    op = message.get("op")
    if not isinstance(op, str) or op not in _SCHEMA:
        raise Refusal(f"op must be one of {', '.join(_SCHEMA)}, got {_show(op)}")
    field, check, optional = _SCHEMA[op]
    unknown = sorted(set(message) - {"op", field})
    if unknown:
        raise Refusal(f"unknown keys for op {op!r}: {_show(', '.join(map(repr, unknown)))}")
    if field not in message:
        if not optional:
            raise Refusal(f"op {op!r} needs {field!r}")
        return Command(op, 1)
    return Command(op, check(message[field], field))


class RateLimit:
    """At most ``limit`` events in any ``window`` seconds: a sliding window of timestamps.

    Parameters
    ----------
    limit : int
        Events allowed per window.
    window : float
        The window in seconds.
    clock : callable
        The time source; ``time.monotonic`` (a test passes its own).
    """

    def __init__(self, limit: int = MAX_MESSAGES_PER_SECOND, window: float = 1.0,
                 clock: Callable[[], float] = monotonic) -> None:
        self._limit = limit
        self._window = window
        self._clock = clock
        self._times: collections.deque[float] = collections.deque()

    def allow(self) -> bool:
        """Whether one more event fits; a refused event does not count toward the limit."""
        now = self._clock()
        times = self._times
        while times and now - times[0] >= self._window:
            times.popleft()
        if len(times) >= self._limit:
            return False
        times.append(now)
        return True
