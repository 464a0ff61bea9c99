"""A lossy UDP relay between two peers: delay, jitter, loss and duplicates, on loopback."""

from __future__ import annotations

import heapq
import random
import select
import socket
import threading
import time

from cvcclock.checks import check_probability, check_seconds, check_seed, check_str

__all__ = ["LossyRelay"]


class LossyRelay:
    """Forward two peers' datagrams through a bad network, to try a match on one.

    The relay has two sockets, ``address_of(0)`` and ``address_of(1)``: peer 0 sends to
    ``address_of(1)`` (it is player 1's address for it) and peer 1 to ``address_of(0)``;
    each side's own address is learnt from its first datagram. Each datagram is dropped
    with probability ``loss``, else delivered after ``delay`` plus a uniform draw in
    ``[0, jitter)`` seconds (so datagrams overtake each other: reordering) and, with
    probability ``duplicate``, delivered a second time after another draw. The relay runs
    in a daemon thread from ``start()`` to ``close()`` (or the ``with`` block).

    Parameters
    ----------
    delay, jitter : float
        Seconds, 0 to 10.
    loss, duplicate : float
        Probabilities, 0 to 1.
    seed : int
        The draws' seed.
    host : str
        The address to bind, loopback by default.

    Attributes
    ----------
    forwarded, dropped, duplicated : int
        Datagrams delivered (duplicates included), dropped, and sent twice.
    """

    def __init__(self, *, delay: float = 0.0, jitter: float = 0.0, loss: float = 0.0,
                 duplicate: float = 0.0, seed: int = 0, host: str = "127.0.0.1") -> None:
        self.delay = check_seconds(delay, "delay", maximum=10.0)
        self.jitter = check_seconds(jitter, "jitter", maximum=10.0)
        self.loss = check_probability(loss, "loss")
        self.duplicate = check_probability(duplicate, "duplicate")
        self._random = random.Random(check_seed(seed))
        self._sockets = []
        for _ in range(2):
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sock.bind((check_str(host, "host"), 0))
            sock.setblocking(False)
            self._sockets.append(sock)
        # Peer 0 talks to socket 1 (player 1's stand-in), peer 1 to socket 0.
        self._peer: list[tuple[str, int] | None] = [None, None]
        self._queue: list[tuple[float, int, int, bytes]] = []
        self._count = 0
        self.forwarded = self.dropped = self.duplicated = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="LossyRelay", daemon=True)

    def address_of(self, player: int) -> tuple[str, int]:
        """The address the other peer sends to for ``player`` (0 or 1)."""
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        host, port = self._sockets[player].getsockname()[:2]
        return host, port

    def start(self) -> LossyRelay:
        """Start forwarding, in a daemon thread; return the relay."""
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop the thread (within 0.1 s) and close the sockets."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        for sock in self._sockets:
            sock.close()

    def __enter__(self) -> LossyRelay:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            wait = 0.05 if not self._queue else max(0.0, min(0.05, self._queue[0][0]
                                                             - time.monotonic()))
            ready, _, _ = select.select(self._sockets, [], [], wait)
            for sock in ready:
                self._read(sock)
            self._deliver(time.monotonic())

    def _read(self, sock: socket.socket) -> None:
        side = self._sockets.index(sock)          # sent to player `side`'s stand-in
        sender = 1 - side
        for _ in range(256):
            try:
                data, address = sock.recvfrom(65536)
            except (BlockingIOError, OSError):
                return
            self._peer[sender] = address[:2]
            if self._random.random() < self.loss:
                self.dropped += 1
                continue
            copies = 2 if self._random.random() < self.duplicate else 1
            self.duplicated += copies - 1
            for _ in range(copies):
                at = time.monotonic() + self.delay + self._random.random() * self.jitter
                self._count += 1
                # Out of the socket standing in for the sender, to the other peer.
                heapq.heappush(self._queue, (at, self._count, sender, data))

    def _deliver(self, now: float) -> None:
        while self._queue and self._queue[0][0] <= now:
            _, _, sender, data = heapq.heappop(self._queue)
            target = self._peer[1 - sender]
            if target is None:              # that side has not spoken yet: lost
                self.dropped += 1
                continue
            try:
                self._sockets[sender].sendto(data, target)
                self.forwarded += 1
            except OSError:
                self.dropped += 1

