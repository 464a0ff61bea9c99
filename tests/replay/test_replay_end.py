"""A replay stops at the end of its trace: the clock may run on, the worlds do not."""

import random

import pytest

from cvcclock import ClockConfig, Mode, WorldClock
from cvcclock.demo import Spring
from cvcclock.replay import Recorder, Replayer
from support.replay_worlds import FIXED_DT, Tiny, tracked

SPRING_DT = 0.06          # the README's: 6 quanta a step
TINY_DT = 0.07            # a follower of another period, 7 quanta


def record_readme_run():
    """The README's recording: 120 live frames of 1/60 s, kicks at frames 17 and 50.

    Returns the trace, the recorded worlds' end states and their trajectories (the spring's
    and a Tiny's added with ``follow()``).
    """
    clock = WorldClock(ClockConfig(fixed_dt=FIXED_DT))
    spring, tiny = Spring(), Tiny()
    spring_steps, on_spring = tracked(spring)
    tiny_steps, on_tiny = tracked(tiny)
    recorder = Recorder(spring, clock, SPRING_DT, seed=7, hash_every=1, on_step=on_spring)
    recorder.follow(tiny, TINY_DT, on_step=on_tiny)
    for frame in range(120):
        clock.advance(1 / 60)
        if frame in (17, 50):
            recorder.give("kick", 1.5)
        recorder.pump()
    trace = recorder.trace()
    assert trace.end_tick == clock.tick == 200
    return trace, (spring.snapshot(), tiny.snapshot()), spring_steps, tiny_steps


TRACE, END_STATES, SPRING_STEPS, TINY_STEPS = record_readme_run()
END = TRACE.end_tick


def uneven():
    rng = random.Random(20)
    return lambda c: c.advance(rng.uniform(1 / 120, 1 / 30))


# Every pacing the README names, and the ones whose last frame runs past the end (37 and 77
# quanta a call: 222 and 231 for a recording that ends at 200).
PACINGS = {
    "live 1x": (Mode.LIVE, 1.0, lambda: lambda c: c.advance(1 / 60)),
    "live 2x": (Mode.LIVE, 2.0, lambda: lambda c: c.advance(1 / 60)),
    "live 0.5x": (Mode.LIVE, 0.5, lambda: lambda c: c.advance(1 / 60)),
    "live uneven": (Mode.LIVE, 1.0, uneven),
    "lockstep x3": (Mode.LOCKSTEP, 1.0, lambda: lambda c: c.advance(1 / 60)),
    "advance_ticks(37)": (Mode.LIVE, 1.0, lambda: lambda c: c.advance_ticks(37)),
    "advance_ticks(77)": (Mode.LIVE, 1.0, lambda: lambda c: c.advance_ticks(77)),
    "step_once": (Mode.STEPPING, 1.0, lambda: lambda c: c.step_once()),
}


def replay_clock(mode=Mode.LIVE, scale=1.0):
    clock = WorldClock(ClockConfig(fixed_dt=FIXED_DT, scale=scale, lockstep_steps=3,
                                   cap_scales_with_rate=True))
    clock.mode = mode
    return clock


def new_replay(clock):
    spring, tiny = Spring(), Tiny()
    due = []
    replayer = Replayer(spring, clock, TRACE, on_step=due.append)
    replayer.follow(tiny, TINY_DT, on_step=due.append)
    return replayer, spring, tiny, due


@pytest.mark.parametrize("pacing", PACINGS)
def test_the_readme_replay_loop_ends_in_the_recordings_end_state_under_every_pacing(pacing):
    mode, scale, make_frame = PACINGS[pacing]
    frame = make_frame()
    clock = replay_clock(mode, scale)
    replayer, spring, tiny, due = new_replay(clock)
    frames = 0
    while not replayer.done:
        frame(clock)
        replayer.pump()
        frames += 1
        assert frames < 10_000
    assert clock.tick >= END
    assert (spring.snapshot(), tiny.snapshot()) == END_STATES
    assert max(due) <= END
    assert replayer.follower.tick == max(SPRING_STEPS) == END // 6 * 6
    assert replayer.followers[1].tick == max(TINY_STEPS) == END // 7 * 7
    assert replayer.checked == set(TRACE.hashes) and replayer.divergences == []
    # The clock runs on; the worlds stay where the recording ended, and done stays true.
    for _ in range(5):
        frame(clock)
        assert replayer.pump() == 0
    assert clock.tick > END
    assert (spring.snapshot(), tiny.snapshot()) == END_STATES and replayer.done


def test_a_batch_that_runs_past_the_end_steps_the_worlds_only_to_it():
    clock = replay_clock()
    replayer, spring, tiny, due = new_replay(clock)
    clock.advance_ticks(END + 300)
    assert replayer.pump() == END // 6 + END // 7
    assert (spring.snapshot(), tiny.snapshot()) == END_STATES
    assert max(due) <= END
    # Each follower on its own stops there too.
    clock.advance_ticks(60)
    assert [f.pump() for f in replayer.followers] == [0, 0]


def test_done_waits_for_the_worlds_to_reach_the_end_not_only_the_clock():
    clock = replay_clock()
    replayer, spring, tiny, _ = new_replay(clock)
    clock.advance_ticks(END - 5)      # the spring's step due at 198 is still to come
    replayer.pump()
    assert not replayer.done
    clock.advance_ticks(5)
    assert not replayer.done          # the clock is there, the step due at 198 has not run
    replayer.pump()
    assert replayer.done and (spring.snapshot(), tiny.snapshot()) == END_STATES


def straight_state(trajectory, start, tick):
    due = [t for t in trajectory if t <= tick]
    return trajectory[max(due)] if due else start


@pytest.mark.parametrize("targets", [
    [END], [END + 50], [END + 50, END - 7, END], [END - 1, END + 1, END - 13, END + 400],
    [END + 3, 0, END + 3],
])
def test_a_seek_near_or_past_the_end_leaves_the_worlds_as_a_straight_run_to_the_end(targets):
    clock = replay_clock(Mode.REPLAY)
    replayer, spring, tiny, due = new_replay(clock)
    starts = (Spring().snapshot(), Tiny().snapshot())
    for target in targets:
        replayer.seek(target)
        assert clock.tick == target
        at = min(target, END)
        assert spring.snapshot() == straight_state(SPRING_STEPS, starts[0], at)
        assert tiny.snapshot() == straight_state(TINY_STEPS, starts[1], at)
        assert replayer.done == (target >= END)
        assert max(due, default=0) <= END
    assert replayer.divergences == []


def test_a_seek_past_the_end_then_live_frames_step_nothing():
    clock = replay_clock(Mode.REPLAY)
    replayer, spring, tiny, _ = new_replay(clock)
    replayer.seek(END + 10)
    clock.mode = Mode.LIVE
    for _ in range(10):
        clock.advance(1 / 60)
        assert replayer.pump() == 0
    assert (spring.snapshot(), tiny.snapshot()) == END_STATES


def test_a_recording_has_no_end_its_worlds_follow_the_clock():
    clock = WorldClock(ClockConfig(fixed_dt=FIXED_DT))
    recorder = Recorder(Tiny(), clock, 3 * FIXED_DT)
    clock.advance_ticks(10_000)
    assert recorder.pump() == 10_000 // 3
