"""``cvcclock bench``: the hot calls timed against an empty call, the peers beside them."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any

from cvcclock.checks import check_count
from cvcclock.cli._output import reader_may_leave

__all__ = ["add_parser", "run"]

DESCRIPTION = """\
Time the hot calls (clock.advance, advance_ticks, step_once, follower.take,
the tick, t and alpha reads, a timer firing, binding.drive) beside an empty call
of a C builtin method with the same calling convention (the floor), the
hand-written pure-Python accumulator, the peers that are installed (arcade's
clocks, pyglet's clock and interval callbacks, simpy timeouts) and ClockBank
against a Python loop over WorldClocks, numpy and a copy of its bytes. Rows are
timed in rounds, each round timing every row once, and each figure is the
median over the rounds with its interquartile range, the ratio to an empty
call (x floor) and to the row it competes with (x rival); then the package's
goals, met or missed, each naming what is measured and what it is compared
with. Read the ratios: the absolute figures depend on the machine."""



def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``bench`` command to an ``add_subparsers()`` object; return its parser."""
    bench: argparse.ArgumentParser = commands.add_parser(
        "bench", help="time the hot calls against an empty call", description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    bench.add_argument("--number", type=int, default=50_000, metavar="N",
                       help="operations per row per round (calls, firings, clock-advances), "
                            "at least 1 (default 50000)")
    bench.add_argument("--repeat", type=int, default=7, metavar="N",
                       help="rounds, at least 1; the median and quartiles are over them "
                            "(default 7)")
    bench.add_argument("--clocks", type=int, default=10**6, metavar="N",
                       help="clocks in the ClockBank rows, at least 1 (default 1000000)")
    bench.add_argument("--json", metavar="PATH",
                       help="also write every figure (machine, samples, ratios, goals) to "
                            "PATH as JSON")
    return bench


def run(args: argparse.Namespace, bench: argparse.ArgumentParser) -> int:
    """Check the options with the package's own rules (errors name the option), then time."""
    from cvcclock.bench import run_bench

    try:
        for option in ("number", "repeat", "clocks"):
            check_count(getattr(args, option), f"--{option}", minimum=1)
    except ValueError as error:
        bench.error(str(error))
    try:
        json_out = None if args.json is None else open(args.json, "w", encoding="utf-8")
    except OSError as error:     # a file that cannot be written: one line, as for a full disk
        return _cannot_write(args.json, error)
    try:
        with reader_may_leave(0), contextlib.ExitStack() as files:
            if json_out is not None:
                files.enter_context(json_out)
            run_bench(args.number, args.repeat, clocks=args.clocks, json_out=json_out)
    except OSError as error:      # the JSON file opened but could not be written (a full disk)
        return _cannot_write(args.json, error)
    return 0


def _cannot_write(path: str, error: OSError) -> int:
    print(f"cvcclock bench: --json: cannot write {path!r}: {error.strerror}", file=sys.stderr)
    return 2
