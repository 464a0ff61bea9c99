"""Issue 24: the rest of Scenic's semantics. Seconds into steps, when guards are checked and
how often side-effecting guards run, Scenic's own bugs around sub-scenarios (pinned both
ways), and the features: ``override``, ``lastActions``, ``do choose``/``shuffle``, temporal
requirements, soft requirements, global parameters."""

from __future__ import annotations

from cvcclock.scenario import (
    ABORT,
    Always,
    Eventually,
    Implies,
    Next,
    Scenario,
    Until,
    do,
    do_choose,
    do_shuffle,
    interrupt,
    invariant,
    precondition,
    require,
    take,
    wait,
)

from .cases_issue import DIFFERENCES, outcome
from .harness import Case, case_registrar
from .programs import Prog, at, forever

CASES: list[Case] = []

case = case_registrar(CASES)


def difference(name, scenic, max_steps, why, expected, **run):
    """A documented difference (as in cases_issue): cvcclock's ``expected`` outcome, and why."""
    def register(make):
        CASES.append(Case(name, scenic, make, max_steps, difference=why, expected=expected,
                          **run))
        DIFFERENCES[name] = why
        return make
    return register


def ego(behavior, *args, extra=None):
    """A scenario with one agent "e" at the origin; ``extra(s, agent)`` adds the rest."""
    def setup(s):
        agent = s.add_agent("e", at(), behavior, *args)
        if extra is not None:
            extra(s, agent)
    return Prog(setup)


def counter():
    """A side-effecting guard and what it saw: ``(calls, pred)``; ``pred`` appends and is
    true."""
    calls = []

    def pred(*_):
        calls.append(len(calls) + 1)
        return True
    return calls, pred


# -- 1. seconds into steps ------------------------------------------------------------------


@case("seconds_do_for_a_quotient_just_above_a_whole_step", """
    behavior B(x):
        while True:
            take x
    behavior Main():
        do B(1) for 2.1 seconds
        while True:
            take 2
    ego = new Object with name "e", with behavior Main
""", 10, timestep=0.3)
def _():
    def main(a):
        yield from do(forever(1)(a), seconds=2.1)
        while True:
            yield take(2)
    return ego(main)


@case("seconds_wait_for_a_quotient_just_above_a_whole_step", """
    behavior Main():
        wait for 2.1 seconds
        while True:
            take 2
    ego = new Object with name "e", with behavior Main
""", 10, timestep=0.3)
def _():
    def main(a):
        yield from wait(seconds=2.1)
        while True:
            yield take(2)
    return ego(main)


@case("seconds_terminate_after_a_quotient_just_above_a_whole_step", """
    behavior B(x):
        while True:
            take x
    ego = new Object with name "e", with behavior B(1)
    terminate after 2.1 seconds
""", 12, timestep=0.3)
def _():
    return ego(forever(1), extra=lambda s, a: s.terminate_after(2.1))


@case("seconds_do_for_a_quotient_just_below_a_whole_step", """
    behavior B(x):
        while True:
            take x
    behavior Main():
        do B(1) for 0.3 seconds
        while True:
            take 2
    ego = new Object with name "e", with behavior Main
""", 6, timestep=0.1)
def _():
    def main(a):
        yield from do(forever(1)(a), seconds=0.3)
        while True:
            yield take(2)
    return ego(main)


# -- 2. guards checked when the sub-behavior starts -------------------------------------------


@case("guards_a_do_until_true_never_starts_its_sub_behavior", """
    behavior Foo():
        precondition: simulation().currentTime < 0
        while True:
            take 1
    behavior Main():
        do Foo() until True
        while True:
            take 2
    ego = new Object with name "e", with behavior Main
""", 3)
def _():
    @precondition(lambda a: a.sim.step < 0)
    def foo(a):
        while True:
            yield take(1)

    def main(a):
        yield from do(foo(a), until=lambda: True)
        while True:
            yield take(2)
    return ego(main)


@case("guards_an_interrupted_body_checks_its_precondition_when_it_starts", """
    behavior Sub():
        precondition: simulation().currentTime >= 1
        while True:
            take 1
    behavior Main():
        try:
            do Sub()
        interrupt when simulation().currentTime == 0:
            take 3
    ego = new Object with name "e", with behavior Main
""", 4)
def _():
    @precondition(lambda a: a.sim.step >= 1)
    def sub(a):
        while True:
            yield take(1)

    def main(a):
        yield from interrupt(do(sub(a)), (lambda: a.sim.step == 0, lambda: take3()))

    def take3():
        yield take(3)
    return ego(main)


@case("guards_a_sub_behavior_invariant_checked_when_it_starts", """
    behavior Sub():
        invariant: simulation().currentTime >= 2
        while True:
            take 1
    behavior Main():
        take 5
        take 5
        do Sub()
    ego = new Object with name "e", with behavior Main
""", 4)
def _():
    @invariant(lambda a: a.sim.step >= 2)
    def sub(a):
        while True:
            yield take(1)

    def main(a):
        later = sub(a)      # made at step 0, started at step 2: checked then
        yield take(5)
        yield take(5)
        yield from do(later)
    return ego(main)


# -- 3. side-effecting guards run as often as in Scenic ---------------------------------------


@case("guards_count_a_scenario_invariant_without_compose", """
    calls = []
    def count():
        calls.append(len(calls) + 1)
        return True
    scenario Main():
        invariant: count()
        setup:
            ego = new Object with name "e"
            record len(calls) as n
""", 3)
def _():
    calls, pred = counter()

    @invariant(pred)
    class Main(Scenario):
        def setup(self, s):
            s.add_agent("e", at())
            s.record("n", lambda: len(calls))
    return Main()


@case("guards_count_a_sub_scenario_invariant_without_compose", """
    calls = []
    def count():
        calls.append(len(calls) + 1)
        return True
    scenario Main():
        setup:
            ego = new Object with name "e"
            record len(calls) as n
        compose:
            do Sub()
    scenario Sub():
        invariant: count()
        setup:
            terminate after 3 steps
""", 5)
def _():
    calls, pred = counter()

    @invariant(pred)
    class Sub(Scenario):
        def setup(self, s):
            s.terminate_after(steps=3)

    def setup(s):
        s.add_agent("e", at())
        s.record("n", lambda: len(calls))

    def compose(s):
        yield from s.do(Sub())
    return Prog(setup, compose)


@case("guards_count_a_behavior_invariant_around_an_interrupt", """
    calls = []
    def count():
        calls.append(len(calls) + 1)
        return True
    behavior Main():
        invariant: count()
        try:
            take 1
            take 1
        interrupt when False:
            take 9
        take 2
        take 2
    ego = new Object with name "e", with behavior Main
    record len(calls) as n
""", 5)
def _():
    calls, pred = counter()

    @invariant(pred)
    def main(a):
        def body():
            yield take(1)
            yield take(1)
        yield from interrupt(body, (lambda: False, lambda: take9()))
        yield take(2)
        yield take(2)

    def take9():
        yield take(9)
    return ego(main, extra=lambda s, a: s.record("n", lambda: len(calls)))


@case("guards_count_a_behavior_invariant_around_a_do", """
    calls = []
    def count():
        calls.append(len(calls) + 1)
        return True
    behavior Sub():
        take 1
        take 1
    behavior Main():
        invariant: count()
        do Sub()
        take 2
        take 2
    ego = new Object with name "e", with behavior Main
    record len(calls) as n
""", 5)
def _():
    calls, pred = counter()

    def sub(a):
        yield take(1)
        yield take(1)

    @invariant(pred)
    def main(a):
        yield from do(sub(a))
        yield take(2)
        yield take(2)
    return ego(main, extra=lambda s, a: s.record("n", lambda: len(calls)))


# -- 4 and 5. Scenic's own bugs: cvcclock keeps what Scenic's documentation promises -----------


LOST = ("Scenic's reference, try-interrupt: 'Once the interrupt handler is complete, control "
        "is returned to the statement that was being executed under the try block'. Scenic "
        "3.1.1 (and its main branch) keeps one _subScenarios list per scenario in "
        "DynamicScenario._invokeInner, which the handler's do overwrites, so the interrupted "
        "do Long() finds nothing running and returns: Long never resumes (its time limit, "
        "monitors and requirements stop). cvcclock resumes it: Long runs its remaining 3 "
        "steps and the compose block finishes at step 5, not 2.")


@difference("bug_scenic_a_compose_interrupt_handler_running_a_sub_scenario", """
    monitor Tick():
        while True:
            wait
    scenario Main():
        setup:
            ego = new Object with name "e"
        compose:
            try:
                do Long()
            interrupt when simulation().currentTime == 1:
                do Short()
    scenario Long():
        setup:
            terminate after 4 steps
    scenario Short():
        setup:
            terminate after 1 steps
""", 10, LOST, outcome(5, "scenario complete"))
def _():
    class Long(Scenario):
        def setup(self, s):
            s.terminate_after(steps=4)

    class Short(Scenario):
        def setup(self, s):
            s.terminate_after(steps=1)

    def compose(s):
        yield from interrupt(s.do(Long()), (lambda: s.sim.step == 1, lambda: s.do(Short())))
    return Prog(lambda s: s.add_agent("e", at()), compose)


ABORTED = ("Scenic's reference: abort 'terminate[s] the current try-interrupt statement', and "
           "a do ends what it runs when it ends (Scenic's own do ... until stops its "
           "sub-scenarios as its handler aborts). Scenic 3.1.1 (and its main branch) abandons "
           "the do's generator without stopping Long, whose monitor runs on to the end of the "
           "simulation (here it rejects at step 4) and whose require eventually is checked "
           "only then. cvcclock stops Long at the abort: its monitor ends with it and its "
           "requirements are checked at that step.")


@difference("bug_scenic_abort_leaves_the_sub_scenarios_monitor_running", """
    monitor Late():
        while True:
            require simulation().currentTime < 4
            wait
    scenario Main():
        setup:
            ego = new Object with name "e"
        compose:
            try:
                do Long()
            interrupt when simulation().currentTime == 2:
                abort
            wait for 4 steps
    scenario Long():
        setup:
            require monitor Late()
""", 8, ABORTED, outcome(6, "scenario complete"))
def _():
    def late(sim):
        while True:
            require(sim.step < 4)
            yield wait()

    class Long(Scenario):
        def setup(self, s):
            s.monitor(late)

    def compose(s):
        yield from interrupt(s.do(Long()), (lambda: s.sim.step == 2, lambda: ABORT))
        yield from wait(steps=4)
    return Prog(lambda s: s.add_agent("e", at()), compose)


@case("bug_scenic_abort_a_sub_scenario_whose_require_eventually_held", """
    scenario Main():
        setup:
            ego = new Object with name "e"
        compose:
            try:
                do Long()
            interrupt when simulation().currentTime == 2:
                abort
            wait for 4 steps
    scenario Long():
        setup:
            require eventually simulation().currentTime >= 1
""", 8)
def _():
    class Long(Scenario):
        def setup(self, s):
            s.require_eventually(lambda: s.sim.step >= 1)

    def compose(s):
        yield from interrupt(s.do(Long()), (lambda: s.sim.step == 2, lambda: ABORT))
        yield from wait(steps=4)
    return Prog(lambda s: s.add_agent("e", at()), compose)


# -- 6. override ------------------------------------------------------------------------------


@case("override_a_property_for_the_sub_scenarios_duration", """
    behavior B():
        while True:
            take self.foo
    scenario Main():
        setup:
            ego = new Object with name "e", with foo 1, with behavior B
        compose:
            wait
            do Sub(ego)
            wait
            wait
    scenario Sub(obj):
        setup:
            override obj with foo 5
            terminate after 2 steps
""", 6)
def _():
    def b(a):
        while True:
            yield take(a.foo)

    class Sub(Scenario):
        def __init__(self, obj):
            self.obj = obj

        def setup(self, s):
            s.override(self.obj, foo=5)
            s.terminate_after(steps=2)

    def setup(s):
        s.scenario.ego = s.add_agent("e", at(), b, properties={"foo": 1})

    def compose(s):
        yield wait()
        yield from s.do(Sub(s.scenario.ego))
        yield wait()
        yield wait()
    return Prog(setup, compose)


@case("override_a_behavior_and_resume_the_agents_own", """
    behavior B(x):
        while True:
            take x
    behavior Count():
        n = 0
        while True:
            n += 1
            take n
    scenario Main():
        setup:
            ego = new Object with name "e", with behavior Count
        compose:
            wait
            do Sub(ego)
            wait
            wait
    scenario Sub(obj):
        setup:
            override obj with behavior B(9)
            terminate after 2 steps
""", 7)
def _():
    def count(a):
        n = 0
        while True:
            n += 1
            yield take(n)

    class Sub(Scenario):
        def __init__(self, obj):
            self.obj = obj

        def setup(self, s):
            s.override(self.obj, behavior=forever(9))
            s.terminate_after(steps=2)

    def setup(s):
        s.scenario.ego = s.add_agent("e", at(), count)

    def compose(s):
        yield wait()
        yield from s.do(Sub(s.scenario.ego))
        yield wait()
        yield wait()
    return Prog(setup, compose)


# -- 7. lastActions ---------------------------------------------------------------------------


@case("last_actions_in_behaviors_and_records", """
    behavior A():
        take 1
        take 2, 3
        wait
        take 4
    behavior Reads(other):
        while True:
            take other.lastActions, self.lastActions
    a = new Object with name "a", with behavior A
    b = new Object at 5 @ 0, with name "b", with behavior Reads(a)
    record a.lastActions as a_last
    record b.lastActions as b_last
""", 5)
def _():
    def a_behavior(agent):
        yield take(1)
        yield take(2, 3)
        yield wait()
        yield take(4)

    def reads(agent, other):
        while True:
            yield take(other.last_actions, agent.last_actions)

    def setup(s):
        a = s.add_agent("a", at(), a_behavior)
        b = s.add_agent("b", at(5), reads, a)
        s.record("a_last", lambda: a.last_actions)
        s.record("b_last", lambda: b.last_actions)
    return Prog(setup)


# -- 8. do choose and do shuffle --------------------------------------------------------------


@case("choose_the_one_enabled_sub_behavior", """
    behavior A():
        precondition: simulation().currentTime < 0
        take 1
    behavior B():
        take 2
        take 2
    behavior Main():
        do choose A(), B()
        while True:
            take 3
    ego = new Object with name "e", with behavior Main
""", 4)
def _():
    @precondition(lambda a: a.sim.step < 0)
    def a_(agent):
        yield take(1)

    def b_(agent):
        yield take(2)
        yield take(2)

    def main(agent):
        yield from do_choose(a_(agent), b_(agent))
        while True:
            yield take(3)
    return ego(main)


@case("shuffle_in_the_order_the_preconditions_allow", """
    behavior A():
        precondition: self.flag and not self.done
        take 1
        self.done = True
    behavior B():
        take 2
        self.flag = True
    behavior C():
        precondition: self.done
        take 9
    behavior Main():
        do shuffle A(), B(), C()
        while True:
            take 3
    ego = new Object with name "e", with flag False, with done False, with behavior Main
""", 5, max_iterations=1)
def _():
    @precondition(lambda agent: agent.flag and not agent.done)
    def a_(agent):
        yield take(1)
        agent.done = True

    def b_(agent):
        yield take(2)
        agent.flag = True

    @precondition(lambda agent: agent.done)
    def c_(agent):
        yield take(9)

    def main(agent):
        yield from do_shuffle(a_(agent), b_(agent), c_(agent))
        while True:
            yield take(3)

    def setup(s):
        s.add_agent("e", at(), main, properties={"flag": False, "done": False})
    return Prog(setup)


@case("choose_with_nothing_enabled_rejects", """
    behavior A():
        precondition: simulation().currentTime < 0
        take 1
    behavior Main():
        take 5
        do choose A()
    ego = new Object with name "e", with behavior Main
""", 4, max_iterations=2)
def _():
    @precondition(lambda a: a.sim.step < 0)
    def a_(agent):
        yield take(1)

    def main(agent):
        yield take(5)
        yield from do_choose(a_(agent))
    return ego(main)


# -- 9. temporal requirements -----------------------------------------------------------------


def counting(extra):
    """"e" counts its steps in ``blah`` (0 at step 0, as each step's records see it);
    ``extra(s, agent)`` registers the requirements."""
    def count(agent):
        while True:
            yield take(agent.blah)
            agent.blah += 1

    def setup(s):
        agent = s.add_agent("e", at(), count, properties={"blah": 0})
        extra(s, agent)
    return Prog(setup)


def temporal(name, requirement, max_steps, extra, **run):
    """A temporal case: Scenic's ``require`` line over "e" counting its steps."""
    scenic = f"""
    behavior Count():
        while True:
            take self.blah
            self.blah += 1
    ego = new Object with name "e", with blah 0, with behavior Count
    require {requirement}
"""
    case(name, scenic, max_steps, **run)(lambda: counting(extra))


def blah(agent, test):
    return lambda: test(agent.blah)


temporal("temporal_until_met", "(ego.blah < 3) until (ego.blah == 2)", 4,
         lambda s, a: s.require(Until(blah(a, lambda b: b < 3), blah(a, lambda b: b == 2))))
temporal("temporal_until_broken_then_met_rejects", "(ego.blah < 1) until (ego.blah == 3)", 5,
         lambda s, a: s.require(Until(blah(a, lambda b: b < 1), blah(a, lambda b: b == 3))))
temporal("temporal_until_pending_at_the_end_rejects", "(ego.blah < 9) until (ego.blah == 9)",
         3, lambda s, a: s.require(Until(blah(a, lambda b: b < 9), blah(a, lambda b: b == 9))))
temporal("temporal_next_holds", "next ego.blah == 0", 3,
         lambda s, a: s.require(Next(blah(a, lambda b: b == 0))))
temporal("temporal_next_fails", "next ego.blah == 5", 3,
         lambda s, a: s.require(Next(blah(a, lambda b: b == 5))))
temporal("temporal_next_pending_at_the_end_rejects", "next next next ego.blah == 3", 2,
         lambda s, a: s.require(Next(Next(Next(blah(a, lambda b: b == 3))))))
temporal("temporal_always_implies_next", "always ((ego.blah == 1) implies (next ego.blah == 2))",
         4, lambda s, a: s.require(Always(Implies(blah(a, lambda b: b == 1),
                                                  Next(blah(a, lambda b: b == 2))))))
temporal("temporal_always_implies_eventually_pending",
         "always ((ego.blah == 2) implies (eventually ego.blah == 9))", 4,
         lambda s, a: s.require(Always(Implies(blah(a, lambda b: b == 2),
                                                  Eventually(blah(a, lambda b: b == 9))))))
temporal("temporal_eventually_always", "eventually always ego.blah >= 2", 4,
         lambda s, a: s.require(Eventually(Always(blah(a, lambda b: b >= 2)))))
temporal("temporal_always_eventually", "always eventually ego.blah == 1", 4,
         lambda s, a: s.require(Always(Eventually(blah(a, lambda b: b == 1)))))
temporal("temporal_a_plain_condition_speaks_of_the_first_step", "ego.blah == 0", 3,
         lambda s, a: s.require(blah(a, lambda b: b == 0)))


# -- 10. soft requirements --------------------------------------------------------------------


temporal("soft_requirement_enforced_and_held", "[1] ego.blah == 0", 3,
         lambda s, a: s.require(blah(a, lambda b: b == 0), prob=1))
temporal("soft_requirement_half_that_holds", "[0.5] ego.blah == 0", 3,
         lambda s, a: s.require(blah(a, lambda b: b == 0), prob=0.5))

DROPPED = ("Scenic's reference: require[p] is a soft requirement that 'needs only hold with "
           "probability p'; at p = 0 it is never enforced. Scenic 3.1.1 drops it while it "
           "samples the scene, but Scene.temporalRequirements binds every requirement of the "
           "scene, active or not, as a requirement of the simulation, so it is enforced at "
           "step 0 and every run is rejected. cvcclock enforces it with probability "
           "p, drawn from the attempt's rng, in the simulation too.")

difference("soft_requirement_dropped_at_probability_zero", """
    behavior Count():
        while True:
            take self.blah
            self.blah += 1
    ego = new Object with name "e", with blah 0, with behavior Count
    require[0] ego.blah == 5
""", 3, DROPPED, outcome(3, "time limit", actions=[[["e", [n]]] for n in range(3)]))(
    lambda: counting(lambda s, a: s.require(blah(a, lambda b: b == 5), prob=0)))


# -- 11. global parameters and the initial scenario -------------------------------------------


INITIAL = ("Scenic's tutorial: 'initial scenario' tests 'whether we are inside the initial "
           "scenario, i.e., the very first scenario to run'. Scenic 3.1.1 keeps it in a module "
           "global (veneer.inInitialScenario), true until the first scenario's setup finishes: "
           "here the top level has no setup, so Sub's setup sees it true and creates 'never'; "
           "and a top-level setup, run as its program compiles, sees what the program compiled "
           "before it in the process left. cvcclock: true in the top-level scenario only.")

_S_OUTCOME = {
    "actions": [[["s", [1, 3]]]] * 3,
    "trajectory": [[["s", [5.0, 0.0, 0.0]]]] * 4,
    "termination": "scenario complete", "records": {}, "rejections": 0,
}


@difference("initial_scenario_is_the_top_level_only", """
    param speed = 3
    param name = "s"
    behavior B(x):
        while True:
            take x, globalParameters.speed
    scenario Main():
        compose:
            if initial scenario:
                do Sub(1)
            else:
                do Sub(7)
            wait
    scenario Sub(x):
        setup:
            if initial scenario:
                new Object at 9 @ 0, with name "never"
            else:
                new Object at 5 @ 0, with name globalParameters.name, with behavior B(x)
            terminate after 2 steps
""", 5, INITIAL, _S_OUTCOME)
def _():
    def b(agent, x):
        while True:
            yield take(x, agent.sim.params.speed)

    class Sub(Scenario):
        def __init__(self, x):
            self.x = x

        def setup(self, s):
            if s.initial:
                s.add_agent("never", at(9))
            else:
                s.add_agent(s.params["name"], at(5), b, self.x)
            s.terminate_after(steps=2)

    class Main(Scenario):
        params = {"speed": 3, "name": "s"}

        def compose(self, s):
            yield from s.do(Sub(1) if s.initial else Sub(7))
            yield wait()
    return Main()


@case("params_read_from_behaviors_scenarios_and_conditions", """
    param speed = 3
    param stop = 2
    behavior B():
        while True:
            take globalParameters.speed
    scenario Main():
        setup:
            ego = new Object with name "e", with behavior B
            terminate when simulation().currentTime >= globalParameters.stop
""", 6)
def _():
    def b(agent):
        while True:
            yield take(agent.sim.params.speed)

    class Main(Scenario):
        params = {"speed": 3, "stop": 2}

        def setup(self, s):
            s.add_agent("e", at(), b)
            s.terminate_when(lambda: s.sim.step >= s.params.stop)
    return Main()
