"""ClockBank at n = 10**6 beside a Python loop over WorldClocks, numpy, and a memory copy.

Run with ``pytest benchmarks/test_bench_clock_bank.py --benchmark-only -s``. The rows are the
ClockBank group of ``python -m cvcclock bench`` (``cvcclock.bench._cases.table_cases()``):
each ``advance(1/60)`` of live 1/120 s clocks (2 quanta each), 10**6 clock-advances a round,
so a 6 ms median is 6 ns a clock-advance:

* ``bank``: ``ClockBank(10**6).advance(1/60)``, its checks included; ``bank_walls``: the
  same with a float64 array of 10**6 wall times;
* ``bank_shared``: a bank made from one config and advanced by its methods only (no
  configuration array handed out), which runs the shared loop (clock_bank_shared.h);
  ``bank_mixed``: the same with every 1000th slot reconfigured, which runs the general loop
  without the validation pass (goals: ``bank`` / ``bank_shared`` at least 3,
  ``bank`` / ``bank_mixed`` at least 1.25);
* ``bank_loop``: ``for advance in advances: advance(1/60)`` over LOOP_CLOCKS = 10**5
  WorldClocks (already far beyond the cache, so it pays what a loop over 10**6 pays);
* ``bank_numpy``: the same banking arithmetic (the modes, the cap, the snap, the window) in
  numpy over 10**6-element arrays, checked equal to the bank first;
* ``bank_copy``: ``numpy.copyto`` of 10**6 * BOUND_BYTES bytes, which reads and writes as
  many bytes as the bank's loop must (the memory-bandwidth bound; see BANK_READ_BYTES).

``test_bank_ratios_interleaved`` times every row once per round, rows in turn, with the
command's own machinery, so that the ratios (loop / bank, numpy / bank, copy / bank) come
from the same seconds of a machine shared with other work; it prints the goals' figures and
keeps them in ``extra_info``. The other tests time one row each, for ``--benchmark-compare``.
"""

import pytest

from calls import time_case
from cvcclock import ClockConfig
from cvcclock.bench import GOALS, prepare, run_rounds, summarise
from cvcclock.bench._cases import NumpyBank, table_cases, touched_bank

CASES = [case for case in table_cases() if case.unit == "clock-advance"]
CONFIG = ClockConfig(fixed_dt=1.0 / 120.0)
ROUNDS = 7


def test_the_numpy_version_is_the_bank():
    bank, model = touched_bank(1000, CONFIG), NumpyBank(1000, CONFIG)
    bank.mode[::7] = model.mode[::7] = model.LOCKSTEP
    bank.scale[::3] = model.scale[::3] = 2.5
    bank.cap_scales_with_rate[::2] = model.cap_scales[::2] = True
    for wall_dt in (1 / 60, 0.3, 0.05, 0.2, 1 / 144):
        assert (bank.advance(wall_dt) == model.advance(wall_dt)).all()
    assert (bank.tick == model.tick).all() and (bank.total_dropped == model.total_dropped).all()
    assert (bank.alpha[bank.mode == 0] == model.bank[model.mode == 0]).all()


def test_bank_ratios_interleaved(benchmark):
    ready, skipped = prepare(CASES, number=10**6)
    assert not skipped
    samples = {case.key: [] for case in CASES}

    def one_round():
        for key, values in run_rounds(ready, 1).items():
            samples[key] += values

    benchmark.pedantic(one_round, rounds=ROUNDS, warmup_rounds=1)
    report = summarise(ready, skipped, samples, 10**6, ROUNDS, 10**6)
    bank_goals = [g for g in report["goals"] if set(g["rows"]) <= set(samples)]
    assert len(bank_goals) == sum(set(g.keys) <= set(samples) for g in GOALS) == 5
    print()
    for row in report["rows"]:
        print(f"  {row['label']:>38}: {row['median_ns']:7.2f} ns per clock-advance")
        benchmark.extra_info[f"{row['key']} ns"] = round(row["median_ns"], 2)
    for goal in bank_goals:
        print(f"  {goal['goal']}: {goal['figure']:.2f} (goal {goal['target']})")
        benchmark.extra_info[goal["goal"]] = round(goal["figure"], 2)


@pytest.mark.benchmark(group="ClockBank and its baselines, 10**6 clock-advances a round")
@pytest.mark.parametrize("case", CASES, ids=[c.key for c in CASES])
def test_bank_row(benchmark, case):
    time_case(benchmark, case, ops_per_round=10**6, rounds=ROUNDS)
