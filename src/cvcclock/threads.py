"""SimThread: a follower of the clock that steps its world on its own thread.

The driver advances the clock on its thread; the SimThread's worker wakes when the tick moves
(``WorldClock.wait_for_tick_change``, GIL released), runs each step that fell due, in order,
and publishes ``(due_tick, snapshot)`` after each one. A capture calls ``wait_caught_up``
after driving and before ``read``, so every frame shows exactly the steps its quanta hold.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from time import perf_counter
from types import TracebackType
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from cvcclock._core import ClockFollower, Mode, WorldClock

__all__ = ["SimThread", "SimWorld"]

S = TypeVar("S")
S_co = TypeVar("S_co", covariant=True)

# The longest the worker blocks without looking at its stop flag. The clock's
# wait_for_tick_change has no external wake-up, so close() is prompt to within this.
_POLL = 0.02


@runtime_checkable
class SimWorld(Protocol[S_co]):
    """What a ``SimThread`` steps: anything with ``step(dt)`` and ``snapshot()``.

    ``step(dt)`` advances the world by one step of ``dt`` seconds; it runs on the worker
    thread only. ``snapshot()`` returns the state to publish after a step; it is called on
    the worker thread after each step and once, on the constructing thread, for the initial
    state. Return an immutable value (a tuple, a frozen dataclass, bytes): the reader holds
    it while the worker keeps stepping. A ``(step, snapshot)`` pair of callables serves too.
    """

    def step(self, dt: float, /) -> object:
        """Advance the world by one step of ``dt`` seconds."""

    def snapshot(self) -> S_co:
        """The state to publish after a step (immutable: it crosses threads)."""


def _world_callables(world: object) -> tuple[Callable[[float], object], Callable[[], Any]]:
    """The world's ``(step, snapshot)`` callables, from a ``SimWorld`` or a pair."""
    if isinstance(world, tuple) and len(world) == 2 and all(map(callable, world)):
        return world[0], world[1]
    step = getattr(world, "step", None)
    snapshot = getattr(world, "snapshot", None)
    if callable(step) and callable(snapshot):
        return step, snapshot
    raise TypeError(
        f"world must have step(dt) and snapshot() methods, or be a (step, snapshot) pair of "
        f"callables, got {world!r}")


class SimThread(Generic[S]):
    """A world stepped on its own thread, once per step that falls due on the clock.

    Parameters
    ----------
    world : SimWorld or tuple of (callable, callable)
        Has ``step(dt)`` and ``snapshot()`` (see ``SimWorld``), or is a ``(step, snapshot)``
        pair of callables.
    clock : WorldClock
        The clock to follow.
    dt : float
        The world's step in seconds: a whole number ``k`` of the clock's quanta
        (``ticks_per_step``), fixed at construction. Steps fall due at multiples of ``k``.
    drive_clock : bool
        False (default): another thread (a frame loop, a binding's ``drive``) advances the
        clock and the worker follows it. True: nothing else drives the clock, so the worker
        is its one driver, advancing it by the ``perf_counter`` time elapsed and sleeping
        until the next quantum is due; no other thread may then advance the clock.

    Raises
    ------
    TypeError
        If ``world`` has no ``step`` and ``snapshot``, or ``clock`` is not a ``WorldClock``.
    ValueError
        If ``dt`` is not a whole number of quanta.

    Notes
    -----
    The worker starts at once and owes nothing for the past: the first step falls due at the
    first multiple of ``k`` after the clock's tick at construction. Like a ``ClockFollower``
    it runs nothing for quanta a ``configure`` or ``seek_tick`` jumped over, and resumes from
    the clock's tick after the discontinuity.

    An exception raised by ``world.step`` or ``world.snapshot`` stops the worker; every later
    ``read`` and ``wait_caught_up`` raises that same exception object, its traceback reset
    each time to the worker's frames (the caller's frames are added above them). ``close``
    never raises.

    The worker takes the GIL only to step and publish; while it waits for the clock it holds
    nothing. ``read`` takes no lock at all.
    """

    def __init__(self, world: SimWorld[S] | tuple[Callable[[float], object], Callable[[], S]],
                 clock: WorldClock, dt: float, *, drive_clock: bool = False) -> None:
        if not isinstance(clock, WorldClock):
            raise TypeError(f"clock must be a WorldClock, got {clock!r}")
        self._step, self._snapshot = _world_callables(world)
        self._clock = clock
        self._dt = dt
        self._follower = ClockFollower.for_step(clock, dt)   # validates dt
        self._k: int = self._follower.period
        self._drive = bool(drive_clock)
        self._cond = threading.Condition(threading.Lock())
        self._stop = threading.Event()
        self._closed = False
        self._error: BaseException | None = None
        self._error_tb: TracebackType | None = None
        # The latest published pair; replaced whole, so read() needs no lock.
        self._latest: tuple[int, S] = (clock.tick, self._snapshot())
        # The worker's progress, replaced whole under _cond: the clock's discontinuity count
        # and the tick up to which every due step has run and been published, and whether a
        # take() may be in flight (False only between recording progress and the next take).
        self._progress: tuple[int, int, bool] = (clock.discontinuities, clock.tick, False)
        self._thread = threading.Thread(target=self._work, name=f"SimThread(dt={dt!r})",
                                        daemon=True)
        self._thread.start()

    # -- the caller's side -------------------------------------------------------------------

    @property
    def clock(self) -> WorldClock:
        """The clock followed."""
        return self._clock

    @property
    def dt(self) -> float:
        """The world's step in seconds."""
        return self._dt

    @property
    def period(self) -> int:
        """``k``: quanta per step; steps fall due at ticks that are multiples of it."""
        return self._k

    def read(self) -> tuple[int, S]:
        """The latest published ``(tick, snapshot)``; never blocks.

        ``tick`` is the tick at which that step fell due (a multiple of ``period``). Before
        the first step: the clock's tick at construction and the world's initial snapshot.

        Raises
        ------
        BaseException
            The worker's error, if ``world.step`` or ``world.snapshot`` raised.
        """
        if self._error is not None:
            self._raise_error()
        return self._latest

    def wait_caught_up(self, timeout: float | None = None) -> bool:
        """Block until every step due at the clock's current tick has run and been published.

        The target is the clock's tick (and discontinuity count) when the call is made; a
        capture calls this after driving the clock and before ``read``.

        Parameters
        ----------
        timeout : float or None
            Seconds to wait at most; None waits for ever.

        Returns
        -------
        bool
            True if caught up; False on timeout, or if the SimThread is (or gets) closed
            before catching up.

        Raises
        ------
        BaseException
            The worker's error, if ``world.step`` or ``world.snapshot`` raised (before or
            while waiting).
        """
        target = (self._clock.discontinuities, self._clock.tick)
        epoch, done_tick, _ = self._progress
        if (self._error is None and epoch == target[0]
                and done_tick // self._k >= target[1] // self._k):
            return True   # the fast path, without the lock
        with self._cond:
            self._cond.wait_for(
                lambda: self._error is not None or self._closed or self._caught_up(target),
                timeout)
            caught_up = self._error is None and self._caught_up(target)
        if self._error is not None:
            self._raise_error()
        return caught_up

    def close(self, timeout: float | None = None) -> None:
        """Stop the worker and wait for it to end; never raises. Idempotent.

        A worker waiting on the clock stops within a few tens of milliseconds; one inside
        ``world.step`` stops when that step returns. Callers blocked in ``wait_caught_up``
        return False at once.

        Parameters
        ----------
        timeout : float or None
            Seconds to wait for the worker at most; None waits until it ends.
        """
        self._stop.set()
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        # close() from inside world.step (the worker itself) must not join its own thread.
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def __enter__(self) -> SimThread[S]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "failed" if self._error else "running"
        return f"<SimThread dt={self._dt!r} k={self._k} tick={self._latest[0]} {state}>"

    def _caught_up(self, target: tuple[int, int]) -> bool:
        """Whether ``_progress`` covers the target (epoch, tick); call holding ``_cond``, or
        without it for a fast first look (``_progress`` is replaced whole)."""
        epoch, done_tick, in_flight = self._progress
        target_epoch, target_tick = target
        if epoch == target_epoch:
            # Every multiple of k up to target_tick is at most done_tick.
            return done_tick // self._k >= target_tick // self._k
        if epoch > target_epoch:
            return True   # the clock moved on past the target's epoch: nothing is owed in it
        if not in_flight:
            # The worker is between batches and has not seen the discontinuity: resynchronise
            # here, at once, rather than after its next poll. Holding _cond with no take in
            # flight excludes the worker's take. While the driver waits here the tick cannot
            # move, so the resync tick is the tick after the discontinuity, as it would be
            # for a direct-stepping driver calling take() right after configure or seek.
            self._follower.take(self._clock)
            self._progress = (self._clock.discontinuities, self._follower.last_tick, False)
            return self._caught_up(target)
        return False

    def _raise_error(self) -> None:
        assert self._error is not None
        raise self._error.with_traceback(self._error_tb)

    # -- the worker's side -------------------------------------------------------------------

    def _work(self) -> None:
        clock = self._clock
        last_wall = perf_counter()
        try:
            while not self._stop.is_set():
                if self._drive:
                    now = perf_counter()
                    clock.advance(now - last_wall)
                    last_wall = now
                seen = self._run_due_steps()
                if seen is None:
                    continue   # a discontinuity raced the take: take again at once
                if self._drive:
                    self._stop.wait(self._until_next_quantum())
                else:
                    clock.wait_for_tick_change(seen, _POLL)
        except BaseException as exc:   # noqa: BLE001 - errors never vanish: kept and re-raised
            with self._cond:
                self._error, self._error_tb = exc, exc.__traceback__
                self._cond.notify_all()

    def _run_due_steps(self) -> int | None:
        """Take the due steps, run and publish each, and record the progress.

        Returns the tick taken up to, or None if the clock's discontinuity count changed
        around the take (then the progress is not recorded, and the caller takes again).

        The invariant: ``_progress`` says (epoch, t) only once every step due at or before
        tick t in that epoch has run and been published. ``take()`` reads the clock's tick
        and count itself, in one call holding the GIL, and leaves the tick it used in
        ``follower.last_tick``; so that tick, not a separate read of ``clock.tick`` (which the
        driver may have moved since), is what is recorded. The epoch read before the take is
        the one take used if it is unchanged after the take, since the count only grows.
        """
        clock, follower, k = self._clock, self._follower, self._k
        with self._cond:
            self._progress = self._progress[:2] + (True,)
        epoch = clock.discontinuities
        n = follower.take(clock)
        tick = follower.last_tick
        if clock.discontinuities != epoch:
            return None
        due = (tick // k - n) * k
        for _ in range(n):
            if self._stop.is_set():
                return tick   # closing: the rest is never run, and nobody waits for it
            due += k
            self._step(self._dt)
            self._latest = (due, self._snapshot())
        with self._cond:
            self._progress = (epoch, tick, False)
            self._cond.notify_all()
        return tick

    def _until_next_quantum(self) -> float:
        """Seconds the self-driving worker sleeps before advancing the clock again."""
        clock = self._clock
        wait = clock.fixed_dt
        if clock.mode is Mode.LIVE and clock.scale > 0.0:
            wait *= (1.0 - clock.alpha) / clock.scale
        return min(wait, _POLL)
