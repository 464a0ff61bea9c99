"""The trace file: readable lines, exact round trips, and a clear error for every bad file."""

import enum
import hashlib
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvcclock import ClockConfig, WorldClock
from cvcclock.replay._trace import (
    FORMAT_VERSION,
    Input,
    InputTrace,
    TraceFormatError,
    TraceHeader,
    check_json_value,
)


def make_trace(**header):
    fields = {"fixed_dt": 0.01, "dt": 0.06, "seed": 7, "metadata": {"world": "spring"}}
    return InputTrace(TraceHeader(**{**fields, **header}),
                      (Input(3, "kick", 1.5), Input(12, "aim", [1, {"a": None, "b": "x"}]),
                       Input(12, "speed", 2.0)),
                      {6: "ab12", 12: "cd34", 18: "ef56"}, 20)


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "run.trace"
    make_trace().save(path)
    return path


def load_bytes(tmp_path, data):
    path = tmp_path / "bad.trace"
    path.write_bytes(data)
    return InputTrace.load(path)


def test_a_trace_is_one_json_object_a_line_in_tick_order(saved):
    lines = saved.read_text().splitlines()
    # The digest is of the file as version 1 wrote it: the lines before, then {"end": 20}.
    as_version_1 = hashlib.sha256("".join(line + "\n" for line in lines[:-1]).encode()
                                  + b'{"end": 20}\n').hexdigest()
    assert json.loads(lines[0]) == {
        "format": "cvcclock-trace", "version": FORMAT_VERSION, "fixed_dt": 0.01, "dt": 0.06,
        "start_tick": 0, "seed": 7, "cvcclock": make_trace().header.cvcclock,
        "metadata": {"world": "spring"}}
    # A hash follows its step; inputs stamped at the step's tick come after it.
    assert lines[1:] == [
        '{"tick": 3, "input": "kick", "value": 1.5}',
        '{"tick": 6, "hash": "ab12"}',
        '{"tick": 12, "hash": "cd34"}',
        '{"tick": 12, "input": "aim", "value": [1, {"a": null, "b": "x"}]}',
        '{"tick": 12, "input": "speed", "value": 2.0}',
        '{"tick": 18, "hash": "ef56"}',
        f'{{"end": 20, "sha256": "{as_version_1}"}}']
    assert saved.read_bytes().endswith(b"}\n")


def test_save_then_load_gives_an_equal_trace(saved):
    assert InputTrace.load(saved) == make_trace()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8)


@settings(max_examples=200, deadline=None)
@given(entries=st.lists(st.tuples(st.integers(0, 50), st.text(max_size=5), json_values),
                        max_size=8),
       hashed=st.sets(st.integers(1, 10), max_size=5), extra=st.integers(0, 5))
def test_any_json_inputs_round_trip_exactly(entries, hashed, extra):
    inputs = tuple(Input(t, n, v) for t, n, v in sorted(entries, key=lambda e: e[0]))
    hashes = {6 * k: f"h{k}" for k in hashed}
    end = max([60, *(i.tick for i in inputs)]) + extra
    trace = InputTrace(TraceHeader(fixed_dt=0.01, dt=0.06), inputs, hashes, end)
    data = "".join(line + "\n" for line in trace.lines()).encode()
    again = InputTrace.from_lines(data.split(b"\n"))
    assert again == trace
    # Exactly: the same float bits, the same types (an int stays an int, 1.0 stays a float).
    assert repr(again.inputs) == repr(trace.inputs)


def test_an_input_of_a_number_is_one_short_line(tmp_path):
    header = TraceHeader(fixed_dt=0.01, dt=0.01)
    path = tmp_path / "kick.trace"
    InputTrace(header, (Input(123456, "kick", -1.2345678901234567),), {}, 123456).save(path)
    assert path.read_text().splitlines()[1] == \
        '{"tick": 123456, "input": "kick", "value": -1.2345678901234567}'


# -- values -------------------------------------------------------------------------------------


class Level(enum.IntEnum):
    EASY = 1


@pytest.mark.parametrize("value, error, words", [
    ((1, 2), TypeError, "tuple, not a JSON value.*pass a list"),
    (float("nan"), ValueError, "nan, which JSON cannot hold"),
    ([1, float("inf")], ValueError, r"value\[1\] is inf"),
    ({1: 2}, TypeError, "the key 1; JSON object keys are str"),
    ({"a": {1, 2}}, TypeError, r"value\['a'\] is \{1, 2\} of type set"),
    (np.float64(1.5), TypeError, "of type float64, not a JSON value"),
    (Level.EASY, TypeError, "of type Level"),
    (b"x", TypeError, "of type bytes"),
])
def test_a_value_that_is_not_json_is_refused_naming_the_input(value, error, words):
    with pytest.raises(error, match=r"input 'kick': .*" + words):
        check_json_value(value, "kick")


def test_a_value_nested_too_deep_is_refused():
    deep = []
    for _ in range(150):
        deep = [deep]
    with pytest.raises(ValueError, match="nested more than 100 deep"):
        check_json_value(deep, "kick")


def test_the_stored_value_is_a_copy():
    value = {"path": [1, 2]}
    stored = check_json_value(value, "go")
    value["path"].append(3)
    assert stored == {"path": [1, 2]}


# -- bad files ----------------------------------------------------------------------------------


def corrupt(data, old, new):
    assert old in data
    return data.replace(old, new, 1)


@pytest.mark.parametrize("change, line, words", [
    (lambda d: b"", 1, "no header: the file is empty"),
    (lambda d: d[:40], 1, "no end-of-line: the file was cut short"),
    (lambda d: d[:-1], 8, "no end-of-line: the file was cut short"),
    (lambda d: d[:d.rindex(b'{"end": 20')], 8, "ends without its end line"),
    (lambda d: d[:d.index(b'{"tick": 12, "hash"') + 10], 4, "no end-of-line"),
    (lambda d: d + b"\n", 9, "text after the end line"),
    (lambda d: d + b'{"tick": 30, "hash": "x"}\n', 9, "text after the end line"),
    (lambda d: corrupt(d, b'"kick"', b'"kick'), 2, "not JSON: Expecting"),
    (lambda d: corrupt(d, b"1.5", b"NaN"), 2, "NaN is not JSON"),
    (lambda d: corrupt(d, b"1.5", b"Infinity"), 2, "Infinity is not JSON"),
    (lambda d: corrupt(d, b'{"tick": 6, "hash": "ab12"}', b"[6]"), 3, "expected a JSON object"),
    (lambda d: corrupt(d, b'{"tick": 6, "hash": "ab12"}', b""), 3, "an empty line"),
    (lambda d: corrupt(d, b'{"tick": 6,', b'{"tick": 6, "tick": 7,'), 3, "'tick' appears twice"),
    (lambda d: corrupt(d, b'{"tick": 12, "hash"', b'{"tick": 2, "hash"'), 4,
     "tick 2 is before the previous line's tick 6"),
    (lambda d: corrupt(d, b'{"tick": 6, "hash"', b'{"tick": 7, "hash"'), 3,
     "no step of dt=0.06 .every 6 quanta.*falls due at tick 7"),
    (lambda d: corrupt(d, b'{"tick": 18, "hash"', b'{"tick": 12, "hash"'), 7,
     "a second hash for tick 12"),
    (lambda d: corrupt(d, b'"tick": 3,', b'"tick": -3,'), 2, "tick must be >= 0, got -3"),
    (lambda d: corrupt(d, b'"tick": 3,', b'"tick": true,'), 2, "tick must be an integer"),
    (lambda d: corrupt(d, b'"tick": 3,', b'"tick": 3.0,'), 2, "tick must be an integer"),
    (lambda d: corrupt(d, b'"input": "kick"', b'"input": 4'), 2, "input name must be a str"),
    (lambda d: corrupt(d, b'"value": 1.5', b'"valu": 1.5'), 2,
     r"input line: missing \['value'\]; unexpected \['valu'\]"),
    (lambda d: corrupt(d, b'{"end": 20', b'{"end": 5'), 8, "end must be >= 18"),
    (lambda d: corrupt(d, b'{"end": 20', b'{"stop": 20'), 8, "expected an input, hash or end"),
    (lambda d: corrupt(d, b"cvcclock-trace", b"other"), 1, "not a cvcclock trace"),
    (lambda d: corrupt(d, b'"version": 2', b'"version": 0'), 1, "version must be >= 1"),
    (lambda d: corrupt(d, b'"fixed_dt": 0.01', b'"fixed_dt": -1'), 1, "fixed_dt must be"),
    (lambda d: corrupt(d, b'"dt": 0.06', b'"dt": 0.065'), 1, "not a whole number"),
    (lambda d: corrupt(d, b'"seed": 7', b'"seed": "7"'), 1, "seed must be an integer"),
    (lambda d: corrupt(d, b'"metadata": {"world": "spring"}', b'"metadata": []'), 1,
     "metadata must be a mapping"),
    (lambda d: corrupt(d, b', "seed": 7', b''), 1, r"header line: missing \['seed'\]"),
    (lambda d: corrupt(d, b'"kick"', b'"\xff"'), 2, "not UTF-8 text"),
])
def test_a_bad_file_is_a_trace_format_error_naming_the_line(saved, tmp_path, change, line, words):
    with pytest.raises(TraceFormatError, match=rf"bad.trace, line {line}: .*{words}") as error:
        load_bytes(tmp_path, change(saved.read_bytes()))
    assert error.value.line == line
    assert isinstance(error.value, ValueError)


def test_a_newer_format_version_is_refused_never_misread(saved, tmp_path):
    data = saved.read_bytes()
    newer = corrupt(data, b'"version": 2', b'"version": 3, "compression": "zstd"')
    with pytest.raises(TraceFormatError, match="line 1: format version 3 is newer than this "
                                               "cvcclock .* reads .up to 2.; upgrade cvcclock"):
        load_bytes(tmp_path, newer)
    with pytest.raises(ValueError, match="format version 3 is newer"):
        TraceHeader(fixed_dt=0.01, dt=0.06, version=3)


def test_a_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        InputTrace.load(tmp_path / "nowhere.trace")


# -- constructing ---------------------------------------------------------------------------


def test_inputs_out_of_order_or_an_end_too_early_are_refused():
    header = TraceHeader(fixed_dt=0.01, dt=0.06)
    with pytest.raises(ValueError, match=r"inputs\[1\] is at tick 2, before tick 5"):
        InputTrace(header, (Input(5, "a", 1), Input(2, "a", 1)), {}, 10)
    with pytest.raises(ValueError, match="end_tick must be >= 12"):
        InputTrace(header, (Input(5, "a", 1),), {12: "x"}, 11)
    with pytest.raises(TypeError, match=r"inputs\[0\] must be an Input"):
        InputTrace(header, ((5, "a"),), {}, 10)
    with pytest.raises(TypeError, match=r"input 'a': value is \(1,\) of type tuple"):
        InputTrace(header, (Input(5, "a", (1,)),), {}, 10)
    with pytest.raises(ValueError, match="falls due at tick 0"):
        InputTrace(header, (), {0: "x"}, 10)
    with pytest.raises(ValueError, match=r"^hashes\[6\] must be a non-empty str, got ''$"):
        InputTrace(header, (), {6: ""}, 10)
    with pytest.raises(TypeError, match=r"^hashes\[6\] must be a str, got 7$"):
        InputTrace(header, (), {6: 7}, 10)


def test_check_fits_names_both_the_recorded_and_the_replay_values():
    header = make_trace().header
    header.check_fits(WorldClock(ClockConfig(fixed_dt=0.01)), 0.06)
    with pytest.raises(ValueError, match=r"recorded with fixed_dt=0\.01 and dt=0\.06; this "
                                         r"clock has fixed_dt=0\.02 and the world dt=0\.06"):
        header.check_fits(WorldClock(ClockConfig(fixed_dt=0.02)), 0.06)
    with pytest.raises(ValueError, match=r"fixed_dt=0\.01 and the world dt=0\.05"):
        header.check_fits(WorldClock(ClockConfig(fixed_dt=0.01)), 0.05)


def test_the_header_period_and_metadata_copy():
    metadata = {"level": [1]}
    header = TraceHeader(fixed_dt=0.01, dt=0.06, metadata=metadata)
    metadata["level"].append(2)
    assert header.period == 6 and header.metadata == {"level": [1]}
    assert math.isclose(header.fixed_dt * header.period, header.dt)


# -- the body's digest (format version 2) and version-1 files --------------------------------


def downgraded(data):
    """``data`` as cvcclock wrote it before format version 2: version 1, no body digest."""
    lines = data.split(b"\n")
    end = json.loads(lines[-2])
    lines[-2] = json.dumps({"end": end["end"]}).encode()
    return b"\n".join(lines).replace(b'"version": 2', b'"version": 1', 1)


@pytest.mark.parametrize("change", [
    lambda d: corrupt(d, b'"value": 1.5', b'"value": 1.6'),
    lambda d: corrupt(d, b'"value": 1.5', b'"value": 1.50'),    # the same number, other bytes
    lambda d: corrupt(d, b'"ab12"', b'"ab13"'),
    lambda d: corrupt(d, b'{"tick": 6, "hash": "ab12"}\n', b''),   # a hash line removed
    lambda d: corrupt(d, b'{"tick": 3, "input": "kick", "value": 1.5}\n', b''),
    lambda d: corrupt(d, b'"seed": 7', b'"seed": 8'),
    lambda d: corrupt(d, b'{"world": "spring"}', b'{"world": "spring", "x": 1}'),
    lambda d: corrupt(d, b'{"end": 20', b'{"end": 21'),
])
def test_an_edit_that_stays_valid_json_is_detected_and_named_at_the_end_line(saved, tmp_path,
                                                                            change):
    data = change(saved.read_bytes())
    end_line = data.count(b"\n")
    with pytest.raises(TraceFormatError, match=rf"bad.trace, line {end_line}: the trace "
                                               r"\(every line before this one, and the end "
                                               r"tick\) has the sha256 "
                                               r"[0-9a-f]{64}, not the '[0-9a-f]{64}' its end line "
                                               "records: the file was changed after it was "
                                               "written") as error:
        load_bytes(tmp_path, data)
    assert error.value.line == end_line


def test_a_version_2_end_line_must_carry_the_sha256(saved, tmp_path):
    data = saved.read_bytes()
    cut = data[:data.rindex(b'{"end"')] + b'{"end": 20}\n'
    with pytest.raises(TraceFormatError, match=r"line 8: end line: missing \['sha256'\]"):
        load_bytes(tmp_path, cut)
    wrong = data[:data.rindex(b'{"end"')] + b'{"end": 20, "sha256": 5}\n'
    with pytest.raises(TraceFormatError, match="line 8: the end line's sha256 must be a str"):
        load_bytes(tmp_path, wrong)


def test_a_version_1_file_reads_as_before_and_saves_as_the_current_version(saved, tmp_path):
    old = downgraded(saved.read_bytes())
    assert old.split(b"\n")[-2] == b'{"end": 20}'
    trace = load_bytes(tmp_path, old)
    assert trace.header.version == 1
    assert trace == make_trace()              # the version says how it was written, no more
    path = tmp_path / "again.trace"
    trace.save(path)
    assert path.read_bytes() == saved.read_bytes()
    assert InputTrace.load(path).header.version == FORMAT_VERSION == 2
    # A version-1 end line carries no digest, and a digest is not read into it.
    with pytest.raises(TraceFormatError, match=r"line 8: end line: unexpected \['sha256'\]"):
        load_bytes(tmp_path, old.replace(b'"version": 1', b'"version": 2', 0)[:-len(
            b'{"end": 20}\n')] + b'{"end": 20, "sha256": "00"}\n')


def test_check_input_refuses_an_input_naming_its_line(saved, tmp_path):
    def no_aim(name, value):
        if name == "aim":
            raise TypeError(f"aim is not taken here, got {value!r}")

    with pytest.raises(TraceFormatError, match=r"run.trace, line 5: aim is not taken here, got "
                                               r"\[1, \{'a': None, 'b': 'x'\}\]") as error:
        InputTrace.load(saved, check_input=no_aim)
    assert error.value.line == 5
    assert InputTrace.load(saved, check_input=lambda name, value: None) == make_trace()
    with pytest.raises(TypeError, match="check_input must be callable"):
        InputTrace.load(saved, check_input=3)


def test_load_reads_no_more_than_max_bytes_and_refuses_a_longer_file(tmp_path):
    path = tmp_path / "run.trace"
    make_trace().save(path)
    size = path.stat().st_size
    assert InputTrace.load(path, max_bytes=size) == InputTrace.load(path)
    lines = path.read_bytes().count(b"\n")
    with pytest.raises(TraceFormatError, match=f"line {lines}: the file is longer than "
                                               f"max_bytes={size - 1} bytes") as error:
        InputTrace.load(path, max_bytes=size - 1)
    assert error.value.line == lines
    with pytest.raises(TypeError, match="max_bytes must be an integer, got 1.5"):
        InputTrace.load(path, max_bytes=1.5)
    with pytest.raises(ValueError, match="max_bytes must be >= 0, got -1"):
        InputTrace.load(path, max_bytes=-1)
