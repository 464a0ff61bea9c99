"""Gymnasium envs of the project's own, for tests/gym (import it after importorskip)."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from cvcclock import WorldClock


class SpringEnv(gymnasium.Env[np.ndarray, np.ndarray]):
    """A damped spring pushed by a bounded force: float state that drifts on any wrong step.

    Terminates when the mass leaves [-2, 2]. ``dt`` is an attribute (0.05 s); render fps 20.
    In human mode ``render()`` records the frame: which step it shows and whether the
    clock it was told about could advance at that moment (False inside presenting()).
    """

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 20}

    def __init__(self, render_mode: str | None = None, stiffness: float = 40.0,
                 clock: WorldClock | None = None) -> None:
        self.render_mode = render_mode
        self.dt = 0.05
        self.stiffness = stiffness
        self.observation_space = spaces.Box(-np.inf, np.inf, (2,), np.float64)
        self.action_space = spaces.Box(-1.0, 1.0, (1,), np.float32)
        self.state = np.zeros(2)
        self.steps = 0
        self.clock = clock          # only read, to tell where a frame is presented
        self.frames: list[tuple[int, bool | None]] = []

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        scale = 0.5 if options is None else float(options.get("scale", 0.5))
        self.state = self.np_random.uniform(-scale, scale, size=2)
        self.steps = 0
        if self.render_mode == "human":
            self.render()
        return self.state.copy(), {"energy": float(self.state @ self.state)}

    def step(self, action: np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        x, v = self.state
        force = float(np.clip(action, -1.0, 1.0)[0])
        v += (-self.stiffness * x - 0.3 * v + 5.0 * force) * self.dt
        x += v * self.dt
        self.state = np.array([x, v])
        self.steps += 1
        terminated = bool(abs(x) > 2.0)
        if self.render_mode == "human":
            self.render()
        return self.state.copy(), float(-x * x), terminated, False, {"steps": self.steps}

    def render(self) -> np.ndarray | None:
        if self.render_mode == "rgb_array":
            frame = np.zeros((8, 8, 3), dtype=np.uint8)
            frame[:, int(np.clip((self.state[0] + 2) * 2, 0, 7))] = 255
            return frame
        if self.render_mode == "human":
            can = None if self.clock is None else self.clock.can_advance
            self.frames.append((self.steps, can))
        return None


class NoTimeEnv(gymnasium.Env[int, int]):
    """An env with neither a ``dt`` nor a render fps: a ClockedEnv needs ``dt=``."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self) -> None:
        self.observation_space = spaces.Discrete(3)
        self.action_space = spaces.Discrete(2)

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
        super().reset(seed=seed)
        return 0, {}

    def step(self, action: int) -> tuple[int, float, bool, bool, dict[str, Any]]:
        return int(action), 0.0, False, False, {}


class FailingEnv(SpringEnv):
    """A SpringEnv whose step raises once, at step number ``fail_at``."""

    def __init__(self, fail_at: int) -> None:
        super().__init__()
        self.fail_at = fail_at
        self.failed = False

    def step(self, action: np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.steps + 1 == self.fail_at and not self.failed:
            self.failed = True
            raise RuntimeError("the env broke")
        return super().step(action)


gymnasium.register("cvcclock-tests/Spring-v0", entry_point=SpringEnv)
