"""A batch's progress: on a terminal a tqdm bar (or a plain line without tqdm), a callback of
the caller's, or nothing."""

from __future__ import annotations

import importlib
import math
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from cvcclock._extras import install_hint

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
        None: if stdout is a terminal, a tqdm bar on it, or without tqdm a plain line
        rewritten in place (done/total, failed, rate, time left); off a terminal nothing.
        True: a tqdm bar in any case (ImportError without tqdm); False: nothing; a
        callable: ``progress(done, total, failed)``.

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
            return _line(sys.stdout)
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
            f"progress=True draws a tqdm bar: pip install tqdm, or {install_hint('dask')}"
        ) from e
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


def _line(stream: TextIO, clock: Callable[[], float] = time.monotonic) -> Reporter:
    """A plain line on ``stream``, rewritten in place with ``\\r``, ended at close."""
    start: tuple[float, int] | None = None     # when the first report came, and its done count
    width = 0

    def report(done: int, total: int, failed: int) -> None:
        nonlocal start, width
        now = clock()
        if start is None:
            start = (now, done)       # runs a results file already held are not this rate's
        seconds, ran = now - start[0], done - start[1]
        rate = ran / seconds if seconds > 0 and ran else 0.0
        eta = _duration((total - done) / rate) if rate else "?"
        text = (f"simulate_many: {done}/{total} runs, {failed} failed, "
                f"{rate:.1f} runs/s, {eta} left")
        # Pad over a longer line drawn before, so none of it shows after the new one.
        stream.write("\r" + text.ljust(width))
        stream.flush()
        width = len(text)

    def close() -> None:
        if start is not None:
            stream.write("\n")
            stream.flush()
    return Reporter(report, close)


def _duration(seconds: float) -> str:
    """``1:02:03``, ``2:03`` or ``3s``."""
    whole = math.ceil(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}" if minutes else f"{secs}s"
