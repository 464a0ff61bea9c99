"""The timing and scoping rules Scenic 3 follows as it runs (issue 12's numbered behaviours),
and the documented differences: where Scenic's implementation contradicts its own
documentation, cvcclock follows the documentation, and a few choices of cvcclock's own.

A difference case carries cvcclock's outcome (``expected``, what the documentation says)
beside Scenic's (recorded by running it), and why.
"""

from __future__ import annotations

from cvcclock.scenario import (
    Scenario,
    do,
    invariant,
    require,
    take,
    terminate,
    wait,
)

from .harness import Case, case_registrar
from .programs import Prog, at, forever

CASES: list[Case] = []

E0 = ["e", [0.0, 0.0, 0.0]]
"""An object "e" at the origin, in a trajectory entry."""


case = case_registrar(CASES)


def outcome(steps, termination, actions=None, records=None, trajectory=None):
    """A plain outcome of ``steps`` steps whose only object is "e" at the origin."""
    return {
        "actions": actions if actions is not None else [[] for _ in range(steps)],
        "trajectory": trajectory if trajectory is not None else [[E0]] * (steps + 1),
        "termination": termination,
        "records": records or {},
        "rejections": 0,
    }


def with_e(compose=None, setup=None):
    """A top-level scenario creating "e" at the origin, then ``setup(s)``."""
    def full_setup(s):
        s.add_agent("e", at())
        if setup is not None:
            setup(s)
    return Prog(full_setup, compose)


# -- the numbered behaviours ----------------------------------------------------------------


@case("issue1_do_ends_in_the_step_its_subscenario_stops", """
    behavior B(x):
        while True:
            take x
    scenario Main():
        setup:
            ego = new Object with name "e", with behavior B(0)
        compose:
            do Sub(1)
            do Sub(5)
            wait
    scenario Sub(x):
        ego = new Object at x @ 0, with name "s" + str(x), with behavior B(x)
        terminate after 1 steps
""", 5)
def _():
    class Sub(Scenario):
        def __init__(self, x):
            self.x = x

        def setup(self, s):
            s.add_agent(f"s{self.x}", at(self.x), forever(self.x))
            s.terminate_after(steps=1)

    def compose(s):
        yield from s.do(Sub(1))
        yield from s.do(Sub(5))
        yield wait()
    return Prog(lambda s: s.add_agent("e", at(), forever(0)), compose)


@case("issue2_terminate_when_checked_after_compose", """
    scenario Main():
        setup:
            ego = new Object with name "e"
            terminate when simulation().currentTime == 2
        compose:
            wait
            wait
            require False
""", 5)
def _():
    def compose(s):
        yield wait()
        yield wait()
        require(False)
    return with_e(compose, lambda s: s.terminate_when(lambda: s.sim.step == 2))


@case("issue3_behavior_invariant_checked_at_start", """
    behavior Foo():
        invariant: simulation().currentTime > 0
        take 1
    ego = new Object with name "e", with behavior Foo
    terminate when True
""", 5, max_iterations=2)
def _():
    @invariant(lambda a: a.sim.step > 0)
    def foo(a):
        yield take(1)

    def setup(s):
        s.add_agent("e", at(), foo)
        s.terminate_when(lambda: True)
    return Prog(setup)


@case("issue4_parent_invariant_before_more_parent_code", """
    behavior Sub():
        take 1
        self.flag = True
    behavior Parent():
        invariant: not self.flag
        do Sub()
        self.flag = False
        take 2
    ego = new Object with name "e", with flag False, with behavior Parent
""", 4)
def _():
    def sub(a):
        yield take(1)
        a.flag = True

    @invariant(lambda a: not a.flag)
    def parent(a):
        yield from do(sub(a))
        a.flag = False      # too late: the invariant was checked as sub returned
        yield take(2)

    return Prog(lambda s: s.add_agent("e", at(), parent, properties={"flag": False}))


@case("issue5_subscenario_monitor_stops_with_it", """
    monitor M():
        while True:
            require simulation().currentTime < 2
            wait
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
            require monitor M()
            terminate after 1 steps
""", 6)
def _():
    def m(sim):
        while True:
            require(sim.step < 2)
            yield wait()

    class Sub(Scenario):
        def setup(self, s):
            s.monitor(m)
            s.terminate_after(steps=1)

    def compose(s):
        yield from s.do(Sub())
        for _ in range(3):
            yield wait()
    return with_e(compose)


@case("issue6_terminate_in_a_sub_behavior_ends_its_scenario", """
    behavior B():
        take 1
        take 2
        terminate
    behavior Other():
        while True:
            take simulation().currentTime
    scenario Main():
        setup:
            ego = new Object with name "e", with behavior Other
        compose:
            do Sub()
            wait
            wait
    scenario Sub():
        new Object with name "s", with behavior B
""", 8)
def _():
    def b(a):
        yield take(1)
        yield take(2)
        terminate()

    class Sub(Scenario):
        def setup(self, s):
            s.add_agent("s", at(), b)

    def compose(s):
        yield from s.do(Sub())
        yield wait()
        yield wait()
    return Prog(lambda s: s.add_agent(
        "e", at(), lambda a: (take(a.sim.step) for _ in iter(int, 1))), compose)


@case("scenario_invariants_checked_every_step", """
    scenario Main():
        invariant: simulation().currentTime < 2
        setup:
            ego = new Object with name "e"
""", 4)
def _():
    @invariant(lambda scenario, s: s.sim.step < 2)
    class Main(Scenario):
        def setup(self, s):
            s.add_agent("e", at())
    return Main()


# -- documented differences -------------------------------------------------------------------


DIFFERENCES: dict[str, str] = {}


def difference(name, scenic, max_steps, why, expected, **run):
    """Register a documented difference: cvcclock's ``expected`` outcome, and why."""
    def register(make):
        CASES.append(Case(name, scenic, make, max_steps, difference=why, expected=expected,
                          **run))
        DIFFERENCES[name] = why
        return make
    return register


@difference("monitors_run_in_the_step_the_top_level_stops", """
    monitor M():
        while True:
            require simulation().currentTime < 2
            wait
    scenario Main():
        setup:
            ego = new Object with name "e"
            require monitor M()
            terminate after 2 steps
""", 6, "Scenic's reference, step 1f: when the top-level scenario stops 'we set a flag ... "
        "(we do not terminate immediately since we still need to check monitors in the next "
        "step)'; Scenic 3.1.1 stops the top-level scenario's monitors with it, so they never "
        "run in that step. cvcclock runs them: this monitor's require rejects at step 2.",
    {"rejected": 1})
def _():
    def m(sim):
        while True:
            require(sim.step < 2)
            yield wait()

    def setup(s):
        s.monitor(m)
        s.terminate_after(steps=2)
    return with_e(setup=setup)


@difference("terminate_when_in_a_subscenario", """
    scenario Main():
        setup:
            ego = new Object with name "e"
        compose:
            do Sub()
            wait
    scenario Sub():
        setup:
            terminate when simulation().currentTime == 1
""", 5, "'terminate when' in a sub-scenario 'only the current scenario will end' (Scenic's "
        "reference); Scenic 3.1.1 treats it as a requirement and rejects every attempt "
        "(Scenic issue #161, fixed by PR #490). cvcclock stops the sub-scenario at step 1.",
    outcome(2, "scenario complete"))
def _():
    class Sub(Scenario):
        def setup(self, s):
            s.terminate_when(lambda: s.sim.step == 1)

    def compose(s):
        yield from s.do(Sub())
        yield wait()
    return with_e(compose)


@difference("terminate_simulation_when_in_a_subscenario", """
    scenario Main():
        setup:
            ego = new Object with name "e"
        compose:
            do Sub()
            wait
            wait
    scenario Sub():
        setup:
            terminate simulation when simulation().currentTime == 1
            terminate after 3 steps
""", 8, "'terminate simulation when' 'terminates the entire simulation even when used inside a "
        "sub-scenario' (Scenic's reference); Scenic 3.1.1 rejects every attempt instead, as for "
        "'terminate when' (issue #161 / PR #490). cvcclock ends the simulation at step 1.",
    outcome(1, "termination condition"))
def _():
    class Sub(Scenario):
        def setup(self, s):
            s.terminate_simulation_when(lambda: s.sim.step == 1)
            s.terminate_after(steps=3)

    def compose(s):
        yield from s.do(Sub())
        yield wait()
        yield wait()
    return with_e(compose)


@difference("records_in_a_subscenario", """
    scenario Main():
        setup:
            ego = new Object with name "e"
            record simulation().currentTime as main_t
        compose:
            wait
            do Sub()
            wait
    scenario Sub():
        setup:
            record simulation().currentTime * 10 as sub_t
            record initial simulation().currentTime as sub_i
            record final simulation().currentTime as sub_f
            terminate after 2 steps
""", 6, "Scenic 3.1.1 drops the records of sub-scenarios (issue #161). cvcclock records them "
        "as PR #490 documents: 'record initial' at the step the scenario starts, 'record' at "
        "each step it runs (including the one it stops in), 'record final' when it stops.",
    outcome(4, "scenario complete", records={
        "main_t": [[0, 0], [1, 1], [2, 2], [3, 3], [4, 4]],
        "sub_t": [[1, 10], [2, 20], [3, 30]], "sub_i": 1, "sub_f": 3}))
def _():
    class Sub(Scenario):
        def setup(self, s):
            s.record("sub_t", lambda: s.sim.step * 10)
            s.record_initial("sub_i", lambda: s.sim.step)
            s.record_final("sub_f", lambda: s.sim.step)
            s.terminate_after(steps=2)

    def compose(s):
        yield wait()
        yield from s.do(Sub())
        yield wait()
    return with_e(compose, lambda s: s.record("main_t", lambda: s.sim.step))


@difference("a_subscenario_monitor_terminates_its_scenario", """
    monitor M():
        wait
        terminate
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
            require monitor M()
""", 8, "'terminate' ends 'the current scenario': for a monitor, the scenario that "
        "instantiated it ('stop the scenario which instantiated it', Scenic's reference, step "
        "3, as PR #490 words it); Scenic 3.1.1 ends the whole simulation. cvcclock stops the "
        "sub-scenario at step 1; its parent goes on and finishes at step 5.",
    outcome(5, "scenario complete"))
def _():
    def m(sim):
        yield wait()
        terminate()

    class Sub(Scenario):
        def setup(self, s):
            s.monitor(m)

    def compose(s):
        yield from s.do(Sub())
        for _ in range(3):
            yield wait()
    return with_e(compose)


@difference("do_for_does_not_check_the_parent_invariants", """
    behavior Sub():
        while True:
            self.flag = True
            take 1
            self.flag = False
            take 1
    behavior Parent():
        invariant: not ego.flag
        do Sub() for 4 steps
        take 2
    ego = new Object with name "e", with flag False, with behavior Parent
""", 5, "A behavior's invariants are checked 'not including time spent inside sub-behaviors' "
        "(Scenic's reference); Scenic 3.1.1 runs 'do ... for/until' as a try-interrupt of the "
        "parent, which checks the parent's invariants after every step of the sub-behavior, "
        "and rejects at step 1. cvcclock checks them when the sub-behavior is stopped (step 4).",
    outcome(5, "time limit", actions=[[["e", [1]]]] * 4 + [[["e", [2]]]]))
def _():
    def sub(a):
        while True:
            a.flag = True
            yield take(1)
            a.flag = False
            yield take(1)

    @invariant(lambda a: not a.flag)
    def parent(a):
        yield from do(sub(a), steps=4)
        yield take(2)
    return Prog(lambda s: s.add_agent("e", at(), parent, properties={"flag": False}))


@difference("record_every_and_after", """
    scenario Main():
        setup:
            ego = new Object with name "e"
            record simulation().currentTime every 2 steps after 1 steps as t
""", 6, "'The every clause allows specifying the interval between entries of the series ... "
        "the after clause ... an initial delay' (Scenic's reference); Scenic 3.1.1 applies "
        "them to files written with 'to' only, and records every step in the result. cvcclock "
        "keeps steps 1, 3 and 5.",
    outcome(6, "time limit", records={"t": [[1, 1], [3, 3], [5, 5]]}))
def _():
    return with_e(setup=lambda s: s.record("t", lambda: s.sim.step, every=2, after=1))


@difference("terminate_in_a_sub_behavior_also_ends_the_behavior", """
    scenario Main():
        compose:
            do Sub()
            wait
            wait
            wait
    scenario Sub():
        setup:
            ego = new Object with name "e", with behavior B
    behavior B():
        take 1
        terminate
        take 2
        take 3
""", 5, "A cvcclock choice: terminate() raises, so the behavior that calls it ends there (the "
        "agent waits from then on). In Scenic 'terminate' is a yield: when it ends a "
        "sub-scenario, the agent's behavior goes on at the next step (takes 2, then 3).",
    outcome(5, "scenario complete", actions=[[["e", [1]]]] + [[["e", []]]] * 4))
def _():
    def b(a):
        yield take(1)
        terminate()
        yield take(2)
        yield take(3)

    class Sub(Scenario):
        def setup(self, s):
            s.add_agent("e", at(), b)

    def compose(s):
        yield from s.do(Sub())
        for _ in range(3):
            yield wait()
    return Prog(compose=compose)
