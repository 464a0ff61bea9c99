"""A batch in numbers: runs by how they ended, rejections, failures, and the records' statistics."""

from __future__ import annotations

import dataclasses
import importlib
import math
from collections import Counter
from collections.abc import Iterable
from typing import Any

from cvcclock.batch._records import FailedRun
from cvcclock.scenario.results import SimulationResult

__all__ = ["BatchSummary", "Statistic", "summarize"]


@dataclasses.dataclass(frozen=True)
class Statistic:
    """Count, mean, standard deviation, minimum and maximum of the numbers seen.

    Attributes
    ----------
    name : str
        ``steps``, or a record: ``final x``, ``initial x``, or ``gap (per step)`` (every
        step of every completed run).
    count : int
        Finite real numbers seen (not bools).
    mean, std, min, max : float
        NaN when ``count`` is 0; ``std`` is the sample standard deviation (NaN below 2).
    others : int
        Values that were not finite real numbers, left out of the statistics.
    """

    name: str
    count: int
    mean: float
    std: float
    min: float
    max: float
    others: int


class _Accumulator:
    """Welford's running mean and variance: one pass, no stored values."""

    __slots__ = ("count", "mean", "m2", "min", "max", "others")

    def __init__(self) -> None:
        self.count, self.mean, self.m2, self.others = 0, 0.0, 0.0, 0
        self.min, self.max = math.inf, -math.inf

    def add(self, value: Any) -> None:
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not math.isfinite(value)):
            self.others += 1
            return
        x = float(value)
        self.count += 1
        delta = x - self.mean
        self.mean += delta / self.count
        self.m2 += delta * (x - self.mean)
        self.min = min(self.min, x)
        self.max = max(self.max, x)

    def statistic(self, name: str) -> Statistic:
        n = self.count
        if n == 0:
            return Statistic(name, 0, math.nan, math.nan, math.nan, math.nan, self.others)
        std = math.sqrt(self.m2 / (n - 1)) if n > 1 else math.nan
        return Statistic(name, n, self.mean, std, self.min, self.max, self.others)


@dataclasses.dataclass(frozen=True)
class BatchSummary:
    """What a batch's results add up to. ``str()`` is a printable table.

    Attributes
    ----------
    runs : int
        Results summarised, completed and failed.
    completed : int
        Runs that returned a result (rejected attempts resampled into an accepted one
        count as completed).
    by_termination : dict
        ``TerminationType`` value (``"scenario complete"``, ...) -> completed runs.
    attempts : int
        Attempts of the completed runs: each run's rejections plus its accepted attempt.
    rejected : int
        Rejected attempts among them.
    failed : int
        :class:`FailedRun` results.
    failures : dict
        Exception type -> failed runs.
    failed_seeds : tuple of int
        The seeds that failed, in the order given.
    statistics : tuple of Statistic
        ``steps`` of the completed runs, then each record in name order: ``final``,
        ``initial``, then per step.
    """

    runs: int
    completed: int
    by_termination: dict[str, int]
    attempts: int
    rejected: int
    failed: int
    failures: dict[str, int]
    failed_seeds: tuple[int, ...]
    statistics: tuple[Statistic, ...]

    @property
    def rejection_rate(self) -> float:
        """Rejected attempts over all attempts of the completed runs (0.0 with none)."""
        return self.rejected / self.attempts if self.attempts else 0.0

    def rows(self) -> list[tuple[str, str, int, float, float, float, float]]:
        """The table's rows: ``(section, name, count, mean, std, min, max)``.

        Sections: ``runs`` (``all``, ``completed``, ``failed``), ``termination`` (per type),
        ``failure`` (per exception type), ``attempts`` (``all``, and ``rejected`` whose
        ``mean`` is the rejection rate: the mean of "this attempt was rejected"), and
        ``statistic`` (each :class:`Statistic`). Numbers that do not apply are NaN.
        """
        nan = math.nan
        rows = [("runs", "all", self.runs, nan, nan, nan, nan),
                ("runs", "completed", self.completed, nan, nan, nan, nan),
                ("runs", "failed", self.failed, nan, nan, nan, nan)]
        rows += [("termination", kind, n, nan, nan, nan, nan)
                 for kind, n in sorted(self.by_termination.items())]
        rows += [("failure", kind, n, nan, nan, nan, nan)
                 for kind, n in sorted(self.failures.items())]
        rows += [("attempts", "all", self.attempts, nan, nan, nan, nan),
                 ("attempts", "rejected", self.rejected, self.rejection_rate, nan, nan, nan)]
        rows += [("statistic", s.name, s.count, s.mean, s.std, s.min, s.max)
                 for s in self.statistics]
        return rows

    def to_frame(self) -> Any:
        """The table as a DataFrame indexed by ``(section, name)`` (pandas is imported here).

        Returns
        -------
        pandas.DataFrame
            Columns ``count``, ``mean``, ``std``, ``min``, ``max``; see :meth:`rows`.
        """
        pandas = importlib.import_module("pandas")    # optional, and typed Any: no stubs needed
        frame = pandas.DataFrame(
            self.rows(), columns=["section", "name", "count", "mean", "std", "min", "max"])
        return frame.set_index(["section", "name"])

    def table(self) -> str:
        """The summary as fixed-width text: counts first, then the statistics."""
        def count(label: str, n: int, note: str = "") -> str:
            return f"{label:<26}{n:>10}{note}"
        lines = [count("runs", self.runs), count("  completed", self.completed)]
        lines += [count(f"    {kind}", n) for kind, n in sorted(self.by_termination.items())]
        lines.append(count("  failed", self.failed))
        lines += [count(f"    {kind}", n) for kind, n in sorted(self.failures.items())]
        if self.failed_seeds:
            more = f" and {len(self.failed_seeds) - 10} more" if len(self.failed_seeds) > 10 else ""
            lines.append(f"    seeds {', '.join(map(str, self.failed_seeds[:10]))}{more}")
        lines.append(count("attempts", self.attempts))
        lines.append(
            count("  rejected", self.rejected, f"   rejection rate {self.rejection_rate:.2%}"))
        if self.statistics:
            width = max(16, *(len(s.name) for s in self.statistics))
            lines += ["", f"{'statistic':<{width}}{'count':>10}" + "".join(
                f"{column:>11}" for column in ("mean", "std", "min", "max"))]
            for s in self.statistics:
                note = f"   ({s.others} not numbers)" if s.others else ""
                lines.append(f"{s.name:<{width}}{s.count:>10}" + "".join(
                    f"{x:>11.4g}" for x in (s.mean, s.std, s.min, s.max)) + note)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def summarize(results: Iterable[SimulationResult | FailedRun]) -> BatchSummary:
    """Summarise a batch's results in one pass (a generator such as ``simulate_many`` is fine).

    Parameters
    ----------
    results : iterable of SimulationResult or FailedRun

    Returns
    -------
    BatchSummary

    Raises
    ------
    TypeError
        If an item is neither.
    """
    runs = completed = attempts = rejected = 0
    by_termination: Counter[str] = Counter()
    failures: Counter[str] = Counter()
    failed_seeds: list[int] = []
    steps = _Accumulator()
    records: dict[tuple[int, str], _Accumulator] = {}
    for r in results:
        runs += 1
        if isinstance(r, FailedRun):
            failures[r.error_type] += 1
            failed_seeds.append(r.seed)
            continue
        if not isinstance(r, SimulationResult):
            raise TypeError(f"summarize takes SimulationResult and FailedRun items, got {r!r}")
        completed += 1
        by_termination[r.termination_type.value] += 1
        attempts += r.rejections + 1
        rejected += r.rejections
        steps.add(r.steps)
        # The key's number orders the statistics: final, initial, then per step.
        for name, value in r.records_final.items():
            records.setdefault((0, f"final {name}"), _Accumulator()).add(value)
        for name, value in r.records_initial.items():
            records.setdefault((1, f"initial {name}"), _Accumulator()).add(value)
        for name, pairs in r.records.items():
            acc = records.setdefault((2, f"{name} (per step)"), _Accumulator())
            for _, value in pairs:
                acc.add(value)
    statistics = [steps.statistic("steps")] if completed else []
    statistics += [acc.statistic(name) for (_, name), acc in sorted(records.items())]
    return BatchSummary(runs, completed, dict(by_termination), attempts, rejected,
                        len(failed_seeds), dict(failures), tuple(failed_seeds), tuple(statistics))
