"""ClockBank at n = 10**6 beside a Python loop over WorldClocks, numpy, and a memory copy.

Run with ``pytest benchmarks/test_bench_bank.py --benchmark-only -s``. Every row is one
``advance(1/60)`` of N = 10**6 live 1/120 s clocks (2 quanta each), in ns per clock:

* ``bank``: ``ClockBank(N).advance(1/60)``, its checks included;
  ``bank-per-slot``: the same with a float64 array of N wall times;
* ``python-loop``: ``for clock in clocks: clock.advance(1/60)`` over LOOP_N = 10**4
  WorldClocks, scaled by N / LOOP_N;
* ``numpy``: the same banking arithmetic (live and lockstep, the cap, the snap, the window)
  as numpy expressions over N-element arrays; checked equal to the bank first;
* ``copy``: ``numpy.copyto`` of a buffer of N * BOUND_BYTES bytes, so that it reads and
  writes as many bytes as the bank's loop must (the memory-bandwidth bound).

The bank's loop reads READ_BYTES a clock (scale, fixed_dt, max_steps, lockstep: 8 each; mode
and cap_scales: 1 each; bank, window_wall, window_ticks, tick: 8 each; and the mode it last
ran in, 1) and writes WRITE_BYTES (bank, window_wall, window_ticks, tick, steps: 8 each); its
checks read the configuration once more before it runs, which the bound does not count.
A copy of (READ_BYTES + WRITE_BYTES) / 2 bytes moves the same READ_BYTES + WRITE_BYTES.

``test_bank_ratios_interleaved`` times every row once per round, rows in turn, so that the
ratios (python-loop / bank, numpy / bank, copy / bank) come from the same seconds of a
machine shared with other work; it prints their medians and keeps them in ``extra_info``.
The other tests time one row each, for ``--benchmark-compare``.
"""

import statistics
import time

import numpy as np
import pytest

from cvcclock import ClockBank, ClockConfig, WorldClock

N = 10**6
LOOP_N = 10**4
WALL_DT = 1.0 / 60.0
CONFIG = ClockConfig(fixed_dt=1.0 / 120.0)
READ_BYTES = 4 * 8 + 2 + 4 * 8 + 1
WRITE_BYTES = 5 * 8
BOUND_BYTES = (READ_BYTES + WRITE_BYTES) // 2
ROUNDS = 7


class NumpyBank:
    """The bank's common case (no exact path) as numpy expressions: what a host writes today."""

    def __init__(self, n, config):
        self.scale = np.full(n, config.scale)
        self.fixed_dt = np.full(n, config.fixed_dt)
        self.max_steps = np.full(n, config.max_steps_per_advance, dtype=np.int64)
        self.cap_scales = np.full(n, config.cap_scales_with_rate)
        self.lockstep = np.full(n, config.lockstep_steps, dtype=np.int64)
        self.mode = np.zeros(n, dtype=np.uint8)    # ClockBank.MODES: 0 live, 1 lockstep
        self.tick = np.zeros(n, dtype=np.int64)
        self.bank = np.zeros(n)
        self.dropped = np.zeros(n, dtype=np.int64)
        self.window_wall = np.zeros(n)
        self.window_ticks = np.zeros(n, dtype=np.int64)
        self.realized = np.zeros(n)

    def advance(self, wall_dt):
        live, lockstep = self.mode == 0, self.mode == 1
        b = self.bank + wall_dt * self.scale / self.fixed_dt
        nearest = np.floor(b + 0.5)
        b = np.where(np.abs(b - nearest) <= 1e-9, nearest, b)
        whole = np.floor(b)
        cap = self.max_steps.astype(np.float64)
        scaled = np.minimum(cap * np.ceil(self.scale), 2.0**52)
        cap = np.where(self.cap_scales & (self.scale > 1.0), scaled, cap)
        run = np.minimum(cap, whole)
        steps = np.where(live, run.astype(np.int64), np.where(lockstep, self.lockstep, 0))
        self.bank = np.where(live, b - whole, self.bank)
        dropped = np.where(live, (whole - run).astype(np.int64), 0)
        np.minimum(self.dropped + dropped, 2**62, out=self.dropped)
        self.window_wall += wall_dt
        self.window_ticks += steps
        close = self.window_wall >= 0.5
        if close.any():
            np.divide(self.window_ticks * self.fixed_dt, self.window_wall, out=self.realized,
                      where=close)
            self.window_wall[close] = 0.0
            self.window_ticks[close] = 0
        self.tick += steps
        return steps


def touched_bank(n):
    """A bank whose every array has been written, as a host's would be (memory never written
    is the kernel's shared zero page, which reads from cache and would flatter the bank)."""
    bank = ClockBank(n, CONFIG)
    for array in (bank.mode, bank.cap_scales_with_rate, bank.scale, bank.fixed_dt):
        array[:] = array.copy()
    bank.set_mode("lockstep")
    bank.set_mode("live")
    return bank


def check_numpy_is_the_bank():
    bank, model = touched_bank(1000), NumpyBank(1000, CONFIG)
    bank.mode[::7] = model.mode[::7] = 1
    bank.scale[::3] = model.scale[::3] = 2.5
    bank.cap_scales_with_rate[::2] = model.cap_scales[::2] = True
    for wall_dt in (WALL_DT, 0.3, 0.05, 0.2, 1 / 144):
        assert (bank.advance(wall_dt) == model.advance(wall_dt)).all()
    assert (bank.tick == model.tick).all() and (bank.total_dropped == model.dropped).all()
    assert (bank.alpha[bank.mode == 0] == model.bank[model.mode == 0]).all()


@pytest.fixture(scope="module")
def subjects():
    """name -> (a zero-argument call, the clocks one call advances)."""
    check_numpy_is_the_bank()
    bank, model = touched_bank(N), NumpyBank(N, CONFIG)
    walls = np.full(N, WALL_DT)
    clocks = [WorldClock(CONFIG) for _ in range(LOOP_N)]
    source = np.ones(N * BOUND_BYTES, dtype=np.uint8)
    target = np.zeros_like(source)

    def python_loop():
        for clock in clocks:
            clock.advance(WALL_DT)

    return {
        "bank": (lambda: bank.advance(WALL_DT), N),
        "bank-per-slot": (lambda: bank.advance(walls), N),
        "python-loop": (python_loop, LOOP_N),
        "numpy": (lambda: model.advance(WALL_DT), N),
        "copy": (lambda: np.copyto(target, source), N),
    }


def test_bank_ratios_interleaved(benchmark, subjects):
    times = {name: [] for name in subjects}   # ns per clock, one figure a round

    def one_round():
        for name, (call, clocks) in subjects.items():
            start = time.perf_counter_ns()
            call()
            times[name].append((time.perf_counter_ns() - start) / clocks)

    benchmark.pedantic(one_round, rounds=ROUNDS, warmup_rounds=1)
    # Ratios per round, then their median: each compares seconds measured side by side.
    rounds = range(len(times["bank"]))
    ratios = {f"{other} / bank": statistics.median(times[other][r] / times["bank"][r]
                                                   for r in rounds)
              for other in ("python-loop", "numpy", "copy", "bank-per-slot")}
    medians = {name: statistics.median(values) for name, values in times.items()}
    benchmark.extra_info.update({f"{name} ns per clock": round(m, 2)
                                 for name, m in medians.items()})
    benchmark.extra_info.update({name: round(r, 2) for name, r in ratios.items()})
    print()
    for name, m in medians.items():
        print(f"  {name:>14}: {m:7.2f} ns per clock-advance")
    for name, r in ratios.items():
        print(f"  {name:>20}: {r:6.2f}")


@pytest.mark.benchmark(group="ClockBank.advance(1/60), n = 10**6 (ns per clock: / 10**6)")
@pytest.mark.parametrize("name", ["bank", "bank-per-slot", "numpy", "copy"])
def test_bank_row(benchmark, subjects, name):
    call, _ = subjects[name]
    benchmark.pedantic(call, rounds=ROUNDS, warmup_rounds=1)


@pytest.mark.benchmark(group="Python loop over 10**4 WorldClocks (ns per clock: / 10**4)")
def test_python_loop_row(benchmark, subjects):
    call, _ = subjects["python-loop"]
    benchmark.pedantic(call, rounds=ROUNDS, warmup_rounds=1)
