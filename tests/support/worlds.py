"""Tiny deterministic worlds shared by the thread, determinism and timer tests."""

from __future__ import annotations


class Spring:
    """A SimWorld whose floats drift if a step is skipped, doubled or reordered."""

    def __init__(self) -> None:
        self.n, self.x, self.v = 0, 1.0, 0.0

    def step(self, dt: float) -> None:
        self.n += 1
        self.v -= 4.0 * self.x * dt
        self.x += self.v * dt

    def snapshot(self) -> tuple[int, float, float]:
        return (self.n, self.x, self.v)


class DampedSpring:
    """A damped spring stepped with semi-implicit Euler: real state, sensitive to every step.

    ``step`` returns the new ``(x, v)``, for tests that record the trajectory."""

    def __init__(self) -> None:
        self.x, self.v = 1.0, 0.0

    def step(self, dt: float) -> tuple[float, float]:
        self.v += (-40.0 * self.x - 0.7 * self.v) * dt
        self.x += self.v * dt
        return (self.x, self.v)


class Ship:
    """A ship whose guns are timers: each ``ship.fire`` is a new bound method, equal to the
    others, so ``clock.cancel_all(ship.fire)`` finds every timer it was given to."""

    def __init__(self) -> None:
        self.shots: list[int] = []

    def fire(self, tick: int) -> None:
        self.shots.append(tick)
