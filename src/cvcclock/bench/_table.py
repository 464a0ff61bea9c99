"""``python -m cvcclock bench``: one table of what the hot calls cost on this machine.

Every row of ``cvcclock.bench._cases.table_cases`` is timed with ``timeit`` (the garbage
collector off), in rounds: each round times every row once, in order, so neighbouring rows
share the machine's state of the moment, and every ratio is taken within a round, then the
median of the rounds is reported. A row's figure is ns per operation (a call, a firing, a
clock-advance); its spread is the interquartile range over the rounds. Peers that are not
installed are skipped, and the table says which and why. Read the ratios; the absolute
figures depend on the machine. Needs nothing but the installed package; the peers' rows
need the peers.
"""

import dataclasses
import datetime
import importlib.metadata
import json
import os
import platform
import statistics
import sys
import timeit
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import cvcclock
from cvcclock.bench._cases import Case, table_cases
from cvcclock.checks import check_count

#: The peers whose versions the JSON records (distribution names).
PEERS = ("arcade", "pyglet", "simpy", "numpy")


@dataclasses.dataclass(frozen=True)
class Skipped:
    """Rows left out because what they need could not be imported.

    Attributes
    ----------
    needs : str
        The peer (or feature) the rows need.
    reason : str
        Why it could not be had (the import error's message).
    keys : tuple of str
        The rows left out.
    labels : tuple of str
        Their labels, in the same order.
    """

    needs: str
    reason: str
    keys: tuple[str, ...]
    labels: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Goal:
    """A goal the package keeps: a figure computed in each round from the rows' figures, a
    ratio of what is measured to what it is compared with.

    The table prints it as ``{text}: {figure}x {versus} (goal at most {target}x)``, e.g.
    ``clock.advance(1/60): 1.30x an empty C method call with one argument (goal at most
    1.5x)``.

    Attributes
    ----------
    text : str
        What is measured, in a user's words.
    versus : str
        What it is compared with, in a user's words, as it reads after ``{figure}x``.
    keys : tuple of str
        The rows the figure needs, in the order ``figure`` takes their per-round values.
    figure : callable
        The figure of one round from those values.
    at_most : bool
        True when the goal is ``figure <= target``, False for ``figure >= target``.
    target : float
    """

    text: str
    versus: str
    keys: tuple[str, ...]
    figure: Callable[..., float]
    at_most: bool
    target: float

    def line(self, figure: float | None) -> str:
        """The goal as the table prints it, with ``figure`` (None: not measured)."""
        bound = "at most" if self.at_most else "at least"
        value = "-" if figure is None else f"{figure:.2f}x"
        return f"{self.text}: {value} {self.versus} (goal {bound} {self.target:g}x)"


GOALS = (
    Goal("a timer firing, less its callback's call from C",
         "an empty C method call with one argument", ("fire", "from_c", "floor1"),
         lambda fire, c, floor: (fire - c) / floor, True, 1.0),
    Goal("a timer firing among 10^5 staggered timers", "one firing alone",
         ("fire_many", "fire"), lambda many, one: many / one, True, 1.5),
    Goal("reading clock.tick", "an empty C method call with no argument",
         ("tick", "floor0"), lambda a, b: a / b, True, 1.2),
    Goal("clock.advance(1/60)", "an empty C method call with one argument",
         ("advance", "floor1"), lambda a, b: a / b, True, 1.5),
    Goal("binding.drive(1/60) on a dict tree", "clock.advance(1/60)",
         ("drive", "advance"), lambda drive, advance: drive / advance, True, 20.0),
    Goal("ClockBank.advance, per clock", "the speed of a Python loop of WorldClock.advance",
         ("bank_loop", "bank"), lambda a, b: a / b, False, 30.0),
    Goal("ClockBank.advance, per clock", "the speed of the same arithmetic in numpy",
         ("bank_numpy", "bank"), lambda a, b: a / b, False, 4.0),
    Goal("ClockBank.advance, per clock",
         "the speed of a numpy copy of its bytes (the memory-bandwidth bound)",
         ("bank_copy", "bank"), lambda a, b: a / b, False, 0.7),
    Goal("ClockBank.advance of a bank of one config, per clock",
         "the speed of a bank whose arrays the host holds (checked and read every call)",
         ("bank", "bank_shared"), lambda a, b: a / b, False, 3.0),
    Goal("ClockBank.advance of a bank configured by configure(i, config), per clock",
         "the speed of a bank whose arrays the host holds (checked every call)",
         ("bank", "bank_mixed"), lambda a, b: a / b, False, 1.25),
)


# ---- measuring -----------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Prepared:
    """A case ready to time: its timer and how many executions make one timing."""

    case: Case
    timer: timeit.Timer
    executions: int


def prepare(cases: Sequence[Case], number: int = 1,
            seconds: float | None = None) -> tuple[list[Prepared], list[Skipped]]:
    """Build every case's subject and timer; skip those whose peer cannot be imported.

    Each case runs twice untimed here: a warm-up that also touches the memory of the array
    rows before they are timed, and the estimate of an execution's time ``seconds`` needs.

    Parameters
    ----------
    cases : sequence of Case
    number : int
        About how many operations one timing makes (at least one execution of the
        statement); ignored when ``seconds`` is given.
    seconds : float, optional
        About how long one timing lasts instead.

    Returns
    -------
    ready : list of Prepared
        The cases that could be built, in order.
    skipped : list of Skipped
        The others, grouped by what they need and why it failed.
    """
    ready: list[Prepared] = []
    failed: dict[tuple[str, str], list[Case]] = {}
    for case in cases:
        try:
            namespace = case.make()
        except ImportError as error:
            failed.setdefault((case.needs or case.key, str(error)), []).append(case)
            continue
        timer = timeit.Timer(case.stmt, globals=namespace)
        timer.timeit(1)
        if seconds is None:
            executions = max(1, number // case.ops)
        else:
            executions = max(1, round(seconds / max(timer.timeit(1), 1e-9)))
        ready.append(Prepared(case, timer, executions))
    skipped = [Skipped(needs, reason, tuple(c.key for c in left), tuple(c.label for c in left))
               for (needs, reason), left in failed.items()]
    return ready, skipped


def run_rounds(ready: Sequence[Prepared], repeat: int) -> dict[str, list[float]]:
    """Time ``repeat`` rounds, each timing every case once, in order.

    Parameters
    ----------
    ready : sequence of Prepared
    repeat : int
        The number of rounds.

    Returns
    -------
    dict of str to list of float
        Each case's ns per operation, by key, one figure a round.
    """
    samples: dict[str, list[float]] = {p.case.key: [] for p in ready}
    for _ in range(repeat):
        for p in ready:
            seconds = p.timer.timeit(p.executions)
            samples[p.case.key].append(seconds * 1e9 / (p.executions * p.case.ops))
    return samples


# ---- summarising ---------------------------------------------------------------------------

def _quartiles(values: Sequence[float]) -> tuple[float, float]:
    if len(values) < 2:
        return values[0], values[0]
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q3


def _median_of_rounds(samples: dict[str, list[float]], keys: Sequence[str],
                      figure: Callable[..., float]) -> float | None:
    """The median over the rounds of ``figure`` of the keys' values in each round."""
    if not all(key in samples for key in keys):
        return None
    return statistics.median(figure(*values) for values in zip(*(samples[k] for k in keys),
                                                                strict=True))


def _ratio(a: float, b: float) -> float:
    return a / b


def _row_summary(p: Prepared, samples: dict[str, list[float]]) -> dict[str, Any]:
    case, mine = p.case, samples[p.case.key]
    q1, q3 = _quartiles(mine)
    return {
        "key": case.key, "label": case.label, "unit": case.unit, "stmt": case.stmt,
        "ops": case.ops, "executions": p.executions, "floor": case.floor, "rival": case.rival,
        "samples_ns": mine, "median_ns": statistics.median(mine), "q1_ns": q1, "q3_ns": q3,
        "min_ns": min(mine), "max_ns": max(mine),
        "x_floor": (1.0 if case.floor is None else
                    _median_of_rounds(samples, (case.key, case.floor), _ratio)),
        "x_rival": (None if case.rival is None else
                    _median_of_rounds(samples, (case.key, case.rival), _ratio)),
    }


def _goal_summary(goal: Goal, samples: dict[str, list[float]]) -> dict[str, Any]:
    figure = _median_of_rounds(samples, goal.keys, goal.figure)
    met = None if figure is None else (figure <= goal.target if goal.at_most
                                       else figure >= goal.target)
    # "goal" names the goal uniquely: what is measured and what it is compared with.
    return {"goal": f"{goal.text}: {goal.versus}", "line": goal.line(figure),
            "rows": list(goal.keys), "figure": figure,
            "target": ("<= " if goal.at_most else ">= ") + f"{goal.target:g}", "met": met}


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def machine() -> dict[str, Any]:
    """What the figures were measured on.

    Returns
    -------
    dict
        The date, platform, machine, processor, CPU count, Python version and
        implementation, cvcclock's version and the peers' (None where not installed).
    """
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "platform": platform.platform(), "machine": platform.machine(),
        "processor": platform.processor(), "cpus": os.cpu_count(),
        "python": sys.version.split()[0], "implementation": platform.python_implementation(),
        "cvcclock": cvcclock.__version__,
        "packages": {name: _version(name) for name in PEERS},
    }


def summarise(ready: Sequence[Prepared], skipped: Sequence[Skipped],
              samples: dict[str, list[float]], number: int, repeat: int,
              clocks: int) -> dict[str, Any]:
    """All the figures of one run, as the JSON document ``--json`` writes.

    Parameters
    ----------
    ready, skipped
        What ``prepare`` returned.
    samples : dict of str to list of float
        What ``run_rounds`` returned.
    number, repeat, clocks : int
        The settings of the run, recorded as they were given.

    Returns
    -------
    dict
        ``machine``; ``settings``; ``rows``, each with its samples, median, quartiles,
        extremes and median per-round ratios to its floor and rival; ``skipped``; ``goals``,
        each with its figure (None if a row it needs was skipped) and whether it was met.
    """
    return {
        "machine": machine(),
        "settings": {"number": number, "repeat": repeat, "clocks": clocks},
        "rows": [_row_summary(p, samples) for p in ready],
        "skipped": [dataclasses.asdict(s) for s in skipped],
        "goals": [_goal_summary(goal, samples) for goal in GOALS],
    }


# ---- printing ------------------------------------------------------------------------------

def _times(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def print_table(report: dict[str, Any], out: TextIO) -> None:
    """Print the rows, what was skipped and the goals, in plain ASCII.

    Parameters
    ----------
    report : dict
        What ``summarise`` returned.
    out : text file
    """
    m, s = report["machine"], report["settings"]
    print(f"cvcclock {m['cvcclock']} on {m['implementation']} {m['python']}, {m['platform']}, "
          f"{m['cpus']} CPUs: {s['repeat']} rounds of about {s['number']} operations a row",
          file=out)
    print(f"{'row':38s} {'ns per':13s} {'median':>8s} {'IQR':>15s} {'x floor':>7s}  x rival",
          file=out)
    for row in report["rows"]:
        spread = f"{row['q1_ns']:.1f}-{row['q3_ns']:.1f}"
        rival = ("" if row["x_rival"] is None
                 else f"{_times(row['x_rival'])} ({row['rival']})")
        print(f"{row['label']:38s} {row['unit']:13s} {row['median_ns']:8.1f} {spread:>15s} "
              f"{_times(row['x_floor']):>7s}  {rival}", file=out)
    for skip in report["skipped"]:
        print(f"skipped, {skip['needs']} unavailable ({skip['reason']}): "
              f"{'; '.join(skip['labels'])}", file=out)
    print("goals (each the median over the rounds of its per-round ratio):", file=out)
    for goal in report["goals"]:
        verdict = {True: "met", False: "MISSED", None: "not measured"}[goal["met"]]
        print(f"  {verdict:12s} {goal['line']}", file=out)


def run_bench(number: int = 50_000, repeat: int = 7, out: TextIO | None = None,
              clocks: int = 10**6, json_out: TextIO | None = None) -> dict[str, Any]:
    """Time every row of the table, print it, and return (and optionally write) the figures.

    Parameters
    ----------
    number : int
        Operations per row per round (at least one execution of its statement); at least 1.
    repeat : int
        Rounds; at least 1. The median and the quartiles are over the rounds.
    out : text file, optional
        Where to print; ``sys.stdout`` when omitted.
    clocks : int
        The n of the ClockBank rows; at least 1.
    json_out : text file, optional
        Where to write the figures as JSON (``summarise``'s document).

    Returns
    -------
    dict
        The figures: machine, settings, rows (samples and their summary, ratios), skipped
        rows and why, goals.

    Raises
    ------
    TypeError
        If ``number``, ``repeat`` or ``clocks`` is not an integer.
    ValueError
        If any of them is below 1.
    """
    number = check_count(number, "number", minimum=1)
    repeat = check_count(repeat, "repeat", minimum=1)
    clocks = check_count(clocks, "clocks", minimum=1)
    ready, skipped = prepare(table_cases(clocks), number)
    samples = run_rounds(ready, repeat)
    report = summarise(ready, skipped, samples, number, repeat, clocks)
    if json_out is not None:        # first: a reader leaving the table early loses no figure
        json.dump(report, json_out, indent=1)
        json_out.write("\n")
    print_table(report, sys.stdout if out is None else out)
    return report


__all__ = ["GOALS", "Goal", "Prepared", "Skipped", "machine", "prepare", "print_table",
           "run_bench", "run_rounds", "summarise"]
