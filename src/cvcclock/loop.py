"""FrameLoop: drive the clock at a target frame rate, in real time or as a capture.

Real time paces by deadline (the n-th frame is due at ``start + n / fps``), sleeping until
shortly before each deadline and spinning on ``perf_counter`` for the rest, and passes the
measured wall time to ``drive``. A capture passes a fixed ``wall_dt = 1 / fps`` and never
sleeps, so a rerun reproduces it frame for frame.
"""

from __future__ import annotations

import collections
import inspect
import math
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from cvcclock._core import StepResult, WorldClock
from cvcclock.checks import check_bool, check_callable, check_count, check_real, check_seconds

__all__ = ["FrameDriver", "FrameLoop", "PacingStats"]

OnFrame = Callable[[int, StepResult], object]
Until = Callable[[], bool]

# asyncio rounds a selector's timeout up to a whole millisecond, so run_async wakes up to
# this much later than asked; it stops its coarse sleep this much earlier than run does.
_ASYNC_SLACK = 1e-3

# The spin's yield: releases the GIL so a SimThread's worker is not starved. On Linux
# time.sleep(0) is a nanosleep costing ~80 us of timer slack, sched_yield ~2 us.
_yield: Callable[[], object] = getattr(os, "sched_yield", None) or (lambda: time.sleep(0))

# The frames FrameLoop.fps averages over: pygame's Clock.get_fps window, a sixth of a second
# at 60 fps, so it follows a change of pace within a few frames.
_FPS_WINDOW = 10

# The frame-time errors a run keeps for its statistics: the most recent this many frames, so
# an open-ended run's memory stays bounded (about 18 minutes at 60 fps).
_WINDOW = 65_536


@runtime_checkable
class FrameDriver(Protocol):
    """What a ``FrameLoop`` drives besides a bare ``WorldClock``: a binding.

    ``drive(wall_dt)`` advances ``clock`` by ``wall_dt`` wall seconds (applying whatever
    controls the binding keeps) and returns the frame's ``StepResult``; ``WorldClockBinding``
    is one.
    """

    @property
    def clock(self) -> WorldClock:
        """The clock the driver advances."""

    def drive(self, wall_dt: float | None = None, /) -> StepResult:
        """Advance the clock by one frame of ``wall_dt`` wall seconds."""


@dataclass(frozen=True, slots=True)
class PacingStats:
    """How a ``FrameLoop.run`` kept time.

    Attributes
    ----------
    frames : int
        Frames driven.
    median_error, p99_error : float
        Median and 99th percentile (nearest rank) of ``|frame time - 1/fps|`` in seconds, the
        frame time being the wall time passed to ``drive``, over the run's most recent 65,536
        frames (about 18 minutes at 60 fps; a longer run keeps only those, so its memory is
        bounded); 0.0 for a capture (its frames are exact by construction) and for a run of
        no frames. The other fields cover the whole run.
    dropped : int
        Quanta the clock's stall guard dropped during the run.
    realized_scale : float
        World seconds run per wall second passed to ``drive`` over the whole run; 0.0 for
        a run of no frames.
    late : int
        Frames that woke more than a frame late, after which the schedule was
        resynchronised to the late frame instead of bursting to catch up.
    """

    frames: int
    median_error: float
    p99_error: float
    dropped: int
    realized_scale: float
    late: int


def _refuse_coroutine_function(name: str, value: object, why: str) -> None:
    """A coroutine function (or an object whose ``__call__`` is one) is refused: called
    without ``await`` it returns a coroutine and its body never runs."""
    # An instance's __call__, read on its class as the call does; a class's call makes one.
    call = None if isinstance(value, type) else getattr(type(value), "__call__", None)  # noqa: B004
    if inspect.iscoroutinefunction(value) or inspect.iscoroutinefunction(call):
        raise TypeError(f"{name} must not be a coroutine function, got {value!r}: {why}")


def _refuse_coroutine(value: object, frame: int) -> None:
    """``run``'s ``on_frame`` returned a coroutine: closed (never started, so no "never
    awaited" warning follows), then refused."""
    if inspect.iscoroutine(value):
        value.close()
        raise TypeError(f"on_frame returned a coroutine on frame {frame}, got {value!r}: "
                        f"FrameLoop.run never awaits it; run an async on_frame with "
                        f"FrameLoop.run_async")


class _FrameRate:
    """The live frame rate: frames per second over the last ``_FPS_WINDOW`` frame times.

    A fixed ring of frame times, so a frame stores one float and allocates nothing; a read
    sums the ring. Written only by the run's thread; a read from another thread racing a
    frame may be a frame behind or mix two frames' windows, never a crash.
    """

    __slots__ = ("_count", "_next", "_times")
    _times: list[float]
    _next: int
    _count: int

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._times = [0.0] * _FPS_WINDOW
        self._next = 0
        self._count = 0

    def add(self, wall_dt: float) -> None:
        self._times[self._next] = wall_dt
        self._next = (self._next + 1) % _FPS_WINDOW
        if self._count < _FPS_WINDOW:
            self._count += 1

    def read(self) -> float:
        total = sum(self._times)    # the slots not yet written are 0.0
        return self._count / total if total > 0.0 else 0.0


def _check_fps(value: object) -> float:
    """A frame rate: a finite real number > 0 whose period ``1 / fps`` is finite too."""
    fps = check_real(value, "fps")
    if not fps > 0.0 or not math.isfinite(1.0 / fps):
        raise ValueError(f"fps must be > 0 with a finite period 1 / fps, got {value!r}")
    return fps


class _Run:
    """One run's schedule and tallies, shared by ``run`` and ``run_async``.

    Checks the run's arguments before anything else. Made by each call and touched only by
    the thread running it, the driver (src/_core/threads.pxi): the statistics are never
    shared, so they need no lock with the GIL or without it.
    """

    def __init__(self, loop: FrameLoop, on_frame: object, max_frames: int | None,
                 until: Until | None) -> None:
        check_callable(on_frame, "on_frame", optional=True)
        check_callable(until, "until", optional=True)
        _refuse_coroutine_function("until", until, "the loop calls until() without awaiting "
                                   "it, and a coroutine is true, so the run would stop at once")
        self.max_frames = None if max_frames is None else check_count(max_frames, "max_frames")
        loop._rate.reset()        # the arguments are good: from here on the run has begun
        self.loop = loop
        self.until = until
        self.frames = 0
        self.errors: collections.deque[float] = collections.deque(maxlen=_WINDOW)
        self.dropped = 0
        self.world_s = 0.0
        self.wall_s = 0.0
        self.late = 0
        self.last = time.perf_counter()
        self.deadline = self.last + loop.period

    def more(self) -> bool:
        if self.max_frames is not None and self.frames >= self.max_frames:
            return False
        return self.until is None or not self.until()

    def coarse_sleep(self) -> float:
        """Seconds to sleep before spinning to the deadline; 0 in a capture."""
        if self.loop.capture:
            return 0.0
        return self.deadline - time.perf_counter() - self.loop.spin

    def frame(self) -> tuple[int, StepResult]:
        """Spin to the deadline, drive one frame, and schedule the next."""
        loop = self.loop
        if loop.capture:
            wall_dt = loop.period
        else:
            while time.perf_counter() < self.deadline:
                _yield()
            now = time.perf_counter()
            if now - self.deadline > loop.period:
                self.deadline = now   # over a frame late: resynchronise rather than burst
                self.late += 1
            wall_dt = now - self.last
            self.last = now
            self.errors.append(abs(wall_dt - loop.period))
            self.deadline += loop.period
        result = loop._drive(wall_dt)
        loop._rate.add(wall_dt)
        self.dropped += result.dropped
        self.world_s += result.steps * loop.clock.fixed_dt
        self.wall_s += wall_dt
        index = self.frames
        self.frames += 1
        return index, result

    def stats(self) -> PacingStats:
        from statistics import median  # once per run: not worth its import for every process

        errors = sorted(self.errors)
        p99 = errors[math.ceil(0.99 * len(errors)) - 1] if errors else 0.0
        return PacingStats(
            frames=self.frames,
            median_error=median(errors) if errors else 0.0,
            p99_error=p99,
            dropped=self.dropped,
            realized_scale=self.world_s / self.wall_s if self.wall_s > 0.0 else 0.0,
            late=self.late)


class FrameLoop:
    """Drive a clock (or a binding) at ``fps`` frames per second.

    Parameters
    ----------
    driver : WorldClock or FrameDriver
        A ``WorldClock`` (each frame calls ``clock.advance(wall_dt)``) or any object with
        ``drive(wall_dt)`` and ``clock`` (each frame calls ``drive(wall_dt)``), such as a
        ``WorldClockBinding``.
    fps : float
        Target frames per second; a finite real number > 0 (``1 / fps`` finite too).
    capture : bool
        False: real time; each frame drives with the measured wall time since the last.
        True: a capture; each frame drives with exactly ``1 / fps`` and nothing sleeps.
        A bool (``numpy.bool_`` too).
    spin : float
        Seconds before each deadline to stop sleeping and spin on ``perf_counter``:
        ``time.sleep`` overshoots by tens of microseconds (more on a loaded machine), the
        spin does not. The spin yields the GIL on every turn.

    Raises
    ------
    TypeError
        If ``driver`` is neither a ``WorldClock`` nor has ``drive`` and ``clock``, ``fps``
        or ``spin`` is not a real number (a bool is not), or ``capture`` is not a bool.
    ValueError
        If ``fps`` or ``spin`` is out of range.

    Notes
    -----
    A frame loop runs on its clock's one driver thread; ``capture`` and ``spin`` are its
    configuration, set between runs.
    """

    def __init__(self, driver: WorldClock | FrameDriver, fps: float, *, capture: bool = False,
                 spin: float = 1e-3) -> None:
        if isinstance(driver, WorldClock):
            self._drive: Callable[[float], StepResult] = driver.advance
            self._clock = driver
        elif callable(getattr(driver, "drive", None)) and isinstance(
                getattr(driver, "clock", None), WorldClock):
            self._drive = driver.drive
            self._clock = driver.clock
        else:
            raise TypeError(f"driver must be a WorldClock or have drive(wall_dt) and a "
                            f"WorldClock .clock, got {driver!r}")
        self._target_fps = _check_fps(fps)
        self._capture = check_bool(capture, "capture")
        self._spin = check_seconds(spin, "spin")
        self._period = 1.0 / self._target_fps
        self._rate = _FrameRate()

    @property
    def capture(self) -> bool:
        """Whether runs are captures; assignable, checked as in the constructor."""
        return self._capture

    @capture.setter
    def capture(self, value: bool) -> None:
        self._capture = check_bool(value, "capture")

    @property
    def spin(self) -> float:
        """Seconds of spinning before each deadline; assignable, checked as in the constructor."""
        return self._spin

    @spin.setter
    def spin(self, value: float) -> None:
        self._spin = check_seconds(value, "spin")

    @property
    def clock(self) -> WorldClock:
        """The clock driven."""
        return self._clock

    @property
    def target_fps(self) -> float:
        """The target frame rate, the constructor's ``fps``."""
        return self._target_fps

    @property
    def fps(self) -> float:
        """The live frame rate: frames per second over the last 10 frames driven.

        The realized rate, not the target: 10 divided by the sum of the last 10 frame times
        passed to ``drive`` (fewer at the start of a run), like pygame's
        ``Clock.get_fps()``. It counts the frame being handled, so ``on_frame`` reads it up
        to date; in a capture every frame time is ``1 / target_fps``, so it reads
        ``target_fps`` (to the rounding of the sum). 0.0 before the first frame of a run
        (each run starts afresh); after a run, the rate of its last frames. Reading it costs
        a sum of 10 floats, and a frame stores one float in a fixed ring, allocating nothing.
        """
        return self._rate.read()

    @property
    def period(self) -> float:
        """The target frame time, ``1 / target_fps`` seconds (a capture's ``wall_dt``)."""
        return self._period

    def run(self, on_frame: OnFrame | None = None, *, max_frames: int | None = None,
            until: Until | None = None) -> PacingStats:
        """Drive frames until ``max_frames`` or ``until``, calling ``on_frame`` after each.

        Parameters
        ----------
        on_frame : callable or None
            ``on_frame(frame, result)`` after each frame is driven: ``frame`` counts from 0
            in this run, ``result`` is the frame's ``StepResult``. Its return value is
            ignored; an exception stops the run and propagates.
        max_frames : int or None
            Stop after this many frames; None for no limit.
        until : callable or None
            ``until()`` is called before each frame; the run stops when it returns True.

        Returns
        -------
        PacingStats

        Raises
        ------
        TypeError
            If ``on_frame`` or ``until`` is neither callable nor None, ``on_frame`` or
            ``until`` is a coroutine function (``run_async`` awaits an async ``on_frame``),
            or ``max_frames`` is neither an integer (a bool is not) nor None; checked before
            the first frame, so nothing has changed. Also if ``on_frame`` returns a
            coroutine: that frame has been driven, the coroutine is closed unstarted, and
            the run stops.
        ValueError
            If ``max_frames`` is negative or above 2**62.
        """
        _refuse_coroutine_function("on_frame", on_frame, "FrameLoop.run would call it without "
                                   "awaiting, so its body would never run; use "
                                   "FrameLoop.run_async, which awaits it")
        run = _Run(self, on_frame, max_frames, until)
        while run.more():
            delay = run.coarse_sleep()
            if delay > 0.0:
                time.sleep(delay)
            frame, result = run.frame()
            if on_frame is not None:
                _refuse_coroutine(on_frame(frame, result), frame)
        return run.stats()

    async def run_async(self, on_frame: OnFrame | Callable[[int, StepResult], Awaitable[object]]
                        | None = None, *, max_frames: int | None = None,
                        until: Until | None = None) -> PacingStats:
        """``run`` for asyncio hosts: the coarse sleep is ``await asyncio.sleep``.

        ``on_frame`` may be a plain function or a coroutine function (awaited). Other tasks
        run while the loop sleeps; the final spin (``spin`` seconds plus a millisecond, as
        asyncio's timers are only that precise) and the frame itself do not yield. A capture
        still yields once per frame, so it cannot starve the event loop. Parameters, result
        and errors as ``run``; the arguments are checked when the coroutine starts, before
        its first frame.
        """
        import asyncio  # here, not at the top: a plain frame loop never pays its import
        import inspect

        run = _Run(self, on_frame, max_frames, until)
        while run.more():
            await asyncio.sleep(max(run.coarse_sleep() - _ASYNC_SLACK, 0.0))
            frame, result = run.frame()
            if on_frame is not None:
                out = on_frame(frame, result)
                if inspect.isawaitable(out):
                    await out
        return run.stats()

    def __repr__(self) -> str:
        kind = "capture" if self.capture else "real time"
        return (f"<FrameLoop target {self._target_fps!r} fps, live {self.fps:.1f} fps, {kind}, "
                f"clock tick={self._clock.tick}>")
