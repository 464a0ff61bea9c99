"""A traceback through the compiled core names each core frame's source as the repository
holds it (src/_core/clock.pxi), not as the build saw it (../../src/_core/clock.pxi, or a
temporary build directory): CMakeLists.txt runs Cython from the source tree."""

import traceback
from pathlib import Path

import pytest

from cvcclock import WorldClock

ROOT = Path(__file__).resolve().parents[2]
HAVE_SOURCES = (ROOT / "src" / "_core" / "_core.pyx").is_file()   # not in a wheel's test run


def core_frames(error):
    frames = traceback.extract_tb(error.__traceback__)
    return [f for f in frames if f.filename.endswith((".pyx", ".pxi"))]


def check_names(frames):
    assert frames, "no frame of the core in the traceback"
    for frame in frames:
        path = Path(frame.filename)
        assert frame.filename.startswith("src/_core/"), frame.filename
        assert not path.is_absolute() and ".." not in path.parts, frame.filename
        if HAVE_SOURCES:
            assert (ROOT / path).is_file(), frame.filename


def source_line(frame):
    return (ROOT / frame.filename).read_text().splitlines()[frame.lineno - 1]


def test_a_bad_argument_names_the_core_source_files():
    with pytest.raises(ValueError) as info:
        WorldClock().advance(-1.0)
    frames = core_frames(info.value)
    check_names(frames)
    assert frames[0].filename == "src/_core/clock.pxi"
    assert frames[0].name == "cvcclock._core.WorldClock.advance"
    if HAVE_SOURCES:
        assert "wall_dt" in source_line(frames[0])


def test_a_timer_callback_that_raises_names_the_core_source_files():
    def callback(tick):
        raise KeyError(tick)

    clock = WorldClock()
    clock.every_ticks(2, callback)
    with pytest.raises(KeyError) as info:
        clock.advance_ticks(5)
    frames = core_frames(info.value)
    check_names(frames)
    assert {f.filename for f in frames} >= {"src/_core/clock.pxi", "src/_core/timers.pxi"}
    # the callback's own frame follows the core's
    assert traceback.extract_tb(info.value.__traceback__)[-1].name == "callback"
