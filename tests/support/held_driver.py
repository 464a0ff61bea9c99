"""A driver thread held inside a timer callback, for the tests of what other threads may do."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from cvcclock import Timer, WorldClock


@contextlib.contextmanager
def driver_held_in_a_callback(clock: WorldClock, wait: float) -> Iterator[Timer]:
    """Run ``clock.advance_ticks(3)`` on a thread, held in a callback at tick 2 for the block.

    Yields a repeating timer (every 5 ticks, callback ``print``) the driver leaves scheduled.
    On leaving, releases the driver and checks that it finished; ``wait`` bounds every wait.
    """
    inside, release = threading.Event(), threading.Event()

    def blocking(tick: int) -> None:
        inside.set()
        assert release.wait(wait)

    clock.after_ticks(2, blocking)
    other = clock.every_ticks(5, print)
    driver = threading.Thread(target=clock.advance_ticks, args=(3,), daemon=True)
    driver.start()
    try:
        assert inside.wait(wait)
        yield other
    finally:
        release.set()
        driver.join(wait)
    assert not driver.is_alive()
