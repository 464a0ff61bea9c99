"""ClockedEnv: a Gymnasium env whose every step is one step of a ClockFollower.

Outside human mode the env is its clock's driver: a step runs the quanta to its own due tick
(``advance_ticks``), so training costs no wall time. In human mode a ``FrameLoop`` drives the
clock through a ``WorldClockBinding`` at the env's render fps, and a step waits, frame by
frame, until its due tick has run: the binding's keys pause, single-step and change the speed
of the env while it runs, and the frames with no step due are presented inside
``clock.presenting()``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, SupportsFloat

import gymnasium
import gymnasium.utils

from cvcclock import (
    ClockConfig,
    ClockFollower,
    ClockState,
    FrameLoop,
    StepResult,
    WorldClock,
    WorldClockBinding,
    ticks_per_step,
)
from cvcclock.checks import MAX_TICK, check_bool, check_count, check_seconds, check_time_limit

__all__ = ["ClockedEnv", "ClockedEnvState", "control_dt", "limit_ticks"]

# ticks_per_step's tolerance: a limit within it of a whole number of quanta is that number.
_TOLERANCE = 1e-9
_MIN_FIXED_DT = 1e-6   # ClockConfig's least quantum


def control_dt(env: gymnasium.Env[Any, Any], dt: object = None) -> float:
    """The env's control step in seconds: ``dt``, else the env's ``dt``, else its render fps.

    Parameters
    ----------
    env : gymnasium.Env
        The env (its wrappers are searched for ``dt`` with ``get_wrapper_attr``).
    dt : float, optional
        The step, given; finite seconds > 0.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If ``dt`` is not a real number.
    ValueError
        If ``dt`` is not > 0, or it is omitted and the env has neither a ``dt`` attribute
        nor ``metadata["render_fps"]``.
    """
    if dt is None:
        try:
            dt = env.get_wrapper_attr("dt")
        except AttributeError:
            fps = (getattr(env, "metadata", None) or {}).get("render_fps")
            if fps is None:
                raise ValueError(
                    f"{env!r} has no dt attribute and no metadata['render_fps'] to take its "
                    "control step from; pass dt= (seconds per env step)") from None
            fps = check_seconds(fps, "metadata['render_fps']", minimum=1e-300)
            return 1.0 / fps
        name = "env.dt"
    else:
        name = "dt"
    seconds = check_seconds(dt, name)
    if not seconds > 0.0:
        raise ValueError(f"{name} must be > 0 seconds, got {dt!r}")
    return seconds


def limit_ticks(time_limit: float, fixed_dt: float) -> int:
    """The episode tick at which a time limit of ``time_limit`` world seconds is reached.

    The smallest tick ``n`` with ``n * fixed_dt >= time_limit``; a limit within 1e-9
    (relative) of a whole number of quanta is that number, as ``ticks_per_step`` rounds.
    ``MAX_TICK`` for ``math.inf`` (no limit). The limit is checked as
    ``cvcclock.checks.check_time_limit`` checks it.

    Parameters
    ----------
    time_limit : float
        World seconds, >= 0, or ``math.inf``.
    fixed_dt : float
        The clock's quantum in seconds.

    Returns
    -------
    int
    """
    limit = check_time_limit(time_limit)
    if limit == math.inf:
        return MAX_TICK
    quanta = limit / fixed_dt
    whole = round(quanta)
    if abs(quanta - whole) <= _TOLERANCE * max(1.0, quanta):
        return min(int(whole), MAX_TICK)
    return min(math.ceil(quanta), MAX_TICK)


@dataclasses.dataclass(frozen=True)
class ClockedEnvState:
    """A ``ClockedEnv``'s time: its clock's ``state()`` and where its steps and episode are.

    Made by ``ClockedEnv.clock_state()``, put back by ``ClockedEnv.restore_clock_state``.
    The env's own state (its physics, its random generator) is the env's to save.

    Attributes
    ----------
    clock : ClockState
        ``clock.state()``.
    last_tick : int
        The due tick of the env's last step (or where it started).
    taken_tick : int
        The last due tick the env's follower has taken from the clock, at or after
        ``last_tick``: the steps between are due and not yet run.
    episode_start : int
        The tick the episode started at; ``info["tick"]`` counts from it.
    """

    clock: ClockState
    last_tick: int
    taken_tick: int
    episode_start: int


class ClockedEnv(gymnasium.Wrapper[Any, Any, Any, Any], gymnasium.utils.RecordConstructorArgs):
    """A Gymnasium env on a cvcclock clock: each ``step()`` is one step of a ``ClockFollower``.

    Parameters
    ----------
    env : gymnasium.Env
        The env to wrap.
    clock : WorldClock, optional
        The clock it follows. Omitted: a clock of its own whose quantum is ``dt`` (the
        binding's clock when ``binding`` is given).
    dt : float, optional
        The control step in world seconds; the env's ``dt`` attribute when omitted, else
        ``1 / metadata["render_fps"]``. A whole number of the clock's quanta.
    time_limit : float, optional
        World seconds per episode: the step whose episode tick reaches it (the first tick
        ``n`` with ``n * fixed_dt >= time_limit``) returns ``truncated=True``. None or
        ``math.inf`` for no limit.
    binding : WorldClockBinding, optional
        Human mode: the binding whose keys (``sim.paused``, ``sim.speed``, ``sim.step``,
        ``sim.mode``...) control the env while it runs; a binding on a tree of its own
        (``{}``) when omitted. Its clock is the env's.
    capture : bool
        Human mode: drive the frames with a fixed ``1 / render_fps`` of wall time each and
        never sleep (``FrameLoop(capture=True)``): reproducible, for tests and recordings.
    max_wait_frames : int, optional
        Human mode: the most frames one ``step()`` presents while it waits for its step to
        fall due (a paused clock runs none); past it ``step()`` raises TimeoutError and the
        env is not stepped. None waits for as long as the clock is paused.

    Attributes
    ----------
    clock : WorldClock
        The clock.
    dt : float
        The control step in seconds.
    period : int
        The control step in quanta.
    time_limit : float
        The episode's time limit in seconds (``math.inf`` for none).
    binding : WorldClockBinding or None
        Human mode's binding; None in any other render mode.
    frame_loop : FrameLoop or None
        Human mode's frame loop (at the env's render fps); None otherwise.

    Raises
    ------
    TypeError
        If ``env`` is not a ``gymnasium.Env``, ``clock`` not a ``WorldClock``, ``binding``
        not a ``WorldClockBinding``, or a number is of the wrong type.
    ValueError
        If ``dt`` is not a whole number of the clock's quanta (naming both), the env has no
        ``dt`` nor render fps and no ``dt=`` is given, ``time_limit`` is negative or NaN, or
        ``clock`` is not the binding's clock. Nothing is changed then.

    Notes
    -----
    ``info`` (of ``reset`` and ``step``) gains ``"tick"``, the step's due tick counted from
    the episode's start, and ``"t"``, the same in world seconds (``tick * fixed_dt``).

    Outside human mode, ``step()`` runs the clock (``advance_ticks``) to the step's due tick
    when it is not there yet: the env is the clock's driver, and nothing waits on wall time.
    In human mode a ``FrameLoop`` at the env's render fps drives the binding until the due
    tick has run. Gymnasium's human mode renders inside ``step()``, so the frame in which a
    step falls due shows that step; every other frame (paused, slow, or a render fps above
    the control rate) calls the env's ``render()`` inside ``clock.presenting()``, which
    costs zero world time. Either way a step's due tick is the one after the last step's,
    so the trajectory is the same under any pacing.

    A step whose env raises leaves its due tick due: the next ``step()`` runs it.
    """

    def __init__(self, env: gymnasium.Env[Any, Any], clock: WorldClock | None = None, *,
                 dt: float | None = None, time_limit: float | None = None,
                 binding: WorldClockBinding | None = None, capture: bool = False,
                 max_wait_frames: int | None = None) -> None:
        # Check everything first: a bad argument changes nothing (no clock, no binding).
        if not isinstance(env, gymnasium.Env):
            raise TypeError(f"env must be a gymnasium.Env, got {env!r}")
        if clock is not None and not isinstance(clock, WorldClock):
            raise TypeError(f"clock must be a WorldClock or None, got {clock!r}")
        if binding is not None and not isinstance(binding, WorldClockBinding):
            raise TypeError(f"binding must be a WorldClockBinding or None, got {binding!r}")
        if binding is not None and clock is not None and binding.clock is not clock:
            raise ValueError(f"clock {clock!r} is not the binding's clock {binding.clock!r}")
        step = control_dt(env, dt)
        if clock is None and binding is not None:
            clock = binding.clock
        # The env's own clock takes the step as its quantum: refused here, naming the step,
        # not once the wrapper has already taken the env.
        config = ClockConfig(fixed_dt=_own_quantum(step, dt)) if clock is None else None
        period = 1 if clock is None else ticks_per_step(step, clock.fixed_dt)
        fixed_dt = step if clock is None else clock.fixed_dt
        limit = math.inf if time_limit is None else check_time_limit(time_limit)
        limit_tick = limit_ticks(limit, fixed_dt)
        capture = check_bool(capture, "capture")
        wait = None if max_wait_frames is None else check_count(max_wait_frames,
                                                                "max_wait_frames")
        human = env.render_mode == "human"
        fps = _render_fps(env) if human else None

        gymnasium.utils.RecordConstructorArgs.__init__(
            self, clock=clock, dt=dt, time_limit=time_limit, binding=binding, capture=capture,
            max_wait_frames=max_wait_frames)
        super().__init__(env)
        self.clock = WorldClock(config) if clock is None else clock
        self.dt = step
        self.period = period
        self.time_limit = limit
        self._fixed_dt = fixed_dt
        self._limit_tick = limit_tick
        self._max_wait = wait
        self.binding: WorldClockBinding | None = None
        self.frame_loop: FrameLoop | None = None
        if human:
            assert fps is not None
            self.binding = WorldClockBinding({}, self.clock) if binding is None else binding
            self.frame_loop = FrameLoop(self.binding, fps, capture=capture)
        self._start_following(self.clock.tick)

    # -- the follower --------------------------------------------------------------------

    def _start_following(self, tick: int, last: int | None = None,
                         taken: int | None = None, episode: int | None = None) -> None:
        """Follow the clock from ``tick``: the last step's due tick is the last multiple of
        the period at or before it, unless given."""
        k = self.period
        aligned = (tick // k) * k
        self._last = aligned if last is None else last
        self._taken = aligned if taken is None else taken
        self._episode = self._last if episode is None else episode
        # From the last due tick taken: steps that fell due after it are still to be taken.
        self._follower = ClockFollower(k, self._taken)
        self._seen = self.clock.discontinuities

    def _take(self) -> None:
        """Take the steps that fell due; refuse a jump of the clock the env did not make."""
        if self.clock.discontinuities != self._seen:
            raise RuntimeError(
                f"the clock jumped (configure, seek_tick or restore) while the env followed "
                f"it at tick {self._last}; restore it with restore_clock_state()")
        # Due ticks are consecutive multiples of the period: n more end n periods further.
        self._taken += self._follower.take(self.clock) * self.period

    def _bring(self, due: int) -> None:
        """Make the step due at ``due`` fall due: run the clock there, or wait frames."""
        if self.frame_loop is None:
            behind = due - self.clock.tick
            if behind > 0:
                self.clock.advance_ticks(behind)
            self._take()
            return
        self._take()
        if self._taken < due:
            self._wait_frames(due)

    def _wait_frames(self, due: int) -> None:
        """Human mode: present frames until ``due`` has run (or the wait bound is reached)."""
        loop = self.frame_loop
        assert loop is not None

        def on_frame(frame: int, result: StepResult) -> None:
            self._take()
            if self._taken < due:
                self._present()

        loop.run(on_frame, until=lambda: self._taken >= due, max_frames=self._max_wait)
        if self._taken < due:
            raise TimeoutError(
                f"step due at tick {due} did not fall due within max_wait_frames="
                f"{self._max_wait} frames (the clock is at tick {self.clock.tick}, in "
                f"{self.clock.mode.value!r} mode); the env was not stepped")

    def _present(self) -> None:
        """A frame with no step due: the env's picture, at zero world time."""
        with self.clock.presenting():
            self.env.render()

    # -- the Gymnasium API ---------------------------------------------------------------

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Run one step of the env at its follower's next due tick.

        Parameters
        ----------
        action : object
            The env's action.

        Returns
        -------
        tuple
            ``(observation, reward, terminated, truncated, info)``; ``truncated`` is also
            true at the step whose episode tick reaches ``time_limit``, and ``info`` holds
            ``"tick"`` and ``"t"``.

        Raises
        ------
        RuntimeError
            If the clock jumped (``configure``, ``seek_tick``, ``restore``) other than by
            ``restore_clock_state``, or the clock cannot advance here (inside
            ``presenting()`` or a timer callback).
        TimeoutError
            Human mode: past ``max_wait_frames`` frames without the step falling due.
        """
        due = self._last + self.period
        if due > self._taken:
            self._bring(due)
        observation, reward, terminated, truncated, info = self.env.step(action)
        self._last = due
        tick = due - self._episode
        if tick >= self._limit_tick:
            truncated = True
        info["tick"] = tick
        info["t"] = tick * self._fixed_dt
        return observation, reward, terminated, truncated, info

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset the env; the episode starts at the last step's due tick.

        Returns
        -------
        tuple
            ``(observation, info)``, ``info`` holding ``"tick"`` 0 and ``"t"`` 0.0.
        """
        observation, info = self.env.reset(seed=seed, options=options)
        self._episode = self._last
        info["tick"] = 0
        info["t"] = 0.0
        return observation, info

    # -- time ------------------------------------------------------------------------------

    @property
    def tick(self) -> int:
        """The due tick of the env's last step, on the clock (not counted from the episode)."""
        return self._last

    @property
    def episode_start(self) -> int:
        """The clock tick the current episode started at."""
        return self._episode

    def clock_state(self) -> ClockedEnvState:
        """The clock's ``state()`` with where the env's steps and episode are.

        Returns
        -------
        ClockedEnvState
        """
        return ClockedEnvState(self.clock.state(), self._last, self._taken, self._episode)

    def restore_clock_state(self, state: ClockedEnvState) -> None:
        """Put the clock and the env's place on it back as ``state`` holds them.

        The clock is restored with ``clock.restore`` (one discontinuity), and the env follows
        it from the restored tick: its next step falls due where it did after ``state`` was
        taken, and ``info["tick"]`` and the time limit count as they did then.

        Parameters
        ----------
        state : ClockedEnvState
            From ``clock_state()`` of an env with this clock and period.

        Raises
        ------
        TypeError
            If ``state`` is not a ``ClockedEnvState``.
        ValueError
            If it is from a clock of another quantum or an env of another period, or the
            clock refuses it (``WorldClock.restore``); nothing is changed then.
        """
        if not isinstance(state, ClockedEnvState):
            raise TypeError(f"state must be a ClockedEnvState, got {state!r}")
        _check_places(state, self.period)
        if state.clock.config.fixed_dt != self.clock.fixed_dt or state.last_tick % self.period:
            raise ValueError(
                f"state is of a clock with fixed_dt={state.clock.config.fixed_dt!r} and a step "
                f"at tick {state.last_tick}; this env steps every {self.period} quanta of "
                f"fixed_dt={self.clock.fixed_dt!r}")
        self.clock.restore(state.clock)
        self._start_following(state.clock.tick, state.last_tick, state.taken_tick,
                              state.episode_start)


def _own_quantum(step: float, dt: object) -> float:
    """``step`` as the quantum of a clock of the env's own, or an error naming where the step
    came from (``dt=`` or the env's)."""
    if step < _MIN_FIXED_DT:
        name = "dt" if dt is not None else "the env's control step"
        raise ValueError(f"{name} must be at least {_MIN_FIXED_DT!r} s to be the quantum of "
                         f"the env's own clock (pass clock= for a finer one), got {step!r}")
    return step


def _check_places(state: ClockedEnvState, period: int) -> None:
    """Refuse a state whose places could not have come from ``clock_state()``: each an
    integer tick, ``episode_start <= last_tick <= taken_tick <= clock.tick``, the steps'
    due ticks multiples of ``period``."""
    if not isinstance(state.clock, ClockState):
        raise TypeError(f"state.clock must be a ClockState, got {state.clock!r}")
    tick = state.clock.tick
    places = {"episode_start": state.episode_start, "last_tick": state.last_tick,
              "taken_tick": state.taken_tick}
    for name, value in places.items():
        check_count(value, f"state.{name}", maximum=tick)
    if not state.episode_start <= state.last_tick <= state.taken_tick:
        raise ValueError(f"state must have episode_start <= last_tick <= taken_tick <= the "
                         f"clock's tick {tick}, got {places}")
    for name in ("last_tick", "taken_tick"):
        if places[name] % period:
            raise ValueError(f"state.{name} must be a multiple of the env's period "
                             f"({period} quanta), got {places[name]!r}")


def _render_fps(env: gymnasium.Env[Any, Any]) -> float:
    fps = (getattr(env, "metadata", None) or {}).get("render_fps")
    if fps is None:
        raise ValueError(f"{env!r} renders in human mode but has no metadata['render_fps'] "
                         "for its frame loop")
    return check_seconds(fps, "metadata['render_fps']")
