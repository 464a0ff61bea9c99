"""``cvcclock demo --plot``: a picture of pacing deciding when quanta run, never which.

Four panels. Over the recorded run's frames (live, uneven frames, a stall, a scripted user):
the speed asked for and the speed realized; the quanta each frame ran and the quanta the
stall guard dropped. Then the recording replayed under every pacing mode: the tick each
frame reached (the runs differ: pacing decides when quanta run), and the spring's position
over world time in each run, overlaid (one curve: never which). matplotlib (the ``plot``
extra) is imported only here, when a picture is asked for. The picture is drawn on a bare
``matplotlib.figure.Figure``, not through pyplot, so it leaves pyplot's backend and figures
alone (a notebook that calls it keeps its own).
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

from cvcclock._core import _REALIZED_WINDOW
from cvcclock._extras import install_hint
from cvcclock.checks import check_path
from cvcclock.demo._recording import (
    _STALL_FRAME,
    _STALL_WALL,
    DemoRecording,
    DemoReplay,
    record_demo,
    replay_demo,
)
from cvcclock.demo._spring import FIXED_DT

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["MISSING_MATPLOTLIB", "pacing_figure", "plot_pacing", "plot_target"]

MISSING_MATPLOTLIB = f"the picture needs matplotlib: {install_hint('plot')}"

REALIZED_WINDOW: float = _REALIZED_WINDOW
"""Wall seconds ``WorldClock.realized_scale`` measures over (at least; the core's rule)."""

RECORDED = "recorded: live, uneven frames, the user's speeds"
"""The recorded run's name in the legends; the replays are named by their pacing."""


def _matplotlib() -> Any:
    try:
        return importlib.import_module("matplotlib")
    except ImportError as error:
        raise ImportError(MISSING_MATPLOTLIB) from error


def plot_target(path: str | os.PathLike[str]) -> str:
    """The file :func:`plot_pacing` writes for ``path``, decided before anything is drawn.

    The extension picks the format: one matplotlib can write (``.png``, ``.svg``, ``.pdf``,
    ...). A path with no extension gets ``.png`` added: ``pacing`` writes ``pacing.png``.

    Parameters
    ----------
    path : str or path-like
        The image file asked for.

    Returns
    -------
    str
        The path that will be written.

    Raises
    ------
    TypeError
        If ``path`` is not a str or path-like.
    ValueError
        If ``path`` is empty or its extension names a format matplotlib cannot write.
    ImportError
        If matplotlib is not installed (the message says how to install it).
    """
    name = check_path(path, "path")
    _matplotlib()
    from matplotlib.backend_bases import FigureCanvasBase

    extension = os.path.splitext(name)[1].lstrip(".").lower()
    if not extension:
        return (name if name.endswith(".") else name + ".") + "png"
    formats = FigureCanvasBase.get_supported_filetypes()
    if extension not in formats:
        raise ValueError(f"path {name!r}: matplotlib cannot write .{extension} files; it "
                         f"writes {', '.join('.' + f for f in sorted(formats))} (no "
                         f"extension: .png)")
    return name


def plot_pacing(path: str | os.PathLike[str]) -> str:
    """Record the demo's scripted run, replay it under every pacing, draw the picture.

    Parameters
    ----------
    path : str or path-like
        The image file to write; its extension picks the format (``.png``, ``.svg``,
        ``.pdf``, ...); with none, a PNG at ``path`` + ``.png`` (see :func:`plot_target`).

    Returns
    -------
    str
        A line naming the file written.

    Raises
    ------
    TypeError
        If ``path`` is not a str or path-like.
    ValueError
        If ``path`` is empty or its extension names a format matplotlib cannot write
        (checked before drawing).
    ImportError
        If matplotlib is not installed (the message says how to install it).
    OSError
        If the file cannot be written.
    """
    target = plot_target(path)
    pacing_figure().savefig(target, dpi=90)
    return f"drew the pacing picture to {target}"


def pacing_figure() -> Figure:
    """Record the demo's scripted run, replay it under every pacing; the picture, undrawn.

    Returns
    -------
    matplotlib.figure.Figure
        Four panels (see the module's docstring), not attached to pyplot.

    Raises
    ------
    ImportError
        If matplotlib is not installed (the message says how to install it).
    """
    _matplotlib()
    from matplotlib.figure import Figure

    recording = record_demo()
    replays = [replay_demo(recording.trace, "live", speed=2.0),
               replay_demo(recording.trace, "live", speed=0.5),
               replay_demo(recording.trace, "lockstep"),
               replay_demo(recording.trace, "batch"),
               replay_demo(recording.trace, "step")]
    runs: dict[str, DemoRecording | DemoReplay] = {RECORDED: recording}
    runs.update((replay.pacing, replay) for replay in replays)
    figure = Figure(figsize=(10, 12.5), layout="constrained")
    speed, quanta, by_frame, by_time = figure.subplots(4, 1)
    figure.suptitle("cvcclock demo: pacing decides when quanta run, never which",
                    fontsize=14)
    _draw_speeds(speed, recording)
    _draw_quanta(quanta, recording)
    _draw_runs(by_frame, by_time, runs, recording)
    return figure


def _draw_speeds(axes: Any, recording: DemoRecording) -> None:
    frames = recording.frames
    axes.step(range(len(frames)), [f.requested for f in frames], where="post",
              label="requested (clock.scale, set by the scripted user)")
    axes.plot(range(len(frames)), [f.realized for f in frames],
              label="realized (clock.realized_scale)")
    stall = frames[_STALL_FRAME]
    axes.axvspan(_STALL_FRAME - 0.5, _STALL_FRAME + 0.5, color="tab:red", alpha=0.3)
    # The notes sit in the panel's empty spaces: above the first, level second of the run,
    # and between the half-speed stretch and the top.
    axes.annotate(f"frame {_STALL_FRAME}: a {_STALL_WALL:g} s stall; the stall guard\n"
                  f"ran {stall.steps} quanta and dropped {stall.dropped}, so the\n"
                  "realized speed of the window that holds it falls",
                  xy=(_STALL_FRAME, stall.realized), xytext=(0.02, 0.6),
                  textcoords="axes fraction", fontsize=8, color="tab:red",
                  arrowprops={"arrowstyle": "->", "color": "tab:red"})
    # The lag is plainest after the first change of speed past the stall.
    change = next(i for i in range(_STALL_FRAME + 2, len(frames))
                  if frames[i].requested != frames[i - 1].requested)
    lagging = (change + 4, frames[change + 4].realized)
    axes.annotate(f"the realized speed is measured over windows of at least "
                  f"{REALIZED_WINDOW:g} s of wall time,\nso it trails the requested speed "
                  "after each change",
                  xy=lagging, xytext=(0.42, 0.45), textcoords="axes fraction", fontsize=8,
                  arrowprops={"arrowstyle": "->"})
    axes.set(title="The recorded run: the speed the user asked for, and the speed the clock "
                   "ran at", xlabel="frame", ylabel="world s per wall s")
    axes.legend(fontsize=8, loc="upper right")


def _draw_quanta(axes: Any, recording: DemoRecording) -> None:
    frames = range(len(recording.frames))
    steps = [f.steps for f in recording.frames]
    axes.bar(frames, steps, width=1.0, label="quanta run")
    axes.bar(frames, [f.dropped for f in recording.frames], bottom=steps, width=1.0,
             color="tab:red", label="quanta dropped by the stall guard")
    axes.set(title="The quanta each frame of the recorded run ran, and those the stall "
                   "guard dropped", xlabel="frame", ylabel="quanta")
    axes.legend(fontsize=8, loc="upper right")


def _draw_runs(by_frame: Any, by_time: Any, runs: dict[str, DemoRecording | DemoReplay],
               recording: DemoRecording) -> None:
    styles = ["-", "--", ":", "-.", (0, (5, 1)), (0, (1, 2))]
    for i, ((name, run), style) in enumerate(zip(runs.items(), styles, strict=True)):
        by_frame.plot(range(1, len(run.frames) + 1), [f.tick for f in run.frames],
                      linestyle=style, linewidth=2, label=name)
        ticks = sorted(run.trajectory)
        # Solid, each thinner than the last, so the six coinciding curves show as one
        # banded line rather than hiding each other.
        by_time.plot([t * FIXED_DT for t in ticks], [run.trajectory[t][0] for t in ticks],
                     linewidth=9 - 1.5 * i, label=name)
    for entry in recording.trace.inputs:
        if entry.name == "kick":
            by_time.axvline(entry.tick * FIXED_DT, color="grey", linewidth=0.6)
    by_frame.set(title="The recorded run and its five replays: each reaches a tick at its own "
                       "frame (pacing decides when quanta run)", xlabel="frame", ylabel="tick")
    by_frame.legend(fontsize=8, loc="lower right")
    by_time.set(title="The spring in all six runs: one trajectory (pacing never decides "
                      "which quanta run)",
                xlabel="world time (s); grey lines: the user's kicks",
                ylabel="the spring's position x (m)")
    # Under the panel: inside it, the legend would hide the curve it names.
    by_time.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=3,
                   title="six runs, one curve (drawn each thinner than the last)",
                   title_fontsize=8)
