"""What the batch tests share: a bound on every test, and a warm pool per module."""

from __future__ import annotations

import concurrent.futures as cf
import faulthandler
import multiprocessing

import pytest

START_METHOD = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


@pytest.fixture(autouse=True)
def watchdog():
    """No test here may hang: after 120 s the process dumps every thread's stack and exits
    (a module may bound its tests otherwise, with a fixture of this name)."""
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="module")
def pool():
    """A pool shared by a module's tests that do not kill workers (it saves start-ups); those
    that do use simulate_many's own pool, which it replaces when a worker dies."""
    with cf.ProcessPoolExecutor(
        2, mp_context=multiprocessing.get_context(START_METHOD)
    ) as executor:
        yield executor
