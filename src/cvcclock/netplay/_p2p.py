"""The peer-to-peer session: prediction, rollback, stalls, desync hashes, time sync, UDP."""

from __future__ import annotations

import bisect
import collections
import json
import math
import secrets
import socket
import time
from collections.abc import Iterator, Mapping
from typing import Any

from cvcclock._core import WorldClock
from cvcclock.checks import (
    check_address,
    check_count,
    check_key,
    check_mapping,
    check_seconds,
    check_seed,
    check_small_json,
)
from cvcclock.netplay._events import (
    Desync,
    Disconnected,
    Event,
    NetworkInterrupted,
    NetworkResumed,
    PeerStats,
    SessionStats,
    Synchronized,
)
from cvcclock.netplay._frames import MAX_INPUT_BYTES, NULL, Frames
from cvcclock.netplay._wire import (
    INPUT,
    MAX_DATAGRAM,
    OVERHEAD,
    SYNC_REPLY,
    SYNC_REQUEST,
    DropReason,
    ReplayWindow,
    open_datagram,
    parse_body,
    seal,
)
from cvcclock.replay import Input, InputTrace, JSONValue, StateHash, TraceHeader, World

__all__ = ["P2PSession"]

DROP_REASONS = ("oversize", "unknown_address", "malformed", "bad_tag", "wrong_session",
                "replayed", "unsynchronized", "disconnected")
SYNC_RESEND = 0.1          # seconds between sync requests
KEEPALIVE = 0.02           # the longest silence towards a peer
MAX_NUDGE = 0.05           # time sync: the clock's scale within ±5 %
NUDGE_PER_FRAME = 0.02     # ... 2 % per frame of advantage, up to that
SMOOTHING = 0.1            # the weight of a new sample in the running averages
HASHES_PER_DATAGRAM = 8
# The texts of the commonest inputs, so that most datagrams need no encoding.
_SCALARS: dict[object, str] = {None: "null"} | {i: str(i) for i in range(-98, 99)}
RECEIVE_BATCH = 256        # datagrams read per pump at most: a flood cannot hold the loop


class _Peer:
    """One remote player's link."""

    def __init__(self, player: int, address: tuple[str, int]) -> None:
        self.player = player
        self.address = address
        self.nonce = secrets.randbits(63)
        self.remote_id: int | None = None     # its session id, from its sync reply
        self.window = ReplayWindow()
        self.last_request = -math.inf
        self.last_heard = 0.0
        self.last_sent = -math.inf
        self.sent_inputs = -1                 # the last of our input frames sent to it
        self.interrupted = False
        self.connected = True
        self.acked = -1                       # the last of our input frames it has
        self.hash_acked = -1                  # the last of our hash frames it has, in order
        self.hashes: dict[int, str] = {}      # its confirmed-state hashes
        self.hash_contiguous = -1             # set to -desync_interval by the session
        self.compared: set[int] = set()
        self.ping: tuple[float, float] | None = None    # its latest stamp, when we got it
        self.rtt: float | None = None
        self.local_adv = 0.0
        self.remote_adv = 0.0

    @property
    def synchronized(self) -> bool:
        return self.remote_id is not None


class P2PSession:
    """A rollback session between peers over UDP, following the clock.

    Each frame the world receives every player's input: the local one given with
    :meth:`add_local_input` (played ``input_delay`` frames later), and each remote one as
    confirmed by its peer or, until it arrives, predicted (its last confirmed input
    repeated). When a confirmed input differs from its prediction, ``pump()`` restores the
    state before that frame and re-simulates to the present. The host's frame::

        session.add_local_input(value)   # held until replaced
        clock.advance(wall_dt)
        session.pump()                   # due frames, rollbacks, network I/O
        for event in session.events(): ...

    Parameters
    ----------
    world : World
        The world (``step``, ``apply``, ``snapshot``, ``restore``), in the state every peer
        starts from.
    clock : WorldClock
        The clock it follows; frame 0 is the follower's first due step after
        :class:`Synchronized`.
    local_player : int
        This peer's player number.
    peers : mapping of int to (host, port)
        Every other player's number and UDP address (IPv4); the players are 0 to
        ``len(peers)``.
    bind : (host, port)
        The local address; loopback and a free port by default (``address`` tells it).
    session_key : bytes
        The match's shared secret, at least 16 bytes: every datagram is authenticated with
        it (HMAC-SHA256, 16 bytes).
    dt : float, optional
        The frame's step in seconds, a whole number of quanta; one quantum by default.
    input_delay : int
        Frames between a local input and the frame it is played at, 0 to 30.
    max_prediction : int
        Frames the session may run past the last confirmed remote input, 1 to 30; at that
        point a due frame is not run (``stats().stalled``).
    desync_interval : int
        Exchange the state hash of every confirmed frame that is a multiple of this.
    disconnect_timeout : float
        Seconds without a valid datagram from a synchronized peer before
        :class:`Disconnected` (a quarter of it gives :class:`NetworkInterrupted`).
    state_hash : callable, optional
        ``state_hash(snapshot) -> str``; :func:`cvcclock.replay.default_state_hash` by
        default.

    Raises
    ------
    TypeError, ValueError
        For a bad argument, naming it; the clock is not touched.
    OSError
        If the local address cannot be bound.
    """

    def __init__(self, world: World, clock: WorldClock, *, local_player: int,
                 peers: Mapping[int, tuple[str, int]],
                 bind: tuple[str, int] = ("127.0.0.1", 0), session_key: bytes,
                 dt: float | None = None, input_delay: int = 2, max_prediction: int = 8,
                 desync_interval: int = 10, disconnect_timeout: float = 2.0,
                 state_hash: StateHash | None = None) -> None:
        addresses = check_mapping(peers, "peers")
        local = check_count(local_player, "local_player", maximum=len(addresses))
        others = sorted(check_count(p, "peers key", maximum=len(addresses))
                        for p in addresses)
        if others != [p for p in range(len(addresses) + 1) if p != local]:
            raise ValueError(f"peers must map every player from 0 to {len(addresses)} but "
                             f"local_player={local} to an address, got {dict(peers)!r}")
        resolved = {p: _resolve(check_address(addresses[p], f"peers[{p}]"), f"peers[{p}]")
                    for p in others}
        if len(set(resolved.values())) != len(resolved):
            raise ValueError(f"peers must have distinct addresses, got {dict(peers)!r}")
        bind = check_address(bind, "bind")
        self._key = check_key(session_key, "session_key")
        self.input_delay = check_count(input_delay, "input_delay", maximum=30)
        self.max_prediction = check_count(max_prediction, "max_prediction", minimum=1,
                                          maximum=30)
        self.desync_interval = check_count(desync_interval, "desync_interval", minimum=1)
        self.disconnect_timeout = check_seconds(disconnect_timeout, "disconnect_timeout",
                                                minimum=0.05, maximum=3600.0)
        self._frames = Frames(world, clock, len(addresses) + 1, dt, state_hash)
        self.local_player = local
        self._peers = {p: _Peer(p, a) for p, a in resolved.items()}
        for peer in self._peers.values():
            peer.hash_contiguous = -self.desync_interval
        self._by_address = {peer.address: peer for peer in self._peers.values()}
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            self._sock.setblocking(False)
            self._sock.bind(bind)
        except OSError:
            self._sock.close()
            raise
        self._id = secrets.randbits(63) | 1      # never 0: 0 is "not known yet"
        self._seq = 0
        self._held = NULL
        self._inputs: list[list[str]] = [[NULL] * self.input_delay
                                         for _ in range(self._frames.players)]
        self._gone: set[int] = set()
        self._used: dict[int, tuple[str, ...]] = {}
        self._rollback_from: int | None = None
        self._confirmed = -1
        self._hashes: dict[int, str] = {}
        self._hash_frames: list[int] = []
        self._events: collections.deque[Event] = collections.deque()
        self._started = False
        self._rollbacks = self._resimulated = self._stalled = 0
        self._sent = self._received = 0
        self._dropped = dict.fromkeys(DROP_REASONS, 0)
        self._base_scale = clock.scale
        self._set_scale = clock.scale
        self._nudge = 0.0
        self._samples = False          # a new time-sync sample since the last nudge
        self._closed = False

    # -- the host's calls ------------------------------------------------------------------

    @property
    def address(self) -> tuple[str, int]:
        """The local UDP address the session listens on."""
        host, port = self._sock.getsockname()[:2]
        return host, port

    @property
    def frame(self) -> int:
        """The frames run so far (the next frame's number)."""
        return self._frames.frame

    @property
    def confirmed_frame(self) -> int:
        """The last frame whose inputs are all confirmed and whose state is final (-1)."""
        return self._confirmed

    def confirmed_snapshot(self) -> Any:
        """The world's snapshot after ``confirmed_frame``: final, the same on every peer.

        Returns
        -------
        object
            The snapshot (the start's while no frame is confirmed), or None before
            :class:`Synchronized`.
        """
        return self._frames.saved.get(self._confirmed)

    @property
    def synchronized(self) -> bool:
        """Whether every peer has answered and the frames run."""
        return self._started

    def add_local_input(self, value: Any) -> None:
        """Set the local player's input for the frames scheduled from now on, until replaced.

        The input given while frame ``f`` is the next to run is played at frame
        ``f + input_delay``, here and at every peer.

        Parameters
        ----------
        value : JSON value
            A small JSON value (at most 128 bytes as compact JSON); every world, here and
            remote, receives it decoded from JSON.

        Raises
        ------
        TypeError, ValueError
            For a value JSON cannot hold or too long; the held input is not changed.
        """
        self._held = check_small_json(value, "value", MAX_INPUT_BYTES)

    def pump(self) -> int:
        """Read the network, roll back for late inputs, run the due frames, send.

        Returns
        -------
        int
            The new frames run (re-simulations not counted).

        Raises
        ------
        RuntimeError
            If the session is closed.
        Exception
            Whatever the world raises. Nothing a datagram holds raises here: a bad one is
            dropped and counted in ``stats().dropped``.
        """
        if self._closed:
            raise RuntimeError("the session is closed")
        now = time.monotonic()
        self._receive(now)
        self._watch_links(now)
        self._start_when_synchronized(now)
        if self._rollback_from is not None:
            self._roll_back()
        ran = self._advance()
        self._confirm()
        self._send(now)
        if self._samples or self._frames.clock.scale != self._set_scale:
            self._samples = False
            self._sync_time()
        return ran

    def events(self) -> Iterator[Event]:
        """Yield the events since the last call, oldest first (each once)."""
        while self._events:
            yield self._events.popleft()

    def stats(self) -> SessionStats:
        """The session's counters and each peer's link."""
        peers = {p: PeerStats(rtt=peer.rtt, frames_ahead=(peer.local_adv - peer.remote_adv) / 2,
                              received_frame=len(self._inputs[p]) - 1, acked_frame=peer.acked,
                              connected=peer.connected)
                 for p, peer in self._peers.items()}
        return SessionStats(frame=self.frame, confirmed_frame=self._confirmed,
                            rollbacks=self._rollbacks, frames_resimulated=self._resimulated,
                            stalled=self._stalled, scale_nudge=self._nudge, sent=self._sent,
                            received=self._received, dropped=dict(self._dropped), peers=peers)

    def trace(self, *, frames: int | None = None, seed: int = 0,
              metadata: Mapping[str, JSONValue] | None = None) -> InputTrace:
        """The match so far as a cvcclock trace: every player's confirmed inputs.

        The trace is the match as a clock from tick 0 would run it with no stall: frame
        ``f``'s inputs are stamped ``f * period`` (``p0``, ``p1``, ... with ``None`` for a
        player without one) and its step falls due at ``(f + 1) * period``; the exchanged
        state hashes are in it, so :class:`cvcclock.replay.Replayer` checks them. Every
        peer writes the same trace, whatever its pacing, stalls and rollbacks.

        Parameters
        ----------
        frames : int, optional
            The first this many frames; every confirmed frame by default.
        seed : int
            The trace header's seed.
        metadata : mapping, optional
            Added to the header's metadata (which holds ``{"netplay": {"players": n}}``).

        Returns
        -------
        InputTrace
            To ``save(path)``.

        Raises
        ------
        TypeError, ValueError
            For more frames than are confirmed, or bad metadata.
        """
        n = self._confirmed + 1 if frames is None else check_count(
            frames, "frames", maximum=self._confirmed + 1)
        seed = check_seed(seed)
        period = self._frames.period
        entries = [Input(f * period, name, json.loads(self._confirmed_input(p, f)))
                   for f in range(n) for p, name in enumerate(self._frames.names)]
        hashes = {(f + 1) * period: h for f, h in self._hashes.items() if f < n}
        meta: dict[str, JSONValue] = {"netplay": {"players": self._frames.players}}
        meta.update(dict(metadata or {}))
        header = TraceHeader(fixed_dt=self._frames.clock.fixed_dt, dt=self._frames.dt,
                             start_tick=0, seed=seed, metadata=meta)
        return InputTrace(header, tuple(entries), hashes, n * period)

    def close(self) -> None:
        """Close the socket and give the clock its scale back (time sync's nudge undone)."""
        if self._closed:
            return
        self._closed = True
        self._sock.close()
        if self._frames.clock.scale == self._set_scale:
            self._frames.clock.scale = self._base_scale

    def __enter__(self) -> P2PSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"P2PSession(local_player={self.local_player}, address={self.address!r}, "
                f"frame={self.frame}, confirmed_frame={self._confirmed})")

    # -- inputs ----------------------------------------------------------------------------

    def _input_for(self, player: int, frame: int) -> str:
        """The confirmed input, or the prediction: the last confirmed one repeated."""
        known = self._inputs[player]
        if frame < len(known):
            return known[frame]
        if player in self._gone or not known:
            return NULL
        return known[-1]

    def _confirmed_input(self, player: int, frame: int) -> str:
        known = self._inputs[player]
        return known[frame] if frame < len(known) else NULL   # a disconnected player's None

    def _known(self) -> float:
        """The frames of remote input confirmed for every connected peer."""
        return min((len(self._inputs[p]) for p in self._peers if p not in self._gone),
                   default=math.inf)

    def _late(self, player: int, frame: int, text: str) -> None:
        """A confirmed input for ``frame``: if that frame ran on another prediction, roll
        back to it at the next chance."""
        if frame < self._frames.frame and self._used[frame][player] != text:
            if self._rollback_from is None or frame < self._rollback_from:
                self._rollback_from = frame

    # -- the frame loop's phases -----------------------------------------------------------

    def _start_when_synchronized(self, now: float) -> None:
        if not self._started and all(p.synchronized for p in self._peers.values()):
            self._started = True
            for peer in self._peers.values():
                peer.last_heard = max(peer.last_heard, now)
            self._frames.start()
            self._events.append(Synchronized())

    def _roll_back(self) -> None:
        frames = self._frames
        start, self._rollback_from = self._rollback_from, None
        assert start is not None
        frames.restore(start - 1)
        for f in range(start, frames.frame):
            used = self._used[f] = tuple(self._input_for(p, f) for p in range(frames.players))
            frames.run(f, used)
        self._rollbacks += 1
        self._resimulated += frames.frame - start

    def _advance(self) -> int:
        frames = self._frames
        ran = 0
        local = self._inputs[self.local_player]
        players = range(frames.players)
        horizon = self._known() + self.max_prediction     # no input arrives in this loop
        for _ in range(frames.due()):
            f = frames.frame
            if f >= horizon:
                self._stalled += 1      # the tick runs on; this step runs no frame
                continue
            local.append(self._held)    # played at frame f + input_delay
            used = self._used[f] = tuple([self._input_for(p, f) for p in players])
            frames.run(f, used)
            frames.frame = f + 1
            ran += 1
        return ran

    def _confirm(self) -> None:
        """Hash the newly confirmed frames at the interval; forget what no rollback needs."""
        frames = self._frames
        count = min(self._known(), frames.frame)
        assert isinstance(count, int)
        interval = self.desync_interval
        for f in range(self._confirmed + 1, count):
            if f % interval == 0:
                self._hashes[f] = frames.hash_of(f)
                self._hash_frames.append(f)
                for peer in self._peers.values():
                    self._compare(peer, f)
            del self._used[f]
        if count - 1 > self._confirmed:
            self._confirmed = count - 1
            frames.forget_before(self._confirmed)

    def _compare(self, peer: _Peer, frame: int) -> None:
        mine, theirs = self._hashes.get(frame), peer.hashes.get(frame)
        if mine is None or theirs is None or frame in peer.compared:
            return
        peer.compared.add(frame)
        if mine != theirs:
            self._events.append(Desync(frame, mine, theirs, peer.player))

    def _sync_time(self) -> None:
        """Nudge the clock's scale so that the peers' frames keep level (never a tick
        skipped or repeated: only the rate of the clock's quanta changes)."""
        clock = self._frames.clock
        if clock.scale != self._set_scale:    # the host set it: the new base
            self._base_scale = clock.scale
            self._nudge = 0.0
        ahead = [(p.local_adv - p.remote_adv) / 2 for p in self._peers.values()
                 if p.connected and p.synchronized]
        nudge = 0.0 if not ahead or not self._started else \
            max(-MAX_NUDGE, min(MAX_NUDGE, -NUDGE_PER_FRAME * max(ahead)))
        if abs(nudge - self._nudge) > 0.002 or (nudge == 0.0 != self._nudge):
            self._nudge = nudge
            clock.scale = self._base_scale * (1.0 + nudge)
        self._set_scale = clock.scale

    # -- the network -----------------------------------------------------------------------

    def _receive(self, now: float) -> None:
        sock = self._sock
        for _ in range(RECEIVE_BATCH):
            try:
                data, address = sock.recvfrom(2048)
            except BlockingIOError:
                return
            except OSError:      # an ICMP error reported on the socket: nothing to read
                continue
            try:
                self._datagram(data, address[:2], now)
            except DropReason as reason:
                self._dropped[reason.args[0]] += 1

    def _datagram(self, data: bytes, address: tuple[str, int], now: float) -> None:
        if len(data) > MAX_DATAGRAM:
            raise DropReason("oversize")
        peer = self._by_address.get(address)
        if peer is None:
            raise DropReason("unknown_address")
        kind, sender, receiver, seq, body = open_datagram(self._key, data)
        if not peer.connected:
            raise DropReason("disconnected")
        if kind == SYNC_REQUEST:
            if receiver not in (0, self._id) or (peer.synchronized and sender != peer.remote_id):
                raise DropReason("wrong_session")
            if peer.synchronized and not peer.window.accept(seq):
                raise DropReason("replayed")
            nonce = parse_body(body).get("n")
            if type(nonce) is not int:
                raise DropReason("malformed")
            self._emit(peer, SYNC_REPLY, sender, b'{"n":%d}' % nonce)
        elif kind == SYNC_REPLY:
            if receiver != self._id:
                raise DropReason("wrong_session")
            if parse_body(body).get("n") != peer.nonce:
                raise DropReason("wrong_session")
            if not peer.synchronized:
                peer.remote_id = sender
            elif sender != peer.remote_id:
                raise DropReason("wrong_session")
            if not peer.window.accept(seq):
                raise DropReason("replayed")
        else:
            if not peer.synchronized:
                raise DropReason("unsynchronized")
            if sender != peer.remote_id or receiver != self._id:
                raise DropReason("wrong_session")
            if not peer.window.fresh(seq):
                raise DropReason("replayed")
            checked = _checked_input_body(parse_body(body))
            peer.window.accept(seq)     # only an authentic, well-formed datagram moves it
            self._on_input(peer, checked, now)
        self._received += 1
        peer.last_heard = now
        if peer.interrupted:
            peer.interrupted = False
            self._events.append(NetworkResumed(peer.player))

    def _on_input(self, peer: _Peer, body: dict[str, Any], now: float) -> None:
        p = peer.player
        known = self._inputs[p]
        start = body["s"]
        for g, value in enumerate(body["i"], start):
            if g < len(known):
                continue
            if g > len(known) or p in self._gone:
                break
            text = _SCALARS.get(value) if value is None or type(value) is int else None
            if text is None:
                text = json.dumps(value, separators=(",", ":"))
            if len(text) > MAX_INPUT_BYTES:
                break
            known.append(text)
            self._late(p, g, text)
        peer.acked = max(peer.acked, body["a"])
        peer.hash_acked = max(peer.hash_acked, body["k"])
        for frame, digest in body["h"]:
            if frame not in peer.hashes:
                peer.hashes[frame] = digest
                self._compare(peer, frame)
        while peer.hash_contiguous + self.desync_interval in peer.hashes:
            peer.hash_contiguous += self.desync_interval
        peer.ping = (body["p"], now)
        echo = body.get("q")
        if echo is not None:     # our stamp and how long the peer held it, in µs
            sample = now - (echo[0] + echo[1]) / 1e6
            if 0 <= sample < 60:
                peer.rtt = sample if peer.rtt is None else \
                    peer.rtt + SMOOTHING * (sample - peer.rtt)
        frame_seconds = self._frames.dt / max(self._base_scale, 1e-9)
        travelled = 0.0 if peer.rtt is None else peer.rtt / 2 / frame_seconds
        local_adv = self._frames.frame - (body["f"] + travelled)
        peer.local_adv += SMOOTHING * (local_adv - peer.local_adv)
        peer.remote_adv += SMOOTHING * (body["v"] / 1000 - peer.remote_adv)
        self._samples = True

    def _send(self, now: float) -> None:
        for peer in self._peers.values():
            if not peer.connected:
                continue
            if not peer.synchronized:
                if now - peer.last_request >= SYNC_RESEND:
                    peer.last_request = now
                    self._emit(peer, SYNC_REQUEST, 0, b'{"n":%d}' % peer.nonce)
                continue
            if self._started:
                local = self._inputs[self.local_player]
                if len(local) - 1 > peer.sent_inputs or now - peer.last_sent >= KEEPALIVE:
                    self._emit(peer, INPUT, peer.remote_id or 0, self._input_body(peer, now))
                    peer.sent_inputs = len(local) - 1
                    peer.last_sent = now

    def _input_body(self, peer: _Peer, now: float) -> bytes:
        """Our unacknowledged inputs (as many as fit), acks, hashes, frame and ping."""
        p = peer.player
        hash_from = bisect.bisect_right(self._hash_frames, peer.hash_acked)
        hashes = ",".join(f'[{f},"{self._hashes[f]}"]' for f in
                          self._hash_frames[hash_from:hash_from + HASHES_PER_DATAGRAM])
        # Stamps in whole µs and the advantage in thousandths of a frame: ints, cheap to
        # write and read.
        stamp = int(now * 1e6)
        echo = "null" if peer.ping is None else \
            f"[{peer.ping[0]},{int((now - peer.ping[1]) * 1e6)}]"
        adv = int(peer.local_adv * 1000)
        head = (f'"a":{len(self._inputs[p]) - 1},"k":{peer.hash_contiguous},'
                f'"f":{self._frames.frame},"v":{adv},"p":{stamp},"q":{echo},'
                f'"h":[{hashes}]')
        local = self._inputs[self.local_player]
        start = max(peer.acked + 1, 0)
        budget = MAX_DATAGRAM - OVERHEAD - len(head) - 32
        texts = []
        for text in local[start:]:
            budget -= len(text) + 1
            if budget < 0:
                break
            texts.append(text)
        return f'{{"s":{start},"i":[{",".join(texts)}],{head}}}'.encode()

    def _emit(self, peer: _Peer, kind: int, receiver: int, body: bytes) -> None:
        self._seq += 1
        data = seal(self._key, kind, self._id, receiver, self._seq, body)
        try:
            self._sock.sendto(data, peer.address)
            self._sent += 1
        except OSError:      # a full buffer or an unreachable peer: as if the network lost it
            pass

    def _watch_links(self, now: float) -> None:
        if not self._started:
            return
        for peer in self._peers.values():
            if not peer.connected:
                continue
            silent = now - peer.last_heard
            if silent >= self.disconnect_timeout:
                self._disconnect(peer)
            elif silent >= self.disconnect_timeout / 4 and not peer.interrupted:
                peer.interrupted = True
                self._events.append(NetworkInterrupted(peer.player, silent))

    def _disconnect(self, peer: _Peer) -> None:
        """From the frame after its last input the player's input is None, confirmed."""
        peer.connected = False
        p = peer.player
        self._gone.add(p)
        for f in range(len(self._inputs[p]), self._frames.frame):
            self._late(p, f, NULL)
        self._events.append(Disconnected(p))


def _resolve(address: tuple[str, int], name: str) -> tuple[str, int]:
    """The address as datagrams from it will show it: an IPv4 address and a port."""
    try:
        return socket.gethostbyname(address[0]), address[1]
    except OSError as error:
        raise ValueError(f"{name}: cannot resolve the host {address[0]!r} ({error})") from None


def _checked_input_body(body: dict[str, Any]) -> dict[str, Any]:
    """The input datagram's fields, of the right types, or DropReason("malformed")."""
    try:
        ok = (_is_int(body["s"]) and body["s"] >= 0 and type(body["i"]) is list
              and _is_int(body["a"]) and _is_int(body["k"]) and _is_int(body["f"])
              and _is_int(body["v"]) and _is_int(body["p"]) and type(body["h"]) is list
              and all(type(h) is list and len(h) == 2 and _is_int(h[0]) and h[0] >= 0
                      and type(h[1]) is str for h in body["h"])
              and (body["q"] is None or (type(body["q"]) is list and len(body["q"]) == 2
                                         and all(_is_int(x) for x in body["q"]))))
    except KeyError:
        ok = False
    if not ok:
        raise DropReason("malformed")
    return body


def _is_int(value: object) -> bool:
    return type(value) is int

