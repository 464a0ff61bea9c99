"""Differential tests: the Cython core and the pure-Python oracle on the same random operations."""

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from cvcclock import Mode
from cvcclock._core import _clock_state_from_fields
from support import oracle
from support.implementations import CORE, ORACLE

FIXED_DTS = [1e-6, 1 / 1000, 1 / 120, 0.01, 1 / 60, 0.05]
STEP_MULTIPLES = [1, 2, 3, 6, 7, 10]
GROUPS = 3
wall_dts = st.one_of(st.sampled_from([0.0, 1 / 60, 1 / 30, 1 / 144, 0.25, 0.5]),
                     st.floats(0.0, 0.3, allow_nan=False))

configs = st.fixed_dictionaries({
    "fixed_dt": st.sampled_from(FIXED_DTS),
    "scale": st.sampled_from([0.0, 0.5, 1.0, 2.0, 2.5]),
    "max_steps_per_advance": st.integers(1, 12),
    "cap_scales_with_rate": st.booleans(),
    "lockstep_steps": st.integers(1, 5),
})
operations = st.one_of(
    st.tuples(st.just("configure"), configs),
    # 1e3 and 1e6 reach the exact-quotient path (65536 quanta a frame and more)
    st.tuples(st.just("scale"), st.sampled_from([0.0, 0.25, 1.0, 1.5, 2.0, 4.0, 1e3, 1e6])),
    st.tuples(st.just("mode"), st.sampled_from(list(Mode))),
    st.tuples(st.just("lockstep_steps"), st.integers(1, 5)),
    st.tuples(st.just("max_steps_per_advance"), st.integers(1, 12)),
    st.tuples(st.just("advance"), wall_dts),
    st.tuples(st.just("advance"), wall_dts),
    st.tuples(st.just("advance"), wall_dts),
    st.tuples(st.just("advance_ticks"), st.integers(0, 50)),
    st.tuples(st.just("step_once"), st.none()),
    st.tuples(st.just("advance_to_next_due"), st.none()),
    st.tuples(st.just("advance_to_next_due"), st.none()),
    st.tuples(st.just("clock_pause"), st.none()),
    st.tuples(st.just("clock_pause"), st.none()),
    st.tuples(st.just("clock_resume"), st.none()),
    st.tuples(st.just("clock_resume"), st.none()),
    st.tuples(st.just("mode"), st.sampled_from(list(Mode))),
    st.tuples(st.just("drop_owed"), st.none()),
    st.tuples(st.just("state"), st.none()),
    st.tuples(st.just("restore"), st.integers(0, 5)),
    st.tuples(st.just("seek_tick"), st.integers(0, 200)),
    st.tuples(st.just("follower"), st.sampled_from(STEP_MULTIPLES)),
    st.tuples(st.just("follower_at"),
              st.tuples(st.sampled_from(STEP_MULTIPLES), st.integers(0, 100))),
    st.tuples(st.just("take"), st.none()),
    st.tuples(st.just("every_ticks"), st.tuples(st.integers(1, 40),
                                                st.sampled_from(["each", "coalesce"]),
                                                st.integers(0, 6))),
    st.tuples(st.just("every"), st.tuples(st.sampled_from(STEP_MULTIPLES),
                                          st.sampled_from(["each", "coalesce"]))),
    st.tuples(st.just("after"), st.sampled_from(STEP_MULTIPLES)),
    st.tuples(st.just("acting"), st.tuples(st.integers(1, 30), st.one_of(
        st.tuples(st.sampled_from(["cancel", "pause", "resume"]), st.integers(0, 20)),
        st.tuples(st.just("after_ticks"), st.integers(1, 30)),
        st.tuples(st.just("mode"), st.sampled_from(list(Mode))),
        st.tuples(st.sampled_from(["clock_pause", "clock_resume"]), st.none()),
        st.tuples(st.just("cancel_all"), st.integers(0, GROUPS - 1)),
        st.tuples(st.just("scale"), st.sampled_from([0.0, 0.5, 2.0]))))),
    st.tuples(st.just("take_due"), st.none()),
    st.tuples(st.just("after_ticks"), st.tuples(st.integers(1, 80), st.integers(0, 1))),
    st.tuples(st.just("cancel"), st.integers(0, 20)),
    st.tuples(st.just("pause"), st.integers(0, 20)),
    st.tuples(st.just("resume"), st.integers(0, 20)),
    # timers sharing a callback (a bound method of one group), for cancel_all
    st.tuples(st.just("grouped"), st.tuples(st.integers(1, 40), st.integers(0, 1),
                                            st.integers(0, GROUPS - 1))),
    st.tuples(st.just("grouped"), st.tuples(st.integers(1, 40), st.integers(0, 1),
                                            st.integers(0, GROUPS - 1))),
    st.tuples(st.just("cancel_all"), st.integers(0, GROUPS - 1)),
)


class Boom(Exception):
    """What a test callback raises on the fire it was told to."""


class Group:
    """Timers sharing one callback: ``group.fire`` makes equal bound methods each time."""

    def __init__(self, run, name):
        self.run, self.name = run, name

    def fire(self, tick):
        self.run.log.append((self.name, tick, self.run.clock.tick))


class Run:
    """One implementation driven through the operations, recording what it reports."""

    def __init__(self, impl, config):
        self.impl = impl
        self.clock = impl.Clock(impl.Config(**config))
        self.followers = []
        self.timers = []
        self.states = []
        self.log = []
        self.groups = [Group(self, f"group {i}") for i in range(GROUPS)]

    def callback(self, name, raise_on):
        """Log (name, tick, clock.tick, count...); raise on the ``raise_on``-th call (0: never)."""
        calls = []

        def cb(tick, *count):
            calls.append(tick)
            self.log.append((name, tick, self.clock.tick, *count))
            if len(calls) == raise_on:
                raise Boom(name)

        return cb

    def apply(self, op, arg):
        try:
            return self._apply(op, arg)
        except Boom as exc:
            return ("raised", exc.args)

    def acting(self, name, action):
        """A callback that logs, then changes the clock or its timers from inside the advance."""
        verb, value = action

        def cb(tick):
            self.log.append((name, tick, self.clock.tick))
            if verb in ("cancel", "pause", "resume"):
                getattr(self.timers[value % len(self.timers)], verb)()
            elif verb in ("clock_pause", "clock_resume"):
                getattr(self.clock, verb[len("clock_"):])()
            elif verb == "cancel_all":
                self.log.append(("cancelled", self.clock.cancel_all(self.groups[value].fire)))
            elif verb == "after_ticks":
                cb = self.callback(len(self.timers), 0)
                self.timers.append(self.clock.after_ticks(value, cb))
            else:
                setattr(self.clock, verb, value)

        return cb

    def _apply(self, op, arg):
        clock, impl = self.clock, self.impl
        if op == "configure":
            clock.configure(impl.Config(**arg))
        elif op in ("scale", "mode", "lockstep_steps", "max_steps_per_advance"):
            setattr(clock, op, arg)
        elif op == "advance":
            return clock.advance(arg)
        elif op == "advance_ticks":
            return clock.advance_ticks(arg)
        elif op == "step_once":
            return clock.step_once()
        elif op == "advance_to_next_due":
            return clock.advance_to_next_due()
        elif op in ("clock_pause", "clock_resume"):
            getattr(clock, op[len("clock_"):])()
        elif op == "drop_owed":
            return ("dropped", clock.drop_owed())
        elif op == "state":
            self.states.append(clock.state())
        elif op == "restore" and self.states:
            try:
                clock.restore(self.states[-1 - arg % len(self.states)])
            except ValueError:
                return "refused"
        elif op == "seek_tick":
            try:
                clock.seek_tick(arg)
            except ValueError:
                return "refused"
        elif op == "follower":
            self.followers.append(impl.Follower.for_step(clock, arg * clock.fixed_dt))
        elif op == "follower_at":
            self.followers.append(impl.Follower(*arg))
        elif op == "take":
            return [f.take(clock) for f in self.followers]
        elif op == "every_ticks":
            k, catch_up, raise_on = arg
            cb = self.callback(len(self.timers), raise_on)
            self.timers.append(clock.every_ticks(k, cb, catch_up=catch_up))
        elif op == "every":
            multiple, catch_up = arg
            cb = self.callback(len(self.timers), 0)
            self.timers.append(clock.every(multiple * clock.fixed_dt, cb, catch_up=catch_up))
        elif op == "after":
            cb = self.callback(len(self.timers), 0)
            self.timers.append(clock.after(arg * clock.fixed_dt, cb))
        elif op == "acting":
            k, action = arg
            self.timers.append(clock.every_ticks(k, self.acting(len(self.timers), action)))
        elif op == "take_due":
            return [list(f.take_due(clock)) for f in self.followers]
        elif op == "after_ticks":
            k, raise_on = arg
            self.timers.append(clock.after_ticks(k, self.callback(len(self.timers), raise_on)))
        elif op in ("cancel", "pause", "resume") and self.timers:
            getattr(self.timers[arg % len(self.timers)], op)()
        elif op == "grouped":
            k, repeating, group = arg
            make = clock.every_ticks if repeating else clock.after_ticks
            self.timers.append(make(k, self.groups[group].fire))
        elif op == "cancel_all":
            return ("cancelled", clock.cancel_all(self.groups[arg].fire))
        return None

    def clock_state(self):
        """The state's fields, the config as a dict and each timer by its schedule."""
        fields = self.impl.state_fields(self.clock.state())
        config, *rest, timers = fields
        return (dataclasses.asdict(config) if dataclasses.is_dataclass(config)
                else config._asdict(), *rest, [t[1:] for t in timers])

    def timer_states(self):
        return [(t.active, t.paused, t.next_tick, t.fired, t.period_ticks, t.remaining_ticks,
                 t.remaining, t.fraction) for t in self.timers]

    def state(self):
        c = self.clock
        return (c.tick, c.owed, c.total_dropped, c.frame, c.mode, c.paused, c.config.fixed_dt,
                repr(c), [f.alpha(c.tick, c.alpha) for f in self.followers],
                [f.alpha_of(c) for f in self.followers])


def same_result(a, b):
    if a is None or isinstance(a, (str, list, tuple)):
        return a == b
    fields = ("steps", "first_tick", "dropped", "alpha", "last_tick")
    return ([getattr(a, f) for f in fields] + [bool(a)]
            == [getattr(b, f) for f in fields] + [bool(b)])


@settings(max_examples=500, deadline=None)
@given(config=configs, ops=st.lists(operations, max_size=60))
def test_core_and_oracle_agree_on_random_operations(config, ops):
    core, model = Run(CORE, config), Run(ORACLE, config)
    for op, arg in ops:
        got, want = core.apply(op, arg), model.apply(op, arg)
        assert same_result(got, want), (op, arg, got, want)
        # The oracle does the same float operations in the same order: equal, not close.
        assert core.state() == model.state(), (op, arg)
        assert core.clock.alpha == model.clock.alpha
        assert core.clock.realized_scale == model.clock.realized_scale
        assert core.clock.t == model.clock.t
        assert core.log == model.log, (op, arg)
        assert core.timer_states() == model.timer_states(), (op, arg)
        assert core.clock_state() == model.clock_state(), (op, arg)
        assert core.clock.next_due_tick == model.clock.next_due_tick
        # Every state a clock reaches passes the state rules, the oracle's and the core's.
        fields = model.clock.state()
        assert oracle.state_fields_problem(fields[:15], list(fields[15])) is None, (op, arg)
        assert _clock_state_from_fields(*core.clock.state().__reduce__()[1]) is not None


# Pause and resume, advance_to_next_due and cancel_all among the calls they interact with
# most, so that short random sequences often pause in one mode and resume, jump to due timers
# (after a raise too) and cancel a group from inside a callback.
focused_operations = st.one_of(
    st.tuples(st.just("mode"), st.sampled_from(list(Mode))),
    st.tuples(st.just("clock_pause"), st.none()),
    st.tuples(st.just("clock_resume"), st.none()),
    st.tuples(st.just("advance"), wall_dts),
    st.tuples(st.just("advance_ticks"), st.integers(0, 20)),
    st.tuples(st.just("step_once"), st.none()),
    st.tuples(st.just("advance_to_next_due"), st.none()),
    st.tuples(st.just("advance_to_next_due"), st.none()),
    st.tuples(st.just("every_ticks"), st.tuples(st.integers(1, 12),
                                                st.sampled_from(["each", "coalesce"]),
                                                st.integers(0, 3))),
    st.tuples(st.just("after_ticks"), st.tuples(st.integers(1, 20), st.integers(0, 1))),
    st.tuples(st.just("grouped"), st.tuples(st.integers(1, 12), st.integers(0, 1),
                                            st.integers(0, GROUPS - 1))),
    st.tuples(st.just("cancel_all"), st.integers(0, GROUPS - 1)),
    st.tuples(st.sampled_from(["cancel", "pause", "resume"]), st.integers(0, 20)),
    st.tuples(st.just("acting"), st.tuples(st.integers(1, 12), st.one_of(
        st.tuples(st.sampled_from(["clock_pause", "clock_resume"]), st.none()),
        st.tuples(st.just("cancel_all"), st.integers(0, GROUPS - 1)),
        st.tuples(st.just("mode"), st.sampled_from(list(Mode)))))),
    st.tuples(st.just("state"), st.none()),
    st.tuples(st.just("restore"), st.integers(0, 5)),
    st.tuples(st.just("drop_owed"), st.none()),
    st.tuples(st.just("follower"), st.sampled_from(STEP_MULTIPLES)),
    st.tuples(st.just("take"), st.none()),
)


@settings(max_examples=300, deadline=None)
@given(config=configs, ops=st.lists(focused_operations, max_size=40))
def test_core_and_oracle_agree_on_pausing_jumping_and_cancelling(config, ops):
    test_core_and_oracle_agree_on_random_operations.hypothesis.inner_test(config, ops)
