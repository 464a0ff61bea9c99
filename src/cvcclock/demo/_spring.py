"""The determinism demo: one headless simulation under every pacing mode.

Two followers ride a ``WorldClock`` with ``fixed_dt = 0.01``: a damped spring stepping every
0.06 s (6 quanta) and a bouncing ball stepping every quantum. The same 6 world seconds (600
ticks) are driven live at 1x, 2x and 0.5x, live with uneven frame times, in lockstep, in
batches and one quantum at a time. Each follower step is recorded with the tick it fell due
at; the contract is that these trajectories are identical whatever the pacing. Wall time is
passed explicitly, so nothing sleeps and the demo finishes in a fraction of a second.
"""

import dataclasses
import hashlib
import random
import sys
from collections.abc import Callable
from typing import TextIO

from cvcclock import ClockConfig, ClockFollower, Mode, WorldClock
from cvcclock.checks import check_real

FIXED_DT = 0.01
TICKS = 600
FRAME = 1.0 / 60.0

State = tuple[float, float]
Trajectory = list[tuple[int, State]]


class Spring:
    """A damped spring, semi-implicit Euler; a ``cvcclock.replay.World`` (inputs: kicks)."""

    def __init__(self) -> None:
        self.x, self.v = 1.0, 0.0

    def step(self, dt: float) -> State:
        self.v += (-40.0 * self.x - 0.8 * self.v) * dt
        self.x += self.v * dt
        return (self.x, self.v)

    def apply(self, name: str, value: object) -> None:
        """``kick``: add ``value`` m/s to the velocity. ``speed`` is the host's pacing (the
        clock's scale), recorded beside the kicks: the spring has nothing to do with it."""
        if name == "kick":
            self.v += check_real(value, "kick")
        elif name != "speed":
            raise ValueError(f"the spring has no input {name!r}; it takes 'kick' and 'speed'")

    def snapshot(self) -> State:
        """The position and velocity."""
        return (self.x, self.v)

    def restore(self, snapshot: State) -> None:
        """Put the position and velocity back."""
        self.x, self.v = snapshot


class Ball:
    """A ball bouncing on the floor with restitution 0.8, semi-implicit Euler."""

    def __init__(self) -> None:
        self.y, self.v = 2.0, 0.0

    def step(self, dt: float) -> State:
        self.v -= 9.81 * dt
        self.y += self.v * dt
        if self.y < 0.0:
            self.y, self.v = -self.y, -0.8 * self.v
        return (self.y, self.v)


@dataclasses.dataclass(frozen=True)
class Pacing:
    """One way of driving the clock: ``frame(clock)`` makes one advancing call."""

    name: str
    frame: Callable[[WorldClock], object]
    mode: Mode = Mode.LIVE
    scale: float = 1.0
    checked: bool = True      # part of the determinism contract check


@dataclasses.dataclass(frozen=True)
class ModeResult:
    """What one pacing did, and the trajectories it produced (entries with tick <= 600)."""

    name: str
    frames: int
    ticks: int
    dropped: int
    realized_scale: float
    checked: bool
    trajectories: tuple[Trajectory, ...] = dataclasses.field(repr=False)

    @property
    def hashes(self) -> tuple[str, ...]:
        """A short sha256 of each follower's trajectory."""
        return tuple(hashlib.sha256(repr(t).encode()).hexdigest()[:12] for t in self.trajectories)


def pacings() -> list[Pacing]:
    """The pacing modes, with fresh seeded state so every call drives the same frames."""
    rng = random.Random(20240601)
    return [
        Pacing("live 1x", lambda c: c.advance(FRAME)),
        Pacing("live 2x", lambda c: c.advance(FRAME), scale=2.0),
        Pacing("live 0.5x", lambda c: c.advance(FRAME), scale=0.5),
        Pacing("live 1x uneven", lambda c: c.advance(rng.uniform(1 / 120, 1 / 30))),
        Pacing("lockstep x3", lambda c: c.advance(FRAME), mode=Mode.LOCKSTEP),
        Pacing("batch 37", lambda c: c.advance_ticks(37)),
        Pacing("single-step", lambda c: c.step_once(), mode=Mode.STEPPING),
        # A 0.25 s stall every 20 frames: the stall guard drops quanta. Shown, not checked.
        Pacing("live 1x stalls", lambda c: c.advance(0.25 if c.frame % 20 == 19 else FRAME),
               checked=False),
    ]


def run_pacing(pacing: Pacing) -> ModeResult:
    """Drive both followers through 600 ticks under ``pacing``; return a ``ModeResult``."""
    clock = WorldClock(ClockConfig(fixed_dt=FIXED_DT, scale=pacing.scale,
                                   cap_scales_with_rate=True, lockstep_steps=3))
    clock.mode = pacing.mode
    sims: list[tuple[ClockFollower, Spring | Ball, Trajectory]] = [
        (ClockFollower.for_step(clock, 0.06), Spring(), []),
        (ClockFollower.for_step(clock, FIXED_DT), Ball(), [])]
    frames = 0
    while clock.tick < TICKS:
        pacing.frame(clock)
        frames += 1
        for follower, world, trajectory in sims:
            for due in follower.take_due(clock):  # the ticks the steps fell due at
                trajectory.append((due, world.step(follower.period * FIXED_DT)))
    return ModeResult(
        name=pacing.name, frames=frames, ticks=clock.tick, dropped=clock.total_dropped,
        realized_scale=clock.realized_scale, checked=pacing.checked,
        trajectories=tuple([e for e in tr if e[0] <= TICKS] for _, _, tr in sims))


def run_all() -> list[ModeResult]:
    """Run every pacing mode; return the list of ``ModeResult``."""
    return [run_pacing(p) for p in pacings()]


def contract_violations(results: list[ModeResult]) -> list[str]:
    """The checked modes that did not reach tick 600 or differ from the first checked mode."""
    checked = [r for r in results if r.checked]
    return [r.name for r in checked
            if any(not tr or tr[-1][0] != TICKS for tr in r.trajectories)
            or r.trajectories != checked[0].trajectories]


def run_demo(out: TextIO | None = None) -> bool:
    """Run every pacing mode and print the table and the verdict.

    Parameters
    ----------
    out : text file, optional
        Where to print; ``sys.stdout`` when omitted.

    Returns
    -------
    bool
        True when every checked pacing mode gave identical trajectories.
    """
    results = run_all()
    print_report(results, out)
    return not contract_violations(results)


def print_report(results: list[ModeResult], out: TextIO | None = None) -> None:
    """Print the table of ``results`` and the verdict, in ASCII (any stdout can show it).

    Parameters
    ----------
    results : list of ModeResult
        What ``run_all()`` returned.
    out : text file, optional
        Where to print; ``sys.stdout`` when omitted.
    """
    out = sys.stdout if out is None else out
    rows: list[tuple[str, ...]] = [("mode", "frames", "ticks", "dropped", "realized",
                                    "spring 0.06 s", "ball 0.01 s")]
    for r in results:
        speed = f"{r.realized_scale:.2f}x" if r.realized_scale else "-"
        name = r.name if r.checked else r.name + " *"
        rows.append((name, str(r.frames), str(r.ticks), str(r.dropped), speed, *r.hashes))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(row, widths, strict=True))), file=out)
    print(f"* shown, not checked. Compared: the steps due at ticks <= {TICKS}. realized: "
          "clock.realized_scale (last 0.5 s window of advance())", file=out)
    broken = contract_violations(results)
    if broken:
        first = next(r.name for r in results if r.checked)
        print(f"determinism contract: BROKEN: {', '.join(broken)} incomplete or differ from "
              f"{first}", file=out)
    else:
        print("determinism contract: held - every pacing mode gave identical trajectories",
              file=out)
