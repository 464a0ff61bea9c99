"""What the compatibility fixtures were made from: a scenario, a recorded spring, a clock.

Everything here is deterministic, so the same calls today give what the fixtures hold.
"""

from __future__ import annotations

from cvcclock import ClockConfig, WorldClock
from cvcclock.demo import Spring
from cvcclock.replay import Recorder
from cvcclock.scenario import Scenario, Throttle, Vehicle, require, take

SEEDS = range(6)


def _keep_distance(car, gap):
    lead = car.sim["lead"]
    while True:
        yield take(Throttle(-1.0 if lead.x - car.x < gap else 0.5))


def _cruise(car):
    while True:
        yield take(Throttle(0.0))


class CompatCar(Scenario):
    """The README's close call; seed 3 raises (a failed run), some draws are resampled."""

    dt = 0.1

    def setup(self, s):
        if s.sim.seed == 3:
            raise ZeroDivisionError("seed 3 divides by zero")
        require(s.rng.random() > 0.3, "unlucky draw")
        ego = s.add_agent("ego", Vehicle(speed=15.0), _keep_distance, 20.0)
        lead = s.add_agent("lead", Vehicle(x=40.0, speed=s.rng.uniform(4.0, 8.0)), _cruise)
        s.record("gap", lambda: round(lead.x - ego.x, 1))
        s.record_final("lead speed", lambda: lead.speed)
        s.terminate_after(3.0)


def recorder_run() -> Recorder:
    """A spring recorded live for 240 frames with kicks at irregular ticks, hashed each step."""
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    recorder = Recorder(Spring(), clock, 0.06, seed=7, keyframe_every=5, hash_every=1)
    for frame in range(240):
        if frame % 37 == 11:
            recorder.give("kick", 0.25 * (frame % 5))
        clock.advance(1 / 60)
        recorder.pump()
    return recorder


def noop(*args: object) -> None:
    """A timer callback that pickles by name."""


def state_and_step():
    """A clock state with timers, owed quanta and a paused timer; and the StepResult of a
    frame that dropped quanta."""
    clock = WorldClock(ClockConfig(fixed_dt=1 / 120, max_steps_per_advance=4))
    clock.every(0.5, noop)
    clock.after_ticks(7, noop).pause()
    clock.every_ticks(3, noop, catch_up="coalesce")
    step = clock.advance(0.1)
    clock.advance(1 / 60)
    clock.scale = 0.5
    return clock.state(), step
