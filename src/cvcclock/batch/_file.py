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

Parts: while a batch runs, its workers write each chunk's lines themselves, into a file of their
own (a *part*) in a staging directory beside the results file (``.NAME.<token>.parts``), and
send back only what is kept; the batch copies a part into the results file, with one
``write``, when its chunk's outcome is in, and deletes it. So the one-line-per-seed rule and
every guarantee above stay the results file's alone: a part of a chunk that was lost, or
whose batch crashed, is never copied, and the next batch to open the file deletes what a
crash left of its staging directory. A worker that cannot see the directory (a Dask worker
on another host), or any worker when none can be made beside the file, sends its lines
back instead, and the parent writes them. A part's path comes from a worker, so the batch
reads and deletes only files in its own staging directory.

Damage: every line is checked when a batch opens the file or :func:`read_results` reads
it: its head, and its checksum, a CRC-32 that finds a flipped byte anywhere in it (1.6 s
for 10,000 lines of the README's scenario, 18 KB each, on this project's machine). A
damaged line other than the last is an error naming the file and the line;
:func:`repair_results` (the ``batch`` command's ``--repair``) moves such lines into
``PATH.rejected`` and keeps the rest, and the next batch runs their seeds again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import glob
import os
import shutil
import time
import uuid
from collections.abc import Sequence
from typing import IO, NamedTuple

from cvcclock.batch._records import (
    BatchKey,
    BatchResult,
    FailedRun,
    RecordHead,
    check_line,
    decode_record,
    read_head,
)
from cvcclock.checks import check_path

try:
    import fcntl
except ImportError:         # Windows: no advisory lock, one batch per file is up to the user
    fcntl = None  # type: ignore[assignment]

__all__ = ["FSYNC_INTERVAL", "Part", "Repair", "ResultsFile", "read_results", "repair_results",
           "write_part"]

FSYNC_INTERVAL = 1.0
"""Seconds between ``fsync`` calls while a batch appends."""

_RECORD_START = b'{"seed":'


class _Entry(NamedTuple):
    head: RecordHead
    offset: int
    length: int
    number: int             # the line's number, from 1


class _Place(NamedTuple):
    """Where a seed's record is, and whether its run failed: a batch's index of its file."""

    failed: bool
    offset: int
    length: int
    number: int


class _Bad(NamedTuple):
    number: int
    offset: int
    length: int
    why: str


class _Scan(NamedTuple):
    entries: list[_Entry]
    bad: list[_Bad]         # damaged lines, and a seed's lines after its first
    torn: _Bad | None       # a partial last line
    end: int                # where the records end: a partial last line starts here


# -- phase 1: every line checked ---------------------------------------------------------------


def _scan(f: IO[bytes]) -> _Scan:
    """Every record's head and place, every damaged line, and where a partial last line starts.

    The last line is partial (a crash cut it) when it has no line end, or is a record cut
    short, or is blank or NUL bytes (which a crashed file system leaves). Any other line
    that is not a whole, undamaged record is bad: never take someone else's file, or a
    damaged one, for a torn results file.
    """
    entries: list[_Entry] = []
    bad: list[_Bad] = []
    seen: dict[int, int] = {}
    offset = number = 0
    for number, line in enumerate(f, 1):
        why = check_line(line) if line.endswith(b"\n") else "no line end"
        head = read_head(line) if why is None else None
        if head is not None and head.seed in seen:
            why = f"seed {head.seed} is recorded twice, on lines {seen[head.seed]} and {number}"
        if why is None:
            assert head is not None
            seen[head.seed] = number
            entries.append(_Entry(head, offset, len(line), number))
        else:
            bad.append(_Bad(number, offset, len(line), why))
        offset += len(line)
    torn = None
    if bad and bad[-1].number == number and _may_be_torn(f, bad[-1]):
        torn = bad.pop()
    return _Scan(entries, bad, torn, offset if torn is None else torn.offset)


def _may_be_torn(f: IO[bytes], last: _Bad) -> bool:
    f.seek(last.offset)
    body = f.read(last.length).rstrip(b"\n")
    if not body.strip(b"\0"):
        return True
    n = min(len(body), len(_RECORD_START))
    return body[:n] == _RECORD_START[:n] and not last.why.startswith("seed ")


def _damaged(path: str, bad: _Bad, after: str = "") -> ValueError:
    return ValueError(
        f"{path}, line {bad.number}: a damaged results record ({bad.why}){after}; "
        f"repair_results({path!r}) (the batch command's --repair) moves the damaged lines "
        f"to {path}.rejected, and the next batch runs their seeds again")


def _checked(path: str, f: IO[bytes]) -> _Scan:
    scan = _scan(f)
    if scan.bad and not scan.entries:       # someone else's file: nothing to repair
        first = scan.bad[0]
        f.seek(first.offset)
        raise ValueError(f"{path}, line {first.number}: not a cvcclock results record: "
                         f"{f.read(first.length)[:60]!r}")
    if scan.bad:
        more = len(scan.bad) - 1
        raise _damaged(path, scan.bad[0], f" and {more} more" if more else "")
    return scan


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
        If a line other than the last is not an undamaged results record, or a seed is
        recorded twice: naming the file and the line (:func:`repair_results` moves such
        lines aside).
    """
    name = check_path(path, "path")
    with open(name, "rb") as f:
        entries = sorted(_checked(name, f).entries, key=lambda e: e.head.seed)
        return [_decoded(name, f, entry) for entry in entries]


def _decoded(path: str, f: IO[bytes], entry: _Entry | _Place) -> BatchResult:
    f.seek(entry.offset)
    try:
        return decode_record(f.read(entry.length))
    except Exception as e:
        raise _damaged(path, _Bad(entry.number, entry.offset, entry.length,
                                  f"{type(e).__name__}: {e}")) from e


# -- phase 2: repair -----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Repair:
    """What :func:`repair_results` did.

    Attributes
    ----------
    rejected : str
        The file the bad lines were appended to (``PATH.rejected``).
    lines : tuple of (int, str)
        The number of each line moved there, and what was wrong with it.
    kept : int
        The records left in the file.
    """

    rejected: str
    lines: tuple[tuple[int, str], ...]
    kept: int


def repair_results(path: str | os.PathLike[str]) -> Repair:
    """Move a results file's damaged lines into ``PATH.rejected``; keep the rest.

    A line is damaged if it is not a whole results record (its checksum says whether a byte
    of it changed) or repeats a seed recorded above it; a partial last line, which a crash
    leaves and a batch removes by itself, is moved too. The file is rewritten in place,
    under the lock a batch takes (one that is writing it makes this refuse), and the next
    batch with this ``out`` runs the rejected seeds again.

    Parameters
    ----------
    path : str or os.PathLike
        A results file.

    Returns
    -------
    Repair

    Raises
    ------
    ValueError
        If the file holds no results record at all: it is not a results file, and
        nothing is moved.
    RuntimeError
        If a batch is writing the file.
    OSError
        If it cannot be read or written.
    """
    name = check_path(path, "path")
    rejected = name + ".rejected"
    with open(name, "r+b") as f:
        _lock(f, name)
        scan = _scan(f)
        moved = scan.bad + ([] if scan.torn is None else [scan.torn._replace(why="cut short")])
        if not moved:
            return Repair(rejected, (), len(scan.entries))
        if not scan.entries:
            raise ValueError(f"{name} holds no cvcclock results record: not repaired")
        f.seek(0)
        data = f.read()
        with open(rejected, "ab") as aside:
            aside.write(b"".join(_line_end(data[b.offset:b.offset + b.length]) for b in moved))
            aside.flush()
            os.fsync(aside.fileno())
        kept = b"".join(data[e.offset:e.offset + e.length] for e in scan.entries)
        f.seek(0)
        f.write(kept)
        f.truncate()
        f.flush()
        os.fsync(f.fileno())
    return Repair(rejected, tuple((b.number, b.why) for b in moved), len(scan.entries))


def _line_end(line: bytes) -> bytes:
    return line if line.endswith(b"\n") else line + b"\n"


def _lock(f: IO[bytes], path: str) -> None:
    if fcntl is None:
        return
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise RuntimeError(f"{path} is being written by another batch; wait for it, "
                           f"or give this batch another out file") from None


# -- phase 3: parts, the workers' lines on their way in ------------------------------------------


class Part(NamedTuple):
    """A chunk's lines, as its worker wrote them to the batch's staging directory."""

    path: str
    lengths: tuple[int, ...]
    """Each line's length in bytes, its line end included, in seed order."""


def write_part(directory: str, lines: Sequence[bytes]) -> Part | None:
    """Write a chunk's lines into a new file of ``directory``, with one ``write``.

    Parameters
    ----------
    directory : str
        The batch's staging directory (:attr:`ResultsFile.staging`).
    lines : sequence of bytes
        The chunk's records, each with its line end.

    Returns
    -------
    Part or None
        None when this process cannot write there (a worker on another host, which does not
        see the directory, or one the batch closed): the lines then travel with the results.
    """
    path = os.path.join(directory, f"{os.getpid()}-{uuid.uuid4().hex}.part")
    try:
        with open(path, "xb") as f:
            f.write(b"".join(lines))
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(path)
        return None
    return Part(path, tuple(len(line) for line in lines))


def _staging_directories(path: str) -> list[str]:
    head, name = os.path.split(path)
    return glob.glob(os.path.join(glob.escape(head), f".{glob.escape(name)}.*.parts"))


def _new_staging(path: str) -> str | None:
    """A fresh staging directory for ``path``'s batch, or None if none can be made there (the
    workers then send their lines back); what a crashed batch left is deleted (the caller
    holds the file's lock, so no batch is using it)."""
    for old in _staging_directories(path):
        shutil.rmtree(old, ignore_errors=True)
    head, name = os.path.split(path)
    staging = os.path.join(head, f".{name}.{uuid.uuid4().hex[:16]}.parts")
    try:
        os.mkdir(staging, 0o700)
    except OSError:
        return None
    return staging


# -- phase 4: a batch's file ----------------------------------------------------------------------


class ResultsFile:
    """A batch's results file, open for appending; the records already in it are indexed.

    Opening checks every line, removes a partial last line left by a crash and holds an
    exclusive advisory lock (on POSIX) so that two batches never append to one file.

    Parameters
    ----------
    path : str or os.PathLike
        Created if missing.
    key : BatchKey
        What decides the batch's runs: every record in the file must have been written
        with an equal one.

    Attributes
    ----------
    path : str
    staging : str or None
        The directory the workers write their parts to (:func:`write_part`), an absolute
        path, deleted on close; None if none could be made beside the file.

    Raises
    ------
    ValueError
        If the file holds records of a batch with another key (naming what differs), is
        damaged (naming the line), or is not a results file.
    RuntimeError
        If another batch has the file open.
    """

    def __init__(self, path: str | os.PathLike[str], key: BatchKey) -> None:
        self.path = os.fspath(path)
        self._append = open(self.path, "ab")
        self._read: IO[bytes] | None = None
        self._key = key
        self.staging: str | None = None
        try:
            _lock(self._append, self.path)
            self._index, self._end = self._load()
            self.staging = _new_staging(os.path.abspath(self.path))
            # Unbuffered: a buffer could still hold the bytes of a partial line cut off.
            self._read = open(self.path, "rb", buffering=0)
        except BaseException:
            self.close()
            raise
        self._numbers = max((e.number for e in self._index.values()), default=0)
        self._synced_at = time.monotonic()

    def _load(self) -> tuple[dict[int, _Place], int]:
        with open(self.path, "rb") as f:
            scan = _checked(self.path, f)
        checked: set[tuple[str, str, str | None]] = set()
        for entry in scan.entries:
            head = entry.head
            if (head.scenario, head.options, head.key) in checked:
                continue        # one head text is compared once, not once per line
            differences = self._key.differences(head)
            if differences:
                raise ValueError(
                    f"{self.path} holds results of another batch (line {entry.number}, seed "
                    f"{head.seed}): {'; '.join(differences)}. Give this batch another out "
                    "file, or run it as that one was")
            checked.add((head.scenario, head.options, head.key))
        if scan.end < os.fstat(self._append.fileno()).st_size:
            # the partial line a crash left: its seed is redone
            self._append.truncate(scan.end)
        return {entry.head.seed: _Place(entry.head.failed, entry.offset, entry.length, entry.number)
                for entry in scan.entries}, scan.end

    def __contains__(self, seed: object) -> bool:
        return seed in self._index

    def failed(self, seed: int) -> bool:
        """Whether the recorded run of ``seed`` failed."""
        return self._index[seed].failed

    def read(self, seed: int) -> BatchResult:
        """The recorded result of ``seed``.

        Raises
        ------
        ValueError
            If its line cannot be decoded, naming the file and the line.
        """
        assert self._read is not None
        return _decoded(self.path, self._read, self._index[seed])

    def append(self, results: Sequence[BatchResult], lines: Sequence[bytes]) -> None:
        """Append the results' lines with one ``write``, flushed at once (``fsync``: see the
        module doc).

        Parameters
        ----------
        results : sequence of SimulationResult or FailedRun
        lines : sequence of bytes
            Their records as the workers made them: UTF-8, each with its line end.
        """
        self._append.write(b"".join(lines))
        self._append.flush()
        self._indexed(results, [len(line) for line in lines])

    def append_part(self, results: Sequence[BatchResult], part: Part) -> bool:
        """Append a part's bytes with one ``write``, flushed at once, and delete it.

        (Measured on ext4: reading a part and writing it costs 0.7 of what
        ``os.copy_file_range`` does, which copies page by page.)

        Parameters
        ----------
        results : sequence of SimulationResult or FailedRun
            The part's results, in its lines' order.
        part : Part

        Returns
        -------
        bool
            False, and nothing appended, if the part is missing or not as its worker said.
        """
        data = self._part_bytes(part)
        if data is None or len(results) != len(part.lengths):
            return False
        self._append.write(data)
        self._append.flush()
        self._indexed(results, part.lengths)
        return True

    def discard(self, part: Part) -> None:
        """Delete a part of this file's staging directory (its chunk runs again)."""
        if self._owns(part):
            with contextlib.suppress(OSError):
                os.unlink(part.path)

    def _owns(self, part: Part) -> bool:
        # A part's path comes from a worker: never read or delete a file elsewhere.
        return self.staging is not None and os.path.dirname(part.path) == self.staging

    def _part_bytes(self, part: Part) -> bytes | None:
        if not self._owns(part):
            return None
        try:
            with open(part.path, "rb") as f:
                data = f.read()
        except OSError:
            return None
        finally:
            self.discard(part)
        return data if len(data) == sum(part.lengths) else None

    def _indexed(self, results: Sequence[BatchResult], lengths: Sequence[int]) -> None:
        index, end, number = self._index, self._end, self._numbers
        for result, length in zip(results, lengths, strict=True):
            number += 1
            index[result.seed] = _Place(isinstance(result, FailedRun), end, length, number)
            end += length
        self._end, self._numbers = end, number
        if time.monotonic() - self._synced_at >= FSYNC_INTERVAL:
            self._sync()

    def _sync(self) -> None:
        os.fsync(self._append.fileno())
        self._synced_at = time.monotonic()

    def close(self) -> None:
        """Flush, ``fsync``, delete the staging directory, unlock and close; closing twice
        does nothing."""
        if self._read is not None:
            self._read.close()
        if self.staging is not None:
            # A worker still running a cancelled chunk may write one more part meanwhile:
            # then the directory stays, and the next batch deletes it.
            shutil.rmtree(self.staging, ignore_errors=True)
        if self._append.closed:
            return
        try:
            self._append.flush()
            self._sync()
        finally:
            self._append.close()       # closing the descriptor releases the lock
