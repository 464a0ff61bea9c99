"""How cvcclock's costs grow with the work: measure, print a Markdown table, plot a PNG.

Run from the checkout, with the ``[bench]`` extra installed (matplotlib)::

    python benchmarks/plot_scaling.py                       # docs/images/scaling.png
    python benchmarks/plot_scaling.py --out /tmp/s.png --repeat 3

The series are ``cvcclock.bench._cases.scaling_series()``: an advance against the live
timers (1 to 10**5, idle timers plus one firing, and staggered timers whose every firing moves
through the whole queue), a frame against the followers taking (1 to 10**3), an advance
against its width (1 to 10**6 quanta, with and without timers), and ClockBank's throughput
(one configuration shared, and its configuration arrays written) against n (10**2 to
10**7) beside numpy and a copy of the general path's bytes. The lines of a point (one x)
are timed in interleaved rounds with ``cvcclock.bench``'s machinery, each timing lasting
about ``--seconds``; a point is the median over the rounds. Rows that need what is not
installed (a ClockBank) are left out and named. The 10**7-clock point holds about 4 GB for a
few seconds.
"""

import argparse
import math
import statistics
import sys
from pathlib import Path

from cvcclock.bench import machine, prepare, run_rounds
from cvcclock.bench._cases import Series, power, scaling_series
from cvcclock.checks import check_count, check_seconds

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "docs" / "images" / "scaling.png"


def measure(series: Series, repeat: int, seconds: float) -> tuple[dict[str, dict[int, float]],
                                                                   list[str]]:
    """Each line's figure at each x (ns an execution, or millions of operations a second),
    and what was skipped and why."""
    figures: dict[str, dict[int, float]] = {line: {} for line in series.lines}
    skipped: list[str] = []
    for x in series.xs:
        cases = {line: make(x) for line, make in series.lines.items()}
        ready, skips = prepare(list(cases.values()), seconds=seconds)
        skipped += [f"{series.key}: {'; '.join(s.labels)} ({s.reason})" for s in skips]
        samples = run_rounds(ready, repeat)
        for line, case in cases.items():
            if case.key in samples:
                ns = statistics.median(samples[case.key]) * case.ops
                figures[line][x] = case.ops * 1e3 / ns if series.throughput else ns
        del ready, samples          # before the next, larger point is built
    return figures, skipped


def _figure(value: float, throughput: bool) -> str:
    if throughput:
        return f"{value:,.0f} M/s" if value >= 100 else f"{value:.3g} M/s"
    return f"{value / 1000:.3g} µs" if value >= 1000 else f"{value:.3g} ns"


def markdown(series: Series, figures: dict[str, dict[int, float]]) -> str:
    """One series as a Markdown table: a row per x, a column per line."""
    lines = [line for line in series.lines if figures[line]]
    head = [f"| {series.x_label} | " + " | ".join(lines) + " |",
            "| ---: | " + " | ".join("---:" for _ in lines) + " |"]
    body = [f"| {power(x)} | " + " | ".join(
        _figure(figures[line][x], series.throughput) if x in figures[line] else "-"
        for line in lines) + " |" for x in series.xs]
    return "\n".join([f"{series.title}; {series.y_label}:", "", *head, *body])


def plot(results: list[tuple[Series, dict[str, dict[int, float]]]], out: Path,
         subtitle: str) -> None:
    """Log-log axes, one panel per series, each line labelled; written to ``out``."""
    import matplotlib

    matplotlib.use("Agg")               # no display: write the file only
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(12, 9), constrained_layout=True)
    for ax, (series, figures) in zip(axes.flat, results, strict=True):
        for line, points in figures.items():
            if points:
                xs = sorted(points)
                ax.plot(xs, [points[x] for x in xs], marker="o", label=line)
        ax.set_xscale("log")
        ax.set_yscale("log")
        low, high = ax.get_ylim()
        if high < 10 * low:         # a flat line drawn flat: a decade at least, not 15% zoomed
            middle = math.sqrt(low * high)
            ax.set_ylim(middle / math.sqrt(10), middle * math.sqrt(10))
        ax.set_title(series.title)
        ax.set_xlabel(series.x_label)
        ax.set_ylabel(series.y_label)
        ax.grid(True, which="major", alpha=0.4)
        ax.legend(fontsize="small")
    fig.suptitle(f"How cvcclock's costs grow with the work\n{subtitle}", fontsize="medium")
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="PNG",
                        help=f"where to write the plot (default {DEFAULT_OUT})")
    parser.add_argument("--repeat", type=int, default=5, metavar="N",
                        help="interleaved rounds a point, at least 1 (default 5)")
    parser.add_argument("--seconds", type=float, default=0.002, metavar="S",
                        help="about how long one timing lasts (default 0.002)")
    args = parser.parse_args(argv)
    try:
        repeat = check_count(args.repeat, "--repeat", minimum=1)
        seconds = check_seconds(args.seconds, "--seconds", minimum=1e-6, maximum=10.0)
    except ValueError as error:
        parser.error(str(error))
    m = machine()
    subtitle = (f"cvcclock {m['cvcclock']}, {m['implementation']} {m['python']}, "
                f"{m['platform']}, {m['cpus']} CPUs; medians of {repeat} rounds")
    results, skipped = [], []
    for series in scaling_series():
        figures, skips = measure(series, repeat, seconds)
        results.append((series, figures))
        skipped += skips
        print(markdown(series, figures), end="\n\n", flush=True)
    for line in dict.fromkeys(skipped):           # once each, in order
        print(f"skipped {line}")
    plot(results, args.out, subtitle)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
