"""Type stubs for the compiled core, cvcclock._core (checked against it with mypy's stubtest)."""

import enum
from collections.abc import Callable
from typing import Any, ClassVar, Literal, NoReturn, SupportsIndex, final, overload

import numpy as np
from numpy.typing import NDArray
from typing_extensions import disjoint_base

class Mode(enum.StrEnum):
    """How ``WorldClock.advance`` turns wall time into quanta."""

    LIVE = "live"
    LOCKSTEP = "lockstep"
    PAUSED = "paused"
    STEPPING = "stepping"
    REPLAY = "replay"

@final
class ClockConfig:
    """The clock's configuration: an immutable value."""

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
        """Return a copy with the given fields changed."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class StepResult:
    """What one advancing call did."""

    @property
    def steps(self) -> int: ...
    @property
    def first_tick(self) -> int: ...
    @property
    def dropped(self) -> int: ...
    @property
    def alpha(self) -> float: ...
    @property
    def last_tick(self) -> int: ...
    def __init__(
        self, steps: SupportsIndex, first_tick: SupportsIndex, dropped: SupportsIndex, alpha: float
    ) -> None: ...
    def __bool__(self) -> bool:
        """False exactly when the call ran no quanta."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@disjoint_base
class WorldClock:
    """One notion of simulation time: an integer tick advanced in whole quanta."""

    def __init__(self, config: ClockConfig | None = None) -> None: ...
    def configure(self, config: ClockConfig, /) -> None:
        """Replace the configuration and restart at tick 0."""
    @property
    def config(self) -> ClockConfig: ...
    @property
    def fixed_dt(self) -> float: ...
    @property
    def scale(self) -> float: ...
    @scale.setter
    def scale(self, value: float) -> None: ...
    @property
    def max_steps_per_advance(self) -> int: ...
    @max_steps_per_advance.setter
    def max_steps_per_advance(self, value: SupportsIndex) -> None: ...
    @property
    def lockstep_steps(self) -> int: ...
    @lockstep_steps.setter
    def lockstep_steps(self, value: SupportsIndex) -> None: ...
    @property
    def mode(self) -> Mode: ...
    @mode.setter
    def mode(self, value: Mode | str) -> None: ...
    @property
    def paused(self) -> bool: ...
    def pause(self) -> None:
        """Enter paused mode, remembering the mode it leaves for ``resume()``."""
    def resume(self) -> None:
        """Leave paused mode for the mode it was paused from; nothing if not paused."""
    @property
    def tick(self) -> int: ...
    @property
    def t(self) -> float: ...
    @property
    def alpha(self) -> float: ...
    @property
    def total_dropped(self) -> int: ...
    @property
    def frame(self) -> int: ...
    @property
    def discontinuities(self) -> int: ...
    @property
    def realized_scale(self) -> float: ...
    def wait_for_tick_change(self, tick: SupportsIndex, timeout: float | None = None) -> int | None:
        """Block until the tick differs from ``tick``; the new tick, or None on timeout."""
    def advance(self, wall_dt: float, /) -> StepResult:
        """Advance by ``wall_dt`` wall seconds, as the mode says."""
    def advance_ticks(self, n: SupportsIndex, /) -> StepResult:
        """Run exactly ``n`` quanta now, in any mode, with no cap."""
    def step_once(self) -> StepResult:
        """Run exactly one quantum, in any mode."""
    def advance_to_next_due(self) -> StepResult:
        """Run the quanta up to the next scheduled timer's due tick, firing it."""
    @property
    def owed(self) -> int: ...
    def drop_owed(self) -> int:
        """Discard the owed quanta, counting them in ``total_dropped``; return how many."""
    def seek_tick(self, n: SupportsIndex, /) -> None:
        """Position the clock at tick ``n``; replay mode only."""
    def state(self) -> ClockState:
        """Everything that decides this clock's future, as an immutable value."""
    def restore(self, state: ClockState, /) -> None:
        """Put the clock back exactly as it was when ``state`` was taken."""
    def __setstate__(self, state: ClockState) -> None: ...
    def __copy__(self) -> NoReturn: ...
    @overload
    def every(
        self,
        interval: float,
        callback: Callable[[int], object],
        *,
        catch_up: Literal["each"] = "each",
    ) -> Timer:
        """Call ``callback(tick)`` every ``interval`` world seconds (whole quanta)."""
    @overload
    def every(
        self,
        interval: float,
        callback: Callable[[int, int], object],
        *,
        catch_up: Literal["coalesce"],
    ) -> Timer:
        """Call ``callback(tick, count)`` at most once per advancing call."""
    def after(self, delay: float, callback: Callable[[int], object]) -> Timer:
        """Call ``callback(tick)`` once, ``delay`` world seconds from now."""
    @overload
    def every_ticks(
        self,
        k: SupportsIndex,
        callback: Callable[[int], object],
        *,
        catch_up: Literal["each"] = "each",
    ) -> Timer:
        """Call ``callback(tick)`` every ``k`` quanta."""
    @overload
    def every_ticks(
        self,
        k: SupportsIndex,
        callback: Callable[[int, int], object],
        *,
        catch_up: Literal["coalesce"],
    ) -> Timer:
        """Call ``callback(tick, count)`` at most once per advancing call."""
    def after_ticks(self, k: SupportsIndex, callback: Callable[[int], object]) -> Timer:
        """Call ``callback(tick)`` once, ``k`` quanta from now."""
    def cancel_all(self, callback: Callable[..., object], /) -> int:
        """Cancel every scheduled or paused timer whose callback equals ``callback``."""
    @property
    def next_due_tick(self) -> int | None: ...
    @property
    def can_advance(self) -> bool: ...
    def presenting(self) -> Presentation:
        """A context manager marking render code: it costs zero world time."""

@final
class Timer:
    """A handle on a timer made by a ``WorldClock``."""

    @property
    def callback(self) -> Callable[..., object]: ...
    @property
    def fired(self) -> int: ...
    @property
    def period_ticks(self) -> int | None: ...
    @property
    def next_tick(self) -> int | None: ...
    @property
    def remaining_ticks(self) -> int: ...
    @property
    def remaining(self) -> float: ...
    @property
    def fraction(self) -> float: ...
    @property
    def active(self) -> bool: ...
    @property
    def paused(self) -> bool: ...
    @property
    def catch_up(self) -> Literal["each", "coalesce"]: ...
    def cancel(self) -> None:
        """Stop it for good."""
    def pause(self) -> None:
        """Stop it firing until ``resume()``; it keeps its grid."""
    def resume(self) -> None:
        """Put a paused timer back on its grid."""
    def __setstate__(self, state: tuple[WorldClock, Callable[..., object]]) -> None: ...
    def __deepcopy__(self, memo: dict[int, Any]) -> Timer: ...
    def __copy__(self) -> NoReturn: ...

@final
class Presentation:
    """The context ``WorldClock.presenting()`` returns."""

    def __init__(self, clock: WorldClock) -> None: ...
    def __enter__(self) -> WorldClock: ...
    def __exit__(self, exc_type: object, exc: object, tb: object, /) -> Literal[False]: ...

def ticks_per_step(dt: float, fixed_dt: float) -> int:
    """The whole number of quanta in a step of ``dt`` seconds."""

@disjoint_base
class ClockFollower:
    """A simulation that steps every ``k`` quanta of a clock."""

    @property
    def period(self) -> int: ...
    @property
    def last_tick(self) -> int: ...
    def __init__(self, k: SupportsIndex, start_tick: SupportsIndex = 0) -> None: ...
    @staticmethod
    def for_step(clock: WorldClock, dt: float) -> ClockFollower:
        """A follower stepping every ``dt`` seconds, from the clock's current tick."""
    def take(self, clock: WorldClock, /) -> int:
        """The number of steps that fell due since the last take."""
    def take_due(self, clock: WorldClock, /) -> range:
        """Like ``take``, but the ticks the steps fell due at."""
    def alpha(self, tick: SupportsIndex, clock_alpha: float) -> float:
        """The fraction into this follower's own step."""
    def alpha_of(self, clock: WorldClock, /) -> float:
        """``alpha(clock.tick, clock.alpha)``, the tick and alpha read as one pair."""

@final
class TimerState:
    """One timer's schedule inside a ``ClockState``: an immutable value."""

    @property
    def timer(self) -> Timer: ...
    @property
    def seq(self) -> int: ...
    @property
    def period_ticks(self) -> int | None: ...
    @property
    def catch_up(self) -> Literal["each", "coalesce"]: ...
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
    def paused_at(self) -> int | None: ...
    def __init__(self) -> NoReturn: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __copy__(self) -> TimerState: ...

@final
class ClockState:
    """Everything that decides a clock's future, as an immutable value."""

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
    """``value`` as finite seconds in [minimum, maximum], else TypeError/ValueError naming it."""
def check_real(value: object, name: str) -> float:
    """``value`` as a finite float of either sign, else TypeError/ValueError naming it."""
def check_count(value: object, name: str, minimum: int = ..., maximum: int = ...) -> int:
    """``value`` as an int in [minimum, maximum], else TypeError/ValueError naming it."""
def check_bool(value: object, name: str) -> bool:
    """``value`` as a bool (``bool`` or ``numpy.bool_`` only), else TypeError naming it."""
def _timer_state_from_fields(
    timer: Timer, seq: int, period: int, coalesce: bool, anchor: int, due: int, pending: int,
    fired: int, paused: bool, paused_at: int
) -> TimerState: ...
def _clock_state_from_fields(
    config: ClockConfig, mode: Mode | str, resume_mode: Mode | str, tick: int, bank: float,
    alpha: float, owed: int, total_dropped: int, frame: int, window_wall: float,
    window_ticks: int, realized: float, window_done: bool, discontinuities: int, timer_seq: int,
    timers: tuple[TimerState, ...]
) -> ClockState: ...
def _timer_seq_of(timer: Timer) -> int: ...
def _new_clock(cls: type[WorldClock]) -> WorldClock: ...
def _new_timer() -> Timer: ...
def _config_from_dict(fields: dict[str, Any]) -> ClockConfig: ...
def _follower_from_state(period: int, last_tick: int, discontinuities: int) -> ClockFollower: ...

@disjoint_base
class ClockBank:
    """n independent clocks in one object, each exactly a ``WorldClock`` without timers."""

    MODES: ClassVar[tuple[Mode, ...]]
    def __init__(self, n: SupportsIndex, config: ClockConfig | None = None) -> None: ...
    def __len__(self) -> int: ...
    @property
    def scale(self) -> NDArray[np.float64]: ...
    @property
    def fixed_dt(self) -> NDArray[np.float64]: ...
    @property
    def max_steps_per_advance(self) -> NDArray[np.int64]: ...
    @property
    def cap_scales_with_rate(self) -> NDArray[np.bool_]: ...
    @property
    def lockstep_steps(self) -> NDArray[np.int64]: ...
    @property
    def mode(self) -> NDArray[np.uint8]: ...
    def set_mode(
        self, mode: Mode | str, where: SupportsIndex | NDArray[np.bool_] | None = None
    ) -> None:
        """Put slots into ``mode``, as ``WorldClock.mode = mode`` does, at once."""
    @property
    def tick(self) -> NDArray[np.int64]: ...
    @property
    def total_dropped(self) -> NDArray[np.int64]: ...
    @property
    def discontinuities(self) -> NDArray[np.int64]: ...
    @property
    def t(self) -> NDArray[np.float64]: ...
    @property
    def alpha(self) -> NDArray[np.float64]: ...
    @property
    def frame(self) -> NDArray[np.int64]: ...
    @property
    def realized_scale(self) -> NDArray[np.float64]: ...
    def advance(self, wall_dt: float | NDArray[np.float64], /) -> NDArray[np.int64]:
        """Advance every slot by ``wall_dt`` wall seconds; the quanta each ran."""
    def advance_ticks(self, n: SupportsIndex | NDArray[np.integer[Any]], /) -> NDArray[np.int64]:
        """Run exactly ``n`` quanta in every slot now, in any mode, with no cap."""
    def step_once(self, mask: NDArray[np.bool_] | None = None) -> NDArray[np.int64]:
        """Run exactly one quantum in every slot, or in the slots ``mask`` selects."""
    def configure(self, i: SupportsIndex, config: ClockConfig, /) -> None:
        """Replace slot ``i``'s configuration and restart it at tick 0."""
    def clock_state(self, i: SupportsIndex, /) -> ClockState:
        """Slot ``i`` as a ``ClockState``, as ``WorldClock.state()`` would give it."""

@disjoint_base
class BankFollower:
    """A ``ClockFollower`` for every slot of a ``ClockBank``."""

    def __init__(
        self,
        k: SupportsIndex | NDArray[np.integer[Any]],
        start_tick: SupportsIndex | NDArray[np.integer[Any]] = 0,
    ) -> None: ...
    @property
    def period(self) -> int | NDArray[np.int64]: ...
    @property
    def last_tick(self) -> NDArray[np.int64]: ...
    def take(self, bank: ClockBank, /) -> NDArray[np.int64]:
        """The steps that fell due on each slot since the last take."""

def _bank_kernel(
    name: Literal["avx2", "portable"] | None = None,
) -> Literal["avx2", "portable"]: ...
def _bank_live(
    bank: float, wall_dt: float, scale: float, fixed_dt: float,
    max_steps_per_advance: int, cap_scales_with_rate: bool,
) -> tuple[int, int, float]: ...
