"""What every command does with its output: a reader may leave early; stdout may be ascii."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator

__all__ = ["encode_what_stdout_can", "reader_may_leave"]


@contextlib.contextmanager
def reader_may_leave(status: int) -> Iterator[None]:
    """Print inside the block; if the reader has gone, end quietly with exit ``status``.

    Python ignores SIGPIPE, so a closed pipe is a ``BrokenPipeError`` on a write or on the
    flush at exit. Flushing here makes it show inside the block; stdout is then pointed at
    os.devnull so the flush Python makes at exit cannot fail again (the recipe of the Python
    docs' note on SIGPIPE).
    """
    try:
        try:
            yield
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(status) from None


def encode_what_stdout_can(stream: object) -> None:
    """Replace, rather than raise on, a character stdout's encoding lacks (an ascii locale)."""
    if isinstance(stream, io.TextIOWrapper):
        stream.reconfigure(errors="replace")
