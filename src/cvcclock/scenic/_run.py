# mypy: disable-error-code="import-untyped, import-not-found"
# (Scenic, the scenic extra, ships no type information; this module types its own side.)
"""ScenicRun: one Scenic simulation on a worker thread whose every step waits for the clock.

Scenic 3.1's ``Simulation.__init__`` runs the whole simulation, and 3.1 has no stepped API,
so the simulation runs on a worker thread; its ``step`` is gated: step ``n`` runs only once
the run's ``ClockFollower`` has granted ``n`` steps. The caller's thread drives the clock
(a binding, a ``FrameLoop``, ``advance_ticks``), and the gate lets the worker through. Which
steps run, and everything they compute, never depends on when.
"""

from __future__ import annotations

import collections
import json
import threading
import types
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

from cvcclock._core import ClockFollower, Mode, WorldClock, ticks_per_step
from cvcclock.checks import check_count, check_str, check_timeout
from cvcclock.scenic._canon import step_hashes, trajectory_hash
from cvcclock.scenic._hooks import Claim, RandomStreams, claim
from cvcclock.scenic._plugins import switch_off_own_pacing
from cvcclock.scenic._recording import OperatorInput, ScenicRecording

__all__ = ["Divergence", "ScenicRun", "operator_inputs"]

# The longest the worker blocks at a gate without looking at its stop flag: close() and
# Ctrl-C stop a waiting run within this.
_POLL = 0.02

_EMPTY: Mapping[str, Any] = types.MappingProxyType({})
_current_inputs: Mapping[str, Any] = _EMPTY


def operator_inputs() -> Mapping[str, Any]:
    """The operator inputs the running paced simulation has reached, by name (read-only).

    Call it from a Scenic program's behaviors, monitors or ``compose`` blocks:
    ``operator_inputs().get("brake", 0.0)``. An input given with ``ScenicRun.give`` becomes
    visible at the first step whose gate opens after it was given, in the recording and in
    every replay alike. Outside a paced run (a plain ``simulate``) it is empty.

    Returns
    -------
    Mapping[str, object]
    """
    return _current_inputs


class _Stopped(BaseException):
    """Raised at a gate to end a closed run; a BaseException so Scenic's handlers let it by."""


@dataclass(frozen=True)
class Divergence:
    """Where a replay first differs from its recording.

    Attributes
    ----------
    step : int
        The first Scenic time step whose state hash differs (or where Scenic's own
        divergence check failed, or where one of the two runs ended first).
    recorded : str or None
        The recorded state hash there (None past the recording's end).
    replayed : str or None
        The replay's (None past the replay's end, or when Scenic stopped the replay).
    message : str
        What differs, in words.
    """

    step: int
    recorded: str | None
    replayed: str | None
    message: str


@dataclass
class RunSpec:
    """Everything a run needs to run again from the start (``seek`` re-runs it)."""

    simulate: Callable[..., Any]        # PacedSimulator's unpaced Simulator.simulate
    scene: Any
    scenario: Any
    max_steps: int
    timestep: float | None
    seed: int | None
    kwargs: dict[str, Any]
    record: str | None = None
    inputs: list[OperatorInput] = field(default_factory=list)   # scheduled by step (replay)
    expected: ScenicRecording | None = None                     # a replay's recording
    header: dict[str, Any] = field(default_factory=dict)
    stop_at: int | None = None          # seek: grant no step beyond this one


class _Job:
    """One pass of a run: the worker thread, its gate and what it found.

    Who touches what: the worker alone runs Scenic, takes the follower and writes
    ``steps``, ``waiting``, ``outcome`` and ``error`` (each replaced whole); ``waiting``,
    ``done`` and ``error`` change under ``cond``; ``stop`` is an Event; ``given`` (inputs
    not yet applied) is shared with ``give`` under ``cond``.
    """

    def __init__(self, spec: RunSpec, clock: WorldClock, owner: object) -> None:
        self.spec, self.clock = spec, clock
        self.cond = threading.Condition(threading.Lock())
        self.stop = threading.Event()
        self.began = threading.Event()
        self.done = False
        self.stopped = False
        self.error: BaseException | None = None
        self.simulation: Any = None
        self.result: Any = None
        self.follower: ClockFollower | None = None
        self.k = 0
        self.steps = 0
        self.step_began = perf_counter()
        self.waiting: tuple[int, int] | None = None
        self.given: list[tuple[int, str, Any]] = []       # (tick, name, value), live inputs
        self.applied: list[OperatorInput] = []
        self.seen: dict[str, Any] = {}
        self.hashes: list[str] = []
        self.divergence: Divergence | None = None
        self.gate_error: BaseException | None = None
        self._dues: collections.deque[range] = collections.deque()
        self._granted = 0
        self._scheduled = collections.deque(sorted(spec.inputs, key=lambda i: i.step))
        self._streams = RandomStreams()
        self.thread = threading.Thread(target=self._work, name="cvcclock.scenic run",
                                       daemon=True)
        self._claim: Claim = claim(owner, self._begun,
                                   lambda: threading.current_thread() is self.thread)
        self.stuck_timeout = self._claim.stuck_timeout
        self.thread.start()

    # -- the worker ----------------------------------------------------------------------

    def _work(self) -> None:
        global _current_inputs
        spec = self.spec
        try:
            if spec.seed is not None:
                self._streams.seed(spec.seed)
            _current_inputs = types.MappingProxyType(self.seen)
            kwargs = dict(spec.kwargs)
            if spec.expected is not None:
                kwargs["replay"] = spec.expected.replay
            elif spec.record is not None:
                kwargs["enableDivergenceCheck"] = True
            simulation = spec.simulate(spec.scene, maxSteps=spec.max_steps,
                                       timestep=spec.timestep, **kwargs)
            self.simulation = simulation
            self.result = None if simulation is None else simulation.result
            if simulation is not None and (spec.expected is not None or spec.record):
                # Only a recording or a replay pays for the hashes; state_hashes makes them
                # on demand otherwise.
                self.hashes = step_hashes(simulation.result)
                if spec.expected is not None:
                    self.divergence = _compare(spec.expected.hashes, self.hashes)
                if spec.record is not None:
                    self._write_recording(simulation)
        except _Stopped:
            self.stopped = True
        except BaseException as exc:  # noqa: BLE001 - kept, and re-raised by result
            self.error = exc
            if spec.expected is not None and type(exc).__name__ == "DivergenceError":
                self.divergence = self._scenic_divergence(exc)
        finally:
            _current_inputs = _EMPTY
            self._streams.restore()
            self._claim.release()
            with self.cond:
                self.done = True
                self.waiting = None
                self.cond.notify_all()
            self.began.set()

    def _begun(self, sim: Any) -> None:
        """Scenic began the run's simulation: bind the follower and gate ``sim.step``.

        Never raises (Scenic's clean-up after a failed begin would mask the error): a
        timestep that is not whole quanta is raised at the first gate instead.
        """
        try:
            timestep = float(sim.timestep)
            self.k = ticks_per_step(timestep, self.clock.fixed_dt)
            if self.follower is None:
                # One follower for every attempt (maxIterations > 1): the steps of a
                # rejected attempt and of the next wait for the clock alike, in one count.
                self.follower = ClockFollower.for_step(self.clock, timestep)
            self.spec.header.setdefault("timestep", timestep)
            self.spec.header["simulation"] = _qualified(type(sim))
            switch_off_own_pacing(sim, self.clock)
        except BaseException as exc:  # noqa: BLE001 - raised at the first gate
            self.gate_error = exc
        original = sim.step

        def gated_step() -> object:
            self._gate(self.steps + 1)
            out = original()
            self.steps += 1
            self.step_began = perf_counter()
            return out

        sim.step = gated_step
        self.began.set()

    def _gate(self, n: int) -> None:
        """Return once step ``n`` is granted; apply the inputs that fall before it."""
        if self.gate_error is not None:
            raise self.gate_error
        if self.stop.is_set():
            raise _Stopped
        due = self._grant(n)
        self._apply_inputs(n, due)

    def _grant(self, n: int) -> int:
        """Block until ``n`` steps are granted; the due tick of step ``n``."""
        clock, follower = self.clock, self.follower
        assert follower is not None
        if self._granted < n and not self._over_limit(n):
            self._take()
        if self._granted < n or self._over_limit(n):
            try:
                while self._granted < n or self._over_limit(n):
                    # The caller's streams go back before it can see the run waiting: once
                    # wait_caught_up returns, its draws are its own.
                    self._streams.away()
                    with self.cond:
                        self.waiting = (clock.discontinuities, follower.last_tick)
                        self.cond.notify_all()
                    if self.stop.is_set():
                        raise _Stopped
                    clock.wait_for_tick_change(follower.last_tick, _POLL)
                    if not self._over_limit(n):
                        self._take()
            finally:
                with self.cond:
                    self.waiting = None
                self._streams.back()
        self.step_began = perf_counter()
        return self._next_due()

    def _over_limit(self, n: int) -> bool:
        limit = self.spec.stop_at
        return limit is not None and n > limit

    def _take(self) -> None:
        due = self.follower.take_due(self.clock)  # type: ignore[union-attr]
        if due:
            self._dues.append(due)
            self._granted += len(due)

    def _next_due(self) -> int:
        while True:
            first = self._dues[0]
            if first:
                self._dues[0] = first[1:]
                return first[0]
            self._dues.popleft()

    def _apply_inputs(self, n: int, due: int) -> None:
        """At gate ``n`` (due at tick ``due``): the scheduled inputs for step ``n`` (a
        replay), and the live inputs given before ``due`` (as ``give`` stamps them)."""
        while self._scheduled and self._scheduled[0].step <= n:
            i = self._scheduled.popleft()
            self._apply(OperatorInput(n, i.tick, i.name, i.value))
        if self.given:
            with self.cond:
                now = [g for g in self.given if g[0] < due]
                self.given = [g for g in self.given if g[0] >= due]
            for tick, name, value in now:
                self._apply(OperatorInput(n, tick, name, value))

    def _apply(self, given: OperatorInput) -> None:
        self.applied.append(given)
        self.seen[given.name] = given.value

    def _write_recording(self, simulation: Any) -> None:
        spec = self.spec
        result = simulation.result
        ScenicRecording(
            header=dict(spec.header, maxSteps=spec.max_steps, seed=spec.seed,
                        fixed_dt=self.clock.fixed_dt),
            scene=spec.scenario.sceneToBytes(spec.scene),
            replay=simulation.getReplay(),
            inputs=tuple(self.applied),
            hashes=tuple(self.hashes),
            end={"steps": len(self.hashes) - 1,
                 "termination_type": result.terminationType.name,
                 "termination_reason": str(result.terminationReason),
                 "trajectory": trajectory_hash(result)},
        ).write(spec.record)  # type: ignore[arg-type]

    def _scenic_divergence(self, exc: BaseException) -> Divergence:
        # Scenic checks the properties it reads back once a step has run (and once after
        # setup): the state of time step ``steps`` is the one that differs.
        step = self.steps
        recorded = self.spec.expected.hashes  # type: ignore[union-attr]
        return Divergence(step, recorded[step] if step < len(recorded) else None, None,
                          f"Scenic's divergence check failed at step {step}: {exc}")

    # -- the caller's side ---------------------------------------------------------------

    def caught_up(self, target: tuple[int, int]) -> bool:
        if self.done:
            return True
        waiting = self.waiting
        if waiting is None:
            return False
        if waiting[0] == target[0]:
            return waiting[1] >= target[1]
        return waiting[0] > target[0]

    def give(self, tick: int, name: str, value: Any) -> None:
        with self.cond:
            self.given.append((tick, name, value))

    def halt(self, seconds: float) -> bool:
        """Set the stop flag and join the worker for ``seconds``; whether it ended."""
        self.stop.set()
        with self.cond:
            self.cond.notify_all()
        if self.thread is not threading.current_thread():
            self.thread.join(seconds)
        return not self.thread.is_alive()


def _compare(recorded: tuple[str, ...], replayed: list[str]) -> Divergence | None:
    for step, (a, b) in enumerate(zip(recorded, replayed, strict=False)):
        if a != b:
            return Divergence(step, a, b, f"the state hash of step {step} differs: recorded "
                                          f"{a}, replayed {b}")
    if len(recorded) != len(replayed):
        step = min(len(recorded), len(replayed))
        return Divergence(step, recorded[step] if step < len(recorded) else None,
                          replayed[step] if step < len(replayed) else None,
                          f"the recording has {len(recorded) - 1} steps, the replay "
                          f"{len(replayed) - 1}")
    return None


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _check_input_value(value: object) -> None:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        raise TypeError(f"value must be JSON (None, bool, int, float, str, and lists and "
                        f"str-keyed dicts of them), got {value!r}") from None


class ScenicRun:
    """A Scenic simulation running on the clock: made by ``PacedSimulator.start``.

    The simulation runs on a worker thread; each of its steps waits until the run's
    ``follower`` grants one, so the caller paces it by driving the clock: a
    ``WorldClockBinding`` (``bind`` publishes the run's keys there), a ``FrameLoop``
    (``play`` runs one until the simulation ends), or ``advance_ticks`` and ``step_once``
    directly. Use it as a context manager, or call ``close``.

    Notes
    -----
    Ctrl-C lands on the main thread, in whatever the caller is doing (``wait``, ``play``,
    its own loop); leaving the ``with`` block (or ``close``) stops a worker waiting at a
    gate within 0.02 s. A worker inside a step stops when that step returns; ``close``
    waits at most ``stop_timeout`` seconds for it and warns if it had to give up.

    Scenic's stuck-behavior warning (``SIGALRM``, main thread only) is off while the run
    holds Scenic; instead ``wait``, ``wait_caught_up`` and ``close`` warn with Scenic's
    ``StuckBehaviorWarning`` when one step has run longer than Scenic's
    ``stuckBehaviorWarningTimeout`` (10 s by default) without reaching the next gate.
    """

    def __init__(self, spec: RunSpec, clock: WorldClock, *, stop_timeout: float) -> None:
        self._spec = spec
        self._clock = clock
        self._stop_timeout = stop_timeout
        self._log: list[OperatorInput] = list(spec.inputs)
        self._warned_step = -1
        self._job = self._launch(spec)

    def _launch(self, spec: RunSpec) -> _Job:
        job = _Job(spec, self._clock, self)
        try:
            while not job.began.wait(_POLL):
                pass
        except BaseException:   # Ctrl-C while Scenic sets up: nobody else would stop it
            job.halt(self._stop_timeout)
            raise
        refused = job.gate_error
        if refused is not None:     # a timestep that is not whole quanta: start() refuses
            job.halt(self._stop_timeout)
            raise refused
        return job

    # -- state -------------------------------------------------------------------------------

    @property
    def clock(self) -> WorldClock:
        """The clock the run follows."""
        return self._clock

    @property
    def follower(self) -> ClockFollower | None:
        """The follower granting the steps (None if the simulation failed before it began)."""
        return self._job.follower

    @property
    def period(self) -> int:
        """``k``: quanta per Scenic step."""
        return self._job.k

    @property
    def steps(self) -> int:
        """Scenic steps run so far (``Simulation.currentTime`` once it returns; with
        ``maxIterations`` above 1, the steps of every attempt)."""
        return self._job.steps

    @property
    def done(self) -> bool:
        """Whether the simulation has ended: finished, rejected, failed or stopped."""
        return self._job.done

    @property
    def stopped(self) -> bool:
        """Whether it ended because it was closed (or sought) before it finished."""
        return self._job.stopped

    @property
    def termination(self) -> str | None:
        """The termination reason once it finished; None while it runs or if it failed."""
        result = self._job.result
        return None if result is None else str(result.terminationReason)

    @property
    def result(self) -> Any:
        """Scenic's ``SimulationResult``; None if every attempt was rejected.

        Raises
        ------
        RuntimeError
            If the run has not ended (``wait`` first), or was stopped before it finished.
        BaseException
            The exception the simulation raised, re-raised with its traceback.
        """
        job = self._job
        if not job.done:
            raise RuntimeError("the Scenic run has not ended yet: wait() for it first")
        if job.error is not None:
            raise job.error.with_traceback(job.error.__traceback__)
        if job.stopped:
            raise RuntimeError(f"the Scenic run was stopped at step {job.steps}, before it "
                               "finished: it has no result")
        return job.result

    @property
    def simulation(self) -> Any:
        """Scenic's ``Simulation`` once it finished (None before, or if rejected)."""
        return self._job.simulation

    @property
    def state_hashes(self) -> tuple[str, ...]:
        """Once finished, ``step_hashes(result)``: one hash per time step, step 0 first
        (empty before, or if the run has no result)."""
        job = self._job
        if not job.hashes and job.done and job.result is not None:
            job.hashes = step_hashes(job.result)
        return tuple(job.hashes)

    @property
    def inputs(self) -> tuple[OperatorInput, ...]:
        """The operator inputs the run has applied so far, in order."""
        return tuple(self._job.applied)

    @property
    def divergence(self) -> Divergence | None:
        """For a replay that ended: where it first differs from its recording, or None."""
        return self._job.divergence

    @property
    def is_replay(self) -> bool:
        """Whether this run replays a recording."""
        return self._spec.expected is not None

    # -- waiting -----------------------------------------------------------------------------

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the simulation ends; someone else must drive the clock meanwhile.

        Parameters
        ----------
        timeout : float or None
            Seconds at most, finite and >= 0; None waits for ever.

        Returns
        -------
        bool
            Whether it has ended.

        Raises
        ------
        TypeError, ValueError
            If ``timeout`` is bad.
        """
        seconds = check_timeout(timeout)
        return self._wait_for(lambda job: job.done, seconds)

    def wait_caught_up(self, timeout: float | None = None) -> bool:
        """Block until every step due at the clock's current tick has run.

        Then the worker waits at the gate of a step not yet due (or the simulation has
        ended), so a capture reads a state that holds exactly the steps its quanta hold.

        Parameters
        ----------
        timeout : float or None
            Seconds at most, finite and >= 0; None waits for ever.

        Returns
        -------
        bool
            True if caught up (or ended); False on timeout.

        Raises
        ------
        TypeError, ValueError
            If ``timeout`` is bad.
        """
        seconds = check_timeout(timeout)
        clock = self._clock
        target = (clock.discontinuities, clock.tick)
        if self._job.caught_up(target):
            return True
        return self._wait_for(lambda job: job.caught_up(target), seconds)

    def _wait_for(self, ready: Callable[[_Job], bool], seconds: float | None) -> bool:
        job = self._job
        deadline = None if seconds is None else perf_counter() + seconds
        with job.cond:
            while not ready(job):
                left = _POLL if deadline is None else min(_POLL, deadline - perf_counter())
                if left <= 0:
                    return False
                job.cond.wait(left)
                self._warn_if_stuck(job)
        return True

    def _warn_if_stuck(self, job: _Job) -> None:
        limit = job.stuck_timeout
        if limit <= 0 or job.waiting is not None or job.done or self._warned_step == job.steps:
            return
        if perf_counter() - job.step_began > limit:
            from scenic.core.dynamics.utils import StuckBehaviorWarning

            self._warned_step = job.steps
            warnings.warn(f"the Scenic step {job.steps + 1} has run for more than {limit:g} s "
                          "without reaching the next time step; maybe a behavior or compose "
                          "block loops with no take/wait statement?", StuckBehaviorWarning,
                          stacklevel=4)

    # -- driving -------------------------------------------------------------------------------

    def play(self, driver: Any = None, *, fps: float = 60.0, capture: bool = False,
             wait_timeout: float | None = None) -> Any:
        """Drive the clock (or ``driver``) frame by frame until the simulation ends.

        Each frame drives once, then waits until the run has caught up with the clock, so
        a simulator that cannot keep up slows the frames down and the clock's
        ``realized_scale`` and ``total_dropped`` say so.

        Parameters
        ----------
        driver : WorldClockBinding or None
            What drives each frame; None drives the run's clock directly.
        fps : float
            Frames per second.
        capture : bool
            Passed to ``FrameLoop``: a fixed ``wall_dt = 1 / fps`` and no sleeping.
        wait_timeout : float or None
            The most seconds a frame waits for the run to catch up; None, for ever.

        Returns
        -------
        PacingStats
            The frame loop's statistics.
        """
        from cvcclock.loop import FrameLoop

        loop = FrameLoop(self._clock if driver is None else driver, fps, capture=capture)
        seconds = check_timeout(wait_timeout)
        return loop.run(lambda frame, result: self.wait_caught_up(seconds),
                        until=lambda: self.done)

    def bind(self, binding: Any, prefix: str | None = None) -> tuple[str, str]:
        """Publish this run's keys through ``binding``'s telemetry, beside its ``sim.*`` keys.

        ``PREFIX.scenic.step`` holds ``steps``; ``PREFIX.scenic.termination`` the termination
        reason (None while running). Every ``drive`` writes them with the clock's keys.

        Parameters
        ----------
        binding : WorldClockBinding
            The binding that drives this run's clock.
        prefix : str or None
            The keys' prefix; None takes the binding's own (the part of its ``tick`` key
            before the last dot, ``sim`` for ``WorldClockBinding(tree, clock)``).

        Returns
        -------
        tuple of str
            The two keys.

        Raises
        ------
        TypeError
            If ``binding`` is not a ``WorldClockBinding`` or ``prefix`` not a str.
        ValueError
            If ``binding`` drives another clock, or a key is already taken.
        """
        from cvcclock.binding import WorldClockBinding

        if not isinstance(binding, WorldClockBinding):
            raise TypeError(f"binding must be a WorldClockBinding, got {binding!r}")
        if binding.clock is not self._clock:
            raise ValueError("binding drives another clock than this run's")
        if prefix is None:
            table = binding.keys
            own = table.tick or table.speed or table.time
            prefix = own.rpartition(".")[0] if own else "sim"
        check_str(prefix, "prefix")
        base = f"{prefix}.scenic" if prefix else "scenic"
        keys = (f"{base}.step", f"{base}.termination")
        binding.publish(keys[0], lambda: self.steps)
        binding.publish(keys[1], lambda: self.termination)
        return keys

    # -- inputs, seeking, closing --------------------------------------------------------------

    def give(self, name: str, value: Any) -> None:
        """Give the running program an operator input, stamped with the clock's tick.

        The program sees it through ``operator_inputs()`` from the first step whose gate
        opens after this tick; a recording keeps it, and a replay applies it at that step.

        Parameters
        ----------
        name : str
            The input's name.
        value : object
            A JSON value (None, bool, int, float, str, lists and str-keyed dicts of them).

        Raises
        ------
        TypeError
            If ``name`` is not a str or ``value`` is not JSON.
        RuntimeError
            If the run has ended, or is a replay (its inputs are the recording's).
        """
        check_str(name, "name")
        _check_input_value(value)
        if self.is_replay:
            raise RuntimeError("a replay takes its inputs from its recording; give() them to "
                               "a recorded run")
        job = self._job
        if job.done:
            raise RuntimeError("the Scenic run has ended; it takes no more inputs")
        with job.cond:
            job.given.append((self._clock.tick, name, value))

    def seek(self, step: int, *, timeout: float | None = None) -> None:
        """Re-run the simulation from its start, in batch, to ``step``, and pause there.

        The run stops, starts again with the same scene, seed and inputs (a replay, from its
        recording), the clock runs the quanta of ``step`` steps at once
        (``advance_ticks``), and once the worker has caught up the clock is paused: the run
        waits at the gate of step ``step + 1``. Resume the clock to go on.

        Parameters
        ----------
        step : int
            The Scenic step to stop at, 0 to ``maxSteps``.
        timeout : float or None
            The most seconds to wait for the re-run to reach ``step``; None, for ever.

        Returns
        -------
        None

        Raises
        ------
        TypeError, ValueError
            If ``step`` or ``timeout`` is bad; nothing is changed.
        RuntimeError
            If the old worker would not stop within ``stop_timeout``, or inside the clock's
            ``presenting()``.
        """
        target = check_count(step, "step", maximum=self._spec.max_steps)
        seconds = check_timeout(timeout)
        if not self._clock.can_advance:
            raise RuntimeError("seek() advances the clock, which cannot advance here "
                               "(inside presenting() or a timer callback)")
        self._end_job(self._stop_timeout)
        if not self._job.done:
            raise RuntimeError("the old Scenic run did not stop in time; seek() again later")
        # A replay keeps all its recorded inputs; a live run those applied up to the step
        # sought (what came after is the future again).
        inputs = self._spec.inputs if self.is_replay else [
            i for i in self._job.applied if i.step <= target]
        spec = self._respec(inputs=list(inputs), stop_at=target)
        clock = self._clock
        clock.mode = Mode.PAUSED
        self._job = self._launch(spec)
        k = self._job.k
        if k and target:
            first_due = (clock.tick // k + 1) * k
            clock.advance_ticks(first_due + (target - 1) * k - clock.tick)
        self.wait_caught_up(seconds)
        self._job.spec.stop_at = None     # resuming the clock goes on from here

    def _respec(self, **changes: Any) -> RunSpec:
        import dataclasses

        return dataclasses.replace(self._spec, header=dict(self._spec.header), **changes)

    def close(self, timeout: float | None = None) -> None:
        """Stop the simulation (if it runs) and wait for its worker, at most ``timeout`` s.

        Idempotent; the run's error, if any, is not raised here.

        Parameters
        ----------
        timeout : float or None
            Seconds at most, finite and >= 0; None is ``stop_timeout`` (2 s by default).

        Warns
        -----
        RuntimeWarning
            If the worker has not ended in time (a step that does not return): it is left
            as a daemon thread that runs no further step, and the process's Scenic slot
            stays taken until it ends.
        """
        seconds = self._stop_timeout if timeout is None else check_timeout(timeout,
                                                                           forever=False)
        if not self._end_job(seconds):
            warnings.warn(f"the Scenic run did not stop within {seconds:g} s (step "
                          f"{self._job.steps + 1} has not returned); its worker was left "
                          "running as a daemon thread, which runs no further step",
                          RuntimeWarning, stacklevel=2)

    def _end_job(self, seconds: float) -> bool:
        job = self._job
        if job.done:
            return True
        self._warn_if_stuck(job)
        return job.halt(seconds)

    def __enter__(self) -> ScenicRun:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        job = self._job
        state = ("failed" if job.error else "stopped" if job.stopped else "done" if job.done
                 else "running")
        return f"<ScenicRun step {job.steps}/{self._spec.max_steps} {state}>"
