"""Modular scenarios: programs from Scenic's tests/syntax/test_modular.py and their kin, each
beside its cvcclock equivalent."""

from __future__ import annotations

from cvcclock.scenario import (
    PreconditionViolation,
    Scenario,
    do,
    interrupt,
    invariant,
    precondition,
    require,
    take,
    terminate,
    terminate_simulation,
    wait,
)

from .harness import Case, case_registrar
from .programs import Prog, at, forever

CASES: list[Case] = []


case = case_registrar(CASES)


class Sub(Scenario):
    """Scenic's ``scenario Sub(x): ego = new Object at x @ 0`` (named ``s<x>``), with
    ``terminate after`` ``steps`` steps if given, and an agent behavior if given."""

    def __init__(self, x=0, steps=None, behavior=None, y=0, z=0, extra=None, name=None):
        self.x, self.steps, self.behavior, self.y, self.z = x, steps, behavior, y, z
        self.extra, self.agent_name = extra, f"s{x}" if name is None else name

    def setup(self, s):
        self.ego = s.add_agent(self.agent_name, at(self.x, self.y, self.z), self.behavior)
        if self.steps is not None:
            s.terminate_after(steps=self.steps)
        if self.extra is not None:
            self.extra(s)


def main(compose=None, setup=None):
    return Prog(setup, compose)


# -- termination --------------------------------------------------------------------------------


@case("time_limit", """
    scenario Main():
        ego = new Object with name "ego"
""", 3)
def _():
    return main(setup=lambda s: s.add_agent("ego", at()))


@case("terminate_when_modular", """
    scenario Main():
        ego = new Object with name "ego"
        terminate when simulation().currentTime > 1
""", 5)
def _():
    def setup(s):
        s.add_agent("ego", at())
        s.terminate_when(lambda: s.sim.step > 1)
    return main(setup=setup)


@case("terminate_after_steps", """
    scenario Main():
        ego = new Object with name "ego"
        terminate after 2 steps
""", 5)
def _():
    def setup(s):
        s.add_agent("ego", at())
        s.terminate_after(steps=2)
    return main(setup=setup)


@case("terminate_after_seconds", """
    scenario Main():
        ego = new Object with name "ego"
        terminate after 1.5 seconds
""", 9, timestep=0.5)
def _():
    def setup(s):
        s.add_agent("ego", at())
        s.terminate_after(1.5)
    return main(setup=setup)


@case("terminate_in_behavior", """
    scenario Main():
        behavior Foo():
            wait
            terminate
        ego = new Object with name "ego", with behavior Foo
""", 5)
def _():
    def foo(a):
        yield wait()
        terminate()
    return main(setup=lambda s: s.add_agent("ego", at(), foo))


@case("top_level_precondition", """
    scenario Main():
        precondition: simulation().currentTime > 0
        setup:
            ego = new Object with name "ego"
""", 1, raise_guards=True)
def _():
    @precondition(lambda scenario, s: s.sim.step > 0)
    class Main(Scenario):
        def setup(self, s):
            s.add_agent("ego", at())
    return Main()


@case("top_level_invariant", """
    scenario Main():
        invariant: simulation().currentTime > 0
        setup:
            ego = new Object with name "ego"
""", 1, raise_guards=True)
def _():
    @invariant(lambda scenario, s: s.sim.step > 0)
    class Main(Scenario):
        def setup(self, s):
            s.add_agent("ego", at())
    return Main()


# -- composition --------------------------------------------------------------------------------


@case("parallel_composition", """
    scenario Main():
        compose:
            do Sub(1), Sub(5)
    scenario Sub(x):
        ego = new Object at (x, 1, 2), with name "s" + str(x)
""", 1)
def _():
    def compose(s):
        yield from s.do(Sub(1, y=1, z=2), Sub(5, y=1, z=2))
    return main(compose)


@case("sequential_composition", """
    scenario Main():
        compose:
            do Sub(1)
            do Sub(5)
    scenario Sub(x):
        ego = new Object at x @ 0, with name "s" + str(x)
        terminate after 1 steps
""", 3)
def _():
    def compose(s):
        yield from s.do(Sub(1, 1))
        yield from s.do(Sub(5, 1))
    return main(compose)


@case("sequential_composition_with_behaviors", """
    behavior B(x):
        while True:
            take x
    scenario Main():
        compose:
            do Sub(1)
            do Sub(5)
            wait
    scenario Sub(x):
        ego = new Object at x @ 0, with name "s" + str(x), with behavior B(x)
        terminate after 2 steps
""", 6)
def _():
    def compose(s):
        yield from s.do(Sub(1, 2, forever(1)))
        yield from s.do(Sub(5, 2, forever(5)))
        yield wait()
    return main(compose)


@case("parallel_subscenarios_end_apart", """
    scenario Main():
        compose:
            do Sub(1, 1), Sub(3, 3)
            wait
    scenario Sub(x, n):
        ego = new Object at x @ 0, with name "s" + str(x)
        terminate after n steps
""", 6)
def _():
    def compose(s):
        yield from s.do(Sub(1, 1), Sub(3, 3))
        yield wait()
    return main(compose)


@case("nested_subscenarios", """
    behavior B():
        while True:
            take simulation().currentTime
    scenario Main():
        compose:
            do Mid()
            wait
    scenario Mid():
        compose:
            wait
            do Leaf() for 2 steps
    scenario Leaf():
        ego = new Object with name "leaf", with behavior B
""", 6)
def _():
    class Mid(Scenario):
        def compose(self, s):
            yield wait()
            yield from s.do(Leaf(), steps=2)

    class Leaf(Scenario):
        def setup(self, s):
            s.add_agent("leaf", at(), lambda a: (take(a.sim.step) for _ in iter(int, 1)))

    def compose(s):
        yield from s.do(Mid())
        yield wait()
    return main(compose)


@case("subscenario_for_steps", """
    scenario Main():
        compose:
            do Sub(1) for 2 steps
            do Sub(5)
    scenario Sub(x):
        ego = new Object at x @ 0, with name "s" + str(x)
        terminate after 3 steps
""", 3)
def _():
    def compose(s):
        yield from s.do(Sub(1, 3), steps=2)
        yield from s.do(Sub(5, 3))
    return main(compose)


@case("subscenario_for_time", """
    scenario Main():
        compose:
            do Sub(1) for 1 seconds
            do Sub(5)
    scenario Sub(x):
        ego = new Object at x @ 0, with name "s" + str(x)
        terminate after 3 steps
""", 3, timestep=0.5)
def _():
    def compose(s):
        yield from s.do(Sub(1, 3), seconds=1)
        yield from s.do(Sub(5, 3))
    return main(compose)


@case("subscenario_until", """
    scenario Main():
        compose:
            do Sub(1) until simulation().currentTime == 2
            do Sub(5)
    scenario Sub(x):
        ego = new Object at x @ 0, with name "s" + str(x)
        terminate after 3 steps
""", 3)
def _():
    def compose(s):
        yield from s.do(Sub(1, 3), until=lambda: s.sim.step == 2)
        yield from s.do(Sub(5, 3))
    return main(compose)


@case("subscenario_wait_for_steps", """
    scenario Main():
        compose:
            wait for 2 steps
            do Sub(5)
    scenario Sub(x):
        ego = new Object at x @ 0, with name "s" + str(x)
        terminate after 3 steps
""", 3)
def _():
    def compose(s):
        yield from do(steps=2)
        yield from s.do(Sub(5, 3))
    return main(compose)


@case("subscenario_wait_for_time", """
    scenario Main():
        compose:
            wait for 1 seconds
            do Sub(5)
    scenario Sub(x):
        ego = new Object at x @ 0, with name "s" + str(x)
        terminate after 3 steps
""", 3, timestep=0.5)
def _():
    def compose(s):
        yield from do(seconds=1)
        yield from s.do(Sub(5, 3))
    return main(compose)


@case("subscenario_wait_until", """
    scenario Main():
        compose:
            wait until simulation().currentTime == 2
            do Sub(5)
    scenario Sub(x):
        ego = new Object at x @ 0, with name "s" + str(x)
        terminate after 3 steps
""", 3)
def _():
    def compose(s):
        yield from do(until=lambda: s.sim.step == 2)
        yield from s.do(Sub(5, 3))
    return main(compose)


@case("dynamic_object_creation", """
    scenario Main():
        compose:
            wait
            do Sub()
    scenario Sub():
        new Object with name "late", with behavior Foo()
    behavior Foo():
        take 42
""", 2)
def _():
    class Late(Scenario):
        def setup(self, s):
            s.add_agent("late", at(), lambda a: (take(42) for _ in range(1)))

    def compose(s):
        yield wait()
        yield from s.do(Late())
    return main(compose)


@case("sub_agents_outlive_their_scenario", """
    behavior B():
        while True:
            take simulation().currentTime
    scenario Main():
        compose:
            do Sub() for 2 steps
            wait
            wait
    scenario Sub():
        ego = new Object with name "e", with behavior B
""", 6)
def _():
    def compose(s):
        yield from s.do(Sub(behavior=lambda a: (take(a.sim.step) for _ in iter(int, 1)),
                            name="e"), steps=2)
        yield wait()
        yield wait()
    return main(compose)


# -- requirements and termination of sub-scenarios ----------------------------------------------


@case("subscenario_require_eventually", """
    scenario Main():
        compose:
            do Sub()
            wait
    scenario Sub():
        ego = new Object with name "ego"
        require eventually simulation().currentTime == 2
        terminate after 1 steps
""", 2)
def _():
    def extra(s):
        s.require_eventually(lambda: s.sim.step == 2)

    def compose(s):
        yield from s.do(Sub(steps=1, extra=extra, name="ego"))
        yield wait()
    return main(compose)


@case("subscenario_require_eventually_satisfied", """
    scenario Main():
        setup:
            ego = new Object with name "e"
        compose:
            do Sub()
            wait
            wait
    scenario Sub():
        setup:
            require eventually simulation().currentTime == 1
            terminate after 2 steps
""", 6)
def _():
    class Eventually(Scenario):
        def setup(self, s):
            s.require_eventually(lambda: s.sim.step == 1)
            s.terminate_after(steps=2)

    def compose(s):
        yield from s.do(Eventually())
        yield wait()
        yield wait()
    return main(compose, lambda s: s.add_agent("e", at()))


@case("subscenario_require_always_violated", """
    scenario Main():
        setup:
            ego = new Object with name "e"
        compose:
            do Sub()
            wait
            wait
    scenario Sub():
        setup:
            require always simulation().currentTime < 1
            terminate after 2 steps
""", 6)
def _():
    class Always(Scenario):
        def setup(self, s):
            s.require_always(lambda: s.sim.step < 1)
            s.terminate_after(steps=2)

    def compose(s):
        yield from s.do(Always())
        yield wait()
        yield wait()
    return main(compose, lambda s: s.add_agent("e", at()))


@case("subscenario_require_always_ends_with_it", """
    scenario Main():
        setup:
            ego = new Object with name "e"
        compose:
            do Sub()
            wait
            wait
            wait
    scenario Sub():
        setup:
            require always simulation().currentTime < 2
            terminate after 1 steps
""", 6)
def _():
    class Always(Scenario):
        def setup(self, s):
            s.require_always(lambda: s.sim.step < 2)
            s.terminate_after(steps=1)

    def compose(s):
        yield from s.do(Always())
        for _ in range(3):
            yield wait()
    return main(compose, lambda s: s.add_agent("e", at()))


@case("subscenario_require_monitor", """
    monitor TimeLimit():
        while True:
            require simulation().currentTime <= 2
            wait
    scenario Main():
        compose:
            do Sub()
            wait
    scenario Sub():
        ego = new Object with name "ego"
        require monitor TimeLimit()
        terminate after 2 steps
""", 3)
def _():
    def time_limit(sim):
        while True:
            require(sim.step <= 2)
            yield wait()

    def extra(s):
        s.monitor(time_limit)

    def compose(s):
        yield from s.do(Sub(steps=2, extra=extra, name="ego"))
        yield wait()
    return main(compose)


@case("subscenario_terminate_when", """
    scenario Main():
        compose:
            do Sub()
            wait
    scenario Sub():
        ego = new Object with name "ego"
        require eventually simulation().currentTime == 2
        terminate when simulation().currentTime == 1
""", 2)
def _():
    def extra(s):
        s.require_eventually(lambda: s.sim.step == 2)
        s.terminate_when(lambda: s.sim.step == 1)

    def compose(s):
        yield from s.do(Sub(extra=extra, name="ego"))
        yield wait()
    return main(compose)


@case("subscenario_terminate_with_parent", """
    scenario Main():
        compose:
            do Sub()
            assert False  # should never get here
    scenario Sub():
        setup:
            ego = new Object with name "ego"
            terminate after 1 steps
        compose:
            do Bottom()
    scenario Bottom():
        require eventually simulation().currentTime == 2
""", 2)
def _():
    class Bottom(Scenario):
        def setup(self, s):
            s.require_eventually(lambda: s.sim.step == 2)

    class Mid(Scenario):
        def setup(self, s):
            s.add_agent("ego", at())
            s.terminate_after(steps=1)

        def compose(self, s):
            yield from s.do(Bottom())

    def compose(s):
        yield from s.do(Mid())
        raise AssertionError("never here")
    return main(compose)


@case("subscenario_terminate_behavior", """
    scenario Main():
        compose:
            do Sub()
            wait
    scenario Sub():
        behavior Foo():
            take 1
            terminate
        ego = new Object with name "ego", with behavior Foo
""", 2)
def _():
    def foo(a):
        yield take(1)
        terminate()

    def compose(s):
        yield from s.do(Sub(behavior=foo, name="ego"))
        yield wait()
    return main(compose)


@case("subscenario_terminate_simulation_behavior", """
    scenario Main():
        compose:
            do Sub()
            wait
            wait
    scenario Sub():
        behavior Foo():
            take 1
            take 2
            terminate simulation
        ego = new Object with name "ego", with behavior Foo
""", 6)
def _():
    def foo(a):
        yield take(1)
        yield take(2)
        terminate_simulation()

    def compose(s):
        yield from s.do(Sub(behavior=foo, name="ego"))
        yield wait()
        yield wait()
    return main(compose)


@case("subscenario_terminate_compose", """
    scenario Main():
        compose:
            do Sub()
            wait
    scenario Sub():
        compose:
            do Bottom(0)
            terminate
            do Bottom(10)
    scenario Bottom(x):
        ego = new Object at (x, 0), with name "b" + str(x)
        terminate after 1 steps
""", 3)
def _():
    class Bottom(Sub):
        def setup(self, s):
            s.add_agent(f"b{self.x}", at(self.x))
            s.terminate_after(steps=1)

    class Mid(Scenario):
        def compose(self, s):
            yield from s.do(Bottom(0))
            terminate()
            yield from s.do(Bottom(10))

    def compose(s):
        yield from s.do(Mid())
        yield wait()
    return main(compose)


@case("subscenario_terminate_simulation_compose", """
    scenario Main():
        setup:
            ego = new Object with name "e"
        compose:
            do Sub()
            wait
            wait
    scenario Sub():
        compose:
            wait
            terminate simulation
""", 8)
def _():
    class Quits(Scenario):
        def compose(self, s):
            yield wait()
            terminate_simulation()

    def compose(s):
        yield from s.do(Quits())
        yield wait()
        yield wait()
    return main(compose, lambda s: s.add_agent("e", at()))


@case("subscenario_precondition_caught", """
    scenario Main():
        setup:
            ego = new Object with name "e", with behavior B
        compose:
            try:
                do Sub()
            except PreconditionViolation:
                wait
                wait
    behavior B():
        while True:
            take simulation().currentTime
    scenario Sub():
        precondition: False
        setup:
            new Object with name "s"
""", 8)
def _():
    @precondition(lambda scenario, s: False)
    class Never(Scenario):
        def setup(self, s):
            s.add_agent("s", at())

    def compose(s):
        try:
            yield from s.do(Never())
        except PreconditionViolation:
            yield wait()
            yield wait()
    return main(compose, lambda s: s.add_agent(
        "e", at(), lambda a: (take(a.sim.step) for _ in iter(int, 1))))


@case("delayed_local_interrupt", """
    scenario Main():
        compose:
            sc = Sub()
            try:
                do sc
            interrupt when sc.ego.position.x >= 1:
                abort
    scenario Sub():
        ego = new Object at (1, 0), with name "ego"
""", 2)
def _():
    def compose(s):
        sc = Sub(1, name="ego")
        started = lambda: getattr(sc, "ego", None) is not None  # noqa: E731
        yield from interrupt(s.do(sc), (lambda: started() and sc.ego.position[0] >= 1,
                                        lambda: "abort"))
    return main(compose)


@case("delayed_local_until", """
    scenario Main():
        compose:
            sc = Sub()
            do sc until sc.ego.position.x >= 1
    scenario Sub():
        ego = new Object at (1, 0), with name "ego"
""", 2)
def _():
    def compose(s):
        sc = Sub(1, name="ego")
        yield from s.do(sc, until=lambda: getattr(sc, "ego", None) is not None
                        and sc.ego.position[0] >= 1)
    return main(compose)


@case("compose_interrupt", """
    behavior B():
        while True:
            take simulation().currentTime
    scenario Main():
        compose:
            try:
                do Sub()
            interrupt when simulation().currentTime == 2:
                wait
                wait
    scenario Sub():
        ego = new Object with name "e", with behavior B
        terminate after 4 steps
""", 8)
def _():
    def compose(s):
        def handler():
            yield wait()
            yield wait()
        yield from interrupt(
            s.do(Sub(behavior=lambda a: (take(a.sim.step) for _ in iter(int, 1)), steps=4,
                     name="e")),
            (lambda: s.sim.step == 2, handler))
    return main(compose)


@case("records_of_a_modular_top_level", """
    scenario Main():
        setup:
            ego = new Object with name "e"
            record simulation().currentTime as t
            record initial simulation().currentTime as t0
            record final simulation().currentTime as t1
        compose:
            do Sub()
            wait
    scenario Sub():
        setup:
            terminate after 2 steps
""", 6)
def _():
    class Two(Scenario):
        def setup(self, s):
            s.terminate_after(steps=2)

    def setup(s):
        s.add_agent("e", at())
        s.record("t", lambda: s.sim.step)
        s.record_initial("t0", lambda: s.sim.step)
        s.record_final("t1", lambda: s.sim.step)

    def compose(s):
        yield from s.do(Two())
        yield wait()
    return main(compose, setup)
