"""A batch's progress: a tqdm bar on a terminal, a callback of the caller's, or nothing."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["ProgressCallback", "Reporter", "reporter"]

ProgressCallback = Callable[[int, int, int], object]
"""``progress(done, total, failed)``: called as chunks of runs complete (and once at the start,
counting the seeds a results file already held). Raising from it stops the batch."""


class Reporter:
    """Reports ``(done, total, failed)`` to a callback; closing it closes the bar, if any."""

    def __init__(self, report: ProgressCallback, close: Callable[[], object] | None = None) -> None:
        self._report = report
        self._close = close

    def __call__(self, done: int, total: int, failed: int) -> None:
        self._report(done, total, failed)

    def close(self) -> None:
        """End the report (a bar prints its last state)."""
        if self._close is not None:
            self._close()


def _silent(done: int, total: int, failed: int) -> None:
    pass


def reporter(progress: bool | ProgressCallback | None) -> Reporter:
    """What ``simulate_many``'s ``progress`` argument asks for.

    Parameters
    ----------
    progress : bool, callable or None
        None: a tqdm bar on stdout if stdout is a terminal and tqdm is installed, else
        nothing; True: a bar in any case (ImportError without tqdm); False: nothing;
        a callable: ``progress(done, total, failed)``.

    Returns
    -------
    Reporter

    Raises
    ------
    TypeError
        If ``progress`` is none of these.
    ImportError
        If ``progress`` is True and tqdm is not installed.
    """
    if progress is None:
        if not _stdout_is_terminal():
            return Reporter(_silent)
        try:
            return _bar()
        except ImportError:
            return Reporter(_silent)
    if progress is True:
        return _bar()
    if progress is False:
        return Reporter(_silent)
    if callable(progress):
        return Reporter(progress)
    raise TypeError(f"progress must be None, a bool or a callable progress(done, total, failed), "
                    f"got {progress!r}")


def _stdout_is_terminal() -> bool:
    try:
        return sys.stdout is not None and sys.stdout.isatty()
    except (AttributeError, ValueError):        # replaced by an object without isatty, or closed
        return False


def _bar() -> Reporter:
    try:
        tqdm = importlib.import_module("tqdm").tqdm   # optional, and typed Any: no stubs needed
    except ImportError as e:
        raise ImportError(
            "progress=True draws a tqdm bar: pip install tqdm (or 'cvcclock[dask]')") from e
    bar: Any = None

    def report(done: int, total: int, failed: int) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(total=total, initial=done, unit="run", desc="simulate_many", file=sys.stdout,
                       dynamic_ncols=True)
        else:
            bar.update(done - bar.n)
        bar.set_postfix(failed=failed, refresh=False)

    def close() -> None:
        if bar is not None:
            bar.close()
    return Reporter(report, close)
