"""Every row of ``python -m cvcclock bench``, as a pytest-benchmark test, for
``--benchmark-compare``.

The rows are ``cvcclock.bench_cases.table_cases()``, the very cases the command times: the
same statement in the same namespace, timed with the same ``timeit`` timer (the garbage
collector off). Run with::

    pytest benchmarks/test_bench_table.py --benchmark-only --benchmark-save=NAME
    pytest benchmarks/test_bench_table.py --benchmark-only --benchmark-compare

A round makes a fixed number of operations, so a figure reads directly per operation: 1,000
calls, frames or firings a round (a 20 us median is 20 ns a call), and 10**6
clock-advances a round in the ClockBank group (a 5 ms median is 5 ns a clock-advance).
Read a row against the floor and the rival its case names (``Case.floor``, ``Case.rival``),
within one run; ``python -m cvcclock bench`` prints those ratios, taken round by round.
A peer that is not installed fails its row here, as the other benchmark modules do: install
the ``[bench]`` extra.
"""

import timeit

import pytest

from cvcclock.bench_cases import FIRINGS, pyglet_firings, simpy_firings, table_cases

#: Operations a round, by the unit of the row.
OPS_PER_ROUND = {"call": 1000, "frame": 1000, "firing": 1000, "clock-advance": 10**6}
GROUPS = {"call": "table: calls and frames, x1000 a round",
          "frame": "table: calls and frames, x1000 a round",
          "firing": "table: timer firings, x1000 a round",
          "clock-advance": "table: ClockBank and its baselines, 10**6 clock-advances a round"}
CASES = table_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.key for c in CASES])
def test_table_row(benchmark, case):
    benchmark.group = GROUPS[case.unit]
    timer = timeit.Timer(case.stmt, globals=case.make())
    executions = max(1, OPS_PER_ROUND[case.unit] // case.ops)
    benchmark.extra_info.update(label=case.label, ops_per_round=executions * case.ops,
                                floor=case.floor, rival=case.rival)
    rounds = 5 if case.unit == "clock-advance" else 50
    benchmark.pedantic(timer.timeit, args=(executions,), rounds=rounds, warmup_rounds=1)


@pytest.mark.parametrize("make", [pyglet_firings, simpy_firings,
                                  lambda callback, n: simpy_firings(callback, n, processes=8)],
                         ids=["pyglet", "simpy", "simpy-8-processes"])
def test_a_peer_run_makes_exactly_the_firings_it_claims(make):
    calls = []
    run = make(lambda *args: calls.append(args), FIRINGS)
    for expected in (FIRINGS, 2 * FIRINGS, 3 * FIRINGS):
        run()
        assert len(calls) == expected
