"""An exception escaping a time step fails the run: re-raised once, never a step run twice.

Every way user code can raise inside a step (behaviors and their start, sub-behaviors and
guards, monitors, interrupt and until conditions, compose and a sub-scenario's setup, each
scenario predicate, the records, the termination conditions, the simulator's methods and
factory, the trace, a resampled attempt's setup) and every error the runner itself raises
mid-run (a bad yield, a raised guard violation, too many rejections, ``terminate`` outside a
behavior, an interrupt) is driven through a pump with several steps due. That pump raises
the original exception and runs nothing after it; every later pump, and ``result``, raises
``ScenarioFailed`` chained to it, and nothing runs again; ``simulate`` raises the original
once.
"""

import pickle

import pytest

from cvcclock import ClockConfig, WorldClock
from cvcclock.scenario import (
    ActionRejected,
    BehaviorError,
    GuardViolation,
    PointMassSimulator,
    Scenario,
    ScenarioFailed,
    ScenarioRunner,
    Throttle,
    TooManyRejections,
    Vehicle,
    do,
    interrupt,
    invariant,
    precondition,
    require,
    simulate,
    take,
    terminate,
    wait,
)

DT = 0.1
FAIL_AT = 2
MAX_STEPS = 6


class Boom(Exception):
    pass


# site -> (the step it fails at, the exception that escapes the failing pump)
SITES = {
    "behavior": (FAIL_AT, Boom),
    "behavior_start": (FAIL_AT, Boom),
    "sub_behavior": (FAIL_AT, Boom),
    "precondition": (FAIL_AT, Boom),
    "behavior_invariant": (FAIL_AT, Boom),
    "monitor": (FAIL_AT, Boom),
    "interrupt_condition": (FAIL_AT, Boom),
    "until_condition": (FAIL_AT, Boom),
    "compose": (FAIL_AT, Boom),
    "sub_scenario_setup": (FAIL_AT, Boom),
    "require_always": (FAIL_AT, Boom),
    "require_eventually": (FAIL_AT, Boom),
    "terminate_when": (FAIL_AT, Boom),
    "scenario_invariant": (FAIL_AT, Boom),
    "record": (FAIL_AT, Boom),
    "record_initial": (0, Boom),
    "record_final": (MAX_STEPS, Boom),
    "terminate_simulation_when": (FAIL_AT, Boom),
    "apply_action": (FAIL_AT, ActionRejected),
    "simulator_step": (FAIL_AT, Boom),
    "get_properties": (FAIL_AT, Boom),
    "trace": (FAIL_AT, Boom),
    "resampled_setup": (FAIL_AT, Boom),
    "simulator_factory": (FAIL_AT, Boom),
    "bad_yield": (FAIL_AT, BehaviorError),
    "guard_violation": (FAIL_AT, GuardViolation),
    "too_many_rejections": (FAIL_AT, TooManyRejections),
    "terminate_outside": (FAIL_AT, RuntimeError),
    "keyboard_interrupt": (FAIL_AT, KeyboardInterrupt),
}


class HookedSimulator(PointMassSimulator):
    def __init__(self, scenario):
        super().__init__()
        self.scenario = scenario

    def apply_action(self, handle, action):
        self.scenario.hit("apply_action")
        super().apply_action(handle, action)

    def step(self, dt):
        self.scenario.hit("simulator_step")
        super().step(dt)

    def get_properties(self, handle):
        self.scenario.hit("get_properties")
        return super().get_properties(handle)


class Sub(Scenario):
    def __init__(self, parent):
        self.parent = parent

    def setup(self, s):
        self.parent.hit("sub_scenario_setup")


class Failing(Scenario):
    """Every phase calls ``hit(name)``; the one named ``site`` raises at ``fail_at``.

    The log gets ``(step, name)`` for each hit and ``("raised", site)`` as the site fails,
    which is the last thing that runs.
    """

    dt = DT

    def __init__(self, site, log):
        self.site, self.log = site, log
        self.fail_at = SITES[site][0]
        self.sim = None
        self.attempts = 0

    def failing(self, name):
        return name == self.site and self.sim.step == self.fail_at

    def mark(self):
        self.log.append(("raised", self.site))

    def hit(self, name):
        self.log.append((self.sim.step, name))
        if self.failing(name):
            self.mark()
            raise KeyboardInterrupt if name == "keyboard_interrupt" else Boom(name)

    def trace(self, n, phase, subject):
        if phase == "monitors":
            self.hit("trace")

    def simulator(self):
        self.attempts += 1
        if self.site == "simulator_factory" and self.attempts == 2:
            self.mark()
            raise Boom("simulator_factory")
        return HookedSimulator(self)

    def setup(self, s):
        self.sim = s.sim
        site = self.site
        if site == "resampled_setup" and self.attempts == 2:
            self.mark()
            raise Boom("resampled_setup")
        hit = self.hit

        def sub(car):
            yield take(Throttle(0.1))
            hit("sub_behavior")
            yield wait()

        def guard(car):
            hit("behavior_invariant")
            if self.failing("guard_violation"):
                self.mark()
                return False
            return True

        @invariant(guard)
        def drive(car):
            while True:
                hit("behavior")
                hit("keyboard_interrupt")
                if site == "sub_behavior" and car.sim.step == FAIL_AT - 1:
                    yield from do(sub(car))
                if self.failing("bad_yield"):
                    self.mark()
                    yield Throttle(0.5)
                resampling = site in ("resampled_setup", "simulator_factory") and self.attempts == 1
                if (site == "too_many_rejections" or resampling) and car.sim.step == FAIL_AT:
                    if site == "too_many_rejections":
                        self.mark()
                    require(False, "rejected on purpose")
                yield take(Throttle(0.5))

        def once():
            yield wait()

        def watch(sim):
            while True:
                hit("monitor")
                if site == "interrupt_condition":
                    yield from interrupt(once, (lambda: hit(site) is not None, lambda: None))
                elif site == "until_condition":
                    yield from do(once(), until=lambda: hit(site) is not None)
                else:
                    yield wait()

        def final():
            hit("record_final")
            if self.failing("terminate_outside"):
                self.mark()
                terminate()
            return 0

        s.add_agent("car", Vehicle(), drive)
        s.monitor(watch)
        s.require_always(lambda: hit("require_always") is None)
        s.require_eventually(lambda: hit("require_eventually") is None)
        s.terminate_when(lambda: hit("terminate_when") is not None)
        s.invariant(lambda: hit("scenario_invariant") is None)
        s.record("r", lambda: hit("record"))
        s.record("outside", lambda: final() if site == "terminate_outside" else 0)
        s.record_initial("ri", lambda: hit("record_initial"))
        s.record_final("rf", final)
        s.terminate_simulation_when(lambda: hit("terminate_simulation_when") is not None)

    def compose(self, s):
        while True:
            self.hit("compose")
            if s.sim.step == FAIL_AT and self.site in ("precondition", "behavior_start"):
                s.add_agent("late", Vehicle(y=5.0), self.late_behavior())
            if s.sim.step == FAIL_AT and self.site == "sub_scenario_setup":
                yield from s.do(Sub(self))
            yield wait()

    def late_behavior(self):
        hit = self.hit

        def idle(agent):
            while True:
                yield wait()

        if self.site == "precondition":
            return precondition(lambda agent: hit("precondition") is None)(idle)

        def starts(agent):              # a behavior that raises as it is called
            hit("behavior_start")
            return idle(agent)

        return starts


def run_args(scenario):
    kwargs = {"seed": 0, "max_steps": MAX_STEPS, "trace": scenario.trace}
    if scenario.site == "too_many_rejections":
        kwargs["max_iterations"] = 1
    if scenario.site == "guard_violation":
        kwargs["raise_guard_violations"] = True
    return kwargs


@pytest.mark.parametrize("site", SITES)
def test_a_failed_pump_fails_the_run_for_good(site):
    log = []
    scenario = Failing(site, log)
    clock = WorldClock(ClockConfig(fixed_dt=DT))
    runner = ScenarioRunner(scenario, clock, **run_args(scenario))
    clock.advance_ticks(MAX_STEPS + 4)          # every step of the run is due in one pump
    fail_at, raised = SITES[site]
    with pytest.raises(raised) as info:
        runner.pump()
    original = info.value
    if raised is ActionRejected:
        assert type(original.__cause__) is Boom
    assert log.count(("raised", site)) == 1
    assert log[-1] == ("raised", site)          # the steps still due in that pump never ran
    assert max(step for step, _ in log if step != "raised") == fail_at
    assert runner.done and runner.error is original
    ran = list(log)

    clock.advance_ticks(3)
    for refused in (runner.pump, lambda: runner.result, runner.pump):
        with pytest.raises(ScenarioFailed) as again:
            refused()
        assert again.value.__cause__ is original and again.value.error is original
        assert again.value.step == fail_at
        assert (f"scenario 'Failing' failed at step {fail_at}: {type(original).__name__}"
                in str(again.value))
        assert str(original) in str(again.value)
    assert log == ran                            # nothing ran again: no step twice, no record twice


@pytest.mark.parametrize("site", SITES)
def test_simulate_raises_the_original_once(site):
    log = []
    scenario = Failing(site, log)
    with pytest.raises(SITES[site][1]):
        simulate(scenario, **run_args(scenario))
    assert log.count(("raised", site)) == 1 and log[-1] == ("raised", site)


def test_a_failure_names_the_original_and_survives_pickling():
    log = []
    scenario = Failing("behavior", log)
    clock = WorldClock(ClockConfig(fixed_dt=DT))
    runner = ScenarioRunner(scenario, clock, seed=0, max_steps=MAX_STEPS)
    clock.advance_ticks(MAX_STEPS)
    with pytest.raises(Boom):
        runner.pump()
    failed = r"^the run of scenario 'Failing' failed at step 2: Boom: behavior; a failed run cannot"
    with pytest.raises(ScenarioFailed, match=failed) as info:
        runner.pump()
    copy = pickle.loads(pickle.dumps(info.value))
    assert (str(copy), type(copy.error), copy.step) == (str(info.value), Boom, 2)
    rejected = pickle.loads(pickle.dumps(TooManyRejections("all 1 attempts", ("why",))))
    assert (str(rejected), rejected.reasons) == ("all 1 attempts", ("why",))


def test_an_exception_that_cannot_print_still_fails_the_run():
    class Mute(Exception):
        def __str__(self):
            raise RuntimeError("no text")

    def mute(car):
        yield wait()
        raise Mute

    class Quiet(Scenario):
        def setup(self, s):
            s.add_agent("car", Vehicle(), mute)

    clock = WorldClock(ClockConfig(fixed_dt=DT))
    runner = ScenarioRunner(Quiet(), clock, seed=0, max_steps=5)
    clock.advance_ticks(5)
    with pytest.raises(Mute):
        runner.pump()
    with pytest.raises(ScenarioFailed, match=r"failed at step 1: Mute: <unprintable>; "):
        runner.pump()


def test_a_run_that_succeeds_is_not_failed():
    class Plain(Scenario):
        def setup(self, s):
            s.add_agent("car", Vehicle(), lambda car: (take(Throttle(0.5)) for _ in iter(int, 1)))

    clock = WorldClock(ClockConfig(fixed_dt=DT))
    runner = ScenarioRunner(Plain(), clock, seed=0, max_steps=3)
    clock.advance_ticks(10)
    assert runner.pump() == 4 and runner.done and runner.error is None
    assert runner.result == simulate(Plain(), seed=0, max_steps=3)
    assert runner.pump() == 0
