"""Every row of ``python -m cvcclock bench`` but the ClockBank group (test_bench_clock_bank.py), as
a pytest-benchmark test, for ``--benchmark-compare``.

The rows are ``cvcclock.bench._cases.table_cases()``, the very cases the command times: the
same statement in the same namespace, timed with the same ``timeit`` timer (the garbage
collector off). Run with::

    pytest benchmarks/test_bench_table.py --benchmark-only --benchmark-save=NAME
    pytest benchmarks/test_bench_table.py --benchmark-only --benchmark-compare

A round makes 1,000 calls, frames or firings, so a figure reads directly per operation (a
20 us median is 20 ns a call). Read a row against the floor and the rival its case names
(``Case.floor``, ``Case.rival``), within one run; ``python -m cvcclock bench`` prints those
ratios, taken round by round. A peer that is not installed fails its row here, as in the
other benchmark modules: install the ``[bench]`` extra.
"""

import pytest

from calls import time_case
from cvcclock.bench._cases import FIRINGS, pyglet_firings, simpy_firings, table_cases

GROUPS = {"call": "table: calls and frames, x1000 a round",
          "frame": "table: calls and frames, x1000 a round",
          "firing": "table: timer firings, x1000 a round"}
CASES = [case for case in table_cases() if case.unit in GROUPS]


@pytest.mark.parametrize("case", CASES, ids=[c.key for c in CASES])
def test_table_row(benchmark, case):
    benchmark.group = GROUPS[case.unit]
    time_case(benchmark, case, ops_per_round=1000, rounds=50)


@pytest.mark.parametrize("make", [pyglet_firings, simpy_firings,
                                  lambda callback, n: simpy_firings(callback, n, processes=8)],
                         ids=["pyglet", "simpy", "simpy-8-processes"])
def test_a_peer_run_makes_exactly_the_firings_it_claims(make):
    calls = []
    run = make(lambda *args: calls.append(args), FIRINGS)
    for expected in (FIRINGS, 2 * FIRINGS, 3 * FIRINGS):
        run()
        assert len(calls) == expected
