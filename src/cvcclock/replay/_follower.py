"""The input follower: steps a world at its due steps, applying the stamped inputs before each.

An :class:`InputFollower` owns its step loop: each time the host calls ``pump()`` it takes
the steps that fell due (``ClockFollower.take_due``) and, before each step due at tick
``d``, applies every input stamped before ``d`` that it has not yet applied. It keeps a
keyframe (the world's snapshot and ``clock.state()``) every N steps, for seeks and
rollbacks. :class:`~cvcclock.replay.Recorder` and :class:`~cvcclock.replay.Replayer` build
on it (``_Run``).
"""

from __future__ import annotations

import bisect
import dataclasses
import hashlib
import io
import pickle
from collections.abc import Callable, Iterable
from typing import Any, Protocol, runtime_checkable

from cvcclock._core import ClockFollower, ClockState, WorldClock
from cvcclock.checks import check_callable, check_count
from cvcclock.replay._trace import Input

__all__ = ["InputFollower", "Keyframe", "StateHash", "World", "default_state_hash"]

StateHash = Callable[[Any], str]
"""``state_hash(snapshot) -> str``: the hash of a world's snapshot."""


@runtime_checkable
class World(Protocol):
    """What an :class:`InputFollower` steps.

    ``snapshot()`` returns a value that later steps do not change (a tuple, a frozen
    dataclass, bytes): keyframes keep it. ``restore(snapshot)`` puts the world back exactly
    and must not keep a reference to the snapshot that it later mutates. A world that draws
    random numbers includes its generators' state in the snapshot
    (``cvcclock.seeding.RandomStreams.state()``).
    """

    def step(self, dt: float, /) -> object:
        """Advance the world by one step of ``dt`` seconds."""

    def apply(self, name: str, value: Any, /) -> object:
        """Apply the input ``name`` with its (JSON) ``value``."""

    def snapshot(self) -> Any:
        """The world's whole state, as a value later steps do not change."""

    def restore(self, snapshot: Any, /) -> object:
        """Put the world back to ``snapshot``."""


def default_state_hash(snapshot: object) -> str:
    """The default state hash: blake2b (16 bytes, hex) of the snapshot's pickle.

    The pickle is protocol 4 without its memo (``Pickler.fast``): with the memo, the bytes
    would depend on which equal objects are one object (a name interned in the recording,
    two copies read from the trace), and equal states would hash apart.

    Parameters
    ----------
    snapshot : object
        A world's snapshot, without cycles (tuples, lists, dicts, numbers, str, bytes and
        numpy arrays hash the same in every process and on every platform; sets do not).

    Returns
    -------
    str
        32 hex digits.
    """
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=4)
    pickler.fast = True
    pickler.dump(snapshot)
    return hashlib.blake2b(buffer.getvalue(), digest_size=16).hexdigest()


@dataclasses.dataclass(frozen=True)
class Keyframe:
    """A world's state after one of its steps, with the clock's state at that moment.

    Attributes
    ----------
    tick : int
        The due tick of the world's last step (or the tick it started at).
    steps : int
        The world's steps by then.
    snapshot : object
        ``world.snapshot()``.
    clock : ClockState
        ``clock.state()`` when the keyframe was taken (its tick is at or after ``tick``).
    """

    tick: int
    steps: int
    snapshot: Any = dataclasses.field(repr=False)
    clock: ClockState = dataclasses.field(repr=False)


class _InputLog:
    """The stamped inputs of one run, in tick order, and the followers that apply them."""

    def __init__(self, clock: WorldClock, start_tick: int, inputs: Iterable[Input] = (),
                 end_tick: int | None = None) -> None:
        self.clock = clock
        self.start_tick = start_tick
        self.inputs: list[Input] = list(inputs)
        self.followers: list[InputFollower] = []
        # A replay's followers step no further than the recording did; a recording has no end.
        self.end_tick = end_tick

    def insert(self, entry: Input) -> None:
        """Insert after every input at or before its tick (the order they were given in)."""
        bisect.insort_right(self.inputs, entry, key=_tick_of)

    def first_at(self, tick: int) -> int:
        """The index of the first input stamped at ``tick`` or later."""
        return bisect.bisect_left(self.inputs, tick, key=_tick_of)


def _tick_of(entry: Input) -> int:
    return entry.tick


class InputFollower:
    """A world that follows the clock and applies its run's inputs before the right steps.

    Made by :class:`Recorder` and :class:`Replayer` (their ``follower`` and ``follow()``).
    ``pump()`` runs the steps that fell due since the last pump; before the step due at tick
    ``d`` it applies, in order, every input stamped before ``d`` (and at or after the
    follower's start) not yet applied. A replay's followers run no step due after the
    trace's ``end_tick``: the clock may run on, the worlds stop where the recording did.

    Attributes
    ----------
    world : World
        The world it steps.
    dt : float
        The world's step in seconds.
    period : int
        The step in quanta.
    """

    def __init__(self, world: World, log: _InputLog, dt: float, keyframe_every: int,
                 on_step: Callable[[int], object] | None) -> None:
        if not isinstance(world, World):
            raise TypeError(f"world must have step(dt), apply(name, value), snapshot() and "
                            f"restore(snapshot) methods, got {world!r}")
        keyframe_every = check_count(keyframe_every, "keyframe_every", minimum=1)
        check_callable(on_step, "on_step", optional=True)
        clock = log.clock
        self._follower = ClockFollower.for_step(clock, dt)
        self.world = world
        self.dt = float(dt)
        self.period = self._follower.period
        self._clock = clock
        self._log = log
        self._keyframe_every = keyframe_every
        self._hooks: list[Callable[[int], object]] = [] if on_step is None else [on_step]
        self._seen = clock.discontinuities
        self._tick = self._due = clock.tick
        self._steps = 0
        self._next = log.first_at(clock.tick)
        self._keyframes: dict[int, Keyframe] = {}
        self._keyframe_ticks: list[int] = []
        self._keep_keyframe()
        log.followers.append(self)

    @property
    def tick(self) -> int:
        """The tick the world has been stepped to: its last step's due tick, or its start."""
        return self._tick

    @property
    def steps(self) -> int:
        """The steps the world has run (re-simulated steps count once)."""
        return self._steps

    @property
    def keyframes(self) -> tuple[Keyframe, ...]:
        """The keyframes kept, in tick order; the first is the start.

        They are kept for the whole run (a rollback forgets those after its tick): memory
        grows as the run's steps over ``keyframe_every``, each a snapshot and a clock state.
        """
        return tuple(self._keyframes[t] for t in self._keyframe_ticks)

    def pump(self) -> int:
        """Run the steps that fell due on the clock since the last pump.

        Returns
        -------
        int
            The steps run (none due after a replayed trace's ``end_tick``).

        Raises
        ------
        RuntimeError
            If the clock jumped (``configure``, ``seek_tick`` or ``restore``) other than
            through its recorder or replayer: the world cannot follow a jump it did not make.
        Exception
            Whatever the world's ``step`` or ``apply`` raises; the steps still due stay
            due, and the next pump runs them.
        """
        if self._clock.discontinuities != self._seen:
            raise RuntimeError(
                f"the clock jumped (configure, seek_tick or restore) while {self.world!r} "
                f"followed it at tick {self._tick}; seek through the Replayer instead")
        due = self._follower.take_due(self._clock)
        if due:
            self._due = due[-1]
        return self._run_to(self._due)

    # -- the step loop -----------------------------------------------------------------

    @property
    def _finished(self) -> bool:
        """Whether the world has run its last step due at or before a replay's end."""
        end = self._log.end_tick
        return end is not None and self._next_due > end

    @property
    def _next_due(self) -> int:
        return (self._tick // self.period + 1) * self.period

    def _run_to(self, tick: int) -> int:
        """Run every step due after ``self.tick`` up to ``tick`` (and a replay's end); return
        how many."""
        if self._log.end_tick is not None:
            tick = min(tick, self._log.end_tick)
        ran = 0
        while (due := (self._tick // self.period + 1) * self.period) <= tick:
            self._step(due)
            ran += 1
        return ran

    def _step(self, due: int) -> None:
        """Apply the inputs stamped before ``due``, then run the step due at ``due``."""
        inputs = self._log.inputs
        while self._next < len(inputs) and inputs[self._next].tick < due:
            entry = inputs[self._next]
            self.world.apply(entry.name, entry.value)
            self._next += 1
        self.world.step(self.dt)
        self._tick = due
        self._steps += 1
        if self._steps % self._keyframe_every == 0:
            self._keep_keyframe()
        for hook in self._hooks:
            hook(due)

    # -- keyframes ---------------------------------------------------------------------

    def _keep_keyframe(self) -> None:
        if self._tick not in self._keyframes:
            bisect.insort(self._keyframe_ticks, self._tick)
        self._keyframes[self._tick] = Keyframe(self._tick, self._steps, self.world.snapshot(),
                                               self._clock.state())

    def _keyframe_at_or_before(self, tick: int) -> Keyframe:
        """The latest keyframe at or before ``tick`` (the start, at the earliest)."""
        i = bisect.bisect_right(self._keyframe_ticks, tick)
        return self._keyframes[self._keyframe_ticks[max(i - 1, 0)]]

    def _clock_state_at_or_before(self, tick: int) -> ClockState:
        """The latest clock state at or before ``tick`` kept in a keyframe (the start's, at
        the earliest). A keyframe taken in a batch holds the clock at the batch's end, after
        the keyframe's own tick: such states are passed over."""
        for i in range(bisect.bisect_right(self._keyframe_ticks, tick) - 1, 0, -1):
            state = self._keyframes[self._keyframe_ticks[i]].clock
            if state.tick <= tick:
                return state
        return self._keyframes[self._keyframe_ticks[0]].clock

    def _restore(self, keyframe: Keyframe) -> None:
        """Put the world back to ``keyframe``; forget the keyframes after it."""
        self.world.restore(keyframe.snapshot)
        self._tick = keyframe.tick
        self._steps = keyframe.steps
        self._next = self._log.first_at(keyframe.tick)
        i = bisect.bisect_right(self._keyframe_ticks, keyframe.tick)
        for later in self._keyframe_ticks[i:]:
            del self._keyframes[later]
        del self._keyframe_ticks[i:]

    def _roll_back(self, tick: int) -> int:
        """Re-simulate from before ``tick`` to where the world was; return the steps run."""
        if self._tick <= tick:   # no step after the input has run: nothing to undo
            return 0
        now = self._tick
        self._restore(self._keyframe_at_or_before(tick))
        return self._run_to(now)

    def _resync(self, tick: int) -> None:
        """After the clock was restored: step to ``tick`` from the latest keyframe before it
        when the world is past it, and follow the clock from there."""
        if self._tick > tick:
            self._restore(self._keyframe_at_or_before(tick))
        self._follower = ClockFollower(self.period, self._tick)
        self._due = self._tick
        self._seen = self._clock.discontinuities

    def __repr__(self) -> str:
        return (f"InputFollower({self.world!r}, dt={self.dt!r}, tick={self._tick}, "
                f"steps={self._steps})")


class _Run:
    """What a recording and a replay share: the clock, the inputs, the followers."""

    def __init__(self, clock: WorldClock, log: _InputLog) -> None:
        self._clock = clock
        self._log = log

    @property
    def inputs(self) -> tuple[Input, ...]:
        """The run's inputs, in tick order."""
        return tuple(self._log.inputs)

    @property
    def followers(self) -> tuple[InputFollower, ...]:
        """Every follower of the run's inputs: ``follower`` first, then each ``follow()``."""
        return tuple(self._log.followers)

    def follow(self, world: World, dt: float, *, keyframe_every: int = 60,
               on_step: Callable[[int], object] | None = None) -> InputFollower:
        """Add a world stepping every ``dt`` seconds that applies the same inputs.

        It starts at the clock's current tick and applies the inputs stamped from then on,
        each before its own first step due after the input's tick; ``pump()`` pumps it
        with the others. A seek or a rollback moves it too.

        Parameters
        ----------
        world : World
            The world to step.
        dt : float
            Its step in seconds, a whole number of quanta.
        keyframe_every : int
            Keep a keyframe every this many of its steps.
        on_step : callable, optional
            ``on_step(due_tick)`` after each of its steps (re-simulated ones too).

        Returns
        -------
        InputFollower
        """
        return InputFollower(world, self._log, dt, keyframe_every, on_step)

    def pump(self) -> int:
        """Pump every follower, in the order they were made; return the steps run."""
        return sum(f.pump() for f in self._log.followers)


