"""The demo's recorded run: a user's scripted inputs, recorded live, replayed under any pacing.

The recording drives the demo's spring (a step every 0.06 s on a 0.01 s clock) live with
uneven frames and one stall (the stall guard drops quanta), while a scripted user changes the
speed and kicks the spring at irregular ticks. Each input is stamped with the tick the clock
had when it was given; the trace keeps the world's state hash after every step.
``replay_demo`` plays such a trace back live (at the recorded speeds or one fixed speed), in
lockstep, in batches or one quantum at a time, and reports the final tick, the trajectory's
hash and the state hashes that differ. Wall time is passed explicitly: nothing sleeps.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import random
from collections.abc import Callable

from cvcclock import ClockConfig, Mode, StepResult, WorldClock
from cvcclock.checks import check_count, check_path, check_real, check_seconds
from cvcclock.demo._spring import FIXED_DT, FRAME, TICKS, Spring, State
from cvcclock.replay import Divergence, InputTrace, Recorder, Replayer

__all__ = ["PACINGS", "SCRIPT", "SEED", "SPRING_DT", "WORLD", "DemoRecording", "DemoReplay",
           "FrameStats", "record_demo", "replay_demo", "save_recording", "trajectory_hash"]

SPRING_DT = 0.06
SEED = 20240601
WORLD = "cvcclock demo spring"   # the trace's metadata["world"]: what replay_demo can replay

SCRIPT: tuple[tuple[int, str, float], ...] = (
    (47, "kick", 1.5), (131, "speed", 2.0), (203, "kick", -2.0), (290, "speed", 0.5),
    (347, "kick", 0.8), (419, "speed", 1.0), (468, "kick", -1.2), (551, "kick", 2.5))
"""The scripted user: (tick, input, value), each given at the first frame that reaches the
tick (and stamped with the tick that frame reached)."""

_STALL_FRAME = 60      # the frame that lasts _STALL_WALL seconds: the stall guard drops
_STALL_WALL = 0.25     # what exceeds its cap


@dataclasses.dataclass(frozen=True)
class FrameStats:
    """One frame of a run: the speed asked for and realized, the quanta run and dropped, the
    tick it reached."""

    requested: float
    realized: float
    steps: int
    dropped: int
    tick: int


@dataclasses.dataclass(frozen=True)
class DemoRecording:
    """The recorded run: its trace, its frames and the spring's trajectory by due tick."""

    trace: InputTrace
    frames: tuple[FrameStats, ...]
    trajectory: dict[int, State] = dataclasses.field(repr=False)


@dataclasses.dataclass(frozen=True)
class DemoReplay:
    """One replay of a demo trace.

    Attributes
    ----------
    pacing : str
        How it was paced, in words.
    final_tick : int
        The clock's tick at the end.
    trajectory : dict
        The spring's state after each step, by due tick, up to ``final_tick``.
    frames : tuple of FrameStats
        One per advancing call.
    checked : int
        Recorded state hashes compared.
    divergences : tuple of Divergence
        The state hashes that differed, by tick.
    """

    pacing: str
    final_tick: int
    trajectory: dict[int, State] = dataclasses.field(repr=False)
    frames: tuple[FrameStats, ...] = dataclasses.field(repr=False)
    checked: int
    divergences: tuple[Divergence, ...]

    @property
    def matched(self) -> bool:
        """Whether every recorded state hash compared was equal."""
        return not self.divergences


def trajectory_hash(trajectory: dict[int, State]) -> str:
    """A short sha256 of a trajectory (its ``(due tick, state)`` pairs in tick order)."""
    return hashlib.sha256(repr(sorted(trajectory.items())).encode()).hexdigest()[:12]


def record_demo() -> DemoRecording:
    """Record the scripted run: live, uneven frames, one stall, speed changes and kicks."""
    clock = WorldClock(ClockConfig(fixed_dt=FIXED_DT, cap_scales_with_rate=True))
    spring = Spring()
    trajectory: dict[int, State] = {}
    recorder = Recorder(spring, clock, SPRING_DT, seed=SEED, hash_every=1, keyframe_every=10,
                        metadata={"world": WORLD},
                        on_step=lambda due: trajectory.__setitem__(due, spring.snapshot()))
    frame_times = random.Random(SEED)
    script = list(SCRIPT)
    frames = []
    while clock.tick < TICKS:
        stalled = clock.frame == _STALL_FRAME
        wall = _STALL_WALL if stalled else frame_times.uniform(1 / 120, 1 / 30)
        requested = clock.scale
        result = clock.advance(wall)
        while script and script[0][0] <= clock.tick:   # the user acts during this frame
            _, name, value = script.pop(0)
            if name == "speed":
                clock.scale = value
            recorder.give(name, value)
        recorder.pump()
        frames.append(FrameStats(requested, clock.realized_scale, result.steps, result.dropped,
                                 clock.tick))
    recorder.metadata["trajectory"] = trajectory_hash(trajectory)
    return DemoRecording(recorder.trace(), tuple(frames), trajectory)


def save_recording(path: str | os.PathLike[str]) -> str:
    """Record the scripted run and save its trace to ``path``; return a line saying so.

    The line gives the file's size and the bytes each input takes in it (the file's size
    less that of the same trace without its inputs, per input).

    Raises
    ------
    OSError
        If the file cannot be written.
    """
    path = check_path(path, "path")
    trace = record_demo().trace
    size = trace.save(path)
    bare = InputTrace(trace.header, (), trace.hashes, trace.end_tick)
    per_input = (size - sum(len(line) + 1 for line in bare.lines())) / len(trace.inputs)
    return (f"recorded {len(trace.inputs)} inputs and {len(trace.hashes)} state hashes to "
            f"{path}: {size} bytes, {per_input:.1f} bytes per input")


def _frame(pacing: str) -> tuple[Mode, Callable[[WorldClock], StepResult]]:
    """The clock's mode and one frame's advancing call for ``pacing``."""
    return {
        "live": (Mode.LIVE, lambda c: c.advance(FRAME)),
        "lockstep": (Mode.LOCKSTEP, lambda c: c.advance(FRAME)),   # 3 quanta a frame
        "batch": (Mode.LIVE, lambda c: c.advance_ticks(37)),
        "step": (Mode.STEPPING, lambda c: c.step_once()),
    }[pacing]


PACINGS = ("live", "lockstep", "batch", "step")
"""The pacings ``replay_demo`` knows."""


def replay_demo(trace: InputTrace, pacing: str = "live", *, speed: float | None = None,
                to: int | None = None) -> DemoReplay:
    """Replay a demo trace under ``pacing`` up to tick ``to``; collect what differs.

    Parameters
    ----------
    trace : InputTrace
        A trace ``record_demo`` made (its metadata names the demo's world).
    pacing : {"live", "lockstep", "batch", "step"}
        Live frames of 1/60 s; lockstep, 3 quanta a frame; batches of 37 quanta; one
        quantum a frame.
    speed : float, optional
        Live only: one speed for the whole replay, from 0.01 to 100; the recorded speed
        changes when omitted.
    to : int, optional
        Stop at this tick, from the trace's start to its end (a frame that runs past it is
        undone by a seek); the end when omitted.

    Returns
    -------
    DemoReplay

    Raises
    ------
    ValueError
        If the trace is not the demo's, or for a bad pacing, speed or tick.
    """
    if trace.header.metadata.get("world") != WORLD:
        raise ValueError(f"the trace's world is {trace.header.metadata.get('world')!r}; this "
                         f"command replays the demo's ({WORLD!r}, from 'cvcclock demo --record')")
    if pacing not in PACINGS:
        raise ValueError(f"pacing must be one of {', '.join(PACINGS)}, got {pacing!r}")
    if speed is not None:
        if pacing != "live":
            raise ValueError(f"speed applies to live pacing only, not {pacing!r}")
        speed = check_seconds(speed, "speed", minimum=0.01, maximum=100.0)
    target = trace.end_tick if to is None else check_count(
        to, "to", minimum=trace.header.start_tick, maximum=trace.end_tick)
    mode, frame = _frame(pacing)
    clock = WorldClock(ClockConfig(fixed_dt=FIXED_DT, scale=speed or 1.0,
                                   cap_scales_with_rate=True, lockstep_steps=3))
    clock.mode = mode
    spring = Spring()
    trajectory: dict[int, State] = {}
    replayer = Replayer(spring, clock, trace, on_divergence="collect",
                        on_step=lambda due: trajectory.__setitem__(due, spring.snapshot()))
    speeds = [e for e in trace.inputs if e.name == "speed"] if pacing == "live" and \
        speed is None else []
    frames = []
    while clock.tick < target:
        while speeds and speeds[0].tick <= clock.tick:   # the recorded user's pacing
            clock.scale = check_real(speeds.pop(0).value, "speed")
        requested = clock.scale
        result = frame(clock)
        replayer.pump()
        frames.append(FrameStats(requested, clock.realized_scale, result.steps, result.dropped,
                                 clock.tick))
    if clock.tick > target:
        clock.mode = Mode.REPLAY
        replayer.seek(target)
    words = {"live": f"live at {speed:g}x" if speed else "live at the recorded speeds",
             "lockstep": "lockstep, 3 quanta a frame", "batch": "batches of 37 quanta",
             "step": "one quantum a frame"}[pacing]
    # A frame that ran past the target compared hashes the seek then took back: not counted.
    return DemoReplay(words, clock.tick, {t: s for t, s in trajectory.items() if t <= target},
                      tuple(frames), sum(1 for t in replayer.checked if t <= target),
                      tuple(d for d in replayer.divergences if d.tick <= target))
