"""do, interrupt, scenario guards, agents' own properties, per-scenario records, terminate
and terminate_simulation from every place, the dummy simulator: what the differential suite
(tests/scenic_parity) does not reach, and every way to call them wrongly.

Timing that Scenic defines is checked against Scenic itself there; here are cvcclock's own
rules: what ``do`` evaluates to, the errors, and which scenario a ``terminate`` ends.
"""

import re

import pytest

from cvcclock.scenario import (
    ABORT,
    BehaviorError,
    DummyObject,
    DummySimulator,
    InvariantViolation,
    PointMassSimulator,
    PreconditionViolation,
    Scenario,
    TerminationType,
    Throttle,
    TooManyRejections,
    Vehicle,
    do,
    interrupt,
    invariant,
    precondition,
    simulate,
    take,
    terminate,
    terminate_simulation,
    wait,
)
from cvcclock.scenario.blocks import HANDLER_REENTRIES


class Solo(Scenario):
    """One agent "car" on the dummy simulator running ``behavior``; ``extra(s, car)`` last."""

    def __init__(self, behavior=None, extra=None, compose=None, properties=None):
        self.behavior, self.extra, self.properties = behavior, extra, properties
        if compose is not None:
            self.compose = compose

    def simulator(self):
        return DummySimulator()

    def setup(self, s):
        car = s.add_agent("car", DummyObject(), self.behavior, properties=self.properties)
        if self.extra is not None:
            self.extra(s, car)


def actions(result, agent="car"):
    return [step.get(agent) for step in result.actions]


def count(value, times):
    for _ in range(times):
        yield take(value)


# -- do -----------------------------------------------------------------------------------------


def test_do_evaluates_to_the_sub_behaviors_return_value_or_abort():
    seen = []

    def sub(car):
        yield take(1)
        return "done"

    def forever(car):
        while True:
            yield take(2)

    def parent(car):
        seen.append((yield from do(sub(car))))
        seen.append((yield from do(forever(car), steps=2)))
        seen.append((yield from do(sub(car), until=lambda: False)))
        seen.append((yield from wait(steps=1)))         # Scenic's wait for 1 steps
        yield take(3)

    result = simulate(Solo(parent), seed=0, max_steps=7)
    assert seen == ["done", ABORT, "done", ABORT]
    assert actions(result) == [(1,), (2,), (2,), (1,), (), (3,), ()]
    assert repr(ABORT) == "ABORT"


def test_do_seconds_rounds_up_to_whole_steps():
    def parent(car):
        yield from do(count(1, 99), seconds=0.25)       # 2.5 steps of 0.1 s: 3
        yield take(2)
        yield from wait(seconds=0.15)                   # 2
        yield take(3)
        yield from wait(until=lambda: car.sim.step == 8)
        yield take(4)

    assert actions(simulate(Solo(parent), seed=0, max_steps=9, dt=0.1)) == (
        [(1,)] * 3 + [(2,), (), (), (3,), (), (4,)])


def test_a_compose_block_may_do_a_generator_of_its_own():
    ran = []

    def phase(s):
        ran.append(s.sim.step)
        yield wait()
        ran.append(s.sim.step)

    def compose(s):
        yield from do(phase(s))
        yield wait()

    result = simulate(Solo(compose=compose), seed=0, max_steps=9)
    assert ran == [0, 1] and result.termination_type is TerminationType.SCENARIO_COMPLETE
    assert result.steps == 2


def test_a_behavior_cannot_do_scenarios():
    def parent(car):
        yield from do(Scenario())

    with pytest.raises(BehaviorError, match=r"^the behavior 'parent' of agent 'car' did "
                                            r"scenarios at step 0; only a compose block"):
        simulate(Solo(parent), seed=0, max_steps=2)


DO_CALLS = [
    (lambda: do(3), TypeError, "each argument of do() (a generator or a Scenario) must be a "
                               "Scenario, got 3"),
    (lambda: do(count(1, 1), Scenario()), TypeError, "do() runs one sub-behavior"),
    (lambda: do(count(1, 1), count(2, 1)), TypeError, "do() runs one sub-behavior"),
    (lambda: do(count(1, 1), steps=1, until=lambda: True), ValueError,
     "do() takes at most one of steps, seconds and until, got ['steps', 'until']"),
    (lambda: do(), ValueError, "do() with nothing to run needs steps, seconds or until"),
    (lambda: do(steps=-1), ValueError, "steps must be >= 0, got -1"),
    (lambda: do(steps=1.5), TypeError, "steps must be an integer, got 1.5"),
    (lambda: do(steps=True), TypeError, "steps must be an integer, got True"),
    (lambda: do(seconds="1"), TypeError, "seconds must be a real number, got '1'"),
    (lambda: do(seconds=-1.0), ValueError, "seconds must be finite and non-negative, got -1.0"),
    (lambda: do(until=5), TypeError, "until must be a callable of no arguments, got 5"),
    (lambda: interrupt(3), TypeError, "body must be a generator, a do() or a callable making "
                                      "one, got 3"),
    (lambda: interrupt(lambda: None, lambda: True), TypeError,
     "each handler of interrupt() must be a (condition, handler) pair"),
    (lambda: interrupt(lambda: None, (True, lambda: None)), TypeError,
     "condition must be a callable of no arguments, got True"),
    (lambda: interrupt(lambda: None, (lambda: True, 4)), TypeError,
     "handler must be a callable of no arguments, got 4"),
]


@pytest.mark.parametrize(("call", "error", "message"), DO_CALLS,
                         ids=[re.sub(r"\W+", "_", m)[:40] for _, _, m in DO_CALLS])
def test_bad_do_and_interrupt_calls(call, error, message):
    with pytest.raises(error, match="^" + re.escape(message)):
        call()


# -- interrupt ----------------------------------------------------------------------------------


def test_an_interrupt_evaluates_to_the_body_or_the_handler_that_ended_it():
    seen = []

    def body():
        yield take(1)
        return "body"

    def parent(car):
        seen.append((yield from interrupt(body, (lambda: False, lambda: None))))
        seen.append((yield from interrupt(count(2, 9), (lambda: car.sim.step == 2,
                                                        lambda: ABORT))))
        seen.append((yield from interrupt(count(3, 9), (lambda: True, lambda: "why"))))
        yield take(4)

    result = simulate(Solo(parent), seed=0, max_steps=4)
    assert seen == ["body", ABORT, "why"] and actions(result) == [(1,), (2,), (4,), ()]


def test_a_handler_that_never_acts_while_its_condition_holds_is_an_error():
    def parent(car):
        yield from interrupt(count(1, 9), (lambda: car.sim.step == 1, lambda: None))

    with pytest.raises(BehaviorError, match=rf"an interrupt handler finished "
                                            rf"{HANDLER_REENTRIES} times in step 1 without"):
        simulate(Solo(parent), seed=0, max_steps=3)


def test_an_interrupted_generator_is_closed_when_its_statement_ends():
    closed = []

    def body():
        try:
            while True:
                yield take(1)
        finally:
            closed.append("body")

    def parent(car):
        yield from interrupt(body, (lambda: car.sim.step == 1, lambda: ABORT))
        closed.append("after")
        yield take(2)

    assert actions(simulate(Solo(parent), seed=0, max_steps=2)) == [(1,), (2,)]
    assert closed == ["body", "after"]


def test_an_error_in_a_condition_passes_out_of_the_statement():
    def parent(car):
        try:
            yield from interrupt(count(1, 9), (lambda: 1 / (car.sim.step - 1) > 1, lambda: None))
        except ZeroDivisionError:
            yield take(9)

    assert actions(simulate(Solo(parent), seed=0, max_steps=2)) == [(1,), (9,)]


# -- guards of behaviors and scenarios ----------------------------------------------------------


def test_scenario_guards_take_the_scenario_and_its_scope():
    calls = []

    @precondition(lambda scenario, s: calls.append(("pre", scenario.x, s.sim.step)) or True)
    @invariant(lambda scenario, s: calls.append(("inv", s.sim.step)) or s.sim.step < 3)
    class Guarded(Scenario):
        def __init__(self, x):
            self.x = x

        def setup(self, s):
            calls.append(("setup", s.sim.step))

        def compose(self, s):
            while True:
                yield wait()

    with pytest.raises(InvariantViolation, match=r"^step 3, compose of scenario 'Guarded': "
                                                 r"invariant <lambda> .* of scenario "
                                                 r"'Guarded' violated"):
        simulate(Guarded(7), seed=0, max_steps=9, raise_guard_violations=True)
    # preconditions, then invariants, before setup; then at each resumption of compose
    assert calls == [("pre", 7, 0), ("inv", 0), ("setup", 0), ("inv", 1), ("inv", 2),
                     ("inv", 3)]


def test_a_subclass_inherits_its_bases_guards_and_decorating_it_leaves_the_base_alone():
    @precondition(lambda scenario, s: scenario.ok)
    class Base(Scenario):
        ok = True

    @precondition(lambda scenario, s: s.sim.step == 0)
    class Child(Base):
        pass

    class Bad(Child):
        ok = False

    assert simulate(Child(), seed=0, max_steps=1).steps == 1
    with pytest.raises(PreconditionViolation, match="precondition <lambda> .* of scenario "
                                                    "'Bad' violated"):
        simulate(Bad(), seed=0, max_steps=1, raise_guard_violations=True)

    @precondition(lambda scenario, s: False)
    class Stricter(Base):
        pass

    with pytest.raises(TooManyRejections):
        simulate(Stricter(), seed=0, max_steps=1, max_iterations=1)
    assert simulate(Base(), seed=0, max_steps=1).steps == 1      # Base's guards are its own


def test_guards_decorate_generator_functions_and_classes_only():
    with pytest.raises(TypeError, match=r"decorate a behavior \(a generator function\) or a "
                                        r"Scenario subclass, got 3"):
        invariant(lambda: True)(3)


# -- terminate and terminate_simulation ---------------------------------------------------------


class Quits(Scenario):
    """A sub-scenario whose agent, monitor or compose block calls ``how`` at step 2."""

    def __init__(self, where, how):
        self.where, self.how = where, how

    def simulator(self):
        return DummySimulator()

    def setup(self, s):
        def act(*_):
            while True:
                if s.sim.step == 2:
                    self.how("bye")
                yield take(1) if self.where == "behavior" else wait()

        s.add_agent("sub", DummyObject(), act if self.where == "behavior" else None)
        if self.where == "monitor":
            s.monitor(act, name="m")
        if self.where == "compose":
            self.compose = lambda s: act()


class Parent(Scenario):
    def __init__(self, where, how):
        self.sub = Quits(where, how)

    def simulator(self):
        return DummySimulator()

    def compose(self, s):
        yield from s.do(self.sub)
        yield wait()
        yield wait()


@pytest.mark.parametrize(("where", "scenario_ends", "simulation_ends"), [
    ("behavior", "agent 'sub' terminated it: bye",
     (TerminationType.BEHAVIOR, "agent 'sub' terminated the simulation: bye")),
    ("monitor", "monitor 'm' terminated it: bye",
     (TerminationType.MONITOR, "monitor 'm' terminated the simulation: bye")),
    ("compose", "compose of scenario 'Quits' terminated it: bye",
     (TerminationType.SCENARIO_COMPLETE,
      "compose of scenario 'Quits' terminated the simulation: bye")),
])
def test_terminate_ends_its_own_scenario_and_terminate_simulation_the_run(
        where, scenario_ends, simulation_ends):
    stops = []

    def trace(n, phase, subject):
        if phase == "stopping":
            stops.append((n, subject))

    result = simulate(Parent(where, terminate), seed=0, max_steps=9, trace=trace)
    # the sub-scenario stops at step 2; the parent's do() returns at step 2 (compose) or 3
    back = 2 if where == "compose" else 3
    assert stops == [(2, "Quits"), (back + 2, "Parent")]
    assert result.termination_type is TerminationType.SCENARIO_COMPLETE
    assert result.steps == back + 2

    result = simulate(Parent(where, terminate_simulation), seed=0, max_steps=9)
    assert (result.termination_type, result.termination_reason) == simulation_ends
    assert result.steps == 2


def test_terminate_in_setup_or_a_guard_is_an_error():
    with pytest.raises(RuntimeError, match=r"^start of scenario 'Solo': terminate\(\) was "
                                           r"called outside"):
        simulate(Solo(extra=lambda s, car: terminate()), seed=0, max_steps=1)


# -- agents' own properties and simulator properties --------------------------------------------


def test_a_behavior_sets_its_agents_own_properties_with_immediate_effect():
    def fuel_use(car):
        while True:
            car.fuel -= 1
            yield take(car.fuel)

    def extra(s, car):
        s.record("fuel", lambda: car.fuel)
        s.terminate_when(lambda: car.fuel == 0)

    result = simulate(Solo(fuel_use, extra, properties={"fuel": 3}), seed=0, max_steps=9)
    assert actions(result) == [(2,), (1,), (0,)]
    assert result.records["fuel"] == ((0, 3), (1, 2), (2, 1), (3, 0))
    assert "fuel" not in result.trajectory[0]["car"]       # the trajectory is the simulator's


def test_a_simulator_property_is_set_through_set_property_and_read_back_at_once():
    seen = []

    def teleport(car):
        car.x = 10.0
        seen.append((car.x, car.speed))
        car.speed = 2.0
        while True:
            yield take(Throttle(0.0))

    class OnPointMass(Scenario):
        def setup(self, s):
            s.add_agent("car", Vehicle(), teleport)

    result = simulate(OnPointMass(), seed=0, max_steps=2)
    assert seen == [(10.0, 0.0)]
    assert [round(st["car"]["x"], 9) for st in result.trajectory] == [0.0, 10.2, 10.4]

    sim = PointMassSimulator()
    body = sim.create_object("car", Vehicle())
    for name, value, error, message in [
            ("z", 1.0, ValueError, "name must be 'x', 'y', 'heading' or 'speed', got 'z'"),
            ("speed", -1.0, ValueError, "speed must be finite and non-negative, got -1.0"),
            ("x", "1", TypeError, "x must be a real number, got '1'")]:
        with pytest.raises(error, match="^" + re.escape(message)):
            sim.set_property(body, name, value)
    assert sim.get_properties(body) == {"x": 0.0, "y": 0.0, "heading": 0.0, "speed": 0.0}


def test_properties_a_simulator_keeps_to_itself_and_unknown_ones_are_refused():
    class Keeps(DummySimulator):
        set_property = None

    def keeps(car):
        car.position = (1.0, 0.0, 0.0)
        yield wait()

    class OnKeeps(Solo):
        def simulator(self):
            return Keeps()

    with pytest.raises(AttributeError, match=r"^property 'position' of agent 'car' is the "
                                             r"simulator's: Keeps reads it back"):
        simulate(OnKeeps(keeps), seed=0, max_steps=1)

    def typo(car):
        car.fule = 1
        yield wait()

    with pytest.raises(AttributeError, match=r"^agent 'car' has no property 'fule'; give it in "
                                             r"add_agent\(\.\.\., properties={'fule': \.\.\.}\)"):
        simulate(Solo(typo, properties={"fuel": 1}), seed=0, max_steps=1)
    with pytest.raises(ValueError, match=r"^properties of agent 'car' must not be the "
                                         r"simulator's, got \['position'\]"):
        simulate(Solo(properties={"position": 1}), seed=0, max_steps=1)
    with pytest.raises(TypeError, match="^properties must be a Mapping, got 3"):
        simulate(Solo(properties=3), seed=0, max_steps=1)


# -- records ------------------------------------------------------------------------------------


def test_records_every_and_after_count_from_the_scenarios_start():
    class Late(Scenario):
        def setup(self, s):
            s.record("late", lambda: s.sim.step, every_seconds=0.25, after_seconds=0.1)
            s.terminate_after(steps=6)

    def compose(s):
        yield from do(steps=2)
        yield from s.do(Late())

    def extra(s, car):
        s.record("every", lambda: s.sim.step, every=3)

    result = simulate(Solo(extra=extra, compose=compose), seed=0, max_steps=20, dt=0.1)
    assert result.records["every"] == ((0, 0), (3, 3), (6, 6))
    # started at step 2: after 1 step, every 2 (0.25 s rounded down)
    assert result.records["late"] == ((3, 3), (5, 5), (7, 7))


def test_record_names_are_shared_by_scenarios_one_after_another_not_at_once():
    class Phase(Scenario):
        def __init__(self, n):
            self.n = n

        def setup(self, s):
            s.record("phase", lambda: self.n)
            s.record_final("last", lambda: self.n)
            s.terminate_after(steps=1)

    def one_after_another(s):
        yield from s.do(Phase(1))
        yield from s.do(Phase(2))

    result = simulate(Solo(compose=one_after_another), seed=0, max_steps=9)
    assert result.records["phase"] == ((0, 1), (1, 1), (1, 2), (2, 2))
    assert result.records_final == {"last": 2}

    def at_once(s):
        yield from s.do(Phase(1), Phase(2))

    with pytest.raises(ValueError, match="^record names must be unique; there is already a "
                                         "record 'phase'"):
        simulate(Solo(compose=at_once), seed=0, max_steps=9)


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"every": 0}, ValueError, "every must be >= 1, got 0"),
    ({"after": -1}, ValueError, "after must be >= 0, got -1"),
    ({"every": 1.5}, TypeError, "every must be an integer, got 1.5"),
    ({"every_seconds": "1"}, TypeError, "every_seconds must be a real number, got '1'"),
    ({"after_seconds": -0.5}, ValueError, "after_seconds must be finite and non-negative"),
])
def test_bad_record_options_are_refused_and_change_nothing(kwargs, error, message):
    def extra(s, car):
        with pytest.raises(error, match="^" + re.escape(message)):
            s.record("x", lambda: 0, **kwargs)
        s.record("x", lambda: 1)            # the refused call took no name

    assert simulate(Solo(extra=extra), seed=0, max_steps=1).records == {"x": ((0, 1), (1, 1))}


def test_terminate_after_steps_or_seconds():
    def limit(**kwargs):
        return Solo(extra=lambda s, car: s.terminate_after(**kwargs))

    assert simulate(limit(steps=3), seed=0).steps == 3
    assert simulate(limit(seconds=0.3), seed=0).steps == 3
    for kwargs, error, message in [
            ({}, ValueError, "terminate_after takes seconds or steps, got seconds=None and "
                             "steps=None"),
            ({"seconds": 1.0, "steps": 2}, ValueError, "terminate_after takes seconds or steps"),
            ({"steps": -1}, ValueError, "steps must be >= 0, got -1"),
            ({"steps": 2.0}, TypeError, "steps must be an integer, got 2.0")]:
        with pytest.raises(error, match="^" + re.escape(message)):
            simulate(limit(**kwargs), seed=0, max_steps=1)


# -- the dummy simulator ------------------------------------------------------------------------


def test_dummy_simulator_drifts_takes_any_action_and_checks_its_input():
    sim = DummySimulator(drift=0.5)
    a = sim.create_object("a", DummyObject((1, 2, 3)))
    sim.apply_action(a, "anything")
    sim.step(0.1)
    assert sim.get_properties(a) == {"position": (1.0, 2.5, 3.0)}
    sim.set_property(a, "position", (0, 0, 0))
    assert sim.get_properties(a) == {"position": (0.0, 0.0, 0.0)}
    for call, error, message in [
            (lambda: DummySimulator("1"), TypeError, "drift must be a real number, got '1'"),
            (lambda: DummyObject((1, 2)), TypeError, "DummyObject.position must be a tuple "
                                                     "(x, y, z), got (1, 2)"),
            (lambda: DummyObject((1, 2, float("nan"))), ValueError,
             "DummyObject.position[2] must be finite, got nan"),
            (lambda: sim.create_object("a", DummyObject()), ValueError,
             "there is already an object 'a'"),
            (lambda: sim.create_object("b", Vehicle()), TypeError, "spec must be a DummyObject"),
            (lambda: sim.apply_action("zz", 1), TypeError,
             "handle must be what DummySimulator.create_object returned, got 'zz'"),
            (lambda: sim.set_property(a, "speed", 1.0), ValueError,
             "name must be 'position', got 'speed'"),
            (lambda: sim.set_property(a, "position", [0, 0, 0]), TypeError,
             "position must be a tuple (x, y, z), got [0, 0, 0]"),
            (lambda: sim.step(-1.0), ValueError, "dt must be finite and non-negative")]:
        with pytest.raises(error, match="^" + re.escape(message)):
            call()
    assert sim.get_properties(a) == {"position": (0.0, 0.0, 0.0)}
