"""The recorder: a run's inputs stamped by tick, its keyframes and state hashes, rollback."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from cvcclock._core import WorldClock
from cvcclock._version import __version__
from cvcclock.checks import check_callable, check_count, check_seed, check_str
from cvcclock.replay._follower import (
    StateHash,
    World,
    _InputLog,
    _Run,
    default_state_hash,
)
from cvcclock.replay._trace import Input, InputTrace, JSONValue, TraceHeader, check_json_value

__all__ = ["Recorder"]


class Recorder(_Run):
    """Records a run: the inputs its user gives, stamped by tick, keyframes and state hashes.

    The host advances the clock however it likes, gives each input when the user gives it
    and calls ``pump()`` after each advance; the world receives each input before its first
    step due after the input's tick, whatever the order of those calls.

    Parameters
    ----------
    world : World
        The recorded world.
    clock : WorldClock
        The clock it follows; the recording starts at its current tick.
    dt : float
        The world's step in seconds, a whole number of quanta.
    seed : int
        The run's seed, written to the trace (``cvcclock.seeding.RandomStreams``): a
        non-negative int of any size.
    keyframe_every : int
        Keep a keyframe every this many world steps (rollback re-simulates from one).
    hash_every : int, optional
        Record the world's state hash every this many steps (1: every step, so a replay
        names the very step that differs).
    state_hash : callable
        ``state_hash(snapshot) -> str``; :func:`default_state_hash` by default.
    metadata : mapping, optional
        A JSON object written to the trace's header.
    on_step : callable, optional
        ``on_step(due_tick)`` after each world step (re-simulated ones too).

    Attributes
    ----------
    follower : InputFollower
        The recorded world's follower.
    seed : int
        The run's seed.
    metadata : dict
        The header's metadata; the host may add to it before calling ``trace()``.

    Raises
    ------
    TypeError, ValueError
        For a bad argument, naming it.
    """

    def __init__(self, world: World, clock: WorldClock, dt: float, *, seed: int = 0,
                 keyframe_every: int = 60, hash_every: int | None = None,
                 state_hash: StateHash = default_state_hash,
                 metadata: Mapping[str, JSONValue] | None = None,
                 on_step: Callable[[int], object] | None = None) -> None:
        self.seed = check_seed(seed)
        self._hash_every = None if hash_every is None else check_count(hash_every,
                                                                       "hash_every", minimum=1)
        check_callable(state_hash, "state_hash")
        if metadata is not None and not isinstance(metadata, Mapping):
            raise TypeError(f"metadata must be a mapping, got {metadata!r}")
        copy = check_json_value(dict(metadata or {}), "metadata")
        assert isinstance(copy, dict)   # a dict's copy is a dict
        self.metadata: dict[str, JSONValue] = copy
        super().__init__(clock, _InputLog(clock, clock.tick))
        self._state_hash = state_hash
        self._hashes: dict[int, str] = {}
        self.follower = self.follow(world, dt, keyframe_every=keyframe_every, on_step=on_step)
        self.follower._hooks.append(self._record_hash)

    def give(self, name: str, value: JSONValue = None) -> Input:
        """Record the input ``name`` given now, stamped with the clock's tick.

        Parameters
        ----------
        name : str
            The input's name (``world.apply`` receives it).
        value : JSONValue
            A JSON value; the world receives a copy, exactly as a replay will.

        Returns
        -------
        Input
            The recorded input.

        Raises
        ------
        TypeError, ValueError
            If ``name`` is not a str or ``value`` is not a JSON value (the message names
            the input); nothing is recorded then.
        """
        return self._insert(self._clock.tick, name, value)

    def give_late(self, tick: int, name: str, value: JSONValue = None) -> int:
        """Record an input that was given at a past ``tick`` and arrives only now.

        The input goes in after the inputs already recorded at ``tick``, and every follower
        that has run a step after ``tick`` rolls back to its latest keyframe at or before
        ``tick`` and re-simulates to where it was, applying it: the worlds end as if it had
        arrived on time. The clock is not touched.

        Parameters
        ----------
        tick : int
            The tick the input was given at: from the recording's start to the clock's tick.
        name : str
            The input's name.
        value : JSONValue
            A JSON value.

        Returns
        -------
        int
            The steps re-simulated, over every follower.

        Raises
        ------
        TypeError, ValueError
            For a bad tick, name or value; nothing is recorded then.
        """
        tick = check_count(tick, "tick", minimum=self._log.start_tick,
                           maximum=self._clock.tick)
        self._insert(tick, name, value)
        return sum(f._roll_back(tick) for f in self._log.followers)

    def trace(self) -> InputTrace:
        """The recording so far, up to the clock's current tick, to ``save()``."""
        header = TraceHeader(fixed_dt=self._clock.fixed_dt, dt=self.follower.dt,
                             start_tick=self._log.start_tick, seed=self.seed,
                             cvcclock=__version__, metadata=self.metadata)
        return InputTrace(header, self.inputs, dict(self._hashes), self._clock.tick)

    def _insert(self, tick: int, name: str, value: object) -> Input:
        entry = Input(tick, check_str(name, "name"), check_json_value(value, name))
        self._log.insert(entry)
        return entry

    def _record_hash(self, due: int) -> None:
        if self._hash_every is not None and self.follower.steps % self._hash_every == 0:
            self._hashes[due] = self._state_hash(self.follower.world.snapshot())
