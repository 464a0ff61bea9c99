"""Seek and rollback: any path to a tick ends in the state a straight run has there."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvcclock import Mode
from cvcclock.replay import Recorder, Replayer
from support.pacings import DRIVER_PACINGS
from support.replay_worlds import FIXED_DT, Noisy, Tiny, new_clock, tracked

END = 120
PERIOD, EXTRA_PERIOD = 3, 5


def state_at(trajectory, start, tick):
    """A straight run's state at ``tick``: after its last step due at or before it."""
    due = [t for t in trajectory if t <= tick]
    return trajectory[max(due)] if due else start


def record_straight(inputs, world=Tiny, extra=Tiny, end=END):
    """Record one quantum at a time, each input given at exactly its tick."""
    clock = new_clock()
    main, other = world(), extra()
    starts = (main.snapshot(), other.snapshot())
    trajectory, on_step = tracked(main)
    extra_trajectory, extra_step = tracked(other)
    recorder = Recorder(main, clock, PERIOD * FIXED_DT, hash_every=1, on_step=on_step)
    recorder.follow(other, EXTRA_PERIOD * FIXED_DT, on_step=extra_step)
    pending = sorted(inputs, key=lambda e: e[0])   # at one tick, in the order given
    while True:
        while pending and pending[0][0] == clock.tick:
            recorder.give("kick", pending.pop(0)[1])
        recorder.pump()
        if clock.tick == end:
            return recorder, trajectory, extra_trajectory, starts
        clock.step_once()


# -- seek ---------------------------------------------------------------------------------------

inputs = st.lists(st.tuples(st.integers(0, END), st.integers(-9, 9)), max_size=8)


@settings(max_examples=200, deadline=None)
@given(inputs=inputs, keyframe_every=st.integers(1, 9),
       targets=st.lists(st.integers(0, END), min_size=1, max_size=6))
def test_seeking_back_and_forth_any_number_of_times_equals_a_straight_run(inputs, keyframe_every,
                                                                          targets):
    recorder, trajectory, extra_trajectory, (start, extra_start) = record_straight(inputs)
    clock = new_clock()
    fired = []
    timer = clock.every_ticks(4, fired.append)    # the host's timer: restored with the clock
    world, extra = Tiny(), Tiny()
    replayer = Replayer(world, clock, recorder.trace(), keyframe_every=keyframe_every)
    replayer.follow(extra, EXTRA_PERIOD * FIXED_DT, keyframe_every=keyframe_every)
    clock.mode = Mode.REPLAY
    for target in targets:
        replayer.seek(target)
        assert clock.tick == target
        assert world.snapshot() == state_at(trajectory, start, target)
        assert extra.snapshot() == state_at(extra_trajectory, extra_start, target)
        assert (timer.fired, timer.next_tick) == (target // 4, (target // 4 + 1) * 4)
        assert replayer.follower.tick == target // PERIOD * PERIOD
    assert replayer.divergences == []
    clock.mode = Mode.LOCKSTEP                   # and it plays on from there as recorded
    while not replayer.done:
        clock.advance(1 / 60)
        replayer.pump()
    assert world.snapshot() == state_at(trajectory, start, clock.tick)


def test_a_seek_restores_the_keyframe_at_or_before_the_target_and_resimulates_from_it():
    recorder, trajectory, _, _ = record_straight([(10, 1), (50, -2)])
    clock = new_clock()
    world = Tiny()
    replayer = Replayer(world, clock, recorder.trace(), keyframe_every=4)
    clock.advance_ticks(END)
    replayer.pump()
    clock.mode = Mode.REPLAY
    assert [k.tick for k in replayer.follower.keyframes] == list(range(0, END + 1, 12))
    steps = replayer.seek(40)          # from the keyframe at 36: one step, due at 39
    assert (steps, clock.tick, world.snapshot()) == (1, 40, trajectory[39])
    assert replayer.seek(100) == (99 - 39) // 3    # forwards: from where it is


def test_seek_needs_a_tick_in_range_and_changes_nothing():
    recorder, _, _, _ = record_straight([])
    clock = new_clock()
    replayer = Replayer(Tiny(), clock, recorder.trace())
    clock.advance_ticks(30)
    replayer.pump()
    # Keeping the transport, any mode seeks; taking the keyframe's whole state needs replay.
    with pytest.raises(ValueError, match="seek.tick=5, keep_transport=False. needs replay "
                                         "mode; the clock is in 'live' mode"):
        replayer.seek(5, keep_transport=False)
    with pytest.raises(TypeError, match="keep_transport must be a bool, got 1"):
        replayer.seek(5, keep_transport=1)
    clock.mode = Mode.REPLAY
    with pytest.raises(ValueError, match="tick must be >= 0, got -1"):
        replayer.seek(-1)
    with pytest.raises(TypeError, match="tick must be an integer, got 5.0"):
        replayer.seek(5.0)
    assert (clock.tick, replayer.follower.tick, clock.mode) == (30, 30, Mode.REPLAY)


def test_a_seek_inside_a_timer_callback_is_refused_and_changes_nothing():
    recorder, _, _, _ = record_straight([])
    clock = new_clock()
    world = Tiny()
    replayer = Replayer(world, clock, recorder.trace())
    clock.advance_ticks(30)
    replayer.pump()
    errors = []

    def seek_from_a_callback(tick):
        try:
            replayer.seek(6)
        except RuntimeError as error:
            errors.append((str(error), clock.tick, world.snapshot()))

    before = world.snapshot()
    clock.after_ticks(1, seek_from_a_callback)
    clock.advance_ticks(1)
    assert errors == [("seek(tick=6) cannot run the clock inside presenting() or a timer "
                       "callback; nothing was changed", 31, before)]


def transport(clock):
    """What the user set on the clock's transport: kept through a seek."""
    return (clock.scale, clock.lockstep_steps, clock.max_steps_per_advance, clock.mode,
            clock.state().resume_mode)


def test_seek_12_after_scale_3_keeps_scale_3_and_keep_transport_false_takes_the_keyframes():
    recorder, trajectory, _, (start, _) = record_straight([(10, 1), (50, -2)])
    for keep, scale in ((True, 3.0), (False, 1.0)):
        clock = new_clock()
        world = Tiny()
        replayer = Replayer(world, clock, recorder.trace(), keyframe_every=2)
        clock.advance_ticks(60)
        replayer.pump()
        clock.scale = 3.0
        clock.mode = Mode.REPLAY
        replayer.seek(12, keep_transport=keep)
        assert (clock.tick, world.snapshot()) == (12, state_at(trajectory, start, 12))
        assert (clock.scale, clock.mode) == (scale, Mode.REPLAY)


@pytest.mark.parametrize("pacing", sorted(DRIVER_PACINGS))
def test_a_seek_keeps_the_users_transport_and_plays_on_as_recorded_under_every_pacing(pacing):
    recorder, trajectory, _, (start, _) = record_straight([(10, 1), (50, -2), (77, 3)])
    setup, frame = DRIVER_PACINGS[pacing]
    clock = new_clock()
    setup(clock)
    clock.every_ticks(4, lambda tick: None)   # so "next due" always has a tick to go to
    world = Tiny()
    replayer = Replayer(world, clock, recorder.trace(), keyframe_every=4)
    while clock.tick < 60:
        frame(clock)
        replayer.pump()
    # The user changes the transport mid-replay, then scrubs back.
    clock.scale, clock.lockstep_steps, clock.max_steps_per_advance = 3.0, 5, 50
    kept = transport(clock)
    replayer.seek(12)
    assert (clock.tick, world.snapshot()) == (12, state_at(trajectory, start, 12))
    assert transport(clock) == kept
    replayer.seek(31)                          # forwards keeps it too
    assert (clock.tick, world.snapshot()) == (31, state_at(trajectory, start, 31))
    assert transport(clock) == kept
    while not replayer.done:                   # and it plays on at the user's transport
        frame(clock)
        replayer.pump()
    assert world.snapshot() == state_at(trajectory, start, END)
    assert transport(clock) == kept and replayer.divergences == []


@pytest.mark.parametrize("paused_from", [Mode.LIVE, Mode.LOCKSTEP])
def test_a_seek_while_paused_stays_paused_and_resumes_to_the_mode_it_was_paused_from(
        paused_from):
    recorder, trajectory, _, (start, _) = record_straight([(10, 1), (50, -2)])
    clock = new_clock(lockstep_steps=3)
    clock.mode = paused_from
    world = Tiny()
    replayer = Replayer(world, clock, recorder.trace(), keyframe_every=3)
    while clock.tick < 70:
        clock.advance(1 / 60)
        replayer.pump()
    clock.scale = 0.5
    clock.pause()
    kept = transport(clock)
    replayer.seek(20)
    assert (clock.tick, world.snapshot()) == (20, state_at(trajectory, start, 20))
    assert transport(clock) == kept and clock.paused
    clock.advance(1 / 60)                      # paused: nothing runs
    assert clock.tick == 20
    clock.resume()
    assert (clock.mode, clock.scale) == (paused_from, 0.5)
    while not replayer.done:
        clock.advance(1 / 60)
        replayer.pump()
    assert world.snapshot() == state_at(trajectory, start, END)


def test_a_seek_back_refuses_a_clock_whose_timers_changed_and_changes_nothing():
    recorder, _, _, _ = record_straight([])
    clock = new_clock()
    world = Tiny()
    replayer = Replayer(world, clock, recorder.trace())
    clock.advance_ticks(30)
    replayer.pump()
    clock.every_ticks(7, lambda tick: None)      # made after every keyframe
    clock.mode = Mode.REPLAY
    before = (clock.tick, world.snapshot())
    with pytest.raises(ValueError):
        replayer.seek(10)
    assert (clock.tick, world.snapshot()) == before
    replayer.seek(45)                             # forwards needs no keyframe
    assert clock.tick == 45


# -- rollback -----------------------------------------------------------------------------------

late_inputs = st.lists(st.tuples(st.integers(0, END), st.integers(0, 40), st.integers(-9, 9)),
                       max_size=8)


def run_with_late_inputs(events, frames, keyframe_every, world=Tiny):
    """Give each (tick, delay, value) at the first frame at or after tick + delay, stamped
    with its tick: the rollbacks put it where it belongs."""
    clock = new_clock()
    main, other = world(), world()
    trajectory, on_step = tracked(main)
    extra_trajectory, extra_step = tracked(other)
    recorder = Recorder(main, clock, PERIOD * FIXED_DT, hash_every=1,
                        keyframe_every=keyframe_every, on_step=on_step)
    recorder.follow(other, EXTRA_PERIOD * FIXED_DT, keyframe_every=keyframe_every,
                    on_step=extra_step)
    arrivals = sorted(((min(t + d, END), i, t, v) for i, (t, d, v) in enumerate(events)))
    order = []     # the order they arrived in
    walls = itertools.cycle(frames)
    while clock.tick < END or arrivals:
        if clock.tick < END:
            clock.advance(next(walls))
        while arrivals and arrivals[0][0] <= clock.tick:
            _, i, tick, value = arrivals.pop(0)
            recorder.give_late(tick, "kick", value)
            order.append(i)
        recorder.pump()
    return recorder, trajectory, extra_trajectory, order


@settings(max_examples=200, deadline=None)
@given(events=late_inputs, frames=st.lists(st.floats(0.001, 0.06), min_size=1, max_size=8),
       keyframe_every=st.integers(1, 9))
def test_a_late_input_rolled_back_ends_as_if_it_had_arrived_on_time(events, frames,
                                                                    keyframe_every):
    late, trajectory, extra_trajectory, order = run_with_late_inputs(events, frames,
                                                                     keyframe_every)
    end = late.trace().end_tick
    # On time: the same inputs at their ticks; at one tick, in the order they arrived.
    on_time = sorted(((events[i][0], rank, events[i][2]) for rank, i in enumerate(order)))
    straight, straight_trajectory, straight_extra, _ = record_straight(
        [(t, v) for t, _, v in on_time], end=end)
    assert late.follower.world.snapshot() == straight.follower.world.snapshot()
    assert late.followers[1].world.snapshot() == straight.followers[1].world.snapshot()
    assert trajectory == straight_trajectory and extra_trajectory == straight_extra
    assert late.trace() == straight.trace()      # inputs, order and state hashes alike


def test_a_rollback_restores_random_streams_too():
    events = [(20, 30, 3), (61, 5, -4), (90, 0, 1)]
    late, _, _, _ = run_with_late_inputs(events, [0.017, 0.04], 4, world=lambda: Noisy(5))
    straight, _, _, _ = record_straight([(20, 3), (61, -4), (90, 1)], world=lambda: Noisy(5),
                                        extra=lambda: Noisy(5), end=late.trace().end_tick)
    assert late.follower.world.snapshot() == straight.follower.world.snapshot()
    assert late.trace() == straight.trace()


def test_give_late_reports_the_steps_resimulated_from_the_keyframe_before_the_input():
    clock = new_clock()
    recorder = Recorder(Tiny(), clock, PERIOD * FIXED_DT, keyframe_every=5)
    clock.advance_ticks(100)
    recorder.pump()                                 # stepped to 99; keyframes every 15 ticks
    assert recorder.give_late(50, "kick", 1) == (99 - 45) // 3
    assert recorder.give_late(99, "kick", 1) == 0   # its step, due at 102, has not run
    assert recorder.give_late(98, "kick", 1) == 3   # due at 99: from the keyframe at 90
