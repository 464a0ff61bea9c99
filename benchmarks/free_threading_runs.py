"""The runs test_bench_free_threading.py times, each in a fresh interpreter.

``python free_threading_runs.py simthreads N FRAMES WORK`` steps N SimThreads, each with a
CPU-bound pure-Python world of WORK loop turns a step, on one clock for FRAMES frames (one
step each per frame, ``wait_caught_up`` each frame), checks every world against direct
stepping, and prints ``{"seconds": ..., "cores": ..., "gil_enabled": ...}``: the frames'
wall time, the CPU time all threads used in it over that (how many cores it kept busy), and
whether the GIL was on while they ran. A subprocess per run, because the GIL is chosen at
interpreter start (``PYTHON_GIL``). ``ratios`` times the single-thread hot paths in-process.
"""

from __future__ import annotations

import json
import sys
import timeit
from collections import deque
from time import perf_counter, process_time

from cvcclock import ClockConfig, ClockFollower, WorldClock
from cvcclock.threads import SimThread

DT = 1 / 60
WAIT = 60.0   # a deadlock guard


class Busy:
    """A world whose step is ``work`` turns of a pure-Python loop: CPU-bound, deterministic."""

    def __init__(self, work: int) -> None:
        self.work, self.n, self.x = work, 0, 0.0

    def step(self, dt: float) -> None:
        x = self.x
        for i in range(self.work):
            x = (x + i * dt) % 1000.0
        self.n, self.x = self.n + 1, x

    def snapshot(self) -> tuple[int, float]:
        return (self.n, self.x)


def gil_enabled() -> bool:
    return getattr(sys, "_is_gil_enabled", lambda: True)()


def simthreads(count: int, frames: int, work: int) -> dict[str, object]:
    clock = WorldClock(ClockConfig(fixed_dt=DT))
    sims = [SimThread(Busy(work), clock, DT) for _ in range(count)]
    try:
        start, cpu = perf_counter(), process_time()
        for _ in range(frames):
            clock.advance_ticks(1)
            for sim in sims:
                if not sim.wait_caught_up(WAIT):
                    raise RuntimeError("a SimThread did not catch up")
        seconds, cpu = perf_counter() - start, process_time() - cpu
        reads = [sim.read() for sim in sims]
    finally:
        for sim in sims:
            sim.close()
    direct = Busy(work)
    for _ in range(frames):
        direct.step(DT)
    expected = (frames, direct.snapshot())
    if reads != [expected] * count:
        raise AssertionError(f"SimThreads {reads} != direct stepping {expected}")
    return {"seconds": seconds, "cores": cpu / seconds, "gil_enabled": gil_enabled()}


def ratios(number: int = 200_000, repeat: int = 5) -> dict[str, object]:
    """ns per call of the hot paths and their ratios to the floor, in this interpreter.

    ``advance`` and ``take`` against the one-argument floor ``[].count(x)``; a timer firing
    (one ``every_ticks(1, cb)`` timer, one ``advance_ticks(10_000)``) against the bare Python
    call of its callback, as in test_bench_timers.py.
    """
    clock = WorldClock(ClockConfig(fixed_dt=1 / 120))
    names = {"clock": clock, "follower": ClockFollower.for_step(clock, 1 / 120),
             "dt": 1 / 60, "count": [].count}

    def per_call(stmt: str) -> float:
        timer = timeit.Timer(stmt, globals=names)
        return min(timer.repeat(repeat, number)) * 1e9 / number

    def cb(*args: object) -> None:
        pass

    firings = 10_000

    def fire() -> None:
        c = WorldClock(ClockConfig(fixed_dt=0.01))
        c.every_ticks(1, cb)
        c.advance_ticks(firings)

    def bare() -> None:
        for i in range(firings):
            cb(i)

    def per_firing(fn: object) -> float:
        return min(timeit.repeat(fn, number=1, repeat=20)) * 1e9 / firings

    floor = per_call("count(dt)")
    out = {"floor_ns": floor, "advance_ns": per_call("clock.advance(dt)"),
           "take_ns": per_call("follower.take(clock)"), "callback_ns": per_firing(bare),
           "callback_from_c_ns": per_firing(lambda: deque(map(cb, range(firings)), 0)),
           "fire_ns": per_firing(fire)}
    out.update(advance=out["advance_ns"] / floor, take=out["take_ns"] / floor,
               fire=out["fire_ns"] / out["callback_ns"], gil_enabled=gil_enabled(),
               version=sys.version.split()[0],
               build="free-threaded" if "free-threading" in sys.version else "GIL")
    return out


def main(argv: list[str]) -> None:
    if argv[:1] != ["simthreads"] or len(argv) != 4:
        raise SystemExit(f"usage: {sys.argv[0]} simthreads N FRAMES WORK")
    print(json.dumps(simthreads(int(argv[1]), int(argv[2]), int(argv[3]))))


if __name__ == "__main__":
    main(sys.argv[1:])
