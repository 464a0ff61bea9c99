"""The argument rules of ``cvcclock.checks``, and every public call of the Python layer using them.

A bad argument gets the core's treatment everywhere: TypeError for a wrong type, ValueError
for a wrong value, the message naming the argument (as the caller spelled it) and the value,
and nothing changed. Each rule is written once, in ``cvcclock.checks``; the last section scans
the package for a module that restates one. (The compiled clock's own refusals are
``core/test_arguments.py``.)
"""

from __future__ import annotations

import ast
import asyncio
import concurrent.futures as cf
import math
import re
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import cvcclock
import cvcclock.pycvc as pycvc
from cvcclock import ClockConfig, ClockFollower, FrameLoop, SimThread, WorldClock, checks
from cvcclock.batch import read_results, simulate_many
from cvcclock.binding import WorldClockBinding
from cvcclock.checks import MAX_TICK, check_callable, check_seed, check_str, check_timeout
from cvcclock.demo import save_recording
from cvcclock.keys import WorldClockKeys
from cvcclock.replay import InputTrace, Recorder, TraceHeader
from cvcclock.scenario import (
    PointMassSimulator,
    Simulation,
    SimulationResult,
    simulate,
)
from cvcclock.scenario.runner import derive_seed
from cvcclock.seeding import RandomStreams, name_key
from support.batch_scenarios import CloseCall
from support.replay_worlds import Tiny

HUGE = 10**400      # as an int, past every bound; as a float, an OverflowError in disguise
WAIT = 10.0


def clock_state(clock):
    return (clock.tick, clock.mode, clock.config, clock.frame, clock.alpha, clock.scale,
            clock.lockstep_steps, clock.discontinuities)


class Counter:
    def __init__(self):
        self.n = 0

    def step(self, dt):
        self.n += 1

    def snapshot(self):
        return self.n


@pytest.fixture
def sims():
    """SimThreads a case makes, closed after it."""
    made: list[SimThread] = []
    yield made
    for sim in made:
        sim.close()


def make_binding():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    clock.advance(0.025)
    binding = WorldClockBinding({}, clock)
    binding.request_steps(2)
    return binding


def binding_state(binding):
    return (clock_state(binding.clock), dict(binding.tree), binding.queued_steps,
            binding.ignored, binding.keys)


def make_loop():
    return FrameLoop(WorldClock(ClockConfig(fixed_dt=0.01)), 60, spin=2e-3)


def loop_state(loop):
    return (loop.target_fps, loop.period, loop.capture, loop.spin, clock_state(loop.clock))


def make_pycvc_clock():
    clock = pycvc.world_clock()
    clock.set_config(0.01, 2.0, 4, 3, False)
    clock.advance_ticks(5)
    return clock


def pycvc_state(clock):
    return clock_state(clock.clock)


def make_follower():
    return pycvc.clock_follower(3, 6)


def follower_state(follower):
    return (follower.period, follower.follower.last_tick)


def threads_state(_):
    return threading.active_count()


def make_clock():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    clock.advance_ticks(3)
    return clock


def make_streams():
    streams = RandomStreams(derive_seed(0, 1))
    streams.get("wind").random()
    return streams


def streams_state(streams):
    return (streams.seed, streams.names, streams.state())


def make_recorder():
    clock = make_clock()
    recorder = Recorder(Tiny(), clock, 0.01, seed=derive_seed(0, 1))
    recorder.give("kick", 1)
    clock.advance_ticks(2)
    recorder.pump()
    return recorder


def recorder_state(recorder):
    return (recorder.inputs, list(recorder.trace().lines()), recorder.follower.world.snapshot())


def run(loop, **kwargs):
    return loop.run(**{"max_frames": 2, **kwargs})


def run_async(loop, **kwargs):
    return asyncio.run(loop.run_async(**{"max_frames": 2, **kwargs}))


def set_attr(name, value):
    return lambda subject: setattr(subject, name, value)


# (id, make the subject, its observable state, the bad call, error, argument, value)
CASES = [
    # -- the key table and the binding --
    ("under prefix=3", lambda: None, threads_state, lambda _: WorldClockKeys.under(3),
     TypeError, "prefix", 3),
    ("for_scene speed=None", lambda: None, threads_state,
     lambda _: WorldClockKeys.for_scene(speed=None, paused=None, time=None, tick=None),
     TypeError, "speed", None),
    ("for_scene tick=1", lambda: None, threads_state,
     lambda _: WorldClockKeys.for_scene(speed="a.speed", paused=None, time=None, tick=1),
     TypeError, "tick", 1),
    ("resolve keys=4", lambda: None, threads_state, lambda _: WorldClockKeys.resolve(4),
     TypeError, "keys", 4),
    ("binding tree=[]", make_binding, binding_state,
     lambda b: WorldClockBinding([], b.clock), TypeError, "tree", []),
    ("binding clock='c'", make_binding, binding_state,
     lambda b: WorldClockBinding({}, "c"), TypeError, "clock", "c"),
    ("binding keys=1.0", make_binding, binding_state,
     lambda b: WorldClockBinding(b.tree, b.clock, 1.0), TypeError, "keys", 1.0),
    ("binding.keys=b'x'", make_binding, binding_state, set_attr("keys", b"x"),
     TypeError, "keys", b"x"),
    ("request_steps n=-1", make_binding, binding_state, lambda b: b.request_steps(-1),
     ValueError, "n", -1),
    ("request_steps n=1.5", make_binding, binding_state, lambda b: b.request_steps(1.5),
     TypeError, "n", 1.5),
    ("request_steps n=True", make_binding, binding_state, lambda b: b.request_steps(True),
     TypeError, "n", True),
    ("request_steps n=np.True_", make_binding, binding_state,
     lambda b: b.request_steps(np.True_), TypeError, "n", np.True_),
    ("request_steps n='2'", make_binding, binding_state, lambda b: b.request_steps("2"),
     TypeError, "n", "2"),
    ("request_steps n=HUGE", make_binding, binding_state, lambda b: b.request_steps(HUGE),
     ValueError, "n", HUGE),
    ("drive wall_dt=-1", make_binding, binding_state, lambda b: b.drive(-1),
     ValueError, "wall_dt", -1),
    ("drive wall_dt=nan", make_binding, binding_state, lambda b: b.drive(math.nan),
     ValueError, "wall_dt", math.nan),
    ("drive wall_dt=HUGE", make_binding, binding_state, lambda b: b.drive(HUGE),
     ValueError, "wall_dt", HUGE),
    ("drive wall_dt='0.1'", make_binding, binding_state, lambda b: b.drive("0.1"),
     TypeError, "wall_dt", "0.1"),
    ("drive wall_dt=np.True_", make_binding, binding_state, lambda b: b.drive(np.True_),
     TypeError, "wall_dt", np.True_),
    # -- SimThread --
    ("SimThread world=3", lambda: WorldClock(), threads_state,
     lambda c: SimThread(3, c, 0.01), TypeError, "world", 3),
    ("SimThread clock=None", lambda: WorldClock(), threads_state,
     lambda c: SimThread(Counter(), None, 0.01), TypeError, "clock", None),
    ("SimThread dt='x'", lambda: WorldClock(), threads_state,
     lambda c: SimThread(Counter(), c, "x"), TypeError, "dt", "x"),
    ("SimThread dt=HUGE", lambda: WorldClock(), threads_state,
     lambda c: SimThread(Counter(), c, HUGE), ValueError, "dt", HUGE),
    ("SimThread dt=0.015", lambda: WorldClock(ClockConfig(fixed_dt=0.01)), threads_state,
     lambda c: SimThread(Counter(), c, 0.015), ValueError, "dt", 0.015),
    ("SimThread drive_clock='False'", lambda: WorldClock(), threads_state,
     lambda c: SimThread(Counter(), c, 1 / 120, drive_clock="False"), TypeError,
     "drive_clock", "False"),
    ("SimThread stop_timeout=-1", lambda: WorldClock(), threads_state,
     lambda c: SimThread(Counter(), c, 1 / 120, stop_timeout=-1), ValueError,
     "stop_timeout", -1),
    ("SimThread stop_timeout=HUGE", lambda: WorldClock(), threads_state,
     lambda c: SimThread(Counter(), c, 1 / 120, stop_timeout=HUGE), ValueError,
     "stop_timeout", HUGE),
    ("SimThread stop_timeout='1'", lambda: WorldClock(), threads_state,
     lambda c: SimThread(Counter(), c, 1 / 120, stop_timeout="1"), TypeError,
     "stop_timeout", "1"),
    # wait_caught_up and close: the subject is a running SimThread (see test below).
    ("wait_caught_up timeout=-1", "sim", None, lambda s: s.wait_caught_up(-1),
     ValueError, "timeout", -1),
    ("wait_caught_up timeout=HUGE", "sim", None, lambda s: s.wait_caught_up(HUGE),
     ValueError, "timeout", HUGE),
    ("wait_caught_up timeout='1'", "sim", None, lambda s: s.wait_caught_up("1"),
     TypeError, "timeout", "1"),
    ("close timeout=nan", "sim", None, lambda s: s.close(math.nan),
     ValueError, "timeout", math.nan),
    ("close timeout=HUGE", "sim", None, lambda s: s.close(HUGE),
     ValueError, "timeout", HUGE),
    ("close timeout=[1]", "sim", None, lambda s: s.close([1]), TypeError, "timeout", [1]),
    # -- FrameLoop --
    ("FrameLoop driver=3", make_loop, loop_state, lambda lp: FrameLoop(3, 60),
     TypeError, "driver", 3),
    ("FrameLoop fps='60'", make_loop, loop_state, lambda lp: FrameLoop(lp.clock, "60"),
     TypeError, "fps", "60"),
    ("FrameLoop fps=True", make_loop, loop_state, lambda lp: FrameLoop(lp.clock, True),
     TypeError, "fps", True),
    ("FrameLoop fps=0", make_loop, loop_state, lambda lp: FrameLoop(lp.clock, 0),
     ValueError, "fps", 0),
    ("FrameLoop fps=HUGE", make_loop, loop_state, lambda lp: FrameLoop(lp.clock, HUGE),
     ValueError, "fps", HUGE),
    ("FrameLoop capture='False'", make_loop, loop_state,
     lambda lp: FrameLoop(lp.clock, 60, capture="False"), TypeError, "capture", "False"),
    ("FrameLoop capture=1", make_loop, loop_state,
     lambda lp: FrameLoop(lp.clock, 60, capture=1), TypeError, "capture", 1),
    ("FrameLoop spin=HUGE", make_loop, loop_state,
     lambda lp: FrameLoop(lp.clock, 60, spin=HUGE), ValueError, "spin", HUGE),
    ("FrameLoop spin='0'", make_loop, loop_state,
     lambda lp: FrameLoop(lp.clock, 60, spin="0"), TypeError, "spin", "0"),
    ("loop.capture='yes'", make_loop, loop_state, set_attr("capture", "yes"),
     TypeError, "capture", "yes"),
    ("loop.spin=-1", make_loop, loop_state, set_attr("spin", -1), ValueError, "spin", -1),
    ("run max_frames=HUGE", make_loop, loop_state, lambda lp: run(lp, max_frames=HUGE),
     ValueError, "max_frames", HUGE),
    ("run max_frames=2.0", make_loop, loop_state, lambda lp: run(lp, max_frames=2.0),
     TypeError, "max_frames", 2.0),
    ("run until=1", make_loop, loop_state, lambda lp: run(lp, until=1),
     TypeError, "until", 1),
    ("run_async max_frames=-1", make_loop, loop_state,
     lambda lp: run_async(lp, max_frames=-1), ValueError, "max_frames", -1),
    ("run_async on_frame=2", make_loop, loop_state, lambda lp: run_async(lp, on_frame=2),
     TypeError, "on_frame", 2),
    # -- seeds, by the one seed rule --
    ("RandomStreams seed=-1", lambda: None, threads_state, lambda _: RandomStreams(-1),
     ValueError, "seed", -1),
    ("RandomStreams seed=np.True_", lambda: None, threads_state,
     lambda _: RandomStreams(np.True_), TypeError, "seed", np.True_),
    ("RandomStreams seed=7.0", lambda: None, threads_state, lambda _: RandomStreams(7.0),
     TypeError, "seed", 7.0),
    ("Recorder seed=-2", make_clock, clock_state,
     lambda c: Recorder(Tiny(), c, 0.01, seed=-2), ValueError, "seed", -2),
    ("Recorder seed=True", make_clock, clock_state,
     lambda c: Recorder(Tiny(), c, 0.01, seed=True), TypeError, "seed", True),
    ("TraceHeader seed=-1", lambda: None, threads_state,
     lambda _: TraceHeader(fixed_dt=0.01, dt=0.01, seed=-1), ValueError, "seed", -1),
    ("simulate seed=-3", lambda: None, threads_state,
     lambda _: simulate(CloseCall(), seed=-3), ValueError, "seed", -3),
    ("simulate_many seeds=[0, -1]", lambda: None, threads_state,
     lambda _: simulate_many(CloseCall(), [0, -1]), ValueError, "seeds[1]", -1),
    ("simulate_many seeds=[np.False_]", lambda: None, threads_state,
     lambda _: simulate_many(CloseCall(), [np.False_]), TypeError, "seeds[0]", np.False_),
    # -- names, by the str rule --
    ("streams.get name=3", make_streams, streams_state, lambda st_: st_.get(3),
     TypeError, "name must be a str", 3),
    ("Recorder.give name=b'kick'", make_recorder, recorder_state,
     lambda r: r.give(b"kick", 1), TypeError, "name must be a str", b"kick"),
    ("Recorder.give_late name=None", make_recorder, recorder_state,
     lambda r: r.give_late(4, None, 1), TypeError, "name must be a str", None),
    ("TraceHeader cvcclock=1", lambda: None, threads_state,
     lambda _: TraceHeader(fixed_dt=0.01, dt=0.01, cvcclock=1), TypeError,
     "cvcclock must be a str", 1),
    ("resolve a table whose tick key is 5", lambda: None, threads_state,
     lambda _: WorldClockKeys.resolve(WorldClockKeys(tick=5)), TypeError,
     "key tick must be a str or None", 5),
    # -- callables, by the callable rule --
    ("Recorder state_hash='blake2b'", make_clock, clock_state,
     lambda c: Recorder(Tiny(), c, 0.01, state_hash="blake2b"), TypeError,
     "state_hash must be callable", "blake2b"),
    ("Recorder on_step=3", make_clock, clock_state,
     lambda c: Recorder(Tiny(), c, 0.01, on_step=3), TypeError,
     "on_step must be callable or None", 3),
    ("follow on_step=[]", make_recorder, recorder_state,
     lambda r: r.follow(Tiny(), 0.02, on_step=[]), TypeError,
     "on_step must be callable or None", []),
    ("run on_frame='print'", make_loop, loop_state, lambda lp: run(lp, on_frame="print"),
     TypeError, "on_frame must be callable or None", "print"),
    ("every callback=5", make_clock, clock_state, lambda c: c.every(0.01, 5),
     TypeError, "callback must be callable", 5),
    # -- timeouts, by the timeout rule --
    ("wait_for_tick_change timeout=-1", make_clock, clock_state,
     lambda c: c.wait_for_tick_change(0, -1), ValueError, "timeout", -1),
    ("wait_for_tick_change timeout='1'", make_clock, clock_state,
     lambda c: c.wait_for_tick_change(0, "1"), TypeError, "timeout", "1"),
    # -- pycvc: errors name pycvc's own arguments --
    ("world_clock config=0.01", make_pycvc_clock, pycvc_state,
     lambda c: pycvc.world_clock(0.01), TypeError, "config", 0.01),
    ("set_config fixed_dt='x'", make_pycvc_clock, pycvc_state, lambda c: c.set_config("x"),
     TypeError, "fixed_dt", "x"),
    ("set_config fixed_dt=HUGE", make_pycvc_clock, pycvc_state,
     lambda c: c.set_config(HUGE), ValueError, "fixed_dt", HUGE),
    ("set_config scale=-1", make_pycvc_clock, pycvc_state,
     lambda c: c.set_config(0.01, -1), ValueError, "scale", -1),
    ("set_config max_steps=0", make_pycvc_clock, pycvc_state,
     lambda c: c.set_config(0.01, 1.0, 0), ValueError, "max_steps must", 0),
    ("set_config max_steps=1.5", make_pycvc_clock, pycvc_state,
     lambda c: c.set_config(0.01, 1.0, 1.5), TypeError, "max_steps must", 1.5),
    ("set_config max_steps=HUGE", make_pycvc_clock, pycvc_state,
     lambda c: c.set_config(0.01, 1.0, HUGE), ValueError, "max_steps must", HUGE),
    ("set_config lockstep_steps=True", make_pycvc_clock, pycvc_state,
     lambda c: c.set_config(0.01, 1.0, 8, True), TypeError, "lockstep_steps", True),
    ("set_config cap_scales_with_rate='no'", make_pycvc_clock, pycvc_state,
     lambda c: c.set_config(0.01, 1.0, 8, 1, "no"), TypeError, "cap_scales_with_rate", "no"),
    ("set_mode_name name=3", make_pycvc_clock, pycvc_state, lambda c: c.set_mode_name(3),
     TypeError, "name must", 3),
    ("set_mode_name name='warp'", make_pycvc_clock, pycvc_state,
     lambda c: c.set_mode_name("warp"), ValueError, "name=", "warp"),
    ("advance wall_dt=HUGE", make_pycvc_clock, pycvc_state, lambda c: c.advance(HUGE),
     ValueError, "wall_dt", HUGE),
    ("advance_ticks n=HUGE", make_pycvc_clock, pycvc_state, lambda c: c.advance_ticks(HUGE),
     ValueError, "n", HUGE),
    ("advance_ticks n=2.0", make_pycvc_clock, pycvc_state, lambda c: c.advance_ticks(2.0),
     TypeError, "n", 2.0),
    ("wait_for_tick_change tick=HUGE", make_pycvc_clock, pycvc_state,
     lambda c: c.wait_for_tick_change(HUGE, 0.0), ValueError, "tick", HUGE),
    ("wait_for_tick_change timeout=HUGE", make_pycvc_clock, pycvc_state,
     lambda c: c.wait_for_tick_change(0, HUGE), ValueError, "timeout", HUGE),
    ("clock_follower k=0", make_follower, follower_state, lambda f: pycvc.clock_follower(0),
     ValueError, "k", 0),
    ("clock_follower k=HUGE", make_follower, follower_state,
     lambda f: pycvc.clock_follower(HUGE), ValueError, "k", HUGE),
    ("clock_follower start_tick=1.5", make_follower, follower_state,
     lambda f: pycvc.clock_follower(2, 1.5), TypeError, "start_tick", 1.5),
    ("for_step clock='c'", make_follower, follower_state,
     lambda f: pycvc.clock_follower.for_step("c", 0.01), TypeError, "clock", "c"),
    ("for_step dt=HUGE", make_follower, follower_state,
     lambda f: pycvc.clock_follower.for_step(WorldClock(), HUGE), ValueError, "dt", HUGE),
    ("take clock=None", make_follower, follower_state, lambda f: f.take(None),
     TypeError, "clock", None),
    ("alpha tick=1.5", make_follower, follower_state, lambda f: f.alpha(1.5, 0.5),
     TypeError, "tick", 1.5),
    ("alpha clock_alpha=HUGE", make_follower, follower_state, lambda f: f.alpha(1, HUGE),
     ValueError, "clock_alpha", HUGE),
    ("App tree='sim'", lambda: None, threads_state, lambda _: pycvc.App("sim"),
     TypeError, "tree", "sim"),
    ("world_clock_binding app={}", make_pycvc_clock, pycvc_state,
     lambda c: pycvc.world_clock_binding({}, c), TypeError, "app", {}),
    ("world_clock_binding clock=1", make_pycvc_clock, pycvc_state,
     lambda c: pycvc.world_clock_binding(pycvc.App(), 1), TypeError, "clock", 1),
]


@pytest.mark.parametrize("make, observe, call, error, name, value",
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_a_bad_argument_is_named_with_its_value_and_changes_nothing(make, observe, call, error,
                                                                   name, value, sims):
    if make == "sim":        # a running SimThread: it must keep running, with nothing lost
        clock = WorldClock()
        subject = SimThread(Counter(), clock, 1 / 120)
        sims.append(subject)
        clock.step_once()
        assert subject.wait_caught_up(WAIT)

        def observe(sim):
            return (sim._thread.is_alive(), sim.read(), clock.tick)
    else:
        subject = make()
    before = observe(subject)
    with pytest.raises(error) as info:
        call(subject)
    message = str(info.value)
    assert name in message and repr(value)[:20] in message, message
    assert observe(subject) == before


def test_the_bools_the_python_layer_takes_include_numpy_bools(sims):
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    loop = FrameLoop(clock, 60, capture=np.True_)
    assert loop.capture is True
    sims.append(SimThread(Counter(), clock, 0.01, drive_clock=np.False_))
    pycvc_clock = pycvc.world_clock()
    pycvc_clock.set_config(0.01, 1.0, np.int64(8), np.int32(1), np.True_)
    assert pycvc_clock.clock.config == ClockConfig(fixed_dt=0.01, cap_scales_with_rate=True)
    assert ClockFollower.for_step(clock, np.float64(0.03)).period == 3


# -- the rules: the core's own, and the ones only the Python layer has -----------------------


def test_the_numeric_rules_are_the_cores():
    assert checks.check_count is cvcclock._core.check_count
    assert checks.check_count(np.int64(4), "k", 1) == 4
    assert checks.check_bool(np.False_, "flag") is False
    assert checks.MAX_TICK == 2**62
    for bad, error in [(True, TypeError), ("1", TypeError), (1.5, TypeError), (-1, ValueError)]:
        with pytest.raises(error, match="k"):
            checks.check_count(bad, "k")
    with pytest.raises(ValueError, match="x must be finite"):
        checks.check_real(float("inf"), "x")
    assert checks.check_real(np.float32(-2.5), "x") == -2.5


# -- the seed rule: any non-negative int, as numpy's SeedSequence takes it ------------------


def test_the_streams_take_the_seed_of_a_resampled_run():
    run_seed = derive_seed(0, 1)          # the seed simulate gives a run's second attempt
    assert run_seed > MAX_TICK            # a count's bound; no bound of a seed
    wind = RandomStreams(run_seed).get("wind").integers(0, 2**32, 4).tolist()
    sequence = np.random.SeedSequence(run_seed, spawn_key=name_key("wind"))
    assert wind == np.random.Generator(np.random.PCG64(sequence)).integers(0, 2**32, 4).tolist()


@given(seed=st.integers(min_value=0, max_value=2**200), attempt=st.integers(0, 10**9))
def test_every_seed_the_package_derives_is_a_seed_everywhere(seed, attempt):
    run_seed = derive_seed(seed, attempt)
    assert check_seed(run_seed) == run_seed
    assert RandomStreams(run_seed).seed == run_seed
    assert Simulation(PointMassSimulator(), run_seed, 0.1).seed == run_seed
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    assert Recorder(Tiny(), clock, 0.01, seed=run_seed).trace().header.seed == run_seed
    simulate_many(CloseCall(), [seed, run_seed] if seed != run_seed else [seed]).close()


@given(seed=st.integers(min_value=0))
def test_a_seed_is_any_non_negative_int_seed_sequence_takes(seed):
    assert check_seed(seed) == seed
    assert np.random.SeedSequence(check_seed(seed)).entropy == seed
    assert type(check_seed(np.uint64(seed % 2**64))) is int


@given(seed=st.integers(max_value=-1))
def test_a_negative_seed_is_refused_naming_it(seed):
    with pytest.raises(ValueError, match=f"^seed must be >= 0, got {seed}$"):
        check_seed(seed)


@pytest.mark.parametrize("bad", [True, np.True_, 1.0, "7", None, np.float64(3.0)])
def test_a_seed_that_is_no_integer_is_a_type_error(bad):
    message = f"run_seed must be an integer, got {bad!r}"
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        check_seed(bad, "run_seed")


def test_a_resampled_run_replays_from_its_run_seed_in_a_batch_and_its_file(tmp_path):
    run_seed = derive_seed(0, 1)
    alone = simulate(CloseCall(), seed=run_seed)
    out = tmp_path / "runs.jsonl"
    with cf.ThreadPoolExecutor(1) as pool:
        batch, = simulate_many(CloseCall(), [run_seed], executor=pool, out=out, keep="all")
    assert isinstance(batch, SimulationResult) and batch == alone
    assert read_results(out) == [alone]


def test_a_trace_keeps_a_seed_above_the_tick_limit(tmp_path):
    run_seed = derive_seed(0, 1)
    recorder = Recorder(Tiny(), WorldClock(ClockConfig(fixed_dt=0.01)), 0.01, seed=run_seed)
    path = tmp_path / "run.trace"
    recorder.trace().save(path)
    assert InputTrace.load(path).header == recorder.trace().header
    assert InputTrace.load(path).header.seed == run_seed


# -- the str, path, callable and timeout rules-------------------------------------------------


@pytest.mark.parametrize("value", ["", "sim.speed", np.str_("x")])
def test_a_str_is_taken_as_it_is(value):
    assert check_str(value, "key") is value
    assert check_str(None, "key", optional=True) is None


@pytest.mark.parametrize("bad", [3, b"x", None, ["a"], np.int64(1)])
def test_anything_else_is_not_a_str(bad):
    with pytest.raises(TypeError, match=f"^key must be a str, got {re.escape(repr(bad))}$"):
        check_str(bad, "key")


def test_an_optional_str_says_none_is_taken_too():
    with pytest.raises(TypeError, match="^label must be a str or None, got 3$"):
        check_str(3, "label", optional=True)


@pytest.mark.parametrize("value, path", [("run.jsonl", "run.jsonl"), (Path("a/b.png"), "a/b.png"),
                                         (b"x.trace", "x.trace")])
def test_a_path_is_taken_as_a_str(value, path):
    assert checks.check_path(value, "out") == path


@pytest.mark.parametrize("bad, error, message", [
    (3, TypeError, r"^out must be a path \(str or os.PathLike\), got 3$"),
    (None, TypeError, r"^out must be a path \(str or os.PathLike\), got None$"),
    ("", ValueError, "^out must name a file, got ''$"),
])
def test_anything_else_is_not_a_path(bad, error, message):
    with pytest.raises(error, match=message):
        checks.check_path(bad, "out")


def _a_trace():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    recorder = Recorder(Tiny(), clock, 0.01)
    clock.advance_ticks(3)
    recorder.pump()
    return recorder.trace()


@pytest.mark.parametrize("call", [
    lambda bad: _a_trace().save(bad),
    InputTrace.load,
    read_results,
    save_recording,
    lambda bad: list(simulate_many(CloseCall(), [0], out=bad)),
], ids=["InputTrace.save", "InputTrace.load", "read_results", "save_recording", "out="])
@pytest.mark.parametrize("bad", [5, 2.5, ["runs.jsonl"]])
def test_every_call_that_takes_a_file_takes_a_path_only(call, bad):
    """A file descriptor (an int) is not a path: open() would take it, and close it."""
    with pytest.raises(TypeError, match=r"must be a path \(str or os.PathLike\), got "
                                        + re.escape(repr(bad)) + "$"):
        call(bad)


@pytest.mark.parametrize("value", [print, len, lambda: None, RandomStreams, Tiny().step])
def test_a_callable_is_taken_as_it_is(value):
    assert check_callable(value, "fn") is value


@pytest.mark.parametrize("bad", [3, "print", None, [print]])
def test_anything_else_is_not_callable(bad):
    with pytest.raises(TypeError, match=f"^fn must be callable, got {re.escape(repr(bad))}$"):
        check_callable(bad, "fn")


def test_a_kind_of_callable_and_an_optional_one_say_so():
    assert check_callable(None, "fn", optional=True) is None
    with pytest.raises(TypeError, match="^fn must be a generator function, got 3$"):
        check_callable(3, "fn", "a generator function")
    with pytest.raises(TypeError, match="^fn must be a generator function or None, got 3$"):
        check_callable(3, "fn", "a generator function", optional=True)


def test_a_wait_may_last_for_ever():
    assert check_timeout(None) is None
    assert check_timeout(0) == 0.0 and type(check_timeout(np.float32(0.5))) is float
    assert check_timeout(threading.TIMEOUT_MAX) == threading.TIMEOUT_MAX
    assert check_timeout(threading.TIMEOUT_MAX * 2) is None     # longer than a wait can be
    assert check_timeout(1e300) is None


def test_a_bounded_timeout_is_seconds_a_join_can_take():
    assert check_timeout(2, "stop_timeout", forever=False) == 2.0
    with pytest.raises(TypeError, match="^stop_timeout must be a real number, got None$"):
        check_timeout(None, "stop_timeout", forever=False)
    with pytest.raises(ValueError, match=f"^stop_timeout must be finite and non-negative and "
                                         f"<= {threading.TIMEOUT_MAX!r}, got 1e\\+300$"):
        check_timeout(1e300, "stop_timeout", forever=False)


@pytest.mark.parametrize("bad, error", [(-1, ValueError), (math.nan, ValueError),
                                        (math.inf, ValueError), ("1", TypeError),
                                        (True, TypeError), (np.True_, TypeError)])
def test_a_bad_timeout_is_refused_by_the_seconds_rule(bad, error):
    for forever in (True, False):
        with pytest.raises(error, match=f"^timeout must be .*, got {re.escape(repr(bad))}$"):
            check_timeout(bad, forever=forever)


# The callable and timeout rules live in the core (src/_core/checks.pxi), which calls them
# itself (timers, cancel_all, wait_for_tick_change); cvcclock.checks re-exports them. So the
# core's refusals are the rules', word for word.
CORE_RESTATED = [
    (lambda c: c.every(0.01, 5), lambda: check_callable(5, "callback")),
    (lambda c: c.after_ticks(3, "f"), lambda: check_callable("f", "callback")),
    (lambda c: c.cancel_all(None), lambda: check_callable(None, "callback")),
    (lambda c: c.wait_for_tick_change(0, -0.5), lambda: check_timeout(-0.5)),
    (lambda c: c.wait_for_tick_change(0, math.nan), lambda: check_timeout(math.nan)),
    (lambda c: c.wait_for_tick_change(0, "1"), lambda: check_timeout("1")),
    (lambda c: c.wait_for_tick_change(0, np.True_), lambda: check_timeout(np.True_)),
]


@pytest.mark.parametrize("core_call, rule", CORE_RESTATED)
def test_the_cores_restated_rules_refuse_as_the_rules_do(core_call, rule):
    with pytest.raises((TypeError, ValueError)) as by_rule:
        rule()
    with pytest.raises(type(by_rule.value)) as by_core:
        core_call(make_clock())
    assert str(by_core.value) == str(by_rule.value)


def test_the_callable_and_timeout_rules_are_the_cores():
    import cvcclock._core

    assert check_callable is cvcclock._core.check_callable
    assert check_timeout is cvcclock._core.check_timeout


CORE_SOURCES = Path(__file__).resolve().parents[1] / "src" / "_core"


def test_no_core_source_but_its_checks_restates_a_rule():
    """The core's messages name MAX_TICK from its constant, and its callers call the rules."""
    sources = sorted(CORE_SOURCES.glob("*.p*"))
    assert len(sources) > 5, CORE_SOURCES
    offenders = []
    for path in sources:
        if path.name == "checks.pxi":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            if ('f"' in code and "2**62" in code) or "must be callable" in code:
                offenders.append(f"{path.name}:{number}: {line.strip()}")
    assert offenders == []


def test_the_cores_wait_takes_a_timeout_past_the_platform_limit_as_for_ever():
    clock = make_clock()
    seen = []
    waiter = threading.Thread(target=lambda: seen.append(
        clock.wait_for_tick_change(clock.tick, threading.TIMEOUT_MAX * 2)))
    waiter.start()
    waiter.join(0.2)
    assert waiter.is_alive() and check_timeout(threading.TIMEOUT_MAX * 2) is None
    clock.advance_ticks(1)
    waiter.join(WAIT)
    assert seen == [4]


# -- one rule, called everywhere: an AST scan for a module that restates one ---------------

PACKAGE = Path(cvcclock.__file__).parent
SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "checks.py")
# Words of the rules' own messages: a module that writes them writes the rule again.
RULE_WORDS = re.compile(r"must be (a )?callable|must be a str\b")


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, kinds) and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}


def _calls(node: ast.AST, name: str) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == name)


def _raises_type_error(body: list[ast.stmt]) -> bool:
    return any(isinstance(node, ast.Raise) and node.exc is not None
               and "TypeError" in ast.unparse(node.exc).partition("(")[0]
               for statement in body for node in ast.walk(statement))


def _refuses(test: ast.expr, check) -> bool:
    """Whether ``test`` holds ``not <check>`` (``not callable(x)``), as a refusal is written."""
    return any(isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
               and check(node.operand) for node in ast.walk(test))


def _is_str_check(node: ast.AST) -> bool:
    return (_calls(node, "isinstance") and len(node.args) == 2
            and isinstance(node.args[1], ast.Name) and node.args[1].id == "str")


def restated_rules(source: str) -> list[tuple[int, str]]:
    """(line, the rule to call instead) for each rule ``source`` writes again."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _raises_type_error(node.body):
            if _refuses(node.test, lambda n: _calls(n, "callable")):
                found.append((node.lineno, "check_callable"))
            if _refuses(node.test, _is_str_check):
                found.append((node.lineno, "check_str"))
        elif isinstance(node, ast.Attribute) and node.attr == "TIMEOUT_MAX":
            found.append((node.lineno, "check_timeout"))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in docstrings):
            if re.search(r"2\s*\*\*\s*62", node.value):
                found.append((node.lineno, "MAX_TICK"))
            if RULE_WORDS.search(node.value):
                found.append((node.lineno, "the rule's own message"))
        elif _calls(node, "check_count") and any(
                "seed" in ast.unparse(arg) for arg in node.args[1:2] + [
                    k.value for k in node.keywords if k.arg == "name"]):
            found.append((node.lineno, "check_seed"))
    return sorted(found)


def test_a_wall_limit_is_none_or_seconds_above_zero():
    from cvcclock.checks import check_wall_limit

    assert check_wall_limit(None, "run_timeout") is None
    assert check_wall_limit(2, "run_timeout") == 2.0
    with pytest.raises(ValueError, match=r"run_timeout must be > 0 seconds \(or None for no "
                       r"limit\), got 0"):
        check_wall_limit(0, "run_timeout")
    for bad, error in ((-1.0, ValueError), (math.inf, ValueError), ("1", TypeError),
                       (True, TypeError)):
        with pytest.raises(error, match="run_timeout"):
            check_wall_limit(bad, "run_timeout")


def test_no_module_of_the_package_restates_a_rule():
    assert {"binding.py", "_follower.py", "_arguments.py", "_simulate.py"} <= {
        p.name for p in SOURCES}
    restated = [f"{path.relative_to(PACKAGE)}:{line}: call {rule}"
                for path in SOURCES for line, rule in restated_rules(path.read_text())]
    assert restated == []


RESTATEMENTS = [
    ("if not callable(fn):\n    raise TypeError(f'{name} must be callable')", "check_callable"),
    ("if fn is not None and not callable(fn):\n    raise TypeError('no')", "check_callable"),
    ("if not isinstance(name, str):\n    raise TypeError(name)", "check_str"),
    ("if not isinstance(d, str) or not d:\n    raise TypeError(d)", "check_str"),
    ("seconds = min(t, threading.TIMEOUT_MAX)", "check_timeout"),
    ("raise ValueError('n would take the tick past 2**62')", "MAX_TICK"),
    ("raise ValueError(f'{n} past 2 ** 62')", "MAX_TICK"),
    ("raise TypeError(f'{name} must be a str, got {v!r}')", "the rule's own message"),
    ("raise TypeError(f'{name} must be a callable, got {v!r}')", "the rule's own message"),
    ("seed = check_count(seed, 'seed')", "check_seed"),
    ("check_count(s, f'seeds[{i}]', 0)", "check_seed"),
    ("check_count(s, name='run_seed')", "check_seed"),
]


@pytest.mark.parametrize("source, rule", RESTATEMENTS)
def test_the_scan_finds_a_restated_rule(source, rule):
    assert rule in [found for _, found in restated_rules(source)]


def test_the_scan_leaves_what_restates_no_rule_alone():
    source = '''
def f(value, progress, world):
    """Past 2**62 the tick saturates; a name must be a str."""
    if isinstance(value, str):          # a lenient reading, then the rules
        value = float(value)
    if callable(progress):              # dispatch on a kind, not a refusal
        return progress
    if not (isinstance(world, Exec) or callable(world)):
        raise TypeError("world must be an executor or make one")
    check_count(value, "n")
    return check_callable(value, "fn", optional=True)
'''
    assert restated_rules(source) == []


def test_time_limits_are_one_for_all_or_one_a_run_each_a_time_limit():
    import math

    import numpy as np

    from cvcclock.checks import check_time_limits
    assert check_time_limits(2.0, 3).tolist() == [2.0, 2.0, 2.0]
    assert check_time_limits([1, math.inf, 0.5], 3).tolist() == [1.0, math.inf, 0.5]
    assert check_time_limits(np.array([1.0, 2.0]), 2).dtype == np.float64
    with pytest.raises(ValueError, match=r"limits must hold one limit for each of the 3 runs, "
                                         r"got 2"):
        check_time_limits([1.0, 2.0], 3, "limits")
    with pytest.raises(ValueError, match=r"time_limits\[1\] .*-1"):
        check_time_limits([1.0, -1.0], 2)
    with pytest.raises(ValueError, match=r"time_limits .*nan"):
        check_time_limits(math.nan, 2)
    with pytest.raises(TypeError, match=r"time_limits\[0\]"):
        check_time_limits(["1"], 1)
    with pytest.raises(TypeError, match=r"time_limits"):
        check_time_limits("1", 1)
    with pytest.raises(ValueError, match=r"1-d"):
        check_time_limits(np.ones((2, 1)), 2)
# -- the rules netplay brought: probabilities, mappings, addresses, keys, small JSON --------

def test_check_probability_takes_zero_to_one_only():
    assert checks.check_probability(0, "p") == 0.0 and checks.check_probability(1, "p") == 1.0
    for bad in (-0.01, 1.01):
        with pytest.raises(ValueError, match=r"^p must be a probability from 0 to 1"):
            checks.check_probability(bad, "p")
    with pytest.raises(ValueError, match=r"^p must be finite"):
        checks.check_probability(math.nan, "p")
    with pytest.raises(TypeError, match="p"):
        checks.check_probability("0.5", "p")


def test_check_mapping_copies_a_mapping_and_refuses_the_rest():
    original = {1: 2}
    copy = checks.check_mapping(original, "m")
    assert copy == original and copy is not original
    with pytest.raises(TypeError, match=r"^m must be a mapping, got \[\(1, 2\)\]"):
        checks.check_mapping([(1, 2)], "m")


def test_check_address_takes_a_host_and_a_port():
    assert checks.check_address(("127.0.0.1", 9), "a") == ("127.0.0.1", 9)
    assert checks.check_address(["h", 0], "a") == ("h", 0)
    for bad in ("127.0.0.1:9", ("h",), (1, 2), None):
        with pytest.raises(TypeError, match=r"^a must be a \(host, port\) pair"):
            checks.check_address(bad, "a")
    with pytest.raises(ValueError, match="a port"):
        checks.check_address(("h", 65536), "a")
    with pytest.raises(ValueError, match="must name a host"):
        checks.check_address(("", 1), "a")


def test_check_key_takes_16_bytes_or_more_and_never_shows_the_key():
    assert checks.check_key(bytearray(b"k" * 16), "key") == b"k" * 16
    with pytest.raises(TypeError, match=r"^key must be bytes") as caught:
        checks.check_key("secretsecretsecret", "key")
    assert "secretsecret" not in str(caught.value)
    with pytest.raises(ValueError, match="at least 16 bytes, got 5"):
        checks.check_key(b"short", "key")


def test_check_small_json_gives_the_compact_text_within_the_cap():
    assert checks.check_small_json({"a": [1, None]}, "v", 100) == '{"a":[1,null]}'
    assert checks.check_small_json((1, 2), "v", 100) == "[1,2]"
    with pytest.raises(TypeError, match=r"^v must be a JSON value"):
        checks.check_small_json({1, 2}, "v", 100)
    with pytest.raises(ValueError, match=r"^v must be a JSON value"):
        checks.check_small_json([math.inf], "v", 100)
    with pytest.raises(ValueError, match="at most 5 bytes of JSON, got 7"):
        checks.check_small_json("abcde", "v", 5)
def test_check_global_seed_takes_what_both_global_streams_take():
    from cvcclock.checks import check_global_seed

    assert check_global_seed(0) == 0 and check_global_seed(np.uint32(2**32 - 1)) == 2**32 - 1
    with pytest.raises(ValueError, match=r"run_seed must be at most 2\*\*32 - 1.*2\*\*32|"
                                         r"run_seed must be at most 2\*\*32 - 1.*4294967296"):
        check_global_seed(2**32, "run_seed")
    with pytest.raises(ValueError, match="seed"):
        check_global_seed(-1)
    with pytest.raises(TypeError, match="seed"):
        check_global_seed(True)
