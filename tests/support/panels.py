"""A live simulation with its panel, driven in real time on a thread of its own, for tests.

``LiveRun`` is the host's side of a panel test: a clock at 0.01 s, a binding over a dict, the
demo's spring stepping every 6 quanta (a follower, so the step button runs 6 quanta), or a
demo trace replayed, and a ``FrameLoop`` at 60 fps on a driver thread. Each frame is logged
(the tick, the mode, the quanta run, the tree's ``sim.paused``), so a test can say what
happened within how many frames. Every wait is bounded; ``close`` stops the loop and the panel
within seconds.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cvcclock import (
    ClockConfig,
    ClockFollower,
    FrameLoop,
    Mode,
    StepResult,
    WorldClock,
    WorldClockBinding,
)
from cvcclock.demo import FIXED_DT, SPRING_DT, Spring, record_demo
from cvcclock.panel import Panel
from cvcclock.replay import InputTrace, Replayer

WAIT = 10.0   # the longest a test waits for anything a page asked for


@dataclass(frozen=True)
class Frame:
    """One frame as the driver saw it after ``drive``."""

    frame: int
    tick: int
    mode: Mode
    steps: int
    paused_key: object
    scale: float


_TRACE: list[InputTrace] = []


def demo_trace() -> InputTrace:
    """The demo's recording (made once per process)."""
    if not _TRACE:
        _TRACE.append(record_demo().trace)
    return _TRACE[0]


def demo_clock() -> WorldClock:
    return WorldClock(ClockConfig(fixed_dt=FIXED_DT, cap_scales_with_rate=True,
                                  lockstep_steps=3))


class LiveRun:
    """A binding driven at 60 fps on a driver thread, with a started panel.

    Parameters
    ----------
    replay : bool
        Replay the demo's trace (the panel gets the replayer, so it can scrub) instead of
        the live spring.
    fps : float
        The loop's frame rate.
    panel : bool
        Start a panel (False: the same run without one, for a benchmark's baseline).
    """

    def __init__(self, *, replay: bool = False, fps: float = 60.0, panel: bool = True) -> None:
        self.clock = demo_clock()
        self.tree: dict[str, Any] = {}
        self.binding = WorldClockBinding(self.tree, self.clock)
        self.frames: list[Frame] = []
        self.replayer: Replayer | None = None
        if replay:
            self.replayer = Replayer(Spring(), self.clock, demo_trace(), on_divergence="collect")
            self.spring = self.replayer.follower.world
            self.follower: Any = self.replayer.follower
        else:
            self.spring = Spring()
            self.follower = ClockFollower.for_step(self.clock, SPRING_DT)
        self.panel = Panel(self.binding, replayer=self.replayer,
                           follower=self.follower) if panel else None
        self._stop = threading.Event()
        self._failure: BaseException | None = None
        self._loop = FrameLoop(self.binding, fps)
        self.drive_seconds = 0.0   # wall time inside binding.drive (the driver's cost)
        if self.panel is not None:
            self.panel.start()
        self._thread = threading.Thread(target=self._run, name="test-driver", daemon=True)
        self._thread.start()

    # -- the driver's thread -------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._loop.run(self._on_frame, until=self._stop.is_set)
        except BaseException as error:  # noqa: BLE001 - re-raised by close()
            self._failure = error

    def _on_frame(self, frame: int, result: StepResult) -> None:
        if self.replayer is not None:
            self.replayer.pump()
        else:
            for _ in range(self.follower.take(self.clock)):
                self.spring.step(SPRING_DT)
        clock = self.clock
        self.frames.append(Frame(clock.frame, clock.tick, clock.mode, result.steps,
                                 self.tree.get("sim.paused"), clock.scale))

    # -- the test's thread -----------------------------------------------------------------

    def wait(self, predicate: Callable[[], object], what: str, timeout: float = WAIT) -> None:
        """Poll ``predicate`` until it is true; fail naming ``what`` after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if self._failure is not None:
                raise AssertionError(f"the driver failed while waiting for {what}"
                                     ) from self._failure
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: not within {timeout} s (tick {self.clock.tick}, "
                                     f"mode {self.clock.mode.value}, tree {self.tree})")
            time.sleep(0.005)

    def wait_frames(self, n: int) -> None:
        """Wait until ``n`` more frames have been driven."""
        target = len(self.frames) + n
        self.wait(lambda: len(self.frames) >= target, f"{n} more frames")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(WAIT)
        try:
            if self.panel is not None:
                self.panel.close()
        finally:
            assert not self._thread.is_alive(), "the driver thread did not stop"
            if self._failure is not None:
                raise self._failure

    def __enter__(self) -> LiveRun:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def straight_run(tick: int) -> tuple[float, float]:
    """The demo spring's state after a straight replay of the demo trace to ``tick``."""
    clock = demo_clock()
    clock.mode = Mode.STEPPING
    replayer = Replayer(Spring(), clock, demo_trace())
    clock.advance_ticks(tick)
    replayer.pump()
    return replayer.follower.world.snapshot()


def ws_url(panel: Panel) -> str:
    return panel.url.replace("http://", "ws://").replace("/?", "/ws?")


def origin(panel: Panel) -> str:
    return f"http://127.0.0.1:{panel.port}"
