"""The ways a driver paces a clock, for tests that must give the same world under each.

Each pacing sets the clock up once, then makes one advancing call per frame: the same
quanta, run at different moments. None of them touches the mode after setup, so a pause
made by a callback holds until the driver resumes.
"""

from __future__ import annotations

from collections.abc import Callable

from cvcclock import Mode, WorldClock

Pacing = tuple[Callable[[WorldClock], None], Callable[[WorldClock], object]]


def _setup(mode: Mode = Mode.LIVE, scale: float = 1.0,
           lockstep_steps: int = 1) -> Callable[[WorldClock], None]:
    def setup(clock: WorldClock) -> None:
        clock.mode, clock.scale, clock.lockstep_steps = mode, scale, lockstep_steps
    return setup


# name -> (setup, frame)
DRIVER_PACINGS: dict[str, Pacing] = {
    "live 1x": (_setup(), lambda c: c.advance(1 / 60)),
    "live 2x": (_setup(scale=2.0), lambda c: c.advance(1 / 60)),
    "live 0.5x": (_setup(scale=0.5), lambda c: c.advance(1 / 60)),
    "live 2.5x": (_setup(scale=2.5), lambda c: c.advance(1 / 60)),
    "lockstep": (_setup(Mode.LOCKSTEP, lockstep_steps=3), lambda c: c.advance(1 / 60)),
    "batch": (_setup(), lambda c: c.advance_ticks(5)),
    "single-step": (_setup(Mode.STEPPING), lambda c: c.step_once()),
    "next due": (_setup(), lambda c: c.advance_to_next_due()),
}
# The pacings whose frame is advance(): a pause holds them for whole frames.
ADVANCING = {"live 1x", "live 2x", "live 0.5x", "live 2.5x", "lockstep"}
