"""Record, replay, seek and roll back a world that follows the clock.

A world is stepped by an :class:`InputFollower`, which owns its step loop: each time the host
calls ``pump()`` it takes the steps that fell due (``ClockFollower.take_due``) and, before
each step due at tick ``d``, applies every input stamped before ``d`` that it has not yet
applied. An input given while ``clock.tick == T`` is stamped ``T``, so it reaches the world
just before the world's first step due at a tick greater than ``T``: in the recording and in
every replay, under any pacing, and whenever the host gives it or pumps. The host never
applies an input itself, so it cannot apply one at the wrong step.

- :class:`Recorder` records the inputs a user gives (``give``), keeps a keyframe (the
  world's snapshot and ``clock.state()``) every N steps and, optionally, a state hash every K
  steps, and rolls the world back for an input that arrives late (``give_late``: a network
  peer's input stamped in the past). ``trace()`` is the :class:`InputTrace` to save.
- :class:`Replayer` plays a trace back, checking the recorded hashes
  (:class:`DivergenceError` names the first tick whose state differs), and seeks
  (``seek(tick)``, in replay mode) from the nearest keyframe.
- ``follow(world, dt)`` on either adds a follower at another rate that applies the same
  inputs at its own steps.

The default state hash, :func:`default_state_hash`, is blake2b (16 bytes) of the snapshot's
pickle (protocol 4, without the memo, so that equal states hash equal whichever of their
parts are shared objects): it is stable across processes and platforms for snapshots built
of tuples, lists, dicts, numbers, str, bytes and numpy arrays; not for sets (their order
follows the salted ``hash()``) or objects whose pickle is not canonical. Pass ``state_hash``
for anything else.
"""

from __future__ import annotations

import bisect
import dataclasses
import hashlib
import io
import pickle
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, Protocol, runtime_checkable

from cvcclock._core import ClockFollower, ClockState, Mode, WorldClock
from cvcclock._version import __version__
from cvcclock.checks import check_count, check_seconds
from cvcclock.replay_trace import (
    FORMAT_VERSION,
    Input,
    InputTrace,
    JSONValue,
    TraceFormatError,
    TraceHeader,
    check_json_value,
)

__all__ = ["Divergence", "DivergenceError", "FORMAT_VERSION", "Input", "InputFollower",
           "InputTrace", "JSONValue", "Keyframe", "Recorder", "Replayer", "StateHash",
           "TraceFormatError", "TraceHeader", "World", "default_state_hash"]

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


class _InputLog:
    """The stamped inputs of one run, in tick order, and the followers that apply them."""

    def __init__(self, clock: WorldClock, start_tick: int, inputs: Iterable[Input] = ()) -> None:
        self.clock = clock
        self.start_tick = start_tick
        self.inputs: list[Input] = list(inputs)
        self.followers: list[InputFollower] = []

    def insert(self, entry: Input) -> None:
        """Insert after every input at or before its tick (the order they were given in)."""
        bisect.insort_right(self.inputs, entry, key=_tick_of)

    def first_at(self, tick: int) -> int:
        """The index of the first input stamped at ``tick`` or later."""
        return bisect.bisect_left(self.inputs, tick, key=_tick_of)


def _tick_of(entry: Input) -> int:
    return entry.tick


def _check_callable(value: object, name: str) -> None:
    if not callable(value):
        raise TypeError(f"{name} must be callable, got {value!r}")


class InputFollower:
    """A world that follows the clock and applies its run's inputs before the right steps.

    Made by :class:`Recorder` and :class:`Replayer` (their ``follower`` and ``follow()``).
    ``pump()`` runs the steps that fell due since the last pump; before the step due at tick
    ``d`` it applies, in order, every input stamped before ``d`` (and at or after the
    follower's start) not yet applied.

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
        if on_step is not None:
            _check_callable(on_step, "on_step")
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
            The steps run.

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

    def _run_to(self, tick: int) -> int:
        """Run every step due after ``self.tick`` up to ``tick``; return how many."""
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
        The run's seed, written to the trace (``cvcclock.seeding.RandomStreams``).
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
        self.seed = check_count(seed, "seed")
        self._hash_every = None if hash_every is None else check_count(hash_every,
                                                                       "hash_every", minimum=1)
        _check_callable(state_hash, "state_hash")
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
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {name!r}")
        entry = Input(tick, name, check_json_value(value, name))
        self._log.insert(entry)
        return entry

    def _record_hash(self, due: int) -> None:
        if self._hash_every is not None and self.follower.steps % self._hash_every == 0:
            self._hashes[due] = self._state_hash(self.follower.world.snapshot())


class Replayer(_Run):
    """Plays a recorded trace back, checking its state hashes, and seeks.

    Drive the clock under any pacing (live at any speed, lockstep, ``advance_ticks``
    batches, single steps, uneven frames) and call ``pump()`` after each advance: the world
    receives the recorded inputs at the recorded steps and runs the recording's steps.

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
        _check_callable(state_hash, "state_hash")
        if on_divergence not in ("raise", "collect"):
            raise ValueError(f"on_divergence must be 'raise' or 'collect', got "
                             f"{on_divergence!r}")
        super().__init__(clock, _InputLog(clock, trace.header.start_tick, trace.inputs))
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
        """Whether the clock has reached the end of the recording."""
        return self._clock.tick >= self.trace.end_tick

    def seek(self, tick: int) -> int:
        """Put the clock and every follower at ``tick`` exactly, as a straight run would.

        Backwards, the clock's and each world's latest keyframes at or before ``tick`` are
        restored (one discontinuity on the clock); from there the clock runs to ``tick`` one
        world step at a time (``advance_ticks``: its timers fire as in a straight run) and
        the worlds re-simulate with the recorded inputs. Forwards, the same from where they
        are. Timer callbacks of the ticks re-simulated run again.

        Parameters
        ----------
        tick : int
            The tick to seek to, at or after the trace's start (past its end, the worlds run
            on with no inputs).

        Returns
        -------
        int
            The world steps run, over every follower.

        Raises
        ------
        ValueError
            If the clock is not in replay mode, or ``tick`` is before the trace's start, or
            the clock's timers differ from a keyframe's; nothing is changed then.
        DivergenceError
            As ``pump()``.
        """
        target = check_count(tick, "tick", minimum=self.trace.header.start_tick)
        clock = self._clock
        if clock.mode != Mode.REPLAY:
            raise ValueError(f"seek(tick={tick!r}) needs replay mode; the clock is in "
                             f"{clock.mode.value!r} mode")
        if target < clock.tick:
            self._restore_clock(target)
        ran = self.pump()   # steps already due run before the clock moves
        period = self.follower.period
        while clock.tick < target:
            # To the world's next step in one call (the clock may be behind its keyframe),
            # then a step at a time, so new keyframes hold the clock at their own tick.
            nxt = max((self.follower.tick // period + 1) * period, clock.tick + 1)
            clock.advance_ticks(min(nxt, target) - clock.tick)
            ran += self.pump()
        return ran

    def _restore_clock(self, target: int) -> None:
        """Restore the latest clock state at or before ``target``; resync every follower."""
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

