"""SimThread: a follower of the clock that steps its world on its own thread.

The driver advances the clock on its thread; the SimThread's worker wakes when the tick moves
(``WorldClock.wait_for_tick_change``, GIL released), runs each step that fell due, in order,
and publishes ``(due_tick, snapshot)`` after each one. A capture calls ``wait_caught_up``
after driving and before ``read``, so every frame shows exactly the steps its quanta hold,
and before ``configure`` or ``seek_tick``, so the steps due before a discontinuity have run.
"""

from __future__ import annotations

import threading
import warnings
import weakref
from collections.abc import Callable
from time import perf_counter
from types import TracebackType
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from cvcclock._core import ClockFollower, Mode, WorldClock
from cvcclock.checks import check_bool, check_timeout

__all__ = ["SimThread", "SimWorld"]

S = TypeVar("S")
S_co = TypeVar("S_co", covariant=True)

# The longest the worker blocks without looking at its stop flag. The clock's
# wait_for_tick_change has no external wake-up, so close() is prompt to within this.
_POLL = 0.02

# How much of a world's repr a warning quotes.
_REPR_LIMIT = 200


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


def _describe(world: object) -> str:
    """The world's repr for messages, taken while it is idle; never raises."""
    try:
        text = repr(world)
    except Exception:  # noqa: BLE001 - a broken repr must not break a constructor
        text = object.__repr__(world)
    return text if len(text) <= _REPR_LIMIT else text[:_REPR_LIMIT - 3] + "..."


def _covers(progress: tuple[int, int, bool], target: tuple[int, int], k: int) -> bool:
    """Whether the worker's ``progress`` covers ``target``; pure, so safe without a lock.

    ``progress`` is ``(epoch, done_tick, in_flight)``, ``target`` is ``(epoch, tick)``. In the
    same epoch, every multiple of ``k`` up to the target tick must be at most ``done_tick``;
    a later epoch owes nothing in the target's. An earlier epoch is not covered here.
    """
    epoch, done_tick, _ = progress
    target_epoch, target_tick = target
    if epoch == target_epoch:
        return done_tick // k >= target_tick // k
    return epoch > target_epoch


class _Worker(Generic[S]):
    """What the worker thread needs, and all it holds: never the ``SimThread`` itself.

    So a dropped ``SimThread`` is collected, and its ``weakref.finalize`` stops the worker.

    Who touches what (the core's rule, src/_core/threads.pxi): the worker thread alone steps
    the world, takes the follower (but for the one take ``caught_up`` makes holding ``cond``
    while none is in flight) and writes ``latest``; any thread reads ``latest``,
    ``progress`` and ``error``, each an attribute replaced whole by one store, so a reader
    never sees half of one, with the GIL or without it. ``progress``, ``error`` and
    ``closed`` change only under ``cond``; ``stop`` is an Event, safe from any thread.
    """

    def __init__(self, step: Callable[[float], object], snapshot: Callable[[], S],
                 clock: WorldClock, follower: ClockFollower, dt: float, drive: bool) -> None:
        self.step, self.snapshot = step, snapshot
        self.clock, self.follower, self.k = clock, follower, follower.period
        self.dt, self.drive = dt, drive
        self.cond = threading.Condition(threading.Lock())
        self.stop = threading.Event()
        self.closed = False
        self.error: BaseException | None = None
        self.error_tb: TracebackType | None = None
        # The latest published pair; replaced whole, so read() needs no lock.
        self.latest: tuple[int, S] = (clock.tick, snapshot())
        # The worker's progress, replaced whole under cond: the clock's discontinuity count
        # and the tick up to which every due step has run and been published, and whether a
        # take() may be in flight (False only between recording progress and the next take).
        self.progress: tuple[int, int, bool] = (clock.discontinuities, clock.tick, False)

    def caught_up(self, target: tuple[int, int]) -> bool:
        """Whether the progress covers the target (epoch, tick). Call holding ``cond`` only:
        it may resynchronise the follower, which must not race the worker's take."""
        if _covers(self.progress, target, self.k):
            return True
        epoch, _, in_flight = self.progress
        if epoch < target[0] and not in_flight:
            # The worker is between batches and has not seen the discontinuity: resynchronise
            # here, at once, rather than after its next poll. Holding cond with no take in
            # flight excludes the worker's take. While the driver waits here the tick cannot
            # move, so the resync tick is the tick after the discontinuity, as it would be
            # for a direct-stepping driver calling take() right after configure or seek.
            self.follower.take(self.clock)
            self.progress = (self.clock.discontinuities, self.follower.last_tick, False)
            return _covers(self.progress, target, self.k)
        return False

    def _work(self) -> None:
        clock = self.clock
        last_wall = perf_counter()
        try:
            while not self.stop.is_set():
                if self.drive:
                    now = perf_counter()
                    clock.advance(now - last_wall)
                    last_wall = now
                seen = self._run_due_steps()
                if seen is None:
                    continue   # a discontinuity raced the take: take again at once
                if self.drive:
                    self.stop.wait(self._until_next_quantum())
                else:
                    clock.wait_for_tick_change(seen, _POLL)
        except BaseException as exc:   # noqa: BLE001 - errors never vanish: kept and re-raised
            with self.cond:
                # The traceback first: read() looks at error without the lock, then at it.
                self.error_tb = exc.__traceback__
                self.error = exc
                self.cond.notify_all()

    def _run_due_steps(self) -> int | None:
        """Take the due steps, run and publish each, and record the progress.

        Returns the tick taken up to, or None if the clock's discontinuity count changed
        around the take (then the progress is not recorded, and the caller takes again).

        The invariant: ``progress`` says (epoch, t) only once every step due at or before
        tick t in that epoch has run and been published. ``take_due()`` reads the clock's
        tick and count itself as one pair (holding the GIL, or without it the clock's
        critical section, which configure, seek and restore hold too), and leaves the tick it
        used in ``follower.last_tick``; so that tick, not a separate read of ``clock.tick``
        (which the driver may have moved since), is what is recorded. The epoch read before
        the take is the one the take used if it is unchanged after the take, since the count
        only grows.
        """
        clock, follower = self.clock, self.follower
        with self.cond:
            self.progress = self.progress[:2] + (True,)
        epoch = clock.discontinuities
        due = follower.take_due(clock)
        tick = follower.last_tick
        if clock.discontinuities != epoch:
            return None
        for due_tick in due:
            if self.stop.is_set():
                return tick   # closing: the rest is never run, and nobody waits for it
            self.step(self.dt)
            self.latest = (due_tick, self.snapshot())
        with self.cond:
            self.progress = (epoch, tick, False)
            self.cond.notify_all()
        return tick

    def _until_next_quantum(self) -> float:
        """Seconds the self-driving worker sleeps before advancing the clock again."""
        clock = self.clock
        wait = clock.fixed_dt
        if clock.mode is Mode.LIVE and clock.scale > 0.0:
            wait *= (1.0 - clock.alpha) / clock.scale
        return min(wait, _POLL)


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
        until the next quantum is due; no other thread may then advance the clock. A bool
        (``numpy.bool_`` too).
    stop_timeout : float
        The bound on stopping: the most seconds ``close`` (and leaving ``with``) waits for
        the worker to end, finite, >= 0 and at most ``threading.TIMEOUT_MAX``; 2 s by
        default. See Notes.

    Raises
    ------
    TypeError
        If ``world`` has no ``step`` and ``snapshot``, ``clock`` is not a ``WorldClock``,
        ``drive_clock`` is not a bool, or ``dt`` or ``stop_timeout`` is not a real number.
    ValueError
        If ``dt`` is not a whole number of quanta, or ``stop_timeout`` is out of range.

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
    nothing. ``read`` takes no lock at all. On a free-threaded CPython (3.13t, 3.14t) the GIL
    stays off, and workers step their worlds in parallel with one another and the driver.

    A driver that wants a capture reproducible across a discontinuity calls
    ``wait_caught_up`` before ``configure`` or ``seek_tick``: the steps due before it run
    only if the worker takes them before the jump, which otherwise depends on timing.

    Call ``close`` (or use ``with``) when done. Stopping is bounded: a worker waiting on the
    clock stops within a few tens of milliseconds, one inside ``world.step`` once that step
    returns. If it has not ended within ``stop_timeout`` seconds (a ``world.step`` blocked
    for ever, say), ``close`` gives up waiting: it warns with a ``RuntimeWarning`` that names
    the world and says the worker was left running, and returns. The worker is a daemon
    thread with its stop flag set, so it runs no further step once the blocked one returns,
    and it never keeps the interpreter from exiting.

    A SimThread dropped unclosed stops its worker too, once it is collected: the worker holds
    the world, the clock and its own state but never the SimThread, and a
    ``weakref.finalize`` sets its stop flag. (A world that refers back to its SimThread keeps
    it alive, and the worker running, until closed.)
    """

    def __init__(self, world: SimWorld[S] | tuple[Callable[[float], object], Callable[[], S]],
                 clock: WorldClock, dt: float, *, drive_clock: bool = False,
                 stop_timeout: float = 2.0) -> None:
        if not isinstance(clock, WorldClock):
            raise TypeError(f"clock must be a WorldClock, got {clock!r}")
        step, snapshot = _world_callables(world)
        drive = check_bool(drive_clock, "drive_clock")
        self._stop_timeout = check_timeout(stop_timeout, "stop_timeout", forever=False)
        follower = ClockFollower.for_step(clock, dt)   # validates dt
        self._world = _describe(world)
        self._w: _Worker[S] = _Worker(step, snapshot, clock, follower, dt, drive)
        self._thread = threading.Thread(target=self._w._work, name=f"SimThread(dt={dt!r})",
                                        daemon=True)
        self._thread.start()
        weakref.finalize(self, self._w.stop.set)

    # -- the caller's side -------------------------------------------------------------------

    @property
    def clock(self) -> WorldClock:
        """The clock followed."""
        return self._w.clock

    @property
    def dt(self) -> float:
        """The world's step in seconds."""
        return self._w.dt

    @property
    def stop_timeout(self) -> float:
        """The most seconds ``close`` waits for the worker to end (see the class notes)."""
        return self._stop_timeout

    @property
    def period(self) -> int:
        """``k``: quanta per step; steps fall due at ticks that are multiples of it."""
        return self._w.k

    def read(self) -> tuple[int, S]:
        """The latest published ``(tick, snapshot)``; never blocks.

        ``tick`` is the tick at which that step fell due (a multiple of ``period``). Before
        the first step: the clock's tick at construction and the world's initial snapshot.

        Raises
        ------
        BaseException
            The worker's error, if ``world.step`` or ``world.snapshot`` raised.
        """
        w = self._w
        if w.error is not None:
            self._raise_error()
        return w.latest

    def wait_caught_up(self, timeout: float | None = None) -> bool:
        """Block until every step due at the clock's current tick has run and been published.

        The target is the clock's tick (and discontinuity count) when the call is made. A
        capture calls this after driving the clock and before ``read``; and before
        ``configure`` or ``seek_tick``, so that the steps due before the discontinuity run
        whatever the timing (the worker runs none it had not taken when the clock jumped).

        Parameters
        ----------
        timeout : float or None
            Seconds to wait at most, finite and >= 0; None, or more than
            ``threading.TIMEOUT_MAX``, waits for ever.

        Returns
        -------
        bool
            True if caught up; False on timeout, or if the SimThread is (or gets) closed
            before catching up.

        Raises
        ------
        TypeError
            If ``timeout`` is neither None nor a real number; nothing is waited for.
        ValueError
            If ``timeout`` is NaN, infinite or negative; nothing is waited for.
        BaseException
            The worker's error, if ``world.step`` or ``world.snapshot`` raised (before or
            while waiting).
        """
        seconds = check_timeout(timeout)
        w = self._w
        target = (w.clock.discontinuities, w.clock.tick)
        if w.error is None and _covers(w.progress, target, w.k):
            return True   # the fast path, without the lock: _covers only reads
        with w.cond:
            w.cond.wait_for(lambda: w.error is not None or w.closed or w.caught_up(target),
                            seconds)
            caught_up = w.error is None and w.caught_up(target)
        if w.error is not None:
            self._raise_error()
        return caught_up

    def close(self, timeout: float | None = None) -> None:
        """Stop the worker and wait for it to end, at most ``timeout`` seconds. Idempotent.

        A worker waiting on the clock stops within a few tens of milliseconds; one inside
        ``world.step`` stops when that step returns. Callers blocked in ``wait_caught_up``
        return False at once. The worker's error, if it had one, is not raised here.

        Parameters
        ----------
        timeout : float or None
            Seconds to wait for the worker at most, finite, >= 0 and at most
            ``threading.TIMEOUT_MAX``; None is the SimThread's ``stop_timeout``.

        Warns
        -----
        RuntimeWarning
            If the worker has not ended in time: it is left running as a daemon thread,
            to end once its step returns (see the class notes).

        Raises
        ------
        TypeError
            If ``timeout`` is neither None nor a real number; nothing is stopped.
        ValueError
            If ``timeout`` is NaN, infinite, negative or too large; nothing is stopped.
        """
        seconds = self._stop_timeout if timeout is None else check_timeout(timeout, forever=False)
        self._stop(seconds, stacklevel=3)

    def _stop(self, seconds: float, stacklevel: int) -> None:
        """Set the stop flag, release the waiters, and join the worker for ``seconds``."""
        w = self._w
        w.stop.set()
        with w.cond:
            w.closed = True
            w.cond.notify_all()
        # close() from inside world.step (the worker itself) must not join its own thread.
        if self._thread is threading.current_thread():
            return
        self._thread.join(seconds)
        if self._thread.is_alive():
            warnings.warn(
                f"SimThread: the worker stepping {self._world} did not stop within "
                f"{seconds:g} s (a call such as world.step has not returned); it was left "
                f"running as a daemon thread, which runs no further step and does not keep "
                f"the interpreter from exiting", RuntimeWarning, stacklevel=stacklevel)

    def __enter__(self) -> SimThread[S]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop(self._stop_timeout, stacklevel=3)

    def __repr__(self) -> str:
        w = self._w
        state = "closed" if w.closed else "failed" if w.error else "running"
        return f"<SimThread dt={w.dt!r} k={w.k} tick={w.latest[0]} {state}>"

    def _raise_error(self) -> None:
        w = self._w
        assert w.error is not None
        raise w.error.with_traceback(w.error_tb)

