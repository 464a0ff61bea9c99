"""A batch's results file: JSON Lines, appended as runs complete, resumable after any crash.

One line per seed, in the order runs completed (the format is in
:mod:`cvcclock.batch._records`). JSON Lines rather than Parquet parts: a line is
appended and flushed the moment its run is back, needs nothing outside the standard
library, and a crash mid-write leaves at most one partial last line, where a Parquet part
is unreadable until its footer is written; nested and arbitrary record values are plain
JSON, where Parquet wants one schema for every run.

Durability: each completed chunk of runs is written with one ``write`` and flushed, so a
crash of the process (SIGKILL, an OOM kill) loses nothing already back from the workers;
``fsync`` runs at most once a second and when the file is closed, so an operating-system
crash or a power cut loses at most about a second of runs, which a rerun redoes.

Reading: :func:`read_results` skips a partial last line. ``pandas.read_json(path,
lines=True)`` reads a complete file (one row per seed, nested values as dicts and lists,
tagged values as their ``{"$...": ...}`` objects) but raises on a partial last line: after
a crash, read with :func:`read_results` or rerun the batch, which removes the partial line.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from typing import IO, NamedTuple

from cvcclock.batch._records import (
    BatchResult,
    FailedRun,
    RecordHead,
    decode_record,
    read_head,
)
from cvcclock.checks import check_path

try:
    import fcntl
except ImportError:         # Windows: no advisory lock, one batch per file is up to the user
    fcntl = None  # type: ignore[assignment]

__all__ = ["FSYNC_INTERVAL", "ResultsFile", "read_results"]

FSYNC_INTERVAL = 1.0
"""Seconds between ``fsync`` calls while a batch appends."""

_RECORD_START = b'{"seed":'


class _Entry(NamedTuple):
    head: RecordHead
    offset: int
    length: int


class _Scan(NamedTuple):
    entries: list[_Entry]
    end: int                # where the complete records end: a partial last line starts here


def _scan(f: IO[bytes], path: str) -> _Scan:
    """Every complete record's head and place; a partial last line is left out.

    A line that is not a record is an error unless it is the last and looks like the start
    of one cut short (or is blank, or NUL bytes a crashed file system left): never treat
    someone else's file as a torn results file.
    """
    entries: list[_Entry] = []
    seen: dict[int, int] = {}
    offset = 0
    torn: tuple[int, int] | None = None         # (line number, offset) of a line that is not whole
    for number, line in enumerate(f, 1):
        if torn is not None:
            raise ValueError(
                f"{path}, line {torn[0]}: not a results record (and more lines follow it)")
        head = read_head(line) if line.endswith(b"\n") else None
        if head is None:
            if not _may_be_torn(line):
                raise ValueError(
                    f"{path}, line {number}: not a cvcclock results record: {line[:60]!r}")
            torn = (number, offset)
        else:
            if head.seed in seen:
                raise ValueError(f"{path}: seed {head.seed} is recorded twice, "
                                 f"on lines {seen[head.seed]} and {number}")
            seen[head.seed] = number
            entries.append(_Entry(head, offset, len(line)))
        offset += len(line)
    if torn is not None:
        return _Scan(entries, torn[1])
    if entries:     # a newline may end a torn write too: check that the last line is JSON
        last = entries[-1]
        f.seek(last.offset)
        try:
            json.loads(f.read(last.length))
        except json.JSONDecodeError:
            entries.pop()
            return _Scan(entries, last.offset)
    return _Scan(entries, offset)


def _may_be_torn(line: bytes) -> bool:
    body = line.rstrip(b"\n")
    if not body.strip(b"\0"):
        return True
    n = min(len(body), len(_RECORD_START))
    return body[:n] == _RECORD_START[:n]


def read_results(path: str | os.PathLike[str]) -> list[BatchResult]:
    """Every result in a results file, in ascending seed order; a partial last line is skipped.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by ``simulate_many(..., out=path)``.

    Returns
    -------
    list of SimulationResult or FailedRun
        Each equal (``==``) to what the batch yielded for its seed.

    Raises
    ------
    ValueError
        If a line other than the last is not a results record, or a seed is recorded
        twice.
    """
    name = check_path(path, "path")
    with open(name, "rb") as f:
        entries = sorted(_scan(f, name).entries, key=lambda e: e.head.seed)
        results = []
        for entry in entries:
            f.seek(entry.offset)
            results.append(decode_record(f.read(entry.length)))
    return results


class ResultsFile:
    """A batch's results file, open for appending; the records already in it are indexed.

    Opening removes a partial last line left by a crash and holds an exclusive advisory
    lock (on POSIX) so that two batches never append to one file.

    Parameters
    ----------
    path : str or os.PathLike
        Created if missing.
    scenario : str
        The batch's ``"module:QualifiedName"``.
    options : str
        The JSON text of its ``simulate`` options, as every record writes it.

    Attributes
    ----------
    path : str

    Raises
    ------
    ValueError
        If the file holds records of another scenario or other options, or is not a
        results file.
    RuntimeError
        If another batch has the file open.
    """

    def __init__(self, path: str | os.PathLike[str], scenario: str, options: str) -> None:
        self.path = os.fspath(path)
        self._append = open(self.path, "ab")
        self._read: IO[bytes] | None = None
        try:
            self._lock()
            self._index, self._end = self._load(scenario, options)
            # Unbuffered: a buffer could still hold the bytes of a partial line cut off.
            self._read = open(self.path, "rb", buffering=0)
        except BaseException:
            self.close()
            raise
        self._head = (scenario, options)
        self._synced_at = time.monotonic()

    def _lock(self) -> None:
        if fcntl is None:
            return
        try:
            fcntl.flock(self._append.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RuntimeError(f"{self.path} is being written by another batch; wait for it, "
                               f"or give this batch another out file") from None

    def _load(self, scenario: str, options: str) -> tuple[dict[int, _Entry], int]:
        with open(self.path, "rb") as f:
            scan = _scan(f, self.path)
        for entry in scan.entries:
            head = entry.head
            if head.scenario != scenario or head.options != options:
                raise ValueError(
                    f"{self.path} holds results of scenario {head.scenario} "
                    f"with options {head.options} (seed {head.seed}); "
                    f"this batch runs {scenario} with {options}: give it another out file")
        if scan.end < os.fstat(self._append.fileno()).st_size:
            # the partial line a crash left: its seed is redone
            self._append.truncate(scan.end)
        return {entry.head.seed: entry for entry in scan.entries}, scan.end

    def __contains__(self, seed: object) -> bool:
        return seed in self._index

    def failed(self, seed: int) -> bool:
        """Whether the recorded run of ``seed`` failed."""
        return self._index[seed].head.failed

    def read(self, seed: int) -> BatchResult:
        """The recorded result of ``seed``."""
        assert self._read is not None
        entry = self._index[seed]
        self._read.seek(entry.offset)
        return decode_record(self._read.read(entry.length))

    def append(self, results: Sequence[BatchResult], lines: Sequence[str]) -> None:
        """Append the results' lines with one ``write``, flushed at once (``fsync``: see the
        module doc).

        Parameters
        ----------
        results : sequence of SimulationResult or FailedRun
        lines : sequence of str
            Their records, without line ends.
        """
        data = [(line + "\n").encode() for line in lines]
        self._append.write(b"".join(data))
        self._append.flush()
        scenario, options = self._head
        for result, line in zip(results, data, strict=False):
            head = RecordHead(result.seed, isinstance(result, FailedRun), scenario, options)
            self._index[result.seed] = _Entry(head, self._end, len(line))
            self._end += len(line)
        if time.monotonic() - self._synced_at >= FSYNC_INTERVAL:
            self._sync()

    def _sync(self) -> None:
        os.fsync(self._append.fileno())
        self._synced_at = time.monotonic()

    def close(self) -> None:
        """Flush, ``fsync``, unlock and close; closing twice does nothing."""
        if self._read is not None:
            self._read.close()
        if self._append.closed:
            return
        try:
            self._append.flush()
            self._sync()
        finally:
            self._append.close()       # closing the descriptor releases the lock
