"""The determinism contract: pacing decides when quanta run, never which quanta run."""

import random

import pytest

from cvcclock import ClockConfig, ClockFollower, WorldClock
from support.pacings import ADVANCING, DRIVER_PACINGS
from support.worlds import DampedSpring, Ship

END_TICK = 1200  # 12 world seconds on a 0.01 s clock
STEP = 0.06


def trajectory(pace):
    """Drive a clock with ``pace(clock)`` (one frame per call) and record the spring's steps."""
    clock = WorldClock(ClockConfig(fixed_dt=0.01, max_steps_per_advance=10**6))
    follower = ClockFollower.for_step(clock, STEP)
    spring, states = DampedSpring(), []
    while clock.tick < END_TICK:
        pace(clock)
        for _ in range(follower.take(clock)):
            states.append(spring.step(STEP))
    return states[: END_TICK // follower.period]


def live(scale, frame_times):
    def pace(clock):
        clock.scale = scale
        clock.advance(next(frame_times))
    return pace


def uneven(seed):
    rng = random.Random(seed)
    while True:
        yield rng.uniform(1 / 240, 1 / 20)


def constant(dt):
    while True:
        yield dt


def lockstep(n):
    def pace(clock):
        clock.mode = "lockstep"
        clock.lockstep_steps = n
        clock.advance(1 / 60)
    return pace


def batch(n):
    return lambda clock: clock.advance_ticks(n)


def single_step(clock):
    clock.mode = "stepping"
    clock.advance(1 / 60)  # runs nothing in stepping mode
    clock.step_once()


PACINGS = {
    "live 1x": live(1.0, constant(1 / 60)),
    "live 2x": live(2.0, constant(1 / 60)),
    "live 0.5x": live(0.5, constant(1 / 60)),
    "live 1x uneven frames": live(1.0, uneven(1)),
    "live 3x uneven frames": live(3.0, uneven(2)),
    "lockstep 1": lockstep(1),
    "lockstep 7": lockstep(7),
    "batch 37": batch(37),
    "batch all": batch(END_TICK),
    "single-step": single_step,
}


def test_reference_trajectory_is_not_trivial():
    states = trajectory(batch(1))
    assert len(states) == END_TICK // 6
    assert len(set(states)) == len(states)


@pytest.mark.parametrize("name", [n for n in PACINGS])
def test_trajectory_is_identical_under_every_pacing(name):
    reference = trajectory(batch(1))
    assert trajectory(PACINGS[name]) == reference


def test_a_dropping_live_run_is_still_the_same_trajectory_for_the_steps_it_ran():
    """The stall guard changes how far the world gets, not what any run quantum computes."""
    reference = trajectory(batch(1))
    clock = WorldClock(ClockConfig(fixed_dt=0.01, max_steps_per_advance=2))
    follower = ClockFollower.for_step(clock, STEP)
    spring, states = DampedSpring(), []
    for _ in range(600):
        clock.advance(1 / 30)  # 3.33 quanta per frame, cap 2: drops
        for _ in range(follower.take(clock)):
            states.append(spring.step(STEP))
    assert clock.total_dropped > 0
    assert states == reference[: len(states)]


# -- pause, resume, countdowns, cancel_all and jumps to the next timer under every pacing ------


END = 480


def world_run(pacing):
    """A world paused by a callback and resumed by its driver, with timers paused, resumed,
    cancelled by group and counted down; the trajectory, the timers' log, and how it ended."""
    setup, frame = DRIVER_PACINGS[pacing]
    clock = WorldClock(ClockConfig(fixed_dt=1 / 120))
    follower = ClockFollower.for_step(clock, 6 / 120)
    spring, states, log, ship = DampedSpring(), [], [], Ship()
    cooldown = clock.every_ticks(11, lambda tick: log.append(("cooldown", tick)))
    clock.every_ticks(5, ship.fire)
    clock.every_ticks(7, ship.fire)
    clock.every_ticks(3, lambda tick: log.append(
        ("probe", tick, cooldown.remaining_ticks, cooldown.fraction)))
    clock.after_ticks(100, lambda tick: clock.pause())
    clock.after_ticks(150, lambda tick: cooldown.pause())
    clock.after_ticks(222, lambda tick: cooldown.resume())
    clock.after_ticks(301, lambda tick: log.append(("cancelled", clock.cancel_all(ship.fire))))
    setup(clock)
    mode = clock.mode
    paused_frames = 0
    while clock.tick < END:
        frame(clock)
        if clock.paused:
            paused_frames += 1
            if paused_frames % 4 == 0:
                clock.resume()
        for _ in range(follower.take(clock)):
            states.append(spring.step(follower.period * clock.fixed_dt))
        assert follower.alpha_of(clock) == follower.alpha(clock.tick, clock.alpha)
    assert clock.mode is mode                   # resume went back to the pacing's own mode
    if pacing in ADVANCING:
        assert paused_frames >= 4               # the pause held advance for whole frames
    trimmed = [entry for entry in log if entry[0] == "cancelled" or entry[1] <= END]
    return states[:END // follower.period], trimmed, [s for s in ship.shots if s <= END]


def test_pause_resume_and_jumps_give_the_same_world_under_every_pacing():
    reference = world_run("single-step")
    assert reference[0] and ("cancelled", 2) in reference[1]
    for pacing in DRIVER_PACINGS:
        assert world_run(pacing) == reference, pacing
