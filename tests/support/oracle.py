"""The pure-Python model of the clock: the specification in executable form.

It mirrors the Cython core's semantics line by line in plain Python, with the same float
operations in the same order, so the differential tests can compare them exactly. It is slow
on purpose: clarity over speed, one concept per class, no validation beyond what the
differential tests need (the core's own tests cover bad input).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from cvcclock import Mode

BANK_SNAP = 1e-9
WHOLE_QUANTA_RTOL = 1e-9
EXACT_QUANTA = 65536.0
DEKKER_SPLIT = 134217729.0  # 2**27 + 1


def two_product_error(a: float, b: float, p: float) -> float:
    """The rounding error of ``p = a * b`` (Dekker): a * b == p + error exactly."""
    t = DEKKER_SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = DEKKER_SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl


def bank_quanta(bank: float, wall_dt: float, scale: float, fixed_dt: float) -> tuple[int, float]:
    """``bank + wall_dt * scale / fixed_dt`` as (whole quanta, fraction in [0, 1)), snapped.

    Below EXACT_QUANTA one rounded quotient is exact enough; from there on the quotient is
    computed exactly as a double-double so that huge frames neither lose nor invent quanta.
    """
    q = wall_dt * scale / fixed_dt
    if q < EXACT_QUANTA:
        b = bank + q
        nearest = math.floor(b + 0.5)
        if abs(b - nearest) <= BANK_SNAP:
            b = float(nearest)
        whole = math.floor(b)
        return whole, b - whole
    p = wall_dt * scale
    m = q * fixed_dt
    rest = ((p - m) - two_product_error(q, fixed_dt, m)) + two_product_error(wall_dt, scale, p)
    w = math.floor(q)
    b = bank + ((q - w) + rest / fixed_dt)
    nearest = math.floor(b + 0.5)
    if abs(b - nearest) <= BANK_SNAP:
        b = float(nearest)
    carry = math.floor(b)
    return w + carry, b - carry


@dataclass(frozen=True)
class ModelConfig:
    fixed_dt: float = 1 / 120
    scale: float = 1.0
    max_steps_per_advance: int = 8
    cap_scales_with_rate: bool = False
    lockstep_steps: int = 1

    replace = replace


@dataclass(frozen=True)
class ModelResult:
    steps: int
    first_tick: int
    dropped: int
    alpha: float

    @property
    def last_tick(self) -> int:
        return self.first_tick + self.steps

    def __bool__(self) -> bool:
        return self.steps != 0


def model_ticks_per_step(dt: float, fixed_dt: float) -> int:
    ratio = dt / fixed_dt
    k = math.floor(ratio + 0.5)
    if k >= 1 and abs(ratio - k) <= WHOLE_QUANTA_RTOL * ratio:
        return k
    raise ValueError(f"dt={dt!r} is {ratio:.6g} quanta")


SCHEDULED, PAUSED, ENDED = "scheduled", "paused", "ended"


class ModelTimer:
    """A timer on the model clock: due at anchor + m * period (m >= 1); period 0 is a one-shot."""

    def __init__(self, clock, period, delay, callback, catch_up="each"):
        if catch_up not in ("each", "coalesce"):
            raise ValueError(f"catch_up must be 'each' or 'coalesce', got {catch_up!r}")
        self.clock = clock
        self.callback = callback
        self.period = period
        self.anchor = clock.tick
        self.due = clock.tick + delay
        self.seq = clock.timer_seq
        clock.timer_seq += 1
        self.pending = 0
        self.paused_at = -1  # while paused: the tick it was paused at
        self.fired = 0
        self.coalesce = catch_up == "coalesce"
        self.state = SCHEDULED
        clock.timers.append(self)

    @property
    def period_ticks(self):
        return self.period or None

    @property
    def active(self):
        return self.state == SCHEDULED

    @property
    def paused(self):
        return self.state == PAUSED

    @property
    def next_tick(self):
        if self.state == ENDED:
            return None
        if self.state == PAUSED:
            return self.resume_tick(self.clock.tick)
        return self.due

    @property
    def remaining_ticks(self):
        if self.state == ENDED:
            return 0
        now = self.paused_at if self.state == PAUSED else self.clock.tick
        return max(self.due - now, 0)

    @property
    def remaining(self):
        return self.remaining_ticks * self.clock.fixed_dt if self.remaining_ticks else 0.0

    @property
    def fraction(self):
        if self.state == ENDED:
            return 1.0
        span = self.period or self.due - self.anchor
        if span <= 0:
            return 1.0
        return float(span - min(self.remaining_ticks, span)) / float(span)

    def next_on_grid(self, after):
        if after < self.anchor:
            return self.anchor + self.period
        return self.anchor + ((after - self.anchor) // self.period + 1) * self.period

    def resume_tick(self, now):
        if self.period:
            return self.next_on_grid(now)
        return self.due if self.due > now else None

    def cancel(self):
        self.state = ENDED

    def pause(self):
        if self.state == SCHEDULED:
            self.state = PAUSED
            self.pending = 0
            self.paused_at = self.clock.tick

    def resume(self):
        if self.state == PAUSED:
            due = self.resume_tick(self.clock.tick)
            if due is None:
                self.state = ENDED
            else:
                self.state, self.due = SCHEDULED, due


class ModelClock:
    def __init__(self, config: ModelConfig | None = None) -> None:
        self._mode = Mode.LIVE
        self.resume_mode = Mode.LIVE  # while paused, the mode it left; else the mode itself
        self.discontinuities = 0
        self.timer_seq = 0
        self.timers: list[ModelTimer] = []
        self.configure(config or ModelConfig())

    def configure(self, config: ModelConfig) -> None:
        self.fixed_dt = config.fixed_dt
        self.scale = config.scale
        self.max_steps_per_advance = config.max_steps_per_advance
        self.cap_scales_with_rate = config.cap_scales_with_rate
        self.lockstep_steps = config.lockstep_steps
        self.tick = 0
        self.bank = 0.0  # in quanta
        self.alpha = 0.0
        self.owed = 0
        self.total_dropped = 0
        self.frame = 0
        self.window_wall = 0.0
        self.window_ticks = 0
        self.realized = 0.0
        self.window_done = False
        self.discontinuities += 1  # the mode, and the mode a pause left, are kept
        for timer in self.timers:  # configure() is a restart: every timer ends
            timer.state = ENDED

    def __repr__(self) -> str:
        extra = f" scale={self.scale!r}" if self.scale != 1.0 else ""
        if self._mode is Mode.PAUSED:
            extra += f" resume_mode={self.resume_mode.value!r}"
        return (f"<WorldClock tick={self.tick} t={self.t!r} mode={self._mode.value!r} "
                f"fixed_dt={self.fixed_dt!r}{extra}>")

    @property
    def mode(self) -> Mode:
        return self._mode

    @mode.setter
    def mode(self, mode: Mode | str) -> None:
        self._mode = Mode(mode)
        if self._mode is not Mode.PAUSED:
            self.resume_mode = self._mode
        if self._mode is Mode.LIVE:
            self.alpha = self.bank
        elif self._mode is not Mode.PAUSED:
            self.alpha = 0.0

    @property
    def paused(self) -> bool:
        return self._mode is Mode.PAUSED

    def pause(self) -> None:
        self.mode = Mode.PAUSED

    def resume(self) -> None:
        if self._mode is Mode.PAUSED:
            self.mode = self.resume_mode

    @property
    def config(self) -> ModelConfig:
        return ModelConfig(self.fixed_dt, self.scale, self.max_steps_per_advance,
                           self.cap_scales_with_rate, self.lockstep_steps)

    @property
    def t(self) -> float:
        return self.tick * self.fixed_dt

    @property
    def realized_scale(self) -> float:
        if self.window_done:
            return self.realized
        if self.window_wall > 0.0:
            return self.window_ticks * self.fixed_dt / self.window_wall
        return 0.0

    def _run(self, n: int) -> None:
        """Run n of the owed quanta, firing timers on the way; a raise leaves the rest owed."""
        target = self.tick + n
        rest = self.owed - n
        while True:
            due = [t for t in self.timers if t.state == SCHEDULED and t.due <= target]
            if not due:
                break
            timer = min(due, key=lambda t: (t.due, t.seq))
            self.tick = timer.due
            self.owed = rest + (target - timer.due)
            self._fire(timer, target)
        self.tick = target
        self.owed = rest

    def _fire(self, timer: ModelTimer, target: int) -> None:
        count = 1
        if timer.coalesce:
            count, timer.pending = timer.pending or 1, 0
            if timer.period:
                beyond = (target - timer.due) // timer.period
                if beyond:  # fire once, at the last due tick this call covers
                    timer.pending = count + beyond
                    timer.due += beyond * timer.period
                    return
        due = timer.due
        timer.fired += 1
        if timer.period:
            timer.due += timer.period
        else:
            timer.state = ENDED
        if timer.coalesce:
            timer.callback(due, count)
        else:
            timer.callback(due)

    def every_ticks(self, k, callback, *, catch_up="each"):
        return ModelTimer(self, k, k, callback, catch_up)

    def after_ticks(self, k, callback):
        return ModelTimer(self, 0, k, callback)

    def every(self, interval, callback, *, catch_up="each"):
        return self.every_ticks(model_ticks_per_step(interval, self.fixed_dt), callback,
                                catch_up=catch_up)

    def after(self, delay, callback):
        return self.after_ticks(model_ticks_per_step(delay, self.fixed_dt), callback)

    def cancel_all(self, callback) -> int:
        if not callable(callback):
            raise TypeError(f"callback must be callable, got {callback!r}")
        matches = [t for t in self._live_timers() if t.callback == callback]
        cancelled = 0
        for timer in matches:
            if timer.state != ENDED:  # an __eq__ may have cancelled it already
                timer.cancel()
                cancelled += 1
        return cancelled

    @property
    def next_due_tick(self):
        due = [(t.due, t.seq) for t in self.timers if t.state == SCHEDULED]
        return min(due)[0] if due else None

    def _result(self, first: int, dropped: int) -> ModelResult:
        return ModelResult(self.tick - first, first, dropped, self.alpha)

    def advance(self, wall_dt: float) -> ModelResult:
        steps = dropped = 0
        if self.mode is Mode.LIVE:
            whole, self.bank = bank_quanta(self.bank, wall_dt, self.scale, self.fixed_dt)
            self.alpha = self.bank
            cap = self.max_steps_per_advance
            if self.cap_scales_with_rate and self.scale > 1.0:
                cap *= math.ceil(self.scale)
            steps = min(whole, cap)
            dropped = whole - steps
            self.total_dropped += dropped
        elif self.mode is Mode.LOCKSTEP:
            steps = self.lockstep_steps
        self.frame += 1
        self.window_wall += wall_dt
        self.window_ticks += steps
        if self.window_wall >= 0.5:
            self.realized = self.window_ticks * self.fixed_dt / self.window_wall
            self.window_done = True
            self.window_wall = 0.0
            self.window_ticks = 0
        first = self.tick
        self.owed += steps
        if self.mode in (Mode.LIVE, Mode.LOCKSTEP):  # the other modes run nothing, owed or not
            self._run(self.owed)
        return self._result(first, dropped)

    def advance_ticks(self, n: int) -> ModelResult:
        """Exactly n quanta; owed ones are the first of them."""
        first = self.tick
        self.owed = max(self.owed, n)
        self._run(n)
        return self._result(first, 0)

    def step_once(self) -> ModelResult:
        return self.advance_ticks(1)

    def advance_to_next_due(self) -> ModelResult:
        """Fire the timers due now (a callback raised before them), then run to the next."""
        first = self.tick
        if self.next_due_tick is not None and self.next_due_tick <= self.tick:
            self._run(0)
        if self.next_due_tick is not None:
            n = self.next_due_tick - self.tick
            self.owed = max(self.owed, n)
            self._run(n)
        return self._result(first, 0)

    def drop_owed(self) -> int:
        n, self.owed = self.owed, 0
        self.total_dropped += n
        return n

    # -- state: the same fields, in the same order, as the core's ClockState --------------

    def _live_timers(self) -> list[ModelTimer]:
        return sorted((t for t in self.timers if t.state != ENDED), key=lambda t: t.seq)

    def state(self) -> tuple:
        timers = tuple((t, t.seq, t.period, t.coalesce, t.anchor, t.due, t.pending, t.fired,
                        t.state == PAUSED, t.paused_at if t.state == PAUSED else -1)
                       for t in self._live_timers())
        return (self.config, self._mode, self.resume_mode, self.tick, self.bank, self.alpha,
                self.owed, self.total_dropped, self.frame, self.window_wall, self.window_ticks,
                self.realized, self.window_done, self.discontinuities, self.timer_seq, timers)

    def restore(self, state: tuple) -> None:
        *fields, timers = state
        mine = {id(entry[0]) for entry in timers}
        extra = [t for t in self._live_timers() if id(t) not in mine]
        if extra:
            raise ValueError(f"extra timers: {extra}")
        config, self._mode, self.resume_mode, self.tick, self.bank, self.alpha = fields[:6]
        (self.owed, self.total_dropped, self.frame, self.window_wall, self.window_ticks,
         self.realized, self.window_done, saved_discontinuities, self.timer_seq) = fields[6:]
        self.fixed_dt, self.scale = config.fixed_dt, config.scale
        self.max_steps_per_advance = config.max_steps_per_advance
        self.cap_scales_with_rate, self.lockstep_steps = (config.cap_scales_with_rate,
                                                          config.lockstep_steps)
        self.discontinuities = max(self.discontinuities, saved_discontinuities) + 1
        for timer, seq, period, coalesce, anchor, due, pending, fired, paused, at in timers:
            timer.seq, timer.period, timer.coalesce, timer.anchor = seq, period, coalesce, anchor
            timer.due, timer.pending, timer.fired, timer.paused_at = due, pending, fired, at
            timer.state = PAUSED if paused else SCHEDULED

    def seek_tick(self, n: int) -> None:
        if self.mode is not Mode.REPLAY:
            raise ValueError("seek_tick needs replay mode")
        if n != self.tick:
            self.tick = n
            self.owed = 0
            self.discontinuities += 1
            for timer in self.timers:  # seeking fires nothing
                if timer.state == SCHEDULED:
                    timer.pending = 0
                    if timer.period:
                        timer.due = timer.next_on_grid(n)
                    elif timer.due <= n:
                        timer.state = ENDED


class ModelFollower:
    def __init__(self, k: int, start_tick: int = 0, discontinuities: int | None = None) -> None:
        self.period = k
        self.last_tick = start_tick
        self.discontinuities = discontinuities

    @classmethod
    def for_step(cls, clock: ModelClock, dt: float) -> ModelFollower:
        return cls(model_ticks_per_step(dt, clock.fixed_dt), clock.tick, clock.discontinuities)

    def take(self, clock: ModelClock) -> int:
        if self.discontinuities != clock.discontinuities:
            first_look = self.discontinuities is None
            self.discontinuities = clock.discontinuities
            if not first_look:
                self.last_tick = clock.tick
                return 0
        if clock.tick <= self.last_tick:
            return 0
        n = clock.tick // self.period - self.last_tick // self.period
        self.last_tick = clock.tick
        return n

    def take_due(self, clock: ModelClock) -> range:
        n = self.take(clock)
        last = clock.tick // self.period * self.period
        return range(last - (n - 1) * self.period, last + 1, self.period) if n else range(0)

    def alpha(self, tick: int, clock_alpha: float) -> float:
        return ((tick % self.period) + clock_alpha) / self.period

    def alpha_of(self, clock: ModelClock) -> float:
        return self.alpha(clock.tick, clock.alpha)


# -- which states a clock can hold: the rules ClockState and TimerState check ---------------

MAX_TICK = 2**62
WINDOW_WALL = 0.5


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_real(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def timer_fields_problem(timer_fields: tuple) -> str | None:
    """Why a TimerState's pickled fields (the timer, seq, period, coalesce, anchor, due,
    pending, fired, paused, paused_at) could not be a live timer's, or None if they could."""
    _timer, seq, period, coalesce, anchor, due, pending, fired, paused, paused_at = timer_fields
    counts = {"seq": seq, "period": period, "anchor": anchor, "due": due, "pending": pending,
              "fired": fired}
    if paused is True:
        counts["paused_at"] = paused_at
    for name, value in counts.items():
        if not _is_int(value) or not 0 <= value <= MAX_TICK:
            return f"{name} is not a count in [0, 2**62]: {value!r}"
    if not isinstance(coalesce, bool) or not isinstance(paused, bool):
        return "coalesce and paused are bools"
    if period == 0:
        if coalesce:
            return "a one-shot never coalesces"
        if due <= anchor:
            return "a one-shot falls due after its anchor"
    elif due <= anchor or (due - anchor) % period:
        return "a repeating timer falls due on its grid"
    if pending and (paused or not coalesce or not period):
        return "only a scheduled coalescing repeating timer carries intervals"
    return None


def state_fields_problem(fields: tuple, timer_fields: list[tuple]) -> str | None:
    """Why a ClockState's pickled fields could not be a clock's, or None if they could.

    ``fields`` are the 15 fields before the timers, as ``ClockState.__reduce__`` gives them
    (config, mode, resume_mode, tick, bank, alpha, owed, total_dropped, frame, window_wall,
    window_ticks, realized, window_done, discontinuities, timer_seq); ``timer_fields`` the
    pickled fields of each of its TimerStates.
    """
    (_config, mode, resume_mode, tick, bank, alpha, owed, total_dropped, frame, window_wall,
     window_ticks, realized, window_done, discontinuities, timer_seq) = fields
    if resume_mode is Mode.PAUSED or (mode is not Mode.PAUSED and resume_mode is not mode):
        return "resume_mode contradicts mode"
    counts = {"tick": tick, "total_dropped": total_dropped, "frame": frame,
              "window_ticks": window_ticks, "discontinuities": discontinuities,
              "timer_seq": timer_seq, "owed": owed}
    for name, value in counts.items():
        if not _is_int(value) or not 0 <= value <= MAX_TICK:
            return f"{name} is not a count in [0, 2**62]: {value!r}"
    if tick + owed > MAX_TICK:
        return "tick + owed passes 2**62"
    for name, value in (("bank", bank), ("alpha", alpha)):
        if not _is_real(value) or not (math.isfinite(value) and 0.0 <= value < 1.0):
            return f"{name} is not a fraction of a quantum: {value!r}"
    if not _is_real(window_wall) or not (math.isfinite(window_wall)
                                         and 0.0 <= window_wall < WINDOW_WALL):
        return f"window_wall is not in [0, 0.5): {window_wall!r}"
    if not _is_real(realized) or not float(realized) >= 0.0:
        return f"realized is not a speed: {realized!r}"
    if not isinstance(window_done, bool):
        return "window_done is a bool"
    last = -1
    for entry in timer_fields:
        problem = timer_fields_problem(entry)
        if problem:
            return problem
        seq, due, paused = entry[1], entry[5], entry[8]
        if seq <= last or seq >= timer_seq:
            return "timers in creation order, each before timer_seq"
        last = seq
        if not paused and due < tick:
            return "a scheduled timer due before the tick"
    return None
