"""The two implementations of the clock's semantics the parity suites run against.

``CORE`` is the Cython core (the package); ``ORACLE`` the pure-Python model in
:mod:`support.oracle`. Each names the clock, its configuration and follower classes, the
whole-quanta rule and a way to read a clock state as the oracle's state tuple.
"""

from __future__ import annotations

from types import SimpleNamespace

import cvcclock
from support import oracle


def core_state_fields(state):
    """A core ClockState as the oracle's state tuple, for comparing the two."""
    timers = tuple((t.timer, t.seq, t.period_ticks or 0, t.catch_up == "coalesce", t.anchor,
                    t.due, t.pending, t.fired, t.paused,
                    -1 if t.paused_at is None else t.paused_at) for t in state.timers)
    return (state.config, state.mode, state.resume_mode, state.tick, state.bank, state.alpha,
            state.owed, state.total_dropped, state.frame, state.window_wall, state.window_ticks,
            state.realized, state.window_done, state.discontinuities, state.timer_seq, timers)


CORE = SimpleNamespace(
    name="core",
    Clock=cvcclock.WorldClock,
    Config=cvcclock.ClockConfig,
    Follower=cvcclock.ClockFollower,
    ticks_per_step=cvcclock.ticks_per_step,
    state_fields=core_state_fields,
)
ORACLE = SimpleNamespace(
    name="oracle",
    Clock=oracle.ModelClock,
    Config=oracle.ModelConfig,
    Follower=oracle.ModelFollower,
    ticks_per_step=oracle.model_ticks_per_step,
    state_fields=lambda state: state,
)
