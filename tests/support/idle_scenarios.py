"""One idle car, the scenario of the tests about how a run ends: ``Forever`` is ended by
nothing but a limit, ``Ends(n)`` ends itself after ``n`` time steps."""

from __future__ import annotations

from collections.abc import Iterator

from cvcclock.scenario import Scenario, Vehicle, wait


def idle(car: object) -> Iterator[object]:
    while True:
        yield wait()


class Forever(Scenario):
    """One idle car: nothing ever ends the run but a limit."""

    def setup(self, s):
        s.add_agent("car", Vehicle(), idle)


class Ends(Forever):
    """Ends itself after ``steps`` time steps (``terminate_after``)."""

    def __init__(self, steps: int) -> None:
        self.steps = steps

    def setup(self, s):
        super().setup(s)
        s.terminate_after(steps=self.steps)
