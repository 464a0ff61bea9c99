"""The sessions in one process: SyncTest, the transport's drops, time sync, the arguments.

Two P2P sessions talk through a forwarder the test pumps by hand (two sockets on
127.0.0.1), so it can hold, drop, replay or forge datagrams at will.
"""

from __future__ import annotations

import dataclasses
import hmac
import json
import secrets
import socket
import struct
import time

import pytest

from cvcclock import ClockConfig, WorldClock
from cvcclock.netplay import (
    MAX_INPUT_BYTES,
    DesyncError,
    P2PSession,
    Pong,
    Synchronized,
    SyncTestSession,
)
from cvcclock.replay import Replayer
from support.netplay_peers import Swarm, script

HEADER = struct.Struct("!2sBBQQQ")     # the documented layout: magic, version, kind, ids, seq


def clock(fixed_dt=1 / 240):
    return WorldClock(ClockConfig(fixed_dt=fixed_dt))


# -- SyncTest ----------------------------------------------------------------------------

COUNTER = [0]


class ReadsAGlobal(Swarm):
    """Steps with a counter its snapshot does not hold (from frame ``bad_from``)."""

    def __init__(self, bad_from=0):
        super().__init__()
        self.bad_from = bad_from

    def step(self, dt):
        super().step(dt)
        if self.frame > self.bad_from:
            COUNTER[0] += 1
            self.values[3] += COUNTER[0]


@dataclasses.dataclass(frozen=True)
class Fields:
    x: int
    hidden: int
    y: int


class DataclassWorld:
    """A dataclass snapshot whose ``hidden`` field follows a global counter."""

    def __init__(self):
        self.x = self.y = 0

    def apply(self, name, value):
        self.x += value or 0

    def step(self, dt):
        COUNTER[0] += 1
        self.y += 1

    def snapshot(self):
        return Fields(self.x, COUNTER[0], self.y)

    def restore(self, s):
        self.x, self.y = s.x, s.y


def run_synctest(world, frames, players=2, **kw):
    c = clock()
    session = SyncTestSession(world, c, players=players, dt=1 / 120, **kw)
    for f in range(frames):
        for p in range(players):
            session.add_local_input(script(p, f), player=p)
        c.advance_ticks(2)
        session.pump()
    return session


def test_synctest_passes_a_rollback_safe_world_and_resimulates_every_frame():
    session = run_synctest(Swarm(), 200, check_distance=3)
    assert session.frame == 200 and session.checks == 200
    assert session.frames_resimulated == 1 + 2 + 3 * 198


def test_synctest_of_a_world_reading_a_global_counter_names_the_first_frame():
    with pytest.raises(DesyncError) as caught:
        run_synctest(ReadsAGlobal(), 10)
    error = caught.value
    assert error.frame == 0 and error.first_hash != error.second_hash
    assert "frame 0" in str(error) and error.first_hash in str(error)


@pytest.mark.parametrize("bad_from", [17, 50])
def test_synctest_names_the_first_frame_that_reads_outside_its_state(bad_from):
    with pytest.raises(DesyncError) as caught:
        run_synctest(ReadsAGlobal(bad_from), 100, check_distance=4)
    assert caught.value.frame == bad_from


def test_synctest_names_the_first_differing_field_of_a_dataclass_snapshot():
    c = clock(0.01)
    session = SyncTestSession(DataclassWorld(), c)
    c.advance_ticks(1)
    with pytest.raises(DesyncError) as caught:
        session.pump()
    assert caught.value.field == "hidden" and "hidden" in str(caught.value)


class ForgetfulRestore(Swarm):
    def restore(self, snapshot):
        self.frame = snapshot[0]            # values and pushes stay as they are


def test_synctest_finds_a_restore_that_does_not_restore():
    with pytest.raises(DesyncError, match="restored") as caught:
        run_synctest(ForgetfulRestore(), 5)
    assert caught.value.frame == -1        # the start: the first state restored


def test_synctest_refuses_bad_arguments_naming_them():
    c = clock()
    before = c.state()
    with pytest.raises(ValueError, match="players"):
        SyncTestSession(Swarm(), c, players=0)
    with pytest.raises(ValueError, match="check_distance"):
        SyncTestSession(Swarm(), c, check_distance=0)
    with pytest.raises(TypeError, match="world"):
        SyncTestSession(object(), c)
    with pytest.raises(ValueError, match="dt"):
        SyncTestSession(Swarm(), c, dt=0.003)
    session = SyncTestSession(Swarm(), c, players=2)
    with pytest.raises(ValueError, match="player"):
        session.add_local_input(1, player=2)
    with pytest.raises(TypeError, match="value"):
        session.add_local_input({1, 2})
    with pytest.raises(ValueError, match="value"):
        session.add_local_input(float("nan"))
    with pytest.raises(ValueError, match="128 bytes"):
        session.add_local_input("x" * MAX_INPUT_BYTES)
    assert c.state() == before


# -- two sessions through a hand-pumped forwarder ------------------------------------------

class Forwarder:
    """``a`` and ``b``, each seeing the other at one of two test sockets."""

    def __init__(self, key=None, **kw):
        self.key = key or secrets.token_bytes(32)
        self.to_a, self.to_b = (socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                                for _ in range(2))
        for s in (self.to_a, self.to_b):
            s.bind(("127.0.0.1", 0))
            s.setblocking(False)
        self.clocks = clock(), clock()
        self.worlds = Swarm(), Swarm()
        self.a = P2PSession(self.worlds[0], self.clocks[0], local_player=0,
                            peers={1: self.to_a.getsockname()}, session_key=self.key,
                            dt=1 / 120, **kw)
        self.b = P2PSession(self.worlds[1], self.clocks[1], local_player=1,
                            peers={0: self.to_b.getsockname()}, session_key=self.key,
                            dt=1 / 120, **kw)
        self.from_a, self.from_b = [], []       # every datagram each sent
        self.drop_a = False                     # hold a's datagrams (a one-way outage)
        self.sizes = []

    def forward(self):
        for inbox, out, target, log, drop in (
                (self.to_a, self.to_b, self.b.address, self.from_a, self.drop_a),
                (self.to_b, self.to_a, self.a.address, self.from_b, False)):
            while True:
                try:
                    data, _ = inbox.recvfrom(65536)
                except BlockingIOError:
                    break
                log.append(data)
                self.sizes.append(len(data))
                if not drop:
                    out.sendto(data, target)

    def frames(self, n, speed_a=1.0):
        """Pump both, one frame of the clock each pass, ``n`` passes."""
        for _ in range(n):
            for session, c, player, speed in ((self.a, self.clocks[0], 0, speed_a),
                                              (self.b, self.clocks[1], 1, 1.0)):
                session.add_local_input(script(player, session.frame))
                c.advance(1 / 120 * speed)
                session.pump()
            self.forward()
            time.sleep(0.0002)

    def synchronize(self):
        for _ in range(200):
            self.frames(1)
            if self.a.synchronized and self.b.synchronized:
                return
        raise AssertionError("no sync")

    def close(self):
        for thing in (self.a, self.b, self.to_a, self.to_b):
            thing.close()


@pytest.fixture
def pair():
    made = []

    def make(**kw):
        made.append(Forwarder(**kw))
        return made[-1]

    yield make
    for f in made:
        f.close()


def forge(key, kind, sender, receiver, seq, body: bytes):
    data = HEADER.pack(b"cn", 1, kind, sender, receiver, seq) + body
    return data + hmac.digest(key, data, "sha256")[:16]


def test_two_sessions_synchronize_and_confirm_the_same_frames(pair):
    f = pair()
    f.synchronize()
    assert [type(e) for e in f.a.events()] == [Synchronized]
    f.frames(200)
    ta, tb = f.a.trace(frames=150), f.b.trace(frames=150)
    assert ta.inputs == tb.inputs and ta.hashes == tb.hashes and len(ta.hashes) == 15
    assert f.a.stats().rollbacks == f.b.stats().rollbacks == 0    # inputs in time: no need


def test_garbage_wrong_keys_wrong_sessions_and_replays_are_dropped_and_counted(pair):
    f = pair()
    f.synchronize()
    f.frames(30)
    a_addr = f.a.address
    genuine = f.from_b[-1]
    kind, sender, receiver, seq = HEADER.unpack_from(genuine)[2:]
    stranger = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    stranger.bind(("127.0.0.1", 0))
    try:
        stranger.sendto(genuine, a_addr)                                  # unknown address
        inject = [
            b"", b"hello", b"\x00" * 60,                                  # malformed
            genuine[:-1] + bytes([genuine[-1] ^ 1]),                      # bad tag
            genuine[:40] + bytes([genuine[40] ^ 0x20]) + genuine[41:],    # a changed body
            forge(secrets.token_bytes(32), kind, sender, receiver, seq + 99, b"{}"),  # key
            forge(f.key, kind, sender ^ 2, receiver, seq + 100, b"{}"),   # another session
            forge(f.key, kind, sender, receiver ^ 2, seq + 101, b"{}"),   # not to us
            forge(f.key, kind, sender, receiver, seq + 102, b"[1, 2"),    # malformed body
            forge(f.key, kind, sender, receiver, seq + 103, b'{"s": -1}'),
            b"x" * 1300,                                                  # oversize
            genuine, genuine, f.from_b[-5],                               # replays
        ]
        before = f.a.stats()
        for data in inject:
            f.to_a.sendto(data, a_addr)
        time.sleep(0.05)
        f.frames(5)
        dropped = f.a.stats().dropped
        delta = {k: dropped[k] - before.dropped[k] for k in dropped}
        assert delta == {"oversize": 1, "unknown_address": 1, "malformed": 5, "bad_tag": 3,
                         "wrong_session": 2, "replayed": 3, "unsynchronized": 0,
                         "disconnected": 0}
        # Nothing reached the game: the match goes on and agrees.
        f.frames(100)
        n = min(f.a.confirmed_frame, f.b.confirmed_frame) + 1
        assert n > 100
        assert f.a.trace(frames=n).hashes == f.b.trace(frames=n).hashes
    finally:
        stranger.close()


def test_a_long_outage_resends_windows_in_datagrams_of_at_most_1200_bytes(pair):
    f = pair(max_prediction=30, input_delay=0)
    f.synchronize()
    big = ["x" * (MAX_INPUT_BYTES - 2 - len(str(i))) + str(i) for i in range(10)]
    assert all(len(json.dumps(v)) == MAX_INPUT_BYTES for v in big)
    f.drop_a = True
    for i in range(40):                # a's inputs pile up, unacknowledged
        f.a.add_local_input(big[i % 10])
        f.clocks[0].advance(1 / 120)
        f.a.pump()
        f.b.pump()
        f.forward()
    assert f.a.stats().stalled > 0     # a ran max_prediction frames past b's inputs, then held
    f.drop_a = False
    f.frames(150)
    assert max(f.sizes) <= 1200
    assert max(f.sizes) > 1000         # the window was cut to fit, not sent whole
    n = min(f.a.confirmed_frame, f.b.confirmed_frame) + 1
    assert n > 60 and f.a.trace(frames=n).inputs == f.b.trace(frames=n).inputs
    assert f.b.stats().rollbacks > 0


def test_time_sync_slows_the_peer_that_runs_ahead_within_five_percent(pair):
    f = pair()
    jumps = [c.discontinuities for c in f.clocks]
    f.synchronize()
    scales = [set(), set()]
    for _ in range(40):
        f.frames(10, speed_a=1.04)          # a's wall runs 4 % fast
        scales[0].add(f.clocks[0].scale)
        scales[1].add(f.clocks[1].scale)
    assert min(scales[0]) < 0.99 and min(scales[0]) >= 0.95
    assert max(scales[1]) > 1.0 and max(scales[1]) <= 1.05
    for c, jumped in zip(f.clocks, jumps, strict=True):   # only the rate of quanta changed
        assert c.total_dropped == 0 and c.discontinuities == jumped
    assert abs(f.a.stats().peers[1].frames_ahead) < 3
    # Closing gives the host its scale back.
    f.a.close()
    assert f.clocks[0].scale == 1.0


def test_the_trace_replays_to_the_confirmed_state_exactly(pair):
    f = pair(desync_interval=1)
    assert f.a.confirmed_snapshot() is None        # no match yet
    f.synchronize()
    f.frames(120)
    for _ in range(6):             # a alone: it predicts b, past its confirmed frame
        f.clocks[0].advance_ticks(2)
        f.a.pump()
        f.forward()
    n = f.a.confirmed_frame + 1
    trace = f.a.trace(frames=n, seed=3, metadata={"level": 1})
    assert trace.header.metadata == {"netplay": {"players": 2}, "level": 1}
    c = WorldClock(ClockConfig(fixed_dt=1 / 240))
    world = Swarm()
    replayer = Replayer(world, c, trace)
    c.advance_ticks(trace.end_tick)
    replayer.pump()
    assert replayer.divergences == [] and len(replayer.checked) == n
    assert replayer.follower.steps == n
    # The confirmed state is the replay's, though the session has run past it.
    assert f.a.frame > n and f.a.confirmed_snapshot() == world.snapshot()


def test_p2p_refuses_bad_arguments_naming_them_and_leaves_the_clock_alone():
    c = clock()
    before = c.state()
    key = secrets.token_bytes(16)
    good = {"local_player": 0, "peers": {1: ("127.0.0.1", 9)}, "session_key": key}
    cases = [
        (TypeError, "world", {"world": object()}),
        (TypeError, "peers", {"peers": [("127.0.0.1", 9)]}),
        (ValueError, "peers", {"peers": {2: ("127.0.0.1", 9)}}),
        (ValueError, "local_player", {"local_player": 5}),
        (TypeError, r"peers\[1\]", {"peers": {1: "127.0.0.1:9"}}),
        (ValueError, "port", {"peers": {1: ("127.0.0.1", 70000)}}),
        (TypeError, "session_key", {"session_key": "secret secret secret"}),
        (ValueError, "session_key", {"session_key": b"short"}),
        (ValueError, "input_delay", {"input_delay": 31}),
        (ValueError, "max_prediction", {"max_prediction": 0}),
        (ValueError, "desync_interval", {"desync_interval": 0}),
        (ValueError, "disconnect_timeout", {"disconnect_timeout": -1.0}),
        (ValueError, "dt", {"dt": 0.003}),
        (TypeError, "state_hash", {"state_hash": 3}),
        (TypeError, "bind", {"bind": "127.0.0.1"}),
    ]
    for error, name, change in cases:
        kwargs = good | change
        world = kwargs.pop("world", Swarm())
        with pytest.raises(error, match=name):
            P2PSession(world, c, **kwargs)
    assert c.state() == before
    with P2PSession(Pong(), c, **good) as session:
        session.add_local_input(1)
        for bad in ({1}, float("inf"), "y" * 200):
            with pytest.raises((TypeError, ValueError), match="value"):
                session.add_local_input(bad)
        assert session._held == "1"   # noqa: SLF001  (the held input, unchanged)
    with pytest.raises(RuntimeError, match="closed"):
        session.pump()


def free_ports(n):
    """n ports free on 127.0.0.1 now (bound, read, released)."""
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def test_three_players_in_a_mesh_confirm_the_same_frames():
    ports = free_ports(3)
    key = secrets.token_bytes(32)
    clocks = [clock() for _ in range(3)]
    sessions = [P2PSession(Swarm(players=3), clocks[p], local_player=p,
                           peers={q: ("127.0.0.1", ports[q]) for q in range(3) if q != p},
                           bind=("127.0.0.1", ports[p]), session_key=key, dt=1 / 120)
                for p in range(3)]
    try:
        deadline = time.monotonic() + 20
        while min(s.confirmed_frame for s in sessions) < 100 and time.monotonic() < deadline:
            for p, (s, c) in enumerate(zip(sessions, clocks, strict=True)):
                s.add_local_input(script(p, s.frame))
                c.advance(1 / 120)
                s.pump()
            time.sleep(0.0005)
        traces = [s.trace(frames=100) for s in sessions]
        assert all(t.inputs == traces[0].inputs and t.hashes == traces[0].hashes
                   for t in traces)
        assert {e.name for e in traces[0].inputs} == {"p0", "p1", "p2"}
    finally:
        for s in sessions:
            s.close()
