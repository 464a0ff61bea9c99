"""Running a simulation with its panel: the loop the commands share.

:func:`serve` is what ``cvcclock demo --panel``, ``cvcclock replay TRACE --panel`` (and the
Scenic command's ``--panel``) call: start a panel, print its URL, run a real-time
``FrameLoop`` over the binding until Ctrl-C (or a frame limit), close the panel.
:func:`serve_demo` and :func:`serve_replay` build the demo's worlds for it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from cvcclock import (
    ClockConfig,
    ClockFollower,
    FrameLoop,
    Mode,
    PacingStats,
    StepResult,
    WorldClock,
    WorldClockBinding,
)
from cvcclock.checks import check_callable
from cvcclock.demo import FIXED_DT, SPRING_DT, WORLD, Ball, Spring
from cvcclock.panel._panel import Panel, StepFollower
from cvcclock.replay import InputTrace, Replayer

__all__ = ["serve", "serve_demo", "serve_replay"]

_KICK_EVERY = 300   # the live demo kicks its spring every 3 world seconds, so it keeps moving


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


def _demo_clock() -> WorldClock:
    return WorldClock(ClockConfig(fixed_dt=FIXED_DT, cap_scales_with_rate=True,
                                  lockstep_steps=3))


def serve_demo(*, host: str = "127.0.0.1", port: int = 0, max_frames: int | None = None,
               out: TextIO | None = None) -> PacingStats:
    """The demo's spring and ball, live, with a panel: ``cvcclock demo --panel``.

    The spring steps every 0.06 s (the step button runs one of its steps, 6 quanta), the ball
    every quantum; the spring is kicked every 3 world seconds. Parameters as :func:`serve`.
    """
    clock = _demo_clock()
    binding = WorldClockBinding({}, clock)
    spring, ball = Spring(), Ball()
    spring_steps = ClockFollower.for_step(clock, SPRING_DT)
    ball_steps = ClockFollower.for_step(clock, FIXED_DT)

    def on_frame(frame: int, result: StepResult) -> None:
        for due in spring_steps.take_due(clock):
            if due % _KICK_EVERY == 0:
                spring.apply("kick", 1.0)
            spring.step(SPRING_DT)
        for _ in range(ball_steps.take(clock)):
            ball.step(FIXED_DT)

    return serve(binding, on_frame=on_frame, follower=spring_steps, host=host, port=port,
                 max_frames=max_frames, out=out)


def serve_replay(trace: InputTrace, *, host: str = "127.0.0.1", port: int = 0,
                 max_frames: int | None = None, out: TextIO | None = None) -> PacingStats:
    """A demo trace replayed live with a panel to scrub it: ``cvcclock replay TRACE --panel``.

    The replay starts at the recorded speeds' first (1x) and pauses at the recording's end;
    the page's scrub bar seeks anywhere in it. Parameters as :func:`serve`.

    Raises
    ------
    ValueError
        If the trace is not one of the demo's (``cvcclock demo --record``).
    """
    if trace.header.metadata.get("world") != WORLD:
        raise ValueError(f"the trace's world is {trace.header.metadata.get('world')!r}; the "
                         f"panel replays the demo's ({WORLD!r}, from 'cvcclock demo --record')")
    clock = _demo_clock()
    clock.mode = Mode.LIVE
    binding = WorldClockBinding({}, clock)
    replayer = Replayer(Spring(), clock, trace, on_divergence="collect")
    paused_key = binding.keys.paused
    ended = [False]

    def on_frame(frame: int, result: StepResult) -> None:
        replayer.pump()   # the panel's seeks are applied in here, on this thread
        done = replayer.done
        if done and not ended[0] and paused_key:   # the end: pause, as a player does
            binding.tree[paused_key] = True
        ended[0] = done

    return serve(binding, on_frame=on_frame, replayer=replayer, host=host, port=port,
                 max_frames=max_frames, out=out)
