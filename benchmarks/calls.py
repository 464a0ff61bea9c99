"""The loops the per-call benchmarks share: N calls per timed function, the same for every row;
and the timing of a case the bench command shares with benchmarks/."""

import timeit

N = 1000
WALL_DT = 1.0 / 60.0


def call_each(fns, arg):
    """Call each function with ``arg``: N calls, the loop cost shared with the floor row."""
    for f in fns:
        f(arg)


def loop_only(fns, arg):
    """The same loop with an empty body, to subtract the loop's cost."""
    for _f in fns:
        pass


def time_case(benchmark, case, ops_per_round, rounds):
    """Time a ``cvcclock.bench._cases.Case`` as ``python -m cvcclock bench`` does (the same
    statement in the same namespace, the same ``timeit`` timer), ``ops_per_round`` operations
    a round, so a round's time reads directly per operation."""
    timer = timeit.Timer(case.stmt, globals=case.make())
    executions = max(1, ops_per_round // case.ops)
    benchmark.extra_info.update(label=case.label, ops_per_round=executions * case.ops,
                                floor=case.floor, rival=case.rival)
    benchmark.pedantic(timer.timeit, args=(executions,), rounds=rounds, warmup_rounds=1)
