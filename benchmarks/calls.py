"""The loops the per-call benchmarks share: N calls per timed function, the same for every row."""

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
