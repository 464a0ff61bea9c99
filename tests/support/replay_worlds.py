"""Tiny worlds and drivers shared by the replay tests."""

import struct

from cvcclock import ClockConfig, Mode, WorldClock
from cvcclock.seeding import RandomStreams

FIXED_DT = 0.01


class Tiny:
    """A world whose state depends on the exact step each input reaches it at.

    ``seen`` records ``(steps run, name, value)`` for every input applied; ``x`` follows a
    chaotic map, so an input applied one step late gives another trajectory.
    """

    def __init__(self):
        self.n, self.x, self.seen = 0, 0.25, ()

    def step(self, dt):
        self.n += 1
        self.x = (3.9 * self.x * (1.0 - self.x) + dt) % 1.0

    def apply(self, name, value):
        self.seen += ((self.n, name, value),)
        self.x = (self.x + 0.001 * value) % 1.0

    def snapshot(self):
        return (self.n, self.x, self.seen)

    def restore(self, snapshot):
        self.n, self.x, self.seen = snapshot


class Flipping(Tiny):
    """A Tiny that flips the lowest bit of ``x`` right after its step due at ``flip_at``."""

    def __init__(self, clock, flip_at, period):
        super().__init__()
        self.clock, self.flip_at, self.period = clock, flip_at, period

    def step(self, dt):
        super().step(dt)
        if self.n * self.period == self.flip_at:
            (bits,) = struct.unpack("<Q", struct.pack("<d", self.x))
            (self.x,) = struct.unpack("<d", struct.pack("<Q", bits ^ 1))


class Noisy(Tiny):
    """A Tiny that also draws from a named random stream every step."""

    def __init__(self, seed):
        super().__init__()
        self.streams = RandomStreams(seed)

    def step(self, dt):
        super().step(dt)
        self.x = (self.x + 0.01 * self.streams.get("wind").random()) % 1.0

    def snapshot(self):
        return (super().snapshot(), self.streams.state())

    def restore(self, snapshot):
        super().restore(snapshot[0])
        self.streams.restore(snapshot[1])


def new_clock(**config):
    return WorldClock(ClockConfig(fixed_dt=FIXED_DT, **config))


def tracked(world):
    """``({due tick: snapshot}, on_step)``: an ``on_step`` that fills the dict from ``world``."""
    trajectory = {}
    return trajectory, lambda due: trajectory.__setitem__(due, world.snapshot())


PACINGS = {
    "live 1x": (Mode.LIVE, 1.0, lambda c: c.advance(1 / 60)),
    "live 2x": (Mode.LIVE, 2.0, lambda c: c.advance(1 / 60)),
    "live 0.5x": (Mode.LIVE, 0.5, lambda c: c.advance(1 / 60)),
    "lockstep x3": (Mode.LOCKSTEP, 1.0, lambda c: c.advance(1 / 60)),
    "batch 37": (Mode.LIVE, 1.0, lambda c: c.advance_ticks(37)),
    "single-step": (Mode.STEPPING, 1.0, lambda c: c.step_once()),
}
