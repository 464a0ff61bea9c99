# mypy: disable-error-code="import-untyped, import-not-found"
# (Scenic, the scenic extra, ships no type information; this module types its own side.)
"""What a paced run changes in Scenic's process-wide state, and puts back: one run at a time.

Scenic keeps the running simulation in module globals (``scenic.syntax.veneer``), so one
process runs one Scenic simulation at a time; ``claim`` makes a second concurrent run a clear
error. While a run holds the slot:

- ``veneer.beginSimulation`` is wrapped, so the run's worker thread learns of its
  ``Simulation`` the moment Scenic begins it (``Simulation.__init__`` runs the whole loop, so
  there is no later moment) and gates that instance's ``step``;
- Scenic's stuck-behavior warning is off (``dynamics.stuckBehaviorWarningTimeout = 0``): it
  arms ``SIGALRM``, and ``signal.signal`` works on the main thread only, so on the worker it
  would raise ``ValueError`` in the first behavior step. The run watches for a stuck step
  itself (``ScenicRun`` warns from its waits);
- the global ``random`` and ``numpy.random`` streams are the run's while it computes and the
  caller's while it waits at a gate (``RandomStreams``).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["RandomStreams", "claim"]

_guard = threading.Lock()
_holder: object | None = None


class Claim:
    """The process's one Scenic run slot, held from ``claim`` until ``release``."""

    def __init__(self, owner: object, begun: Callable[[Any], None],
                 is_worker: Callable[[], bool]) -> None:
        import scenic.core.dynamics as dynamics
        import scenic.syntax.veneer as veneer

        self._owner = owner
        self._veneer, self._dynamics = veneer, dynamics
        self._begin = veneer.beginSimulation
        self.stuck_timeout = float(dynamics.stuckBehaviorWarningTimeout)
        original = self._begin

        def begin_simulation(sim: Any) -> None:
            original(sim)
            if is_worker():
                begun(sim)

        veneer.beginSimulation = begin_simulation
        dynamics.stuckBehaviorWarningTimeout = 0

    def release(self) -> None:
        """Put Scenic's globals back and free the slot. Idempotent."""
        global _holder
        with _guard:
            if _holder is not self._owner:
                return
            self._veneer.beginSimulation = self._begin
            self._dynamics.stuckBehaviorWarningTimeout = self.stuck_timeout
            _holder = None


def claim(owner: object, begun: Callable[[Any], None], is_worker: Callable[[], bool]) -> Claim:
    """Take the slot for ``owner``, or raise RuntimeError naming who holds it."""
    global _holder
    import scenic.syntax.veneer as veneer

    with _guard:
        if _holder is not None:
            raise RuntimeError(
                f"another paced Scenic run is active in this process ({_holder!r}); Scenic "
                "keeps the running simulation in module globals, so one process runs one "
                "simulation at a time: close that run first")
        if veneer.simulationInProgress() or veneer.isActive():
            raise RuntimeError("Scenic is already simulating or compiling in this process; "
                               "a paced run cannot start until it ends")
        held = Claim(owner, begun, is_worker)
        _holder = owner
        return held


class RandomStreams:
    """Swap the global ``random`` and ``numpy.random`` states between a run and its caller.

    Scenic draws its dynamic randomness from the global streams. ``seed`` puts the run's
    seeded states in place; ``away`` (at a gate that will block) keeps the run's states and
    puts the caller's back, ``back`` does the reverse, and ``restore`` leaves the caller's in
    place at the end. So draws the caller makes while the run waits never shift the run's.
    """

    def __init__(self) -> None:
        self._other: tuple[Any, Any] | None = None
        self.away_now = False

    def seed(self, seed: int) -> None:
        self._other = (random.getstate(), np.random.get_state())
        # As Scenic's command line seeds (scenic/__main__.py): both streams, one seed.
        random.seed(seed)
        np.random.seed(seed)

    def away(self) -> None:
        if self._other is None or self.away_now:
            return
        mine = (random.getstate(), np.random.get_state())
        random.setstate(self._other[0])
        np.random.set_state(self._other[1])
        self._other, self.away_now = mine, True

    def back(self) -> None:
        if self._other is None or not self.away_now:
            return
        theirs = (random.getstate(), np.random.get_state())
        random.setstate(self._other[0])
        np.random.set_state(self._other[1])
        self._other, self.away_now = theirs, False

    def restore(self) -> None:
        if self._other is None:
            return
        if not self.away_now:
            random.setstate(self._other[0])
            np.random.set_state(self._other[1])
        self._other, self.away_now = None, False
