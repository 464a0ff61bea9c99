"""One time step runs in exactly the order of Scenic's "Execution of Dynamic Scenarios".

The runner's trace and every user callable (predicates, compose, monitors, behaviors, the
guards, the records and the simulator's methods) write to one log, each entry stamped with
the step the simulation believes it is at. The whole log of a run is compared with the
order the seed prescribes, as Scenic 3 runs it: the start (before step 0), step 0, the
middle steps, and the last step of a run ending through each termination reason (a
scenario stopping by its time limit, its compose returning or terminating, or a
terminate_when condition, checked after compose), and a run with a ``do`` sub-scenario,
which runs inside its parent's step, and a sub-behavior that returns.
"""

import pytest

from cvcclock.scenario import (
    PointMassSimulator,
    Scenario,
    TerminationType,
    Throttle,
    Vehicle,
    do,
    invariant,
    precondition,
    simulate,
    take,
    terminate,
    wait,
)

STOP_AT = 3
SCENARIO_STOPS = ("scenario", "compose_finished", "compose_terminate", "terminate_when")


class LoggingSimulator(PointMassSimulator):
    """The reference simulator, logging each call with the simulation's step."""

    def __init__(self, log):
        super().__init__()
        self.log = log
        self.sim = None
        self.names = {}

    def _note(self, label):
        self.log.append((self.sim.step if self.sim else 0, label))

    def create_object(self, name, spec):
        handle = super().create_object(name, spec)
        self.names[id(handle)] = name
        return handle

    def apply_action(self, handle, action):
        self._note(f"apply:{self.names[id(handle)]}")
        super().apply_action(handle, action)

    def step(self, dt):
        self._note("sim_step")
        super().step(dt)

    def get_properties(self, handle):
        self._note(f"props:{self.names[id(handle)]}")
        return super().get_properties(handle)


class AllPhases(Scenario):
    """Every phase of a time step has a user callable that logs; ``stop`` picks the ending."""

    def __init__(self, log, stop=None):
        self.log, self.stop = log, stop

    def simulator(self):
        return LoggingSimulator(self.log)

    def setup(self, s):
        log, stop = self.log, self.stop
        s.sim.simulator.sim = s.sim

        def note(label, value=True):
            log.append((s.sim.step, label))
            return value

        def at_stop(kind):
            return stop == kind and s.sim.step == STOP_AT

        @precondition(lambda car: note("precondition"))
        @invariant(lambda car: note("invariant"))
        def guarded(car):
            while True:
                note("a")
                yield take(Throttle(0.2))

        def plain(car):
            while True:
                note("b")
                if at_stop("behavior"):
                    terminate("b is done")
                yield take(Throttle(0.1))

        def monitor(sim, name):
            while True:
                note(name)
                if name == "m1" and at_stop("monitor"):
                    terminate("m1 saw enough")
                yield wait()

        s.add_agent("a", Vehicle(), guarded)
        s.add_agent("b", Vehicle(x=10.0), plain)
        s.require_always(lambda: note("always"))
        s.require_eventually(lambda: note("eventually", s.sim.step >= 1))
        s.terminate_when(lambda: note("terminate_when", at_stop("terminate_when")))
        s.invariant(lambda: note("scenario_invariant"))
        if stop == "scenario":
            s.terminate_after(steps=STOP_AT)
        s.monitor(monitor, "m1", name="m1")
        s.monitor(monitor, "m2", name="m2")
        s.record("r", lambda: note("record", 0))
        s.record_initial("ri", lambda: note("record_initial", 0))
        s.record_final("rf", lambda: note("record_final", 0))
        s.terminate_simulation_when(lambda: note("end_condition", at_stop("condition")))

    def compose(self, s):
        while True:
            self.log.append((s.sim.step, "compose"))
            if s.sim.step == STOP_AT and self.stop == "compose_finished":
                return
            if s.sim.step == STOP_AT and self.stop == "compose_terminate":
                terminate("compose is done")
            yield wait()


# Before step 0 the top-level scenario starts: setup (which creates the objects), the
# invariants it registered, then its agents' behaviors (their guards).
SETUP = [(0, "start:AllPhases"), (0, "props:a"), (0, "props:b"), (0, "scenario_invariant"),
         (0, "precondition"), (0, "invariant")]


def stopping(n, saved=False):
    """The top-level scope stopping at step n: this step's record unless already saved, then
    the final record."""
    return [(n, "stopping:AllPhases")] + [(n, "record")] * (not saved) + [(n, "record_final")]


def expected_step(n, stop=None):
    """The log of time step n, ending the run there through ``stop`` if given."""
    e = [(n, "scenarios"), (n, "require_always:AllPhases"), (n, "always"),
         (n, "require_eventually:AllPhases"), (n, "eventually"),
         (n, "time_limit:AllPhases")]
    if stop == "scenario":                      # stops before its compose block
        e += stopping(n)
    else:
        # the compose block's resumption checks the scenario's invariants (not at its start)
        e += [(n, "compose:AllPhases")] + [(n, "scenario_invariant")] * (n > 0)
        e += [(n, "compose")]
        if stop in ("compose_finished", "compose_terminate"):   # stops after its compose
            e += stopping(n)
        else:                                   # terminate_when is checked after compose
            e += [(n, "terminate_when:AllPhases"), (n, "terminate_when")]
            if stop == "terminate_when":
                e += stopping(n)
    e += [(n, "records")]
    if stop not in SCENARIO_STOPS:              # a stopped scope saved its records already
        e += [(n, "record_initial")] * (n == 0) + [(n, "record")]
    # the top level's monitors run in the step it stops too
    e += [(n, "monitors"), (n, "monitor:m1"), (n, "m1"), (n, "monitor:m2"), (n, "m2"),
          (n, "termination_checks")]
    if stop in SCENARIO_STOPS:
        return e + [(n, "end")]
    if stop == "monitor":
        return e + [(n, "end")] + stopping(n, saved=True)
    e += [(n, "end_condition")]
    if stop in ("condition", "time_limit"):
        return e + [(n, "end")] + stopping(n, saved=True)
    e += [(n, "behaviors"), (n, "behavior:a")] + [(n, "invariant")] * (n > 0)
    e += [(n, "a"), (n, "behavior:b"), (n, "b")]
    if stop == "behavior":
        return e + [(n, "end")] + stopping(n, saved=True)
    return e + [(n, "actions"), (n, "apply:a"), (n, "apply:b"),
                (n, "simulator_step"), (n, "sim_step"),
                (n, "dynamic_properties"), (n, "props:a"), (n, "props:b"),
                (n, "clock")]


def run(stop, **kwargs):
    log = []

    def trace(step, phase, subject):
        log.append((step, f"{phase}:{subject}" if subject else phase))

    result = simulate(AllPhases(log, stop), seed=1, trace=trace, **kwargs)
    return log, result


ENDINGS = {
    "time_limit": (TerminationType.TIME_LIMIT, "reached max_steps=3"),
    "scenario": (TerminationType.SCENARIO_COMPLETE, "scenario 'AllPhases' reached its time limit"),
    "compose_finished": (TerminationType.SCENARIO_COMPLETE,
                         "compose of scenario 'AllPhases' finished"),
    "compose_terminate": (TerminationType.SCENARIO_COMPLETE,
                          "compose of scenario 'AllPhases' terminated it: compose is done"),
    "terminate_when": (TerminationType.SCENARIO_COMPLETE, "terminate_when <lambda>"),
    "condition": (TerminationType.TERMINATION_CONDITION, "terminate_simulation_when"),
    "monitor": (TerminationType.MONITOR, "monitor 'm1' terminated the simulation: m1 saw enough"),
    "behavior": (TerminationType.BEHAVIOR, "agent 'b' terminated the simulation: b is done"),
}


@pytest.mark.parametrize("stop", ENDINGS)
def test_every_phase_in_the_seeds_order(stop):
    log, result = run(stop, max_steps=STOP_AT if stop == "time_limit" else 10)
    want = SETUP + [entry for n in range(STOP_AT) for entry in expected_step(n)]
    want += expected_step(STOP_AT, stop)
    assert log == want
    kind, reason = ENDINGS[stop]
    assert result.termination_type is kind
    assert reason in result.termination_reason
    assert len(result.trajectory) == STOP_AT + 1 and result.steps == STOP_AT
    assert result.records["r"] == tuple((n, 0) for n in range(STOP_AT + 1))
    assert result.records_initial == {"ri": 0} and result.records_final == {"rf": 0}


def test_step_zero_and_a_middle_step_alone():
    log, _ = run("time_limit", max_steps=STOP_AT)
    assert log[len(SETUP):len(SETUP) + len(expected_step(0))] == expected_step(0)
    step1 = [entry for entry in log if entry[0] == 1]
    assert step1 == expected_step(1)


class WithDo(Scenario):
    """A compose running a sub-scenario with ``do``, and a behavior whose sub-behavior returns."""

    def __init__(self, log):
        self.log = log

    def simulator(self):
        return LoggingSimulator(self.log)

    def setup(self, s):
        log = self.log
        s.sim.simulator.sim = s.sim

        def note(label, value=True):
            log.append((s.sim.step, label))
            return value

        self.note = note

        @invariant(lambda car: note("inner_invariant"))
        def inner(car):
            for _ in range(2):
                note("inner")
                yield take(Throttle(0.3))

        @invariant(lambda car: note("outer_invariant"))
        def outer(car):
            note("outer")
            yield take(Throttle(0.1))
            yield from do(inner(car))      # started at step 1, returns at step 3
            while True:
                note("outer")
                yield take(Throttle(0.1))

        s.add_agent("a", Vehicle(), outer)
        s.invariant(lambda: note("parent_invariant"))

    def compose(self, s):
        self.note("compose")
        yield wait()
        self.note("compose")
        yield from s.do(Child(self.note))   # runs from step 1; stops at step 3
        while True:
            self.note("compose")
            yield wait()


class Child(Scenario):
    def __init__(self, note):
        self.note = note

    def setup(self, s):
        self.note("child_setup")
        s.require_always(lambda: self.note("child_always"))
        s.invariant(lambda: self.note("child_invariant"))
        s.terminate_after(steps=2)


def test_a_do_sub_scenario_and_a_returning_sub_behavior_in_the_seeds_order():
    log = []

    def trace(step, phase, subject):
        log.append((step, f"{phase}:{subject}" if subject else phase))

    result = simulate(WithDo(log), seed=1, trace=trace, max_steps=5)

    def parent(n, inside=(), check=True, compose=("compose",)):
        """The parent's step; ``inside`` is what runs inside its compose block."""
        e = [(n, "scenarios"), (n, "require_always:WithDo"), (n, "require_eventually:WithDo"),
             (n, "time_limit:WithDo"), (n, "compose:WithDo")]
        e += [(n, "parent_invariant")] * check      # not while its sub-scenario runs
        return e + [(n, x) for x in compose] + list(inside) + [(n, "terminate_when:WithDo")]

    def child(n, stop=False, first=False):
        e = [(n, "require_always:Child"), (n, "child_always"), (n, "require_eventually:Child"),
             (n, "time_limit:Child")]
        if stop:
            return e + [(n, "stopping:Child")]
        # no compose block: its invariants are checked in the step itself, but not in its
        # first step, whose check was the one as it started (Scenic's no-op compose block)
        check = [] if first else [(n, "invariants:Child"), (n, "child_invariant")]
        return e + check + [(n, "terminate_when:Child")]

    def rest(n, behavior, last=False):
        e = [(n, "records"), (n, "monitors"), (n, "termination_checks")]
        if last:
            return e + [(n, "end"), (n, "stopping:WithDo")]
        return e + [(n, "behaviors"), (n, "behavior:a")] + [(n, label) for label in behavior] + [
            (n, "actions"), (n, "apply:a"), (n, "simulator_step"), (n, "sim_step"),
            (n, "dynamic_properties"), (n, "props:a"), (n, "clock")]

    # before step 0: the scenario starts, checks the invariant its setup registered, then
    # the behavior starts (its invariant checked as it starts)
    want = [(0, "start:WithDo"), (0, "props:a"), (0, "parent_invariant"), (0, "outer_invariant")]
    # step 0: compose and the behavior run their first code, unchecked
    want += parent(0, check=False) + rest(0, ["outer"])
    # step 1: compose starts the sub-scenario, which runs its first step inside the parent's;
    # the behavior starts its sub-behavior, whose invariants are checked as it starts
    start = [(1, "start:Child"), (1, "child_setup"), (1, "child_invariant")] + child(1, first=True)
    want += parent(1, inside=start)
    want += rest(1, ["outer_invariant", "inner_invariant", "inner"])
    # step 2: inside do and inside the sub-behavior: only the innermost invariants
    want += parent(2, inside=child(2), check=False, compose=())
    want += rest(2, ["inner_invariant", "inner"])
    # step 3: the sub-scenario reaches its time limit and stops, and the parent is checked
    # at the instant do() returns, then goes on in the same step; the sub-behavior returns,
    # and the behavior is checked at that instant too, before its own code goes on
    want += parent(3, inside=child(3, stop=True) + [(3, "parent_invariant"), (3, "compose")],
                   check=False, compose=())
    want += rest(3, ["inner_invariant", "outer_invariant", "outer"])
    want += parent(4) + rest(4, ["outer_invariant", "outer"])
    want += parent(5) + rest(5, [], last=True)
    assert log == want
    assert result.termination_type is TerminationType.TIME_LIMIT and result.steps == 5
