"""A batch's runs as records: run in a worker, sent back pickled, written as exact JSON lines.

A record is one line of JSON: a completed run's result or a failed run (:class:`FailedRun`).

A line is a JSON object whose first members are always, in this order, ``seed``,
``status`` (``"completed"`` or ``"failed"``), ``scenario`` (``"module:QualifiedName"``),
``options`` (the keyword arguments given to ``simulate``) and ``version`` (of this format,
now 1), so a resumed batch reads the seeds already done without parsing whole records.
A completed run then has ``termination_type`` (its value, e.g. ``"scenario complete"``),
``termination_reason``, ``run_seed``, ``rejections``, ``rejection_reasons``, ``steps``,
``dt``, ``records_final``, ``records_initial``, ``records`` (name -> ``[[step, value], ...]``),
``trajectory`` and ``actions``; a failed run has ``error_type``, ``message`` and
``traceback``.

Values are exact: a float is written as its ``repr`` (which reads back to the same float)
and everything JSON has no word for is tagged, so decoding gives an equal value of the
same shape (a tuple stays a tuple):

- ``{"$tuple": [...]}``; ``{"$float": "nan"}`` (and ``"inf"``, ``"-inf"``): the file
  stays strict JSON, which has no NaN (pandas and pyarrow would take one, stricter
  readers do not);
- ``{"$dict": [[key, value], ...]}``: a dict with a key that is not a string or starts
  with ``$``; any other dict is a plain JSON object;
- ``{"$enum": "module:Name", "name": "MEMBER"}``;
- ``{"$dataclass": "module:Name", field: value, ...}``: rebuilt with its constructor from
  its ``init`` fields (``Throttle(value=0.5)`` is ``{"$dataclass":
  "cvcclock.scenario:Throttle", "value": 0.5}``);
- ``{"$pickle": "<base64>"}``: anything else that pickles (a numpy array, a set).

A subclass of int, float or str that is not an enum (``numpy.float64``) is written as the
plain number or string, and any other mapping as a dict: it reads back equal (``==``) but
as the base type. Decoding imports
the modules named by ``$enum`` and ``$dataclass`` tags and unpickles ``$pickle`` values:
read only results files you trust, as with any pickle.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import importlib
import json
import math
import pickle
import re
import traceback
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeAlias

from cvcclock.scenario.results import SimulationResult, TerminationType
from cvcclock.scenario.runner import simulate
from cvcclock.scenario.scenarios import Scenario

__all__ = ["FORMAT_VERSION", "BatchResult", "FailedRun", "RecordHead", "decode_record",
           "encode_record", "options_text", "read_head", "run_records", "scenario_reference"]

FORMAT_VERSION = 1
"""The version of the line format, written in every line's ``version``."""


@dataclasses.dataclass(frozen=True)
class FailedRun:
    """A run that raised: what a batch gives for its seed instead of a result.

    Attributes
    ----------
    seed : int
        The seed given to ``simulate``.
    error_type : str
        The exception's class: its name for a builtin (``"ZeroDivisionError"``), else
        ``module.QualifiedName`` (``"cvcclock.scenario.errors.TooManyRejections"``).
    message : str
        ``str()`` of the exception.
    traceback : str
        The formatted traceback, as Python prints it.
    """

    seed: int
    error_type: str
    message: str
    traceback: str

    @classmethod
    def from_exception(cls, seed: int, error: BaseException) -> FailedRun:
        """The failed run of ``seed`` that raised ``error`` (with its traceback).

        Parameters
        ----------
        seed : int
            The run's seed.
        error : BaseException
            What the run raised.

        Returns
        -------
        FailedRun
        """
        kind = type(error)
        name = (kind.__qualname__ if kind.__module__ == "builtins"
                else f"{kind.__module__}.{kind.__qualname__}")
        return cls(seed, name, str(error), "".join(traceback.format_exception(error)))


BatchResult: TypeAlias = "SimulationResult | FailedRun"
"""What a batch gives per seed: the run's result, or how it failed."""


def scenario_reference(scenario: Scenario) -> str:
    """``"module:QualifiedName"`` of the scenario's class: how results files name it.

    Parameters
    ----------
    scenario : Scenario

    Returns
    -------
    str
    """
    kind = type(scenario)
    return f"{kind.__module__}:{kind.__qualname__}"


# -- the worker's side: runs to records ----------------------------------------------------


def run_records(scenario: Scenario, seeds: Iterable[int], options: Mapping[str, Any],
                reference: str | None) -> tuple[list[bytes], list[str] | None]:
    """Run ``simulate(scenario, seed=seed, **options)`` for each seed, ready to send back.

    A run that raises becomes a :class:`FailedRun`, and so does one whose result cannot be
    pickled (to send it) or, when lines are asked for, written; the other runs go on.

    Parameters
    ----------
    scenario : Scenario
    seeds : iterable of int
    options : mapping
        Keyword arguments for ``simulate``: JSON numbers and booleans only, written in every
        line as given (give them in a fixed key order).
    reference : str or None
        The scenario's ``"module:QualifiedName"`` to write lines, or None for no lines.

    Returns
    -------
    (list of bytes, list of str or None)
        Each seed's result pickled, and its line (without a line end), in seed order.
    """
    results: list[bytes] = []
    lines: list[str] = []
    for seed in seeds:
        result: SimulationResult | FailedRun
        try:
            result = simulate(scenario, seed=seed, **options)
        except Exception as e:  # noqa: BLE001 -- a failing run is a result, not the batch's end
            result = FailedRun.from_exception(seed, e)
        try:
            data, line = _pack(result, reference, options)
        except Exception as e:  # noqa: BLE001 -- the same: this run's result cannot be kept
            data, line = _pack(FailedRun.from_exception(seed, e), reference, options)
        results.append(data)
        if line is not None:
            lines.append(line)
    return results, None if reference is None else lines


def _pack(result: SimulationResult | FailedRun, reference: str | None,
          options: Mapping[str, Any]) -> tuple[bytes, str | None]:
    try:
        data = pickle.dumps(result)
    except Exception as e:
        raise TypeError(
            f"the run's result cannot be pickled to send it back from the worker: {e}") from e
    return data, None if reference is None else encode_record(result, reference, options)


def encode_record(result: SimulationResult | FailedRun, scenario: str,
                  options: Mapping[str, Any]) -> str:
    """The line of a result.

    Parameters
    ----------
    result : SimulationResult or FailedRun
    scenario : str
        ``"module:QualifiedName"``, as :func:`scenario_reference` gives it.
    options : mapping
        The ``simulate`` keyword arguments of the batch.

    Returns
    -------
    str
        Without a line end.

    Raises
    ------
    TypeError
        If a value in the result can be neither written as JSON nor pickled.
    """
    head = {"scenario": scenario, "options": dict(options), "version": FORMAT_VERSION}
    if isinstance(result, FailedRun):
        return _line(result.seed, "failed", head, _failed_body(result))
    return _line(result.seed, "completed", head, _completed_body(result))


def options_text(options: Mapping[str, Any]) -> str:
    """The JSON text every line writes for ``options`` (what :class:`RecordHead` holds).

    Parameters
    ----------
    options : mapping

    Returns
    -------
    str
    """
    return _dumps(_tag_non_finite(dict(options)))   # time_limit=math.inf, as lines write it


def _line(seed: int, status: str, head: dict[str, Any], body: dict[str, Any]) -> str:
    record = {"seed": seed, "status": status, **head, **body}
    try:
        return _dumps(record)
    except ValueError:          # json refuses NaN and infinities (allow_nan=False): tag them
        return _dumps(_tag_non_finite(record))


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, allow_nan=False, ensure_ascii=False, separators=(",", ":"))


def _tag_non_finite(tree: Any) -> Any:
    kind = type(tree)
    if kind is float:
        return tree if math.isfinite(tree) else {"$float": repr(tree)}
    if kind is list:
        return [_tag_non_finite(x) for x in tree]
    if kind is dict:
        return {k: _tag_non_finite(x) for k, x in tree.items()}
    return tree


def _completed_body(r: SimulationResult) -> dict[str, Any]:
    value, named = _ENCODER.value, _ENCODER.named
    return {
        "termination_type": r.termination_type.value,
        "termination_reason": r.termination_reason,
        "run_seed": r.run_seed,
        "rejections": r.rejections,
        "rejection_reasons": list(r.rejection_reasons),
        "steps": r.steps,
        "dt": r.dt,
        "records_final": named(r.records_final, value),
        "records_initial": named(r.records_initial, value),
        "records": named(r.records, _ENCODER.pairs),
        "trajectory": [named(step, value) for step in r.trajectory],
        "actions": [named(step, _ENCODER.items) for step in r.actions],
    }


def _failed_body(f: FailedRun) -> dict[str, Any]:
    return {"error_type": f.error_type, "message": f.message, "traceback": f.traceback}


_PLAIN = frozenset({str, int, float, bool, type(None)})


class _Encoder:
    """Values to JSON-ready trees. The exact JSON types pass through untouched (the common
    case, kept fast); the encoder for any other type is made once and cached."""

    def __init__(self) -> None:
        self._by_type: dict[type, Callable[[Any], Any]] = {
            dict: self._dict, list: self.items, tuple: self._tuple}

    def value(self, v: Any) -> Any:
        kind = type(v)
        if kind in _PLAIN:
            return v
        encode = self._by_type.get(kind)
        if encode is None:
            encode = self._by_type[kind] = self._for_type(kind)
        return encode(v)

    def named(self, d: Mapping[Any, Any], encode: Callable[[Any], Any]) -> Any:
        """A mapping whose values ``encode`` writes: a JSON object, or ``$dict`` pairs."""
        for k in d:
            if type(k) is not str or k[:1] == "$":
                return {"$dict": [[self.value(k), encode(v)] for k, v in d.items()]}
        return {k: encode(v) for k, v in d.items()}

    def items(self, seq: Iterable[Any]) -> list[Any]:
        value = self.value
        return [x if type(x) in _PLAIN else value(x) for x in seq]

    def pairs(self, seq: Iterable[tuple[int, Any]]) -> list[list[Any]]:
        value = self.value
        return [[step, x if type(x) in _PLAIN else value(x)] for step, x in seq]

    def _dict(self, d: Mapping[Any, Any]) -> Any:
        return self.named(d, self.value)

    def _tuple(self, t: tuple[Any, ...]) -> dict[str, Any]:
        return {"$tuple": self.items(t)}

    def _for_type(self, kind: type) -> Callable[[Any], Any]:
        if issubclass(kind, enum.Enum):
            ref = f"{kind.__module__}:{kind.__qualname__}"
            return lambda v: {"$enum": ref, "name": v.name}
        if dataclasses.is_dataclass(kind):
            return self._dataclass_encoder(kind)
        for base in (float, int, str):
            if issubclass(kind, base):
                return base
        if issubclass(kind, Mapping):       # a simulator's properties may be any mapping
            return self._dict
        return _pickled

    def _dataclass_encoder(self, kind: type) -> Callable[[Any], Any]:
        ref = f"{kind.__module__}:{kind.__qualname__}"
        names = [f.name for f in dataclasses.fields(kind) if f.init]

        def encode(v: Any) -> dict[str, Any]:
            d: dict[str, Any] = {"$dataclass": ref}
            for name in names:
                d[name] = self.value(getattr(v, name))
            return d
        return encode


def _pickled(v: Any) -> dict[str, str]:
    try:
        data = pickle.dumps(v)
    except Exception as e:
        raise TypeError(f"a value of type {type(v).__qualname__} can be neither written as JSON "
                        f"nor pickled, so the run's result cannot be saved: {e}") from e
    return {"$pickle": base64.b64encode(data).decode("ascii")}


_ENCODER = _Encoder()


# -- the reader's side: lines to results ----------------------------------------------------


_HEAD = re.compile(rb'\{"seed":(-?\d+),"status":"(completed|failed)",'
                   rb'"scenario":("(?:[^"\\]|\\.)*"),'
                   rb'"options":(\{(?:[^{}]|\{[^{}]*\})*\}),"version":(\d+),')


@dataclasses.dataclass(frozen=True)
class RecordHead:
    """The first members of a line: enough to resume a batch without decoding the record.

    Attributes
    ----------
    seed : int
    failed : bool
    scenario : str
        ``"module:QualifiedName"``.
    options : str
        The ``options`` object's JSON text, as written.
    """

    seed: int
    failed: bool
    scenario: str
    options: str


def read_head(line: bytes) -> RecordHead | None:
    """The head of a line, or None if the line does not start like a record of this format.

    Parameters
    ----------
    line : bytes

    Returns
    -------
    RecordHead or None
    """
    m = _HEAD.match(line)
    if m is None or int(m[5]) != FORMAT_VERSION:
        return None
    return RecordHead(int(m[1]), m[2] == b"failed", json.loads(m[3]), m[4].decode())


def decode_record(line: str | bytes) -> SimulationResult | FailedRun:
    """The result a line holds, equal (``==``) to the one that was written.

    Parameters
    ----------
    line : str or bytes
        One line of a results file, with or without its line end.

    Returns
    -------
    SimulationResult or FailedRun

    Raises
    ------
    ValueError
        If the line is not a complete record of this format.
    """
    try:
        d = json.loads(line, object_hook=_untag)
        if d["version"] != FORMAT_VERSION:
            raise ValueError(f"format version {d['version']!r}, this reader knows {FORMAT_VERSION}")
        if d["status"] == "failed":
            return FailedRun(d["seed"], d["error_type"], d["message"], d["traceback"])
        return SimulationResult(
            trajectory=tuple(d["trajectory"]),
            actions=tuple({name: tuple(acts) for name, acts in step.items()}
                          for step in d["actions"]),
            records={name: tuple(map(tuple, pairs)) for name, pairs in d["records"].items()},
            records_initial=d["records_initial"],
            records_final=d["records_final"],
            termination_type=TerminationType(d["termination_type"]),
            termination_reason=d["termination_reason"],
            seed=d["seed"],
            run_seed=d["run_seed"],
            rejections=d["rejections"],
            rejection_reasons=tuple(d["rejection_reasons"]),
            dt=d["dt"],
        )
    except (KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"not a complete results record: {type(e).__name__}: {e}") from e


def _untag(d: dict[str, Any]) -> Any:
    for key in d:        # a tag is always the first key; a plain object has no key with "$"
        if key[:1] != "$":
            return d
        if key == "$tuple":
            return tuple(d[key])
        if key == "$dataclass":
            kind = _named_class(d.pop(key))
            return kind(**d)
        if key == "$float":
            return math.nan if d[key] == "nan" else float(d[key])
        if key == "$dict":
            return {k: v for k, v in d[key]}
        if key == "$enum":
            return _named_class(d[key])[d["name"]]
        if key == "$pickle":
            return pickle.loads(base64.b64decode(d[key]))
        raise ValueError(f"unknown tag {key!r}")
    return d


_CLASSES: dict[str, Any] = {}


def _named_class(ref: str) -> Any:
    kind = _CLASSES.get(ref)
    if kind is None:
        module, _, qualname = ref.partition(":")
        kind = importlib.import_module(module)
        for part in qualname.split("."):
            kind = getattr(kind, part)
        _CLASSES[ref] = kind
    return kind
