"""SimThread hand-off and FrameLoop pacing beside their peers, in one run.

Run with ``pytest benchmarks/test_bench_threads.py --benchmark-only``.

Hand-off groups: every benchmarked function drives N = 100 frames, so divide the figures by
100 for a frame. ``direct`` steps the world on the driving thread (the floor); ``simthread``
hands each step to the worker and waits for it (``advance``, ``wait_caught_up``, ``read``);
their difference over N is the cost of one hand-off. The ``nothing due`` group is the cost
``wait_caught_up`` and ``read`` add to a frame in which no step falls due (the common case of
a slow follower at a high frame rate): the lock-free fast path.

Pacing group: each row runs FRAMES frames at 60 fps once and records the median and 99th
percentile of ``|frame time - 1/60|`` (extra_info, and a table printed at the end of the
module). Peers: a plain ``time.sleep(1/60)`` loop (what the README's first example does), and
pygame's ``Clock.tick(60)`` and ``Clock.tick_busy_loop(60)`` with ``SDL_VIDEODRIVER=dummy``.
The time column of this group is the run's length and says nothing; read the errors.
"""

from __future__ import annotations

import math
import os
import statistics
import time

import pytest

from cvcclock import ClockConfig, ClockFollower, WorldClock
from cvcclock.loop import FrameLoop
from cvcclock.threads import SimThread
from report import write_table

N = 100
PERIOD = 1 / 60
FRAMES = 180          # 3 s at 60 fps per pacing row; 10 when benchmarking is disabled


class Counter:
    def __init__(self) -> None:
        self.n = 0

    def step(self, dt: float) -> None:
        self.n += 1

    def snapshot(self) -> int:
        return self.n


def direct_frames(clock, follower, world, wall_dt):
    for _ in range(N):
        clock.advance(wall_dt)
        for _ in range(follower.take(clock)):
            world.step(wall_dt)
        world.snapshot()


def threaded_frames(clock, sim, wall_dt):
    for _ in range(N):
        clock.advance(wall_dt)
        sim.wait_caught_up(1.0)
        sim.read()


def advance_frames(clock, wall_dt):
    for _ in range(N):
        clock.advance(wall_dt)


@pytest.mark.benchmark(group="hand-off: one step due a frame (1/120 clock, 1/120 step); x100")
@pytest.mark.parametrize("subject", ["direct", "simthread"])
def test_handoff(benchmark, subject):
    clock = WorldClock(ClockConfig(fixed_dt=1 / 120))
    if subject == "direct":
        benchmark(direct_frames, clock, ClockFollower.for_step(clock, 1 / 120), Counter(),
                  1 / 120)
        return
    with SimThread(Counter(), clock, 1 / 120) as sim:
        benchmark(threaded_frames, clock, sim, 1 / 120)
        assert sim.wait_caught_up(1.0) and sim.read() == (clock.tick, clock.tick)


@pytest.mark.benchmark(group="wait_caught_up + read, nothing due (1 s step); x100")
@pytest.mark.parametrize("subject", ["advance-only", "simthread"])
def test_wait_nothing_due(benchmark, subject):
    clock = WorldClock(ClockConfig(fixed_dt=1 / 120))
    if subject == "advance-only":
        benchmark(advance_frames, clock, 0.0)
        return
    with SimThread(Counter(), clock, 1.0) as sim:
        benchmark(threaded_frames, clock, sim, 0.0)


# -- pacing ------------------------------------------------------------------------------------


def frame_errors(intervals):
    errors = sorted(abs(dt - PERIOD) for dt in intervals)
    return statistics.median(errors), errors[math.ceil(0.99 * len(errors)) - 1]


def sleep_loop(frames):
    clock = WorldClock()
    intervals = []
    last = time.perf_counter()
    for _ in range(frames):
        time.sleep(PERIOD)
        now = time.perf_counter()
        clock.advance(now - last)
        intervals.append(now - last)
        last = now
    return frame_errors(intervals)


def frameloop(frames):
    stats = FrameLoop(WorldClock(), 60).run(max_frames=frames)
    return stats.median_error, stats.p99_error


def pygame_loop(frames, busy):
    import pygame  # the bench extra installs it; a missing peer must fail, not skip
    pygame.init()
    pc = pygame.time.Clock()
    tick = pc.tick_busy_loop if busy else pc.tick
    clock = WorldClock()
    intervals = []
    tick(60)
    last = time.perf_counter()
    for _ in range(frames):
        tick(60)
        now = time.perf_counter()
        clock.advance(now - last)
        intervals.append(now - last)
        last = now
    return frame_errors(intervals)


PACERS = {
    "frameloop": frameloop,
    "sleep-loop": sleep_loop,
    "pygame-tick": lambda frames: pygame_loop(frames, busy=False),
    "pygame-tick_busy_loop": lambda frames: pygame_loop(frames, busy=True),
}


@pytest.fixture(scope="module")
def pacing_table(request):
    rows: dict[str, tuple[float, float]] = {}
    yield rows
    write_table(request.config, "frame-time error at 60 fps (|frame time - 1/60 s|), "
                "microseconds:", [f"{name:24s} median {median * 1e6:9.1f}   p99 {p99 * 1e6:9.1f}"
                                  for name, (median, p99) in rows.items()])


@pytest.mark.benchmark(group="pacing at 60 fps: the time is the run's length; see extra_info")
@pytest.mark.parametrize("subject", list(PACERS))
def test_pacing(benchmark, subject, pacing_table):
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    frames = 10 if benchmark.disabled else FRAMES
    median, p99 = benchmark.pedantic(PACERS[subject], args=(frames,), rounds=1, iterations=1)
    benchmark.extra_info.update(median_error_us=median * 1e6, p99_error_us=p99 * 1e6)
    pacing_table[subject] = (median, p99)
