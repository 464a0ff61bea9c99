"""Running a simulation with its panel: the loop the commands share.

:func:`serve` is what ``cvcclock demo --panel``, ``cvcclock replay TRACE --panel`` (and the
Scenic command's ``--panel``) call: start a panel, print its URL, run a real-time
``FrameLoop`` over the binding until Ctrl-C (or a frame limit), close the panel. The
commands build their worlds (``cvcclock.cli._panel``): no wing but the command line imports
the demo.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from cvcclock import FrameLoop, PacingStats, StepResult, WorldClockBinding
from cvcclock.checks import check_callable
from cvcclock.panel._panel import Panel, StepFollower
from cvcclock.replay import Replayer

__all__ = ["serve"]


def serve(binding: WorldClockBinding, *,
          on_frame: Callable[[int, StepResult], object] | None = None,
          replayer: Replayer | None = None, follower: StepFollower | None = None,
          host: str = "127.0.0.1", port: int = 0, fps: float = 60.0,
          max_frames: int | None = None, until: Callable[[], bool] | None = None,
          out: TextIO | None = None) -> PacingStats:
    """Drive ``binding`` in real time with its panel until Ctrl-C; print the panel's URL.

    Parameters
    ----------
    binding : WorldClockBinding
        What the loop drives and the page controls.
    on_frame : callable, optional
        ``on_frame(frame, result)`` after each frame (step the worlds, ``replayer.pump()``),
        as ``FrameLoop.run`` takes it.
    replayer, follower, host, port
        As :class:`Panel` takes them.
    fps : float
        The loop's frame rate.
    max_frames : int, optional
        Stop after this many frames; by default the loop runs until Ctrl-C.
    until : callable, optional
        ``until()`` before each frame; the loop stops when it returns True.
    out : text file, optional
        Where the URL is printed; ``sys.stdout`` by default.

    Returns
    -------
    PacingStats
        How the loop kept time; a Ctrl-C ends the loop as a normal stop (the frames so far
        are not reported, so the stats are those of no frames).

    Raises
    ------
    OSError
        If the panel's address cannot be bound.
    """
    check_callable(on_frame, "on_frame", optional=True)
    out = sys.stdout if out is None else out
    loop = FrameLoop(binding, fps)
    with Panel(binding, host=host, port=port, replayer=replayer, follower=follower) as panel:
        print(f"cvcclock panel: {panel.url}", file=out, flush=True)
        print("open it in a browser; Ctrl-C stops", file=out, flush=True)
        try:
            return loop.run(on_frame, max_frames=max_frames, until=until)
        except KeyboardInterrupt:
            print("cvcclock panel: stopped", file=out, flush=True)
            return PacingStats(0, 0.0, 0.0, 0, 0.0, 0)
