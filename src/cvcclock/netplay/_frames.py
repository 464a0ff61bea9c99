"""What both sessions share: the world's frames on the clock, their inputs, their states.

A frame is one step of a follower of ``dt`` on the clock, numbered from 0. Before frame
``f``'s ``step`` the world receives ``apply("p0", value)``, ``apply("p1", value)``, ... An
input travels and is stored as its compact JSON text; the world receives that text decoded,
on every peer and in every re-simulation, so all of them apply the very same value.
"""

from __future__ import annotations

import json
from typing import Any

from cvcclock._core import ClockFollower, WorldClock, ticks_per_step
from cvcclock.checks import check_callable, check_count, check_seconds
from cvcclock.replay import StateHash, World, default_state_hash

__all__ = ["MAX_INPUT_BYTES", "NULL", "Frames"]

MAX_INPUT_BYTES = 128
"""The longest input, as compact JSON: a window of them must fit in one datagram."""

NULL = "null"


class Frames:
    """The world, its frame follower, its per-frame inputs and saved states."""

    def __init__(self, world: World, clock: WorldClock, players: int, dt: float | None,
                 state_hash: StateHash | None) -> None:
        if not isinstance(world, World):
            raise TypeError(f"world must have step(dt), apply(name, value), snapshot() and "
                            f"restore(snapshot) methods, got {world!r}")
        if not isinstance(clock, WorldClock):
            raise TypeError(f"clock must be a cvcclock.WorldClock, got {clock!r}")
        self.players = check_count(players, "players", minimum=1, maximum=64)
        if dt is None:
            dt = clock.fixed_dt
        dt = check_seconds(dt, "dt")
        self.period = ticks_per_step(dt, clock.fixed_dt)
        check_callable(state_hash, "state_hash", optional=True)
        self.state_hash: StateHash = default_state_hash if state_hash is None else state_hash
        self.world = world
        self.clock = clock
        self.dt = dt
        self.names = tuple(f"p{i}" for i in range(self.players))
        self.follower: ClockFollower | None = None
        self.frame = 0                   # the next frame to run
        # frame -> the world's snapshot after it (-1: the start). Snapshots alone, not
        # replay Keyframes: a rollback never moves the clock, and a Keyframe (a frozen
        # dataclass and clock.state()) each frame cost a tenth of a frame's budget.
        self.saved: dict[int, Any] = {}
        self._decoded: dict[str, Any] = {NULL: None}

    def start(self) -> None:
        """Follow the clock from now: frame 0 runs at the follower's first due step."""
        self.follower = ClockFollower.for_step(self.clock, self.dt)
        self.saved[-1] = self.world.snapshot()

    def due(self) -> int:
        """The frames that fell due since the last call (0 before ``start``)."""
        return 0 if self.follower is None else self.follower.take(self.clock)

    def decode(self, text: str) -> Any:
        """An input's value from its text: scalars cached, lists and dicts fresh each time
        (a world may keep or change what it is given)."""
        value = self._decoded.get(text, self)
        if value is self:
            value = json.loads(text)
            if isinstance(value, list | dict):
                return value
            if len(self._decoded) < 4096:
                self._decoded[text] = value
        return value

    def run(self, frame: int, inputs: list[str] | tuple[str, ...]) -> Any:
        """Apply ``inputs`` (one text per player), step, keep and return the snapshot."""
        world = self.world
        for name, text in zip(self.names, inputs, strict=True):
            world.apply(name, self.decode(text))
        world.step(self.dt)
        snapshot = self.saved[frame] = world.snapshot()
        return snapshot

    def restore(self, frame: int) -> None:
        """Put the world back to its state after ``frame`` (-1: the start)."""
        self.world.restore(self.saved[frame])

    def hash_of(self, frame: int) -> str:
        return self.state_hash(self.saved[frame])

    def forget_before(self, frame: int) -> None:
        """Drop the states saved before ``frame`` (rollbacks go no further back)."""
        saved = self.saved
        for old in [f for f in saved if f < frame] if len(saved) > 1 else ():
            del saved[old]
