"""Behaviors, guards, requirements, monitors, interrupts, termination and records: programs
from Scenic's tests/syntax/test_dynamics.py, each beside its cvcclock equivalent."""

from __future__ import annotations

from cvcclock.scenario import (
    ABORT,
    InvariantViolation,
    PreconditionViolation,
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


def ego(behavior, *args, x=0.0, extra=None, **properties):
    """A scenario with one agent "ego"; ``extra(s, ego)`` adds the rest."""
    def setup(s):
        agent = s.add_agent("ego", at(x), behavior, *args, properties=properties or None)
        if extra is not None:
            extra(s, agent)
    return Prog(setup)


def step_is(agent, *steps):
    return lambda: agent.sim.step in steps


# -- basics and termination -------------------------------------------------------------------


@case("behavior_actions", """
    behavior Foo():
        take 3
        take 5
    ego = new Object with name "ego", with behavior Foo
""", 3)
def _():
    def foo(a):
        yield take(3)
        yield take(5)
    return ego(foo)


@case("behavior_multiple_actions", """
    behavior Foo():
        take 1, 4, 9
    ego = new Object with name "ego", with behavior Foo
""", 2)
def _():
    def foo(a):
        yield take(1, 4, 9)
    return ego(foo)


@case("behavior_end_early", """
    behavior Foo():
        take 5
    ego = new Object with name "ego", with behavior Foo
""", 3)
def _():
    def foo(a):
        yield take(5)
    return ego(foo)


@case("terminate", """
    behavior Foo():
        take 1
        terminate
        take 2
    ego = new Object with name "ego", with behavior Foo
""", 3)
def _():
    def foo(a):
        yield take(1)
        terminate()
        yield take(2)
    return ego(foo)


@case("terminate_when_own_property", """
    behavior Foo():
        take 1
        self.flag = True
        take 2
    ego = new Object with name "ego", with flag False, with behavior Foo
    terminate when ego.flag
""", 3)
def _():
    def foo(a):
        yield take(1)
        a.flag = True
        yield take(2)
    return ego(foo, flag=False, extra=lambda s, a: s.terminate_when(lambda: a.flag))


@case("behavior_ordering_default", """
    count = 0
    behavior Foo():
        global count
        count += 1
        take count
    new Object with name 'A', with behavior Foo
    new Object with name 'B', at 10@0, with behavior Foo
    ego = new Object with name 'C', at 20@0, with behavior Foo
""", 2)
def _():
    count = [0]

    def foo(a):
        count[0] += 1
        yield take(count[0])

    def setup(s):
        # Scenic puts the ego first among the scene's objects.
        s.add_agent("C", at(20), foo)
        s.add_agent("A", at(), foo)
        s.add_agent("B", at(10), foo)
    return Prog(setup)


@case("drift_trajectory", """
    behavior Foo():
        while True:
            take simulation().currentTime
    ego = new Object with name "ego", with behavior Foo
    other = new Object with name "other", at (3, 4, 5)
""", 3, drift=1.5)
def _():
    def foo(a):
        while True:
            yield take(a.sim.step)

    def setup(s):
        s.add_agent("ego", at(), foo)
        s.add_agent("other", at(3, 4, 5))
    return Prog(setup)


# -- sub-behaviors ----------------------------------------------------------------------------


@case("behavior_nesting", """
    behavior Foo(a):
        take a
        take a
    behavior Bar():
        take 1
        do Foo(2)
        take 3
    ego = new Object with name "ego", with behavior Bar
""", 5)
def _():
    def foo(a, value):
        yield take(value)
        yield take(value)

    def bar(a):
        yield take(1)
        yield from do(foo(a, 2))
        yield take(3)
    return ego(bar)


@case("subbehavior_for_steps", """
    behavior Foo():
        while True:
            take 1
    behavior Bar():
        do Foo() for 3 steps
        take 2
    ego = new Object with name "ego", with behavior Bar
""", 5)
def _():
    def bar(a):
        yield from do(forever(1)(a), steps=3)
        yield take(2)
    return ego(bar)


@case("subbehavior_for_time", """
    behavior Foo():
        while True:
            take 1
    behavior Bar():
        do Foo() for 3 seconds
        take 2
    ego = new Object with name "ego", with behavior Bar
""", 8, timestep=0.5)
def _():
    def bar(a):
        yield from do(forever(1)(a), seconds=3)
        yield take(2)
    return ego(bar)


@case("subbehavior_until", """
    behavior Foo():
        while True:
            take 1
    behavior Bar():
        do Foo() until simulation().currentTime == 2
        take 2
    ego = new Object with name "ego", with behavior Bar
""", 4)
def _():
    def bar(a):
        yield from do(forever(1)(a), until=step_is(a, 2))
        yield take(2)
    return ego(bar)


@case("subbehavior_ends_before_its_limit", """
    behavior Foo():
        take 1
    behavior Bar():
        do Foo() for 3 steps
        take 2
    ego = new Object with name "ego", with behavior Bar
""", 3)
def _():
    def foo(a):
        yield take(1)

    def bar(a):
        yield from do(foo(a), steps=3)
        yield take(2)
    return ego(bar)


@case("subbehavior_until_true_at_once", """
    behavior Foo():
        take 1
    behavior Bar():
        do Foo() until True
        take 2
    ego = new Object with name "ego", with behavior Bar
""", 2)
def _():
    def foo(a):
        yield take(1)

    def bar(a):
        yield from do(foo(a), until=lambda: True)
        yield take(2)
    return ego(bar)


@case("subbehavior_wait_for_steps", """
    behavior Foo():
        wait for 3 steps
        take 2
    ego = new Object with name "ego", with behavior Foo
""", 5)
def _():
    def foo(a):
        yield from do(steps=3)
        yield take(2)
    return ego(foo)


@case("subbehavior_wait_for_time", """
    behavior Foo():
        wait for 3 seconds
        take 2
    ego = new Object with name "ego", with behavior Foo
""", 8, timestep=0.5)
def _():
    def foo(a):
        yield from do(seconds=3)
        yield take(2)
    return ego(foo)


@case("subbehavior_wait_until", """
    behavior Foo():
        wait until simulation().currentTime == 2
        take 2
    ego = new Object with name "ego", with behavior Foo
""", 4)
def _():
    def foo(a):
        yield from do(until=step_is(a, 2))
        yield take(2)
    return ego(foo)


# -- preconditions and invariants ---------------------------------------------------------------


@case("precondition_rejection_caught", """
    behavior BehaviorA():
        take 1
    behavior BehaviorB():
        precondition: False
        take 2
    behavior MetaBehavior():
        while True:
            try:
                do BehaviorB()
            except PreconditionViolation:
                do BehaviorA()
    ego = new Object with name "ego", with behavior MetaBehavior()
""", 3)
def _():
    def behavior_a(a):
        yield take(1)

    @precondition(lambda a: False)
    def behavior_b(a):
        yield take(2)

    def meta(a):
        while True:
            try:
                yield from do(behavior_b(a))
            except PreconditionViolation:
                yield from do(behavior_a(a))
    return ego(meta)


@case("invariant_rejection_caught", """
    behavior BehaviorA():
        ego.foo += 1
        wait
    behavior BehaviorB():
        invariant: False
        ego.bar += 1
        wait
    behavior MetaBehavior():
        while True:
            try:
                do BehaviorB()
            except InvariantViolation:
                do BehaviorA()
    ego = new Object with name "ego", with foo 0, with bar 0, with behavior MetaBehavior()
    record final (ego.foo, ego.bar) as test_val
""", 5)
def _():
    def behavior_a(a):
        a.foo += 1
        yield wait()

    @invariant(lambda a: False)
    def behavior_b(a):
        a.bar += 1
        yield wait()

    def meta(a):
        while True:
            try:
                yield from do(behavior_b(a))
            except InvariantViolation:
                yield from do(behavior_a(a))
    return ego(meta, foo=0, bar=0,
               extra=lambda s, a: s.record_final("test_val", lambda: (a.foo, a.bar)))


@case("invariant_resumed_rejects", """
    behavior Foo():
        invariant: self.position.x < 2
        while True:
            take self.position.x
            self.position += 1 @ 0
    ego = new Object with name "ego", with behavior Foo
""", 5)
def _():
    @invariant(lambda a: a.position[0] < 2)
    def foo(a):
        while True:
            yield take(a.position[0])
            x, y, z = a.position
            a.position = (x + 1, y, z)
    return ego(foo)


@case("parent_invariant_checked_when_sub_returns", """
    behavior Sub():
        take 1
        self.flag = True
    behavior Parent():
        invariant: not self.flag
        try:
            do Sub()
        except InvariantViolation:
            self.flag = False
            take 9
        take 2
    ego = new Object with name "ego", with flag False, with behavior Parent
""", 4)
def _():
    def sub(a):
        yield take(1)
        a.flag = True

    @invariant(lambda a: not a.flag)
    def parent(a):
        try:
            yield from do(sub(a))
        except InvariantViolation:
            a.flag = False
            yield take(9)
        yield take(2)
    return ego(parent, flag=False)


@case("parent_invariant_not_checked_inside_sub", """
    behavior Sub():
        self.flag = True
        take 1
        take 1
        self.flag = False
    behavior Parent():
        invariant: not self.flag
        do Sub()
        take 2
    ego = new Object with name "ego", with flag False, with behavior Parent
""", 4)
def _():
    def sub(a):
        a.flag = True
        yield take(1)
        yield take(1)
        a.flag = False

    @invariant(lambda a: not a.flag)
    def parent(a):
        yield from do(sub(a))
        yield take(2)
    return ego(parent, flag=False)


@case("behavior_precondition_checked_at_start", """
    behavior Foo():
        precondition: False
        take 1
    ego = new Object with name "ego", with behavior Foo
    terminate when True
""", 3, max_iterations=2)
def _():
    @precondition(lambda a: False)
    def foo(a):
        yield take(1)
    return ego(foo, extra=lambda s, a: s.terminate_when(lambda: True))


# -- requirements -------------------------------------------------------------------------------


@case("behavior_require_rejects_an_attempt", """
    behavior Foo():
        take 1
        require simulation().name != "run.1"
        take 2
    ego = new Object with name "ego", with behavior Foo
""", 3, max_iterations=3)
def _():
    def setup(s):
        def foo(a):
            yield take(1)
            require(s.scenario.attempt != 1)
            yield take(2)
        s.add_agent("ego", at(), foo)
    return Prog(setup)


@case("require_always_rejects_an_attempt", """
    behavior Foo():
        if simulation().name in ("run.1", "run.2"):
            self.limit = 2
        while True:
            take self.blah
            self.blah += 1
    ego = new Object with name "ego", with behavior Foo, with blah 0, with limit 10
    require always ego.blah < ego.limit
""", 4, max_iterations=4)
def _():
    def setup(s):
        def foo(a):
            if s.scenario.attempt in (1, 2):
                a.limit = 2
            while True:
                yield take(a.blah)
                a.blah += 1
        agent = s.add_agent("ego", at(), foo, properties={"blah": 0, "limit": 10})
        s.require_always(lambda: agent.blah < agent.limit)
    return Prog(setup)


@case("require_eventually_2", """
    behavior Foo():
        while True:
            take self.blah
            self.blah += 1
    ego = new Object with name "ego", with behavior Foo, with blah 0
    require eventually ego.blah == 0
    require eventually ego.blah == 1
    require eventually ego.blah == 2
""", 3)
def _():
    def foo(a):
        while True:
            yield take(a.blah)
            a.blah += 1

    def extra(s, a):
        for k in range(3):
            s.require_eventually(lambda k=k: a.blah == k)
    return ego(foo, blah=0, extra=extra)


@case("require_eventually_3", """
    behavior Foo():
        while True:
            take self.blah
            self.blah += 1
    ego = new Object with name "ego", with behavior Foo, with blah 0
    require eventually ego.blah == -1
""", 3, max_iterations=2)
def _():
    def foo(a):
        while True:
            yield take(a.blah)
            a.blah += 1
    return ego(foo, blah=0, extra=lambda s, a: s.require_eventually(lambda: a.blah == -1))


# -- monitors -----------------------------------------------------------------------------------


def _counting(a):
    while True:
        yield take(a.blah)
        a.blah += 1


@case("monitor", """
    monitor Monitor():
        while True:
            if ego.blah >= 3:
                terminate
            wait
    require monitor Monitor()
    behavior Foo():
        while True:
            take self.blah
            self.blah += 1
    ego = new Object with name "ego", with blah 0, with behavior Foo
""", 5)
def _():
    def extra(s, a):
        def monitor(sim):
            while True:
                if a.blah >= 3:
                    terminate()
                yield wait()
        s.monitor(monitor)
    return ego(_counting, blah=0, extra=extra)


@case("monitor_arguments", """
    monitor Monitor(x):
        while True:
            if ego.blah >= x:
                terminate
            wait
    require monitor Monitor(x=3)
    require monitor Monitor(x=2)
    behavior Foo():
        while True:
            take self.blah
            self.blah += 1
    ego = new Object with name "ego", with blah 0, with behavior Foo
""", 5)
def _():
    def extra(s, a):
        def monitor(sim, x):
            while True:
                if a.blah >= x:
                    terminate()
                yield wait()
        s.monitor(monitor, 3)
        s.monitor(monitor, 2)
    return ego(_counting, blah=0, extra=extra)


@case("monitor_terminate_simulation_and_require", """
    monitor Strict():
        while True:
            require ego.blah < 10
            wait
    monitor Quit():
        wait
        wait
        terminate simulation
    require monitor Quit()
    require monitor Strict()
    behavior Foo():
        while True:
            take self.blah
            self.blah += 1
    ego = new Object with name "ego", with blah 0, with behavior Foo
""", 5)
def _():
    def extra(s, a):
        def strict(sim):
            while True:
                require(a.blah < 10)
                yield wait()

        def quit_(sim):
            yield wait()
            yield wait()
            terminate_simulation()
        s.monitor(quit_)
        s.monitor(strict)
    return ego(_counting, blah=0, extra=extra)


# -- interrupts ---------------------------------------------------------------------------------


def loop(value, times=None):
    """``while True: take value`` (or ``for i in range(times)``), as a body."""
    def body():
        n = 0
        while times is None or n < times:
            n += 1
            yield take(value)
    return body


def takes(*values):
    """A handler taking ``values`` one per step."""
    def handler():
        for value in values:
            yield take(value)
    return handler


@case("interrupt", """
    behavior Foo():
        try:
            while True:
                take 1
        interrupt when simulation().currentTime % 3 == 2:
            take 2
    ego = new Object with name "ego", with behavior Foo
""", 6)
def _():
    def foo(a):
        yield from interrupt(loop(1), (lambda: a.sim.step % 3 == 2, takes(2)))
    return ego(foo)


@case("interrupt_first", """
    behavior Foo():
        try:
            while True:
                take 1
        interrupt when simulation().currentTime == 0:
            take 2
    ego = new Object with name "ego", with behavior Foo
""", 3)
def _():
    def foo(a):
        yield from interrupt(loop(1), (step_is(a, 0), takes(2)))
    return ego(foo)


@case("interrupt_priority", """
    behavior Foo():
        try:
            while True:
                take 1
        interrupt when simulation().currentTime <= 1:
            take 2
        interrupt when simulation().currentTime == 0:
            take 3
    ego = new Object with name "ego", with behavior Foo
""", 3)
def _():
    def foo(a):
        yield from interrupt(loop(1), (lambda: a.sim.step <= 1, takes(2)),
                             (step_is(a, 0), takes(3)))
    return ego(foo)


@case("interrupt_interrupted", """
    behavior Foo():
        try:
            while True:
                take 1
        interrupt when simulation().currentTime <= 1:
            take 2
            take 3
        interrupt when simulation().currentTime == 1:
            take 4
    ego = new Object with name "ego", with behavior Foo
""", 5)
def _():
    def foo(a):
        yield from interrupt(loop(1), (lambda: a.sim.step <= 1, takes(2, 3)),
                             (step_is(a, 1), takes(4)))
    return ego(foo)


@case("interrupt_actionless", """
    behavior Foo():
        i = 0
        try:
            for i in range(3):
                take 1
        interrupt when i == 1:
            i = 2
    ego = new Object with name "ego", with behavior Foo
""", 5)
def _():
    def foo(a):
        i = 0

        def body():
            nonlocal i
            for i in range(3):  # noqa: B007  # the condition reads it
                yield take(1)

        def handler():
            nonlocal i
            i = 2
        yield from interrupt(body, (lambda: i == 1, handler))
    return ego(foo)


@case("interrupt_define_local", """
    behavior Foo():
        try:
            i = 1
        interrupt when False:
            pass
        take i
    ego = new Object with name "ego", with behavior Foo
""", 1)
def _():
    def foo(a):
        i = None

        def body():
            nonlocal i
            i = 1
        yield from interrupt(body, (lambda: False, lambda: None))
        yield take(i)
    return ego(foo)


@case("interrupt_define_local_2", """
    behavior Foo():
        try:
            pass
        interrupt when True:
            i = 1
            abort
        take i
    ego = new Object with name "ego", with behavior Foo
""", 1)
def _():
    def foo(a):
        i = None

        def handler():
            nonlocal i
            i = 1
            return ABORT
        yield from interrupt(lambda: None, (lambda: True, handler))
        yield take(i)
    return ego(foo)


@case("interrupt_except", """
    behavior Foo():
        try:
            for i in range(3):
                take 1
        interrupt when simulation().currentTime == 1:
            take 2
            raise Exception
            take 3
        except Exception:
            take 4
    ego = new Object with name "ego", with behavior Foo
""", 4)
def _():
    def foo(a):
        def handler():
            yield take(2)
            raise Exception
        try:
            yield from interrupt(loop(1, 3), (step_is(a, 1), handler))
        except Exception:
            yield take(4)
    return ego(foo)


@case("interrupt_except_else", """
    behavior Foo():
        try:
            for i in range(3):
                take 1
        interrupt when simulation().currentTime == 1:
            take 2
            take 3
        except Exception:
            take 4
        else:
            take 5
    ego = new Object with name "ego", with behavior Foo
""", 7)
def _():
    def foo(a):
        try:
            yield from interrupt(loop(1, 3), (step_is(a, 1), takes(2, 3)))
        except Exception:
            yield take(4)
        else:
            yield take(5)
    return ego(foo)


@case("interrupt_invariant_after_actions", """
    behavior Foo():
        invariant: ego.bar == 0
        try:
            for i in range(3):
                take 1
        interrupt when simulation().currentTime == 1:
            take 2
            ego.bar = 1
        except InvariantViolation:
            ego.bar = 0
            take 4
    ego = new Object with name "ego", with bar 0, with behavior Foo
""", 4)
def _():
    @invariant(lambda a: a.bar == 0)
    def foo(a):
        def handler():
            yield take(2)
            a.bar = 1
        try:
            yield from interrupt(loop(1, 3), (step_is(a, 1), handler))
        except InvariantViolation:
            a.bar = 0
            yield take(4)
    return ego(foo, bar=0)


@case("interrupt_nested", """
    behavior Foo():
        try:
            for i in range(3):
                take 1
        interrupt when 1 <= simulation().currentTime <= 2:
            take 2
    behavior Bar():
        try:
            do Foo()
        interrupt when simulation().currentTime == 1:
            take 3
    ego = new Object with name "ego", with behavior Bar
""", 6)
def _():
    def foo(a):
        yield from interrupt(loop(1, 3), (lambda: 1 <= a.sim.step <= 2, takes(2)))

    def bar(a):
        yield from interrupt(do(foo(a)), (step_is(a, 1), takes(3)))
    return ego(bar)


@case("interrupt_nested_2", """
    behavior Foo():
        try:
            for i in range(3):
                take 1
        interrupt when simulation().currentTime == 1:
            take 2
            take 3
    behavior Bar():
        try:
            do Foo()
        interrupt when simulation().currentTime == 2:
            take 4
    ego = new Object with name "ego", with behavior Bar
""", 7)
def _():
    def foo(a):
        yield from interrupt(loop(1, 3), (step_is(a, 1), takes(2, 3)))

    def bar(a):
        yield from interrupt(do(foo(a)), (step_is(a, 2), takes(4)))
    return ego(bar)


@case("interrupt_nested_3", """
    behavior Bar():
        try:
            try:
                for i in range(3):
                    take 1
            interrupt when 1 <= simulation().currentTime <= 2:
                take 2
        interrupt when simulation().currentTime == 1:
            take 3
    ego = new Object with name "ego", with behavior Bar
""", 6)
def _():
    def bar(a):
        inner = interrupt(loop(1, 3), (lambda: 1 <= a.sim.step <= 2, takes(2)))
        yield from interrupt(inner, (step_is(a, 1), takes(3)))
    return ego(bar)


@case("interrupt_break", """
    behavior Foo():
        while True:
            try:
                for i in range(3):
                    take 1
            interrupt when simulation().currentTime == 2:
                take 2
                break
                take 3
    ego = new Object with name "ego", with behavior Foo
""", 4)
def _():
    def foo(a):
        def handler():
            yield take(2)
            return "break"
        while True:
            if (yield from interrupt(loop(1, 3), (step_is(a, 2), handler))) == "break":
                break
    return ego(foo)


@case("interrupt_break_2", """
    behavior Foo():
        while True:
            try:
                for i in range(3):
                    take 1
            interrupt when simulation().currentTime == 1:
                for i in range(3):
                    take 2
                    break
    ego = new Object with name "ego", with behavior Foo
""", 4)
def _():
    def foo(a):
        def handler():
            for _ in range(3):
                yield take(2)
                break
        while True:
            yield from interrupt(loop(1, 3), (step_is(a, 1), handler))
    return ego(foo)


@case("interrupt_continue", """
    behavior Foo():
        while True:
            take 4
            try:
                for i in range(2):
                    take 1
            interrupt when simulation().currentTime == 2:
                take 2
                continue
                take 3
    ego = new Object with name "ego", with behavior Foo
""", 7)
def _():
    def foo(a):
        def handler():
            yield take(2)
            return "continue"
        while True:
            yield take(4)
            if (yield from interrupt(loop(1, 2), (step_is(a, 2), handler))) == "continue":
                continue
    return ego(foo)


@case("interrupt_continue_2", """
    behavior Foo():
        while True:
            try:
                for i in range(3):
                    take 1
            interrupt when simulation().currentTime == 1:
                for i in range(3):
                    if i == 0:
                        continue
                    take 2
    ego = new Object with name "ego", with behavior Foo
""", 5)
def _():
    def foo(a):
        def handler():
            for i in range(3):
                if i == 0:
                    continue
                yield take(2)
        while True:
            yield from interrupt(loop(1, 3), (step_is(a, 1), handler))
    return ego(foo)


@case("interrupt_abort", """
    behavior Foo():
        while True:
            take 3
            try:
                for i in range(3):
                    take 1
            interrupt when simulation().currentTime == 2:
                for i in range(3):
                    take 2
                    abort
    ego = new Object with name "ego", with behavior Foo
""", 8)
def _():
    def foo(a):
        def handler():
            for _ in range(3):
                yield take(2)
                return ABORT
        while True:
            yield take(3)
            yield from interrupt(loop(1, 3), (step_is(a, 2), handler))
    return ego(foo)


@case("interrupt_return", """
    behavior Foo():
        while True:
            take 3
            try:
                for i in range(3):
                    take 1
            interrupt when simulation().currentTime == 2:
                for i in range(3):
                    take 2
                    return
    ego = new Object with name "ego", with behavior Foo
""", 4)
def _():
    def foo(a):
        def handler():
            for _ in range(3):
                yield take(2)
                return "return"
        while True:
            yield take(3)
            if (yield from interrupt(loop(1, 3), (step_is(a, 2), handler))) == "return":
                return
    return ego(foo)


@case("interrupt_gap_brake_resume", """
    behavior Follow():
        while True:
            take "accelerate"
    behavior Brake():
        while True:
            take "brake"
    behavior Drive():
        try:
            do Follow()
        interrupt when simulation().currentTime in (2, 5):
            do Brake() until simulation().currentTime in (4, 6)
    ego = new Object with name "ego", with behavior Drive
""", 8)
def _():
    def drive(a):
        yield from interrupt(do(forever("accelerate")(a)),
                             (step_is(a, 2, 5),
                              lambda: do(forever("brake")(a), until=step_is(a, 4, 6))))
    return ego(drive)


# -- termination types and records --------------------------------------------------------------


def _stepping(dx):
    def foo(a):
        for _ in range(3):
            x, y, z = a.position
            a.position = (x + dx, y, z)
            yield wait()
    return foo


@case("termination_reason_time", """
    ego = new Object with name "ego"
""", 2)
def _():
    return Prog(lambda s: s.add_agent("ego", at()))


@case("termination_reason_condition_1", """
    behavior Foo():
        for i in range(3):
            self.position = self.position + 1@0
            wait
    ego = new Object with name "ego", with behavior Foo
    terminate when ego.position.x >= 1
""", 2)
def _():
    return ego(_stepping(1), extra=lambda s, a: s.terminate_when(lambda: a.position[0] >= 1))


@case("termination_reason_condition_2", """
    behavior Foo():
        for i in range(3):
            self.position = self.position + 1@0
            wait
    ego = new Object with name "ego", with behavior Foo
    terminate simulation when ego.position.x >= 1
""", 2)
def _():
    return ego(_stepping(1),
               extra=lambda s, a: s.terminate_simulation_when(lambda: a.position[0] >= 1))


@case("termination_reason_behavior", """
    behavior Foo():
        terminate
    ego = new Object with name "ego", with behavior Foo
""", 2)
def _():
    def foo(a):
        terminate()
        yield wait()
    return ego(foo)


@case("termination_reason_monitor", """
    monitor Foo():
        terminate
    require monitor Foo()
    ego = new Object with name "ego"
""", 2)
def _():
    def setup(s):
        def foo(sim):
            terminate()
            yield wait()
        s.monitor(foo)
        s.add_agent("ego", at())
    return Prog(setup)


@case("record", """
    behavior Foo():
        for i in range(3):
            self.position = self.position + 2@0
            wait
    ego = new Object with name "ego", with behavior Foo
    terminate when ego.position.x >= 6
    record initial ego.position as initial
    record final ego.position as final
    record ego.position as position
""", 4)
def _():
    def extra(s, a):
        s.terminate_when(lambda: a.position[0] >= 6)
        s.record_initial("initial", lambda: a.position)
        s.record_final("final", lambda: a.position)
        s.record("position", lambda: a.position)
    return ego(_stepping(2), extra=extra)
