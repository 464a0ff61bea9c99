"""Two peers in two processes through a lossy UDP relay on 127.0.0.1.

The relay (in the test's process) delays every datagram 20-150 ms (so they overtake each
other), drops a quarter and duplicates some; each peer runs a live clock with scripted
inputs. Every test is bounded (each wait has a deadline) and kills what it started.
"""

from __future__ import annotations

import multiprocessing
import secrets
import time

import pytest

from cvcclock import ClockConfig, Mode, WorldClock
from cvcclock.netplay import LossyRelay
from cvcclock.replay import InputTrace, Replayer
from support.netplay_peers import FIXED_DT, Swarm, run_peer
from support.pacings import DRIVER_PACINGS

BUDGET = 40.0          # seconds a peer may take; the tests end well before


class Match:
    """Two spawned peers and the relay between them; ``close()`` kills what is left."""

    def __init__(self, relay: LossyRelay, frames: int, **config) -> None:
        self.relay = relay.start()
        context = multiprocessing.get_context("spawn")
        key = secrets.token_bytes(32)
        self.pipes, self.procs = [], []
        for player in (0, 1):
            mine, theirs = context.Pipe()
            other = 1 - player
            peer_config = {"player": player, "peers": {other: relay.address_of(other)},
                           "key": key, "frames": frames, "budget": BUDGET, **config}
            peer_config.update(config.get(f"p{player}", {}))
            proc = context.Process(target=run_peer, args=(theirs, peer_config), daemon=True)
            proc.start()
            self.pipes.append(mine)
            self.procs.append(proc)

    def wait(self, player: int, kind: str, timeout: float, until=lambda value: True):
        """The next message of ``kind`` from ``player`` that satisfies ``until``."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            if self.pipes[player].poll(min(left, 0.5)):
                got, value = self.pipes[player].recv()
                if got == kind and until(value):
                    return value
            elif not self.procs[player].is_alive():
                break
        raise AssertionError(f"peer {player} sent no {kind} within {timeout} s")

    def close(self) -> None:
        for proc in self.procs:
            if proc.is_alive():
                proc.kill()
            proc.join(timeout=10)
        self.relay.close()


@pytest.fixture
def match():
    made = []

    def make(relay, frames, **config):
        made.append(Match(relay, frames, **config))
        return made[-1]

    yield make
    for m in made:
        m.close()


def frame_hashes(lines: list[str]) -> InputTrace:
    return InputTrace.from_lines([*lines, ""])


def replayed_state(trace: InputTrace, pacing=None):
    """The offline run of ``trace`` through cvcclock.replay (under ``pacing``, or one
    advance_ticks to the end): the world's final state."""
    clock = WorldClock(ClockConfig(fixed_dt=FIXED_DT))
    world = Swarm()
    replayer = Replayer(world, clock, trace)
    if pacing is None:
        clock.advance_ticks(trace.end_tick)
        replayer.pump()
    else:
        setup, frame = pacing
        setup(clock)
        clock.mode = clock.mode if clock.mode != Mode.REPLAY else Mode.LIVE
        for _ in range(100_000):
            if replayer.done:
                break
            frame(clock)
            replayer.pump()
    assert replayer.done and replayer.divergences == []
    assert len(replayer.checked) == len(trace.hashes)
    return world.snapshot()


def test_600_frames_through_loss_delay_jitter_and_duplicates_agree_frame_by_frame(match):
    relay = LossyRelay(delay=0.02, jitter=0.13, loss=0.25, duplicate=0.1, seed=26)
    # Frames of one quantum (240 a second) and room to predict 16: the match is bound by the
    # network's delay, not the frame rate, and takes a few seconds.
    m = match(relay, 600, desync_interval=1, dt=FIXED_DT, max_prediction=16)
    results = [m.wait(p, "result", BUDGET + 10) for p in (0, 1)]
    traces = [frame_hashes(r["trace"]) for r in results]
    for r in results:
        assert r["confirmed"] == 600 and r["snapshot"] is not None
        names = [e[0] for e in r["events"]]
        # No desync, no disconnection (on a busy machine a peer may go quiet for a while).
        assert names[0] == "Synchronized"
        assert set(names[1:]) <= {"NetworkInterrupted", "NetworkResumed"}, names
    # Every confirmed frame hashed on each side, all equal; the two traces are one.
    assert len(traces[0].hashes) == 600 and traces[0].end_tick == 600
    assert traces[0].hashes == traces[1].hashes
    assert traces[0].inputs == traces[1].inputs and len(traces[0].inputs) == 1200
    # The network did its worst, and the sessions rolled back for it.
    assert relay.dropped > 100 and relay.duplicated > 20
    assert sum(r["rollbacks"] for r in results) > 0
    assert sum(r["dropped"]["replayed"] for r in results) > 0    # the duplicates
    # Each peer's final confirmed state == the offline replay of the merged trace.
    offline = replayed_state(traces[0])
    for r in results:
        assert tuple(r["snapshot"][0:1]) + (tuple(r["snapshot"][1]), tuple(r["snapshot"][2])) \
            == offline
    # ... under every pacing of the replay.
    for name in ("live 1x", "live 2.5x", "lockstep", "batch", "single-step"):
        assert replayed_state(traces[0], DRIVER_PACINGS[name]) == offline, name


def test_a_one_bit_change_is_reported_at_the_first_exchanged_frame_on_both_peers(match):
    relay = LossyRelay(delay=0.01, jitter=0.03, loss=0.1, seed=3)
    m = match(relay, 120, desync_interval=10, p1={"flip_at": 37})
    results = [m.wait(p, "result", BUDGET + 10) for p in (0, 1)]
    for player, r in enumerate(results):
        desyncs = [fields for name, fields, _ in r["events"] if name == "Desync"]
        assert desyncs, r["events"]
        first = desyncs[0]
        assert first["frame"] == 40 and first["peer"] == 1 - player
        assert first["local_hash"] != first["remote_hash"]
        assert all(d["frame"] >= 40 for d in desyncs)
    # The two peers name the same two hashes, each its own as local.
    d0 = next(f for n, f, _ in results[0]["events"] if n == "Desync")
    d1 = next(f for n, f, _ in results[1]["events"] if n == "Desync")
    assert (d0["local_hash"], d0["remote_hash"]) == (d1["remote_hash"], d1["local_hash"])


def test_killing_a_peer_gives_disconnected_within_the_timeout_and_a_half(match):
    relay = LossyRelay(delay=0.005, jitter=0.01, seed=5)
    m = match(relay, 100_000, disconnect_timeout=1.0, linger=True)
    m.wait(1, "frame", 30, until=lambda f: f >= 60)
    m.wait(0, "frame", 30, until=lambda f: f >= 60)
    m.procs[1].kill()
    killed = time.monotonic()
    m.procs[1].join(timeout=10)
    r = m.wait(0, "result", 10)
    names = [e[0] for e in r["events"]]
    assert "Disconnected" in names, names
    at = next(t for n, f, t in r["events"] if n == "Disconnected" and f["peer"] == 1)
    assert killed < at <= killed + 1.0 + 0.5
    assert names.index("NetworkInterrupted") < names.index("Disconnected")
    # Alone, it plays on: the other player's input is None, confirmed, never a stall.
    assert r["frame"] >= r["alone_from"] + 30 and r["confirmed"] == r["frame"]
