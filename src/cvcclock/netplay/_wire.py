"""The datagram: a fixed header, a JSON body and a truncated HMAC-SHA256 tag.

Layout (network byte order)::

    magic "cn" | version 1 | kind | sender id (8) | receiver id (8) | sequence (8) |
    body (compact JSON object) | tag: HMAC-SHA256(session_key, all before)[:16]

The ids are each session's random 64-bit id: a datagram of another match, or of an earlier
session under the same key, carries other ids and is dropped. The sequence number counts
the sender's datagrams; a receiver keeps the highest seen and a 64-wide window below it,
so a duplicate or replayed datagram is dropped. Nothing is parsed before the tag checks.
"""

from __future__ import annotations

import hmac
import json
import struct
from typing import Any

__all__ = ["HEADER", "INPUT", "KINDS", "MAX_DATAGRAM", "OVERHEAD", "SYNC_REPLY", "SYNC_REQUEST",
           "TAG", "DropReason", "ReplayWindow", "open_datagram", "parse_body", "seal"]

HEADER = struct.Struct("!2sBBQQQ")
MAGIC = b"cn"
VERSION = 1
TAG = 16
MAX_DATAGRAM = 1200
SYNC_REQUEST, SYNC_REPLY, INPUT = 1, 2, 3
KINDS = (SYNC_REQUEST, SYNC_REPLY, INPUT)
WINDOW = 64
OVERHEAD = HEADER.size + TAG


class DropReason(Exception):
    """Why a datagram was dropped (the reason is ``args[0]``, a stats key)."""


def seal(key: bytes, kind: int, sender: int, receiver: int, seq: int, body: bytes) -> bytes:
    """One datagram: the header, the body (compact JSON, ASCII), the tag."""
    data = HEADER.pack(MAGIC, VERSION, kind, sender, receiver, seq) + body
    return data + hmac.digest(key, data, "sha256")[:TAG]


def open_datagram(key: bytes, data: bytes) -> tuple[int, int, int, int, bytes]:
    """``(kind, sender, receiver, seq, body bytes)`` of an authentic datagram, or
    :class:`DropReason` (oversize, malformed, bad_tag). The body is not yet parsed."""
    if len(data) > MAX_DATAGRAM:
        raise DropReason("oversize")
    if len(data) < HEADER.size + TAG:
        raise DropReason("malformed")
    magic, version, kind, sender, receiver, seq = HEADER.unpack_from(data)
    if magic != MAGIC or version != VERSION or kind not in KINDS:
        raise DropReason("malformed")
    if not hmac.compare_digest(hmac.digest(key, data[:-TAG], "sha256")[:TAG], data[-TAG:]):
        raise DropReason("bad_tag")
    return kind, sender, receiver, seq, data[HEADER.size:-TAG]


def parse_body(body: bytes) -> dict[str, Any]:
    """The body's JSON object, or :class:`DropReason` ("malformed")."""
    try:
        obj = json.loads(body)
    except (ValueError, RecursionError):
        raise DropReason("malformed") from None
    if not isinstance(obj, dict):
        raise DropReason("malformed")
    return obj


class ReplayWindow:
    """The sequence numbers seen from one sender: the highest and a bitmap of the 64 below."""

    def __init__(self) -> None:
        self.highest = -1
        self.bits = 0

    def fresh(self, seq: int) -> bool:
        """Whether ``seq`` has not been seen (and is not too old to tell)."""
        back = self.highest - seq
        return back < 0 or (back < WINDOW and not self.bits >> back & 1)

    def accept(self, seq: int) -> bool:
        """Whether ``seq`` is new (then it is marked seen)."""
        if seq > self.highest:
            shift = seq - self.highest
            self.bits = ((self.bits << shift) | 1) & ((1 << WINDOW) - 1) if shift < WINDOW else 1
            self.highest = seq
            return True
        back = self.highest - seq
        if back >= WINDOW or self.bits >> back & 1:
            return False
        self.bits |= 1 << back
        return True
