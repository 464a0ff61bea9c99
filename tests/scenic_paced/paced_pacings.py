"""The ways a test drives the clock under a paced Scenic run, until the run ends.

Each pacing sets the clock up, then drives frame after frame, waiting for the run to catch
up after each (as a capture does), until the simulation ends. The live pacings run in real
time (``ScenicRun.play``, a FrameLoop measuring wall time), so they are kept short by the
programs' small timestep.
"""

from __future__ import annotations

import random
import time

import numpy as np

from cvcclock import Mode, WorldClock, WorldClockBinding

_BOUND = 30.0   # seconds: a pacing that has not ended its run by then fails the test


def _frames(run, frame) -> None:
    deadline = time.monotonic() + _BOUND
    while not run.done:
        frame()
        assert run.wait_caught_up(_BOUND)
        assert time.monotonic() < deadline, "the run did not end"


def live(scale: float):
    def pace(run, clock: WorldClock) -> None:
        clock.mode, clock.scale = Mode.LIVE, scale
        run.play(fps=240.0, wait_timeout=_BOUND)
    return pace


def lockstep(run, clock: WorldClock) -> None:
    clock.mode, clock.lockstep_steps = Mode.LOCKSTEP, 3
    _frames(run, lambda: clock.advance(0.0))


def batch(run, clock: WorldClock) -> None:
    _frames(run, lambda: clock.advance_ticks(5))


def single_step(run, clock: WorldClock) -> None:
    clock.mode = Mode.STEPPING
    _frames(run, clock.step_once)


def paused_then_resumed(run, clock: WorldClock) -> None:
    """Captured live frames; paused after a few steps, while this thread draws from the
    global streams the run also draws from; then resumed."""
    clock.mode = Mode.LIVE
    for _ in range(3):
        clock.advance(1 / 60)
        assert run.wait_caught_up(_BOUND)
    clock.mode = Mode.PAUSED
    for _ in range(5):
        clock.advance(1 / 60)
        random.random()
        np.random.random(3)
        time.sleep(0.005)
    clock.mode = Mode.LIVE
    _frames(run, lambda: clock.advance(1 / 60))


def binding(run, clock: WorldClock) -> None:
    """A host's tree: the run's keys are published; the step key single-steps a paused
    clock, then the paused key is cleared."""
    tree: dict = {}
    host = WorldClockBinding(tree, clock)
    run.bind(host)
    tree["sim.paused"] = True
    host.drive(0.0)
    for _ in range(4):
        tree["sim.step"] += 1
        host.drive(0.0)
        assert run.wait_caught_up(_BOUND)
    tree["sim.paused"] = False
    _frames(run, lambda: host.drive(1 / 30))
    host.drive(0.0)
    assert tree["sim.scenic.step"] == run.steps
    assert tree["sim.scenic.termination"] == run.termination


PACINGS = {
    "live 0.5x": live(0.5),
    "live 1x": live(1.0),
    "live 3x": live(3.0),
    "lockstep": lockstep,
    "batch": batch,
    "single-step": single_step,
    "paused then resumed": paused_then_resumed,
    "binding": binding,
}
