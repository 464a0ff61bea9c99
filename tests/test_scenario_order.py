"""One time step runs in exactly the order of Scenic's "Execution of Dynamic Scenarios".

The runner's trace and every user callable (predicates, compose, monitors, behaviors, the
guards, the records and the simulator's methods) write to one log, each entry stamped with
the step the simulation believes it is at. The whole log of a run is compared with the
order the seed prescribes: setup, step 0, the middle steps, and the last step of a run
ending through each termination reason.
"""

import pytest

from cvcclock.scenario import (
    PointMassSimulator,
    Scenario,
    TerminationType,
    Throttle,
    Vehicle,
    invariant,
    precondition,
    simulate,
    take,
    terminate,
    wait,
)

STOP_AT = 3


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
        s.terminate_when(lambda: note("terminate_when", False))
        s.invariant(lambda: note("scenario_invariant"))
        if stop == "scenario":
            s.terminate_after(STOP_AT * self.dt)
        s.monitor(monitor, "m1", name="m1")
        s.monitor(monitor, "m2", name="m2")
        s.record("r", lambda: note("record", 0))
        s.record_initial("ri", lambda: note("record_initial", 0))
        s.record_final("rf", lambda: note("record_final", 0))
        s.terminate_simulation_when(lambda: note("end_condition", at_stop("condition")))

    def compose(self, s):
        while True:
            self.log.append((s.sim.step, "compose"))
            yield wait()


SETUP = [(0, "props:a"), (0, "props:b")]


def end(n):
    return [(n, "end"), (n, "record_final")]


def expected_step(n, stop=None):
    """The log of time step n, ending the run there through ``stop`` if given."""
    e = [(n, "require_always:AllPhases"), (n, "always"),
         (n, "require_eventually:AllPhases"), (n, "eventually"),
         (n, "time_limit:AllPhases")]
    if stop == "scenario":
        e += [(n, "stopping:AllPhases")]
    else:
        e += [(n, "terminate_when:AllPhases"), (n, "terminate_when"),
              (n, "invariants:AllPhases"), (n, "scenario_invariant"),
              (n, "compose:AllPhases"), (n, "compose")]
    e += [(n, "records")] + [(n, "record_initial")] * (n == 0) + [(n, "record")]
    e += [(n, "monitors"), (n, "monitor:m1"), (n, "m1"), (n, "monitor:m2"), (n, "m2"),
          (n, "termination_checks")]
    if stop in ("scenario", "monitor"):
        return e + end(n)
    e += [(n, "end_condition")]
    if stop in ("condition", "time_limit"):
        return e + end(n)
    e += [(n, "behavior_invariants:a")]
    e += [(n, "precondition"), (n, "invariant")] if n == 0 else [(n, "invariant")]
    e += [(n, "behavior:a"), (n, "a"), (n, "behavior_invariants:b"), (n, "behavior:b"), (n, "b")]
    if stop == "behavior":
        return e + end(n)
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
