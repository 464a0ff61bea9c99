"""The scenarios the batch tests run, and how they compare results.

The workers of a pool (forkserver or spawn, never fork) import a scenario by module and
name, so these live in a module of their own that every batch test, and the ``batch``
command the CLI tests start with ``tests/`` as its working directory, import as
``support.batch_scenarios``.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from cvcclock.scenario import (
    FailedRun,
    Scenario,
    SimulationResult,
    Throttle,
    Vehicle,
    read_results,
    require,
    simulate,
    take,
)

POSIX_SIGNALS = pytest.mark.skipif(sys.platform == "win32",
                                   reason="kills with SIGKILL, which Windows has not")


def keep_distance(car, gap):
    lead = car.sim["lead"]
    while True:
        yield take(Throttle(-1.0 if lead.x - car.x < gap else 0.5))


def cruise(car):
    while True:
        yield take(Throttle(0.0))


class CloseCall(Scenario):
    dt = 0.1

    def setup(self, s):
        ego = s.add_agent("ego", Vehicle(speed=15.0), keep_distance, 20.0)
        lead = s.add_agent("lead", Vehicle(x=40.0, speed=s.rng.uniform(4.0, 8.0)), cruise)
        s.require_eventually(lambda: ego.speed < lead.speed)
        s.record("gap", lambda: round(lead.x - ego.x, 1))
        s.record_final("lead speed", lambda: lead.speed)
        s.terminate_after(6.0)


class Flaky(CloseCall):
    """Some seeds raise, some attempts are rejected and resampled."""

    def setup(self, s):
        if s.sim.seed % 7 == 3:
            raise ZeroDivisionError(f"seed {s.sim.seed} divides by zero")
        require(s.rng.random() > 0.5, "unlucky draw")
        super().setup(s)


class Kamikaze(CloseCall):
    """Kills its worker process the first time it runs ``victim`` (never in the test's process)."""

    def __init__(self, victim, marker):
        self.victim, self.marker, self.spare = victim, str(marker), os.getpid()

    def setup(self, s):
        if (s.sim.seed == self.victim and os.getpid() != self.spare
                and not os.path.exists(self.marker)):
            Path(self.marker).write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        super().setup(s)


class Doomed(CloseCall):
    """Kills its worker process every time it runs ``victim`` (never in the test's process)."""

    def __init__(self, victim):
        self.victim, self.spare = victim, os.getpid()

    def setup(self, s):
        if s.sim.seed == self.victim and os.getpid() != self.spare:
            os.kill(os.getpid(), signal.SIGKILL)
        super().setup(s)


class Slow(CloseCall):
    """CloseCall at about ``delay`` seconds a run, to be interrupted midway."""

    delay = 0.02

    def setup(self, s):
        time.sleep(self.delay)
        super().setup(s)


def fast(scenario):
    """The scenario without its delay: the same results, sooner."""
    scenario.delay = 0.0
    return scenario



def serial(scenario, seeds, **kwargs):
    """The same seeds run one by one in this process; a run that raises gives its FailedRun."""
    results = []
    for seed in seeds:
        try:
            results.append(simulate(scenario, seed=seed, **kwargs))
        except Exception as e:
            results.append(FailedRun.from_exception(seed, e))
    return results


def comparable(results):
    """Results with failed runs as (seed, type, message): their tracebacks name the frames
    they ran in, which differ between this process and a worker."""
    return [r if isinstance(r, SimulationResult) else (r.seed, r.error_type, r.message)
            for r in results]


def seeds_in_file(path):
    return [r.seed for r in read_results(path)]


def stop_after_results(proc, out, results, signum, *, timeout, before_stop=lambda: None):
    """Wait (at most ``timeout`` s) until the batch ``proc`` has written ``results`` lines to
    ``out``, call ``before_stop()``, send it ``signum`` and return its stderr. The process
    is ended whatever happens, so no test leaves a batch running."""
    try:
        deadline = time.monotonic() + timeout
        while not out.exists() or out.read_bytes().count(b"\n") < results:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no results written"
            time.sleep(0.05)
        before_stop()
        os.kill(proc.pid, signum)
        return proc.communicate(timeout=60)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)
