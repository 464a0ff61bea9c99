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


class Spaced(CloseCall):
    """CloseCall keeping a gap given to its constructor: an attribute that decides its runs."""

    def __init__(self, gap=20.0):
        self.gap = gap

    def setup(self, s):
        ego = s.add_agent("ego", Vehicle(speed=15.0), keep_distance, self.gap)
        lead = s.add_agent("lead", Vehicle(x=40.0, speed=s.rng.uniform(4.0, 8.0)), cruise)
        s.record("gap", lambda: round(lead.x - ego.x, 1))
        s.terminate_after(6.0)


class DiesTimes(CloseCall):
    """Kills its worker process the first ``times`` times it runs each seed of ``victims``
    (never in the test's process); ``deaths(seed)`` counts them, from files in ``folder``."""

    def __init__(self, victims, times, folder):
        self.victims, self.times, self.folder = tuple(victims), times, str(folder)
        self.spare = os.getpid()

    def deaths(self, seed):
        return len(list(Path(self.folder).glob(f"{seed}-*")))

    def setup(self, s):
        seed = s.sim.seed
        if seed in self.victims and os.getpid() != self.spare and self.deaths(seed) < self.times:
            Path(self.folder, f"{seed}-{os.getpid()}").write_text("")
            os.kill(os.getpid(), signal.SIGKILL)
        super().setup(s)


class KillsOnRerun(CloseCall):
    """Runs ``victim`` once; every later run of it, in a worker, kills the worker."""

    def __init__(self, victim, marker):
        self.victim, self.marker, self.spare = victim, str(marker), os.getpid()

    def setup(self, s):
        if s.sim.seed == self.victim and os.getpid() != self.spare:
            if os.path.exists(self.marker):
                os.kill(os.getpid(), signal.SIGKILL)
            Path(self.marker).write_text(str(os.getpid()))
        super().setup(s)


class Stuck(CloseCall):
    """Never returns from the run of ``victim`` in a worker (it would here: it is not stuck)."""

    def __init__(self, victim=3):
        self.victim, self.spare = victim, os.getpid()

    def setup(self, s):
        if s.sim.seed == self.victim and os.getpid() != self.spare:
            while True:
                time.sleep(1)
        super().setup(s)


class LoadsElsewhere:
    """A value that pickles anywhere and unpickles anywhere but in process ``home``."""

    def __init__(self, home):
        self.home = home

    def __reduce__(self):
        return (_load_elsewhere, (self.home,))

    def __eq__(self, other):
        return isinstance(other, LoadsElsewhere) and other.home == self.home


def _load_elsewhere(home):
    if os.getpid() == home:
        raise RuntimeError("this value does not load in the batch's process")
    return LoadsElsewhere(home)


class HomeSick(CloseCall):
    """Records, for ``victim``, a value that will not unpickle in the process ``home``."""

    def __init__(self, victim, home):
        self.victim, self.home = victim, home

    def setup(self, s):
        super().setup(s)
        if s.sim.seed == self.victim:
            value = LoadsElsewhere(self.home)
            s.record_final("souvenir", lambda: value)


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


# -- processes left behind -----------------------------------------------------------------


def marked_processes(mark):
    """The pids of processes whose environment holds ``CVCCLOCK_TEST_MARK=mark``."""
    needle = f"CVCCLOCK_TEST_MARK={mark}\0".encode()
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if needle in environ.read_bytes():
                found.append(int(environ.parent.name))
        except OSError:        # gone meanwhile, or not ours to read
            pass
    return found


def assert_no_leftovers(mark, timeout=20):
    """No process of the command's is left (its workers, forkserver, resource tracker or
    cluster ended with it), within ``timeout`` s. Any left are killed, then reported."""
    if not Path("/proc/self/environ").exists():
        return
    deadline = time.monotonic() + timeout
    while (left := marked_processes(mark)):
        if time.monotonic() > deadline:
            kill_marked(mark)
            raise AssertionError(f"processes left running: {left}")
        time.sleep(0.2)


def kill_marked(mark):
    """SIGKILL every process marked ``mark`` (a test's clean-up, whatever it asserted)."""
    if not Path("/proc/self/environ").exists():
        return
    for pid in marked_processes(mark):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def marked_env(mark):
    """This process's environment with ``CVCCLOCK_TEST_MARK=mark``, inherited by every
    process a command starts."""
    return {**os.environ, "CVCCLOCK_TEST_MARK": mark}


def grandchildren():
    """The pids of this process's grandchildren (a forkserver's workers; the forkserver and
    the resource tracker are children), or None where /proc is missing."""
    if not Path("/proc/self/stat").exists():
        return None
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()
        if fields[0] != "Z":                      # a zombie is gone, waiting to be reaped
            parents[int(stat.parent.name)] = int(fields[1])
    me = os.getpid()
    children = {pid for pid, ppid in parents.items() if ppid == me}
    return {pid for pid, ppid in parents.items() if ppid in children}


def assert_no_new_grandchildren(before, timeout=20):
    """Every grandchild started since ``before`` (:func:`grandchildren`) has ended."""
    if before is None:
        return
    deadline = time.monotonic() + timeout
    while (new := grandchildren() - before):
        assert time.monotonic() < deadline, f"worker processes left running: {sorted(new)}"
        time.sleep(0.1)
