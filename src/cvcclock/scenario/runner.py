"""The runner: Scenic's time step, driven by the clock as a follower; rejection and resampling.

One time step, in the order of Scenic's "Execution of Dynamic Scenarios" (the phase names
are what ``trace`` receives):

1. each running scenario, in start order: ``require_always``, ``require_eventually``,
   ``time_limit``, ``terminate_when``, ``invariants`` (unless a sub-scenario it started
   with ``do`` is still running), ``compose``,
   ``stopping`` (only when it stops);
2. ``records``: the trajectory entry, ``record_initial`` at step 0, every ``record``;
3. ``monitors``: each monitor resumed once (``monitor``, per monitor);
4. ``termination_checks``: a stopped top-level scenario or a terminating monitor, then the
   ``terminate_simulation_when`` conditions, then ``max_steps``/``time_limit``;
5. per agent, ``behavior_invariants`` (or its start: preconditions and invariants), then
   ``behavior``: resumed until it yields; a behavior a returning sub-behavior resumed has
   its invariants checked then, before any action is taken;
6. ``actions``: executed per agent, in order; 7. ``simulator_step``;
8. ``dynamic_properties``: every object's properties read back; 9. ``clock``: step + 1.

10. When the run ends (``end``): the ``require_eventually`` conditions of the scenarios
still running are checked, then every ``record_final`` is saved.

An exception other than a rejection that escapes a time step (from a behavior, monitor,
compose block, predicate, record, ``trace`` or simulator method, or a resampled attempt's
setup) fails the run: that pump re-raises it, the interrupted step is never run again, and
every later pump, and ``result``, raises :class:`~cvcclock.scenario.ScenarioFailed`
chained to it.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable
from typing import Any

from cvcclock import ClockConfig, ClockFollower, WorldClock
from cvcclock.checks import check_bool, check_count
from cvcclock.scenario._arguments import (
    check_instance,
    check_optional_callable,
    check_seed,
    check_step,
)
from cvcclock.scenario.behaviors import WAIT, Chain, Take, check_invariants, guards_running, resume
from cvcclock.scenario.errors import (
    ActionRejected,
    BehaviorError,
    GuardViolation,
    RejectSimulation,
    ScenarioFailed,
    Terminate,
    TooManyRejections,
)
from cvcclock.scenario.results import SimulationResult, TerminationType
from cvcclock.scenario.scenarios import Scenario, Scope
from cvcclock.scenario.simulation import Agent, Simulation, steps_for
from cvcclock.scenario.simulator import InvalidAction, Simulator

__all__ = ["ScenarioRunner", "Trace", "simulate"]

Trace = Callable[[int, str, "str | None"], object]
"""``trace(step, phase, subject)``: called as each phase starts; subject names the scenario,
agent or monitor, or is None."""

_END = object()


def derive_seed(seed: int, attempt: int) -> int:
    """The seed of attempt ``attempt``: ``seed`` itself for 0, else 64 bits of sha256.

    Never ``hash()``: it is salted per process, and a run must replay in a fresh one.
    """
    seed, attempt = check_seed(seed), check_count(attempt, "attempt")
    if attempt == 0:
        return seed
    return int.from_bytes(hashlib.sha256(f"{seed}:{attempt}".encode()).digest()[:8], "big")


class ScenarioRunner:
    """Runs a scenario as a follower of a clock: one time step per ``dt`` of world time.

    The host advances the clock however it likes (live at any speed, lockstep, one quantum
    at a time, in batches, paused and resumed) and calls :meth:`pump` after each advance;
    the result depends only on the seed, never on the pacing.

    Parameters
    ----------
    scenario : Scenario
        The top-level scenario.
    clock : WorldClock
        The clock to follow; the runner never advances it.
    dt : float, optional
        The time step in seconds, a whole number of the clock's quanta; ``scenario.dt``
        when omitted.
    seed : int
        The run's seed; attempt 0 uses it as is.
    max_steps : int, optional
        End the run (``TIME_LIMIT``) at this time step.
    time_limit : float, optional
        End the run (``TIME_LIMIT``) at the first step at least this many seconds in.
    max_iterations : int
        Attempts before giving up with :class:`TooManyRejections`.
    simulator : callable, optional
        Makes a fresh :class:`Simulator` per attempt; ``scenario.simulator`` when omitted.
    raise_guard_violations : bool
        Raise :class:`GuardViolation` instead of rejecting the attempt.
    trace : callable, optional
        ``trace(step, phase, subject)``, called as each phase starts (see the module doc).

    Attributes
    ----------
    scenario : Scenario
        The top-level scenario.
    seed : int
        The caller's seed.
    dt : float
        The time step in seconds.
    follower : ClockFollower
        The runner's follower (``follower.alpha`` interpolates between time steps).
    simulation : Simulation
        The current attempt: read it to render the live state.

    Raises
    ------
    TypeError
        If an argument is of the wrong type (``seed`` not an integer, a limit not a number).
    ValueError
        If ``dt`` is not a whole number of quanta, or a limit is out of range.

    Any error is raised before the first attempt is set up, and leaves the clock as it was.
    """

    def __init__(self, scenario: Scenario, clock: WorldClock, dt: float | None = None, *,
                 seed: int, max_steps: int | None = None, time_limit: float | None = None,
                 max_iterations: int = 100, simulator: Callable[[], Simulator] | None = None,
                 raise_guard_violations: bool = False, trace: Trace | None = None) -> None:
        check_instance(scenario, Scenario, "scenario")
        check_instance(clock, WorldClock, "clock")
        self.seed = check_seed(seed)
        self._max_iterations = check_count(max_iterations, "max_iterations", 1)
        check_optional_callable(simulator, "simulator")
        self._make_simulator = scenario.simulator if simulator is None else simulator
        self._raise_guards = check_bool(raise_guard_violations, "raise_guard_violations")
        self._trace = check_optional_callable(trace, "trace")
        # The scenario's own dt, not period * fixed_dt, which can differ in the last bit: the
        # physics must see the same dt on every clock the scenario runs on.
        self.dt = _check_dt(scenario, dt)
        try:
            self.follower = ClockFollower.for_step(clock, self.dt)
        except (TypeError, ValueError) as e:
            raise type(e)(f"scenario {scenario.name!r}: time step {e}") from e
        limits = []
        if max_steps is not None:
            steps = check_count(max_steps, "max_steps")
            limits.append((steps, f"reached max_steps={steps}"))
        if time_limit is not None:
            steps = steps_for(time_limit, self.dt, "time_limit")
            limits.append((steps, f"reached time_limit={time_limit} s"))
        self._limit = min(limits) if limits else None
        self.scenario = scenario
        self._clock = clock
        self._reasons: list[str] = []
        self._attempt = -1
        self._result: SimulationResult | None = None
        self._failure: ScenarioFailed | None = None
        self.simulation: Simulation = self._start_attempt()

    @property
    def result(self) -> SimulationResult | None:
        """The result once the run has ended, else None.

        Raises
        ------
        ScenarioFailed
            If the run failed (see :meth:`pump`).
        """
        self._refuse_if_failed()
        return self._result

    @property
    def done(self) -> bool:
        """Whether the run has ended, with a result or by failing."""
        return self._result is not None or self._failure is not None

    @property
    def error(self) -> BaseException | None:
        """The exception that failed the run, or None."""
        return None if self._failure is None else self._failure.error

    def pump(self) -> int:
        """Run the time steps that fell due on the clock since the last pump.

        Returns
        -------
        int
            The time steps run (a rejected step counts; none once the run has ended).

        Raises
        ------
        BaseException
            Whatever escaped a time step (bad input such as :class:`BehaviorError` or
            :class:`ActionRejected`, :class:`TooManyRejections`, a :class:`GuardViolation`
            with ``raise_guard_violations``, or any exception from user code). It fails the
            run: the steps still due in this pump are not run, and the interrupted step is
            never run again.
        ScenarioFailed
            If the run failed in an earlier pump; chained to the exception that failed it.
        """
        self._refuse_if_failed()
        due = self.follower.take(self._clock)
        ran = 0
        while ran < due and self._result is None:
            step = self.simulation.step
            try:
                self._advance()
            except BaseException as e:   # a half-run step cannot be resumed or redone
                self._failure = ScenarioFailed(
                    f"the run of scenario {self.scenario.name!r} failed at step {step}: "
                    f"{_summary(e)}; a failed run cannot continue (the error is this one's "
                    f"__cause__)", e, step)
                raise
            ran += 1
        return ran

    def _refuse_if_failed(self) -> None:
        failure = self._failure
        if failure is not None:
            # A fresh exception each time, so tracebacks do not pile up on one object.
            raise ScenarioFailed(str(failure), failure.error, failure.step) from failure.error

    # -- attempts ----------------------------------------------------------------------

    def _start_attempt(self) -> Simulation:
        while True:
            self._attempt += 1
            if self._attempt >= self._max_iterations:
                raise TooManyRejections(
                    f"all {self._max_iterations} attempts of scenario {self.scenario.name!r} "
                    f"were rejected; the last: {self._reasons[-1]}", tuple(self._reasons))
            sim = Simulation(self._make_simulator(), derive_seed(self.seed, self._attempt), self.dt)
            top = Scope(self.scenario, sim)
            sim._scopes.append(top)
            try:
                self.scenario.setup(top)
            except RejectSimulation as e:
                self._rejected(e, f"setup of scenario {self.scenario.name!r}: ")
                continue
            except Terminate as t:
                raise RuntimeError(f"setup of scenario {self.scenario.name!r}: terminate() was "
                                   f"called outside a behavior, a monitor or a compose "
                                   f"block") from t
            self.simulation = sim
            return sim

    def _rejected(self, e: RejectSimulation, where: str) -> None:
        reason = f"{where}{e}"
        if self._raise_guards and isinstance(e, GuardViolation):
            raise GuardViolation(reason) from e
        self._reasons.append(reason)

    def _advance(self) -> None:
        sim = self.simulation
        try:
            ended = self._time_step(sim)
            if ended is not None:
                self._finish(sim, *ended)
        except RejectSimulation as e:
            self._rejected(e, f"step {sim.step}, ")
            self._start_attempt()
        except Terminate as t:
            raise RuntimeError(f"step {sim.step}: terminate() was called outside a behavior, a "
                               f"monitor or a compose block") from t

    # -- one time step ------------------------------------------------------------------

    def _time_step(self, sim: Simulation) -> tuple[TerminationType, str] | None:
        n = sim.step
        trace = self._trace
        # 1. scenarios, including those started during this loop (by do), in start order
        scopes = sim._scopes
        i = 0
        while i < len(scopes):
            if scopes[i].running:
                scopes[i]._step(n, trace)
            i += 1
        if sim._scope_stopped:
            sim._scopes = [s for s in scopes if s.running]
            sim._scope_stopped = False
        # 2. records
        if trace:
            trace(n, "records", None)
        sim._trajectory.append({a.name: a.props for a in sim.agents.values()})
        if n == 0:
            for name, fn in sim._records_initial.items():
                sim._records_initial_values[name] = fn()
        for fn, values in sim._records.values():
            values.append((n, fn()))
        # 3. monitors
        if trace:
            trace(n, "monitors", None)
        ended = self._run_monitors(sim, n, trace)
        # 4. termination checks
        if trace:
            trace(n, "termination_checks", None)
        if ended is None and sim._top_done is not None:
            ended = (TerminationType.SCENARIO_COMPLETE, sim._top_done)
        if ended is None:
            for desc, pred in sim._end_conditions:
                if pred():
                    ended = (TerminationType.TERMINATION_CONDITION,
                             f"terminate_simulation_when {desc} held")
                    break
        if ended is None and self._limit is not None and n >= self._limit[0]:
            ended = (TerminationType.TIME_LIMIT, self._limit[1])
        if ended is not None:
            return ended
        # 5. behaviors
        chosen: list[tuple[Agent, tuple[Any, ...]]] = []
        step_actions: dict[str, tuple[Any, ...]] = {}
        guarded = guards_running()     # once per step: the common unguarded case skips the walk
        agent = None
        try:
            for agent in sim._behaving:
                if trace:
                    trace(n, "behavior_invariants", agent.name)
                gen = agent._gen
                chain: Chain | None = None
                if gen is None:
                    gen = agent._gen = _start_behavior(agent, n)
                elif guarded:
                    chain = check_invariants(gen)
                if trace:
                    trace(n, "behavior", agent.name)
                item = resume(gen, chain, _END)
                if type(item) is not Take:
                    item = _odd_item(agent, item, n)
                actions = item.actions
                if actions:
                    chosen.append((agent, actions))
                step_actions[agent.name] = actions
        except RejectSimulation as e:
            e.args = (f"behavior of agent {agent.name!r}: {e}",)  # type: ignore[union-attr]
            raise
        except Terminate as t:
            who = agent.name  # type: ignore[union-attr]
            return (TerminationType.BEHAVIOR, f"agent {who!r} terminated the simulation"
                    + (f": {t.reason}" if t.reason else ""))
        sim._actions.append(step_actions)
        # 6. actions
        if trace:
            trace(n, "actions", None)
        backend = sim.simulator
        for agent, actions in chosen:
            for action in actions:
                try:
                    backend.apply_action(agent.handle, action)
                except RejectSimulation:
                    raise           # the simulator rejects the attempt, deliberately
                except Exception as e:
                    why = str(e) if isinstance(e, InvalidAction) else f"{type(e).__name__}: {e}"
                    raise ActionRejected(f"the simulator rejected action {action!r} of agent "
                                         f"{agent.name!r} at step {n}: {why}") from e
        # 7. simulator step
        if trace:
            trace(n, "simulator_step", None)
        backend.step(sim.dt)
        # 8. dynamic properties
        if trace:
            trace(n, "dynamic_properties", None)
        get = backend.get_properties
        for agent in sim.agents.values():
            agent.props = get(agent.handle)
        # 9. clock
        if trace:
            trace(n, "clock", None)
        sim.step = n + 1
        return None

    def _run_monitors(self, sim: Simulation, n: int,
                      trace: Trace | None) -> tuple[TerminationType, str] | None:
        ended = None
        for m in sim._monitors:
            if m.gen is _END:
                continue
            if trace:
                trace(n, "monitor", m.name)
            try:
                if m.gen is None:
                    m.gen = m.fn(sim, *m.args)
                    if not hasattr(m.gen, "__next__"):
                        raise BehaviorError(
                            f"monitor {m.name!r} returned {m.gen!r} at step {n}, not a generator; "
                            f"a monitor is a generator function (it must yield)")
                item = next(m.gen, _END)
            except RejectSimulation as e:
                e.args = (f"monitor {m.name!r}: {e}",)
                raise
            except Terminate as t:
                m.gen = _END
                if ended is None:    # the first to terminate names the reason; the rest still run
                    ended = (TerminationType.MONITOR,
                             f"monitor {m.name!r} terminated the simulation"
                             + (f": {t.reason}" if t.reason else ""))
                continue
            if item is _END:
                m.gen = _END
            elif item is not WAIT and not (type(item) is Take and not item.actions):
                raise BehaviorError(
                    f"monitor {m.name!r} yielded {item!r} at step {n}; monitors yield wait()")
        return ended

    def _finish(self, sim: Simulation, kind: TerminationType, reason: str) -> None:
        """Step 10: the remaining eventually-requirements, then the final records."""
        if self._trace:
            self._trace(sim.step, "end", None)
        for scope in sim._scopes:
            if scope.running:
                scope._check_eventually()
        final = {name: fn() for name, fn in sim._records_final.items()}
        self._result = SimulationResult(
            trajectory=tuple(sim._trajectory),
            actions=tuple(sim._actions),
            records={name: tuple(values) for name, (_, values) in sim._records.items()},
            records_initial=dict(sim._records_initial_values),
            records_final=final,
            termination_type=kind,
            termination_reason=reason,
            seed=self.seed,
            run_seed=sim.seed,
            rejections=len(self._reasons),
            rejection_reasons=tuple(self._reasons),
            dt=self.dt,
        )


def _dt_source(scenario: Scenario, dt: float | None) -> tuple[object, str]:
    """The time step given (``scenario.dt`` unless ``dt`` is) and the name it goes by."""
    return (scenario.dt, f"{type(scenario).__name__}.dt") if dt is None else (dt, "dt")


def _check_dt(scenario: Scenario, dt: float | None) -> float:
    """The time step, ``scenario.dt`` unless given: a finite number of seconds > 0."""
    step, where = _dt_source(scenario, dt)
    try:
        return check_step(step, where)
    except (TypeError, ValueError) as e:
        raise type(e)(f"scenario {scenario.name!r}: {e}") from None


def _own_clock_config(scenario: Scenario, dt: float | None) -> ClockConfig:
    """simulate()'s clock: its quantum is the time step, so errors name the time step."""
    step = _check_dt(scenario, dt)
    try:
        return ClockConfig(fixed_dt=step)
    except ValueError as e:
        given, where = _dt_source(scenario, dt)
        raise ValueError(f"scenario {scenario.name!r}: {where} must be at least the smallest "
                         f"quantum a clock can have, got {given!r}; simulate() runs on a clock "
                         f"whose quantum is the time step") from e


def _summary(error: BaseException) -> str:
    """``Type: message``, or ``Type`` alone; never an error of its own."""
    try:
        text = str(error)
    except Exception:       # a broken __str__ must not hide the failure it describes
        text = "<unprintable>"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _name(fn: Any) -> str:
    return repr(getattr(fn, "__name__", fn))


def _odd_item(agent: Agent, item: Any, n: int) -> Take:
    """A yield that is not a Take: the end of the behavior (it waits forever), or an error."""
    if item is _END:
        agent._gen = itertools.repeat(WAIT)
        return WAIT
    raise BehaviorError(f"the behavior {_name(agent.behavior)} of agent {agent.name!r} yielded "
                        f"{item!r} at step {n}; a behavior yields take(*actions) or wait()")


def _start_behavior(agent: Agent, n: int) -> Any:
    """Call the agent's behavior (which checks its guards) and check it made a generator."""
    gen = agent.behavior(agent, *agent.args)  # type: ignore[misc]
    if not hasattr(gen, "__next__"):
        raise BehaviorError(f"the behavior {_name(agent.behavior)} of agent {agent.name!r} "
                            f"returned {gen!r} at step {n}, not a generator; a behavior is a "
                            f"generator function (it must yield)")
    return gen


def simulate(scenario: Scenario, *, seed: int, max_steps: int | None = None,
             time_limit: float | None = None, max_iterations: int = 100, dt: float | None = None,
             simulator: Callable[[], Simulator] | None = None, raise_guard_violations: bool = False,
             trace: Trace | None = None) -> SimulationResult:
    """Run a scenario to the end in a batch, on a clock of its own.

    The clock's quantum is the time step and is advanced with ``advance_ticks``; the result
    equals a :class:`ScenarioRunner`'s on any clock and pacing with the same arguments.
    Parameters are those of :class:`ScenarioRunner`. Without a limit, a run whose
    scenario never ends does not end either.

    Returns
    -------
    SimulationResult

    Raises
    ------
    TypeError, ValueError
        For a bad argument, as :class:`ScenarioRunner`; ``dt`` must also be a quantum a clock
        can have.
    TooManyRejections
        If every one of ``max_iterations`` attempts was rejected.
    BaseException
        Whatever escaped a time step; the run stops there (see :meth:`ScenarioRunner.pump`).
    """
    check_instance(scenario, Scenario, "scenario")
    clock = WorldClock(_own_clock_config(scenario, dt))
    runner = ScenarioRunner(scenario, clock, dt, seed=seed, max_steps=max_steps,
                            time_limit=time_limit, max_iterations=max_iterations,
                            simulator=simulator, raise_guard_violations=raise_guard_violations,
                            trace=trace)
    while runner.result is None:
        clock.advance_ticks(runner.follower.period)
        runner.pump()
    return runner.result
