"""A run's results-file line reads back to an equal result: every value's type and shape kept."""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import pickle
import types

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_batch import CloseCall, Flaky

from cvcclock.batch._records import (
    BatchKey,
    check_line,
    decode_record,
    encode_record,
    read_head,
    run_records,
)
from cvcclock.scenario import (
    FailedRun,
    Scenario,
    SimulationResult,
    TerminationType,
    Throttle,
    Vehicle,
    simulate,
)


class Colour(enum.Enum):
    RED = 1
    GREEN = "g"


class Size(enum.IntEnum):
    SMALL = 1


class Odd(Scenario):
    """Records every kind of value a results file must keep exactly."""

    def __init__(self, values):
        self.values = values

    def setup(self, s):
        s.add_agent("car", Vehicle())
        for name, value in self.values.items():
            s.record_final(name, lambda value=value: value)
        s.record("step kinds", lambda: (s.sim.step, [s.sim.step], {"$weird": s.sim.step}))
        s.record_initial("seven", lambda: 7)


ODD = {
    "tuple": (1, (2.5, "x"), []),
    "list of tuples": [(1, 2), (3,)],
    "empty": ((), [], {}),
    "non-str keys": {1: "a", (2, 3): "b", None: "c", 2.5: "d"},
    "dollar keys": {"$tuple": [1], "$": 2, "plain": 3},
    "nested dicts": {"a": {"b": {"c": (1,)}}},
    "floats": (0.1, -0.0, 1e308, 5e-324, 1 / 3),
    "non-finite": (math.inf, -math.inf),
    "big ints": (2**64 - 1, -(2**100)),
    "bools and none": (True, False, None),
    "unicode": "gap ≥ 2 m, naïve 🚗",
    "enum": Colour.GREEN,
    "int enum": Size.SMALL,
    "termination type": TerminationType.MONITOR,
    "dataclass": Throttle(0.25),
    "vehicle": Vehicle(x=1.5, speed=2.0),
    "numpy float": numpy.float64(0.1),
    "frozenset": frozenset({1, 2}),
    "bytes": b"\x00\xff",
    "mapping": types.MappingProxyType({"a": (1,)}),
}


def key(scenario="m:S", **options):
    return BatchKey(scenario, options, 0.1, {}, 1)


def roundtrip(result):
    return decode_record(encode_record(result, key(max_steps=3)))


def test_the_readme_scenario_round_trips_exactly():
    for seed in range(20):
        result = simulate(CloseCall(), seed=seed)
        assert roundtrip(result) == result


def test_every_kind_of_value_round_trips_with_its_type_and_shape():
    result = simulate(Odd(ODD), seed=1, max_steps=3)
    back = roundtrip(result)
    assert back == result
    final = back.records_final
    for name, value in ODD.items():
        assert type(final[name]) is {"numpy float": float, "mapping": dict}.get(
            name, type(value)), name
    assert type(final["tuple"][1]) is tuple and type(final["list of tuples"][0]) is tuple
    assert math.copysign(1.0, final["floats"][1]) == -1.0
    assert final["enum"] is Colour.GREEN and final["termination type"] is TerminationType.MONITOR
    assert back.records["step kinds"][2] == (2, (2, [2], {"$weird": 2}))
    assert back.records_initial == {"seven": 7}


def test_nan_is_tagged_so_the_file_stays_strict_json():
    result = simulate(Odd({"nan": math.nan, "nested": (1.0, [math.nan])}), seed=0, max_steps=1)
    line = encode_record(result, key())
    json.loads(line, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    final = decode_record(line).records_final
    assert (math.isnan(final["nan"]) and math.isnan(final["nested"][1][0])
            and type(final["nested"]) is tuple)


def test_a_numpy_array_is_kept_pickled():
    result = simulate(Odd({"array": numpy.arange(3.0)}), seed=0, max_steps=1)
    array = roundtrip(result).records_final["array"]
    assert isinstance(array, numpy.ndarray) and array.tolist() == [0.0, 1.0, 2.0]


def test_a_value_that_can_be_neither_written_nor_pickled_fails_its_run_only():
    scenario = CloseCall()
    results, lines = run_records(Odd({"lambda": lambda: 1}), [0], {"max_steps": 2},
                                 key("test:Odd", max_steps=2))
    [failed] = pickle.loads(results)
    assert isinstance(failed, FailedRun) and failed.seed == 0
    assert failed.error_type == "TypeError" and "result cannot be pickled" in failed.message
    assert decode_record(lines[0]) == failed
    good, _ = run_records(scenario, [1, 2], {}, None)
    assert pickle.loads(good) == [simulate(scenario, seed=s) for s in (1, 2)]


def test_lines_are_keyed_in_a_fixed_order_for_resuming():
    results, lines = run_records(Flaky(), [3, 4], {"max_steps": 40},
                                 key("test_batch:Flaky", max_steps=40))
    heads = [read_head(line.encode() + b"\n") for line in lines]
    key_text = '{"dt":0.1,"trace_format":1,"attributes":{}}'
    assert [(h.seed, h.failed, h.scenario, h.options, h.key) for h in heads] == [
        (3, True, "test_batch:Flaky", '{"max_steps":40}', key_text),
        (4, False, "test_batch:Flaky", '{"max_steps":40}', key_text)]
    record = json.loads(lines[1])
    assert list(record)[:6] == ["seed", "status", "scenario", "options", "version", "key"]
    assert list(record)[-1] == "crc" and all(check_line(line.encode()) is None for line in lines)
    assert record["termination_type"] == "time limit" and record["steps"] == 40
    assert record["actions"][0] == {
        "ego": [{"$dataclass": "cvcclock.scenario:Throttle", "value": 0.5}],
        "lead": [{"$dataclass": "cvcclock.scenario:Throttle", "value": 0.0}]}
    failed = json.loads(lines[0])
    assert failed["error_type"] == "ZeroDivisionError" and "Traceback" in failed["traceback"]


@pytest.mark.parametrize("line", [
    b"", b"{}", b'{"seed":1', b"[1, 2]", b'{"seed":1,"status":"completed","version":1}',
    b'{"seed":1,"status":"completed","version":2}',
])
def test_a_line_that_is_not_a_whole_record_is_a_value_error(line):
    with pytest.raises(ValueError):
        decode_record(line)
    assert read_head(line) is None


def test_results_compare_equal_after_decoding_and_failed_runs_too():
    results, lines = run_records(Flaky(), range(10), {}, key("test_batch:Flaky"))
    decoded = [decode_record(line) for line in lines]
    assert decoded == pickle.loads(results)
    assert {type(r) for r in decoded} == {SimulationResult, FailedRun}


_A_RUN = simulate(CloseCall(), seed=1)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=3),
                     st.tuples(st.integers()), st.sampled_from([Colour.RED, Size.SMALL]))
_KEYS = st.one_of(st.sampled_from(["x", "$tuple", "$", "speed"]), st.integers(0, 2))
_STEPS = st.dictionaries(_KEYS, st.one_of(st.dictionaries(_KEYS, _SCALARS, max_size=3),
                                          _SCALARS), max_size=3)


@settings(max_examples=200, deadline=None)
@given(st.lists(_STEPS, min_size=1, max_size=4))
def test_a_trajectory_step_written_as_it_is_gives_the_line_the_general_encoder_gives(steps):
    """Steps of plain JSON are written without being copied; the line must be the one the
    general encoder writes, and read back equal, whatever the steps hold."""
    import cvcclock.batch._records as records

    result = dataclasses.replace(_A_RUN, trajectory=tuple(steps))
    fast = encode_record(result, key())
    general = records._plain_step
    try:
        records._plain_step = lambda step: False
        assert encode_record(result, key()) == fast
    finally:
        records._plain_step = general
    assert repr(decode_record(fast).trajectory) == repr(result.trajectory)   # NaN too
