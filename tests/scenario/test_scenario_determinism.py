"""The runner is a follower: every pacing gives the identical result, and so does a fresh process.

Two scenarios: three wandering vehicles, and a modular one (sub-scenarios in parallel and
in sequence, do ... until, an interrupt whose handler brakes until a random condition),
both rejected mid-run before an attempt is accepted.

Also the README's scenario example: it runs and prints what the README shows.
"""

import contextlib
import io
import os
import pickle
import random
import subprocess
import sys
from pathlib import Path

import pytest

from cvcclock import ClockConfig, Mode, WorldClock
from cvcclock.scenario import (
    Scenario,
    ScenarioRunner,
    Steer,
    Throttle,
    Vehicle,
    do,
    interrupt,
    require,
    simulate,
    take,
)

FIXED_DT = 0.01
DT = 0.06                 # 6 quanta per time step
MAX_STEPS = 40
SEED = 24                 # an attempt rejected mid-run, twice, then accepted


def wander(car):
    """Random throttle and steering from the run's generator, re-drawn every few steps."""
    while True:
        action = take(Throttle(car.rng.uniform(-0.5, 1.0)), Steer(car.rng.uniform(-1.0, 1.0)))
        for _ in range(car.rng.randrange(1, 4)):
            yield action


class Busy(Scenario):
    """Three wandering vehicles; attempts whose vehicles stray too far are rejected mid-run."""

    dt = DT

    def setup(self, s):
        cars = [s.add_agent(f"car{i}", Vehicle(y=4.0 * i, speed=s.rng.uniform(0.0, 5.0)), wander)
                for i in range(3)]
        s.require_always(lambda: all(abs(c.y - 4.0 * i) < 0.4 for i, c in enumerate(cars)),
                         name="in lane")
        s.monitor(lambda sim: (require(sim.step < 1000) or take() for _ in iter(int, 1)),
                  name="sane")
        s.record("lead", lambda: max(c.x for c in cars))
        s.record_final("spread", lambda: max(c.x for c in cars) - min(c.x for c in cars))


class Lane(Scenario):
    """A sub-scenario: a wandering vehicle that must keep to its lane, for a random while."""

    def __init__(self, lane):
        self.lane = lane

    def setup(self, s):
        y = 8.0 + 4.0 * self.lane
        car = s.add_agent(f"lane{self.lane}", Vehicle(y=y, speed=3.0), wander)
        s.require_always(lambda: abs(car.y - y) < 0.12, name="in lane")
        s.terminate_after(steps=s.rng.randrange(4, 12))


def cautious(car):
    """Cruise; when a random hazard appears, brake until another random draw says it is gone."""
    def cruise():
        while True:
            yield take(Throttle(car.rng.uniform(0.2, 1.0)))

    def brake():
        while True:
            yield take(Throttle(-0.5))

    yield from interrupt(cruise, (lambda: car.rng.random() < 0.2,
                                  lambda: do(brake(), until=lambda: car.rng.random() < 0.4)))


class Modular(Scenario):
    dt = DT

    def setup(self, s):
        ego = s.add_agent("ego", Vehicle(speed=s.rng.uniform(2.0, 6.0)), cautious)
        s.record("ego", lambda: round(ego.x, 6))

    def compose(self, s):
        yield from s.do(Lane(0), Lane(1))
        yield from s.do(Lane(2), until=lambda: s.rng.random() < 0.1)
        while True:
            yield take()


SEED_MODULAR = 4          # two attempts rejected mid-run, by a lane of the first do()
SCENARIOS = {"busy": (Busy, SEED), "modular": (Modular, SEED_MODULAR)}


def follow(frame, *, mode=Mode.LIVE, scale=1.0, pump_every=1, pause_at=None, make=Busy,
           seed=SEED):
    """Run ``make()`` on a clock driven by ``frame(clock, i)``, pumping every ``pump_every``
    frames."""
    clock = WorldClock(ClockConfig(fixed_dt=FIXED_DT))
    clock.mode, clock.scale = mode, scale
    runner = ScenarioRunner(make(), clock, seed=seed, max_steps=MAX_STEPS)
    i = 0
    while not runner.done:
        if i == pause_at:                                  # pause midway, frames keep coming
            clock.mode = Mode.PAUSED
            for _ in range(30):
                frame(clock, i)
                assert runner.pump() == 0
            clock.mode = mode
        frame(clock, i)
        if i % pump_every == 0:
            runner.pump()
        i += 1
        assert i < 100_000
    return runner.result


def uneven(seed):
    rng = random.Random(seed)

    def frame(clock, i):
        return clock.advance(rng.choice([0.001, 1 / 144, 1 / 60, 0.033, 0.05, 0.1]))

    return frame


def live(wall_dt):
    return lambda clock, i: clock.advance(wall_dt)


PACINGS = {
    "live 1x": dict(frame=live(1 / 60)),
    "live 2x": dict(frame=live(1 / 60), scale=2.0),
    "live 0.5x": dict(frame=live(1 / 60), scale=0.5),
    "live 3x uneven (drops quanta)": dict(frame=uneven(1), scale=3.0),
    "live 1x uneven, pumped every 7th frame": dict(frame=uneven(2), pump_every=7),
    "lockstep": dict(frame=lambda clock, i: clock.advance(1.0), mode=Mode.LOCKSTEP),
    "stepping": dict(frame=lambda clock, i: clock.step_once(), mode=Mode.STEPPING),
    "batch of 37 quanta": dict(frame=lambda clock, i: clock.advance_ticks(37)),
    "live 1x, paused and resumed": dict(frame=live(1 / 60), pause_at=50),
}


BATCHES = {}


def batch_of(name):
    if name not in BATCHES:
        make, seed = SCENARIOS[name]
        BATCHES[name] = simulate(make(), seed=seed, max_steps=MAX_STEPS)
    return BATCHES[name]


@pytest.fixture(scope="module")
def batch():
    return batch_of("busy")


def test_batch_run_is_a_real_run(batch):
    assert batch.rejections == 2 and batch.steps == MAX_STEPS
    assert batch.rejection_reasons[0] == (
        "step 28, require_always in lane of scenario 'Busy' violated")
    assert all(batch.actions[n]["car0"] for n in range(MAX_STEPS))


def test_the_modular_batch_run_is_a_real_run():
    result = batch_of("modular")
    assert result.rejections == 2 and result.steps == MAX_STEPS
    assert all("require_always in lane of scenario 'Lane' violated" in reason
               for reason in result.rejection_reasons)
    assert {"lane0", "lane1", "lane2"} <= set(result.trajectory[-1])
    assert {(Throttle(-0.5),)} < {step["ego"] for step in result.actions}     # it did brake


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("name", PACINGS)
def test_every_pacing_gives_the_identical_result(name, scenario):
    make, seed = SCENARIOS[scenario]
    assert follow(**PACINGS[name], make=make, seed=seed) == batch_of(scenario)


def test_lockstep_with_several_quanta_per_advance(batch):
    clock = WorldClock(ClockConfig(fixed_dt=FIXED_DT, lockstep_steps=5))
    clock.mode = Mode.LOCKSTEP
    runner = ScenarioRunner(Busy(), clock, seed=SEED, max_steps=MAX_STEPS)
    while not runner.done:
        clock.advance(0.0)
        runner.pump()
    assert runner.result == batch
    assert clock.tick >= (MAX_STEPS + 1) * 6          # plus the steps of rejected attempts


def test_runner_owes_nothing_for_the_past_and_stops_when_done():
    clock = WorldClock(ClockConfig(fixed_dt=FIXED_DT))
    clock.advance_ticks(1000)
    runner = ScenarioRunner(Busy(), clock, seed=SEED, max_steps=3)
    assert runner.pump() == 0
    clock.advance_ticks(1)
    assert runner.pump() == 0                  # steps fall due on multiples of 6 quanta: 1002
    clock.advance_ticks(1)
    assert runner.pump() == 1 and runner.simulation.step == 1
    clock.advance_ticks(6000)
    runner.pump()
    assert runner.done and runner.pump() == 0 and runner.result.steps == 3


CHILD = """
import pickle, sys
sys.path.insert(0, {tests!r})
from test_scenario_determinism import Busy, MAX_STEPS, README_CODE, SEED
from cvcclock.scenario import simulate
ns = {{}}
exec(README_CODE, ns)
results = (simulate(Busy(), seed=SEED, max_steps=MAX_STEPS), ns["result"])
sys.stdout.write("RESULT:" + pickle.dumps(results).hex() + "\\n")
"""


def test_same_seed_same_result_in_a_fresh_process(batch):
    env = dict(os.environ, PYTHONHASHSEED="12345")
    code = CHILD.format(tests=os.path.dirname(__file__))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          check=True)
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT:"))
    busy, readme = pickle.loads(bytes.fromhex(line[len("RESULT:"):]))
    assert busy == batch
    assert readme == run_readme()[0]["result"]


# -- the README example ------------------------------------------------------------------

README_CODE = '''\
from cvcclock.scenario import Scenario, Throttle, Vehicle, simulate, take

def keep_distance(car, gap):
    lead = car.sim["lead"]
    while True:                       # brake hard when close, else speed up gently
        yield take(Throttle(-1.0 if lead.x - car.x < gap else 0.5))

def cruise(car):
    while True:
        yield take(Throttle(0.0))

class CloseCall(Scenario):
    dt = 0.1

    def setup(self, s):
        ego = s.add_agent("ego", Vehicle(speed=15.0), keep_distance, 20.0)
        lead = s.add_agent("lead", Vehicle(x=40.0, speed=s.rng.uniform(4.0, 8.0)), cruise)
        s.require_eventually(lambda: ego.speed < lead.speed)   # ego does slow down
        s.record("gap", lambda: round(lead.x - ego.x, 1))
        s.terminate_after(6.0)

result = simulate(CloseCall(), seed=42)
print(result.termination_type, "-", result.termination_reason)
print("gap each second:", [gap for step, gap in result.records["gap"][::10]])
print("steps:", result.steps, "rejected attempts:", result.rejections)
'''

README_OUTPUT = """\
scenario complete - scenario 'CloseCall' reached its time limit of 6.0 s
gap each second: [40.0, 31.6, 21.3, 12.5, 11.7, 18.1, 25.3]
steps: 60 rejected attempts: 0
"""


def run_readme():
    ns = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(README_CODE, ns)
    return ns, out.getvalue()


def test_readme_example_prints_what_the_readme_shows():
    assert run_readme()[1] == README_OUTPUT
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert README_CODE in readme and README_OUTPUT in readme
