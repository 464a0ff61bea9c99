"""``python -m cvcclock bench``: what the hot calls cost, timed in-process with ``timeit``.

Each row is the best of ``repeat`` timings of ``number`` calls, in ns per call, beside its
floor: an empty call of a C builtin method with the same calling convention, ``[].count(x)``
for one argument and ``[].clear()`` for none. Read the ratios, within one run; the figures
depend on the machine. Needs nothing but the installed package.
"""

import sys
import timeit
from typing import TextIO

from cvcclock import ClockConfig, ClockFollower, WorldClock, WorldClockBinding
from cvcclock.checks import check_count

_ONE, _NONE = "count(dt)", "clear()"
#: (row, statement, its floor's statement); floors are rows whose floor is themselves.
CASES = [("floor: [].count(x)", _ONE, _ONE), ("floor: [].clear()", _NONE, _NONE),
         ("clock.advance(1/60), live 1/120 clock", "clock.advance(dt)", _ONE),
         ("follower.take(clock)", "follower.take(clock)", _ONE),
         ("clock.tick", "clock.tick", _NONE),
         ("binding.drive(1/60), dict tree", "binding.drive(dt)", _ONE)]


def run_bench(number: int = 200_000, repeat: int = 5, out: TextIO | None = None) -> None:
    """Time each row of ``CASES`` and print ns per call and the ratio to its floor.

    Parameters
    ----------
    number : int
        Calls per timing; at least 1.
    repeat : int
        Timings per row, of which the fastest is kept; at least 1.
    out : text file, optional
        Where to print; ``sys.stdout`` when omitted.

    Raises
    ------
    TypeError
        If ``number`` or ``repeat`` is not an integer.
    ValueError
        If either is below 1.
    """
    number = check_count(number, "number", minimum=1)
    repeat = check_count(repeat, "repeat", minimum=1)
    clock = WorldClock(ClockConfig(fixed_dt=1 / 120))
    names = {"clock": clock, "follower": ClockFollower.for_step(clock, 1 / 120),
             "binding": WorldClockBinding({}, WorldClock(ClockConfig(fixed_dt=1 / 120))),
             "dt": 1 / 60, "count": [].count, "clear": [].clear}
    ns = {stmt: min(timeit.Timer(stmt, globals=names).repeat(repeat, number)) * 1e9 / number
          for _, stmt, _ in CASES}
    out = sys.stdout if out is None else out
    print(f"{'call':40s} {'ns/call':>9s} {'x floor':>8s}   (best of {repeat} x {number})",
          file=out)
    for row, stmt, floor in CASES:
        print(f"{row:40s} {ns[stmt]:9.1f} {ns[stmt] / ns[floor]:8.2f}", file=out)
