"""The replayer: a trace played back, its state hashes checked, seeks from keyframes."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Literal

from cvcclock._core import Mode, WorldClock
from cvcclock.checks import check_bool, check_callable, check_count, check_seconds
from cvcclock.replay._follower import (
    StateHash,
    World,
    _InputLog,
    _Run,
    default_state_hash,
)
from cvcclock.replay._trace import InputTrace

__all__ = ["Divergence", "DivergenceError", "Replayer"]


@dataclasses.dataclass(frozen=True)
class Divergence:
    """A replayed state hash that differs from the recorded one, after the step due at
    ``tick``."""

    tick: int
    recorded: str
    replayed: str


class DivergenceError(Exception):
    """A replay's state differs from the recording's.

    Attributes
    ----------
    divergence : Divergence
        The first differing step's tick and both hashes.
    """

    def __init__(self, divergence: Divergence) -> None:
        super().__init__(f"the replay diverged from the recording at tick {divergence.tick}: "
                         f"recorded state hash {divergence.recorded}, replayed "
                         f"{divergence.replayed}")
        self.divergence = divergence


@dataclasses.dataclass(frozen=True)
class _Transport:
    """The clock's settings a user controls while a replay plays: kept through a seek."""

    scale: float
    lockstep_steps: int
    max_steps_per_advance: int
    mode: Mode
    resume_mode: Mode

    @classmethod
    def of(cls, clock: WorldClock) -> _Transport:
        state = clock.state()
        return cls(clock.scale, clock.lockstep_steps, clock.max_steps_per_advance,
                   clock.mode, state.resume_mode)

    def put_back(self, clock: WorldClock) -> None:
        clock.scale = self.scale
        clock.lockstep_steps = self.lockstep_steps
        clock.max_steps_per_advance = self.max_steps_per_advance
        if self.mode is Mode.PAUSED:   # paused from resume_mode, so resume() goes back there
            clock.mode = self.resume_mode
        clock.mode = self.mode


class Replayer(_Run):
    """Plays a recorded trace back, checking its state hashes, and seeks.

    Drive the clock under any pacing (live at any speed, lockstep, ``advance_ticks``
    batches, single steps, uneven frames) and call ``pump()`` after each advance: the world
    receives the recorded inputs at the recorded steps and runs the recording's steps, and
    none after them. The clock may run past the trace's ``end_tick`` (a batch of 37 quanta
    rarely lands on it); the worlds stop at their last step due at or before it, so each
    ends in the recording's end state, and ``done`` turns true.

    Parameters
    ----------
    world : World
        A world in the state the recorded one started in.
    clock : WorldClock
        The replay's clock, at the trace's start tick, with the recording's ``fixed_dt``.
    trace : InputTrace
        The recording.
    dt : float, optional
        The world's step in seconds; the trace's when omitted.
    keyframe_every : int
        Keep a keyframe every this many world steps (a seek re-simulates from one).
    state_hash : callable
        The recording's ``state_hash(snapshot) -> str``; :func:`default_state_hash` by
        default.
    on_divergence : {"raise", "collect"}
        On a state hash that differs: raise :class:`DivergenceError`, or collect it in
        ``divergences`` and go on.
    on_step : callable, optional
        ``on_step(due_tick)`` after each world step (re-simulated ones too).

    Attributes
    ----------
    trace : InputTrace
        The recording.
    follower : InputFollower
        The replayed world's follower.
    divergences : list of Divergence
        The differing hashes found, by tick, each once.

    Raises
    ------
    ValueError
        If the clock's ``fixed_dt`` or ``dt`` differs from the recording's (naming both), or
        the clock is not at the trace's start tick.
    TypeError
        For an argument of the wrong type.
    """

    def __init__(self, world: World, clock: WorldClock, trace: InputTrace, *,
                 dt: float | None = None, keyframe_every: int = 60,
                 state_hash: StateHash = default_state_hash,
                 on_divergence: Literal["raise", "collect"] = "raise",
                 on_step: Callable[[int], object] | None = None) -> None:
        if not isinstance(trace, InputTrace):
            raise TypeError(f"trace must be an InputTrace, got {trace!r}")
        dt = trace.header.dt if dt is None else check_seconds(dt, "dt")
        trace.header.check_fits(clock, dt)
        if clock.tick != trace.header.start_tick:
            raise ValueError(f"the trace starts at tick {trace.header.start_tick}; the clock "
                             f"is at tick {clock.tick}")
        check_callable(state_hash, "state_hash")
        if on_divergence not in ("raise", "collect"):
            raise ValueError(f"on_divergence must be 'raise' or 'collect', got "
                             f"{on_divergence!r}")
        super().__init__(clock, _InputLog(clock, trace.header.start_tick, trace.inputs,
                                          trace.end_tick))
        self.trace = trace
        self._state_hash = state_hash
        self._raise = on_divergence == "raise"
        self.divergences: list[Divergence] = []
        self._checked: set[int] = set()
        self.follower = self.follow(world, dt, keyframe_every=keyframe_every, on_step=on_step)
        self.follower._hooks.append(self._check_hash)

    @property
    def checked(self) -> frozenset[int]:
        """The ticks whose recorded state hash has been compared (re-simulated ones once)."""
        return frozenset(self._checked)

    @property
    def done(self) -> bool:
        """Whether the replay has reached the end of the recording: the clock is at or past
        the trace's ``end_tick`` and every follower has run its last step due at or before
        it. ``pump()`` steps no world further, however far the clock runs on."""
        return self._clock.tick >= self.trace.end_tick and all(
            f._finished for f in self._log.followers)

    def seek(self, tick: int, *, keep_transport: bool = True) -> int:
        """Put the world and the clock's tick at ``tick`` exactly, as a straight run would.

        Backwards, each world's latest keyframe at or before ``tick`` is restored, and the
        clock's latest keyframe state (one discontinuity on the clock); from there the clock
        runs to ``tick`` one world step at a time (``advance_ticks``: its timers fire as in a
        straight run) and the worlds re-simulate with the recorded inputs. Forwards, the same
        from where they are. Timer callbacks of the ticks re-simulated run again.

        The user's transport is kept by default: the clock's ``scale``,
        ``lockstep_steps``, ``max_steps_per_advance``, its mode and the mode a paused clock
        resumes to are what they were before the call, whatever the keyframe held, so play
        goes on from ``tick`` as the user set it (a seek at 3x plays on at 3x). Everything
        else of the clock (the bank, alpha, the frame and dropped counts, the realized-speed
        window, the timers) is the keyframe's, run forward to ``tick``.

        Parameters
        ----------
        tick : int
            The tick to seek to, at or after the trace's start. Past the trace's
            ``end_tick`` the clock goes there and the worlds stop at the end, as ``pump()``
            leaves them.
        keep_transport : bool
            True (the default): keep the transport as above; the clock may be in any mode.
            False: the clock's whole state is the keyframe's, run forward, and its mode
            replay; the clock must be in replay mode.

        Returns
        -------
        int
            The world steps run, over every follower.

        Raises
        ------
        ValueError
            If ``tick`` is before the trace's start, or with ``keep_transport=False`` the
            clock is not in replay mode, or the clock's timers differ from a keyframe's;
            nothing is changed then.
        TypeError
            If ``tick`` is not an integer or ``keep_transport`` not a bool.
        RuntimeError
            Inside ``presenting()`` or a timer callback, where the clock cannot advance;
            nothing is changed then.
        DivergenceError
            As ``pump()``.
        """
        target = check_count(tick, "tick", minimum=self.trace.header.start_tick)
        keep = check_bool(keep_transport, "keep_transport")
        clock = self._clock
        if not keep and clock.mode != Mode.REPLAY:
            raise ValueError(f"seek(tick={tick!r}, keep_transport=False) needs replay mode; "
                             f"the clock is in {clock.mode.value!r} mode")
        if not clock.can_advance:
            raise RuntimeError(f"seek(tick={tick!r}) cannot run the clock inside presenting() "
                               "or a timer callback; nothing was changed")
        if target < clock.tick:
            transport = _Transport.of(clock) if keep else None
            self._restore_clock(target)
            if transport is not None:
                transport.put_back(clock)
        ran = self.pump()   # steps already due run before the clock moves
        period = self.follower.period
        end = self.trace.end_tick
        while clock.tick < target:
            # To the world's next step in one call (the clock may be behind its keyframe),
            # then a step at a time, so new keyframes hold the clock at their own tick; past
            # the end no world steps, so the clock goes to the target in one call.
            nxt = (self.follower.tick // period + 1) * period
            nxt = max(nxt, clock.tick + 1) if nxt <= end else target
            clock.advance_ticks(min(nxt, target) - clock.tick)
            ran += self.pump()
        return ran

    def _restore_clock(self, target: int) -> None:
        """Restore the latest clock state at or before ``target`` in replay mode; resync
        every follower."""
        self._clock.restore(self.follower._clock_state_at_or_before(target))
        self._clock.mode = Mode.REPLAY
        for follower in self._log.followers:
            follower._resync(target)

    def _check_hash(self, due: int) -> None:
        recorded = self.trace.hashes.get(due)
        if recorded is None:
            return
        self._checked.add(due)
        replayed = self._state_hash(self.follower.world.snapshot())
        if replayed == recorded:
            return
        divergence = Divergence(due, recorded, replayed)
        if divergence not in self.divergences:
            self.divergences.append(divergence)
            self.divergences.sort(key=lambda d: d.tick)
        if self._raise:
            raise DivergenceError(divergence)
