"""FrameLoop: captures are exact and reproducible; real time never runs early nor bursts.

Pacing precision is measured in benchmarks/test_bench_threads.py, never asserted here: the
real-time tests check only what holds on any machine, however loaded.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import gc
import re
import time
import warnings

import pytest

from cvcclock import ClockConfig, StepResult, WorldClock
from cvcclock import loop as loop_module
from cvcclock.loop import FrameDriver, FrameLoop, PacingStats
from cvcclock.threads import SimThread


class FakeBinding:
    """The least a FrameLoop needs from a binding: drive(wall_dt) and clock."""

    def __init__(self, clock: WorldClock) -> None:
        self.clock = clock
        self.wall_dts: list[float] = []

    def drive(self, wall_dt: float | None = None) -> StepResult:
        assert wall_dt is not None
        self.wall_dts.append(wall_dt)
        return self.clock.advance(wall_dt)


def test_a_capture_drives_exactly_one_period_a_frame_without_sleeping():
    clock = WorldClock(ClockConfig(fixed_dt=1 / 120))
    binding = FakeBinding(clock)
    assert isinstance(binding, FrameDriver)
    seen: list[tuple[int, StepResult]] = []
    started = time.perf_counter()
    stats = FrameLoop(binding, 60, capture=True).run(lambda i, r: seen.append((i, r)),
                                                     max_frames=600)
    assert time.perf_counter() - started < 2.0        # 10 s of frames, no sleeping
    assert binding.wall_dts == [1 / 60] * 600
    assert [i for i, _ in seen] == list(range(600))
    assert [r.steps for _, r in seen] == [2] * 600 and clock.tick == 1200
    assert stats == PacingStats(frames=600, median_error=0.0, p99_error=0.0, dropped=0,
                                realized_scale=pytest.approx(1.0), late=0)


def test_a_capture_of_a_clock_reproduces_a_simthread_exactly():
    def capture():
        clock = WorldClock(ClockConfig(fixed_dt=0.01, scale=0.5))
        frames = []
        state = [0.0, 1.0]

        def step(dt: float) -> None:
            state[0] += state[1] * dt
            state[1] -= state[0] * dt

        with SimThread((step, lambda: tuple(state)), clock, 0.03) as sim:
            def on_frame(i: int, r: StepResult) -> None:
                assert sim.wait_caught_up(10.0)
                frames.append(sim.read())
            FrameLoop(clock, 60, capture=True).run(on_frame, max_frames=300)
        return frames

    first = capture()
    assert first[-1][0] == 249 // 3 * 3
    assert capture() == first


def test_until_is_asked_before_each_frame():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    stats = FrameLoop(clock, 50, capture=True).run(until=lambda: clock.t >= 1.0)
    assert stats.frames == 50 and clock.tick == 100
    assert FrameLoop(clock, 50, capture=True).run(until=lambda: True).frames == 0
    assert FrameLoop(clock, 50, capture=True).run(max_frames=0) == PacingStats(0, 0.0, 0.0, 0,
                                                                               0.0, 0)


def test_dropped_quanta_and_realized_speed_are_reported():
    clock = WorldClock(ClockConfig(fixed_dt=0.01, max_steps_per_advance=1))
    stats = FrameLoop(clock, 20, capture=True).run(max_frames=10)   # 5 quanta a frame, cap 1
    assert stats.dropped == 40 == clock.total_dropped
    assert stats.realized_scale == pytest.approx(0.2)


def test_an_error_in_on_frame_stops_the_run():
    clock = WorldClock()

    def on_frame(i: int, r: StepResult) -> None:
        if i == 3:
            raise RuntimeError("frame 3")

    with pytest.raises(RuntimeError, match="frame 3"):
        FrameLoop(clock, 60, capture=True).run(on_frame)
    assert clock.frame == 4


def test_real_time_never_runs_a_frame_before_its_deadline():
    clock = WorldClock(ClockConfig(fixed_dt=0.001))
    binding = FakeBinding(clock)
    loop = FrameLoop(binding, 200)
    started = time.perf_counter()
    stats = loop.run(max_frames=20)
    assert time.perf_counter() - started >= 20 * loop.period
    assert stats.frames == 20 and len(binding.wall_dts) == 20
    assert all(dt > 0 for dt in binding.wall_dts)
    assert 0.0 <= stats.median_error <= stats.p99_error
    assert stats.realized_scale > 0 and clock.tick > 0


def test_a_frame_over_a_frame_late_resynchronises_instead_of_bursting():
    clock = WorldClock(ClockConfig(fixed_dt=0.001))
    binding = FakeBinding(clock)
    loop = FrameLoop(binding, 100)

    def on_frame(i: int, r: StepResult) -> None:
        if i == 2:
            time.sleep(4 * loop.period)

    stats = loop.run(on_frame, max_frames=8)
    assert stats.late >= 1
    # The late frame runs at once, and the schedule restarts from it: the m-th frame after
    # it runs at least m periods later (a burst would run the missed frames back to back).
    assert binding.wall_dts[3] >= 4 * loop.period
    after = binding.wall_dts[4:]
    assert all(sum(after[:m]) >= m * loop.period for m in range(1, len(after) + 1))


def test_run_async_paces_and_awaits_a_coroutine_on_frame():
    clock = WorldClock(ClockConfig(fixed_dt=0.001))
    seen: list[int] = []
    ticks = []

    async def on_frame(i: int, r: StepResult) -> None:
        await asyncio.sleep(0)
        seen.append(i)

    async def other() -> None:
        for _ in range(5):
            ticks.append(clock.tick)
            await asyncio.sleep(0.005)

    async def main() -> PacingStats:
        side = asyncio.create_task(other())
        stats = await FrameLoop(clock, 200).run_async(on_frame, max_frames=10)
        await side
        return stats

    stats = asyncio.run(main())
    assert stats.frames == 10 and seen == list(range(10))
    assert len(ticks) == 5                     # the other task ran while the loop slept


def test_run_async_capture_matches_run():
    def go(use_async: bool) -> list[tuple[int, int]]:
        clock = WorldClock(ClockConfig(fixed_dt=0.01))
        out: list[tuple[int, int]] = []
        loop = FrameLoop(clock, 60, capture=True)
        on_frame = lambda i, r: out.append((r.first_tick, r.steps))  # noqa: E731
        if use_async:
            asyncio.run(loop.run_async(on_frame, max_frames=120))
        else:
            loop.run(on_frame, max_frames=120)
        return out

    assert go(True) == go(False)


@pytest.mark.parametrize("driver", [object(), 3, type("NoClock", (), {"drive": print})()])
def test_a_driver_without_drive_and_clock_is_a_type_error(driver):
    with pytest.raises(TypeError, match="driver"):
        FrameLoop(driver, 60)


@pytest.mark.parametrize("fps, error", [
    (0, ValueError), (-60, ValueError), (float("nan"), ValueError), (float("inf"), ValueError),
    (1e-320, ValueError), (10**400, ValueError), (True, TypeError), ("60", TypeError),
    (None, TypeError)], ids=lambda v: repr(v)[:20])
def test_a_bad_fps_is_refused_with_the_right_error(fps, error):
    with pytest.raises(error, match=r"fps .*" + re.escape(repr(fps)[:20])):
        FrameLoop(WorldClock(), fps)


@pytest.mark.parametrize("capture", ["False", 0, 1, None, "True"])
def test_a_capture_that_is_not_a_bool_is_a_type_error(capture):
    with pytest.raises(TypeError, match=r"capture .*" + re.escape(repr(capture))):
        FrameLoop(WorldClock(), 60, capture=capture)
    loop = FrameLoop(WorldClock(), 60)
    with pytest.raises(TypeError, match="capture"):
        loop.capture = capture
    assert loop.capture is False


def test_capture_and_fps_take_numpy_values():
    np = pytest.importorskip("numpy")
    loop = FrameLoop(WorldClock(), np.float32(50), capture=np.True_)
    assert loop.capture is True and loop.target_fps == 50.0 and type(loop.target_fps) is float
    assert loop.run(max_frames=np.int64(2)).frames == 2
    loop.capture = np.False_
    assert loop.capture is False


def test_bad_max_frames_and_spin_are_value_errors():
    with pytest.raises(ValueError, match="spin"):
        FrameLoop(WorldClock(), 60, spin=-1)
    with pytest.raises(ValueError, match="max_frames"):
        FrameLoop(WorldClock(), 60).run(max_frames=-1)


BAD_RUN_ARGS = [
    ({"max_frames": 2.5}, TypeError, "max_frames must be an integer, got 2.5"),
    ({"max_frames": "3"}, TypeError, "max_frames must be an integer, got '3'"),
    ({"max_frames": True}, TypeError, "max_frames must be an integer, got True"),
    ({"max_frames": -2}, ValueError, "max_frames must be >= 0, got -2"),
    ({"max_frames": 10**400}, ValueError, f"max_frames must be <= {2**62}, got 1000"),
    ({"until": 5}, TypeError, "until must be callable or None, got 5"),
    ({"on_frame": "print"}, TypeError, "on_frame must be callable or None, got 'print'"),
]


@pytest.mark.parametrize("use_async", [False, True], ids=["run", "run_async"])
@pytest.mark.parametrize("kwargs, error, message", BAD_RUN_ARGS,
                         ids=[f"{k}={v!r:.20}" for args, _, _ in BAD_RUN_ARGS
                              for k, v in args.items()])
def test_bad_run_arguments_are_refused_before_the_first_frame(kwargs, error, message,
                                                             use_async):
    clock = WorldClock()
    loop = FrameLoop(clock, 60, capture=True)
    kwargs = {"max_frames": 3, **kwargs}
    on_frame = kwargs.pop("on_frame", None)
    with pytest.raises(error, match=re.escape(message)):
        if use_async:
            asyncio.run(loop.run_async(on_frame, **kwargs))
        else:
            loop.run(on_frame, **kwargs)
    assert clock.tick == 0 and clock.frame == 0


def test_max_frames_takes_any_index():
    class Three:
        def __index__(self) -> int:
            return 3

    assert FrameLoop(WorldClock(), 60, capture=True).run(max_frames=Three()).frames == 3


@pytest.mark.parametrize("spin, error", [
    (True, TypeError), ("0.001", TypeError), (None, TypeError), (float("nan"), ValueError),
    (float("inf"), ValueError), (-1e-3, ValueError)])
def test_a_bad_spin_is_refused_by_the_constructor_and_the_setter(spin, error):
    with pytest.raises(error, match=r"spin .*" + re.escape(repr(spin))):
        FrameLoop(WorldClock(), 60, spin=spin)
    loop = FrameLoop(WorldClock(), 60, spin=0)
    with pytest.raises(error, match="spin"):
        loop.spin = spin
    assert loop.spin == 0.0
    loop.spin = 2e-3
    assert loop.spin == 2e-3


def test_an_open_ended_run_keeps_the_errors_of_its_most_recent_frames_only(monkeypatch):
    assert loop_module._WINDOW == 65_536
    monkeypatch.setattr(loop_module, "_WINDOW", 16)
    kept = []
    stats = loop_module._Run.stats

    def spy(run):
        kept.append(len(run.errors))
        return stats(run)

    monkeypatch.setattr(loop_module._Run, "stats", spy)
    result = FrameLoop(WorldClock(), 10_000, spin=0).run(max_frames=40)
    assert result.frames == 40 and kept == [16]


def test_pacing_stats_is_a_frozen_value():
    stats = PacingStats(1, 0.0, 0.0, 0, 1.0, 0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        stats.frames = 2  # type: ignore[misc]
    loop = FrameLoop(WorldClock(), 60)
    assert loop.target_fps == 60 and loop.period == 1 / 60 and not loop.capture


# -- the live frame rate ---------------------------------------------------------------------


class FakeTime:
    """A perf_counter and sleep on a fake clock, for the loop module: real-time runs whose
    frame times are exact. Every step is a power of two, so no sum is rounded."""

    YIELD = 2.0 ** -20

    def __init__(self) -> None:
        self.now = 1024.0

    def perf_counter(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0.0
        self.now += seconds

    def spin(self) -> None:
        self.now += self.YIELD


@pytest.fixture
def fake_time(monkeypatch):
    fake = FakeTime()
    monkeypatch.setattr(loop_module, "time", fake)
    monkeypatch.setattr(loop_module, "_yield", fake.spin)
    return fake


def test_fps_reads_the_realized_rate_over_the_last_ten_frames(fake_time):
    binding = FakeBinding(WorldClock(ClockConfig(fixed_dt=1 / 64)))
    loop = FrameLoop(binding, 32, spin=0)
    assert loop.fps == 0.0                                   # no frame yet, as pygame
    read: list[float] = []

    def on_frame(i: int, r: StepResult) -> None:
        read.append(loop.fps)
        if i >= 20:
            fake_time.sleep(1 / 16)       # from frame 20 on, each frame works two periods

    loop.run(on_frame, max_frames=40)
    dts = binding.wall_dts
    assert dts[:21] == [1 / 32] * 21 and dts[21:] == [1 / 16] * 19
    # The mean of the frame times so far (the current frame's included), then of the last 10.
    assert read == [min(i + 1, 10) / sum(dts[max(0, i - 9):i + 1]) for i in range(40)]
    assert read[:21] == [32.0] * 21 and read[30:] == [16.0] * 10
    assert read[25] == 10 / (5 / 32 + 5 / 16)
    assert loop.fps == 16.0 and loop.target_fps == 32.0      # kept after the run


def test_each_run_starts_its_rate_afresh(fake_time):
    loop = FrameLoop(WorldClock(), 32, spin=0)
    loop.run(max_frames=3)
    assert loop.fps == 32.0
    asked: list[float] = []
    loop.run(until=lambda: bool(asked.append(loop.fps)) or len(asked) > 2)
    assert asked == [0.0, 32.0, 32.0]


def test_a_capture_reads_its_target_rate():
    loop = FrameLoop(WorldClock(), 64, capture=True)
    read: list[float] = []
    loop.run(lambda i, r: read.append(loop.fps), max_frames=25)
    assert read == [64.0] * 25
    assert re.fullmatch(r"<FrameLoop target 64.0 fps, live 64.0 fps, capture, clock tick=\d+>",
                        repr(loop))


def test_fps_of_a_real_time_run_never_exceeds_its_target_over_its_first_ten_frames():
    loop = FrameLoop(WorldClock(ClockConfig(fixed_dt=0.001)), 500)
    assert loop.fps == 0.0
    loop.run(max_frames=10)
    # Frame 9 runs no sooner than 10 periods after the start, however loaded the machine.
    assert 0.0 < loop.fps <= 500 * (1 + 1e-9)


# -- coroutines refused by run --------------------------------------------------------------


async def _async_on_frame(i: int, r: StepResult) -> None:
    pass


class _AsyncCallable:
    async def __call__(self, i: int, r: StepResult) -> None:
        pass


@pytest.mark.parametrize("on_frame", [_async_on_frame, functools.partial(_async_on_frame),
                                      _AsyncCallable()],
                         ids=["coroutine function", "partial", "async __call__"])
def test_run_refuses_a_coroutine_function_up_front_pointing_to_run_async(on_frame):
    clock = WorldClock()
    loop = FrameLoop(clock, 64, capture=True)
    loop.run(max_frames=2)
    before = (clock.frame, clock.tick, clock.t, loop.fps)
    with pytest.raises(TypeError, match=r"on_frame must not be a coroutine function, got "
                                        + re.escape(repr(on_frame)) + r".*FrameLoop.run_async"):
        loop.run(on_frame, max_frames=3)
    assert (clock.frame, clock.tick, clock.t, loop.fps) == before == (2, 3, 3 / 120, 64.0)
    assert asyncio.run(loop.run_async(on_frame, max_frames=3)).frames == 3


def test_run_takes_a_class_whose_instances_are_async_callables():
    made: list[_AsyncCallable] = []

    class Made(_AsyncCallable):
        def __init__(self, i: int, r: StepResult) -> None:
            made.append(self)

    FrameLoop(WorldClock(), 60, capture=True).run(Made, max_frames=2)   # returns no coroutine
    assert len(made) == 2


def test_run_refuses_a_returned_coroutine_on_the_first_frame_and_closes_it():
    clock = WorldClock()
    loop = FrameLoop(clock, 60, capture=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(TypeError, match=r"on_frame returned a coroutine on frame 0, got "
                                            r"<coroutine .*_async_on_frame.*run_async") as info:
            loop.run(lambda i, r: _async_on_frame(i, r), max_frames=5)
        del info
        gc.collect()
    assert clock.frame == 1                     # the frame that returned it was driven
    assert not [w for w in caught if "never awaited" in str(w.message)]


@pytest.mark.parametrize("use_async", [False, True], ids=["run", "run_async"])
def test_a_coroutine_function_as_until_is_refused(use_async):
    async def until() -> bool:
        return False

    clock = WorldClock()
    loop = FrameLoop(clock, 60, capture=True)
    with pytest.raises(TypeError, match=r"until must not be a coroutine function, got <function"):
        if use_async:
            asyncio.run(loop.run_async(until=until, max_frames=3))
        else:
            loop.run(until=until, max_frames=3)
    assert clock.frame == 0
