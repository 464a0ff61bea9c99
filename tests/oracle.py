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


def model_ticks_per_step(dt: float, fixed_dt: float) -> int:
    ratio = dt / fixed_dt
    k = math.floor(ratio + 0.5)
    if k >= 1 and abs(ratio - k) <= WHOLE_QUANTA_RTOL * ratio:
        return k
    raise ValueError(f"dt={dt!r} is {ratio:.6g} quanta")


class ModelClock:
    def __init__(self, config: ModelConfig | None = None) -> None:
        self._mode = Mode.LIVE
        self.discontinuities = 0
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
        self.discontinuities += 1

    @property
    def mode(self) -> Mode:
        return self._mode

    @mode.setter
    def mode(self, mode: Mode | str) -> None:
        self._mode = Mode(mode)
        if self._mode is Mode.LIVE:
            self.alpha = self.bank
        elif self._mode is not Mode.PAUSED:
            self.alpha = 0.0

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

    def _run_granted(self) -> None:
        self.tick += self.owed
        self.owed = 0

    def _result(self, first: int, dropped: int) -> ModelResult:
        return ModelResult(self.tick - first, first, dropped, self.alpha)

    def advance(self, wall_dt: float) -> ModelResult:
        steps = dropped = 0
        if self.mode is Mode.LIVE:
            b = self.bank + wall_dt * self.scale / self.fixed_dt
            if abs(b - math.floor(b + 0.5)) <= BANK_SNAP:
                b = float(math.floor(b + 0.5))
            whole = math.floor(b)
            self.bank = b - whole
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
        self._run_granted()
        return self._result(first, dropped)

    def advance_ticks(self, n: int) -> ModelResult:
        first = self.tick
        self.owed += n
        self._run_granted()
        return self._result(first, 0)

    def step_once(self) -> ModelResult:
        return self.advance_ticks(1)

    def seek_tick(self, n: int) -> None:
        if self.mode is not Mode.REPLAY:
            raise ValueError("seek_tick needs replay mode")
        if n != self.tick:
            self.tick = n
            self.owed = 0
            self.discontinuities += 1


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

    def alpha(self, tick: int, clock_alpha: float) -> float:
        return ((tick % self.period) + clock_alpha) / self.period
