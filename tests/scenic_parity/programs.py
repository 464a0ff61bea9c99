"""Building blocks for the cvcclock side of the cases: a scenario made of two functions."""

from __future__ import annotations

from cvcclock.scenario import DummyObject, Scenario, take


def at(x=0.0, y=0.0, z=0.0):
    """A DummySimulator object at (x, y, z): Scenic's ``new Object at (x, y, z)``."""
    return DummyObject((float(x), float(y), float(z)))


def forever(value):
    """``while True: take value``."""

    def behavior(agent):
        while True:
            yield take(value)

    return behavior


class Prog(Scenario):
    """A scenario whose ``setup(s)`` and optional ``compose(s)`` are given as functions.

    ``attempt`` counts the attempts (setups) so far, from 1, like the name Scenic gives the
    k-th simulation ("run.k").
    """

    def __init__(self, setup=None, compose=None, name="Main"):
        self._setup, self._name, self.attempt = setup, name, 0
        if compose is not None:
            self.compose = compose

    @property
    def name(self):
        return self._name

    def setup(self, s):
        self.attempt += 1
        if self._setup is not None:
            self._setup(s)
