"""Type stubs for the compiled core, cvcclock._core (checked against it with mypy's stubtest)."""

import enum
from collections.abc import Callable
from typing import Any, ClassVar, Literal, NoReturn, SupportsIndex, TypeVar, final, overload

import numpy as np
from numpy.typing import NDArray
from typing_extensions import disjoint_base

class Mode(enum.StrEnum):
    """How ``WorldClock.advance`` turns wall time into quanta.

    The values are the names the state tree and ``pycvc`` use.
    """

    LIVE = "live"
    LOCKSTEP = "lockstep"
    PAUSED = "paused"
    STEPPING = "stepping"
    REPLAY = "replay"

@final
class ClockConfig:
    """The clock's configuration: an immutable value.

    Parameters
    ----------
    fixed_dt : float
        The quantum in seconds; finite and at least 1e-6.
    scale : float
        World seconds per wall second; 0 pauses; at most 1e6.
    max_steps_per_advance : int
        The stall guard: at most this many quanta per ``advance``; 1 to 2**32.
    cap_scales_with_rate : bool
        For ``scale > 1`` the cap becomes ``max_steps_per_advance * ceil(scale)``.
    lockstep_steps : int
        Quanta per ``advance`` in lockstep mode; 1 to 2**32.
    """

    @property
    def fixed_dt(self) -> float: ...
    @property
    def scale(self) -> float: ...
    @property
    def max_steps_per_advance(self) -> int: ...
    @property
    def cap_scales_with_rate(self) -> bool: ...
    @property
    def lockstep_steps(self) -> int: ...
    def __init__(
        self,
        fixed_dt: float = ...,
        *,
        scale: float = ...,
        max_steps_per_advance: SupportsIndex = ...,
        cap_scales_with_rate: bool = ...,
        lockstep_steps: SupportsIndex = ...,
    ) -> None: ...
    def replace(
        self,
        *,
        fixed_dt: float = ...,
        scale: float = ...,
        max_steps_per_advance: SupportsIndex = ...,
        cap_scales_with_rate: bool = ...,
        lockstep_steps: SupportsIndex = ...,
    ) -> ClockConfig:
        """Return a copy with the given fields changed (validated as in the constructor)."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class StepResult:
    """What one advancing call did: an immutable value.

    Attributes
    ----------
    steps : int
        Quanta run by this call: ticks ``first_tick + 1`` … ``first_tick + steps``.
    first_tick : int
        The tick before this call's first quantum.
    dropped : int
        Quanta the stall guard dropped in this call.
    alpha : float
        The clock's alpha after the call: the bank's fraction of a quantum.
    last_tick : int
        The tick after this call's last quantum: ``first_tick + steps``.

    Notes
    -----
    A result is falsy exactly when ``steps == 0``. Its repr is a valid call, so it shows
    the four fields the constructor takes and not ``last_tick``, which follows from them.
    """

    @property
    def steps(self) -> int: ...
    @property
    def first_tick(self) -> int: ...
    @property
    def dropped(self) -> int: ...
    @property
    def alpha(self) -> float: ...
    @property
    def last_tick(self) -> int:
        """The tick after this call's last quantum: ``first_tick + steps``."""
    def __init__(
        self, steps: SupportsIndex, first_tick: SupportsIndex, dropped: SupportsIndex, alpha: float
    ) -> None: ...
    def __bool__(self) -> bool:
        ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@disjoint_base
class WorldClock:
    """One notion of simulation time: an integer tick advanced in whole quanta.

    Parameters
    ----------
    config : ClockConfig, optional
        The configuration; ``ClockConfig()`` when omitted.

    Notes
    -----
    World time is ``t = tick * fixed_dt``, computed, never accumulated. One driver thread at
    a time calls the advancing methods (``advance``, ``advance_ticks``, ``step_once``) and
    the others that change the clock or its timers; any thread may read ``tick``, ``t`` and
    ``alpha``, take its own followers and ``wait_for_tick_change``. On a free-threaded
    CPython such a driver call made while another thread is inside one raises RuntimeError.
    """

    def __init__(self, config: ClockConfig | None = None) -> None: ...
    def configure(self, config: ClockConfig, /) -> None:
        """Replace the configuration and restart at tick 0.

        The bank, the dropped count, the realized-speed window and the frame count restart
        too; the mode is kept, and so is the mode a paused clock resumes to (the pause is
        the host's, not the configuration's). Followers see a discontinuity and
        resynchronise; every timer ends (a timer's period in quanta may not survive a new
        quantum).
        """
    @property
    def config(self) -> ClockConfig:
        """The current configuration, including values set on their own since ``configure``."""
    @property
    def fixed_dt(self) -> float:
        """The quantum in seconds (set with ``configure``)."""
    @property
    def scale(self) -> float:
        """World seconds per wall second in live mode; 0 pauses. Settable without a restart."""
    @scale.setter
    def scale(self, value: float) -> None: ...
    @property
    def max_steps_per_advance(self) -> int:
        """The stall guard's cap on quanta per ``advance``. Settable without a restart."""
    @max_steps_per_advance.setter
    def max_steps_per_advance(self, value: SupportsIndex) -> None: ...
    @property
    def lockstep_steps(self) -> int:
        """Quanta per ``advance`` in lockstep mode. Settable without a restart."""
    @lockstep_steps.setter
    def lockstep_steps(self, value: SupportsIndex) -> None: ...
    @property
    def mode(self) -> Mode:
        """The current ``Mode``; set it with a ``Mode`` or its name."""
    @mode.setter
    def mode(self, value: Mode | str) -> None: ...
    @property
    def paused(self) -> bool:
        """Whether the clock is in paused mode (by ``pause()`` or by ``mode = "paused"``)."""
    def pause(self) -> None:
        """Enter paused mode, remembering the mode it leaves for ``resume()``.

        As ``mode = "paused"`` does: ``advance`` runs nothing and alpha stays frozen;
        ``advance_ticks`` and ``step_once`` still run quanta. Pausing a paused clock changes
        nothing (it still resumes to the mode it was first paused from).
        """
    def resume(self) -> None:
        """Leave paused mode for the mode it was paused from; nothing if not paused.

        The mode is the one the clock was in when it entered paused mode, by ``pause()`` or
        by ``mode = "paused"``; live for a clock that was never in another. Alpha then
        follows that mode, as the ``mode`` setter's does.
        """
    @property
    def tick(self) -> int:
        """The authoritative integer world time, in quanta."""
    @property
    def t(self) -> float:
        """World seconds: ``tick * fixed_dt``."""
    @property
    def alpha(self) -> float:
        """Fraction of a quantum banked (live), 0 (lockstep, stepping, replay), frozen (paused)."""
    @property
    def total_dropped(self) -> int:
        """Quanta the stall guard dropped since ``configure`` (and owed quanta discarded by
        ``drop_owed``).
        """
    @property
    def frame(self) -> int:
        """``advance`` calls since ``configure``: the current frame."""
    @property
    def discontinuities(self) -> int:
        """How many times the clock was configured or sought to another tick.

        Followers compare it with the count they last saw to resynchronise.
        """
    @property
    def realized_scale(self) -> float:
        """World seconds ``advance`` ran per supplied wall second.

        Over the last completed window of at least 0.5 wall seconds; before the first window
        completes, the running figure; 0.0 before any wall time.
        """
    def wait_for_tick_change(self, tick: SupportsIndex, timeout: float | None = None) -> int | None:
        """Block until ``self.tick != tick``, with the GIL released.

        Parameters
        ----------
        tick : int
            The tick the caller last saw.
        timeout : float or None
            Seconds to wait at most; None waits for ever.

        Returns
        -------
        int or None
            The new tick, or None on timeout.
        """
    def advance(self, wall_dt: float, /) -> StepResult:
        """Advance by ``wall_dt`` wall seconds, as the mode says.

        live: bank ``wall_dt * scale`` and run the whole quanta, at most the stall guard's cap;
        the rest are dropped and counted. lockstep: run ``lockstep_steps`` quanta. paused,
        stepping, replay: run nothing.

        Parameters
        ----------
        wall_dt : float
            Wall seconds since the last call; finite and non-negative.

        Returns
        -------
        StepResult
        """
    def advance_ticks(self, n: SupportsIndex, /) -> StepResult:
        """Run exactly ``n`` quanta now, in any mode, with no cap (batch).

        Quanta still owed (see ``owed``) are the first of the ``n``.

        Returns
        -------
        StepResult
        """
    def step_once(self) -> StepResult:
        """Run exactly one quantum, in any mode (an owed one, if any is owed).

        Returns
        -------
        StepResult
        """
    def advance_to_next_due(self) -> StepResult:
        """Run the quanta up to the next scheduled timer's due tick, firing it (batch).

        ``advance_ticks(next_due_tick - tick)`` in one call, in any mode, with no cap: the
        quanta owed are the first of those it runs, and quanta owed beyond that tick stay
        owed. Timers still due at the current tick (left so by a callback that raised) fire
        first, then it runs on to the next due tick after them. With no timer scheduled it
        runs nothing and returns an empty result, so ``while clock.advance_to_next_due():``
        runs a headless harness until no timer is scheduled; a repeating timer never ends
        by itself, so cancel or pause it in a callback, or bound the loop by tick.

        Returns
        -------
        StepResult
            Falsy exactly when no quantum ran.

        Raises
        ------
        RuntimeError
            Inside ``presenting()`` or a timer callback, as ``advance_ticks``.
        """
    @property
    def owed(self) -> int:
        """Quanta granted but not yet run, because a timer callback raised mid-call.

        The next ``advance`` in live or lockstep mode runs them first, outside the cap;
        ``advance_ticks(n)`` and ``step_once()`` count them among the quanta they run;
        ``advance`` in paused, stepping or replay mode runs nothing and keeps them.
        ``drop_owed()`` discards them; ``configure`` and ``seek_tick`` clear them.
        """
    def drop_owed(self) -> int:
        """Discard the owed quanta, counting them in ``total_dropped``; return how many.

        Timers still due at the current tick (after the one whose callback raised) stay due.
        """
    def seek_tick(self, n: SupportsIndex, /) -> None:
        """Position the clock at tick ``n``; replay mode only.

        Seeking to another tick is a discontinuity: followers resynchronise and owe nothing
        for the ticks skipped. Seeking to the current tick changes nothing.
        """
    def state(self) -> ClockState:
        """Everything that decides this clock's future, as an immutable ``ClockState``.

        The configuration, mode, tick, bank, alpha, owed quanta, counters, the realized-speed
        window and each scheduled or paused timer's schedule. ``restore`` puts it back.
        """
    def restore(self, state: ClockState, /) -> None:
        """Put the clock back exactly as it was when ``state`` was taken, in any mode.

        Counts one discontinuity: followers' next ``take`` returns 0 and resynchronises
        them to the restored tick. Timers are matched to their handles by identity; a
        state whose timers differ from the clock's live ones (made by another clock, or
        timers made since and still live here) is refused with a ValueError naming them,
        and nothing changes. Timers that ended since the state was taken live again.
        """
    def __setstate__(self, state: ClockState | tuple[ClockState, dict[str, Any]]) -> None:
        """Fill a clock being unpickled or deep-copied; a copy is exact, discontinuities too,
        and so are a subclass's own attributes (``state`` is then ``(ClockState, dict)``).
        """
    def __copy__(self) -> NoReturn: ...
    @overload
    def every(
        self,
        interval: float,
        callback: Callable[[int], object],
        *,
        catch_up: Literal["each"] = "each",
    ) -> Timer:
        """Call ``callback`` every ``interval`` world seconds, a whole number of quanta.

        Parameters
        ----------
        interval : float
            The period in seconds; ``ticks_per_step(interval, fixed_dt)`` quanta.
        callback : callable
            ``callback(tick)``, or ``callback(tick, count)`` with ``catch_up="coalesce"``.
        catch_up : {"each", "coalesce"}
            "each" fires once per elapsed interval however wide the advance; "coalesce"
            fires at most once per advancing call, at the last due tick it covered, with the
            number of intervals covered.

        Returns
        -------
        Timer
        """
    @overload
    def every(
        self,
        interval: float,
        callback: Callable[[int, int], object],
        *,
        catch_up: Literal["coalesce"],
    ) -> Timer:
        """Call ``callback`` every ``interval`` world seconds, a whole number of quanta.

        Parameters
        ----------
        interval : float
            The period in seconds; ``ticks_per_step(interval, fixed_dt)`` quanta.
        callback : callable
            ``callback(tick)``, or ``callback(tick, count)`` with ``catch_up="coalesce"``.
        catch_up : {"each", "coalesce"}
            "each" fires once per elapsed interval however wide the advance; "coalesce"
            fires at most once per advancing call, at the last due tick it covered, with the
            number of intervals covered.

        Returns
        -------
        Timer
        """
    def after(self, delay: float, callback: Callable[[int], object]) -> Timer:
        """Call ``callback(tick)`` once, ``delay`` world seconds (whole quanta) from now."""
    @overload
    def every_ticks(
        self,
        k: SupportsIndex,
        callback: Callable[[int], object],
        *,
        catch_up: Literal["each"] = "each",
    ) -> Timer:
        """Call ``callback`` every ``k`` quanta; see ``every``."""
    @overload
    def every_ticks(
        self,
        k: SupportsIndex,
        callback: Callable[[int, int], object],
        *,
        catch_up: Literal["coalesce"],
    ) -> Timer:
        """Call ``callback`` every ``k`` quanta; see ``every``."""
    def after_ticks(self, k: SupportsIndex, callback: Callable[[int], object]) -> Timer:
        """Call ``callback(tick)`` once, ``k`` quanta from now."""
    def cancel_all(self, callback: Callable[..., object], /) -> int:
        """Cancel every scheduled or paused timer whose callback equals ``callback``.

        Equality, not identity: ``clock.cancel_all(obj.method)`` cancels the timers made
        with any ``obj.method``, as pyglet's ``unschedule`` does. Safe inside a timer
        callback, that timer's own included.

        Parameters
        ----------
        callback : callable
            The callback to match.

        Returns
        -------
        int
            How many timers it cancelled.
        """
    @property
    def next_due_tick(self) -> int | None:
        """The tick of the next active timer, or None: ``advance_to_next_due()`` runs to it."""
    @property
    def can_advance(self) -> bool:
        """False where an advancing call would raise: on a thread inside ``presenting()``, or
        inside a timer callback. Lets a caller refuse before it changes anything else.
        """
    def presenting(self) -> Presentation:
        """A context manager marking render code: presentation costs zero world time.

        Inside it any advancing call (and ``configure``, ``seek_tick``) raises RuntimeError;
        reading ``tick``, ``t``, ``alpha`` and followers' alphas is what it is for.
        """

@final
class Timer:
    """A handle on a timer from ``WorldClock.every``, ``after``, ``every_ticks`` or ``after_ticks``.

    A timer made at tick T with period k falls due at T + k, T + 2k, … (a one-shot only at
    T + k). Pausing keeps that grid: a resumed timer owes nothing for the intervals it was
    paused through, and a one-shot paused past its due tick ends without firing.

    Attributes
    ----------
    callback : callable
        Called as ``callback(tick)`` (catch_up "each") or ``callback(tick, count)`` ("coalesce").
    fired : int
        How many times the callback has been called.

    Notes
    -----
    ``remaining_ticks``, ``remaining`` and ``fraction`` are a countdown for a cooldown bar
    (Bevy's ``Timer`` has them). While a timer is paused they hold their values from the
    moment it was paused; once resumed they count towards the tick ``resume()`` put it on
    (its grid's next tick, or a one-shot's own tick), which ``next_tick`` reports meanwhile.
    """

    @property
    def callback(self) -> Callable[..., object]: ...
    @property
    def fired(self) -> int: ...
    @property
    def period_ticks(self) -> int | None:
        """The period in quanta; None for a one-shot."""
    @property
    def next_tick(self) -> int | None:
        """The tick it falls due at next; None once it has ended. A paused timer reports the
        tick it would fall due at if resumed now (None for a one-shot paused past its tick).
        """
    @property
    def remaining_ticks(self) -> int:
        """Quanta until it next fires, as an int: 0 once it has ended, and 0 for a timer
        still due at the current tick (a callback before it raised). Frozen while paused
        at the countdown it had then (a one-shot paused past its tick ends on resume
        without firing).
        """
    @property
    def remaining(self) -> float:
        """``remaining_ticks`` in world seconds, at the clock's ``fixed_dt``; 0.0 once ended."""
    @property
    def fraction(self) -> float:
        """The fraction of its current interval elapsed, in [0, 1], for a cooldown bar.

        0.0 when scheduled and just after each firing of a repeating timer, rising to 1.0 at
        its due tick: ``1 - remaining_ticks / span``, where span is the period (a one-shot:
        its delay). 1.0 once it has ended (fired, cancelled or ended by ``configure``).
        Frozen while paused.
        """
    @property
    def active(self) -> bool:
        """True while it is scheduled to fire: not paused, cancelled or spent."""
    @property
    def paused(self) -> bool:
        """True between ``pause()`` and ``resume()``."""
    @property
    def catch_up(self) -> Literal["each", "coalesce"]:
        """``"each"`` or ``"coalesce"``."""
    def cancel(self) -> None:
        """Stop it for good; a cancelled timer never fires again. Cancelling twice is harmless."""
    def pause(self) -> None:
        """Stop it firing until ``resume()``; it keeps its grid."""
    def resume(self) -> None:
        """Put a paused timer back on its grid, at its first due tick after the current one."""
    def __setstate__(self, state: tuple[WorldClock, Callable[..., object]]) -> None:
        """Fill a bare handle being unpickled; its clock's state sets its schedule."""
    def __deepcopy__(self, memo: dict[int, Any]) -> Timer: ...
    def __copy__(self) -> NoReturn: ...

@final
class Presentation:
    """The context ``WorldClock.presenting()`` returns: render code inside it costs zero world
    time, and any advancing call made inside it, on the thread that entered it, raises.

    Other threads (a driver beside a render thread) are not affected. Leaving it releases
    the entering thread's mark whatever thread leaves (a render generator finalised by the
    garbage collector on another thread still unblocks the driver).

    Parameters
    ----------
    clock : WorldClock
        The clock to mark; ``clock.presenting()`` is the usual way to make one.
    """

    def __init__(self, clock: WorldClock) -> None: ...
    def __enter__(self) -> WorldClock: ...
    def __exit__(self, exc_type: object, exc: object, tb: object, /) -> Literal[False]: ...

def ticks_per_step(dt: float, fixed_dt: float) -> int:
    """The whole number of quanta in a step of ``dt`` seconds.

    Parameters
    ----------
    dt : float
        The follower's step in seconds.
    fixed_dt : float
        The clock's quantum in seconds.

    Returns
    -------
    int
        k >= 1 with ``dt == k * fixed_dt`` to a relative tolerance of 1e-9.

    Raises
    ------
    ValueError
        If ``dt`` is not a whole number of quanta; the message names the nearest whole counts.
    """

@disjoint_base
class ClockFollower:
    """A simulation that steps every ``k`` quanta of a clock.

    Steps fall due at ticks that are multiples of ``k``. The follower never advances the
    clock; it counts the steps that fell due since it last looked.

    Parameters
    ----------
    k : int
        The period in quanta; at least 1.
    start_tick : int
        The follower owes the steps due after this tick.
    """

    @property
    def period(self) -> int: ...
    @property
    def last_tick(self) -> int:
        """The tick up to which due steps have been counted."""
    def __init__(self, k: SupportsIndex, start_tick: SupportsIndex = 0) -> None: ...
    @staticmethod
    def for_step(clock: WorldClock, dt: float) -> ClockFollower:
        """A follower stepping every ``dt`` seconds, starting at the clock's current tick.

        A new follower owes nothing for the past. ``dt`` must be a whole number of quanta.
        """
    def take(self, clock: WorldClock, /) -> int:
        """The number of steps that fell due since the last take (or the start).

        After the clock was configured or sought, returns 0 once and resynchronises to the
        clock's current tick.
        """
    def take_due(self, clock: WorldClock, /) -> range:
        """Like ``take``, but the due ticks themselves: a ``range`` of multiples of ``k``.

        For a follower that needs the tick each step fell due at (to stamp its output).
        """
    def alpha(self, tick: SupportsIndex, clock_alpha: float) -> float:
        """The fraction into this follower's own step: ``((tick % k) + clock_alpha) / k``.

        ``tick`` is a tick (>= 0) and ``clock_alpha`` the clock's alpha, in [0, 1).
        """
    def alpha_of(self, clock: WorldClock, /) -> float:
        """``alpha(clock.tick, clock.alpha)``, with the tick and alpha read as one pair.

        What a renderer calls to interpolate this follower between its last two steps.

        Parameters
        ----------
        clock : WorldClock
            The clock this follower steps with.

        Returns
        -------
        float
            The fraction into this follower's own step, in [0, 1).
        """

@final
class TimerState:
    """One timer's schedule inside a ``ClockState``: an immutable value.

    Attributes
    ----------
    timer : Timer
        The handle it belongs to; ``restore`` matches timers by this identity.
    seq : int
        Creation order on its clock, the tie-break between timers due at one tick.
    period_ticks : int or None
        The period in quanta; None for a one-shot.
    catch_up : str
        ``"each"`` or ``"coalesce"``.
    anchor : int
        The tick it was made at: it falls due at ``anchor + m * period``.
    due : int
        The tick it falls due at next (or would, once resumed).
    pending : int
        Coalesce: the intervals carried to ``due``, reported when it fires there.
    fired : int
        Callback calls so far.
    paused : bool
        Whether it is paused.
    paused_at : int or None
        The tick it was paused at (its countdown reads as of then); None unless paused.
    """

    @property
    def timer(self) -> Timer: ...
    @property
    def seq(self) -> int: ...
    @property
    def period_ticks(self) -> int | None:
        """The period in quanta; None for a one-shot."""
    @property
    def catch_up(self) -> Literal["each", "coalesce"]:
        """``"each"`` or ``"coalesce"``."""
    @property
    def anchor(self) -> int: ...
    @property
    def due(self) -> int: ...
    @property
    def pending(self) -> int: ...
    @property
    def fired(self) -> int: ...
    @property
    def paused(self) -> bool: ...
    @property
    def paused_at(self) -> int | None:
        """The tick it was paused at; None unless paused."""
    def __init__(self) -> NoReturn: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __copy__(self) -> TimerState: ...

@final
class ClockState:
    """Everything that decides a clock's future, as an immutable value: ``WorldClock.state()``.

    Equal states make equal futures: the same calls on clocks restored from equal states
    return equal results. Equality compares every field but ``discontinuities`` (which
    only tells followers to resynchronise, and which ``restore`` itself counts), and
    compares timers by their schedules, not their handles. It pickles when its timers'
    callbacks pickle. Unpickling checks every field by the rule the clock's own field
    obeys (a bank in [0, 1), a tick within ``MAX_TICK``, a timer on its grid, ...): a
    damaged pickle raises an error naming the field, so ``restore`` never sees one.

    Attributes
    ----------
    config : ClockConfig
        The configuration, including values set on their own.
    mode : Mode
    resume_mode : Mode
        The mode ``resume()`` returns to: while paused, the mode the clock was paused from
        (live if it never was in another); otherwise ``mode`` itself.
    tick : int
    bank : float
        Wall time banked, in quanta: the fraction of a quantum not yet run.
    alpha : float
    owed : int
        Quanta granted but not yet run (a timer callback raised).
    total_dropped : int
    frame : int
    window_wall, window_ticks, realized, window_done
        The realized-speed window: wall seconds and quanta so far, the last completed
        window's figure, and whether one has completed.
    discontinuities : int
        The clock's discontinuity count when the state was taken.
    timer_seq : int
        The creation order the next timer will get.
    timers : tuple of TimerState
        The scheduled and paused timers, in creation order.
    """

    @property
    def config(self) -> ClockConfig: ...
    @property
    def mode(self) -> Mode: ...
    @property
    def resume_mode(self) -> Mode: ...
    @property
    def tick(self) -> int: ...
    @property
    def bank(self) -> float: ...
    @property
    def alpha(self) -> float: ...
    @property
    def owed(self) -> int: ...
    @property
    def total_dropped(self) -> int: ...
    @property
    def frame(self) -> int: ...
    @property
    def window_wall(self) -> float: ...
    @property
    def window_ticks(self) -> int: ...
    @property
    def realized(self) -> float: ...
    @property
    def window_done(self) -> bool: ...
    @property
    def discontinuities(self) -> int: ...
    @property
    def timer_seq(self) -> int: ...
    @property
    def timers(self) -> tuple[TimerState, ...]: ...
    def __init__(self) -> NoReturn: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __copy__(self) -> ClockState: ...

MAX_TICK: int

def check_seconds(value: object, name: str, minimum: float = ..., maximum: float = ...) -> float:
    """Return ``value`` as a float of seconds: finite and in [minimum, maximum].

    Parameters
    ----------
    value : real number
        The argument to check (not a bool).
    name : str
        The argument's name, for the error message.
    minimum, maximum : float
        The bounds, inclusive.

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If it is NaN, infinite or out of bounds.
    """
def check_real(value: object, name: str) -> float:
    """Return ``value`` as a finite float of either sign (TypeError if not a real number,
    ValueError if NaN or infinite), naming ``name`` in the error.
    """
def check_count(value: object, name: str, minimum: int = ..., maximum: int = ...) -> int:
    """Return ``value`` as an int in [minimum, maximum] (TypeError if not an integer or a bool,
    ValueError if out of bounds), naming ``name`` in the error. Any ``__index__`` integer,
    such as ``numpy.int64``, is taken; the bounds may not exceed 2**62 in magnitude.
    """
def check_bool(value: object, name: str) -> bool:
    """Return ``value`` as a bool; only ``bool`` and ``numpy.bool_`` are taken (TypeError
    otherwise, naming ``name``).
    """
_REALIZED_WINDOW: float
def _timer_state_from_fields(
    timer: Timer, seq: int, period: int, coalesce: bool, anchor: int, due: int, pending: int,
    fired: int, paused: bool, paused_at: int
) -> TimerState:
    """Unpickle a TimerState; the fields come from a TimerState's own __reduce__, and are
    checked as the clock's own timer fields are (a damaged pickle is refused, naming it).
    """
def _clock_state_from_fields(
    config: ClockConfig, mode: Mode | str, resume_mode: Mode | str, tick: int, bank: float,
    alpha: float, owed: int, total_dropped: int, frame: int, window_wall: float,
    window_ticks: int, realized: float, window_done: bool, discontinuities: int, timer_seq: int,
    timers: tuple[TimerState, ...]
) -> ClockState:
    """Unpickle a ClockState; the fields come from a ClockState's own __reduce__ (and from
    ClockBank.clock_state). Each is checked by the rule the clock's own field obeys, so that
    a damaged pickle is refused here, naming the field, and never reaches restore().
    """
def _timer_seq_of(timer: Timer) -> int: ...
def _new_clock(cls: type[WorldClock]) -> WorldClock:
    """Unpickle a WorldClock: a bare instance, filled by ``__setstate__``."""
def _new_timer() -> Timer:
    """Unpickle a Timer: a bare handle, filled by its own and its clock's ``__setstate__``."""
def _config_from_dict(fields: dict[str, Any]) -> ClockConfig: ...
def _follower_from_state(period: int, last_tick: int, discontinuities: int) -> ClockFollower: ...

_T = TypeVar("_T")

@overload
def check_callable(value: _T, name: str, what: str = ..., *, optional: Literal[False] = ...
                   ) -> _T:
    """Return ``value`` if it is callable (or None, with ``optional=True``).

    Parameters
    ----------
    value : callable
        The argument to check.
    name : str
        The argument's name, for the error message.
    what : str
        What the message says ``value`` must be, where a caller wants a kind of callable:
        ``"a generator function"``. Only ``callable(value)`` is checked.
    optional : bool
        Whether None is taken too.

    Returns
    -------
    callable or None
        ``value``, unchanged.

    Raises
    ------
    TypeError
        If ``value`` is not callable (nor None, with ``optional=True``).
    """
@overload
def check_callable(value: _T, name: str, what: str = ..., *, optional: bool) -> _T | None:
    """Return ``value`` if it is callable (or None, with ``optional=True``).

    Parameters
    ----------
    value : callable
        The argument to check.
    name : str
        The argument's name, for the error message.
    what : str
        What the message says ``value`` must be, where a caller wants a kind of callable:
        ``"a generator function"``. Only ``callable(value)`` is checked.
    optional : bool
        Whether None is taken too.

    Returns
    -------
    callable or None
        ``value``, unchanged.

    Raises
    ------
    TypeError
        If ``value`` is not callable (nor None, with ``optional=True``).
    """
@overload
def check_timeout(value: object, name: str = ..., *, forever: Literal[True] = ...
                  ) -> float | None:
    """Return ``value`` as a timeout in seconds, as ``WorldClock.wait_for_tick_change`` takes it.

    A timeout is finite seconds >= 0 (``check_seconds``). The longest a thread can wait
    with one is ``threading.TIMEOUT_MAX`` seconds (some 292 years on Linux).

    Parameters
    ----------
    value : float or None
        The argument to check.
    name : str
        The argument's name, for the error message.
    forever : bool
        True for a wait that may last for ever: None, or a timeout longer than
        ``threading.TIMEOUT_MAX``, is returned as None (wait for ever). False for a timeout
        that must be a number of seconds (a join that reports what it waited): None is
        refused, and so is one longer than ``threading.TIMEOUT_MAX``.

    Returns
    -------
    float or None
        The timeout in seconds; None to wait for ever (only with ``forever=True``).

    Raises
    ------
    TypeError
        If ``value`` is not a real number (nor None, with ``forever=True``).
    ValueError
        If it is NaN, infinite or negative, or (with ``forever=False``) longer than
        ``threading.TIMEOUT_MAX``.
    """
@overload
def check_timeout(value: object, name: str = ..., *, forever: Literal[False]) -> float:
    """Return ``value`` as a timeout in seconds, as ``WorldClock.wait_for_tick_change`` takes it.

    A timeout is finite seconds >= 0 (``check_seconds``). The longest a thread can wait
    with one is ``threading.TIMEOUT_MAX`` seconds (some 292 years on Linux).

    Parameters
    ----------
    value : float or None
        The argument to check.
    name : str
        The argument's name, for the error message.
    forever : bool
        True for a wait that may last for ever: None, or a timeout longer than
        ``threading.TIMEOUT_MAX``, is returned as None (wait for ever). False for a timeout
        that must be a number of seconds (a join that reports what it waited): None is
        refused, and so is one longer than ``threading.TIMEOUT_MAX``.

    Returns
    -------
    float or None
        The timeout in seconds; None to wait for ever (only with ``forever=True``).

    Raises
    ------
    TypeError
        If ``value`` is not a real number (nor None, with ``forever=True``).
    ValueError
        If it is NaN, infinite or negative, or (with ``forever=False``) longer than
        ``threading.TIMEOUT_MAX``.
    """

@disjoint_base
class ClockBank:
    """n independent clocks in one object, each exactly a ``WorldClock`` without timers.

    Parameters
    ----------
    n : int
        The number of clocks (slots), 0 to 2**32.
    config : ClockConfig, optional
        Every slot's starting configuration; ``ClockConfig()`` when omitted.

    Notes
    -----
    Slot i computes exactly what a ``WorldClock`` computes, bit for bit: the same ticks,
    steps, dropped quanta, alphas, frames and realized speeds, and ``clock_state(i)`` equals
    the clock's ``state()``. One loop in C advances every slot with the GIL released: AVX2
    where the CPU has it, else plain C (see ``clock_bank_kernel.h``).

    The configuration is a set of numpy arrays the host reads and writes in place:
    ``scale``, ``fixed_dt``, ``max_steps_per_advance``, ``cap_scales_with_rate``,
    ``lockstep_steps`` and ``mode``. They are checked when used, against ``ClockConfig``'s
    rules: a bad value raises an error naming the field, the slot and the value, and no slot
    changes. A write takes effect at the next call, as the same assignment on the
    ``WorldClock`` would (``mode`` included); writing ``fixed_dt`` or
    ``cap_scales_with_rate``, which a ``WorldClock`` sets only with ``configure``, keeps the
    slot's tick and bank (as ``restore`` of a state with that configuration would), while
    ``configure(i, config)`` restarts the slot.

    A bank whose slots share one configuration, one mode and one realized-speed window (made
    from one config, advanced by one ``wall_dt`` for every slot, no slot reconfigured on its
    own) advances with a loop that touches only each slot's bank, tick and steps. Until a
    configuration array is read from the bank, only its methods write the configuration
    and the checks of it are skipped; from the first read of one (a writable view the host
    may write at any time) every call checks every slot again, and the shared loop no
    longer runs.

    ``mode`` holds small ints: slot i is in mode ``ClockBank.MODES[mode[i]]``, that is
    0 live, 1 lockstep, 2 paused, 3 stepping, 4 replay. ``set_mode`` takes ``Mode`` values
    or their names.

    ``tick``, ``total_dropped`` and ``discontinuities`` are read-only views that follow the
    bank; ``t``, ``alpha``, ``frame`` and ``realized_scale`` compute a new array each read.
    ``advance``, ``advance_ticks`` and ``step_once`` return the same read-only array every
    call, overwritten by the next: copy it to keep it.

    Do not write the arrays from another thread while a call runs: the loop runs without
    the GIL. A call on the bank while another runs (from another thread) raises RuntimeError.
    """

    MODES: ClassVar[tuple[Mode, ...]]
    def __init__(self, n: SupportsIndex, config: ClockConfig | None = None) -> None: ...
    def __len__(self) -> int: ...
    @property
    def scale(self) -> NDArray[np.float64]:
        """float64 array: world seconds per wall second of each slot, 0 to 1e6 (writable)."""
    @property
    def fixed_dt(self) -> NDArray[np.float64]:
        """float64 array: each slot's quantum in seconds, at least 1e-6 (writable)."""
    @property
    def max_steps_per_advance(self) -> NDArray[np.int64]:
        """int64 array: each slot's stall-guard cap, 1 to 2**32 (writable)."""
    @property
    def cap_scales_with_rate(self) -> NDArray[np.bool_]:
        """bool array: whether each slot's cap grows with ``ceil(scale)`` (writable)."""
    @property
    def lockstep_steps(self) -> NDArray[np.int64]:
        """int64 array: each slot's quanta per advance in lockstep mode, 1 to 2**32 (writable)."""
    @property
    def mode(self) -> NDArray[np.uint8]:
        """uint8 array: each slot's mode as an index into ``ClockBank.MODES`` (writable)."""
    def set_mode(
        self, mode: Mode | str, where: SupportsIndex | NDArray[np.bool_] | None = None
    ) -> None:
        """Put slots into ``mode``, as ``WorldClock.mode = mode`` does, at once.

        Parameters
        ----------
        mode : Mode or str
            The mode, or its name.
        where : int, bool array or None
            One slot, a mask of n slots, or every slot (None).
        """
    @property
    def tick(self) -> NDArray[np.int64]:
        """int64 array, read-only view: each slot's integer world time, in quanta."""
    @property
    def total_dropped(self) -> NDArray[np.int64]:
        """int64 array, read-only view: quanta each slot's stall guard dropped since its
        ``configure`` (saturating at 2**62).
        """
    @property
    def discontinuities(self) -> NDArray[np.int64]:
        """int64 array, read-only view: how many times each slot was configured; followers
        compare it with the count they last saw to resynchronise.
        """
    @property
    def t(self) -> NDArray[np.float64]:
        """float64 array, new each read: world seconds ``tick * fixed_dt`` of each slot."""
    @property
    def alpha(self) -> NDArray[np.float64]:
        """float64 array, new each read: each slot's alpha, as ``WorldClock.alpha``."""
    @property
    def frame(self) -> NDArray[np.int64]:
        """int64 array, new each read: ``advance`` calls since each slot's ``configure``."""
    @property
    def realized_scale(self) -> NDArray[np.float64]:
        """float64 array, new each read: each slot's ``WorldClock.realized_scale``."""
    def advance(self, wall_dt: float | NDArray[np.float64], /) -> NDArray[np.int64]:
        """Advance every slot by ``wall_dt`` wall seconds, each as its mode says.

        Parameters
        ----------
        wall_dt : float or numpy.ndarray
            Wall seconds since the last call, finite and non-negative: one for every slot,
            or a float64 array of one a slot.

        Returns
        -------
        numpy.ndarray
            int64, read-only: the quanta each slot ran. The same array every call.
        """
    def advance_ticks(self, n: SupportsIndex | NDArray[np.integer[Any]], /) -> NDArray[np.int64]:
        """Run exactly ``n`` quanta in every slot now, in any mode, with no cap (batch).

        Parameters
        ----------
        n : int or numpy.ndarray
            Quanta, at least 0: one count for every slot, or an integer array of one a slot.

        Returns
        -------
        numpy.ndarray
            int64, read-only: the quanta each slot ran (the array ``advance`` returns).
        """
    def step_once(self, mask: NDArray[np.bool_] | None = None) -> NDArray[np.int64]:
        """Run exactly one quantum in every slot, or in the slots ``mask`` selects, in any mode.

        Parameters
        ----------
        mask : numpy.ndarray, optional
            A bool array of one value a slot: the slots to step; every slot when omitted.

        Returns
        -------
        numpy.ndarray
            int64, read-only: 1 for each slot stepped, else 0 (the array ``advance`` returns).
        """
    def configure(self, i: SupportsIndex, config: ClockConfig, /) -> None:
        """Replace slot ``i``'s configuration and restart it at tick 0, as
        ``WorldClock.configure`` does: the bank, the dropped count, the realized-speed window
        and the frame count restart too, the mode is kept, and followers resynchronise.
        """
    def clock_state(self, i: SupportsIndex, /) -> ClockState:
        """Slot ``i`` as a ``ClockState``: exactly what ``WorldClock.state()`` returns for a
        clock given the same calls (no timers, nothing owed).
        """

@disjoint_base
class BankFollower:
    """A ``ClockFollower`` for every slot of a ``ClockBank``: steps every ``k`` quanta of each.

    Parameters
    ----------
    k : int or numpy.ndarray
        The period in quanta, at least 1: one for every slot, or an integer array of one a slot.
    start_tick : int or numpy.ndarray
        Each slot owes the steps due after this tick: one for every slot, or one a slot.

    Notes
    -----
    Slot i counts exactly what ``ClockFollower(k[i], start_tick[i]).take(clock)`` counts, a
    discontinuity included (after ``configure(i, ...)`` it returns 0 once for that slot and
    resynchronises). With only scalars, the follower takes its size from the first bank it
    follows; from then on (or with an array) it follows banks of that size.
    """

    def __init__(
        self,
        k: SupportsIndex | NDArray[np.integer[Any]],
        start_tick: SupportsIndex | NDArray[np.integer[Any]] = 0,
    ) -> None: ...
    @property
    def period(self) -> int | NDArray[np.int64]:
        """The period in quanta: the int, or the read-only int64 array of one a slot."""
    @property
    def last_tick(self) -> NDArray[np.int64]:
        """int64 array, read-only view: the tick up to which each slot's due steps were
        counted; empty until the first take if the follower was made with scalars only.
        """
    def take(self, bank: ClockBank, /) -> NDArray[np.int64]:
        """The steps that fell due on each slot since the last take (or the start).

        Returns
        -------
        numpy.ndarray
            int64, read-only: steps due per slot; the same array every call, overwritten by
            the next. ``numpy.flatnonzero`` of it lists the worlds to step.
        """

def _clock_bank_kernel(
    name: Literal["avx2", "portable"] | None = None,
) -> Literal["avx2", "portable"]:
    """The loops ``ClockBank`` runs: "avx2" (x86-64 with AVX2, the default there) or
    "portable" (C the compiler vectorised for the build's target). With a name, switch to it
    first, for every bank; the tests run both.
    """
def _clock_bank_paths(bank: ClockBank, /) -> dict[str, bool]:
    """For the tests: whether ``bank``'s next advance by one wall_dt runs the shared loop
    (``"shared"``), whether a configuration array was handed out (``"views_out"``: every
    call then checks the configuration) and whether its windows are held as bases.
    """
def _bank_live(
    bank: float, wall_dt: float, scale: float, fixed_dt: float,
    max_steps_per_advance: int, cap_scales_with_rate: bool,
) -> tuple[int, int, float]:
    """banking.h's cvc_bank_live, for the tests: (steps, dropped, new bank) of a live advance
    by ``wall_dt`` on a bank of ``bank`` quanta, the arguments checked as the clock's are.
    """
