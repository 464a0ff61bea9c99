"""What the core's tests watch a clock with: a callback that logs the ticks it fires at, and
what a call that must change nothing is compared on."""

from __future__ import annotations

from cvcclock import WorldClock


class Log:
    """A picklable callback: it records (tick[, count]) at each call."""

    def __init__(self) -> None:
        self.ticks: list[tuple[int, ...]] = []

    def __call__(self, tick: int, *count: int) -> None:
        self.ticks.append((tick, *count))


def observable(clock: WorldClock) -> tuple[object, int]:
    """Everything a bad call must leave as it was."""
    return (clock.state(), clock.discontinuities)
