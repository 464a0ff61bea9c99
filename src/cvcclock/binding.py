"""The state-tree binding: a host's key/value tree drives the clock and shows its telemetry.

A UI (or a config file, or a remote console) writes control keys in a mapping: ``sim.speed``,
``sim.paused``, ``sim.mode``, ``sim.lockstep_steps``, ``sim.step``. Once per frame,
``WorldClockBinding.drive`` reads them, applies what changed, advances the clock and writes
the telemetry keys ``sim.time``, ``sim.tick``, ``sim.fixed_dt``, ``sim.realized_speed`` and
``sim.dropped`` back. Keys are flat mapping keys: ``"sim.speed"`` is one key of the mapping,
not a path into nested mappings.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import operator
from collections.abc import Callable, MutableMapping
from time import perf_counter
from typing import Any, ClassVar, NamedTuple

from cvcclock._core import Mode, StepResult, WorldClock
from cvcclock.checks import check_seconds

__all__ = ["IgnoredControl", "WorldClockBinding", "WorldClockKeys"]

# The core's own bound on a tick count; larger step requests could not run.
_MAX_COUNT = 2**62


@dataclasses.dataclass(slots=True)
class WorldClockKeys:
    """The tree keys a ``WorldClockBinding`` reads and writes, one attribute per lane.

    Each attribute is a plain, mutable key (``keys.speed = "coast.clock.scale"``). An empty
    string or ``None`` turns that lane off: the binding never seeds, reads or writes it.
    ``WorldClockKeys()`` has every lane off; ``WorldClockKeys.under("sim")`` is the usual table.

    Attributes
    ----------
    speed : str or None
        Control: world seconds per wall second; 0 pauses.
    paused : str or None
        Control: a bool (``True``/``False``, 1/0, ``"1"``/``"0"``, ``"true"``/``"false"``).
    mode : str or None
        Control: a mode name, ``live``, ``lockstep``, ``paused``, ``stepping`` or ``replay``.
    lockstep_steps : str or None
        Control: quanta per frame in lockstep; an integer of at least 1.
    step : str or None
        Control: a request counter; each increment runs one quantum.
    time : str or None
        Telemetry: world seconds (float).
    tick : str or None
        Telemetry: the tick (int).
    fixed_dt : str or None
        Telemetry: the quantum in seconds (float).
    realized_speed : str or None
        Telemetry: world seconds run per wall second (float).
    dropped : str or None
        Telemetry: quanta the stall guard dropped since ``configure`` (int).

    Notes
    -----
    A binding copies the table when it is made (or when ``binding.keys`` is assigned), so
    changing a table afterwards does not reach a binding already using it.
    """

    speed: str | None = None
    paused: str | None = None
    mode: str | None = None
    lockstep_steps: str | None = None
    step: str | None = None
    time: str | None = None
    tick: str | None = None
    fixed_dt: str | None = None
    realized_speed: str | None = None
    dropped: str | None = None

    #: The control lanes, in the order a drive reads them.
    CONTROLS: ClassVar[tuple[str, ...]] = ("speed", "paused", "mode", "lockstep_steps", "step")
    #: The telemetry lanes, in the order a drive writes them.
    TELEMETRY: ClassVar[tuple[str, ...]] = ("time", "tick", "fixed_dt", "realized_speed",
                                            "dropped")

    @classmethod
    def under(cls, prefix: str = "sim") -> WorldClockKeys:
        """The full table with every key under ``prefix``.

        Parameters
        ----------
        prefix : str
            The keys' common prefix: ``"sim"`` gives ``sim.speed``, ``sim.tick``, ...; ``""``
            gives the bare names.

        Returns
        -------
        WorldClockKeys

        Raises
        ------
        TypeError
            If ``prefix`` is not a str.
        """
        if not isinstance(prefix, str):
            raise TypeError(f"prefix must be a str, got {prefix!r}")
        return cls(**{name: f"{prefix}.{name}" if prefix else name
                      for name in cls.CONTROLS + cls.TELEMETRY})

    @classmethod
    def for_scene(cls, *, speed: str, paused: str | None, time: str | None,
                  tick: str | None) -> WorldClockKeys:
        """A table for a host with its own keys for speed, paused, time and tick.

        The other lanes go beside the speed key: ``speed="clk.sim.speed"`` puts ``mode`` at
        ``clk.sim.mode``, ``step`` at ``clk.sim.step``, and so on.

        Parameters
        ----------
        speed : str
            The host's speed key; it must be a non-empty str, since the rest sit beside it.
        paused, time, tick : str or None
            The host's keys for those lanes; ``None`` or ``""`` turns a lane off.

        Returns
        -------
        WorldClockKeys

        Raises
        ------
        TypeError
            If a key is not a str (or None, for all but ``speed``).
        ValueError
            If ``speed`` is empty.
        """
        if not isinstance(speed, str):
            raise TypeError(f"speed must be a str, got {speed!r}")
        if not speed:
            raise ValueError("speed must be a non-empty key: the other keys go beside it")
        own = {"speed": speed, "paused": paused, "time": time, "tick": tick}
        for name, key in own.items():
            _check_key(name, key)
        keys = cls.under(speed.rpartition(".")[0])
        for name, key in own.items():
            setattr(keys, name, key)
        return keys


def _check_key(name: str, key: object) -> None:
    if key is not None and not isinstance(key, str):
        raise TypeError(f"key {name} must be a str or None, got {key!r}")


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


# _MISSING: the tree has no such key. _UNSEEN: the binding has not looked at the key yet, so
# whatever it holds is its first value and is applied (a key the binding seeds is seen).
_MISSING: Any = object()
_UNSEEN: Any = object()

# Lanes by index into WorldClockBinding._seen.
_SPEED, _PAUSED, _MODE, _LOCKSTEP, _STEP = range(5)

_MODE_NAMES = ", ".join(m.value for m in Mode)
_TRUE = frozenset({"1", "true"})
_FALSE = frozenset({"0", "false"})


def _read_speed(value: object) -> object:
    """A speed as the clock's ``scale`` setter takes it: a numeric string becomes a float.

    Everything else goes to the setter unchanged, which owns the bounds (finite, >= 0,
    <= 1e6) and the type check (a real number, not a bool); its ValueError or TypeError is
    the reason the control is ignored.
    """
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise ValueError("not a number") from None
    return value


def _read_paused(value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    elif isinstance(value, numbers.Real) and value in (0, 1):
        return bool(value)
    raise ValueError("not a bool; expected true, false, 1 or 0")


def _read_mode(value: object) -> Mode:
    if isinstance(value, str):
        try:
            return Mode(value.strip().lower())
        except ValueError:
            pass
    raise ValueError(f"not a mode; expected one of {_MODE_NAMES}")


def _read_int(value: object) -> int:
    if isinstance(value, bool):
        raise ValueError("a bool is not a count")
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            raise ValueError("not an integer") from None
    if isinstance(value, float):
        if value.is_integer():   # a tree of JSON numbers may hold 2.0
            return int(value)
        raise ValueError("not a whole number")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except Exception:
        raise ValueError("not an integer") from None


def _same(a: object, b: object) -> bool:
    """Whether a control's new value equals its last one (NaN equals NaN here)."""
    try:
        if a == b:
            return True
    except Exception:  # noqa: BLE001 - an odd object's __eq__ must not break a frame
        return False
    return (isinstance(a, float) and isinstance(b, float) and math.isnan(a)
            and math.isnan(b))


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

    Notes
    -----
    The rules a drive applies:

    * Control keys the tree does not hold are seeded (``speed`` from the clock's ``scale``,
      ``paused`` from the paused control, ``mode`` from the clock's mode by name,
      ``lockstep_steps`` from the clock's; ``step`` from 0), at construction and whenever
      one goes missing. A clock paused at construction seeds ``paused`` true and ``mode``
      ``live`` when the paused lane is on, so setting ``paused`` false resumes it; a pause
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
      mode of ``"warp"``, a paused of ``"maybe"``, lockstep_steps of 0 or 2**61, a step
      increment that would take the tick past 2**62) is ignored, never raised into a frame,
      and counted once per change in ``ignored`` and ``last_ignored``; the control keeps its
      last good value. ``speed`` and ``lockstep_steps`` go through the clock's own setters,
      so their bounds are the clock's and the reason is the setter's message.
    * Telemetry is written at construction and after every drive.
    """

    __slots__ = ("_applied_mode", "_clock", "_controls", "_counter", "_get", "_keys",
                 "_mode_ctl", "_paused_ctl", "_pending", "_seen", "_speed_ctl", "_telemetry",
                 "_tree", "_wall_mark", "ignored", "last_ignored")

    def __init__(self, tree: MutableMapping[str, Any], clock: WorldClock,
                 keys: str | WorldClockKeys | None = "sim") -> None:
        if not isinstance(tree, MutableMapping):
            raise TypeError(f"tree must be a mutable mapping, got {tree!r}")
        if not isinstance(clock, WorldClock):
            raise TypeError(f"clock must be a cvcclock.WorldClock, got {clock!r}")
        table = _table(keys)
        self._tree = tree
        self._get: Callable[[str, Any], Any] = tree.get
        self._clock = clock
        self._pending = 0
        self._wall_mark: float | None = None
        self.ignored = 0
        self.last_ignored: IgnoredControl | None = None
        # What the keys ask for; the clock's own values until a key says otherwise. A clock
        # that starts paused asks for live-and-paused when there is a paused lane, so the
        # paused lane carries the pause and clearing it resumes the clock.
        carried = clock.mode is Mode.PAUSED and bool(table.paused)
        self._speed_ctl = clock.scale
        self._paused_ctl = carried
        self._mode_ctl = Mode.LIVE if carried else clock.mode
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
        first values (applied by the next drive), and publishes the telemetry.
        """
        return dataclasses.replace(self._keys)

    @keys.setter
    def keys(self, keys: str | WorldClockKeys | None) -> None:
        self._bind(_table(keys))

    def _bind(self, table: WorldClockKeys) -> None:
        # Precomputed once per table, so a drive loops over the enabled lanes only.
        self._keys = table
        self._controls = tuple((key, lane) for lane, name in enumerate(table.CONTROLS)
                               if (key := getattr(table, name)))
        self._telemetry = tuple(getattr(table, name) or None for name in table.TELEMETRY)
        self._seen: list[Any] = [_UNSEEN] * len(table.CONTROLS)
        self._counter: int | None = None
        for key, lane in self._controls:
            if key not in self._tree:
                self._seed(key, lane)
        self._publish()

    def _seed(self, key: str, lane: int) -> None:
        clock = self._clock
        value: object
        if lane == _SPEED:
            value = self._speed_ctl = clock.scale
        elif lane == _PAUSED:
            # From the control, not the clock: a pause that speed 0 asks for is not a paused
            # control, and reseeding it as one would keep the clock paused once speed returns.
            value = self._paused_ctl
        elif lane == _MODE:
            mode = clock.mode
            if (mode is Mode.PAUSED and self._applied_mode is Mode.PAUSED
                    and self._mode_ctl is not Mode.PAUSED):
                mode = self._mode_ctl   # the pause is the paused or speed lane's to lift
            self._mode_ctl = mode
            value = mode.value
        elif lane == _LOCKSTEP:
            value = clock.lockstep_steps
        else:
            value = self._counter = 0
        self._tree[key] = value
        self._seen[lane] = value

    # -- the frame -------------------------------------------------------------------------

    def request_steps(self, n: int) -> None:
        """Queue ``n`` single steps; the next ``drive`` runs them after its advance, in any mode.

        The same as ``n`` increments of the ``step`` key.

        Parameters
        ----------
        n : int
            Quanta to run; a non-negative integer.

        Raises
        ------
        TypeError
            If ``n`` is not an integer (a bool is not).
        ValueError
            If ``n`` is negative or the steps queued would take the tick past 2**62.
        """
        if isinstance(n, bool):
            raise TypeError(f"n must be an integer, got {n!r}")
        try:
            count = operator.index(n)
        except TypeError:
            raise TypeError(f"n must be an integer, got {n!r}") from None
        if count < 0:
            raise ValueError(f"n must be >= 0, got {n!r}")
        if self._clock.tick + self._pending + count > _MAX_COUNT:
            raise ValueError(f"n would take the tick past 2**62, got {n!r}")
        self._pending += count

    def drive(self, wall_dt: float | None = None) -> StepResult:
        """Run one frame: read the controls, apply them, advance, run the single steps, publish.

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
            If ``wall_dt`` is bad; nothing is read, applied or run. Control values never
            raise: see the class notes.
        RuntimeError
            If the clock cannot advance here (inside ``presenting()`` on this thread, or in
            a timer callback); nothing is read, applied or run.
        """
        if not self._clock.can_advance:
            raise RuntimeError("drive() cannot advance the clock inside presenting() or a "
                               "timer callback; nothing was applied")
        if wall_dt is None:
            now = perf_counter()
            mark = self._wall_mark
            self._wall_mark = now
            wall_dt = 0.0 if mark is None else now - mark
        else:
            if type(wall_dt) is not float or not 0.0 <= wall_dt <= 1e300:
                wall_dt = check_seconds(wall_dt, "wall_dt")
            self._wall_mark = None
        get = self._get
        seen = self._seen
        for key, lane in self._controls:
            value = get(key, _MISSING)
            if value is not seen[lane]:   # the cheap test; most frames change nothing
                self._control_changed(key, lane, value)
        clock = self._clock
        result = clock.advance(wall_dt)
        n = self._pending
        if n:
            self._pending = 0   # the clock owes them now, even if a timer callback raises
            if n > _MAX_COUNT - clock.tick:   # the advance left them no room: never raise
                self._ignore(self._keys.step or "", n, "the queued steps would take the "
                             "tick past 2**62")
                n = 0
        if n:
            steps = clock.advance_ticks(n)
            result = StepResult(result.steps + steps.steps, result.first_tick, result.dropped,
                                steps.alpha)
        self._publish()
        return result

    def _control_changed(self, key: str, lane: int, value: object) -> None:
        seen = self._seen
        last = seen[lane]
        seen[lane] = value
        if value is _MISSING:
            self._seed(key, lane)
            return
        if last is not _UNSEEN and _same(value, last):
            return
        try:
            if lane == _SPEED:
                # The clock's setter checks the value; what it stored is the control.
                self._clock.scale = _read_speed(value)  # type: ignore[assignment]
                self._speed_ctl = self._clock.scale
                self._apply_mode()
            elif lane == _PAUSED:
                self._paused_ctl = _read_paused(value)
                self._apply_mode()
            elif lane == _MODE:
                self._mode_ctl = _read_mode(value)
                self._apply_mode()
            elif lane == _LOCKSTEP:
                self._clock.lockstep_steps = _read_int(value)   # the setter checks it
            else:
                self._count_steps(_read_int(value))
        except Exception as exc:  # noqa: BLE001 - a control value never breaks a frame
            # The reason is the message of whoever refused it: the reader, or the clock's
            # own setter (a ValueError or TypeError naming the field and the value).
            self._ignore(key, value, str(exc))

    def _ignore(self, key: str, value: object, reason: str) -> None:
        self.ignored += 1
        self.last_ignored = IgnoredControl(key, value, reason)

    def _count_steps(self, counter: int) -> None:
        last = self._counter
        if last is not None and counter > last:
            if self._clock.tick + self._pending + (counter - last) > _MAX_COUNT:
                raise ValueError("an increment that would take the tick past 2**62")
            self._pending += counter - last
        # The first value, or one that went backwards: resynchronise, run nothing.
        self._counter = counter

    def _apply_mode(self) -> None:
        mode = self._mode_ctl
        if ((mode is Mode.LIVE or mode is Mode.LOCKSTEP)
                and (self._paused_ctl or self._speed_ctl == 0.0)):
            mode = Mode.PAUSED
        # Only a move in what the keys ask for touches the clock, so a mode set directly on
        # the clock stands through changes that leave it the same.
        if mode is not self._applied_mode:
            self._applied_mode = mode
            self._clock.mode = mode

    def _publish(self) -> None:
        tree = self._tree
        clock = self._clock
        k_time, k_tick, k_fixed_dt, k_realized, k_dropped = self._telemetry
        if k_time is not None:
            tree[k_time] = clock.t
        if k_tick is not None:
            tree[k_tick] = clock.tick
        if k_fixed_dt is not None:
            tree[k_fixed_dt] = clock.fixed_dt
        if k_realized is not None:
            tree[k_realized] = clock.realized_scale
        if k_dropped is not None:
            tree[k_dropped] = clock.total_dropped

    def __repr__(self) -> str:
        return (f"WorldClockBinding(keys={self._keys!r}, tick={self._clock.tick}, "
                f"ignored={self.ignored})")


def _table(keys: object) -> WorldClockKeys:
    """A private, checked copy of the key table ``keys`` names."""
    if keys is None:
        return WorldClockKeys.under("sim")
    if isinstance(keys, str):
        return WorldClockKeys.under(keys)
    if not isinstance(keys, WorldClockKeys):
        raise TypeError(f"keys must be a prefix str, a WorldClockKeys or None, got {keys!r}")
    used: dict[str, str] = {}
    for name in keys.CONTROLS + keys.TELEMETRY:
        key = getattr(keys, name)
        _check_key(name, key)
        if key:
            if key in used:
                raise ValueError(f"keys {used[key]} and {name} are both {key!r}")
            used[key] = name
    return dataclasses.replace(keys)
