"""The state-tree binding: a host's key/value tree drives the clock and shows its telemetry.

A UI (or a config file, or a remote console) writes control keys in a mapping: ``sim.speed``,
``sim.paused``, ``sim.mode``, ``sim.lockstep_steps``, ``sim.step``. Once per frame,
``WorldClockBinding.drive`` reads them, applies what changed, advances the clock and writes
the telemetry keys ``sim.time``, ``sim.tick``, ``sim.fixed_dt``, ``sim.realized_speed`` and
``sim.dropped`` back. The key table is ``cvcclock.keys.WorldClockKeys``; each lane's behaviour
is one row of ``_CONTROLS`` or ``_TELEMETRY`` below.

Binding a table compiles its enabled lanes once into the per-frame work a drive does when
nothing is asked of it (a plain ``dict`` tree, no control changed, no step queued): one C call
reads the controls that exist (``operator.itemgetter``), one comparison with the values last
seen says nothing changed, and a setter generated from the telemetry lanes stores each value
(``_publisher``). Every other frame takes the general path, lane by lane.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, MutableMapping
from itertools import chain
from operator import attrgetter, itemgetter
from time import perf_counter
from typing import Any, NamedTuple

from cvcclock._core import Mode, StepResult, WorldClock
from cvcclock.checks import (
    MAX_TICK,
    check_bool,
    check_callable,
    check_count,
    check_seconds,
    check_str,
)
from cvcclock.keys import WorldClockKeys

__all__ = ["IgnoredControl", "TreeWriteError", "WorldClockBinding", "WorldClockKeys"]


class IgnoredControl(NamedTuple):
    """A control value the binding ignored: the key, the value, and why.

    Attributes
    ----------
    key : str
        The tree key that held it.
    value : object
        The value as read from the tree.
    reason : str
        Why it could not be applied.
    """

    key: str
    value: object
    reason: str


class TreeWriteError(RuntimeError):
    """The tree refused one or more writes; every other key was written.

    ``drive`` raises it after the frame's work is done (controls applied, clock advanced,
    queued steps run), so the frame's result is not lost: it is ``result``. Binding the keys
    (construction, or assigning ``binding.keys``) raises it with ``result`` None.

    Parameters
    ----------
    result : StepResult or None
        The frame's result, as ``drive`` would have returned it; None outside a frame.
    failures : tuple of (str, Exception)
        Each key the tree refused, with the exception it raised, in the order written.

    Attributes
    ----------
    result : StepResult or None
        As above.
    failures : tuple of (str, Exception)
        As above; the first exception is also the ``__cause__``.
    """

    def __init__(self, result: StepResult | None,
                 failures: tuple[tuple[str, Exception], ...]) -> None:
        keys = ", ".join(repr(key) for key, _ in failures)
        done = "the keys were bound" if result is None else f"the frame ran: {result!r}"
        super().__init__(f"the tree refused writes to {keys} ({failures[0][1]!r}); every "
                         f"other key was written and {done}")
        self.result = result
        self.failures = failures


# _MISSING: the tree has no such key. _UNSEEN: the binding has not looked at the key yet, so
# whatever it holds is its first value and is applied (a key the binding seeds is seen).
_MISSING: Any = object()
_UNSEEN: Any = object()

_MAX_QUANTA = 2.0 ** 52   # the quanta one advance may span (the core's CVC_MAX_QUANTA)
_MODE_NAMES = ", ".join(m.value for m in Mode)
_TRUE = frozenset({"1", "true"})
_FALSE = frozenset({"0", "false"})


# -- reading control values: the binding's lenient spellings, then the shared rules --------


def _read_speed(value: object) -> object:
    """A speed as the clock's ``scale`` setter takes it: a numeric string becomes a float.

    Everything else goes to the setter unchanged, which owns the bounds and the type check;
    its ValueError or TypeError is the reason the control is ignored.
    """
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise ValueError("not a number") from None
    return value


def _read_paused(value: object) -> bool:
    """A word (``"1"``, ``"true"``, ``"0"``, ``"false"``, any case), or by the shared rules a
    bool (``numpy.bool_`` too) or the integer 0 or 1."""
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise ValueError("not a bool; expected true, false, 1 or 0")
    try:
        return check_bool(value, "paused")
    except TypeError:
        if not hasattr(type(value), "__index__"):
            raise
    return check_count(value, "paused", maximum=1) == 1


def _read_mode(value: object) -> Mode:
    if isinstance(value, str):
        try:
            return Mode(value.strip().lower())
        except ValueError:
            pass
    raise ValueError(f"not a mode; expected one of {_MODE_NAMES}")


def _whole(value: object) -> object:
    """A tree's spelling of an integer as an int: ``"3"``, and ``3.0`` (a tree of JSON numbers
    may hold it). Anything else is left as it is, for the shared count rule to judge."""
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _read_step(value: object) -> int:
    # A counter may start anywhere, below zero too; only its increments run steps.
    return check_count(_whole(value), "step", minimum=-MAX_TICK)


def _same(a: object, b: object) -> bool:
    """Whether a control's new value equals its last one (NaN equals NaN here)."""
    try:
        if a == b:
            return True
    except Exception:  # noqa: BLE001 - an odd object's __eq__ must not break a frame
        return False
    return (isinstance(a, float) and isinstance(b, float) and math.isnan(a)
            and math.isnan(b))


def _asked_mode(mode: Mode, paused: bool, speed: float) -> Mode:
    """The pause rule: paused wins over live and lockstep; speed 0 also pauses.

    Stepping and replay are left alone (``seek_tick`` needs replay mode).
    """
    if (paused or speed == 0.0) and (mode is Mode.LIVE or mode is Mode.LOCKSTEP):
        return Mode.PAUSED
    return mode


class WorldClockBinding:
    """Drive a ``WorldClock`` from the control keys of a tree, and publish its telemetry there.

    Parameters
    ----------
    tree : MutableMapping
        The host's state tree, any mutable mapping (a ``dict`` serves). Keys are flat:
        ``"sim.speed"`` is one key.
    clock : WorldClock
        The clock to drive. The binding is its driver: call ``drive`` once per frame.
    keys : str or WorldClockKeys or None
        A prefix (``"sim"``, the default, or ``None``) for ``WorldClockKeys.under(prefix)``,
        or a table of keys. The table is copied; assign ``binding.keys`` to change it.

    Attributes
    ----------
    tree : MutableMapping
        The tree.
    clock : WorldClock
        The clock.
    ignored : int
        How many control values were ignored as unknown or unreadable, once per change.
    last_ignored : IgnoredControl or None
        The last of them: its key, its value and why.

    Raises
    ------
    TypeError
        If ``tree`` is not a mutable mapping, ``clock`` is not a ``WorldClock``, or ``keys``
        (or one of its keys) has the wrong type.
    ValueError
        If two lanes share a key.
    TreeWriteError
        If the tree refuses to be seeded or to take the telemetry.

    Notes
    -----
    The rules a drive applies:

    * Control keys the tree does not hold are seeded (``speed`` from the clock's ``scale``,
      ``paused`` from the paused control, ``mode`` from the clock's mode by name,
      ``lockstep_steps`` from the clock's; ``step`` from 0), at construction and whenever
      one goes missing. A clock paused at construction from live or lockstep seeds ``paused``
      true and ``mode`` the mode it was paused from when the paused lane is on, so setting
      ``paused`` false resumes it as ``clock.resume()`` would; a pause
      that the paused or speed lane asks for is never seeded into the ``mode`` key, nor one
      that speed 0 asks for into the ``paused`` key.
    * Controls are edge-triggered: a control is applied when its key's value changes.
      Seeding counts as a key's first value and applies nothing; a value already in the tree
      when the binding is made is a first value seen, and is applied by the first drive. So a
      change made directly on the clock (``clock.scale = 3``, ``clock.mode = "stepping"``)
      stands until the key changes again.
    * The mode the keys ask for is ``paused`` when ``paused`` is true or ``speed`` is 0 and the
      ``mode`` key says ``live`` or ``lockstep``; otherwise it is the ``mode`` key's mode.
      ``paused`` thus wins over live and lockstep without rewriting the mode key, and leaves
      ``stepping`` and ``replay`` (where ``seek_tick`` needs replay mode) alone. The clock's
      mode is set only when a key change moves the mode the keys ask for.
    * ``speed`` sets the clock's ``scale``; 0 also pauses as above, so a lockstep clock
      stops too and alpha is frozen.
    * Each increment of the ``step`` counter, and each step queued with ``request_steps``,
      runs one quantum after the frame's advance, in any mode. A counter that goes backwards
      resynchronises and runs nothing.
    * An unknown or unreadable control value (a speed of ``"fast"``, -1, NaN or 1e300, a
      mode of ``"warp"``, a paused of ``"maybe"`` or 2, lockstep_steps of 0, 1.5 or 2**61, a
      step increment that would take the tick past 2**62) is ignored, never raised into a
      frame, and counted once per change in ``ignored`` and ``last_ignored``; the control
      keeps its last good value. Strings (``"2.5"``, ``"true"``, ``" 3 "``) and whole floats
      for integer lanes (``3.0``) are read leniently; numbers and bools then go through the
      shared rules of ``cvcclock.checks`` (``numpy`` numbers and bools are taken), and
      ``speed`` and ``lockstep_steps`` through the clock's own setters, so their bounds are
      the clock's and the reason is the setter's message.
    * Telemetry is written at construction and after every drive.
    * A tree that raises is handled as ``drive`` says: a failed read changes nothing, a
      failed write loses no work.
    """

    __slots__ = ("_applied_mode", "_clock", "_control_keys", "_controls", "_counter", "_dict",
                 "_get", "_interrupted", "_keys", "_missing", "_mode_ctl", "_mode_moves",
                 "_paused_ctl", "_pending", "_publish", "_published", "_read_now", "_seen",
                 "_seen_now", "_speed_ctl", "_telemetry_keys", "_telemetry_values", "_tree",
                 "_wall_mark", "ignored", "last_ignored")

    def __init__(self, tree: MutableMapping[str, Any], clock: WorldClock,
                 keys: str | WorldClockKeys | None = "sim") -> None:
        if not isinstance(tree, MutableMapping):
            raise TypeError(f"tree must be a mutable mapping, got {tree!r}")
        if not isinstance(clock, WorldClock):
            raise TypeError(f"clock must be a cvcclock.WorldClock, got {clock!r}")
        table = WorldClockKeys.resolve(keys)
        self._tree = tree
        # A plain dict cannot raise on a str key's read or write, so its frames may take the
        # compiled path; any other mapping goes lane by lane, catching what it raises.
        self._dict = type(tree) is dict
        self._get: Callable[[str, Any], Any] = tree.get
        self._clock = clock
        self._pending = 0
        self._interrupted = 0   # queued steps a raising timer callback left the clock owing
        self._wall_mark: float | None = None
        self._mode_moves: list[Mode] | None = None   # a frame's mode moves, held back
        self.ignored = 0
        self.last_ignored: IgnoredControl | None = None
        self._published: dict[str, Callable[[], object]] = {}
        # What the keys ask for; the clock's own values until a key says otherwise. A clock
        # paused from live or lockstep asks for that mode and paused when there is a paused
        # lane, so the paused lane carries the pause and clearing it resumes the clock as
        # clock.resume() would.
        resume_to = clock.state().resume_mode if clock.mode is Mode.PAUSED else clock.mode
        carried = clock.mode is Mode.PAUSED and bool(table.paused) \
            and resume_to in (Mode.LIVE, Mode.LOCKSTEP)
        self._speed_ctl = clock.scale
        self._paused_ctl = carried
        self._mode_ctl = resume_to if carried else clock.mode
        self._applied_mode = clock.mode
        self._bind(table)

    # -- keys ------------------------------------------------------------------------------

    @property
    def tree(self) -> MutableMapping[str, Any]:
        """The tree the binding reads and writes."""
        return self._tree

    @property
    def clock(self) -> WorldClock:
        """The clock the binding drives."""
        return self._clock

    @property
    def keys(self) -> WorldClockKeys:
        """A copy of the key table in use; assign a table or a prefix to rebind.

        Rebinding seeds the new control keys the tree lacks, treats the values it holds as
        first values (applied by the next drive), and publishes the telemetry. A tree that
        raises on a read leaves the old table in use; one that refuses a write raises
        ``TreeWriteError`` with the new table in use (the next drive seeds the keys again).
        """
        return dataclasses.replace(self._keys)

    @keys.setter
    def keys(self, keys: str | WorldClockKeys | None) -> None:
        self._bind(WorldClockKeys.resolve(keys))

    def _bind(self, table: WorldClockKeys) -> None:
        # Precomputed once per table, so a drive loops over the enabled lanes only.
        controls = tuple((key, lane) for lane in _CONTROLS if (key := getattr(table, lane.name)))
        held = [self._get(key, _MISSING) for key, _ in controls]   # a raise changes nothing
        self._keys = table
        self._controls = controls
        self._control_keys = tuple(key for key, _ in controls)
        self._missing = (_MISSING,) * len(controls)
        self._bind_telemetry()
        self._read_now = _reader(self._control_keys)
        self._seen: list[Any] = [_UNSEEN] * len(controls)
        self._seen_now: tuple[Any, ...] = ()
        self._counter: int | None = None
        try:
            self._write([self._seed(i) for i, value in enumerate(held) if value is _MISSING],
                        None)
        finally:
            self._saw()

    def _bind_telemetry(self) -> None:
        telemetry = [(key, attribute) for name, attribute in _TELEMETRY
                     if (key := getattr(self._keys, name))]
        self._telemetry_keys = tuple(key for key, _ in telemetry) + tuple(self._published)
        self._telemetry_values = _values_of(attribute for _, attribute in telemetry)
        self._publish = _publisher(telemetry)
        if self._published:
            self._telemetry_values = _with_published(self._telemetry_values,
                                                     tuple(self._published.values()))
            self._publish = _publishing(self._publish, tuple(self._published.items()))

    def publish(self, key: str, read: Callable[[], object]) -> None:
        """Publish one more telemetry key: every ``drive`` writes ``read()`` to ``key``.

        For a follower with telemetry of its own beside the clock's (a Scenic run publishes
        ``sim.scenic.step`` this way). The next ``drive`` and every one after write it, after
        the clock's keys, in the order published; publishing a key again replaces its
        ``read``. Controls and seeds are untouched, and the drive itself is unchanged: the
        key joins the telemetry the binding precomputes for its table (and stays published
        when the table is rebound).

        Parameters
        ----------
        key : str
            A non-empty tree key that no lane of the table uses.
        read : callable
            ``read()`` returns the value; it runs on the driving thread and must not raise
            (what it raises propagates from ``drive``, after the frame's work).

        Raises
        ------
        TypeError
            If ``key`` is not a str or ``read`` is not callable.
        ValueError
            If ``key`` is empty or is one of the table's keys.
        """
        if not check_str(key, "key"):
            raise ValueError("key must be a non-empty tree key")
        check_callable(read, "read")
        table = self._keys
        lanes = [name for name in table.CONTROLS + table.TELEMETRY
                 if getattr(table, name) == key]
        if lanes:
            raise ValueError(f"key {key!r} is the {lanes[0]} lane's key")
        self._published[key] = read
        self._bind_telemetry()

    def unpublish(self, key: str) -> None:
        """Stop publishing ``key`` (``publish``'s); the tree keeps its last value.

        Raises
        ------
        KeyError
            If ``key`` is not published.
        """
        del self._published[key]
        self._bind_telemetry()

    # -- the frame -------------------------------------------------------------------------

    @property
    def queued_steps(self) -> int:
        """Single steps the next ``drive`` runs (``request_steps`` and ``step`` increments not
        yet run, and those a raising timer callback interrupted, which run first)."""
        return self._interrupted + self._pending

    def request_steps(self, n: int) -> None:
        """Queue ``n`` single steps; the next ``drive`` runs them after its advance, in any mode.

        The same as ``n`` increments of the ``step`` key.

        Parameters
        ----------
        n : int
            Quanta to run; a non-negative integer (any ``__index__`` type, not a bool).

        Raises
        ------
        TypeError
            If ``n`` is not an integer.
        ValueError
            If ``n`` is negative or the steps queued would take the tick past 2**62.
        """
        count = check_count(n, "n")
        if count > MAX_TICK - self._clock.tick - self._pending:
            raise ValueError(f"n would take the tick past MAX_TICK ({MAX_TICK}), got {n!r}")
        self._pending += count

    def drive(self, wall_dt: float | None = None) -> StepResult:
        """Run one frame: read the controls, apply them, advance, run the single steps, publish.

        The frame's phases, in order: read every control key from the tree; apply the
        changed controls to the clock; advance the clock and run the queued single steps;
        write the seeds of missing control keys and the telemetry.

        Parameters
        ----------
        wall_dt : float or None
            Wall seconds since the last frame; finite and non-negative. ``None`` measures
            them with ``time.perf_counter`` since the last drive that measured; the first
            measured drive, and one after a drive given a ``wall_dt``, counts 0 (so the time
            spent before a loop starts is not banked as a stall).

        Returns
        -------
        StepResult
            The whole frame: ``steps`` is the advance's quanta plus the single steps run,
            ``first_tick`` the tick before the frame, ``dropped`` the advance's dropped
            quanta, ``alpha`` the clock's alpha after.

        Raises
        ------
        TypeError, ValueError
            If ``wall_dt`` is bad; nothing is read, applied or run. ValueError too if the
            advance, at the scale and mode the frame's controls ask for, would span more
            than 2**52 quanta or take the tick past ``MAX_TICK``; nothing is applied or run
            then either. Control values never raise: see the class notes.
        RuntimeError
            If the clock cannot advance here (inside ``presenting()`` on this thread, or in
            a timer callback); nothing is read, applied or run.
        Exception
            Whatever the tree raises while the controls are read (its ``get``, and so its
            ``__getitem__`` or ``__contains__``). Every control is read before anything is
            changed, so then nothing is: the clock, the controls applied, the queued steps
            and the measured wall time are as they were, and driving again runs the frame.
        TreeWriteError
            If the tree refuses a write (its ``__setitem__``, on a telemetry key or a seed).
            Writes come after the frame's work, so the frame stands: every other key is
            written, the error's ``result`` is the frame's ``StepResult``, and a key left
            unwritten is written again by the next drive. Do not drive again to redo it.
        """
        # The compiled frame: a dict tree whose controls all hold what was last seen, and no
        # single step queued. Its result and its effects are the general path's, in fewer
        # calls: the same reads, the advance, every telemetry key written.
        if self._dict and not (self._pending or self._interrupted):
            try:
                unchanged = self._read_now(self._tree) == self._seen_now
            except Exception:  # noqa: BLE001 - a key gone missing, an odd __eq__: in general
                unchanged = False
            if unchanged:
                mark = self._wall_mark
                now: float | None
                if wall_dt is None:
                    now = measured = perf_counter()
                    wall = 0.0 if mark is None else measured - mark
                elif type(wall_dt) is float and 0.0 <= wall_dt <= 1e300:
                    now, wall = None, wall_dt
                else:   # _frame_time's own test: anything else it checks, and may refuse
                    return self._drive_lane_by_lane(wall_dt)
                clock = self._clock
                self._wall_mark = now     # as the general path does, before the advance
                try:
                    result = clock.advance(wall)
                except RuntimeError:
                    if clock.can_advance:   # a timer callback's own error: the frame ran
                        raise
                    # Inside presenting() or a callback the advance refused, changing
                    # nothing: the general path refuses with the drive's own message.
                    self._wall_mark = mark
                    return self._drive_lane_by_lane(wall_dt)
                except ValueError:
                    # Refused as too wide or past MAX_TICK, the advance changed nothing, and
                    # nor does the frame; any other ValueError is a timer callback's.
                    if not self._refuses(wall, clock.mode):
                        raise
                    self._wall_mark = mark
                    self._check_advance(wall, clock.mode)   # the general path's message
                    raise
                self._publish(clock, self._tree)
                return result
        return self._drive_lane_by_lane(wall_dt)

    def _drive_lane_by_lane(self, wall_dt: float | None) -> StepResult:
        """The general frame: every phase, each control and telemetry lane on its own."""
        if not self._clock.can_advance:
            raise RuntimeError("drive() cannot advance the clock inside presenting() or a "
                               "timer callback; nothing was applied")
        wall_dt, mark = self._frame_time(wall_dt)
        changed = self._read_controls()
        if changed:
            seeds = self._apply_atomically(changed, wall_dt)
        elif self._pending or self._interrupted:   # steps would run before a refusal
            self._check_advance(wall_dt, self._clock.mode)
            seeds = []
        else:   # the advance alone, which refuses before it changes anything
            return self._quiet_frame(wall_dt, mark)
        self._wall_mark = mark
        result = self._run_frame(wall_dt)
        self._write(seeds, result)
        return result

    def _quiet_frame(self, wall_dt: float, mark: float | None) -> StepResult:
        """A frame with no control changed and no step queued: advance, publish. A refused
        advance keeps the last wall mark, and raises as ``_check_advance`` says."""
        clock = self._clock
        last, self._wall_mark = self._wall_mark, mark
        try:
            result = clock.advance(wall_dt)
        except ValueError:
            if not self._refuses(wall_dt, clock.mode):
                raise   # a timer callback's own error: the frame ran
            self._wall_mark = last
            self._check_advance(wall_dt, clock.mode)
            raise
        self._write((), result)
        return result

    def _apply_atomically(self, changed: list[tuple[int, Any]],
                          wall_dt: float) -> list[tuple[str, object]]:
        """Apply the changed controls, unless the advance they lead to would be refused.

        The mode moves are held back until the advance at the controls' scale and mode is
        known to be granted (``_check_advance``); if it is not, every control the frame
        applied is undone (the clock's ``scale`` and ``lockstep_steps`` are plain stores, and
        the binding's own record is put back), so a refused frame changes nothing.
        """
        clock = self._clock
        undo = (self._speed_ctl, self._paused_ctl, self._mode_ctl, self._applied_mode,
                list(self._seen), self._counter, self._pending, self.ignored,
                self.last_ignored, clock.scale, clock.lockstep_steps)
        self._mode_moves = []
        try:
            seeds = self._apply_controls(changed)
            moves = self._mode_moves
            self._check_advance(wall_dt, moves[-1] if moves else clock.mode)
        except BaseException:
            (self._speed_ctl, self._paused_ctl, self._mode_ctl, self._applied_mode,
             self._seen, self._counter, self._pending, self.ignored, self.last_ignored,
             scale, steps) = undo
            clock.scale, clock.lockstep_steps = scale, steps
            raise
        finally:
            self._mode_moves = None
            self._saw()
        for mode in moves:   # each move the lanes made, in order, as they asked for it
            clock.mode = mode
        return seeds

    def _refuses(self, wall_dt: float, mode: Mode) -> bool:
        """Whether ``_check_advance`` refuses this advance."""
        try:
            self._check_advance(wall_dt, mode)
        except ValueError:
            return True
        return False

    def _check_advance(self, wall_dt: float, mode: Mode) -> None:
        """Refuse, as the clock's ``advance`` would, a frame whose advance in ``mode`` at the
        clock's scale cannot be granted: wider than 2**52 quanta, or running quanta past
        ``MAX_TICK``. The frame's controls are checked, not only the clock as it is, so a
        frame the advance would refuse is refused before anything is applied."""
        clock = self._clock
        room = MAX_TICK - clock.tick - clock.owed
        if mode is Mode.LIVE:
            scale, fixed_dt = clock.scale, clock.fixed_dt
            quanta = wall_dt * scale / fixed_dt    # the clock's own quotient (cvc_quanta)
            if quanta > _MAX_QUANTA:
                raise ValueError(f"wall_dt={wall_dt!r} at scale {scale!r} spans more than "
                                 f"2**52 quanta of {fixed_dt!r} s; nothing was applied")
            # The stall guard's cap is at most max_steps * 1e6 (scale <= 1e6): far from
            # MAX_TICK no advance reaches it, and near it the quanta this one banks are counted.
            if room >= clock.max_steps_per_advance * 1_000_000:
                return
            most = _live_most(clock, quanta)
        elif mode is Mode.LOCKSTEP:
            most = clock.lockstep_steps
        else:
            return
        if most > room:
            raise ValueError(f"wall_dt={wall_dt!r}: the advance of {most} quanta in "
                             f"{mode.value} mode would take the tick past MAX_TICK "
                             f"({MAX_TICK}) (tick {clock.tick}); nothing was applied")

    def _saw(self) -> None:
        """Keep what the compiled frame compares the controls with: the values last seen,
        shaped as ``_read_now`` returns them."""
        seen = self._seen
        self._seen_now = (seen[0], seen[0]) if len(seen) == 1 else tuple(seen)

    def _frame_time(self, wall_dt: float | None) -> tuple[float, float | None]:
        """The frame's wall seconds, and the wall mark to keep once the frame goes ahead."""
        if wall_dt is None:
            now = perf_counter()
            mark = self._wall_mark
            return (0.0 if mark is None else now - mark), now
        if type(wall_dt) is not float or not 0.0 <= wall_dt <= 1e300:
            wall_dt = check_seconds(wall_dt, "wall_dt")
        return wall_dt, None

    def _read_controls(self) -> list[tuple[int, Any]]:
        """``(lane index, value)`` for each control whose value is not the one last seen.

        Reads the tree and nothing else, so a tree that raises here leaves all as it was.
        """
        values = list(map(self._get, self._control_keys, self._missing))
        seen = self._seen
        try:
            # Most frames change nothing, and the list comparison, in C, tests identity
            # first; an equal value is no change either (as _same says). An odd __eq__
            # that raises is left to the per-lane test.
            if values == seen:
                return []
        except Exception:  # noqa: BLE001, S110 - the per-lane test below decides
            pass
        return [(i, value) for i, (value, last) in enumerate(zip(values, seen, strict=True))
                if value is not last]

    def _apply_controls(self, changed: list[tuple[int, Any]]) -> list[tuple[str, object]]:
        """Apply the changed controls in lane order; the seeds for keys gone missing.

        Touches the clock and the binding, never the tree. A value that cannot be applied is
        ignored and counted, never raised.
        """
        seen = self._seen
        seeds = []
        for i, value in changed:
            if value is _MISSING:
                seeds.append(self._seed(i))
                continue
            last = seen[i]
            seen[i] = value
            if last is not _UNSEEN and _same(value, last):
                continue
            key, lane = self._controls[i]
            try:
                lane.apply(self, lane.read(value))
            except Exception as exc:  # noqa: BLE001 - a control value never breaks a frame
                # The reason is the message of whoever refused it: the reader, the shared
                # checks, or the clock's own setter (each naming the field and the value).
                self._ignore(key, value, str(exc))
        return seeds

    def _seed(self, index: int) -> tuple[str, object]:
        """The lane's key and seed, to write. The seed is what the binding has seen there even
        if the write fails: the key, still missing, is seeded again by the next drive."""
        key, lane = self._controls[index]
        value = self._seen[index] = lane.seed(self)
        return key, value

    def _run_frame(self, wall_dt: float) -> StepResult:
        """Run the steps an earlier frame's raising timer interrupted, advance the clock,
        then run the queued single steps."""
        clock = self._clock
        if not (self._pending or self._interrupted):    # most frames: the advance alone
            return clock.advance(wall_dt)
        first = clock.tick
        self._run_steps(min(self._interrupted, clock.owed))
        self._interrupted = 0
        result = clock.advance(wall_dt)
        n, self._pending = self._pending, 0
        if n > MAX_TICK - clock.tick:   # the advance left them no room: never raise
            self._ignore(self._keys.step or "", n, "the queued steps would take the tick "
                                                   f"past MAX_TICK ({MAX_TICK})")
            n = 0
        self._run_steps(n)
        if clock.tick - first == result.steps:   # the advance was the whole frame
            return result
        return StepResult(clock.tick - first, first, result.dropped, clock.alpha)

    def _run_steps(self, n: int) -> None:
        """Run ``n`` single steps in any mode. If a timer callback raises, the clock owes the
        steps it did not run and the next drive runs them first (a paused or stepping
        clock's advance would not), so none is lost or run twice."""
        if not n:
            return
        before = self._clock.tick
        try:
            self._clock.advance_ticks(n)
        except BaseException:
            self._interrupted = n - (self._clock.tick - before)
            raise

    def _write(self, seeds: Iterable[tuple[str, object]], result: StepResult | None) -> None:
        """Write the seeds, then the telemetry: every key the tree takes, whatever it refuses.

        Raises TreeWriteError, carrying ``result``, if it refused any.
        """
        tree = self._tree
        if self._dict and not seeds:
            self._publish(self._clock, tree)   # a plain dict refuses no str key
            return
        writes: Iterable[tuple[str, object]] = zip(self._telemetry_keys,
                                                   self._telemetry_values(self._clock),
                                                   strict=True)
        if seeds:
            writes = chain(seeds, writes)
        failures: list[tuple[str, Exception]] = []
        for key, value in writes:
            try:
                tree[key] = value
            except Exception as exc:  # noqa: BLE001 - reported below, after the rest
                failures.append((key, exc))
        if failures:
            raise TreeWriteError(result, tuple(failures)) from failures[0][1]

    def _ignore(self, key: str, value: object, reason: str) -> None:
        self.ignored += 1
        self.last_ignored = IgnoredControl(key, value, reason)

    # -- the lanes: how each control is applied and seeded (the table is _CONTROLS) ---------

    def _apply_speed(self, value: Any) -> None:
        self._clock.scale = value   # the clock's setter checks it; what it stored is the control
        self._speed_ctl = self._clock.scale
        self._follow_controls()

    def _seed_speed(self) -> object:
        self._speed_ctl = self._clock.scale
        return self._speed_ctl

    def _apply_paused(self, value: bool) -> None:
        self._paused_ctl = value
        self._follow_controls()

    def _seed_paused(self) -> object:
        # From the control, not the clock: a pause that speed 0 asks for is not a paused
        # control, and reseeding it as one would keep the clock paused once speed returns.
        return self._paused_ctl

    def _apply_mode(self, value: Mode) -> None:
        self._mode_ctl = value
        self._follow_controls()

    def _seed_mode(self) -> object:
        # While the clock is in the mode the keys asked for, the mode control is the seed (a
        # pause the paused or speed lane asks for is theirs to lift); a mode set directly on
        # the clock since is taken over.
        mode = self._clock.mode
        if mode is not self._applied_mode:
            self._mode_ctl = mode
        return self._mode_ctl.value

    def _apply_lockstep_steps(self, value: Any) -> None:
        self._clock.lockstep_steps = value   # the clock's setter checks it

    def _seed_lockstep_steps(self) -> object:
        return self._clock.lockstep_steps

    def _apply_step(self, counter: int) -> None:
        last = self._counter
        if last is not None and counter > last:
            if counter - last > MAX_TICK - self._clock.tick - self._pending:
                raise ValueError("an increment that would take the tick past MAX_TICK "
                                 f"({MAX_TICK})")
            self._pending += counter - last
        # The first value, or one that went backwards: resynchronise, run nothing.
        self._counter = counter

    def _seed_step(self) -> object:
        self._counter = 0
        return 0

    def _follow_controls(self) -> None:
        """Set the clock's mode to the one the controls ask for, if that moved."""
        mode = _asked_mode(self._mode_ctl, self._paused_ctl, self._speed_ctl)
        # Only a move in what the keys ask for touches the clock, so a mode set directly on
        # the clock stands through changes that leave it the same.
        if mode is not self._applied_mode:
            self._applied_mode = mode
            if self._mode_moves is None:
                self._clock.mode = mode
            else:   # held back until the frame's advance is known to be granted
                self._mode_moves.append(mode)

    def __repr__(self) -> str:
        return (f"WorldClockBinding(keys={self._keys!r}, tick={self._clock.tick}, "
                f"ignored={self.ignored})")


class _Control(NamedTuple):
    """One control lane: its key attribute, and how the binding reads, applies and seeds it."""

    name: str
    read: Callable[[object], Any]                     # tree value -> control; raise to ignore
    apply: Callable[[WorldClockBinding, Any], None]   # raise to ignore
    seed: Callable[[WorldClockBinding], object]       # a missing key's value (and control)


#: The control lanes, in ``WorldClockKeys.CONTROLS`` order (the order a drive applies them).
_CONTROLS = (
    _Control("speed", _read_speed, WorldClockBinding._apply_speed,
             WorldClockBinding._seed_speed),
    _Control("paused", _read_paused, WorldClockBinding._apply_paused,
             WorldClockBinding._seed_paused),
    _Control("mode", _read_mode, WorldClockBinding._apply_mode, WorldClockBinding._seed_mode),
    _Control("lockstep_steps", _whole, WorldClockBinding._apply_lockstep_steps,
             WorldClockBinding._seed_lockstep_steps),
    _Control("step", _read_step, WorldClockBinding._apply_step, WorldClockBinding._seed_step),
)

#: The telemetry lanes and the clock attribute each publishes, in ``WorldClockKeys.TELEMETRY``
#: order.
_TELEMETRY = (
    ("time", "t"),
    ("tick", "tick"),
    ("fixed_dt", "fixed_dt"),
    ("realized_speed", "realized_scale"),
    ("dropped", "total_dropped"),
)


def _live_most(clock: WorldClock, quanta: float) -> int:
    """The most quanta a live advance spanning ``quanta`` runs: the whole quanta of the bank
    plus them (as banking.h's common path snaps and floors them below 2**16 quanta; one more
    above, where its exact path may round up), at most the stall guard's cap."""
    cap = clock.max_steps_per_advance
    if clock.config.cap_scales_with_rate and clock.scale > 1.0:
        cap = min(cap * math.ceil(clock.scale), int(_MAX_QUANTA))
    if quanta >= 65536.0:
        return min(math.floor(clock.state().bank + quanta) + 1, cap)
    banked = clock.state().bank + quanta
    whole = int(banked + 0.5)
    if abs(banked - whole) <= 1e-9:   # CVC_BANK_SNAP
        banked = float(whole)
    return min(int(banked), cap)


def _reader(keys: tuple[str, ...]) -> Callable[[MutableMapping[str, Any]], tuple[Any, ...]]:
    """A function reading the control ``keys`` of a dict into a tuple, in one C call; it raises
    KeyError for a key the dict lacks. One key is read twice, so the result is a tuple still
    (``itemgetter`` of one key returns the value itself) and compares as a list of one would:
    identity first, then ``==``."""
    if not keys:
        return lambda tree: ()
    return itemgetter(*keys) if len(keys) > 1 else itemgetter(keys[0], keys[0])


def _publisher(telemetry: Iterable[tuple[str, str]]
               ) -> Callable[[WorldClock, MutableMapping[str, Any]], None]:
    """A setter, generated once per key table, writing each telemetry lane's clock attribute
    to its key: ``tree[k0] = clock.t`` and so on, one store each (a ``dict.update`` of pairs
    costs several times as much). The keys are the setter's closure, never its source text;
    the attribute names come from ``_TELEMETRY``."""
    lanes = tuple(telemetry)
    attributes = [attribute for _, attribute in lanes]
    assert all(a.isidentifier() for a in attributes)   # the table's own names
    keys = [f"k{i}" for i in range(len(lanes))]
    body = "".join(f"        tree[{k}] = clock.{a}\n" for k, a in zip(keys, attributes,
                                                                        strict=True))
    source = (f"def make({', '.join(keys)}):\n"
              "    def publish(clock, tree):\n"
              f"{body or '        pass'}\n"
              "    return publish\n")
    namespace: dict[str, Any] = {}
    exec(source, namespace)   # noqa: S102 - built from the lane table and indices alone
    publish: Callable[[WorldClock, MutableMapping[str, Any]], None] = namespace["make"](
        *(key for key, _ in lanes))
    return publish


def _values_of(attributes: Iterable[str]) -> Callable[[WorldClock], tuple[object, ...]]:
    """A function reading the clock's ``attributes`` into a tuple, in one C call."""
    names = tuple(attributes)
    if not names:
        return lambda clock: ()
    if len(names) == 1:   # attrgetter of one name returns the value, not a 1-tuple
        one = attrgetter(names[0])
        return lambda clock: (one(clock),)
    return attrgetter(*names)


def _with_published(values: Callable[[WorldClock], tuple[object, ...]],
                    reads: tuple[Callable[[], object], ...]
                    ) -> Callable[[WorldClock], tuple[object, ...]]:
    """``values`` followed by each published key's ``read()``."""
    return lambda clock: (*values(clock), *(read() for read in reads))


def _publishing(publish: Callable[[WorldClock, MutableMapping[str, Any]], None],
                reads: tuple[tuple[str, Callable[[], object]], ...]
                ) -> Callable[[WorldClock, MutableMapping[str, Any]], None]:
    """``publish`` (the generated setter), then each published key's ``read()``."""
    def publish_all(clock: WorldClock, tree: MutableMapping[str, Any]) -> None:
        publish(clock, tree)
        for key, read in reads:
            tree[key] = read()
    return publish_all
