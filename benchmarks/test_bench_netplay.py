"""Rollback netplay: a session's cost per frame, and the cost of an 8-frame rollback.

Run with ``pytest benchmarks/test_bench_netplay.py --benchmark-only``. The world has 100
entities (two floats each, a Python loop a step, a tuple snapshot). Two
:class:`~cvcclock.netplay.P2PSession` on 127.0.0.1 talk through two test sockets; each
round's setup (untimed) runs the other peer and moves the datagrams, and the timed call is
peer 0's frame: ``clock.advance_ticks(2)`` and ``session.pump()`` (read the datagram, run
the due frame, send one).

Group ``netplay-frame``:

- ``floor``: 1,000 calls of ``[].count(x)``, the cheapest C method call (see
  ``test_bench_clock.py``), a thousand floors: to read the others on a busy machine;
- ``plain``: the world's own frame, ``apply`` twice and ``step``: the floor;
- ``session``: the session's frame when the remote input arrived in time (no rollback):
  minus ``plain``, the session's overhead per frame (the goal: at most 30 µs). It holds a
  snapshot, a clock state, the inputs and one authenticated datagram each way;
- ``udp``: the kernel's part of that: one ``sendto`` and one ``recvfrom`` of a 250-byte
  datagram on loopback, and the ``recvfrom`` that finds the socket empty.

Group ``netplay-rollback``:

- ``plain-8-steps-and-restore``: ``restore`` and 8 plain frames, what a rollback must do;
- ``session-rollback-8``: the session's frame when the remote input of 8 frames ago arrives
  and differs from its prediction: it restores, re-simulates 8 frames and runs the new one.
"""

from __future__ import annotations

import collections
import secrets
import socket

import pytest

from cvcclock import ClockConfig, WorldClock
from cvcclock.netplay import P2PSession

ROUNDS = 400
ENTITIES = 100
LATE = 8


class Entities:
    """100 bodies pushed by the two players' inputs."""

    def __init__(self):
        self.pos = [float(i) for i in range(ENTITIES)]
        self.vel = [0.0] * ENTITIES
        self.push = [0, 0]

    def apply(self, name, value):
        self.push[int(name[1:])] = value or 0

    def step(self, dt):
        p0, p1 = self.push
        pos, vel = self.pos, self.vel
        for i in range(ENTITIES):
            vel[i] += ((p1 if i & 1 else p0) - 0.1 * pos[i]) * dt
            pos[i] += vel[i] * dt

    def snapshot(self):
        return (tuple(self.pos), tuple(self.vel), tuple(self.push))

    def restore(self, snapshot):
        pos, vel, push = snapshot
        self.pos, self.vel, self.push = list(pos), list(vel), list(push)


class Pair:
    """Peer 0 (timed) and peer 1 (run in the setup), through two sockets the setup drains."""

    def __init__(self, late: int):
        self.to_a, self.to_b = (socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                                for _ in range(2))
        for s in (self.to_a, self.to_b):
            s.bind(("127.0.0.1", 0))
            s.setblocking(False)
        key = secrets.token_bytes(32)
        self.clocks = [WorldClock(ClockConfig(fixed_dt=1 / 120)) for _ in range(2)]
        kw = {"session_key": key, "dt": 1 / 60, "input_delay": 0, "max_prediction": late + 4}
        self.a = P2PSession(Entities(), self.clocks[0], local_player=0,
                            peers={1: self.to_a.getsockname()}, **kw)
        self.b = P2PSession(Entities(), self.clocks[1], local_player=1,
                            peers={0: self.to_b.getsockname()}, **kw)
        self.late = late
        self.held: collections.deque[bytes] = collections.deque()
        self.flip = 1
        while not (self.a.synchronized and self.b.synchronized):
            self.a.pump()
            self.b.pump()
            self.move()
        for _ in range(late + 20):
            self.setup()
            self.a.pump()

    def move(self):
        """a's datagrams to b at once; b's to a ``late`` frames later."""
        for inbox, keep in ((self.to_a, False), (self.to_b, True)):
            while True:
                try:
                    data, _ = inbox.recvfrom(2048)
                except BlockingIOError:
                    break
                if keep:
                    self.held.append(data)
                else:
                    self.to_b.sendto(data, self.b.address)
        while len(self.held) > self.late:
            self.to_a.sendto(self.held.popleft(), self.a.address)

    def setup(self):
        """Peer 1's frame, the datagrams moved, peer 0's next frame due."""
        if self.late:
            self.flip = -self.flip           # a new input each frame: every prediction wrong
        self.b.add_local_input(self.flip)
        self.clocks[1].advance_ticks(2)
        self.b.pump()
        self.move()
        self.clocks[0].advance_ticks(2)

    def close(self):
        for thing in (self.a, self.b, self.to_a, self.to_b):
            thing.close()


@pytest.fixture
def pair(request):
    made = Pair(request.param)
    yield made
    made.close()


def test_floor(benchmark):
    calls, x = [], 1
    count = calls.count

    def thousand():
        for _ in range(1000):
            count(x)

    benchmark.group = "netplay-frame"
    benchmark.pedantic(thousand, rounds=ROUNDS, iterations=1)


def test_plain_frame(benchmark):
    world = Entities()

    def frame():
        world.apply("p0", 1)
        world.apply("p1", -1)
        world.step(1 / 60)

    benchmark.group = "netplay-frame"
    benchmark.pedantic(frame, rounds=ROUNDS, iterations=1)


class counted:  # noqa: N801 - used as a function
    """``function``, counting its calls: pytest-benchmark runs it ROUNDS times, or once
    with --benchmark-disable (as CI runs the benchmarks, so they cannot rot)."""

    def __init__(self, function):
        self.function, self.calls = function, 0

    def __call__(self):
        self.calls += 1
        return self.function()


@pytest.mark.parametrize("pair", [0], indirect=True)
def test_session_frame(benchmark, pair):
    before = pair.a.stats()
    benchmark.group = "netplay-frame"
    pumps = counted(pair.a.pump)
    benchmark.pedantic(pumps, setup=pair.setup, rounds=ROUNDS, iterations=1)
    after = pair.a.stats()
    assert after.rollbacks == before.rollbacks          # none: this is the plain frame
    assert after.frame - before.frame == pumps.calls    # (one, with --benchmark-disable)


def test_udp(benchmark):
    a, b = (socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2))
    for s in (a, b):
        s.bind(("127.0.0.1", 0))
        s.setblocking(False)
    target, data = b.getsockname(), b"x" * 250

    def send_and_receive():
        a.sendto(data, target)
        b.recvfrom(2048)
        try:
            b.recvfrom(2048)
        except BlockingIOError:
            pass

    benchmark.group = "netplay-frame"
    try:
        benchmark.pedantic(send_and_receive, rounds=ROUNDS, iterations=1)
    finally:
        a.close()
        b.close()


def test_plain_8_steps_and_restore(benchmark):
    world = Entities()
    start = world.snapshot()

    def rollback():
        world.restore(start)
        for _ in range(LATE):
            world.apply("p0", 1)
            world.apply("p1", -1)
            world.step(1 / 60)

    benchmark.group = "netplay-rollback"
    benchmark.pedantic(rollback, rounds=ROUNDS, iterations=1)


@pytest.mark.parametrize("pair", [LATE], indirect=True)
def test_session_rollback_8(benchmark, pair):
    before = pair.a.stats()
    benchmark.group = "netplay-rollback"
    pumps = counted(pair.a.pump)
    benchmark.pedantic(pumps, setup=pair.setup, rounds=ROUNDS, iterations=1)
    after = pair.a.stats()
    # Every timed frame rolled back exactly 8 frames (and ran the new one).
    assert after.rollbacks - before.rollbacks == pumps.calls
    assert after.frames_resimulated - before.frames_resimulated == LATE * pumps.calls
