"""Scenic simulators with a hook in their step, for the tests of stopping and keeping up."""

from __future__ import annotations

import threading
import time

from scenic.core.simulators import DummySimulation, DummySimulator


class HookedSimulation(DummySimulation):
    def __init__(self, scene, hook, **kwargs):
        self.hook = hook
        self.real_time = True    # MetaDrive's switch: a paced run turns it off
        self.saw_real_time: list[bool] = []
        super().__init__(scene, drift=0.25, **kwargs)

    def step(self):
        self.saw_real_time.append(self.real_time)
        self.hook()
        super().step()


class HookedSimulator(DummySimulator):
    """A DummySimulator whose every step calls ``hook()`` first."""

    def __init__(self, hook=lambda: None):
        super().__init__(drift=0.25)
        self.hook = hook
        self.simulations: list[HookedSimulation] = []

    def createSimulation(self, scene, **kwargs):
        sim = HookedSimulation(scene, self.hook, **kwargs)
        self.simulations.append(sim)
        return sim


def slow(seconds: float) -> HookedSimulator:
    """Each step sleeps ``seconds``: a simulator that cannot keep up with a short step."""
    return HookedSimulator(lambda: time.sleep(seconds))


def blocked() -> tuple[HookedSimulator, threading.Event, threading.Event]:
    """Each step sets ``entered``, then blocks until ``release`` is set (at most 10 s)."""
    entered, release = threading.Event(), threading.Event()
    return HookedSimulator(lambda: entered.set() or release.wait(10.0)), entered, release
