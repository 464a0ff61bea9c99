"""cvcclock.scenic: the pacing overhead per Scenic step, and the live pacing error at 1x.

Run with ``pytest benchmarks/test_bench_scenic.py --benchmark-only`` (needs the scenic and
bench extras), or ``python benchmarks/test_bench_scenic.py`` for the two figures the issue
asks for, measured interleaved (plain and paced runs alternate, so load hits both alike).

* overhead: a scene of n agents (1, 10, 100), each ``while True: take Push(...)`` drawing
  ``Range(0, 1)``, simulated for STEPS steps on the DummySimulator, plainly
  (``inner.simulate``) and batch-paced (``PacedSimulator.start``, the clock advanced by all
  its quanta at once, then ``wait``). ``(paced - plain) / plain`` is the overhead; per step
  it is ``(paced - plain) / STEPS``. A paced run's fixed costs (its worker thread, the
  process's Scenic slot) are inside the figure. A paced run switches off Scenic's
  stuck-behavior alarm (SIGALRM, main thread only), which plain Scenic arms around every
  behavior step, so the gate's own cost is the difference with ``plain_without_alarm``.
* live pacing error: a cheap step (one agent), 1x live, a FrameLoop at 240 fps driving the
  clock: for each step, the wall time its ``step()`` began minus the wall time of the frame
  whose advance ran its due tick. Median and p99 (and the quanta the clock dropped, which
  say the frames themselves fell behind).
"""

from __future__ import annotations

import random
import statistics
import sys
import time

import numpy as np
import pytest

scenic = pytest.importorskip("scenic")

from scenic.core.simulators import DummySimulation, DummySimulator  # noqa: E402

from cvcclock import ClockConfig, WorldClock  # noqa: E402
from cvcclock.scenic import PacedSimulator  # noqa: E402

STEPS = 50
TIMESTEP = 0.01
PROGRAM = """
from scenic.core.dynamics.actions import Action
class Push(Action):
    def __init__(self, v):
        self.v = v
    def applyTo(self, obj, sim):
        pass
behavior Go():
    while True:
        take Push(Range(0, 1))
for i in range({n}):
    new Object at (3 * i, 0), with behavior Go
"""

_scenes: dict[int, object] = {}


def scene(n: int):
    if n not in _scenes:
        random.seed(1)
        np.random.seed(1)
        _scenes[n] = scenic.scenarioFromString(PROGRAM.format(n=n)).generate()[0]
    return _scenes[n]


def plain(n: int) -> None:
    random.seed(2)
    np.random.seed(2)
    DummySimulator().simulate(scene(n), maxSteps=STEPS, timestep=TIMESTEP)


def plain_without_alarm(n: int) -> None:
    """``plain`` without Scenic's stuck-behavior alarm, which a paced run switches off: it
    arms SIGALRM (two signal calls and two alarm calls) around every behavior step."""
    import scenic.core.dynamics as dynamics

    saved, dynamics.stuckBehaviorWarningTimeout = dynamics.stuckBehaviorWarningTimeout, 0
    try:
        plain(n)
    finally:
        dynamics.stuckBehaviorWarningTimeout = saved


def paced(n: int) -> None:
    clock = WorldClock(ClockConfig(fixed_dt=TIMESTEP / 2))
    with PacedSimulator(DummySimulator(), clock).start(scene(n), maxSteps=STEPS,
                                                       timestep=TIMESTEP, seed=2) as run:
        clock.advance_ticks(2 * STEPS)
        run.wait()


@pytest.mark.parametrize("n", [1, 10, 100])
@pytest.mark.parametrize("how", ["plain", "paced-batch"])
def test_scenic_run(benchmark, how, n):
    benchmark.group = f"scenic, {n} agents, {STEPS} steps"
    scene(n)
    benchmark.pedantic(plain if how == "plain" else paced, args=(n,), rounds=5,
                       warmup_rounds=1)


def overhead(n: int, rounds: int = 11) -> tuple[float, float, float]:
    """Median CPU seconds per run, interleaved: plain, plain without the alarm, paced.

    CPU time of the whole process (``time.process_time``: the worker's and the waiting
    caller's threads both count), so a loaded machine's waits for a core do not count.
    """
    fns = (plain, plain_without_alarm, paced)
    scene(n)
    times: list[list[float]] = [[] for _ in fns]
    for fn in fns:
        fn(n)
    for _ in range(rounds):
        for fn, out in zip(fns, times, strict=True):
            began = time.process_time()
            fn(n)
            out.append(time.process_time() - began)
    p, quiet, q = (statistics.median(t) for t in times)
    return p, quiet, q


class _Stamped(DummySimulation):
    starts: list[float] = []

    def step(self):
        self.starts.append(time.perf_counter())
        super().step()


class _StampedSimulator(DummySimulator):
    def createSimulation(self, scene, **kwargs):
        return _Stamped(scene, drift=self.drift, **kwargs)


def pacing_error(steps: int = 300) -> tuple[float, float, int]:
    """Median and p99 of (step start - the wall time its quanta were run), in seconds, at 1x
    live; and the quanta the clock dropped.

    A step falls due when a frame's advance runs its due tick; on_frame stamps that frame
    right after its advance. The error is the follower's latency: the gate seeing the tick
    and the worker reaching ``step()``.
    """
    from cvcclock import FrameLoop

    clock = WorldClock(ClockConfig(fixed_dt=TIMESTEP / 2))
    _Stamped.starts = []
    frames: list[tuple[float, int]] = []     # (wall time after the advance, tick after it)
    with PacedSimulator(_StampedSimulator(), clock).start(scene(1), maxSteps=steps,
                                                          timestep=TIMESTEP, seed=2) as run:
        first = clock.tick

        def frame(i, result):
            frames.append((time.perf_counter(), clock.tick))
            run.wait_caught_up(5)

        FrameLoop(clock, 240.0).run(frame, until=lambda: run.done)
    errors = []
    k = 2
    for i, start in enumerate(_Stamped.starts):
        due_tick = (first // k + i + 1) * k
        made_due = next(wall for wall, tick in frames if tick >= due_tick)
        errors.append(start - made_due)
    errors.sort()
    return statistics.median(errors), errors[int(0.99 * (len(errors) - 1))], \
        clock.total_dropped


if __name__ == "__main__":
    print(f"scenic {scenic.__file__}, python {sys.version.split()[0]}")
    for n in (1, 10, 100):
        p, quiet, q = overhead(n)
        print(f"{n:4d} agents, CPU ms per {STEPS} steps: plain {p * 1e3:.2f}, plain without "
              f"the alarm {quiet * 1e3:.2f}, paced-batch {q * 1e3:.2f}; overhead "
              f"{(q - p) / p * 100:+.1f}% over plain, {(q - quiet) / quiet * 100:+.1f}% "
              f"({(q - quiet) / STEPS * 1e6:+.1f} us per step) over plain without the alarm")
    median, p99, dropped = pacing_error()
    print(f"live 1x pacing error (step start - the frame that made it due): median "
          f"{median * 1e6:.0f} us, p99 {p99 * 1e6:.0f} us (FrameLoop at 240 fps; "
          f"{dropped} quanta dropped)")
