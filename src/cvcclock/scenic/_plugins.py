"""Switch off the pacing Scenic's simulator interfaces do on their own.

Each interface paces itself ad hoc: MetaDrive sleeps after each step when ``real_time`` is
set, Newtonian sleeps one timestep after drawing. Under a paced run the clock decides when
a step runs, so those sleeps only hide whether the simulator keeps up: they go, and drawing
runs inside ``clock.presenting()`` (it costs no world time). Applied to the one
``Simulation`` instance the run begins, never to the classes.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any

from cvcclock._core import WorldClock

__all__ = ["switch_off_own_pacing"]

_NEWTONIAN = "scenic.simulators.newtonian.simulator"


def switch_off_own_pacing(sim: Any, clock: WorldClock) -> None:
    """Turn off ``sim``'s own sleeping and mark its drawing as presentation."""
    if getattr(sim, "real_time", None) is True:      # MetaDrive's MetaDriveSimulation
        sim.real_time = False
    module = sys.modules.get(type(sim).__module__)
    if module is not None and module.__name__ == _NEWTONIAN and callable(
            getattr(sim, "draw_objects", None)):
        sim.draw_objects = _presented_without_sleep(sim.draw_objects, module, clock)


def _presented_without_sleep(draw: Callable[[], object], module: types.ModuleType,
                             clock: WorldClock) -> Callable[[], object]:
    """``draw`` inside ``clock.presenting()``, with its module's ``time.sleep`` a no-op.

    Newtonian's ``draw_objects`` ends with ``time.sleep(self.timestep)`` on the module's
    ``time``; only this run's thread calls into the module while the slot is held, so the
    module's name is swapped for the call.
    """
    real = module.time
    quiet = types.SimpleNamespace(**{name: getattr(real, name) for name in dir(real)
                                     if not name.startswith("__")})
    quiet.sleep = lambda seconds: None

    def draw_presented() -> object:
        module.time = quiet  # type: ignore[attr-defined]
        try:
            with clock.presenting():
                return draw()
        finally:
            module.time = real  # type: ignore[attr-defined]

    return draw_presented
