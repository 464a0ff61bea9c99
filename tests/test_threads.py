"""SimThread: a follower on its own thread equals direct stepping exactly, and never loses
an error, a step or a wake-up.

No test asserts wall-time precision; timeouts are generous bounds against deadlock only.
"""

from __future__ import annotations

import gc
import math
import re
import subprocess
import sys
import textwrap
import threading
import time
import traceback
import warnings

import pytest

from cvcclock import ClockConfig, ClockFollower, Mode, WorldClock
from cvcclock.threads import SimThread, SimWorld, _covers
from support.worlds import Spring

WAIT = 10.0   # a deadlock guard, never a timing assertion


def direct_frames(pace, frames, *, dt=0.06, fixed_dt=0.01, scale=1.0):
    """What stepping the world directly on the driving thread shows after each frame."""
    clock = WorldClock(ClockConfig(fixed_dt=fixed_dt, scale=scale))
    world = Spring()
    follower = ClockFollower.for_step(clock, dt)
    shown = (0, world.snapshot())
    out = []
    for _ in range(frames):
        pace(clock)
        for due in follower.take_due(clock):
            world.step(dt)
            shown = (due, world.snapshot())
        out.append(shown)
    return out


def threaded_frames(pace, frames, *, dt=0.06, fixed_dt=0.01, scale=1.0):
    """The same frames through a SimThread: drive, wait_caught_up, read."""
    clock = WorldClock(ClockConfig(fixed_dt=fixed_dt, scale=scale))
    out = []
    with SimThread(Spring(), clock, dt) as sim:
        for _ in range(frames):
            pace(clock)
            assert sim.wait_caught_up(WAIT)
            out.append(sim.read())
    return out


def per_step(frames):
    """The distinct published states, in order: each step's state when at most one runs a frame."""
    return [f for i, f in enumerate(frames) if i == 0 or f != frames[i - 1]]


def capture(clock):
    clock.advance(1 / 60)


# -- the world protocol ------------------------------------------------------------------------


def test_world_is_a_protocol_or_a_callable_pair():
    clock = WorldClock()
    world = Spring()
    assert isinstance(world, SimWorld)
    with SimThread((world.step, world.snapshot), clock, 1 / 120) as sim:
        clock.advance_ticks(3)
        assert sim.wait_caught_up(WAIT)
        assert sim.read() == (3, world.snapshot())
        assert world.n == 3


@pytest.mark.parametrize("world", [object(), (print,), (1, 2), "step"])
def test_a_world_without_step_and_snapshot_is_a_type_error(world):
    with pytest.raises(TypeError, match="step"):
        SimThread(world, WorldClock(), 1 / 120)


def test_a_step_that_is_not_whole_quanta_is_refused_before_a_thread_starts():
    before = threading.active_count()
    with pytest.raises(ValueError, match="7.2 quanta"):
        SimThread(Spring(), WorldClock(), 0.06)
    assert threading.active_count() == before


def test_read_before_the_first_step_is_the_start_tick_and_initial_snapshot():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    clock.advance_ticks(7)
    world = Spring()
    world.x = 2.5
    with SimThread(world, clock, 0.06) as sim:
        assert sim.read() == (7, (0, 2.5, 0.0))
        assert sim.period == 6 and sim.dt == 0.06 and sim.clock is clock
        clock.advance_ticks(4)          # tick 11: nothing due after 7 but 12
        assert sim.wait_caught_up(WAIT)
        assert sim.read() == (7, (0, 2.5, 0.0))
        clock.advance_ticks(1)          # tick 12: the first step, due at 12
        assert sim.wait_caught_up(WAIT)
        assert sim.read()[0] == 12 and sim.read()[1][0] == 1


# -- exactness ---------------------------------------------------------------------------------


def test_a_capture_shows_the_same_snapshots_as_direct_stepping_and_a_rerun_reproduces_them():
    expected = direct_frames(capture, 300)
    first = threaded_frames(capture, 300)
    assert first == expected
    assert threaded_frames(capture, 300) == first
    assert first[-1] == (498, first[-1][1]) and first[-1][1][0] == 83   # 5 s of 0.06 s steps


@pytest.mark.parametrize("scale", [2.0, 0.5])
def test_the_per_step_states_are_the_same_at_other_speeds(scale):
    # At most one 6-quantum step falls due per 1/60 s frame at <= 2x, so reading every frame
    # sees every step's state.
    reference = per_step(threaded_frames(capture, 600))
    states = per_step(threaded_frames(capture, 600, scale=scale))
    assert states == per_step(direct_frames(capture, 600, scale=scale))
    common = min(len(states), len(reference))
    assert common > 20
    assert states[:common] == reference[:common]
    assert [tick for tick, _ in states] == [6 * i for i in range(len(states))]


@pytest.mark.parametrize("pace", [
    lambda clock: clock.advance_ticks(5),
    lambda clock: clock.step_once(),
    lambda clock: clock.advance(0.1),             # hits the stall guard: 10 quanta, cap 8
], ids=["batch", "single-step", "stall-guard"])
def test_every_pacing_matches_direct_stepping(pace):
    assert threaded_frames(pace, 200) == direct_frames(pace, 200)


def test_a_capture_through_the_binding_matches_direct_stepping():
    binding_mod = pytest.importorskip("cvcclock.binding")
    from cvcclock.loop import FrameLoop

    def run():
        clock = WorldClock(ClockConfig(fixed_dt=0.01))
        tree: dict = {}
        binding = binding_mod.WorldClockBinding(tree, clock, keys="sim")
        out = []
        with SimThread(Spring(), clock, 0.06) as sim:
            def on_frame(frame, result):
                if frame == 100:
                    tree["sim.speed"] = 2.0   # a control through the tree, mid-capture
                assert sim.wait_caught_up(WAIT)
                out.append(sim.read())
            FrameLoop(binding, 60, capture=True).run(on_frame, max_frames=240)
        return out

    def direct():
        clock = WorldClock(ClockConfig(fixed_dt=0.01))
        world, follower = Spring(), ClockFollower.for_step(clock, 0.06)
        shown, out = (0, world.snapshot()), []
        for frame in range(240):
            if frame == 101:   # the binding applies the control at the next drive
                clock.scale = 2.0
            clock.advance(1 / 60)
            for due in follower.take_due(clock):
                world.step(0.06)
                shown = (due, world.snapshot())
            out.append(shown)
        return out

    first = run()
    assert first == direct()
    assert run() == first


# -- discontinuities ---------------------------------------------------------------------------


def test_configure_and_seek_resynchronise_without_running_skipped_steps():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    world = Spring()
    with SimThread(world, clock, 0.02) as sim:
        clock.advance_ticks(10)
        assert sim.wait_caught_up(WAIT) and sim.read()[0] == 10 and world.n == 5
        clock.configure(ClockConfig(fixed_dt=0.01))   # back to tick 0: nothing owed
        assert sim.wait_caught_up(WAIT)   # resynchronised at tick 0, reproducibly
        clock.advance_ticks(4)
        assert sim.wait_caught_up(WAIT)
        assert sim.read() == (4, world.snapshot()) and world.n == 7
        clock.mode = Mode.REPLAY
        clock.seek_tick(1000)                           # forward: the skipped steps never run
        assert sim.wait_caught_up(WAIT) and world.n == 7
        clock.advance_ticks(2)
        assert sim.wait_caught_up(WAIT)
        assert sim.read() == (1002, world.snapshot()) and world.n == 8


def test_a_configure_at_the_same_tick_does_not_stall_wait_caught_up():
    clock = WorldClock()
    with SimThread(Spring(), clock, 1 / 120) as sim:
        assert sim.wait_caught_up(WAIT)
        clock.configure(ClockConfig())   # tick 0 again; the worker sleeps on tick 0
        assert sim.wait_caught_up(0.0)   # nothing is owed in the new epoch: no wait at all
        clock.advance_ticks(1)
        assert sim.wait_caught_up(WAIT) and sim.read()[0] == 1


# -- errors ------------------------------------------------------------------------------------


class Exploding(Spring):
    def step(self, dt: float) -> None:
        super().step(dt)
        if self.n == 3:
            raise ZeroDivisionError("the world blew up at step 3")


def test_an_error_in_step_is_raised_from_every_later_read_and_wait_with_its_traceback():
    clock = WorldClock()
    sim = SimThread(Exploding(), clock, 1 / 120)
    clock.advance_ticks(5)
    with pytest.raises(ZeroDivisionError, match="step 3") as first:
        sim.wait_caught_up(WAIT)
    frames = [f.name for f in traceback.extract_tb(first.value.__traceback__)]
    assert "step" in frames and "_work" in frames   # the worker's frames are kept
    for call in (sim.read, sim.read, lambda: sim.wait_caught_up(0)):
        with pytest.raises(ZeroDivisionError) as again:
            call()
        assert again.value is first.value
        # reset to the worker's frames each time, not piled up raise after raise
        assert len(traceback.extract_tb(again.value.__traceback__)) <= len(frames) + 2
    sim.close()
    sim.close()
    with pytest.raises(ZeroDivisionError):
        sim.read()


def test_an_error_in_snapshot_stops_the_worker_too():
    def snapshot():
        if calls:
            raise KeyError("snapshot")
        calls.append(1)
        return 0
    calls: list[int] = []
    clock = WorldClock()
    with SimThread((lambda dt: None, snapshot), clock, 1 / 120) as sim:
        assert sim.read() == (0, 0)
        clock.step_once()
        with pytest.raises(KeyError):
            sim.wait_caught_up(WAIT)


# -- stress and shutdown -----------------------------------------------------------------------


class Counter:
    def __init__(self) -> None:
        self.n = 0

    def step(self, dt: float) -> None:
        self.n += 1

    def snapshot(self) -> int:
        return self.n


def test_ten_thousand_capture_frames_without_deadlock():
    clock = WorldClock(ClockConfig(fixed_dt=1 / 120))
    with SimThread(Counter(), clock, 1 / 120) as sim:
        for frame in range(1, 10_001):
            clock.advance(1 / 60)
            assert sim.wait_caught_up(WAIT)
            assert sim.read() == (2 * frame, 2 * frame)


def test_close_while_the_worker_waits_is_prompt():
    clock = WorldClock()
    sim = SimThread(Counter(), clock, 1 / 120)
    time.sleep(0.05)   # let the worker block on the clock
    started = time.perf_counter()
    sim.close()
    assert time.perf_counter() - started < 2.0
    assert not sim._thread.is_alive()
    clock.step_once()
    assert sim.wait_caught_up(WAIT) is False   # closed: nobody will catch up


def test_close_while_the_driver_waits_in_wait_caught_up():
    entered, gate = threading.Event(), threading.Event()

    def step(dt: float) -> None:
        entered.set()
        gate.wait(WAIT)

    clock = WorldClock()
    sim = SimThread((step, lambda: None), clock, 1 / 120)
    clock.step_once()
    assert entered.wait(WAIT)          # the worker is inside a step
    answer: list[bool] = []
    driver = threading.Thread(target=lambda: answer.append(sim.wait_caught_up(WAIT)))
    driver.start()
    closer = threading.Thread(target=sim.close)
    closer.start()
    driver.join(WAIT)                  # returns while the step still blocks the worker
    assert answer == [False]
    gate.set()
    closer.join(WAIT)
    assert not closer.is_alive() and not sim._thread.is_alive()


def test_close_from_inside_a_step_does_not_deadlock():
    clock = WorldClock()
    holder: list[SimThread] = []
    sim = SimThread((lambda dt: holder[0].close(), lambda: 0), clock, 1 / 120)
    holder.append(sim)
    clock.advance_ticks(3)
    sim._thread.join(WAIT)
    assert not sim._thread.is_alive()


def test_wait_caught_up_times_out_behind_a_slow_step():
    gate = threading.Event()
    clock = WorldClock()
    with SimThread((lambda dt: gate.wait(WAIT), lambda: 0), clock, 1 / 120) as sim:
        clock.step_once()
        assert sim.wait_caught_up(0.01) is False
        gate.set()
        assert sim.wait_caught_up(WAIT)


def test_a_step_longer_than_a_frame_runs_every_step_given_exactly_once():
    clock = WorldClock(ClockConfig(fixed_dt=0.01, max_steps_per_advance=1))
    world = Counter()
    seen = []

    def step(dt: float) -> None:
        time.sleep(0.025)   # 2.5 quanta of wall time per step: the stall guard must drop
        world.step(dt)

    with SimThread((step, world.snapshot), clock, 0.01) as sim:
        last = time.perf_counter()
        for _ in range(12):
            time.sleep(1 / 60)   # the frame's own work
            now = time.perf_counter()
            clock.advance(now - last)
            last = now
            assert sim.wait_caught_up(WAIT)
            seen.append(sim.read())
    assert clock.total_dropped > 0
    assert world.n == clock.tick
    assert seen[-1] == (clock.tick, clock.tick)
    assert all(tick == n for tick, n in seen)      # nothing skipped or doubled
    assert [t for t, _ in seen] == sorted(t for t, _ in seen)


def test_drive_clock_runs_the_clock_from_perf_counter_and_follows_it():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    world = Counter()
    with SimThread(world, clock, 0.02, drive_clock=True) as sim:
        deadline = time.perf_counter() + WAIT
        while sim.read()[1] < 5 and time.perf_counter() < deadline:
            time.sleep(0.01)
        tick, n = sim.read()
        assert n >= 5 and tick == 2 * n
    assert clock.tick >= 10 and clock.frame > 0
    assert sim.read() == (2 * world.n, world.n) and world.n <= clock.tick // 2


def test_drive_clock_does_nothing_while_paused():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    clock.mode = "paused"
    with SimThread(Counter(), clock, 0.01, drive_clock=True):
        deadline = time.perf_counter() + WAIT   # polled: a loaded machine may be slow to start
        while clock.frame < 3 and time.perf_counter() < deadline:
            time.sleep(0.005)
    assert clock.tick == 0 and clock.frame >= 3


def test_a_dropped_unclosed_simthread_stops_its_worker():
    clock = WorldClock()
    sim = SimThread(Counter(), clock, 1 / 120)
    thread = sim._thread
    clock.step_once()
    assert sim.wait_caught_up(WAIT)
    del sim
    gc.collect()
    thread.join(WAIT)
    assert not thread.is_alive()


# -- timeouts ----------------------------------------------------------------------------------


@pytest.mark.parametrize("timeout, error", [
    (math.nan, ValueError), (math.inf, ValueError), (-1, ValueError), (-0.5, ValueError),
    ("x", TypeError), ("1", TypeError), (True, TypeError), ([1.0], TypeError)])
def test_wait_caught_up_refuses_a_bad_timeout_before_waiting(timeout, error):
    gate = threading.Event()
    clock = WorldClock()
    with SimThread((lambda dt: gate.wait(WAIT), lambda: 0), clock, 1 / 120) as sim:
        clock.step_once()                 # the worker is stuck: any wait would block
        started = time.perf_counter()
        with pytest.raises(error, match=r"timeout .*" + re.escape(repr(timeout))):
            sim.wait_caught_up(timeout)
        assert time.perf_counter() - started < WAIT / 2
        gate.set()


def test_a_timeout_past_timeout_max_waits_for_ever():
    clock = WorldClock()
    with SimThread(Counter(), clock, 1 / 120) as sim:
        clock.step_once()
        assert sim.wait_caught_up(threading.TIMEOUT_MAX * 2)
        assert sim.wait_caught_up(1e300) and sim.read() == (1, 1)


@pytest.mark.parametrize("timeout, error", [
    ("x", TypeError), (True, TypeError), (object(), TypeError), (math.nan, ValueError),
    (-1, ValueError), (math.inf, ValueError), (10**400, ValueError),
    (threading.TIMEOUT_MAX * 2, ValueError)], ids=lambda v: repr(v)[:20])
def test_close_refuses_a_bad_timeout_and_stops_nothing(timeout, error):
    clock = WorldClock()
    sim = SimThread(Counter(), clock, 1 / 120)
    with pytest.raises(error, match=r"timeout .*" + re.escape(repr(timeout)[:20])):
        sim.close(timeout)
    clock.step_once()
    assert sim.wait_caught_up(WAIT) and sim._thread.is_alive()   # still running
    sim.close()
    assert not sim._thread.is_alive()


# -- bounded stopping ----------------------------------------------------------------------------


class Stuck:
    """A world whose step blocks until ``release`` (in a test: for ever, bounded by WAIT)."""

    def __init__(self) -> None:
        self.entered, self.release = threading.Event(), threading.Event()
        self.steps = 0

    def step(self, dt: float) -> None:
        self.steps += 1
        self.entered.set()
        self.release.wait(WAIT)

    def snapshot(self) -> int:
        return self.steps

    def __repr__(self) -> str:
        return "<Stuck world>"


@pytest.mark.parametrize("how", ["with", "close"])
def test_leaving_a_simthread_whose_step_is_blocked_is_bounded_and_warns(how):
    world = Stuck()
    clock = WorldClock()
    sim = SimThread(world, clock, 1 / 120, stop_timeout=0.2)
    assert sim.stop_timeout == 0.2
    clock.advance_ticks(5)
    assert world.entered.wait(WAIT)
    started = time.perf_counter()
    with pytest.warns(RuntimeWarning) as caught:
        if how == "with":
            with sim:
                pass
        else:
            sim.close()
    elapsed = time.perf_counter() - started
    message = str(caught[0].message)
    assert caught[0].filename == __file__                 # points at the caller's line
    assert "<Stuck world>" in message and "0.2 s" in message and "daemon" in message
    assert elapsed < WAIT / 2                             # the blocked step did not hold it
    assert sim._thread.is_alive() and sim._thread.daemon
    world.release.set()                                   # the step returns at last ...
    sim._thread.join(WAIT)
    assert not sim._thread.is_alive() and world.steps == 1   # ... and no further step runs


def test_close_takes_its_own_bound_over_the_simthreads():
    world = Stuck()
    clock = WorldClock()
    sim = SimThread(world, clock, 1 / 120)
    assert sim.stop_timeout == 2.0                       # the documented default
    clock.step_once()
    assert world.entered.wait(WAIT)
    with pytest.warns(RuntimeWarning, match="within 0.05 s"):
        sim.close(0.05)
    world.release.set()
    sim._thread.join(WAIT)


def test_a_healthy_worker_stops_without_a_warning():
    clock = WorldClock()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with SimThread(Counter(), clock, 1 / 120) as sim:
            clock.advance_ticks(3)
            assert sim.wait_caught_up(WAIT)
    assert not sim._thread.is_alive()


def test_the_interpreter_exits_past_a_worker_blocked_for_ever():
    script = textwrap.dedent("""
        import threading
        import cvcclock
        clock = cvcclock.WorldClock()
        entered, never = threading.Event(), threading.Event()
        def step(dt):
            entered.set()
            never.wait()
        with cvcclock.SimThread((step, lambda: 0), clock, 1 / 120, stop_timeout=0.1):
            clock.step_once()
            assert entered.wait(10)
        print("left the with block")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "left the with block\n"
    assert "RuntimeWarning" in done.stderr and "did not stop within 0.1 s" in done.stderr


@pytest.mark.parametrize("kwargs, error, name", [
    ({"stop_timeout": -1}, ValueError, "stop_timeout"),
    ({"stop_timeout": math.nan}, ValueError, "stop_timeout"),
    ({"stop_timeout": math.inf}, ValueError, "stop_timeout"),
    ({"stop_timeout": 10**400}, ValueError, "stop_timeout"),
    ({"stop_timeout": "2"}, TypeError, "stop_timeout"),
    ({"stop_timeout": None}, TypeError, "stop_timeout"),
    ({"drive_clock": "False"}, TypeError, "drive_clock"),
    ({"drive_clock": 1}, TypeError, "drive_clock"),
    ({"drive_clock": None}, TypeError, "drive_clock"),
])
def test_bad_constructor_arguments_are_refused_before_a_thread_starts(kwargs, error, name):
    threads = threading.active_count()
    value = next(iter(kwargs.values()))
    with pytest.raises(error, match=name + r" .*" + re.escape(repr(value)[:20])):
        SimThread(Counter(), WorldClock(), 1 / 120, **kwargs)
    assert threading.active_count() == threads


def test_drive_clock_takes_a_numpy_bool():
    np = pytest.importorskip("numpy")
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    clock.mode = "paused"
    with SimThread(Counter(), clock, 0.01, drive_clock=np.True_):
        deadline = time.perf_counter() + WAIT
        while clock.frame < 1 and time.perf_counter() < deadline:
            time.sleep(0.005)
    assert clock.frame >= 1            # the worker drove the clock


def test_covers_is_the_one_progress_check():
    assert _covers((0, 11, False), (0, 11), 6)
    assert _covers((0, 12, True), (0, 17), 6)       # no multiple of 6 in 13..17
    assert not _covers((0, 11, False), (0, 12), 6)
    assert _covers((2, 0, False), (1, 99), 6)      # a later epoch owes nothing in the target's
    assert not _covers((1, 99, False), (2, 0), 6)  # an earlier one is for caught_up to resync
