"""A batch's runs as records: run in a worker, sent back pickled (what is kept of them), and
written whole as exact JSON lines.

A record is one line of JSON: a completed run's result or a failed run (:class:`FailedRun`).

A line is a JSON object whose first members are always, in this order, ``seed``,
``status`` (``"completed"`` or ``"failed"``), ``scenario`` (``"module:QualifiedName"``),
``options`` (the keyword arguments given to ``simulate``), ``version`` (of this format,
now 2) and ``key`` (the rest of what decides a run: :class:`BatchKey`), so a resumed batch
reads the seeds already done, and checks that they are this batch's, without parsing whole
records. A completed run then has ``termination_type`` (its value, e.g. ``"scenario
complete"``), ``termination_reason``, ``run_seed``, ``rejections``, ``rejection_reasons``,
``steps``, ``dt``, ``records_final``, ``records_initial``, ``records`` (name -> ``[[step,
value], ...]``), ``trajectory`` and ``actions``; a failed run has ``error_type``, ``message``
and ``traceback``. The last member is ``crc``, the CRC-32 of the line's text before it (8
hex digits): a flipped byte anywhere in a record, even one that leaves valid JSON, is found
when the file is opened. Lines of version 1 (no ``key``, no ``crc``) are still read.

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
import hashlib
import importlib
import json
import math
import pickle
import re
import traceback
import types
import zlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeAlias

from cvcclock.scenario.results import SimulationResult, TerminationType
from cvcclock.scenario.runner import simulate
from cvcclock.scenario.scenarios import Scenario

__all__ = ["ALL", "FORMAT_VERSION", "BatchKey", "BatchResult", "FailedRun", "KeptResult",
           "RecordHead", "check_line", "decode_record", "encode_record", "kept", "line_bytes",
           "options_text", "read_head", "run_records", "scenario_reference"]

FORMAT_VERSION = 2
"""The version of the line format, written in every line's ``version``."""

_READS = (1, 2)
"""The versions this reader reads: 1 had no ``key`` and no ``crc``."""


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


ALL = frozenset(("records", "trajectory"))
"""Keep everything ``simulate`` returns."""


def run_records(scenario: Scenario, seeds: Iterable[int], options: Mapping[str, Any],
                key: BatchKey | None, started: Callable[[int], None] | None = None,
                keep: frozenset[str] = ALL) -> tuple[bytes, list[str] | None]:
    """Run ``simulate(scenario, seed=seed, **options)`` for each seed, ready to send back.

    A run that raises becomes a :class:`FailedRun`, and so does one whose result (what is
    kept of it) cannot be pickled to send it or, when lines are asked for, written; the
    other runs go on. The line holds the whole result; what is pickled is what ``keep``
    says the caller keeps (:func:`kept`).

    Parameters
    ----------
    scenario : Scenario
    seeds : iterable of int
    options : mapping
        Keyword arguments for ``simulate``: JSON numbers and booleans only, written in every
        line as given (give them in a fixed key order).
    key : BatchKey or None
        What decides the batch's runs, written in each line; None for no lines.
    started : callable, optional
        Called with each seed as its run starts.
    keep : frozenset of str
        What of each result is sent back beyond its summary (``check_keep``'s words).

    Returns
    -------
    (bytes, list of str or None)
        The list of the kept results, in seed order, pickled as one (so the batch's process
        loads the classes and field names once a chunk, not once a run), and each seed's
        line (without a line end).
    """
    results: list[SimulationResult | FailedRun] = []
    lines: list[str] = []
    for seed in seeds:
        if started is not None:
            started(seed)
        result: SimulationResult | FailedRun
        try:
            result = simulate(scenario, seed=seed, **options)
        except Exception as e:  # noqa: BLE001 -- a failing run is a result, not the batch's end
            result = FailedRun.from_exception(seed, e)
        try:
            line = None if key is None else encode_record(result, key)
        except Exception as e:  # noqa: BLE001 -- the same: this run's result cannot be written
            assert key is not None
            result = _unpicklable(kept(result, keep)) or FailedRun.from_exception(seed, e)
            line = encode_record(result, key)
        results.append(kept(result, keep))
        if line is not None:
            lines.append(line)
    try:
        data = pickle.dumps(results)
    except Exception:  # noqa: BLE001 -- some result cannot be pickled: each one is tried below
        data = pickle.dumps(_each_picklable(results, lines, key))
    return data, None if key is None else lines


def _each_picklable(results: list[SimulationResult | FailedRun], lines: list[str],
                    key: BatchKey | None) -> list[SimulationResult | FailedRun]:
    """The results, each that cannot be pickled replaced by its FailedRun (its line too)."""
    for i, result in enumerate(results):
        failed = _unpicklable(result)
        if failed is not None:
            results[i] = failed
            if key is not None:
                lines[i] = encode_record(failed, key)
    return results


def _unpicklable(kept_result: SimulationResult | FailedRun) -> FailedRun | None:
    """The FailedRun of a run if what is kept of it cannot be pickled, else None."""
    try:
        pickle.dumps(kept_result)
    except Exception as e:  # noqa: BLE001 -- this run's result cannot be sent back
        try:
            raise TypeError("the run's result cannot be pickled to send it back from the "
                            f"worker: {e}") from e
        except TypeError as error:
            return FailedRun.from_exception(kept_result.seed, error)
    return None


def line_bytes(line: str) -> bytes:
    """A record as the file holds it: UTF-8, with its line end.

    Parameters
    ----------
    line : str
        From :func:`encode_record`.

    Returns
    -------
    bytes
    """
    return (line + "\n").encode()


@dataclasses.dataclass(frozen=True)
class KeptResult(SimulationResult):
    """A run's result as a batch kept it: its summary, and the parts ``keep=`` chose.

    A :class:`~cvcclock.scenario.SimulationResult` whose ``records`` is ``{}`` unless
    ``"records"`` is in :attr:`kept`, and whose ``trajectory`` and ``actions`` are ``()``
    unless ``"trajectory"`` is; every other field is the run's. The whole result is in the
    batch's results file (:func:`~cvcclock.batch.read_results`), when it has one.

    Attributes
    ----------
    run_steps : int
        The time steps whose behaviors ran: what :attr:`steps` says, with or without the
        actions.
    kept : frozenset of str
        ``"records"``, ``"trajectory"``, both or neither.
    """

    run_steps: int
    kept: frozenset[str]

    @property
    def steps(self) -> int:
        """The time steps whose behaviors ran (``run_steps``)."""
        return self.run_steps


def kept(result: SimulationResult | FailedRun,
         keep: frozenset[str]) -> SimulationResult | FailedRun:
    """What a batch keeps of a result: its summary, and ``keep``'s parts.

    Parameters
    ----------
    result : SimulationResult or FailedRun
    keep : frozenset of str
        Of ``"records"`` and ``"trajectory"``.

    Returns
    -------
    SimulationResult or FailedRun
        ``result`` itself when it keeps everything or failed, else a :class:`KeptResult`.
    """
    if isinstance(result, FailedRun) or keep >= ALL:
        return result
    keep = keep & ALL
    fields = {f.name: getattr(result, f.name) for f in dataclasses.fields(SimulationResult)}
    if "records" not in keep:
        fields["records"] = {}
    if "trajectory" not in keep:
        fields["trajectory"], fields["actions"] = (), ()
    return KeptResult(**fields, run_steps=result.steps, kept=keep)


def encode_record(result: SimulationResult | FailedRun, key: BatchKey) -> str:
    """The line of a result.

    Parameters
    ----------
    result : SimulationResult or FailedRun
    key : BatchKey
        What decided the run, written in the line's head.

    Returns
    -------
    str
        Without a line end; its ``crc`` last.

    Raises
    ------
    TypeError
        If a value in the result can be neither written as JSON nor pickled.
    """
    head = {"scenario": key.scenario, "options": dict(key.options), "version": FORMAT_VERSION,
            "key": key.members()}
    if isinstance(result, FailedRun):
        text = _line(result.seed, "failed", head, _failed_body(result))
    else:
        text = _line(result.seed, "completed", head, _completed_body(result))
    return _with_crc(text)


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


# -- the checksum ----------------------------------------------------------------------------

_CRC = re.compile(rb',"crc":"([0-9a-f]{8})"\}$')
_CRC_LENGTH = len(',"crc":"00000000"}')


def _with_crc(text: str) -> str:
    body = text[:-1]                    # the record without its closing brace
    return f'{body},"crc":"{zlib.crc32(body.encode()):08x}"}}'


def check_line(line: bytes) -> str | None:
    """What is wrong with a line of a results file, in words, or None if nothing is.

    A line of version 2 must end with the CRC-32 of what comes before it; one of version 1,
    which has none, must be JSON. No value is decoded.

    Parameters
    ----------
    line : bytes
        With or without its line end.

    Returns
    -------
    str or None
    """
    line = line.rstrip(b"\n")
    head = read_head(line)
    if head is None:
        return "not a cvcclock results record"
    if head.version == 1:
        try:
            json.loads(line)
        except ValueError as e:
            return f"not valid JSON ({e})"
        return None
    m = _CRC.search(line)
    if m is None:
        return "it has no checksum at its end (cut short?)"
    if zlib.crc32(line[:-_CRC_LENGTH]) != int(m[1], 16):
        return "its checksum does not match: a byte of it changed"
    return None


# -- what decides a run ----------------------------------------------------------------------

_ATTRIBUTE_TEXT = 64
"""An attribute whose canonical text is longer is written as a SHA-256 prefix of it."""


@dataclasses.dataclass(frozen=True)
class BatchKey:
    """Everything that decides a batch's runs but the seed: what its results file is keyed by.

    A rerun with the same ``out`` reuses the runs recorded there only if its key is equal;
    otherwise :meth:`differences` names what differs. The scenario's code is not in it (a
    changed ``setup`` is the user's to know about); its instance attributes, as pickle sends
    them to the workers, are.

    Attributes
    ----------
    scenario : str
        ``"module:QualifiedName"`` of its class.
    options : mapping
        The ``simulate`` keyword arguments as given (``max_steps``, ``time_limit``, ...).
    dt : float
        The time step the runs take (the ``dt`` option, else the scenario's).
    attributes : mapping of str to str
        Each instance attribute's canonical text, or ``"sha256:..."`` of it when long.
    trace_format : int
        The trace format version of this cvcclock (``cvcclock.replay.FORMAT_VERSION``).
    """

    scenario: str
    options: Mapping[str, Any]
    dt: float
    attributes: Mapping[str, str]
    trace_format: int

    @classmethod
    def of(cls, scenario: Scenario, options: Mapping[str, Any], dt: float,
           trace_format: int) -> BatchKey:
        """The key of a batch of ``scenario`` run with ``options`` at time step ``dt``.

        Parameters
        ----------
        scenario : Scenario
        options : mapping
        dt : float
        trace_format : int

        Returns
        -------
        BatchKey
        """
        return cls(scenario_reference(scenario), dict(options), dt, _attributes(scenario),
                   trace_format)

    def members(self) -> dict[str, Any]:
        """A line's ``key`` object: all but the scenario and the options, which have theirs."""
        return {"dt": self.dt, "trace_format": self.trace_format,
                "attributes": dict(self.attributes)}

    def differences(self, head: RecordHead) -> list[str]:
        """What differs between this key and the one in a line's ``head``, in words.

        Parameters
        ----------
        head : RecordHead

        Returns
        -------
        list of str
            Empty when the line is this batch's.
        """
        found = []
        if head.scenario != self.scenario:
            found.append(f"the scenario: {head.scenario} there, {self.scenario} here")
        if head.options != options_text(self.options):
            found.extend(_named(json.loads(head.options),
                                json.loads(options_text(self.options)), "option {}"))
        if head.key is None:
            # A line of version 1 says no more: it is this batch's only if there is no more.
            if self.attributes:
                found.append(f"the scenario's attributes ({', '.join(self.attributes)}): that "
                             "line, written by an older cvcclock, does not record them")
            return found
        theirs, ours = json.loads(head.key), self.members()
        for name in ("dt", "trace_format"):
            if theirs.get(name) != ours[name]:
                found.append(f"{name}: {theirs.get(name)!r} there, {ours[name]!r} here")
        found.extend(_named(theirs.get("attributes", {}), ours["attributes"],
                            "the scenario's attribute {}"))
        return found


def _named(theirs: dict[str, Any], ours: dict[str, Any], what: str) -> list[str]:
    names = sorted(set(theirs) | set(ours))
    return [f"{what.format(name)}: {_shown(theirs, name)} there, {_shown(ours, name)} here"
            for name in names if (name in theirs) != (name in ours)
            or theirs[name] != ours[name]]


def _shown(values: dict[str, Any], name: str) -> str:
    if name not in values:
        return "not set"
    value = values[name]
    return value if isinstance(value, str) else json.dumps(value)


def _attributes(scenario: Scenario) -> dict[str, str]:
    """Each instance attribute's canonical text: what pickle sends of the scenario.

    ``__getstate__`` gives the instance dict (with slots, as a pair), or what the class
    says travels; each value is written canonically (dicts and sets sorted, floats by
    ``repr``, objects as their class and state), so equal states give equal texts in any
    process, whatever the hash seed.
    """
    state = scenario.__getstate__()
    if state is None:                   # no instance attribute
        state = {}
    if isinstance(state, tuple) and len(state) == 2 and all(
            part is None or isinstance(part, dict) for part in state):
        state = {**(state[0] or {}), **(state[1] or {})}
    if not isinstance(state, dict):
        state = {"__getstate__": state}
    texts = {}
    for name in sorted(state, key=str):
        text = _canonical_text(state[name])
        if len(text) > _ATTRIBUTE_TEXT:
            text = "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:32]
        texts[str(name)] = text
    return texts


def _canonical_text(value: Any) -> str:
    try:
        return json.dumps(_canonical(value, frozenset()), ensure_ascii=False,
                          separators=(",", ":"))
    except RecursionError:       # nested deeper than the stack: its pickle stands for it
        return "pickle:" + hashlib.sha256(pickle.dumps(value)).hexdigest()


def _canonical(value: Any, seen: frozenset[int]) -> Any:
    kind = type(value)
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        return value        # json writes its repr: -0.0, NaN and Infinity are kept apart
    if isinstance(value, enum.Enum):
        return {"$enum": f"{kind.__module__}:{kind.__qualname__}", "name": value.name}
    if isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)):
        return {"$ref": f"{getattr(value, '__module__', None)}:{value.__qualname__}"}
    if id(value) in seen:
        return {"$cycle": None}
    seen = seen | {id(value)}
    if kind in (list, tuple):
        return {"$" + kind.__name__: [_canonical(v, seen) for v in value]}
    if isinstance(value, (set, frozenset)):
        return {"$set": sorted(json.dumps(_canonical(v, seen)) for v in value)}
    if isinstance(value, Mapping):
        pairs = [[_canonical(k, seen), _canonical(v, seen)] for k, v in value.items()]
        return {"$dict": sorted(pairs, key=json.dumps)}
    ref = f"{kind.__module__}:{kind.__qualname__}"
    try:
        state = value.__getstate__()
    except Exception:  # noqa: BLE001 -- a class whose state is not for us: its pickle decides
        state = None
    if isinstance(state, dict) and state:
        return {"$object": ref, "state": _canonical(state, seen)}
    try:
        data = pickle.dumps(value)
    except Exception:  # noqa: BLE001 -- sending the scenario would refuse it, not this
        return {"$object": ref, "repr": repr(value)}
    return {"$object": ref, "pickle": hashlib.sha256(data).hexdigest()}


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
        "trajectory": [step if _plain_step(step) else named(step, value)
                       for step in r.trajectory],
        "actions": [named(step, _ENCODER.items) for step in r.actions],
    }


def _failed_body(f: FailedRun) -> dict[str, Any]:
    return {"error_type": f.error_type, "message": f.message, "traceback": f.traceback}


_PLAIN = frozenset({str, int, float, bool, type(None)})


def _plain_step(step: Any) -> bool:
    """Whether a trajectory step is ``{name: {property: JSON scalar}}`` with plain keys: what
    the encoder would copy as it is (most simulators' steps). Checking costs a third of
    copying, and the step is then written as it is."""
    if type(step) is not dict:
        return False
    for name, properties in step.items():
        if type(name) is not str or name[:1] == "$" or type(properties) is not dict:
            return False
        for key, x in properties.items():
            if type(key) is not str or key[:1] == "$" or type(x) not in _PLAIN:
                return False
    return True


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
        value = self.value

        def encode(v: Any) -> dict[str, Any]:
            d: dict[str, Any] = {"$dataclass": ref}
            for name in names:
                x = getattr(v, name)
                d[name] = x if type(x) in _PLAIN else value(x)
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


_STRING = rb'"(?:[^"\\]|\\.)*"'
_FLAT = rb'\{(?:[^{}"]|' + _STRING + rb')*\}'
_HEAD = re.compile(rb'\{"seed":(-?\d+),"status":"(completed|failed)",'
                   rb'"scenario":(' + _STRING + rb'),'
                   rb'"options":(\{(?:[^{}]|\{[^{}]*\})*\}),"version":(\d+),'
                   rb'(?:"key":(\{(?:[^{}"]|' + _STRING + rb'|' + _FLAT + rb')*\}),)?')


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
    key : str or None
        The ``key`` object's JSON text, as written; None in a line of version 1.
    version : int
    """

    seed: int
    failed: bool
    scenario: str
    options: str
    key: str | None = None
    version: int = FORMAT_VERSION


def read_head(line: bytes) -> RecordHead | None:
    """The head of a line, or None if the line does not start like a record this reads.

    Parameters
    ----------
    line : bytes

    Returns
    -------
    RecordHead or None
    """
    m = _HEAD.match(line)
    if m is None:
        return None
    version = int(m[5])
    if version not in _READS or (m[6] is None) != (version == 1):
        return None
    return RecordHead(int(m[1]), m[2] == b"failed", json.loads(m[3]), m[4].decode(),
                      None if m[6] is None else m[6].decode(), version)


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
        if d["version"] not in _READS:
            raise ValueError(f"format version {d['version']!r}, this reader knows "
                             f"{', '.join(map(str, _READS))}")
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
