"""What ``python -m cvcclock bench`` and ``benchmarks/`` time: each row of the table as a case.

A case is a statement timed with ``timeit`` in a namespace its ``make`` builds (untimed), and
what one execution of the statement does: ``ops`` operations of one ``unit`` (a call, a
firing, a clock-advance). Every row is read against its ``floor`` (an empty call of a C
builtin method, with the calling convention of the row: ``[].count(x)`` for one argument,
``[].clear()`` for none) and, for a peer or a baseline, against the cvcclock row it competes
with (its ``rival``). Peers (arcade, pyglet, simpy) are imported only by their own ``make``;
one not installed raises ``ImportError`` there, and the table says it was skipped.

The scaling series (how a cost grows with the work) are cases too, one per point: see
``scaling_series``.
"""

import dataclasses
import importlib
import os
from collections import deque
from collections.abc import Callable, Iterator
from itertools import repeat
from typing import Any

from cvcclock import ClockBank, ClockConfig, ClockFollower, WorldClock, WorldClockBinding

#: The frame every per-call row advances by, on a live clock of quantum ``QUANTUM`` (2 quanta).
WALL_DT = 1.0 / 60.0
QUANTUM = 1.0 / 120.0
#: Firings per timed execution in the timer rows, and followers per frame in the take row.
FIRINGS = 1000
FOLLOWERS = 1000
#: The live timers of the "many timers" row, and a due tick no run reaches.
MANY_TIMERS = 10**5
FAR = 10**16
#: The Python loop over WorldClocks runs over at most this many clocks: at 360 bytes or more
#: each, 10**5 clocks already exceed a 32 MiB cache, so the cost per clock-advance is the one a
#: loop over 10**6 pays (measured: 153 vs 152 ns), without making 10**6 clocks (3 s).
LOOP_CLOCKS = 10**5

Namespace = dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Case:
    """One row: ``stmt`` timed in the namespace ``make()`` returns.

    Attributes
    ----------
    key : str
        A short stable name (the JSON's and the goals' handle on the row).
    label : str
        What the table prints.
    stmt : str
        The statement ``timeit`` times; one execution makes ``ops`` operations.
    make : callable
        Builds the subject, untimed, and returns the names ``stmt`` uses. Raises
        ``ImportError`` when a peer it needs is not installed.
    ops : int
        Operations one execution of ``stmt`` makes.
    unit : str
        What one operation is: ``"call"``, ``"firing"``, ``"frame"`` or ``"clock-advance"``.
    floor : str or None
        The key of the floor row this row is read against; None for a floor.
    rival : str or None
        The key of the row this one competes with, if any.
    needs : str or None
        What this row needs beyond the package (a peer, numpy, ClockBank), as the line
        saying it was skipped names it.
    """

    key: str
    label: str
    stmt: str
    make: Callable[[], Namespace]
    ops: int = 1
    unit: str = "call"
    floor: str | None = "floor1"
    rival: str | None = None
    needs: str | None = None


def power(n: int) -> str:
    """``n`` as a label: ``10^k`` for a power of ten, else its digits."""
    exponent = len(str(n)) - 1
    return f"10^{exponent}" if n >= 10 and n == 10**exponent else str(n)


def cb(*args: object) -> None:
    """The no-op callback every timer row fires."""


# ---- cvcclock's subjects -------------------------------------------------------------------

def live_clock(timers: int = 0) -> WorldClock:
    """A live clock of ``QUANTUM`` already far from tick 0 (no cached small ints), with
    ``timers`` timers that are never due."""
    clock = WorldClock(ClockConfig(fixed_dt=QUANTUM))
    clock.advance_ticks(10**6)
    for i in range(timers):
        clock.every_ticks(FAR + i, cb)
    return clock


def staggered_clock(timers: int, callback: Callable[[int], object] = cb) -> WorldClock:
    """``timers`` timers of period ``timers`` calling ``callback``, one due at every quantum
    from now on: each firing moves a timer from the front of the queue to its back."""
    clock = WorldClock(ClockConfig(fixed_dt=QUANTUM))
    for i in range(timers):          # made at tick i, first due at i + timers: none fires yet
        if i:
            clock.advance_ticks(1)
        clock.every_ticks(timers, callback)
    return clock


def idle_plus_one_clock(timers: int, callback: Callable[[int], object] = cb) -> WorldClock:
    """``timers - 1`` timers that are never due, and one calling ``callback`` at every
    quantum."""
    clock = live_clock(timers - 1)
    clock.every_ticks(1, callback)
    return clock


@dataclasses.dataclass(slots=True)
class FrameResult:
    """What ``FixYourTimestep.advance`` returns: the fields of a ``StepResult`` it computes."""

    steps: int
    dropped: int
    alpha: float


class FixYourTimestep:
    """The fixed-timestep accumulator as users write it in pure Python, doing what
    ``WorldClock.advance`` does in live mode: bank, run whole quanta up to a cap, drop and
    count the rest, return the steps, the dropped count and alpha.

    Parameters
    ----------
    dt : float
        The quantum, in seconds.
    scale : float
        World seconds per wall second.
    max_steps : int
        The stall guard's cap on quanta per call.
    """

    def __init__(self, dt: float, scale: float = 1.0, max_steps: int = 8) -> None:
        self.dt = dt
        self.scale = scale
        self.max_steps = max_steps
        self.accumulator = 0.0
        self.tick = 0
        self.dropped = 0
        self.frame = 0

    def advance(self, wall_dt: float) -> FrameResult:
        """Bank ``wall_dt`` and run the whole quanta, as ``WorldClock.advance`` does."""
        self.frame += 1
        self.accumulator += wall_dt * self.scale
        steps = 0
        while self.accumulator >= self.dt and steps < self.max_steps:
            self.accumulator -= self.dt
            self.tick += 1
            steps += 1
        dropped = 0
        if self.accumulator >= self.dt:      # the stall guard: drop what the cap left
            dropped = int(self.accumulator // self.dt)
            self.accumulator -= dropped * self.dt
            self.dropped += dropped
        return FrameResult(steps, dropped, self.accumulator / self.dt)


def _floors() -> Namespace:
    return {"count": [].count, "clear": [].clear, "n": 10**6 + 7, "dt": WALL_DT}


def _clock_calls() -> Namespace:
    clock = live_clock()
    return {"clock": clock, "advance": clock.advance, "advance_ticks": clock.advance_ticks,
            "step_once": clock.step_once, "dt": WALL_DT}


#: One frame of ``followers``: a quantum, then every follower takes its step.
TAKE_FRAME = "step_once()\nfor take in takes: take(clock)"
#: Its floor, the same loop calling ``[].count``: a loop over a list costs less than timeit's
#: own, so the take row is read against the same loop shape.
TAKE_FLOOR = "step_once()\nfor take in counts: take(clock)"


def _takes(followers: int) -> Callable[[], Namespace]:
    # A step falls due for every follower each execution, so each take runs its whole path
    # rather than the nothing-due shortcut.
    def make() -> Namespace:
        clock = live_clock()
        takes = [ClockFollower.for_step(clock, QUANTUM).take for _ in range(followers)]
        return {"clock": clock, "step_once": clock.step_once, "takes": takes,
                "counts": [[].count] * followers}
    return make


def _drive() -> Namespace:
    binding = WorldClockBinding({}, live_clock())
    return {"drive": binding.drive, "dt": WALL_DT}


def _hand_written() -> Namespace:
    return {"advance": FixYourTimestep(QUANTUM).advance, "dt": WALL_DT}


def _from_c() -> Namespace:
    return {"drain": deque(maxlen=0).extend, "cb": cb, "ticks": range(FIRINGS)}


def _firing(make_clock: Callable[[], WorldClock]) -> Callable[[], Namespace]:
    def make() -> Namespace:
        return {"advance_ticks": make_clock().advance_ticks, "k": FIRINGS}
    return make


# ---- peers ---------------------------------------------------------------------------------

def import_peer(name: str) -> Any:
    """Import a peer's module by name; ``ImportError`` when it is not installed.

    arcade is imported headless (``ARCADE_HEADLESS``): the bench opens no window, and a
    machine may have no display.
    """
    if name.partition(".")[0] != "arcade":
        return importlib.import_module(name)
    added = "ARCADE_HEADLESS" not in os.environ
    os.environ.setdefault("ARCADE_HEADLESS", "1")
    try:
        return importlib.import_module(name)
    finally:
        if added:
            del os.environ["ARCADE_HEADLESS"]


def _arcade_clock() -> Namespace:
    clock = import_peer("arcade.clock").Clock()
    return {"tick": clock.tick, "dt": WALL_DT}


def _arcade_fixed() -> Namespace:
    # What arcade.Window._dispatch_updates does each frame, without its events: tick the
    # clock, then the fixed clock while a fixed step is due.
    arcade_clock = import_peer("arcade.clock")
    clock = arcade_clock.Clock()
    fixed = arcade_clock.FixedClock(clock, QUANTUM)

    def frame(wall_dt: float) -> None:
        clock.tick(wall_dt)
        while fixed.accumulated >= QUANTUM:
            fixed.tick(QUANTUM)

    return {"frame": frame, "dt": WALL_DT}


def _fake_time_pyglet() -> tuple[Any, list[float]]:
    """A pyglet clock on a time function the bench moves, so no wall clock is read."""
    now = [0.0]
    return import_peer("pyglet.clock").Clock(time_function=lambda: now[0]), now


def _pyglet_tick() -> Namespace:
    clock, _ = _fake_time_pyglet()
    return {"tick": clock.tick}


def pyglet_firings(callback: Callable[..., object], firings: int) -> Callable[[], None]:
    """``run()`` making ``firings`` firings of one pyglet interval of 0.01 s.

    pyglet fires an interval at most once a ``tick()``, so this is how its users drive it:
    move the time by the interval, tick. It is deterministic: pyglet reschedules a fired item
    at ``now + interval``, the same float sum as the fake time's.
    """
    clock, now = _fake_time_pyglet()
    clock.schedule_interval(callback, 0.01)
    tick = clock.tick

    def run() -> None:
        for _ in repeat(None, firings):
            now[0] += 0.01
            tick()

    return run


def simpy_firings(callback: Callable[..., object], firings: int,
                  processes: int = 1) -> Callable[[], None]:
    """``run()`` making ``firings`` firings (a multiple of ``processes``) in all of
    ``processes`` simpy processes, each ``while True: yield env.timeout(p); callback()`` with
    ``p = processes`` seconds, so that they fire together, once a period.

    Whole-second timeouts keep the times exact, so every ``run()`` makes exactly ``firings``
    firings, however many times it is called.
    """
    env = import_peer("simpy").Environment()

    def process() -> Iterator[object]:
        while True:
            yield env.timeout(float(processes))
            callback()

    for _ in range(processes):
        env.process(process())
    env.run(until=0.5)            # from now on, run(until) falls between two due times
    run_env = env.run

    def run() -> None:
        run_env(until=env.now + firings)

    return run


def _peer_firings(maker: Callable[[Callable[..., object], int], Callable[[], None]]
                  ) -> Callable[[], Namespace]:
    def make() -> Namespace:
        return {"run": maker(cb, FIRINGS)}
    return make


# ---- many clocks ---------------------------------------------------------------------------

class NumpyBank:
    """n clocks advanced by ``WorldClock.advance``'s arithmetic written in numpy: what a host
    writes today, in place and without temporaries where numpy allows.

    Live, lockstep and the other modes per slot; the bank snap, the stall guard's cap (scaled
    with the rate where asked), dropped quanta, the frame count and the realized-speed window,
    in the same float operations as the core's common path (a quotient below 2**16 quanta).

    Parameters
    ----------
    n : int
        The number of clocks.
    config : ClockConfig, optional
        Every slot's configuration; the defaults when omitted.
    """

    SNAP = 1e-9       # the core's BANK_SNAP
    LIVE, LOCKSTEP, PAUSED = 0, 1, 2

    def __init__(self, n: int, config: ClockConfig | None = None) -> None:
        import numpy as np

        config = ClockConfig() if config is None else config
        self._np = np
        self.scale = np.full(n, config.scale)
        self.fixed_dt = np.full(n, config.fixed_dt)
        self.max_steps = np.full(n, config.max_steps_per_advance, np.int64)
        self.cap_scales = np.full(n, config.cap_scales_with_rate)
        self.lockstep_steps = np.full(n, config.lockstep_steps, np.int64)
        self.mode = np.full(n, self.LIVE, np.uint8)
        self.bank = np.zeros(n)
        self.tick = np.zeros(n, np.int64)
        self.total_dropped = np.zeros(n, np.int64)
        self.frame = np.zeros(n, np.int64)
        self.window_wall = np.zeros(n)
        self.window_ticks = np.zeros(n, np.int64)
        self.realized = np.zeros(n)
        self.steps = np.zeros(n, np.int64)
        self._b, self._near, self._cap = np.zeros(n), np.zeros(n), np.zeros(n)
        self._mask, self._live = np.zeros(n, bool), np.zeros(n, bool)

    def advance(self, wall_dt: float) -> Any:
        """Advance every clock by ``wall_dt`` wall seconds; the quanta each ran (one array,
        reused by every call)."""
        np, b, near, cap, mask, live = (self._np, self._b, self._near, self._cap, self._mask,
                                        self._live)
        np.multiply(self.scale, wall_dt, out=b)            # bank + wall_dt * scale / fixed_dt
        np.divide(b, self.fixed_dt, out=b)
        np.add(self.bank, b, out=b)
        np.add(b, 0.5, out=near)                           # snap to a whole count within 1e-9
        np.floor(near, out=near)
        np.subtract(b, near, out=cap)
        np.abs(cap, out=cap)
        np.less_equal(cap, self.SNAP, out=mask)
        np.copyto(b, near, where=mask)
        np.floor(b, out=near)                              # near: the whole quanta banked
        np.subtract(b, near, out=b)                        # b: the new bank
        np.ceil(self.scale, out=cap)                       # the cap, scaled where asked
        np.multiply(cap, self.max_steps, out=cap)
        np.greater(self.scale, 1.0, out=mask)
        np.logical_and(mask, self.cap_scales, out=mask)
        np.logical_not(mask, out=mask)
        np.copyto(cap, self.max_steps, where=mask)
        np.minimum(near, cap, out=cap)                     # cap: the quanta run
        np.equal(self.mode, self.LIVE, out=live)
        np.subtract(near, cap, out=near)                   # near: the quanta dropped
        np.add(self.total_dropped, near, out=self.total_dropped, where=live, casting="unsafe")
        np.copyto(self.bank, b, where=live)
        np.copyto(self.steps, cap, where=live, casting="unsafe")
        np.equal(self.mode, self.LOCKSTEP, out=mask)
        np.copyto(self.steps, self.lockstep_steps, where=mask)
        np.logical_or(live, mask, out=mask)
        np.logical_not(mask, out=mask)                     # the modes that run nothing
        np.copyto(self.steps, 0, where=mask)
        np.add(self.tick, self.steps, out=self.tick)
        np.add(self.frame, 1, out=self.frame)
        np.add(self.window_wall, wall_dt, out=self.window_wall)
        np.add(self.window_ticks, self.steps, out=self.window_ticks)
        np.greater_equal(self.window_wall, 0.5, out=mask)
        if mask.any():                                     # a window completed
            done = self.window_ticks[mask] * self.fixed_dt[mask] / self.window_wall[mask]
            self.realized[mask] = done
            self.window_wall[mask] = 0.0
            self.window_ticks[mask] = 0
        return self.steps


def _bank_config() -> ClockConfig:
    return ClockConfig(fixed_dt=QUANTUM)


def touched_bank(n: int, config: ClockConfig | None = None) -> ClockBank:
    """A ``ClockBank`` of ``n`` clocks whose every array has been written, as a host's would
    be: memory never written is the kernel's shared zero page, which reads from cache and
    would flatter the bank."""
    bank = ClockBank(n, config)
    for array in (bank.mode, bank.cap_scales_with_rate, bank.scale, bank.fixed_dt):
        array[:] = array.copy()
    bank.set_mode("lockstep")
    bank.set_mode("live")
    return bank


def _bank(n: int, per_slot: bool = False) -> Callable[[], Namespace]:
    def make() -> Namespace:
        import numpy as np

        walls = np.full(n, WALL_DT) if per_slot else WALL_DT
        return {"advance": touched_bank(n, _bank_config()).advance, "dt": walls}
    return make


def shared_bank(n: int, config: ClockConfig | None = None, mixed: int = 0) -> ClockBank:
    """A ``ClockBank`` of ``n`` clocks whose configuration only its methods wrote (no array
    handed out): one config shared by every slot, or with ``mixed`` > 0 every ``mixed``-th
    slot reconfigured to twice the scale. Advanced once, so that every array it touches
    has been written (memory never written is the shared zero page)."""
    config = config or _bank_config()
    bank = ClockBank(n, config)
    if mixed:
        for i in range(0, n, mixed):
            bank.configure(i, config.replace(scale=2 * config.scale))
    bank.advance(WALL_DT)
    return bank


def _shared_bank(n: int, mixed: int = 0) -> Callable[[], Namespace]:
    def make() -> Namespace:
        return {"advance": shared_bank(n, mixed=mixed).advance, "dt": WALL_DT}
    return make


def _bank_loop(n: int) -> Callable[[], Namespace]:
    def make() -> Namespace:
        config = _bank_config()
        return {"advances": [WorldClock(config).advance for _ in range(n)], "dt": WALL_DT}
    return make


def _bank_numpy(n: int) -> Callable[[], Namespace]:
    def make() -> Namespace:
        return {"advance": NumpyBank(n, _bank_config()).advance, "dt": WALL_DT}
    return make


#: The bytes ClockBank.advance's loop reads for one clock (scale, fixed_dt, max_steps,
#: lockstep: 8 each; mode, cap_scales: 1 each; bank, window_wall, window_ticks, tick: 8 each;
#: the mode it last ran in: 1) and writes (bank, window_wall, window_ticks, tick, steps: 8
#: each). A copy of half their sum moves as many bytes: the memory-bandwidth bound.
BANK_READ_BYTES = 4 * 8 + 2 + 4 * 8 + 1
BANK_WRITE_BYTES = 5 * 8
BOUND_BYTES = (BANK_READ_BYTES + BANK_WRITE_BYTES) // 2


def _bank_copy(n: int) -> Callable[[], Namespace]:
    def make() -> Namespace:
        import numpy as np

        # Both written before they are timed: memory never written is the shared zero page.
        source, target = np.ones(n * BOUND_BYTES, np.uint8), np.ones(n * BOUND_BYTES, np.uint8)
        return {"copyto": np.copyto, "source": source, "target": target}
    return make


# ---- the table -----------------------------------------------------------------------------

def table_cases(clocks: int = 10**6) -> list[Case]:
    """The rows of ``python -m cvcclock bench``, in the order printed.

    Parameters
    ----------
    clocks : int
        The n of the ClockBank rows (the numpy rows and the copy too; the loop over
        ``WorldClock``s runs over at most ``LOOP_CLOCKS`` of them).

    Returns
    -------
    list of Case
    """
    loop = min(clocks, LOOP_CLOCKS)
    return [
        Case("floor1", "floor: [].count(x)", "count(dt)", _floors, floor=None),
        Case("floor0", "floor: [].clear()", "clear()", _floors, floor=None),
        Case("bit_length", "n.bit_length()", "n.bit_length()", _floors, floor="floor0"),
        Case("advance", "clock.advance(1/60), 2 quanta", "advance(dt)", _clock_calls),
        Case("advance_ticks", "clock.advance_ticks(1)", "advance_ticks(1)", _clock_calls),
        Case("step_once", "clock.step_once()", "step_once()", _clock_calls, floor="floor0"),
        Case("floor1_loop", "floor: [].count(x), take's loop", TAKE_FLOOR, _takes(FOLLOWERS),
             ops=FOLLOWERS, floor=None),
        Case("take", "follower.take(clock), a step due", TAKE_FRAME, _takes(FOLLOWERS),
             ops=FOLLOWERS, floor="floor1_loop"),
        Case("tick", "clock.tick", "clock.tick", _clock_calls, floor="floor0"),
        Case("t", "clock.t", "clock.t", _clock_calls, floor="floor0"),
        Case("alpha", "clock.alpha", "clock.alpha", _clock_calls, floor="floor0"),
        Case("drive", "binding.drive(1/60), dict tree", "drive(dt)", _drive, unit="frame",
             rival="advance"),
        Case("hand", "hand-written accumulator, 2 quanta", "advance(dt)", _hand_written,
             unit="frame", rival="advance"),
        Case("arcade_clock", "arcade Clock.tick(1/60)", "tick(dt)", _arcade_clock,
             unit="frame", rival="advance", needs="arcade"),
        Case("arcade_fixed", "arcade Clock + FixedClock frame", "frame(dt)", _arcade_fixed,
             unit="frame", rival="advance", needs="arcade"),
        Case("pyglet_tick", "pyglet Clock.tick(), none due", "tick()", _pyglet_tick,
             unit="frame", floor="floor0", rival="advance", needs="pyglet"),
        Case("from_c", "callback called from C", "drain(map(cb, ticks))", _from_c,
             ops=FIRINGS, unit="firing"),
        Case("fire", "timer firing, 1 timer", "advance_ticks(k)",
             _firing(lambda: staggered_clock(1)), ops=FIRINGS, unit="firing",
             rival="from_c"),
        Case("fire_many", f"timer firing, {power(MANY_TIMERS)} staggered timers",
             "advance_ticks(k)", _firing(lambda: staggered_clock(MANY_TIMERS)), ops=FIRINGS,
             unit="firing", rival="fire"),
        Case("pyglet_fire", "pyglet interval firing", "run()", _peer_firings(pyglet_firings),
             ops=FIRINGS, unit="firing", rival="fire", needs="pyglet"),
        Case("simpy_fire", "simpy timeout firing", "run()", _peer_firings(simpy_firings),
             ops=FIRINGS, unit="firing", rival="fire", needs="simpy"),
        Case("bank", f"ClockBank.advance, n={power(clocks)}", "advance(dt)", _bank(clocks),
             ops=clocks, unit="clock-advance"),
        Case("bank_walls", f"ClockBank.advance, n={power(clocks)} walls", "advance(dt)",
             _bank(clocks, per_slot=True), ops=clocks, unit="clock-advance", rival="bank"),
        Case("bank_shared", f"ClockBank.advance, n={power(clocks)} one config", "advance(dt)",
             _shared_bank(clocks), ops=clocks, unit="clock-advance", rival="bank"),
        Case("bank_mixed", f"ClockBank.advance, n={power(clocks)} configured", "advance(dt)",
             _shared_bank(clocks, mixed=1000), ops=clocks, unit="clock-advance", rival="bank"),
        Case("bank_loop", f"loop over {power(loop)} WorldClocks", "for advance in advances: "
             "advance(dt)", _bank_loop(loop), ops=loop, unit="clock-advance", rival="bank"),
        Case("bank_numpy", f"numpy, the same arithmetic, n={power(clocks)}", "advance(dt)",
             _bank_numpy(clocks), ops=clocks, unit="clock-advance", rival="bank"),
        Case("bank_copy", f"numpy copy of its bytes, n={power(clocks)}",
             "copyto(target, source)", _bank_copy(clocks), ops=clocks, unit="clock-advance",
             rival="bank"),
    ]


# ---- how cost grows with work ---------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Series:
    """One panel of the scaling plot: lines of cases over the same x values.

    Attributes
    ----------
    key : str
        A short stable name.
    title : str
        The panel's title.
    x_label, y_label : str
        The axes' labels.
    xs : tuple of int
        The x values, the work.
    lines : dict of str to callable
        Each line's label, and the case at a given x (one execution is what is plotted).
    throughput : bool
        True to plot millions of operations a second rather than ns an execution.
    """

    key: str
    title: str
    x_label: str
    y_label: str
    xs: tuple[int, ...]
    lines: dict[str, Callable[[int], Case]]
    throughput: bool = False


def _decades(first: int, last: int) -> tuple[int, ...]:
    return tuple(10**k for k in range(first, last + 1))


def _clock_case(label: str, stmt: str, make_clock: Callable[[], WorldClock]) -> Case:
    def make() -> Namespace:
        return {"advance_ticks": make_clock().advance_ticks}
    return Case(label, label, stmt, make)


def _every_thousand() -> WorldClock:
    clock = live_clock()
    clock.every_ticks(1000, cb)
    return clock


def scaling_series() -> list[Series]:
    """The panels of ``benchmarks/plot_scaling.py``: the cost of an advance against the live
    timers, of a frame against the followers taking, of an advance against its width, and
    the throughput of ClockBank (one configuration for every slot, and with its
    configuration arrays written; beside numpy and a copy of its bytes) against n.

    Returns
    -------
    list of Series
    """
    return [
        Series("timers", "advance_ticks(1) against the live timers", "live timers",
               "ns a call (one firing)", _decades(0, 5), {
                   "idle timers plus one firing each quantum": lambda x: _clock_case(
                       f"idle+1 {x}", "advance_ticks(1)", lambda: idle_plus_one_clock(x)),
                   "staggered: every firing moves through the queue": lambda x: _clock_case(
                       f"staggered {x}", "advance_ticks(1)", lambda: staggered_clock(x))}),
        Series("followers", "a frame: step_once() and every follower's take", "followers",
               "ns a frame", _decades(0, 3), {
                   "one step due for each": lambda x: Case(f"take {x}", f"take {x}",
                                                           TAKE_FRAME, _takes(x))}),
        Series("width", "advance_ticks(w) against its width", "quanta a call (w)",
               "ns a call", _decades(0, 6), {
                   "no timer": lambda x: _clock_case(f"w {x}", f"advance_ticks({x})",
                                                     live_clock),
                   "1000 timers, none due": lambda x: _clock_case(
                       f"w {x} idle", f"advance_ticks({x})", lambda: live_clock(1000)),
                   "a timer every 1000 quanta (w/1000 firings)": lambda x: _clock_case(
                       f"w {x} firing", f"advance_ticks({x})", _every_thousand)}),
        Series("bank", "ClockBank.advance(1/60) against n", "clocks (n)",
               "millions of clock-advances a second", _decades(2, 7), {
                   "ClockBank, one configuration": lambda x: Case(
                       f"shared bank {x}", "shared ClockBank", "advance(dt)",
                       _shared_bank(x), ops=x),
                   "ClockBank, arrays written": lambda x: Case(
                       f"bank {x}", "ClockBank", "advance(dt)", _bank(x), ops=x),
                   "numpy, the same arithmetic": lambda x: Case(
                       f"numpy {x}", "numpy", "advance(dt)", _bank_numpy(x), ops=x),
                   "numpy copy of its bytes": lambda x: Case(
                       f"copy {x}", "copy", "copyto(target, source)", _bank_copy(x), ops=x)},
               throughput=True),
    ]
