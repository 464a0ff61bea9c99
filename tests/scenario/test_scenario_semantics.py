"""Issue 24's rules of Scenic's semantics, on their own (the differential suite runs them
against Scenic itself): seconds into steps, when guards are checked and how often."""

import pytest

from cvcclock.scenario import (
    DummyObject,
    DummySimulator,
    PreconditionViolation,
    Scenario,
    Vehicle,
    do,
    interrupt,
    invariant,
    precondition,
    simulate,
    take,
    wait,
)
from cvcclock.scenario._arguments import steps_for


@pytest.mark.parametrize(("seconds", "dt", "steps"), [
    (2.1, 0.3, 8),      # 2.1 / 0.3 == 7.000000000000001: Scenic runs 8 steps
    (0.3, 0.1, 3),      # 2.9999999999999996: 3
    (0.7, 0.1, 7),      # 6.999999999999999: 7
    (1.0, 0.25, 4),
    (0.0, 0.1, 0),
])
def test_seconds_to_steps_is_scenics_exact_quotient_rounded_up(seconds, dt, steps):
    assert steps_for(seconds, dt, "seconds") == steps


def test_a_records_spacing_in_seconds_is_the_exact_quotient_rounded_down():
    assert steps_for(2.1, 0.3, "every_seconds", whole=True) == 7
    assert steps_for(0.3, 0.1, "every_seconds", whole=True) == 2     # as Scenic floors it


def test_every_seconds_limit_uses_the_one_rule():
    def hold(car):
        while True:
            yield take()

    def timed(car):
        yield from wait(seconds=2.1)
        car.own["waited"] = car.sim.step

    class Timed(Scenario):
        dt = 0.3

        def setup(self, s):
            s.add_agent("car", Vehicle(), timed, properties={"waited": None})
            s.record_final("waited", lambda: s.sim["car"].waited)

    assert simulate(Timed(), seed=0, max_steps=12).records_final == {"waited": 8}
    assert simulate(Timed(), seed=0, time_limit=2.1).steps == 8

    class Limited(Scenario):
        dt = 0.3

        def setup(self, s):
            s.add_agent("car", Vehicle(), hold)
            s.terminate_after(2.1)

    assert simulate(Limited(), seed=0).steps == 8


def _never(car):
    return car.sim.step < 0


@precondition(_never)
def refused(car):
    while True:
        yield take()


def test_calling_a_guarded_behavior_checks_nothing_until_it_starts():
    class Unused(Scenario):
        def setup(self, s):
            car = s.add_agent("car", Vehicle())
            self.made = refused(car)        # made, never run: no violation

    assert simulate(Unused(), seed=0, max_steps=2).steps == 2

    def parent(car):
        yield from do(refused(car), until=lambda: True)     # ended before it starts
        while True:
            yield take()

    class Ends(Scenario):
        def setup(self, s):
            s.add_agent("car", Vehicle(), parent)

    assert simulate(Ends(), seed=0, max_steps=3).rejections == 0


def test_a_guarded_behavior_is_checked_as_it_starts_by_do_or_plain_delegation():
    seen = []

    def plain(car):
        try:
            yield from refused(car)
        except PreconditionViolation:
            seen.append(("plain", car.sim.step))
        yield take()
        try:
            yield from do(refused(car))
        except PreconditionViolation:
            seen.append(("do", car.sim.step))
        while True:
            yield take()

    class Both(Scenario):
        def setup(self, s):
            s.add_agent("car", Vehicle(), plain)

    simulate(Both(), seed=0, max_steps=3)
    assert seen == [("plain", 0), ("do", 1)]


def test_an_agents_guarded_behavior_is_checked_as_its_scenario_starts():
    class Start(Scenario):
        def setup(self, s):
            s.add_agent("car", Vehicle(), refused)
            s.terminate_when(lambda: True)     # before any behavior runs

    with pytest.raises(PreconditionViolation, match="_never"):
        simulate(Start(), seed=0, raise_guard_violations=True)


def test_an_interrupt_statement_ending_checks_the_behaviors_invariants_no_more():
    calls = []

    def count(car):
        calls.append(car.sim.step)
        return True

    def body():
        yield take()

    @invariant(count)
    def main(car):
        yield from interrupt(body, (lambda: False, lambda: None))
        while True:
            yield take()

    class One(Scenario):
        def setup(self, s):
            s.add_agent("car", Vehicle(), main)

    simulate(One(), seed=0, max_steps=3)
    # its start; step 1: the statement's check after the body's action, then the body's
    # own (it returns; no check as the statement ends); step 2: after the take
    assert calls == [0, 1, 1, 2]


def test_a_scenario_without_compose_checks_its_invariants_from_its_second_step():
    calls = []

    @invariant(lambda scenario, s: calls.append(s.sim.step) or True)
    class Plain(Scenario):
        def setup(self, s):
            s.add_agent("car", Vehicle())

    simulate(Plain(), seed=0, max_steps=3)
    assert calls == [0, 1, 2, 3]        # at its start (before step 0), then steps 1 to 3


def test_a_trajectory_entry_sees_what_a_compose_block_changed_before_it():
    """The entry of a step is made as the last step's properties are read back, unless a
    property is set or an agent added before it is saved (the compose blocks run first)."""
    class Joiner(Scenario):
        def setup(self, s):
            s.add_agent("late", Vehicle(x=7.0))

    class Moves(Scenario):
        def setup(self, s):
            self.car = s.add_agent("car", Vehicle())

        def compose(self, s):
            yield wait()
            self.car.x = 5.0                    # at step 1, before its records
            yield wait()
            yield from s.do(Joiner(), steps=1)  # at step 2, an agent joins
            yield wait()

    result = simulate(Moves(), seed=0, max_steps=4)
    assert [round(st["car"]["x"], 9) for st in result.trajectory] == [0.0, 5.0, 5.0, 5.0, 5.0]
    assert ["late" in st for st in result.trajectory] == [False, False, True, True, True]


def test_abort_stops_a_running_sub_scenario_and_checks_its_requirements_then():
    from cvcclock.scenario import ABORT, TooManyRejections

    class Long(Scenario):
        def setup(self, s):
            s.require_eventually(lambda: s.sim.step >= 4, name="late")

    class Main(Scenario):
        def setup(self, s):
            s.add_agent("car", Vehicle())

        def compose(self, s):
            yield from interrupt(s.do(Long()), (lambda: s.sim.step == 2, lambda: ABORT))
            yield from wait(steps=4)

    with pytest.raises(TooManyRejections) as caught:
        simulate(Main(), seed=0, max_steps=8, max_iterations=1)
    # at the abort (step 2), not at the end of the run, as Scenic 3.1.1 checks it
    assert caught.value.reasons[0].startswith("step 2, ")
    assert "late" in caught.value.reasons[0]


def test_override_refuses_misuse_at_the_call_and_changes_nothing():
    from cvcclock.scenario import DummyObject, DummySimulator
    seen = {}

    def hold(car):
        while True:
            yield take()

    class Bad(Scenario):
        def setup(self, s):
            car = s.add_agent("car", Vehicle(), hold, properties={"fuel": 3})
            box = s.add_agent("box", Vehicle())
            for call, error in [
                (lambda: s.override(car), ValueError),                    # nothing
                (lambda: s.override(car, fuel=1, wings=2), AttributeError),
                (lambda: s.override(car, behavior=3), TypeError),
                (lambda: s.override(car, behavior=hold, args=[1]), TypeError),
                (lambda: s.override("car", fuel=1), TypeError),
                (lambda: s.override(box, behavior=hold), ValueError),      # no behavior
                (lambda: s.override(car, behavior=refused), PreconditionViolation),
            ]:
                with pytest.raises(error) as caught:
                    call()
                seen.setdefault("messages", []).append(str(caught.value))
                assert car.fuel == 3 and car.behavior is hold
            with pytest.raises(PreconditionViolation):
                s.override(car, fuel=0, behavior=refused)   # the behavior fails: fuel back
            assert car.fuel == 3

    simulate(Bad(), seed=0, max_steps=1)
    assert "'wings'" in seen["messages"][1]

    class Owned(Scenario):
        def setup(self, s):
            thing = s.add_agent("thing", DummyObject((0.0, 0.0, 0.0)))
            with pytest.raises(AttributeError, match="set_property"):
                s.override(thing, position=(1.0, 0.0, 0.0))

    class Sealed(DummySimulator):
        set_property = None         # owns its properties outright

    simulate(Owned(), seed=0, max_steps=1, simulator=Sealed)


def test_nested_overrides_undo_in_reverse_order():
    class Inner(Scenario):
        def __init__(self, car):
            self.car = car

        def setup(self, s):
            s.override(self.car, fuel=2)
            s.terminate_after(steps=1)

    class Outer(Scenario):
        def __init__(self, car):
            self.car = car

        def setup(self, s):
            s.override(self.car, fuel=1)

        def compose(self, s):
            yield from s.do(Inner(self.car))
            yield wait()

    class Main(Scenario):
        def setup(self, s):
            self.car = s.add_agent("car", Vehicle(), properties={"fuel": 0})
            s.record("fuel", lambda: self.car.fuel)

        def compose(self, s):
            yield from s.do(Outer(self.car), steps=3)
            yield wait()

    result = simulate(Main(), seed=0, max_steps=5)
    # Inner stops at step 1 (fuel back to 1), Outer's compose ends at step 2 (back to 0)
    assert [v for _, v in result.records["fuel"]] == [2, 1, 0, 0]


def test_last_actions_from_a_monitor_a_condition_and_the_agents_own_behavior():
    from cvcclock.scenario import Throttle
    seen = []

    def drive(car):
        for value in (0.1, 0.2, 0.3):
            seen.append(("own", car.sim.step, car.last_actions))
            yield take(Throttle(value))

    def watch(sim):
        while True:
            seen.append(("monitor", sim.step, sim["car"].last_actions))
            yield wait()

    class Watched(Scenario):
        def setup(self, s):
            car = s.add_agent("car", Vehicle(), drive)
            s.monitor(watch)
            s.terminate_simulation_when(lambda: car.last_actions == (Throttle(0.3),))

    result = simulate(Watched(), seed=0, max_steps=10)
    assert result.steps == 3            # the condition saw step 2's action at step 3
    assert seen == [("monitor", 0, ()), ("own", 0, ()),
                    ("monitor", 1, (Throttle(0.1),)), ("own", 1, ()),
                    ("monitor", 2, (Throttle(0.2),)), ("own", 2, ()),
                    ("monitor", 3, (Throttle(0.3),))]


def _takes(value):
    def behavior(car):
        yield take(value)
    return behavior


def test_do_choose_draws_from_the_attempts_rng_weighted():
    from cvcclock.scenario import do_choose

    def main(car):
        yield from do_choose({_takes(1)(car): 1, _takes(2)(car): 3})
        while True:
            yield take()

    class Pick(Scenario):
        def setup(self, s):
            s.add_agent("car", DummyObject((0.0, 0.0, 0.0)), main)

    def picked(seed):
        return simulate(Pick(), seed=seed, max_steps=2, simulator=DummySimulator).actions[0]["car"]

    picks = [picked(seed) for seed in range(200)]
    assert picks == [picked(seed) for seed in range(200)]       # a seed picks the same
    ones = picks.count((1,))
    assert picks.count((2,)) == 200 - ones and 25 <= ones <= 75   # about a quarter


def test_do_shuffle_runs_each_once_in_a_seeded_order():
    from cvcclock.scenario import do_shuffle

    def main(car):
        yield from do_shuffle(*(_takes(v)(car) for v in (1, 2, 3)))
        while True:
            yield take()

    class Shuffled(Scenario):
        def setup(self, s):
            s.add_agent("car", DummyObject((0.0, 0.0, 0.0)), main)

    orders = {tuple(step["car"][0] for step in
                    simulate(Shuffled(), seed=seed, max_steps=3, simulator=DummySimulator).actions)
              for seed in range(60)}
    assert all(sorted(order) == [1, 2, 3] for order in orders) and len(orders) > 1


def test_do_choose_and_shuffle_refuse_misuse_at_the_call():
    from cvcclock.scenario import do_choose, do_shuffle

    def gen():
        yield take()

    g = gen()
    for call, error, text in [
        (lambda: do_choose(), ValueError, "at least one"),
        (lambda: do_choose(gen), TypeError, "generators"),
        (lambda: do_shuffle({g: 0}), ValueError, "> 0"),
        (lambda: do_shuffle({g: "a"}), TypeError, "weight"),
        (lambda: do_choose(g, g), ValueError, "twice"),
    ]:
        with pytest.raises(error, match=text):
            call()


def _counting(register):
    def count(car):
        while True:
            yield take()
            car.n += 1

    class Counted(Scenario):
        def setup(self, s):
            car = s.add_agent("car", Vehicle(), count, properties={"n": 0})
            register(s, car)

    return Counted()


def test_temporal_requirements_reject_when_false_or_still_pending_at_the_end():
    from cvcclock.scenario import Always, Eventually, Implies, Next, TooManyRejections, Until

    def run(register, steps=4):
        try:
            return simulate(_counting(register), seed=0, max_steps=steps, max_iterations=1)
        except TooManyRejections as e:
            return e.reasons[0]

    n_is = lambda car, k: lambda: car.n == k      # noqa: E731
    # n is 0 at steps 0 and 1, then the step minus one
    assert run(lambda s, c: s.require(Always(lambda: c.n < 4))).steps == 4
    assert run(lambda s, c: s.require(Always(lambda: c.n < 2))).startswith("step 3, ")
    assert "presumably false when it stopped" in run(
        lambda s, c: s.require(Eventually(n_is(c, 9)), name="nine"))
    assert run(lambda s, c: s.require(Until(lambda: c.n < 2, n_is(c, 2)))).steps == 4
    assert run(lambda s, c: s.require(Next(n_is(c, 0)))).steps == 4
    assert "presumably false" in run(lambda s, c: s.require(Next(Next(n_is(c, 1)))), steps=1)
    assert run(lambda s, c: s.require(
        Always(Implies(n_is(c, 1), Next(n_is(c, 2)))))).steps == 4


def test_temporal_operators_and_soft_requirements_refuse_misuse_at_the_call():
    from cvcclock.scenario import Always, Eventually, Until

    with pytest.raises(TypeError, match=r"Always\(\) takes a temporal formula"):
        Always(3)
    with pytest.raises(TypeError, match=r"Until\(\)"):
        Until(lambda: True, "x")

    def register(s, car):
        with pytest.raises(TypeError, match="require"):
            s.require(True)
        with pytest.raises(ValueError, match="probability 1"):
            s.require(Eventually(lambda: True), prob=0.5)
        with pytest.raises(ValueError, match="prob"):
            s.require(lambda: True, prob=1.5)
        with pytest.raises(TypeError, match="prob"):
            s.require(lambda: True, prob="half")
        s.record_final("draw", lambda: s.rng.random())

    plain = simulate(_counting(lambda s, c: s.record_final("draw", lambda: s.rng.random())),
                     seed=3, max_steps=1)
    refused = simulate(_counting(register), seed=3, max_steps=1)
    assert refused.records_final == plain.records_final      # nothing drawn by a refusal


def test_a_soft_requirement_is_enforced_with_its_probability_per_seed():
    def register(s, car):
        s.require(lambda: car.n == 1, prob=0.25)      # false at step 0: rejects if enforced

    def rejected(seed):
        return simulate(_counting(register), seed=seed, max_steps=1).rejections > 0

    firsts = [rejected(seed) for seed in range(200)]
    assert firsts == [rejected(seed) for seed in range(200)]
    assert 20 <= sum(firsts) <= 80


def test_params_override_the_scenarios_own_and_are_read_only():
    from cvcclock import ClockConfig, WorldClock
    from cvcclock.scenario import ScenarioRunner

    class Tuned(Scenario):
        params = {"gain": 1.0, "label": "a"}

        def setup(self, s):
            s.record_final("seen", lambda: (s.params.gain, s.sim.params["label"], s.initial))
            with pytest.raises(AttributeError, match="read-only"):
                s.params.gain = 3
            with pytest.raises(AttributeError, match="no parameter 'other'"):
                s.params.other  # noqa: B018

    assert simulate(Tuned(), seed=0, max_steps=1).records_final == {"seen": (1.0, "a", True)}
    tuned = simulate(Tuned(), seed=0, max_steps=1, params={"gain": 2.0})
    assert tuned.records_final == {"seen": (2.0, "a", True)}
    instance = Tuned()
    instance.params = {"gain": 1.0, "label": "b"}   # a batch carries them on the scenario
    assert simulate(instance, seed=0, max_steps=1).records_final["seen"][1] == "b"

    clock = WorldClock(ClockConfig(fixed_dt=0.1))
    for bad, error in [([("gain", 2)], TypeError), ({1: 2}, TypeError)]:
        with pytest.raises(error, match="params"):
            ScenarioRunner(Tuned(), clock, seed=0, params=bad)
    assert clock.tick == 0
