"""A scripted netplay peer, run in its own process by the netplay tests, and its world.

``run_peer(conn, config)`` plays a :class:`cvcclock.netplay.P2PSession` on a live clock
(the wall drives it, as in a game) with inputs scripted by frame, and sends what it saw
back through ``conn``: progress lines while it runs, then one result dict.
"""

from __future__ import annotations

import time

from cvcclock import ClockConfig, WorldClock
from cvcclock.netplay import P2PSession

FIXED_DT = 1 / 240
DT = 1 / 120          # a frame: 2 quanta


class Swarm:
    """A world of ``size`` integer entities, each pushed by one player's input.

    The inputs are ints, lists or dicts (JSON values of several shapes); every entity's
    value mixes its neighbour's, so a change anywhere spreads. ``flip_at`` flips one bit of
    entity 0 in the step of that frame: a desync that only this world has.
    """

    def __init__(self, players: int = 2, size: int = 8, flip_at: int | None = None) -> None:
        self.values = list(range(size))
        self.pushes = [0] * players
        self.frame = 0
        self.flip_at = flip_at

    def apply(self, name, value):
        player = int(name[1:])
        if isinstance(value, dict):
            value = value["dx"] * (2 if value.get("fast") else 1)
        elif isinstance(value, list):
            value = sum(value)
        elif isinstance(value, str):
            value = len(value) % 7
        self.pushes[player] = 0 if value is None else value

    def step(self, dt):
        n = len(self.values)
        old = self.values
        self.values = [(old[i] * 31 + old[i - 1] + self.pushes[i % len(self.pushes)] + i)
                       % 1_000_003 for i in range(n)]
        if self.frame == self.flip_at:
            self.values[0] ^= 1
        self.frame += 1

    def snapshot(self):
        return (self.frame, tuple(self.values), tuple(self.pushes))

    def restore(self, snapshot):
        self.frame, values, pushes = snapshot
        self.values, self.pushes = list(values), list(pushes)


def script(player: int, frame: int):
    """Player ``player``'s input while ``frame`` is the next to run: a value of one of
    several JSON shapes, changing every few frames."""
    k = (frame * (3 + player) // (5 + 2 * player) + player) % 11
    if k < 4:
        return k - 2
    if k < 6:
        return None
    if k < 8:
        return [k, -1]
    return {"dx": k - 9, "fast": k == 10}


def run_peer(conn, config: dict) -> None:
    """Play ``config["frames"]`` frames, then wait until the peer has every input it needs
    from us (or was disconnected), and send the result."""
    world = Swarm(flip_at=config.get("flip_at"))
    clock = WorldClock(ClockConfig(fixed_dt=FIXED_DT))
    session = P2PSession(world, clock, local_player=config["player"],
                         peers={p: tuple(a) for p, a in config["peers"].items()},
                         session_key=config["key"], dt=config.get("dt", DT),
                         input_delay=config.get("input_delay", 2),
                         max_prediction=config.get("max_prediction", 8),
                         desync_interval=config.get("desync_interval", 10),
                         disconnect_timeout=config.get("disconnect_timeout", 2.0))
    frames = config["frames"]
    deadline = time.monotonic() + config.get("budget", 30.0)
    events, scales, reported, alone_from, done_at = [], set(), 0, None, None
    last = time.monotonic()
    while time.monotonic() < deadline:
        now = time.monotonic()
        if session.frame < frames - 8:
            session.add_local_input(script(config["player"], session.frame))
            clock.advance(now - last)
        elif session.frame < frames:     # the last frames one quantum a pump: none past N
            session.add_local_input(script(config["player"], session.frame))
            clock.advance_ticks(1)
        last = now
        session.pump()
        scales.add(clock.scale)
        for event in session.events():
            events.append((type(event).__name__, vars(event), time.monotonic()))
        if session.frame >= reported + 30:
            reported = session.frame
            conn.send(("frame", session.frame))
        stats = session.stats()
        if config.get("linger"):     # play on alone for 30 frames once the peer is gone
            gone = [e for e in events if e[0] == "Disconnected"]
            if gone and alone_from is None:
                alone_from = session.frame
            if alone_from is not None and session.frame >= alone_from + 30:
                break
        elif done_at is None and stats.confirmed_frame >= frames - 1 and all(
                p.acked_frame >= frames - 1 or not p.connected for p in stats.peers.values()):
            done_at = now
        if done_at is not None and now - done_at > 0.3:    # its last acks reach the peer
            break
        time.sleep(0.0005)
    stats = session.stats()
    confirmed = min(stats.confirmed_frame + 1, frames)
    trace = session.trace(frames=confirmed)
    conn.send(("result", {
        "events": events,
        "snapshot": world.snapshot() if stats.confirmed_frame + 1 == session.frame else None,
        "confirmed": confirmed,
        "frame": session.frame,
        "trace": list(trace.lines()),
        "rollbacks": stats.rollbacks,
        "resimulated": stats.frames_resimulated,
        "stalled": stats.stalled,
        "dropped": dict(stats.dropped),
        "scales": sorted(scales),
        "tick": clock.tick,
        "total_dropped": clock.total_dropped,
        "alone_from": alone_from,
    }))
    session.close()
