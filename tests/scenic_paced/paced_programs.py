"""Scenic programs for the paced-run tests, and the plain Scenic run each is compared with.

Each program runs on Scenic's DummySimulator and on the Newtonian simulator headless; the
actions are ``Push``, a real Action that sets a velocity (Newtonian integrates it; the
DummySimulator, which drifts every object, ignores actions), so both simulators take them.
Every program draws dynamic randomness (``Range`` inside behaviors), so seeding matters.
"""

from __future__ import annotations

import random

import numpy as np
import scenic
from scenic.core.simulators import DummySimulator

# A real Action every program may take: Newtonian integrates the velocity it sets.
PRELUDE = """
from scenic.core.dynamics.actions import Action
class Push(Action):
    def __init__(self, v):
        self.v = v
    def applyTo(self, obj, sim):
        obj.velocity = Vector(0, self.v, 0)
"""

PROGRAMS = {
    "behaviors": """
behavior Wander():
    while True:
        take Push(Range(0, 2))
ego = new Object with behavior Wander
other = new Object at (Range(-5, 5), 4), with behavior Wander
""",
    "interrupts": """
behavior Cruise():
    try:
        while True:
            take Push(Range(0, 1))
    interrupt when self.position.y > 0.6:
        take Push(-1)
        wait
ego = new Object with behavior Cruise
record ego.position.y as y
""",
    "monitors": """
monitor Watch():
    while True:
        if ego.position.y > Range(1.5, 2.5):
            terminate
        wait
behavior Go():
    while True:
        take Push(Range(0.5, 1.5))
ego = new Object with behavior Go
require monitor Watch()
""",
    "sub-scenarios": """
scenario Leg(dist):
    setup:
        mover = new Object at (Range(-3, 3), 0), with behavior Steps(dist)
    compose:
        wait
        wait
behavior Steps(n):
    for i in range(n):
        take Push(Range(0, 1))
scenario Main():
    setup:
        ego = new Object at (0, -5)
    compose:
        do Leg(2)
        do Leg(3)
        terminate
""",
    "require": """
behavior Jitter():
    while True:
        take Push(Range(-1, 1))
ego = new Object at (Range(-2, 2), 0), with behavior Jitter
require ego.position.x > -1.5
require always ego.position.y < 50
""",
    "records": """
behavior Climb():
    while True:
        take Push(Range(0, 3))
ego = new Object with behavior Climb
record initial ego.position as start
record ego.position.y as height
record final ego.position as finish
record (simulation().currentTime, Range(0, 1)) as stamped
""",
    "terminate-when": """
behavior Go():
    while True:
        take Push(Range(1, 2))
ego = new Object with behavior Go
terminate when ego.position.y > 1.0 or simulation().currentTime >= 9
""",
    "do-for-until": """
behavior Slow():
    while True:
        take Push(0.2)
behavior Fast():
    while True:
        take Push(Range(1, 2))
behavior Mixed():
    do Slow() for 2 steps
    do Fast() until self.position.y > 0.3
    do Slow() for 0.5 seconds
    terminate
ego = new Object with behavior Mixed
""",
    "require-eventually": """
behavior Go():
    while True:
        take Push(Range(0, 1))
ego = new Object with behavior Go
require eventually ego.position.y > -1
terminate when simulation().currentTime >= 6
""",
    "terminate-simulation": """
behavior Go():
    for i in range(DiscreteRange(2, 5)):
        take Push(Range(0, 1))
    terminate simulation
ego = new Object with behavior Go
b = new Object at (3, 0), with behavior Go
""",
    "override": """
behavior Go(v):
    while True:
        take Push(v)
scenario Swap():
    setup:
        override ego with behavior Go(Range(2, 3))
    compose:
        wait
        wait
        wait
scenario Main():
    setup:
        ego = new Object with behavior Go(Range(0, 1))
    compose:
        wait
        do Swap()
""",
    "dynamic-objects": """
behavior Go():
    while True:
        take Push(Range(0, 1))
scenario Main():
    setup:
        ego = new Object with behavior Go
    compose:
        wait
        new Object at (Range(2, 4), 0)
        wait
        new Object at (-3, Range(0, 1))
        wait
        wait
""",
}

MAX_STEPS = 12
TIMESTEP = 0.01     # small: the live pacings run in a fraction of a second
SCENE_SEED = 11
RUN_SEED = 5

_compiled: dict[str, object] = {}


def scenario(name: str):
    """The compiled scenario of program ``name`` (compiled once per process)."""
    if name not in _compiled:
        _compiled[name] = scenic.scenarioFromString(PRELUDE + PROGRAMS[name],
                                                    filename=f"<{name}>")
    return _compiled[name]


def scene(name: str, seed: int = SCENE_SEED):
    """A scene of program ``name``, generated with the global streams seeded."""
    random.seed(seed)
    np.random.seed(seed)
    return scenario(name).generate(maxIterations=200)[0]


def simulator(kind: str):
    """A fresh headless simulator: ``"dummy"`` or ``"newtonian"``."""
    if kind == "dummy":
        return DummySimulator(drift=0.25)
    from scenic.simulators.newtonian import NewtonianSimulator

    return NewtonianSimulator(render=False)


SIMULATORS = ("dummy", "newtonian")


def plain_run(kind: str, the_scene, seed: int = RUN_SEED, **kwargs):
    """The plain Scenic run a paced one must equal: seeded, then ``simulate``."""
    random.seed(seed)
    np.random.seed(seed)
    return simulator(kind).simulate(the_scene, maxSteps=MAX_STEPS, timestep=TIMESTEP,
                                    **kwargs)
