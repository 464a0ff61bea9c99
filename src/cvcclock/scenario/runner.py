"""The runner: Scenic's time step, driven by the clock as a follower; rejection and resampling.

An attempt starts with the top-level scenario (its guards, ``setup``, then the behaviors of
its agents, which checks their guards, and its monitors), before step 0. One time step is
then the procedure of Scenic's "Execution of Dynamic Scenarios", one method per phase; the
names are what ``trace`` receives:

1. ``scenarios``: the top-level scope's step, which runs its sub-scenarios inside its
   compose block (per scope: ``require_always``, ``require_eventually``, ``time_limit``,
   ``invariants`` without a compose block or ``compose``, ``terminate_when``, and
   ``stopping`` when it stops; ``start`` as a sub-scenario starts);
2. ``records``: the trajectory entry, then each running scope's records;
3. ``monitors``: each running scope's monitors (``monitor``, per monitor);
4. ``termination_checks``: a terminating monitor or a stopped top-level scenario, then the
   ``terminate_simulation_when`` conditions, then ``max_steps``/``time_limit``;
5. ``behaviors``: each agent's behavior resumed until it yields (``behavior``, per agent);
6. ``actions``: executed per agent, in order; 7. ``simulator_step``;
8. ``dynamic_properties``: every object's properties read back; 9. ``clock``: step + 1.

10. When the run ends (``end``): the scenarios still running stop, as in step 1f (their
final records, their ``require_eventually`` conditions).

Behaviors, monitors and compose blocks are all resumed the one way of
:mod:`~cvcclock.scenario.blocks`. An exception other than a rejection that escapes a time
step (from a behavior, monitor, compose block, predicate, record, ``trace`` or simulator
method, or a resampled attempt's setup) fails the run: that pump re-raises it, the
interrupted step is never run again, and every later pump, and ``result``, raises
:class:`~cvcclock.scenario.ScenarioFailed` chained to it.
"""

from __future__ import annotations

import hashlib
import math
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from cvcclock import ClockConfig, ClockFollower, WorldClock
from cvcclock.checks import (
    check_bool,
    check_callable,
    check_count,
    check_seed,
    check_time_limit,
)
from cvcclock.scenario._arguments import (
    check_instance,
    check_step,
    steps_for,
)
from cvcclock.scenario.behaviors import Take
from cvcclock.scenario.errors import (
    ActionRejected,
    GuardViolation,
    RejectSimulation,
    ScenarioFailed,
    Terminate,
    TooManyRejections,
)
from cvcclock.scenario.results import SimulationResult, TerminationType
from cvcclock.scenario.scenarios import Params, Scenario, check_params, declares_dt
from cvcclock.scenario.scopes import Scope
from cvcclock.scenario.simulation import Agent, Simulation
from cvcclock.scenario.simulator import InvalidAction, Simulator

__all__ = ["ScenarioRunner", "Trace", "simulate"]

Trace = Callable[[int, str, "str | None"], object]
"""``trace(step, phase, subject)``: called as each phase starts; subject names the scenario,
agent or monitor, or is None."""

# simulate() with no limit warns once it has run this many time steps (about a second of a
# small scenario): far past a scenario that ends itself, soon enough to see a runaway one.
_UNBOUNDED_WARNING_STEPS = 100_000


class _Ending(Exception):
    """Internal: a phase ended the run, for ``kind`` and ``reason``."""

    def __init__(self, kind: TerminationType, reason: str) -> None:
        super().__init__(reason)
        self.kind, self.reason = kind, reason


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
        when omitted. A scenario that declares its own ``dt`` runs at that step only: give
        the same or none (to run it at another, set ``dt`` on the scenario instance).
    seed : int
        The run's seed, a non-negative int of any size; attempt 0 uses it as is.
    max_steps : int, optional
        End the run (``TIME_LIMIT``) at this time step.
    time_limit : float, optional
        End the run (``TIME_LIMIT``) at the first step at least this many seconds in;
        ``math.inf`` for none, as None (for :func:`simulate` it says that a run without
        a limit is meant).
    max_iterations : int
        Attempts before giving up with :class:`TooManyRejections`.
    simulator : callable, optional
        Makes a fresh :class:`Simulator` per attempt; ``scenario.simulator`` when omitted.
    raise_guard_violations : bool
        Raise a violated precondition or invariant (:class:`PreconditionViolation` or
        :class:`InvariantViolation`) that no behavior caught, instead of rejecting the
        attempt.
    trace : callable, optional
        ``trace(step, phase, subject)``, called as each phase starts (see the module doc).
    params : mapping, optional
        Parameter values over the scenario's own ``params`` (Scenic's ``params=`` or
        ``--param``); the run reads them as ``sim.params``.

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
        If ``seed`` is negative, ``dt`` is not a whole number of quanta or differs from the
        ``dt`` the scenario declares, or a limit is out of range.

    Any error is raised before the first attempt is set up, and leaves the clock as it was.
    """

    def __init__(self, scenario: Scenario, clock: WorldClock, dt: float | None = None, *,
                 seed: int, max_steps: int | None = None, time_limit: float | None = None,
                 max_iterations: int = 100, simulator: Callable[[], Simulator] | None = None,
                 raise_guard_violations: bool = False, trace: Trace | None = None,
                 params: Mapping[str, Any] | None = None) -> None:
        check_instance(scenario, Scenario, "scenario")
        own = check_params(scenario.params, f"{type(scenario).__name__}.params")
        given = {} if params is None else check_params(params, "params")
        self._params = Params({**own, **given})
        check_instance(clock, WorldClock, "clock")
        self.seed = check_seed(seed)
        self._max_iterations = check_count(max_iterations, "max_iterations", 1)
        check_callable(simulator, "simulator", optional=True)
        self._make_simulator = scenario.simulator if simulator is None else simulator
        self._raise_guards = check_bool(raise_guard_violations, "raise_guard_violations")
        self._trace = check_callable(trace, "trace", optional=True)
        # The scenario's own dt, not period * fixed_dt, which can differ in the last bit: the
        # physics must see the same dt on every clock the scenario runs on.
        self.dt = check_dt(scenario, dt)
        try:
            self.follower = ClockFollower.for_step(clock, self.dt)
        except (TypeError, ValueError) as e:
            raise type(e)(f"scenario {scenario.name!r}: time step {e}") from e
        limits = []
        if max_steps is not None:
            steps = check_count(max_steps, "max_steps")
            limits.append((steps, f"reached max_steps={steps}"))
        if time_limit is not None:
            seconds = check_time_limit(time_limit)
            if seconds < math.inf:
                limits.append((steps_for(seconds, self.dt, "time_limit"),
                               f"reached time_limit={time_limit} s"))
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

    def __repr__(self) -> str:
        """The scenario, ``dt``, the clock's tick, the current attempt's steps and the state
        (``running``, ``ended`` with its termination, or ``failed`` with its error); never
        raises, even for a scenario whose ``name`` does."""
        parts = (lambda: repr(self.scenario.name), lambda: f"dt={self.dt!r}",
                 lambda: f"clock tick={self._clock.tick}",
                 lambda: f"steps={self.simulation.step}", self._state)
        return f"<ScenarioRunner {' '.join(_safe(part) for part in parts)}>"

    def _state(self) -> str:
        rejected = f"rejections={len(self._reasons)} " if self._reasons else ""
        if self._failure is not None:
            return f"{rejected}failed ({type(self._failure.error).__name__})"
        if self._result is not None:
            return f"{rejected}ended ({self._result.termination_type.value})"
        return f"{rejected}running"

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
            sim = Simulation(self._make_simulator(), derive_seed(self.seed, self._attempt), self.dt,
                             self._trace, self._params)
            sim.top = Scope(self.scenario, sim)
            try:
                sim.top.start()
            except RejectSimulation as e:
                self._rejected(e, "")
                continue
            self.simulation = sim
            return sim

    def _rejected(self, e: RejectSimulation, where: str) -> None:
        reason = f"{where}{e}"
        if self._raise_guards and isinstance(e, GuardViolation):
            raise type(e)(reason) from e
        self._reasons.append(reason)

    def _advance(self) -> None:
        sim = self.simulation
        try:
            try:
                self._time_step(sim)
            except _Ending as end:
                self._finish(sim, end.kind, end.reason)
        except RejectSimulation as e:
            self._rejected(e, f"step {sim.step}, ")
            self._start_attempt()
        except Terminate as t:
            raise RuntimeError(f"step {sim.step}: terminate() was called outside a behavior, a "
                               f"monitor or a compose block") from t

    # -- one time step, phase by phase ------------------------------------------------------

    def _time_step(self, sim: Simulation) -> None:
        """Phases 1 to 9; a phase that ends the run raises :class:`_Ending`."""
        self._scenarios(sim)
        self._records(sim)
        self._termination_checks(sim, self._monitors(sim))
        chosen = self._behaviors(sim)
        if chosen or sim.tracing:
            self._actions(sim, chosen)
        self._simulator_step(sim)
        self._dynamic_properties(sim)
        self._next_step(sim)

    def _scenarios(self, sim: Simulation) -> None:
        """1. The top-level scope's step; its compose block steps its sub-scenarios."""
        if sim.tracing:
            sim.note("scenarios")
        top = sim.top
        assert top is not None     # made before anything runs
        if top.running:
            try:
                top.step()
            except Terminate as t:
                if not t.simulation or top.running:
                    raise
                # terminate_simulation() from a compose block: every scope up to the top
                # stopped; the termination checks end the run after the monitors.

    def _records(self, sim: Simulation) -> None:
        """2. The trajectory entry, then the records of every running scope."""
        if sim.tracing:
            sim.note("records")
        sim.save_state()
        scopes = sim.scopes
        for scope in sim.running_scopes() if scopes is None else scopes:
            if scope.recording:
                scope.save_records()

    def _monitors(self, sim: Simulation) -> tuple[TerminationType, str] | None:
        """3. Each running scope's monitors, once; the end a monitor asked for, if any.

        A monitor's ``terminate()`` stops its scope once every monitor has run (at the top
        level it ends the run); ``terminate_simulation()`` ends the run. The first to ask
        names the reason; the rest still run.
        """
        tracing = sim.tracing
        if tracing:
            sim.note("monitors")
        top = sim.top
        assert top is not None     # made before anything runs
        ended = None
        stopping: list[tuple[Scope, str]] = []
        scopes = sim.scopes          # stopping one makes a new list, not this one
        for scope in sim.running_scopes() if scopes is None else scopes:
            for monitor in scope.monitors:
                block = monitor.block
                if block is None:
                    continue
                if tracing:
                    sim.note("monitor", monitor.name)
                try:
                    if type(block.resume()) is not Take:
                        monitor.block = None
                except RejectSimulation as e:
                    e.args = (f"monitor {monitor.name!r}: {e}",)
                    raise
                except Terminate as t:
                    monitor.block = None
                    said = f": {t.reason}" if t.reason else ""
                    if t.simulation or scope is top:
                        if ended is None:
                            ended = (TerminationType.MONITOR,
                                     f"monitor {monitor.name!r} terminated the simulation{said}")
                    else:
                        stopping.append((scope, f"monitor {monitor.name!r} terminated it{said}"))
        for scope, reason in stopping:
            scope.stop(reason)
        return ended

    def _termination_checks(self, sim: Simulation,
                            ended: tuple[TerminationType, str] | None) -> None:
        """4. End the run for a monitor, a stopped top-level scenario, a
        ``terminate_simulation_when`` condition or the run's own limit."""
        if sim.tracing:
            sim.note("termination_checks")
        top = sim.top
        assert top is not None     # made before anything runs
        if ended is None and not top.running:
            ended = (TerminationType.SCENARIO_COMPLETE, str(top.stop_reason))
        if ended is None:
            scopes = sim.scopes
            for scope in sim.running_scopes() if scopes is None else scopes:
                held = scope.end_condition() if scope.ending else None
                if held is not None:
                    ended = (TerminationType.TERMINATION_CONDITION, held)
                    break
        if ended is None and self._limit is not None and sim.step >= self._limit[0]:
            ended = (TerminationType.TIME_LIMIT, self._limit[1])
        if ended is not None:
            raise _Ending(*ended)

    def _behaviors(self, sim: Simulation) -> list[tuple[Agent, tuple[Any, ...]]]:
        """5. Each agent's behavior, resumed until it yields: the actions it chose.

        A behavior that returned takes no action from then on. ``terminate()`` stops the
        scenario that created the agent (the run, at the top level);
        ``terminate_simulation()`` ends the run.
        """
        tracing = sim.tracing
        if tracing:
            sim.note("behaviors")
        chosen: list[tuple[Agent, tuple[Any, ...]]] = []
        step_actions: dict[str, tuple[Any, ...]] = {}
        sim.choosing = step_actions        # Agent.last_actions, as Scenic clears and sets it
        for agent in sim.behaving:
            if tracing:
                sim.note("behavior", agent.name)
            block = agent.block
            if block is None:
                step_actions[agent.name] = ()
                continue
            result: Any
            try:
                gen = block.direct
                if gen is None:
                    result = block.resume()
                else:
                    # The fast path: a plain behavior's generator resumed by a bare next().
                    result = next(gen, block)
                    if type(result) is not Take or gen.gi_yieldfrom is not None:
                        result = block.went_on(result)
            except RejectSimulation as e:
                e.args = (f"behavior of agent {agent.name!r}: {e}",)
                raise
            except Terminate as t:
                agent.block = None
                step_actions[agent.name] = ()
                self._terminated(sim, agent, t)
                continue
            if type(result) is Take:
                actions = result.actions
                if actions:
                    chosen.append((agent, actions))
                step_actions[agent.name] = actions
            else:
                agent.block = None
                step_actions[agent.name] = ()
        sim.save_actions(step_actions)
        return chosen

    def _terminated(self, sim: Simulation, agent: Agent, t: Terminate) -> None:
        """An agent's behavior called ``terminate`` or ``terminate_simulation``."""
        said = f": {t.reason}" if t.reason else ""
        scope = agent.scope
        if t.simulation or scope is None or scope is sim.top:
            raise _Ending(TerminationType.BEHAVIOR,
                          f"agent {agent.name!r} terminated the simulation{said}") from None
        scope.stop(f"agent {agent.name!r} terminated it{said}")

    def _actions(self, sim: Simulation, chosen: list[tuple[Agent, tuple[Any, ...]]]) -> None:
        """6. Execute each agent's actions, in order."""
        if sim.tracing:
            sim.note("actions")
        apply = sim.simulator.apply_action
        for agent, actions in chosen:
            for action in actions:
                try:
                    apply(agent.handle, action)
                except RejectSimulation:
                    raise           # the simulator rejects the attempt, deliberately
                except Exception as e:
                    why = str(e) if isinstance(e, InvalidAction) else f"{type(e).__name__}: {e}"
                    raise ActionRejected(f"the simulator rejected action {action!r} of agent "
                                         f"{agent.name!r} at step {sim.step}: {why}") from e

    def _simulator_step(self, sim: Simulation) -> None:
        """7. Run the simulator for one time step."""
        if sim.tracing:
            sim.note("simulator_step")
        sim.simulator.step(sim.dt)

    def _dynamic_properties(self, sim: Simulation) -> None:
        """8. Read every object's dynamic properties back."""
        if sim.tracing:
            sim.note("dynamic_properties")
        sim.read_properties()

    def _next_step(self, sim: Simulation) -> None:
        """9. The next time step."""
        if sim.tracing:
            sim.note("clock")
        sim.step += 1

    def _finish(self, sim: Simulation, kind: TerminationType, reason: str) -> None:
        """10. Stop the scenarios still running (their final records and eventually
        requirements), then make the result."""
        sim.note("end")
        _top(sim).stop("the simulation ended")
        records, initial, final = sim.records()
        self._result = SimulationResult(
            trajectory=sim.trajectory(),
            actions=sim.actions(),
            records=records,
            records_initial=initial,
            records_final=final,
            termination_type=kind,
            termination_reason=reason,
            seed=self.seed,
            run_seed=sim.seed,
            rejections=len(self._reasons),
            rejection_reasons=tuple(self._reasons),
            dt=self.dt,
        )


def _top(sim: Simulation) -> Scope:
    """The attempt's top-level scope (the runner makes it before anything runs)."""
    top = sim.top
    assert top is not None
    return top


def _dt_source(scenario: Scenario, dt: float | None) -> tuple[object, str]:
    """The time step given (``scenario.dt`` unless ``dt`` is) and the name it goes by."""
    return (scenario.dt, f"{type(scenario).__name__}.dt") if dt is None else (dt, "dt")


def check_dt(scenario: Scenario, dt: float | None) -> float:
    """The time step, ``scenario.dt`` unless given: a finite number of seconds > 0, and the
    one the scenario declares, if it declares one (:func:`declares_dt`).

    Raises
    ------
    TypeError, ValueError
        Naming the scenario, the argument and the value (both values for a mismatch).
    """
    given, where = _dt_source(scenario, dt)
    try:
        step = check_step(given, where)
        if dt is not None and declares_dt(scenario):
            own_where = f"{type(scenario).__name__}.dt"
            own = check_step(scenario.dt, own_where)
            if own != step:
                raise ValueError(
                    f"dt={dt!r} differs from the time step the scenario declares, "
                    f"{own_where}={scenario.dt!r}; a scenario that declares its time step may "
                    f"count on it, so a runner does not override it: give no dt, or set dt on "
                    f"the scenario instance (scenario.dt = {dt!r}) to run it at another step")
    except (TypeError, ValueError) as e:
        raise type(e)(f"scenario {scenario.name!r}: {e}") from None
    return step


def _own_clock_config(scenario: Scenario, dt: float | None) -> ClockConfig:
    """simulate()'s clock: its quantum is the time step, so errors name the time step."""
    step = check_dt(scenario, dt)
    try:
        return ClockConfig(fixed_dt=step)
    except ValueError as e:
        given, where = _dt_source(scenario, dt)
        raise ValueError(f"scenario {scenario.name!r}: {where} must be at least the smallest "
                         f"quantum a clock can have, got {given!r}; simulate() runs on a clock "
                         f"whose quantum is the time step") from e


def _safe(part: Callable[[], object]) -> str:
    """``str(part())``, or what it raised: a repr must not fail on a broken part."""
    try:
        return str(part())
    except Exception as e:     # noqa: BLE001 -- any error becomes the text shown instead
        return f"<{_summary(e)}>"


def _warn_unbounded(scenario: Scenario, steps: int, dt: float) -> None:
    warnings.warn(
        f"simulate() has run {steps:,} time steps ({steps * dt:g} s) of scenario "
        f"{_safe(lambda: repr(scenario.name))} with neither time_limit nor max_steps, so it "
        f"runs until the scenario ends itself, which may be never; give max_steps= or "
        f"time_limit= to bound the run, or time_limit=math.inf to say that an unbounded run "
        f"is meant (which silences this warning)", RuntimeWarning, stacklevel=3)


def _summary(error: BaseException) -> str:
    """``Type: message``, or ``Type`` alone; never an error of its own."""
    try:
        text = str(error)
    except Exception:       # a broken __str__ must not hide the failure it describes
        text = "<unprintable>"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def simulate(scenario: Scenario, *, seed: int, max_steps: int | None = None,
             time_limit: float | None = None, max_iterations: int = 100, dt: float | None = None,
             simulator: Callable[[], Simulator] | None = None, raise_guard_violations: bool = False,
             trace: Trace | None = None,
             params: Mapping[str, Any] | None = None) -> SimulationResult:
    """Run a scenario to the end in a batch, on a clock of its own.

    The clock's quantum is the time step and is advanced with ``advance_ticks``; the result
    equals a :class:`ScenarioRunner`'s on any clock and pacing with the same arguments.
    Parameters are those of :class:`ScenarioRunner`.

    Without ``max_steps`` or ``time_limit`` the run ends only when the scenario ends itself
    (its compose block, ``terminate_after``, a ``terminate_when`` condition, a monitor or a
    behavior), which may be never: such a run warns once it has run 100,000 time steps.
    ``time_limit=math.inf`` says that an unbounded run is meant, and does not warn.

    Warns
    -----
    RuntimeWarning
        When a run with neither ``max_steps`` nor ``time_limit`` reaches 100,000 time
        steps (rejected attempts' steps included); it goes on.

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
                            trace=trace, params=params)
    warn_at = _UNBOUNDED_WARNING_STEPS if max_steps is None and time_limit is None else None
    steps = 0
    while runner.result is None:
        clock.advance_ticks(runner.follower.period)
        steps += runner.pump()
        if warn_at is not None and steps >= warn_at and runner.result is None:
            _warn_unbounded(scenario, steps, runner.dt)
            warn_at = None
    return runner.result
