"""The pacing picture says what it shows: the figure, inspected before it is saved.

The bottom panel names the six runs it overlays and says in a sentence what it shows; the
top panel marks the stall and says why the realized speed trails the requested one, with
the window the clock really measures it over.
"""

import re

import pytest

from cvcclock import ClockConfig, WorldClock
from cvcclock.demo import pacing_figure, record_demo
from cvcclock.demo._plot import REALIZED_WINDOW

SIX_RUNS = ["recorded: live, uneven frames, the user's speeds", "live at 2x", "live at 0.5x",
            "lockstep, 3 quanta a frame", "batches of 37 quanta", "one quantum a frame"]


@pytest.fixture(scope="module")
def panels():
    """The four panels, top to bottom."""
    pytest.importorskip("matplotlib")
    return pacing_figure().axes[:4]


def reads_as_a_sentence(text: str) -> bool:
    """Words with spaces between them, not a code name (``by_time``, ``x``, ``speed``)."""
    return len(text.split()) >= 5 and not re.fullmatch(r"[\w.]+", text)


def test_every_panel_title_reads_as_a_sentence(panels):
    for axes in panels:
        assert reads_as_a_sentence(axes.get_title()), axes.get_title()


def test_the_bottom_panel_names_the_six_runs_and_says_they_are_one_trajectory(panels):
    bottom = panels[3]
    legend = bottom.get_legend()
    assert legend is not None
    assert [text.get_text() for text in legend.get_texts()] == SIX_RUNS
    assert [line.get_label() for line in bottom.get_lines() if line.get_label() in SIX_RUNS] \
        == SIX_RUNS
    title = bottom.get_title()
    assert "six runs" in title and "one trajectory" in title


def test_the_six_curves_of_the_bottom_panel_are_one_curve(panels):
    curves = [line.get_xydata() for line in panels[3].get_lines() if line.get_label() in SIX_RUNS]
    assert len(curves) == 6 and len(curves[0]) > 50
    assert all((curve == curves[0]).all() for curve in curves)


def test_the_top_panel_marks_the_stall_frame(panels):
    frames = record_demo().frames
    [stall] = [i for i, frame in enumerate(frames) if frame.dropped]
    top = panels[0]
    notes = [note for note in top.texts if "stall" in note.get_text()]
    assert len(notes) == 1 and notes[0].xy[0] == stall
    assert f"dropped {frames[stall].dropped}" in notes[0].get_text()
    spans = [patch for patch in top.patches
             if patch.get_x() <= stall <= patch.get_x() + patch.get_width()]
    assert len(spans) == 1 and spans[0].get_width() <= 1          # the one frame, shaded


def test_the_top_panel_says_the_realized_speed_lags_by_its_window(panels):
    said = " ".join(note.get_text() for note in panels[0].texts).replace("\n", " ")
    assert f"at least {REALIZED_WINDOW:g} s of wall time" in said
    assert "trails the requested speed" in said


def test_the_window_the_picture_names_is_the_one_the_clock_measures_over():
    # Frames of 1/32 s on a 1/128 s clock: exact in binary, 4 quanta a frame at 1x. After a
    # change of speed the realized speed keeps the old figure until a window of
    # REALIZED_WINDOW seconds of wall time has passed since the last one completed.
    clock = WorldClock(ClockConfig(fixed_dt=1 / 128))
    per_window = round(REALIZED_WINDOW * 32)
    for _ in range(2 * per_window):
        clock.advance(1 / 32)
    assert clock.realized_scale == 1.0
    clock.scale = 2.0
    seen = []
    for _ in range(per_window):
        clock.advance(1 / 32)
        seen.append(clock.realized_scale)
    assert seen == [1.0] * (per_window - 1) + [2.0]
