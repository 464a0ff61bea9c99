"""What a session tells its host: events, the desync error and the statistics."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

__all__ = ["DesyncError", "Disconnected", "Event", "NetworkInterrupted", "NetworkResumed",
           "PeerStats", "SessionStats", "Synchronized", "Desync", "first_difference"]


@dataclasses.dataclass(frozen=True)
class Synchronized:
    """Every peer answered: the match starts, frame 0 runs at the next due step."""


@dataclasses.dataclass(frozen=True)
class Desync:
    """The confirmed state of ``frame`` hashes differently here and at ``peer``.

    Attributes
    ----------
    frame : int
        The frame (from 0) after whose step the two states differ: the first exchanged
        frame at which they were compared and found apart.
    local_hash, remote_hash : str
        This peer's and the other peer's state hash.
    peer : int
        The other peer's player number.
    """

    frame: int
    local_hash: str
    remote_hash: str
    peer: int


@dataclasses.dataclass(frozen=True)
class NetworkInterrupted:
    """Nothing valid has come from ``peer`` for ``silent_for`` seconds (a quarter of
    ``disconnect_timeout``); the session goes on predicting its inputs."""

    peer: int
    silent_for: float


@dataclasses.dataclass(frozen=True)
class NetworkResumed:
    """``peer`` is heard from again after a :class:`NetworkInterrupted`."""

    peer: int


@dataclasses.dataclass(frozen=True)
class Disconnected:
    """Nothing valid came from ``peer`` for ``disconnect_timeout`` seconds: from the frame
    after its last input the session gives the world ``None`` for it, and stops waiting."""

    peer: int


Event = Synchronized | Desync | NetworkInterrupted | NetworkResumed | Disconnected


class DesyncError(Exception):
    """A SyncTest re-simulation gave another state than the first run: the world is not
    rollback-safe (it reads something its snapshot does not hold).

    Attributes
    ----------
    frame : int
        The first frame whose re-simulated state differs.
    first_hash, second_hash : str
        The state hash of the first run and of the re-simulation.
    field : str or None
        The first differing field when the snapshots are dicts or dataclasses.
    """

    def __init__(self, frame: int, first_hash: str, second_hash: str,
                 field: str | None = None, what: str = "re-simulated") -> None:
        where = f" (first differing field: {field})" if field is not None else ""
        super().__init__(f"frame {frame} {what} to another state: state hash {first_hash} "
                         f"first, {second_hash} then{where}")
        self.frame = frame
        self.first_hash = first_hash
        self.second_hash = second_hash
        self.field = field


def first_difference(a: Any, b: Any) -> str | None:
    """The first field (key or dataclass field, in order) where snapshots ``a`` and ``b``
    differ, or None when they are not both dicts or both dataclasses."""
    if dataclasses.is_dataclass(a) and dataclasses.is_dataclass(b) \
            and not isinstance(a, type) and not isinstance(b, type):
        for f in dataclasses.fields(a):
            if getattr(a, f.name, None) != getattr(b, f.name, None):
                return f.name
        return None
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b or a[key] != b[key]:
                return repr(key) if not isinstance(key, str) else key
    return None


@dataclasses.dataclass(frozen=True)
class PeerStats:
    """One remote peer, as a :class:`P2PSession` sees it.

    Attributes
    ----------
    rtt : float or None
        The round-trip time in seconds (smoothed), None before the first measure.
    frames_ahead : float
        How many frames this peer runs ahead of that one (negative: behind), smoothed, as
        time sync balances it.
    received_frame : int
        Its last input frame received in order (-1: none).
    acked_frame : int
        The last of this peer's input frames it has acknowledged (-1: none).
    connected : bool
        False once :class:`Disconnected` was reported.
    """

    rtt: float | None
    frames_ahead: float
    received_frame: int
    acked_frame: int
    connected: bool


@dataclasses.dataclass(frozen=True)
class SessionStats:
    """A session's counters, from ``stats()``.

    Attributes
    ----------
    frame : int
        The frames run so far (the next frame's number).
    confirmed_frame : int
        The last frame whose every input is confirmed and whose state is final (-1: none).
    rollbacks : int
        Rollbacks (a restore followed by re-simulation).
    frames_resimulated : int
        Frames run again by those rollbacks.
    stalled : int
        Due steps that ran no frame because the session was ``max_prediction`` frames ahead
        (dropped by prediction; the clock's tick is never skipped).
    scale_nudge : float
        The time sync's current relative change of the clock's scale, within ±0.05.
    sent, received : int
        Datagrams sent, and valid datagrams received.
    dropped : mapping of str to int
        Datagrams dropped, by reason: ``oversize``, ``unknown_address``, ``malformed``,
        ``bad_tag``, ``wrong_session``, ``replayed``, ``unsynchronized``.
    peers : mapping of int to PeerStats
        Each remote player's link.
    """

    frame: int
    confirmed_frame: int
    rollbacks: int
    frames_resimulated: int
    stalled: int
    scale_nudge: float
    sent: int
    received: int
    dropped: Mapping[str, int]
    peers: Mapping[int, PeerStats]
