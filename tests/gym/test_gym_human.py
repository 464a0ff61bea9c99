"""Human mode: a FrameLoop at the env's render fps paces the steps, the binding's keys pause,
single-step and change the speed, frames with no step due are presented at zero world time,
and the trajectory is the same under every pacing."""

from __future__ import annotations

from collections import UserDict

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from cvcclock import ClockConfig, WorldClock, WorldClockBinding  # noqa: E402
from cvcclock.gym import ClockedEnv  # noqa: E402
from support.gym_envs import SpringEnv  # noqa: E402
from support.pacings import ADVANCING, DRIVER_PACINGS  # noqa: E402

STEPS = 40


class SteppingTree(UserDict):
    """A tree whose ``sim.step`` counter goes up by one each time the binding reads it: a
    user pressing "step" once a frame."""

    def __getitem__(self, key):
        value = super().__getitem__(key)
        if key == "sim.step":
            self.data[key] = value + 1
        return value


def trajectory(env, steps=STEPS):
    observation, info = env.reset(seed=9)
    out = [(observation.tolist(), info)]
    rng = np.random.default_rng(1)
    for _ in range(steps):
        action = rng.uniform(-1, 1, size=1).astype(np.float32)
        observation, reward, terminated, truncated, info = env.step(action)
        out.append((observation.tolist(), reward, terminated, truncated, info))
        if terminated or truncated:
            observation, info = env.reset()
            out.append((observation.tolist(), info))
    return out


def human_env(tree=None, *, setup=None, capture=True, **kwargs):
    clock = WorldClock(ClockConfig(fixed_dt=0.01))       # a step is 5 quanta
    if setup is not None:
        setup(clock)
    inner = SpringEnv(render_mode="human", clock=clock)
    binding = WorldClockBinding({} if tree is None else tree, clock)
    return ClockedEnv(inner, clock, binding=binding, capture=capture, time_limit=0.6,
                      **kwargs)


def reference():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    return trajectory(ClockedEnv(SpringEnv(), clock, time_limit=0.6))


PACINGS = sorted(ADVANCING) + ["single-step"]


@pytest.mark.parametrize("pacing", PACINGS)
def test_a_human_mode_run_is_the_same_under_every_pacing(pacing):
    setup, _ = DRIVER_PACINGS[pacing]
    tree = SteppingTree() if pacing == "single-step" else None
    env = human_env(tree, setup=setup)
    assert trajectory(env) == reference()
    assert env.frame_loop.clock is env.clock and env.frame_loop.target_fps == 20


def test_a_real_time_run_is_the_same_too():
    env = human_env({"sim.speed": 4.0}, capture=False)    # 40 steps of 0.05 s in ~0.5 s
    assert trajectory(env) == reference()


def test_frames_with_no_step_due_are_presented_at_zero_world_time():
    env = human_env({"sim.speed": 0.25})       # a frame runs a quarter of a step
    env.reset(seed=0)
    frames = env.unwrapped.frames
    frames.clear()
    for _ in range(3):
        env.step(np.zeros(1, np.float32))
    # Each step: three frames presented inside clock.presenting() (the clock cannot advance
    # there), then the frame its step falls due in, which the env's step renders itself.
    assert frames == [(0, False), (0, False), (0, False), (1, True),
                      (1, False), (1, False), (1, False), (2, True),
                      (2, False), (2, False), (2, False), (3, True)]
    assert env.clock.tick == 15


def test_the_bindings_keys_pause_and_resume_a_running_env():
    tree = {}
    env = human_env(tree, max_wait_frames=6)
    env.reset(seed=0)
    env.step(np.zeros(1, np.float32))
    tree["sim.paused"] = True
    tick, steps = env.clock.tick, env.unwrapped.steps
    frames = len(env.unwrapped.frames)
    with pytest.raises(TimeoutError, match="max_wait_frames=6.*'paused' mode.*not stepped"):
        env.step(np.zeros(1, np.float32))
    assert (env.clock.tick, env.unwrapped.steps) == (tick, steps)
    assert len(env.unwrapped.frames) == frames + 6         # the window stayed alive
    tree["sim.paused"] = False
    _, _, _, _, info = env.step(np.zeros(1, np.float32))
    assert info["tick"] == 10 and env.unwrapped.steps == steps + 1


def test_the_step_key_single_steps_a_paused_env():
    tree = {"sim.paused": True}
    env = human_env(tree, max_wait_frames=3)
    env.reset(seed=0)
    for count in range(1, 5):      # a step is 5 quanta: five presses make it fall due
        tree["sim.step"] = tree["sim.step"] + 1
        with pytest.raises(TimeoutError):
            env.step(np.zeros(1, np.float32))
        assert env.clock.tick == count
    tree["sim.step"] += 1
    assert env.step(np.zeros(1, np.float32))[4]["tick"] == 5


def test_the_speed_key_changes_how_many_frames_a_step_takes():
    tree = {"sim.speed": 0.5}
    env = human_env(tree)
    env.reset(seed=0)
    loop = env.frame_loop
    before = len(env.unwrapped.frames)
    env.step(np.zeros(1, np.float32))
    slow = len(env.unwrapped.frames) - before
    tree["sim.speed"] = 1.0
    before = len(env.unwrapped.frames)
    env.step(np.zeros(1, np.float32))
    assert (slow, len(env.unwrapped.frames) - before) == (2, 1)
    assert loop.fps == pytest.approx(20.0)


def test_cartpoles_own_human_rendering_runs_paced(monkeypatch):
    pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    from gymnasium.envs.classic_control import CartPoleEnv

    env = ClockedEnv(CartPoleEnv(render_mode="human"), capture=True, time_limit=0.2)
    env.reset(seed=0)
    truncated = [env.step(0)[3] for _ in range(10)]
    assert truncated.index(True) == 9 and env.clock.tick == 10
    env.close()
