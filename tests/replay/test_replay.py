"""Recording and replaying: each input reaches each world at the right step, under any pacing."""

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cvcclock import ClockConfig, Mode, WorldClock
from cvcclock.replay import (
    Divergence,
    DivergenceError,
    Input,
    InputTrace,
    Keyframe,
    Recorder,
    Replayer,
    default_state_hash,
)
from support.replay_worlds import FIXED_DT, PACINGS, Flipping, Tiny, new_clock, tracked

wall_dts = st.floats(0.001, 0.05, allow_nan=False)


def roundtrip(trace):
    """The trace as a file would bring it back."""
    data = "".join(line + "\n" for line in trace.lines()).encode()
    return InputTrace.from_lines(data.split(b"\n"))


def expected_seen(inputs, period, last_due):
    """What a world of ``period`` started at tick 0 has seen once stepped to ``last_due``: each
    input stamped T, applied after the steps due at or before T, i.e. after T // period."""
    return tuple((e.tick // period, e.name, e.value) for e in inputs if e.tick < last_due)


# -- the stamping rule -----------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(frames=st.lists(st.tuples(wall_dts, st.booleans(), st.booleans()), min_size=1,
                       max_size=60))
def test_each_input_reaches_each_follower_before_its_first_step_due_after_its_tick(frames):
    clock = new_clock()
    worlds = {k: Tiny() for k in (1, 3, 4, 7)}
    recorder = Recorder(worlds[3], clock, 3 * FIXED_DT)
    for k in (1, 4, 7):
        recorder.follow(worlds[k], k * FIXED_DT)
    for i, (wall, give, before_pump) in enumerate(frames):
        clock.advance(wall)
        if give and before_pump:
            recorder.give("kick", i)
        recorder.pump()
        if give and not before_pump:   # after the pump: the same stamp, the same step
            recorder.give("kick", i)
    recorder.pump()
    for k, world in worlds.items():
        last_due = clock.tick // k * k
        assert world.n == last_due // k
        assert world.seen == expected_seen(recorder.inputs, k, last_due)


def test_an_input_given_in_a_timer_callback_is_stamped_with_the_callbacks_tick():
    clock = new_clock()
    recorder = Recorder(Tiny(), clock, 0.04)
    clock.after_ticks(5, lambda tick: recorder.give("alarm", tick))
    clock.advance_ticks(12)
    recorder.pump()
    assert recorder.inputs == (Input(5, "alarm", 5),)
    assert recorder.follower.world.seen == ((1, "alarm", 5),)   # after the step due at 4


def test_give_returns_the_input_and_the_world_receives_a_copy_of_its_value():
    clock = new_clock()
    world = Tiny()
    received = []
    world.apply = lambda name, value: received.append(value)
    recorder = Recorder(world, clock, FIXED_DT)
    path = [1, 2]
    assert recorder.give("path", path) == Input(0, "path", [1, 2])
    path.append(3)
    clock.step_once()
    recorder.pump()
    assert received == [[1, 2]] and recorder.inputs[0].value == [1, 2]


@pytest.mark.parametrize("name, value, error, words", [
    ("kick", (1, 2), TypeError, "input 'kick': value is .1, 2. of type tuple"),
    ("kick", float("nan"), ValueError, "input 'kick': value is nan"),
    (3, 1.0, TypeError, "name must be a str, got 3"),
])
def test_an_input_that_cannot_be_recorded_is_refused_and_nothing_is_recorded(name, value, error,
                                                                            words):
    recorder = Recorder(Tiny(), new_clock(), FIXED_DT)
    with pytest.raises(error, match=words):
        recorder.give(name, value)
    with pytest.raises(error, match=words):
        recorder.give_late(0, name, value)
    assert recorder.inputs == ()


# -- replay under every pacing ------------------------------------------------------------------


def record(frames, inputs_at, period=3, extra_period=2, hash_every=1):
    """Record a run live with uneven frames; inputs given at the frames in ``inputs_at``."""
    clock = new_clock()
    world, extra = Tiny(), Tiny()
    trajectory, on_step = tracked(world)
    extra_trajectory, extra_step = tracked(extra)
    recorder = Recorder(world, clock, period * FIXED_DT, hash_every=hash_every, on_step=on_step)
    recorder.follow(extra, extra_period * FIXED_DT, on_step=extra_step)
    for i, wall in enumerate(frames):
        clock.advance(wall)
        for value in inputs_at.get(i, ()):
            recorder.give("kick", value)
        recorder.pump()
    return recorder.trace(), trajectory, extra_trajectory


def replay(trace, mode, scale, frame, extra_period=2, **options):
    clock = WorldClock(ClockConfig(fixed_dt=FIXED_DT, scale=scale, lockstep_steps=3,
                                   cap_scales_with_rate=True))
    clock.mode = mode
    world, extra = Tiny(), Tiny()
    trajectory, on_step = tracked(world)
    extra_trajectory, extra_step = tracked(extra)
    replayer = Replayer(world, clock, trace, on_step=on_step, **options)
    replayer.follow(extra, extra_period * FIXED_DT, on_step=extra_step)
    frames = 0
    while not replayer.done:
        frame(clock)
        replayer.pump()
        frames += 1
        assert frames < 100_000
    end = trace.end_tick
    return ({t: s for t, s in trajectory.items() if t <= end},
            {t: s for t, s in extra_trajectory.items() if t <= end}, replayer)


@settings(max_examples=200, deadline=None)
@given(frames=st.lists(wall_dts, min_size=1, max_size=40),
       inputs_at=st.dictionaries(st.integers(0, 39), st.lists(st.integers(-5, 5), max_size=2),
                                 max_size=8),
       uneven=st.lists(wall_dts, min_size=1, max_size=10), batch=st.integers(1, 50))
def test_a_replay_under_any_pacing_steps_through_the_recorded_states(frames, inputs_at, uneven,
                                                                     batch):
    trace, recorded, recorded_extra = record(frames, inputs_at)
    trace = roundtrip(trace)
    pacings = dict(PACINGS)
    pacings[f"batch {batch}"] = (Mode.LIVE, 1.0, lambda c: c.advance_ticks(batch))
    walls = iter(uneven * 100_000)
    pacings["live uneven"] = (Mode.LIVE, 1.0, lambda c: c.advance(next(walls)))
    for name, (mode, scale, frame) in pacings.items():
        trajectory, extra, replayer = replay(trace, mode, scale, frame)
        assert trajectory == recorded, name
        assert extra == recorded_extra, name
        assert replayer.divergences == [] and replayer.checked == set(trace.hashes), name


def test_a_replay_refuses_another_fixed_dt_or_dt_naming_both():
    trace, _, _ = record([0.02] * 5, {1: [1]})
    with pytest.raises(ValueError, match=r"recorded with fixed_dt=0\.01 and dt=0\.03; this "
                                         r"clock has fixed_dt=0\.005 and the world dt=0\.03"):
        Replayer(Tiny(), WorldClock(ClockConfig(fixed_dt=0.005)), trace)
    with pytest.raises(ValueError, match=r"the world dt=0\.06"):
        Replayer(Tiny(), new_clock(), trace, dt=0.06)


def test_a_replay_starts_where_the_recording_started():
    clock = new_clock()
    clock.advance_ticks(7)
    recorder = Recorder(Tiny(), clock, 0.02)
    clock.advance_ticks(3)
    recorder.give("kick", 1)
    clock.advance_ticks(3)
    recorder.pump()
    trace = recorder.trace()
    assert (trace.header.start_tick, trace.end_tick) == (7, 13)
    assert recorder.follower.world.seen == ((2, "kick", 1),)
    with pytest.raises(ValueError, match="the trace starts at tick 7; the clock is at tick 0"):
        Replayer(Tiny(), new_clock(), trace)
    replay_clock = new_clock()
    replay_clock.advance_ticks(7)
    replayer = Replayer(Tiny(), replay_clock, trace)
    replay_clock.advance_ticks(4)
    replayer.pump()
    assert replayer.follower.world.seen == ()
    replay_clock.advance_ticks(2)
    replayer.pump()
    assert replayer.follower.world.seen == recorder.follower.world.seen


# -- divergence ---------------------------------------------------------------------------------


@pytest.mark.parametrize("flip_at", [3, 21, 48, 90])
def test_a_one_bit_change_is_named_at_its_exact_tick(flip_at):
    trace, recorded, _ = record([0.02] * 50, {4: [2], 17: [-1]})
    clock = new_clock(scale=1.0)
    world = Flipping(clock, flip_at, 3)
    replayer = Replayer(world, clock, trace)
    with pytest.raises(DivergenceError) as error:
        while not replayer.done:
            clock.advance_ticks(5)
            replayer.pump()
    divergence = error.value.divergence
    assert divergence == Divergence(flip_at, trace.hashes[flip_at],
                                    default_state_hash(world.snapshot()))
    assert world.snapshot() != recorded[flip_at]
    assert f"at tick {flip_at}: recorded state hash {trace.hashes[flip_at]}, replayed " \
           f"{divergence.replayed}" in str(error.value)
    assert replayer.follower.tick == flip_at   # the steps after it stay due


def test_collected_divergences_name_the_first_tick_and_the_replay_goes_on():
    trace, _, _ = record([0.02] * 50, {4: [2]})
    clock = new_clock()
    replayer = Replayer(Flipping(clock, 30, 3), clock, trace, on_divergence="collect")
    while not replayer.done:
        clock.advance_ticks(7)
        replayer.pump()
    assert replayer.divergences[0].tick == 30
    assert [d.tick for d in replayer.divergences] == sorted(t for t in trace.hashes if t >= 30)
    assert clock.tick > trace.end_tick                         # the last batch ran past it
    assert replayer.follower.tick == trace.end_tick // 3 * 3   # the world stopped at the end


def test_with_a_hash_every_k_steps_the_first_hashed_step_at_or_after_the_change_is_named():
    trace, _, _ = record([0.02] * 50, {}, hash_every=4)
    assert sorted(trace.hashes) == list(range(12, trace.end_tick + 1, 12))
    clock = new_clock()
    replayer = Replayer(Flipping(clock, 27, 3), clock, trace)
    with pytest.raises(DivergenceError, match="at tick 36"):
        clock.advance_ticks(trace.end_tick)
        replayer.pump()


def test_the_hosts_state_hash_is_used_for_recording_and_replay():
    def hash_x(snapshot):
        return f"{snapshot[1]:.3f}"

    clock = new_clock()
    world = Tiny()
    trajectory, on_step = tracked(world)
    recorder = Recorder(world, clock, FIXED_DT, hash_every=2, state_hash=hash_x,
                        on_step=on_step)
    clock.advance_ticks(6)
    recorder.pump()
    trace = recorder.trace()
    assert trace.hashes == {t: hash_x(trajectory[t]) for t in (2, 4, 6)}
    replay_clock = new_clock()
    replayer = Replayer(Tiny(), replay_clock, trace, state_hash=hash_x)
    replay_clock.advance_ticks(6)
    replayer.pump()
    assert replayer.checked == {2, 4, 6} and replayer.divergences == []


def test_the_default_state_hash_is_blake2b_of_the_pickle_without_its_memo():
    import hashlib
    import io
    import json

    snapshot = (3, 0.1, ((1, "kick", 2),))
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=4)
    pickler.fast = True
    pickler.dump(snapshot)
    assert default_state_hash(snapshot) == hashlib.blake2b(buffer.getvalue(),
                                                           digest_size=16).hexdigest()
    # Equal states hash equal whether their equal parts are one object or two (a name
    # interned in the recording, two copies read back from a trace).
    shared = "kick"
    first, second = json.loads('["kick", "kick"]')
    assert default_state_hash(((1, shared), (2, shared))) == \
        default_state_hash(((1, first), (2, second)))
    # Pinned: protocol 4's bytes for these types are the same on every platform.
    assert default_state_hash((1, 2.5, "x")) == "db4ca71d362e9a04a6c91a921ccbc777"


# -- keyframes, errors, bad arguments -----------------------------------------------------------


def test_a_keyframe_every_n_steps_holds_the_snapshot_and_the_clock_state():
    clock = new_clock()
    recorder = Recorder(Tiny(), clock, 0.02, keyframe_every=3)
    for _ in range(10):
        clock.advance_ticks(2)
        recorder.pump()
    keyframes = recorder.follower.keyframes
    assert [k.tick for k in keyframes] == [0, 6, 12, 18]
    assert [k.steps for k in keyframes] == [0, 3, 6, 9]
    assert all(isinstance(k, Keyframe) and k.clock.tick >= k.tick for k in keyframes)
    assert keyframes[0].snapshot == (0, 0.25, ())
    assert pickle.loads(pickle.dumps(keyframes[1])) == keyframes[1]


def test_a_world_that_raises_leaves_its_due_steps_for_the_next_pump():
    clock = new_clock()
    world = Tiny()
    recorder = Recorder(world, clock, FIXED_DT)
    real_step, calls = world.step, []

    def step(dt):
        calls.append(dt)
        if len(calls) == 3:
            raise KeyError("boom")
        real_step(dt)

    world.step = step
    clock.advance_ticks(5)
    with pytest.raises(KeyError):
        recorder.pump()
    assert recorder.follower.tick == 2
    assert recorder.pump() == 3 and recorder.follower.tick == 5 and world.n == 5


@pytest.mark.parametrize("jump", [lambda c: c.configure(ClockConfig(fixed_dt=FIXED_DT)),
                                  lambda c: (setattr(c, "mode", "replay"), c.seek_tick(50)),
                                  lambda c: c.restore(c.state())])
def test_a_clock_jump_the_replay_did_not_make_is_an_error(jump):
    clock = new_clock()
    recorder = Recorder(Tiny(), clock, FIXED_DT)
    clock.advance_ticks(3)
    recorder.pump()
    jump(clock)
    with pytest.raises(RuntimeError, match="the clock jumped .* at tick 3"):
        recorder.pump()


def test_give_late_refuses_a_future_tick_and_one_before_the_start():
    clock = new_clock()
    clock.advance_ticks(4)
    recorder = Recorder(Tiny(), clock, FIXED_DT)
    clock.advance_ticks(6)
    with pytest.raises(ValueError, match="tick must be <= 10, got 11"):
        recorder.give_late(11, "kick", 1)
    with pytest.raises(ValueError, match="tick must be >= 4, got 3"):
        recorder.give_late(3, "kick", 1)
    with pytest.raises(TypeError, match="tick must be an integer"):
        recorder.give_late(5.0, "kick", 1)
    assert recorder.inputs == ()


@pytest.mark.parametrize("kwargs, error, words", [
    ({"world": object()}, TypeError, "world must have step.dt., apply"),
    ({"dt": 0.015}, ValueError, "dt=0.015 is 1.5 quanta"),
    ({"keyframe_every": 0}, ValueError, "keyframe_every must be >= 1, got 0"),
    ({"hash_every": 0}, ValueError, "hash_every must be >= 1, got 0"),
    ({"hash_every": True}, TypeError, "hash_every must be an integer"),
    ({"seed": -1}, ValueError, "seed must be >= 0"),
    ({"state_hash": "blake2b"}, TypeError, "state_hash must be callable"),
    ({"metadata": [("a", 1)]}, TypeError, "metadata must be a mapping"),
    ({"metadata": {"a": (1,)}}, TypeError, "input 'metadata'"),
    ({"on_step": 3}, TypeError, "on_step must be callable"),
])
def test_a_recorder_refuses_bad_arguments_naming_them(kwargs, error, words):
    arguments = {"world": Tiny(), "clock": new_clock(), "dt": FIXED_DT, **kwargs}
    with pytest.raises(error, match=words):
        Recorder(**arguments)


def test_a_replayer_refuses_bad_arguments_naming_them():
    trace, _, _ = record([0.02] * 3, {})
    with pytest.raises(TypeError, match="trace must be an InputTrace"):
        Replayer(Tiny(), new_clock(), "run.trace")
    with pytest.raises(ValueError, match="on_divergence must be 'raise' or 'collect'"):
        Replayer(Tiny(), new_clock(), trace, on_divergence="warn")
    with pytest.raises(TypeError, match="state_hash must be callable"):
        Replayer(Tiny(), new_clock(), trace, state_hash=None)
