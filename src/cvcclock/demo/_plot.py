"""``cvcclock demo --plot``: a picture of pacing deciding when quanta run, never which.

Four panels. Over the recorded run's frames (live, uneven frames, a stall, a scripted user):
the speed asked for and the speed realized; the quanta each frame ran and the quanta the
stall guard dropped. Then the recording replayed under every pacing mode: the tick each
frame reached (the runs differ: pacing decides when quanta run), and the spring's position
over world time in each run, overlaid (one curve: never which). matplotlib (the ``plot``
extra) is imported only here, when a picture is asked for.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from cvcclock.demo._recording import DemoRecording, DemoReplay, record_demo, replay_demo
from cvcclock.demo._spring import FIXED_DT

__all__ = ["MISSING_MATPLOTLIB", "plot_pacing"]

MISSING_MATPLOTLIB = "the picture needs matplotlib: pip install 'cvcclock[plot]'"


def _pyplot() -> Any:
    """matplotlib.pyplot on the file-only Agg backend (no display needed)."""
    matplotlib = importlib.import_module("matplotlib")
    matplotlib.use("Agg")
    return importlib.import_module("matplotlib.pyplot")


def plot_pacing(path: str | os.PathLike[str]) -> str:
    """Record the demo's scripted run, replay it under every pacing, draw the picture.

    Parameters
    ----------
    path : str or path-like
        The image file to write; its suffix picks the format (``.png``, ``.svg``, ``.pdf``).

    Returns
    -------
    str
        A line saying what was written.

    Raises
    ------
    ImportError
        If matplotlib is not installed (the message says how to install it).
    """
    try:
        plt = _pyplot()
    except ImportError as error:
        raise ImportError(MISSING_MATPLOTLIB) from error
    recording = record_demo()
    runs: dict[str, DemoRecording | DemoReplay] = {
        "recorded: live, uneven frames, speed changes": recording,
        "live 2x": replay_demo(recording.trace, "live", speed=2.0),
        "live 0.5x": replay_demo(recording.trace, "live", speed=0.5),
        "lockstep, 3 quanta a frame": replay_demo(recording.trace, "lockstep"),
        "batches of 37 quanta": replay_demo(recording.trace, "batch"),
        "one quantum a frame": replay_demo(recording.trace, "step")}
    figure, (speed, quanta, by_frame, by_time) = plt.subplots(4, 1, figsize=(10, 12))
    figure.suptitle("cvcclock demo: pacing decides when quanta run, never which",
                    fontsize=14)
    _draw_speeds(speed, recording)
    _draw_quanta(quanta, recording)
    styles = ["-", "--", ":", "-.", (0, (5, 1)), (0, (1, 2))]
    for (name, run), style in zip(runs.items(), styles, strict=True):
        by_frame.plot(range(1, len(run.frames) + 1), [f.tick for f in run.frames],
                      linestyle=style, linewidth=2, label=name)
        ticks = sorted(run.trajectory)
        by_time.plot([t * FIXED_DT for t in ticks], [run.trajectory[t][0] for t in ticks],
                     linestyle=style, linewidth=2, label=name)
    for entry in recording.trace.inputs:
        if entry.name == "kick":
            by_time.axvline(entry.tick * FIXED_DT, color="grey", linewidth=0.6)
    by_frame.set(title="the recording replayed under each pacing: the tick each frame "
                       "reached (when quanta ran)", xlabel="frame", ylabel="tick")
    by_frame.legend(fontsize=8, loc="lower right")
    by_time.set(title="the spring's position in each of those runs, overlaid: one curve "
                      "(which quanta ran; grey: the recorded kicks)",
                xlabel="world time (s)", ylabel="x (m)")
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    plt.close(figure)
    return f"drew the pacing picture to {os.fspath(path)}"


def _draw_speeds(axes: Any, recording: DemoRecording) -> None:
    frames = range(len(recording.frames))
    axes.step(frames, [f.requested for f in recording.frames], where="post",
              label="requested (clock.scale, set by the scripted user)")
    axes.plot(frames, [f.realized for f in recording.frames],
              label="realized (clock.realized_scale)")
    axes.set(title="the recorded run: live, uneven frames, one 0.25 s stall",
             xlabel="frame", ylabel="world s per wall s")
    axes.legend(fontsize=8, loc="upper right")


def _draw_quanta(axes: Any, recording: DemoRecording) -> None:
    frames = range(len(recording.frames))
    steps = [f.steps for f in recording.frames]
    axes.bar(frames, steps, width=1.0, label="quanta run")
    axes.bar(frames, [f.dropped for f in recording.frames], bottom=steps, width=1.0,
             color="tab:red", label="quanta dropped by the stall guard")
    axes.set(title="quanta per frame", xlabel="frame", ylabel="quanta")
    axes.legend(fontsize=8, loc="upper right")
