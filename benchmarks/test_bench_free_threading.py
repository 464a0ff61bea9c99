"""SimThreads in parallel on a free-threaded CPython, and what the build costs one thread.

Run with ``pytest benchmarks/test_bench_free_threading.py --benchmark-only`` in a virtual
environment of a free-threaded interpreter (3.13t; ``scripts/test_freethreaded.sh`` makes
one), and once in a GIL build's for the single-thread rows.

Group ``simthreads``: N SimThreads (N = 2, 4), each stepping a CPU-bound pure-Python world
(``free_threading_runs.Busy``, about a millisecond a step) on one clock, for 300 frames of
one step each and ``wait_caught_up`` each frame; every world is checked against direct
stepping. Each row runs it twice, in fresh interpreters of the same build: ``PYTHON_GIL=1``
and ``PYTHON_GIL=0``, and reports both wall times and their ratio, the speedup
(extra_info, and a table printed at the end). The goal, on 2 cores: two SimThreads at least
1.7x faster with the GIL off. Beside it, the cores the GIL-off run kept busy (CPU time over
wall time): a shared machine whose other users hold a core cannot show a speedup it does
not have. A GIL build has no GIL to turn off: its rows run once, GIL on. The time column is
the length of the whole row; read the table.

Group ``single-thread``: ``advance`` and ``take`` per call against the floor ``[].count(x)``,
and a timer firing against the bare Python call of its callback (as in test_bench_clock.py
and test_bench_timers.py), in this interpreter. Run it on both builds and compare the
ratios: the free-threaded build's critical sections and atomics are the difference.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import free_threading_runs
from report import write_table

FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
RUNS = Path(free_threading_runs.__file__)
FRAMES, WORK = 300, 20_000   # 10 frames of 200 turns when benchmarking is disabled


def run(args: list[str], gil: str | None) -> dict:
    """Run ``free_threading_runs.py`` with ``args`` in a fresh interpreter, GIL as asked."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHON_GIL"}
    if gil is not None:
        env["PYTHON_GIL"] = gil
    proc = subprocess.run([sys.executable, str(RUNS), *args], env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def table(request):
    rows: list[str] = []
    yield rows
    write_table(request.config, f"free threading, {sys.version.split()[0]} "
                f"({'free-threaded' if FREE_THREADED else 'GIL'} build):", rows)


@pytest.mark.benchmark(group="simthreads: GIL on vs off; the time is the row's length")
@pytest.mark.parametrize("count", [2, 4])
def test_simthreads_gil_on_and_off(benchmark, count, table):
    frames, work = (10, 200) if benchmark.disabled else (FRAMES, WORK)
    args = ["simthreads", str(count), str(frames), str(work)]

    def both() -> dict:
        if not FREE_THREADED:
            return {"on": run(args, None)}
        return {"on": run(args, "1"), "off": run(args, "0")}

    runs = benchmark.pedantic(both, rounds=1, iterations=1)
    assert runs["on"]["gil_enabled"] is True
    on = runs["on"]["seconds"]
    benchmark.extra_info["gil_on_s"] = on
    if "off" not in runs:
        table.append(f"{count} SimThreads: {on:.2f} s with the GIL (a GIL build: no GIL-off row)")
        return
    assert runs["off"]["gil_enabled"] is False   # the import kept it off
    off = runs["off"]["seconds"]
    cores = runs["off"]["cores"]
    benchmark.extra_info.update(gil_off_s=off, speedup=on / off, gil_off_cores=cores)
    table.append(f"{count} SimThreads, {frames} frames: GIL on {on:.2f} s, off {off:.2f} s: "
                 f"{on / off:.2f}x, {cores:.2f} cores busy with the GIL off")


@pytest.mark.benchmark(group="single-thread: ratios to the floor in this build")
def test_single_thread_ratios(benchmark, table):
    r = benchmark.pedantic(free_threading_runs.ratios, kwargs={"number": 20_000, "repeat": 3}
                           if benchmark.disabled else {}, rounds=1, iterations=1)
    benchmark.extra_info.update(r)
    table.append(f"advance {r['advance']:.2f}x floor ({r['advance_ns']:.1f} vs "
                 f"{r['floor_ns']:.1f} ns), take {r['take']:.2f}x ({r['take_ns']:.1f} ns), "
                 f"timer firing {r['fire']:.2f}x its bare callback ({r['fire_ns']:.1f} vs "
                 f"{r['callback_ns']:.1f} ns)")
