"""The scenario runner's time steps per second with 1, 10, 100 and 1,000 agents, and its overhead.

Run with ``pytest benchmarks/test_bench_scenario.py --benchmark-only``. Each group runs
STEPS[n] time steps of n agents per round (a fresh runner per round, set up outside the
timing): steps per second is ``STEPS[n] / time``. Every agent runs the trivial behavior
``while True: yield WAIT``.

Rows in a group:

* ``bare``: the irreducible work driving the same behaviors through the same simulator by
  hand: resume each generator, step the simulator, read each object's properties.
* ``runner-null``: a ``ScenarioRunner`` pumped after ``advance_ticks`` over a simulator
  whose methods do nothing, so ``(runner-null - bare) / (n * STEPS[n])`` is the runner's
  overhead per agent-step: the phases, guard and yield checks, the per-step actions and
  trajectory entries.
* ``runner-pointmass``: the same with the reference point-mass simulator, for scale.
"""

import pytest

from cvcclock import ClockConfig, WorldClock
from cvcclock.scenario import WAIT, PointMassSimulator, Scenario, ScenarioRunner, Vehicle

DT = 0.05
STEPS = {1: 2000, 10: 500, 100: 100, 1000: 20}


def trivial(agent):
    while True:
        yield WAIT


class NullSimulator:
    """Does nothing: what is left is the runner's own cost."""

    PROPS = {"x": 0.0}

    def create_object(self, name, spec):
        return name

    def apply_action(self, handle, action):
        pass

    def step(self, dt):
        pass

    def get_properties(self, handle):
        return self.PROPS


class Crowd(Scenario):
    dt = DT

    def __init__(self, n, simulator):
        self.n, self.make = n, simulator

    def simulator(self):
        return self.make()

    def setup(self, s):
        for i in range(self.n):
            s.add_agent(f"a{i}", Vehicle(y=float(i)), trivial)


def bare_steps(gens, handles, sim, steps):
    get = sim.get_properties
    for _ in range(steps):
        for g in gens:
            next(g)
        sim.step(DT)
        for h in handles:
            get(h)


def make_bare(n):
    sim = NullSimulator()
    handles = [sim.create_object(f"a{i}", None) for i in range(n)]
    return (([trivial(None) for _ in range(n)], handles, sim, STEPS[n]), {})


def make_runner(n, simulator):
    clock = WorldClock(ClockConfig(fixed_dt=DT))
    runner = ScenarioRunner(Crowd(n, simulator), clock, seed=0, max_steps=STEPS[n])
    return ((clock, runner, STEPS[n]), {})


def run_runner(clock, runner, steps):
    clock.advance_ticks(steps + 1)     # the last step only checks termination
    runner.pump()
    assert runner.done and runner.result.steps == steps


@pytest.mark.parametrize("n", list(STEPS))
@pytest.mark.parametrize("subject", ["bare", "runner-null", "runner-pointmass"])
def test_time_steps(benchmark, n, subject):
    benchmark.group = f"scenario: {n} agents x {STEPS[n]} time steps a round"
    benchmark.extra_info["agent_steps_per_round"] = n * STEPS[n]
    if subject == "bare":
        benchmark.pedantic(bare_steps, setup=lambda: make_bare(n), rounds=30)
    else:
        sim = NullSimulator if subject == "runner-null" else PointMassSimulator
        benchmark.pedantic(run_runner, setup=lambda: make_runner(n, sim), rounds=30)
