"""Rollback netplay: a SyncTest session and a peer-to-peer session over UDP.

GGPO-style rollback on the replay machinery. One game frame is one step of a follower of
``dt`` on the clock, numbered from 0; the world is the :class:`cvcclock.replay.World`
protocol, and before each frame's ``step`` it receives ``apply("p0", value)``,
``apply("p1", value)``, ... (``None`` for a player without an input). The host's frame is
``session.add_local_input(value)``, ``clock.advance(wall_dt)``, ``session.pump()``.

- :class:`SyncTestSession` proves a world rollback-safe offline: every frame it rolls back
  and re-simulates, and a state that differs raises :class:`DesyncError`.
- :class:`P2PSession` plays against peers over UDP: it predicts missing remote inputs,
  rolls back and re-simulates when a confirmed one differs, stalls at ``max_prediction``,
  exchanges state hashes of confirmed frames, nudges the clock's ``scale`` (within ±5 %)
  to keep level with its peers, and writes the match as a cvcclock trace (``trace()``).
  ``events()`` yields :class:`Synchronized`, :class:`Desync`, :class:`NetworkInterrupted`,
  :class:`NetworkResumed` and :class:`Disconnected`; ``stats()`` the counters.
- :class:`LossyRelay` forwards two peers' datagrams with delay, jitter, loss and
  duplicates, to try a match on a bad network; :class:`Pong` is the demo's two-player game.
"""

from __future__ import annotations

from cvcclock._public import publish
from cvcclock.netplay._events import (
    Desync,
    DesyncError,
    Disconnected,
    Event,
    NetworkInterrupted,
    NetworkResumed,
    PeerStats,
    SessionStats,
    Synchronized,
)
from cvcclock.netplay._frames import MAX_INPUT_BYTES
from cvcclock.netplay._p2p import P2PSession
from cvcclock.netplay._pong import PONG_WORLD, Pong
from cvcclock.netplay._relay import LossyRelay
from cvcclock.netplay._synctest import SyncTestSession

__all__ = ["MAX_INPUT_BYTES", "PONG_WORLD", "Desync", "DesyncError", "Disconnected", "Event",
           "LossyRelay", "NetworkInterrupted", "NetworkResumed", "P2PSession", "PeerStats",
           "Pong", "SessionStats", "SyncTestSession", "Synchronized"]

publish(__name__, globals(), __all__)
