"""The input trace: what a user did, stamped by tick, in a text file a person can read and diff.

The file is UTF-8 text, one JSON object a line, each line ending in ``\\n``:

- line 1, the header::

    {"format": "cvcclock-trace", "version": 2, "fixed_dt": 0.01, "dt": 0.06,
     "start_tick": 0, "seed": 7, "cvcclock": "0.1.0", "metadata": {}}

  (on one line). ``version`` is the format version; a file with a newer one is refused,
  never guessed at. ``dt`` is the recorded world's step, a whole number of quanta.
- an input, given while ``clock.tick`` was ``tick``, applied before the world's first
  step due at a greater tick: ``{"tick": 47, "input": "kick", "value": 1.5}``;
- a state hash of the world right after its step due at ``tick``:
  ``{"tick": 48, "hash": "6f1e..."}``;
- the last line, the tick the recording reached and the sha256 of the rest:
  ``{"end": 600, "sha256": "9f86d0..."}``. The digest is of the exact bytes of every line
  before the end line, each with its ``\\n`` (the header included), followed by
  ``{"end": 600}\\n``: the file as it would be without its digest, so that the end tick is
  covered too. A file without an end line was cut short; one whose digest differs was
  changed after it was written (an edit that stays valid JSON, a line removed), and is
  refused naming the end line. The digest detects a change, not who made it: it is no
  signature, and whoever edits a file on purpose can write its digest again (as ``save``
  does for a trace changed in Python).

Version 1, written by cvcclock before the body digest, is the same but for its end line,
``{"end": 600}``, and is read as before: ``header.version`` tells a reader it is 1, so that
nothing vouches for its body (``cvcclock replay`` reports it unverified). ``save`` always
writes the current version.

Lines are in tick order; at one tick a hash comes before the inputs (the step ran, then
the inputs stamped at its tick wait for the next step). A value is a JSON value: None,
bool, int, float (finite: JSON has no NaN or infinity), str, list, or dict with str keys.
Tuples are refused rather than read back as lists, and so are subclasses of these types
(``numpy.float64``, an ``IntEnum``): the recording applies exactly what a replay will.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple, TypeAlias, TypeVar

from cvcclock._core import WorldClock, ticks_per_step
from cvcclock._version import __version__
from cvcclock.checks import (
    MAX_TICK,
    check_callable,
    check_count,
    check_path,
    check_seconds,
    check_seed,
    check_str,
)

__all__ = ["FORMAT", "FORMAT_VERSION", "Input", "InputTrace", "JSONValue", "TraceFormatError",
           "TraceHeader", "check_json_value"]

JSONValue: TypeAlias = None | bool | int | float | str | list["JSONValue"] | dict[str, "JSONValue"]

T = TypeVar("T")

FORMAT = "cvcclock-trace"
FORMAT_VERSION = 2
"""The trace format this cvcclock writes: 2 added the body's sha256 to the end line."""

# Deep enough for any real input, shallow enough that neither the check nor json recurses
# near Python's limit.
_MAX_DEPTH = 100
_HEADER_KEYS = ("format", "version", "fixed_dt", "dt", "start_tick", "seed", "cvcclock",
                "metadata")


class TraceFormatError(ValueError):
    """A trace file that cannot be read: cut short, corrupted, or from a newer cvcclock.

    Attributes
    ----------
    line : int
        The 1-based line where the problem is.
    """

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


class Input(NamedTuple):
    """One input: given while ``clock.tick == tick``, named ``name``, carrying ``value``."""

    tick: int
    name: str
    value: JSONValue


def check_json_value(value: object, name: str) -> JSONValue:
    """``value`` as the trace will store it, or an error naming the input.

    Parameters
    ----------
    value : object
        The input's value.
    name : str
        The input's name, for the message.

    Returns
    -------
    JSONValue
        A deep copy of ``value`` (so later changes to the caller's list or dict do not
        reach the recording).

    Raises
    ------
    TypeError
        If ``value`` holds anything but None, bool, int, float, str, list and dict with str
        keys, exactly those types (a tuple, a set, ``numpy.float64`` are refused).
    ValueError
        If it holds a NaN or infinite float, or is nested more than 100 deep.
    """
    return _json_copy(value, name, "value", 0)


def _json_copy(value: object, name: str, where: str, depth: int) -> JSONValue:
    if depth > _MAX_DEPTH:
        raise ValueError(f"input {name!r}: {where} is nested more than {_MAX_DEPTH} deep")
    kind = type(value)   # exact types: a subclass may behave otherwise once read back
    if value is None or (isinstance(value, bool | int | str) and kind in (bool, int, str)):
        return value
    if isinstance(value, float) and kind is float:
        if not math.isfinite(value):
            raise ValueError(f"input {name!r}: {where} is {value!r}, which JSON cannot hold; "
                             "a trace stores finite floats only")
        return value
    if isinstance(value, list) and kind is list:
        return [_json_copy(v, name, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, dict) and kind is dict:
        out: dict[str, JSONValue] = {}
        for k, v in value.items():
            if type(k) is not str:
                raise TypeError(f"input {name!r}: {where} has the key {k!r}; JSON object keys "
                                "are str")
            out[k] = _json_copy(v, name, f"{where}[{k!r}]", depth + 1)
        return out
    hint = "; pass a list (a trace would load a tuple back as a list)" if kind is tuple else ""
    raise TypeError(f"input {name!r}: {where} is {value!r} of type {kind.__qualname__}, not a "
                    f"JSON value (None, bool, int, float, str, list, dict with str keys){hint}")


@dataclasses.dataclass(frozen=True)
class TraceHeader:
    """The first line of a trace: what the recording ran on.

    Parameters
    ----------
    fixed_dt : float
        The clock's quantum in seconds.
    dt : float
        The recorded world's step in seconds, a whole number of quanta.
    start_tick : int
        The clock's tick when the recording started.
    seed : int
        The run's seed (for ``cvcclock.seeding.RandomStreams``), a non-negative int of
        any size.
    cvcclock : str
        The version of cvcclock that recorded it.
    metadata : mapping
        Free-form JSON object for the host (a world's name, a user, a level).
    version : int
        The format version of the file it was read from, 1 to ``FORMAT_VERSION`` (the
        current one for a header made in Python). It says how the file was written, not
        what was recorded, so headers that differ only in it are equal; ``save`` writes the
        current version whatever it holds.

    Raises
    ------
    TypeError, ValueError
        For a field of the wrong type or out of range, naming it.
    """

    fixed_dt: float
    dt: float
    start_tick: int = 0
    seed: int = 0
    cvcclock: str = __version__
    metadata: Mapping[str, JSONValue] = dataclasses.field(default_factory=dict)
    version: int = dataclasses.field(default=FORMAT_VERSION, compare=False)

    def __post_init__(self) -> None:
        fixed_dt = check_seconds(self.fixed_dt, "fixed_dt", minimum=1e-6)
        dt = check_seconds(self.dt, "dt")
        ticks_per_step(dt, fixed_dt)
        check_count(self.start_tick, "start_tick")
        check_seed(self.seed)
        check_str(self.cvcclock, "cvcclock")
        _check_version(self.version)
        if not isinstance(self.metadata, Mapping):
            raise TypeError(f"metadata must be a mapping, got {self.metadata!r}")
        metadata = check_json_value(dict(self.metadata), "metadata")
        for name, value in (("fixed_dt", fixed_dt), ("dt", dt), ("metadata", metadata)):
            object.__setattr__(self, name, value)

    @property
    def period(self) -> int:
        """The world's step in quanta: ``ticks_per_step(dt, fixed_dt)``."""
        return ticks_per_step(self.dt, self.fixed_dt)

    def check_fits(self, clock: WorldClock, dt: float) -> None:
        """Refuse to replay onto a clock or a world step other than the recording's.

        Parameters
        ----------
        clock : WorldClock
            The clock of the replay.
        dt : float
            The replayed world's step in seconds.

        Raises
        ------
        ValueError
            If ``clock.fixed_dt`` or ``dt`` differs from the recording's; the message names
            both pairs.
        """
        if clock.fixed_dt != self.fixed_dt or dt != self.dt:
            raise ValueError(
                f"the trace was recorded with fixed_dt={self.fixed_dt!r} and dt={self.dt!r}; "
                f"this clock has fixed_dt={clock.fixed_dt!r} and the world dt={dt!r}")


@dataclasses.dataclass(frozen=True)
class InputTrace:
    """A recorded run: its header, its inputs in order, its state hashes and its end.

    Parameters
    ----------
    header : TraceHeader
        What the recording ran on.
    inputs : sequence of Input
        The inputs, in tick order (inputs at one tick in the order given).
    hashes : mapping of int to str
        The world's state hash after its step due at each tick; every tick a multiple of
        the world's period.
    end_tick : int
        The tick the recording reached, at or after every input and hash.

    Raises
    ------
    TypeError, ValueError
        For inputs out of order or not JSON, a hash at a tick no step falls due at, or an
        end before the last entry.
    """

    header: TraceHeader
    inputs: tuple[Input, ...]
    hashes: Mapping[int, str]
    end_tick: int

    def __post_init__(self) -> None:
        if not isinstance(self.header, TraceHeader):
            raise TypeError(f"header must be a TraceHeader, got {self.header!r}")
        inputs = tuple(_checked_input(i, entry) for i, entry in enumerate(self.inputs))
        last = self.header.start_tick
        for i, entry in enumerate(inputs):
            if entry.tick < last:
                raise ValueError(f"inputs[{i}] is at tick {entry.tick}, before tick {last}: "
                                 "inputs are in tick order from the start tick")
            last = entry.tick
        hashes = {}
        for tick, digest in dict(self.hashes).items():
            _check_hash(tick, digest, self.header, f"hashes[{tick!r}]")
            hashes[tick] = digest
        end = check_count(self.end_tick, "end_tick", minimum=max([last, *hashes], default=last))
        for name, value in (("inputs", inputs), ("hashes", dict(sorted(hashes.items()))),
                            ("end_tick", end)):
            object.__setattr__(self, name, value)

    # -- writing -------------------------------------------------------------------------

    def lines(self) -> Iterator[str]:
        """The file's lines in the current format, each without its ``\\n``: the header,
        the entries, and the end line with the sha256 of the lines before it."""
        body = hashlib.sha256()
        for line in self._body_lines():
            body.update(line.encode("ascii") + b"\n")
            yield line
        yield _dump({"end": self.end_tick, "sha256": _digest(body, self.end_tick)})

    def _body_lines(self) -> Iterator[str]:
        yield _dump({"format": FORMAT, "version": FORMAT_VERSION,
                     "fixed_dt": self.header.fixed_dt, "dt": self.header.dt,
                     "start_tick": self.header.start_tick, "seed": self.header.seed,
                     "cvcclock": self.header.cvcclock, "metadata": self.header.metadata})
        hashes = iter(self.hashes.items())
        pending = next(hashes, None)
        for entry in self.inputs:
            while pending is not None and pending[0] <= entry.tick:
                yield _dump({"tick": pending[0], "hash": pending[1]})
                pending = next(hashes, None)
            yield _dump({"tick": entry.tick, "input": entry.name, "value": entry.value})
        while pending is not None:
            yield _dump({"tick": pending[0], "hash": pending[1]})
            pending = next(hashes, None)

    def save(self, path: str | os.PathLike[str]) -> int:
        """Write the trace to ``path`` (replacing it); return the bytes written.

        Parameters
        ----------
        path : str or path-like
            The file to write.

        Returns
        -------
        int
            The file's size in bytes.
        """
        path = check_path(path, "path")
        data = "".join(line + "\n" for line in self.lines()).encode("utf-8")
        with open(path, "wb") as file:
            file.write(data)
        return len(data)

    # -- reading -------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | os.PathLike[str], *,
             check_input: Callable[[str, JSONValue], object] | None = None,
             max_bytes: int | None = None) -> InputTrace:
        """Read a trace written by ``save`` (or by a cvcclock that wrote format version 1).

        Parameters
        ----------
        path : str or path-like
            The file to read.
        check_input : callable, optional
            ``check_input(name, value)``, called on each input as it is read, to refuse what
            the world the trace is for cannot take (a kick that is a string, a speed of 0):
            its TypeError or ValueError becomes a ``TraceFormatError`` naming the line.
        max_bytes : int, optional
            The longest file to read; no more than ``max_bytes + 1`` bytes are read, so a
            device or pipe that never ends (``/dev/zero``) is refused in bounded time and
            memory. None: no bound.

        Returns
        -------
        InputTrace

        Raises
        ------
        TraceFormatError
            If the file is cut short, corrupted, changed after it was written (its body's
            sha256 is not the end line's), of a newer format version, holds an input
            ``check_input`` refuses, or is longer than ``max_bytes``; the message names the
            file and the line.
        OSError
            If the file cannot be opened.
        """
        path = check_path(path, "path")
        check_callable(check_input, "check_input", optional=True)
        limit = None if max_bytes is None else check_count(max_bytes, "max_bytes")
        with open(path, "rb") as file:
            data = file.read() if limit is None else file.read(limit + 1)
        if limit is not None and len(data) > limit:
            line = data.count(b"\n", 0, limit) + 1   # the line of the first byte too many
            raise TraceFormatError(f"{path}, line {line}: the file is longer than "
                                   f"max_bytes={limit} bytes", line)
        try:
            return cls.from_lines(data.split(b"\n"), check_input=check_input)
        except TraceFormatError as error:
            raise TraceFormatError(f"{path}, {error}", error.line) from None

    @classmethod
    def from_lines(cls, lines: Sequence[bytes | str], *,
                   check_input: Callable[[str, JSONValue], object] | None = None
                   ) -> InputTrace:
        """Parse the lines of a trace file (as ``data.split(b"\\n")``: the last one empty).

        Parameters
        ----------
        lines : sequence of bytes or str
            The file's lines without their ``\\n``; a complete file ends with ``\\n``, so
            its last item is empty. A str line is taken as its UTF-8 bytes.
        check_input : callable, optional
            As for ``load``.

        Returns
        -------
        InputTrace

        Raises
        ------
        TraceFormatError
            Naming the line and what is wrong with it.
        """
        complete, tail = lines[:-1], lines[-1] if lines else b""
        if not complete and not tail:
            raise TraceFormatError("line 1: no header: the file is empty", 1)
        if not complete:
            raise TraceFormatError("line 1: no end-of-line: the file was cut short", 1)
        check_callable(check_input, "check_input", optional=True)
        header = _parse(1, _header_from, _read_object(complete[0], 1))
        body = hashlib.sha256()
        body.update(_line_bytes(complete[0]))
        inputs: list[Input] = []
        hashes: dict[int, str] = {}
        last = header.start_tick
        for number, raw in enumerate(complete[1:], start=2):
            obj = _read_object(raw, number)
            if "end" in obj:
                end = _parse(number, _end_from, obj, last, header.version, body)
                if number != len(complete) or tail:
                    raise TraceFormatError(f"line {number + 1}: text after the end line",
                                           number + 1)
                return _parse(number, cls, header, tuple(inputs), hashes, end)
            body.update(_line_bytes(raw))
            tick = _parse(number, _tick_from, obj, last)
            if "hash" in obj:
                hashes[tick] = _parse(number, _hash_from, obj, header, hashes)
            else:
                entry = _parse(number, _input_from, obj)
                if check_input is not None:
                    _parse(number, check_input, entry.name, entry.value)
                inputs.append(entry)
            last = tick
        number = len(complete) + 1
        if tail:
            raise TraceFormatError(f"line {number}: no end-of-line: the file was cut short",
                                   number)
        raise TraceFormatError(f"line {number}: the file ends without its end line "
                               '({"end": tick}): it was cut short', number)


def _digest(body: Any, end: int) -> str:
    """The end line's sha256: of the ``body`` so far, then ``{"end": end}\\n``."""
    whole = body.copy()
    whole.update(_dump({"end": end}).encode("ascii") + b"\n")
    return str(whole.hexdigest())


def _line_bytes(raw: bytes | str) -> bytes:
    """A line as the file holds it, with its ``\\n`` (a str line was read as UTF-8)."""
    return (raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw) + b"\n"


def _dump(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=True, allow_nan=False)


def _checked_input(i: int, entry: object) -> Input:
    if not isinstance(entry, tuple) or len(entry) != 3:
        raise TypeError(f"inputs[{i}] must be an Input(tick, name, value), got {entry!r}")
    tick, name, value = entry
    check_str(name, f"inputs[{i}].name")
    return Input(check_count(tick, f"inputs[{i}].tick"), name, check_json_value(value, name))


def _check_hash(tick: object, digest: object, header: TraceHeader, where: str) -> None:
    tick = check_count(tick, f"{where} tick")
    if not check_str(digest, where):
        raise ValueError(f"{where} must be a non-empty str, got {digest!r}")
    if tick % header.period or tick <= header.start_tick:
        raise ValueError(f"{where}: no step of dt={header.dt!r} (every {header.period} "
                         f"quanta, after tick {header.start_tick}) falls due at tick {tick}")


# -- parsing, one line at a time -------------------------------------------------------------


def _parse(number: int, read: Callable[..., T], *args: Any) -> T:
    """``read(*args)``, with a TypeError or ValueError turned into a TraceFormatError."""
    try:
        return read(*args)
    except (TypeError, ValueError) as error:
        raise TraceFormatError(f"line {number}: {error}", number) from None


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON (a trace stores finite floats only)")


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"the key {key!r} appears twice")
        seen.add(key)
    return dict(pairs)


def _read_object(raw: bytes | str, number: int) -> dict[str, Any]:
    """One line as a JSON object, or a TraceFormatError saying why not."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        obj = json.loads(text, parse_constant=_reject_constant,
                         object_pairs_hook=_no_duplicate_keys)
    except UnicodeDecodeError as error:
        raise TraceFormatError(f"line {number}: not UTF-8 text ({error.reason} at byte "
                               f"{error.start})", number) from None
    except json.JSONDecodeError as error:
        what = "an empty line" if not text.strip() else f"not JSON: {error.msg} at column " \
                                                         f"{error.colno}"
        raise TraceFormatError(f"line {number}: {what}", number) from None
    except (ValueError, RecursionError) as error:
        raise TraceFormatError(f"line {number}: {error}", number) from None
    if not isinstance(obj, dict):
        raise TraceFormatError(f"line {number}: expected a JSON object, got {text[:40]!r}",
                               number)
    return obj


def _expect_keys(obj: dict[str, Any], keys: Sequence[str], what: str) -> None:
    missing = [k for k in keys if k not in obj]
    extra = [k for k in obj if k not in keys]
    problems = ([f"missing {missing}"] if missing else []) + \
        ([f"unexpected {extra}"] if extra else [])
    if problems:
        raise ValueError(f"{what} line: {'; '.join(problems)}")


def _header_from(obj: dict[str, Any]) -> TraceHeader:
    if obj.get("format") != FORMAT:
        raise ValueError(f"not a cvcclock trace: the header's format is "
                         f"{obj.get('format')!r}, not {FORMAT!r}")
    version = _check_version(obj.get("version"))  # first: a newer format may have other keys
    _expect_keys(obj, _HEADER_KEYS, "header")
    return TraceHeader(fixed_dt=obj["fixed_dt"], dt=obj["dt"], start_tick=obj["start_tick"],
                       seed=obj["seed"], cvcclock=obj["cvcclock"], metadata=obj["metadata"],
                       version=version)


def _check_version(version: object) -> int:
    version = check_count(version, "version", minimum=1)
    if version > FORMAT_VERSION:
        raise ValueError(f"format version {version} is newer than this cvcclock {__version__} "
                         f"reads (up to {FORMAT_VERSION}); upgrade cvcclock to read it")
    return version


def _tick_from(obj: dict[str, Any], last: int) -> int:
    if "tick" not in obj:
        raise ValueError(f"expected an input, hash or end line, got the keys {list(obj)}")
    tick = check_count(obj["tick"], "tick", maximum=MAX_TICK)
    if tick < last:
        raise ValueError(f"tick {tick} is before the previous line's tick {last}: lines are "
                         "in tick order")
    return tick


def _hash_from(obj: dict[str, Any], header: TraceHeader, hashes: dict[int, str]) -> str:
    _expect_keys(obj, ("tick", "hash"), "hash")
    if obj["tick"] in hashes:
        raise ValueError(f"a second hash for tick {obj['tick']}")
    _check_hash(obj["tick"], obj["hash"], header, "hash")
    digest: str = obj["hash"]
    return digest


def _input_from(obj: dict[str, Any]) -> Input:
    _expect_keys(obj, ("tick", "input", "value"), "input")
    check_str(obj["input"], "input name")
    return Input(obj["tick"], obj["input"], check_json_value(obj["value"], obj["input"]))


def _end_from(obj: dict[str, Any], last: int, version: int, body: Any) -> int:
    if version == 1:   # written before the body digest: nothing vouches for the body
        _expect_keys(obj, ("end",), "end")
        return check_count(obj["end"], "end", minimum=last)
    _expect_keys(obj, ("end", "sha256"), "end")
    end = check_count(obj["end"], "end", minimum=last)
    recorded = check_str(obj["sha256"], "the end line's sha256")
    digest = _digest(body, end)
    if recorded != digest:
        raise ValueError(f"the trace (every line before this one, and the end tick) has the "
                         f"sha256 {digest}, not the {recorded!r} its end line records: the "
                         "file was changed after it was written")
    return end
