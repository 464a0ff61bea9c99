"""ClockBankVectorEnv == SyncVectorEnv over TimeLimit-wrapped copies, per autoreset mode, with
its own ticks and time limits per sub-env; Gymnasium's vector wrappers over it; bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.envs.classic_control import CartPoleEnv, PendulumEnv  # noqa: E402
from gymnasium.utils.env_checker import data_equivalence  # noqa: E402
from gymnasium.vector import AutoresetMode, SyncVectorEnv, VectorEnv  # noqa: E402
from gymnasium.wrappers import TimeLimit  # noqa: E402
from gymnasium.wrappers.vector import DictInfoToList, RecordEpisodeStatistics  # noqa: E402

from cvcclock.gym import ClockBankVectorEnv, steps_for_time_limit  # noqa: E402
from support.gym_envs import SpringEnv  # noqa: E402

N = 8
# Mixed limits, in world seconds: CartPole steps 0.02 s, Pendulum 0.05 s. Some end before
# CartPole usually terminates, one is never reached, one is no limit at all.
LIMITS = {
    "CartPole": (CartPoleEnv, 0.02, [0.1, 0.26, 0.5, 0.02, math.inf, 0.33, 0.0, 10.0]),
    "Pendulum": (PendulumEnv, 0.05, [0.5, 1.0, 1.25, 0.05, math.inf, 2.0, 0.33, 100.0]),
}
TIME_KEYS = {"tick", "_tick", "t", "_t"}


def sync_reference(make, dt, limits, mode):
    def wrapped(limit):
        steps = steps_for_time_limit(limit, dt)
        return (lambda: make()) if steps is None else (
            lambda: TimeLimit(make(), max_episode_steps=steps))
    return SyncVectorEnv([wrapped(limit) for limit in limits], autoreset_mode=mode)


def actions_for(space, steps, seed):
    space.seed(seed)
    return [space.sample() for _ in range(steps)]


def without_time(infos):
    return {k: v for k, v in infos.items() if k not in TIME_KEYS}


def run(envs, actions, mode):
    """Every step's results; with DISABLED, the ended sub-envs are reset by mask."""
    out = [envs.reset(seed=42)]
    for action in actions:
        result = envs.step(action)
        out.append(result)
        ended = result[2] | result[3]
        if mode is AutoresetMode.DISABLED and ended.any():
            out.append(envs.reset(options={"reset_mask": ended}))
    return out


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda m: m.name)
@pytest.mark.parametrize("name", LIMITS)
def test_it_equals_sync_vector_env_over_time_limits_for_1000_steps(name, mode):
    make, dt, limits = LIMITS[name]
    ours = ClockBankVectorEnv([make] * N, dt=dt, time_limits=limits, autoreset_mode=mode)
    reference = sync_reference(make, dt, limits, mode)
    actions = actions_for(ours.action_space, 1000, seed=7)
    got, want = run(ours, actions, mode), run(reference, actions, mode)
    assert len(got) == len(want)
    truncations = 0
    for step, (a, b) in enumerate(zip(got, want, strict=True)):
        assert len(a) == len(b)
        for x, y in zip(a[:-1], b[:-1], strict=True):
            assert data_equivalence(x, y, exact=True), step
        assert data_equivalence(without_time(a[-1]), b[-1], exact=True), step
        if len(a) == 5:
            truncations += int(a[3].sum())
    assert truncations > 50            # the limits were reached, many times


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda m: m.name)
def test_each_sub_env_has_its_own_tick_from_its_episodes_start(mode):
    make, dt, limits = LIMITS["CartPole"]
    envs = ClockBankVectorEnv([make] * N, dt=dt, fixed_dt=0.01, time_limits=limits,
                              autoreset_mode=mode)
    assert envs.period == 2
    _, infos = envs.reset(seed=1)
    assert infos["tick"].tolist() == [0] * N and infos["_tick"].all()
    steps = np.zeros(N, dtype=np.int64)      # counted here, independently
    resetting = np.zeros(N, dtype=bool)
    for action in actions_for(envs.action_space, 300, seed=2):
        _, _, terminated, truncated, infos = envs.step(action)
        if mode is AutoresetMode.NEXT_STEP:
            steps = np.where(resetting, 0, steps + 1)
        else:
            steps += 1
        ended = terminated | truncated
        if mode is AutoresetMode.SAME_STEP:     # reset inside the step: its tick is 0
            steps[ended] = 0
        assert infos["tick"].tolist() == (steps * 2).tolist()
        assert np.array_equal(infos["t"], infos["tick"] * 0.01)
        limit_hit = steps * 2 * 0.01 >= np.array(limits) - 1e-12
        if mode is AutoresetMode.NEXT_STEP:
            assert not (truncated & ~limit_hit & ~terminated).any()
        resetting = ended
        if mode is AutoresetMode.DISABLED and ended.any():
            envs.reset(options={"reset_mask": ended})
            steps[ended] = 0
    assert envs.bank.tick.min() > 0


def test_it_is_a_vector_env_with_gymnasiums_attributes():
    envs = ClockBankVectorEnv([CartPoleEnv] * 3, dt=0.02, autoreset_mode="SameStep")
    assert isinstance(envs, VectorEnv) and envs.num_envs == 3
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert envs.single_observation_space == CartPoleEnv().observation_space
    assert envs.observation_space.shape == (3, 4)
    assert envs.action_space.shape == (3,)
    assert envs.unwrapped is envs
    assert envs.get_attr("tau") == (0.02, 0.02, 0.02)
    envs.set_attr("tau", [0.01, 0.02, 0.03])
    assert envs.get_attr("tau") == (0.01, 0.02, 0.03)
    obs, _ = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    envs.close()
    assert envs.closed and all(e.unwrapped is e for e in envs.envs)


@pytest.mark.parametrize("wrap", [RecordEpisodeStatistics, DictInfoToList])
def test_gymnasiums_vector_wrappers_see_what_they_see_over_sync_vector_env(wrap):
    make, dt, limits = LIMITS["CartPole"]
    ours = wrap(ClockBankVectorEnv([make] * N, dt=dt, time_limits=limits))
    reference = wrap(sync_reference(make, dt, limits, AutoresetMode.NEXT_STEP))
    actions = actions_for(ours.action_space, 200, seed=5)
    for a, b in zip(run(ours, actions, None), run(reference, actions, None), strict=True):
        info_a, info_b = a[-1], b[-1]
        if isinstance(info_a, list):
            info_a = [without_time(i) for i in info_a]
        else:
            info_a = without_time(info_a)
            if "episode" in info_a:
                info_a["episode"] = {k: v for k, v in info_a["episode"].items() if k != "t"}
                info_b["episode"] = {k: v for k, v in info_b["episode"].items() if k != "t"}
        assert data_equivalence(info_a, info_b, exact=True)
        assert data_equivalence(a[:-1], b[:-1], exact=True)


def test_disabled_autoreset_refuses_to_step_an_ended_sub_env_and_changes_nothing():
    envs = ClockBankVectorEnv([CartPoleEnv] * 2, dt=0.02, time_limits=[0.02, 1.0],
                              autoreset_mode=AutoresetMode.DISABLED)
    envs.reset(seed=0)
    _, _, _, truncated, _ = envs.step(np.array([0, 0]))
    assert truncated.tolist() == [True, False]
    ticks, state = envs.bank.tick.copy(), [e.unwrapped.state for e in envs.envs]
    with pytest.raises(RuntimeError, match=r"sub-envs \[0\] ended"):
        envs.step(np.array([0, 0]))
    assert envs.bank.tick.tolist() == ticks.tolist()
    assert all(np.array_equal(a, e.unwrapped.state) for a, e in zip(state, envs.envs, strict=True))


def fns(n=3):
    return [CartPoleEnv] * n


BAD = [
    (lambda: ClockBankVectorEnv(fns(), dt=0.02, time_limits=[1.0, 2.0]), ValueError,
     r"time_limits must hold one limit for each of the 3 runs, got 2"),
    (lambda: ClockBankVectorEnv(fns(), dt=0.02, time_limits=[1.0, -1.0, 2.0]), ValueError,
     r"time_limits\[1\].*-1\.0"),
    (lambda: ClockBankVectorEnv(fns(), dt=0.02, time_limits=math.nan), ValueError,
     r"time_limits.*nan"),
    (lambda: ClockBankVectorEnv(fns(), dt=0.02, time_limits=np.ones((3, 1))), ValueError,
     r"1-d"),
    (lambda: ClockBankVectorEnv(fns(), dt=0.02, time_limits=["1", 1, 1]), TypeError,
     r"time_limits\[0\]"),
    (lambda: ClockBankVectorEnv(fns(), dt=0.025, fixed_dt=0.01), ValueError,
     r"dt=0\.025 is 2\.5 quanta of fixed_dt=0\.01"),
    (lambda: ClockBankVectorEnv(fns(), dt=-0.02), ValueError, r"dt.*-0\.02"),
    (lambda: ClockBankVectorEnv(fns(), dt=0.02, autoreset_mode="sometimes"), ValueError,
     r"autoreset_mode.*'sometimes'"),
    (lambda: ClockBankVectorEnv([], dt=0.02), ValueError, r"at least one"),
    (lambda: ClockBankVectorEnv([CartPoleEnv, "CartPole-v1"], dt=0.02), TypeError,
     r"env_fns\[1\]"),
    (lambda: ClockBankVectorEnv(5, dt=0.02), TypeError, r"env_fns must be a sequence.*5"),
    (lambda: ClockBankVectorEnv(fns(), dt=0.0), ValueError, r"^dt must be .*got 0\.0"),
    (lambda: ClockBankVectorEnv(fns(), dt=1e-9), ValueError, r"^dt must be .*got 1e-09"),
]


@pytest.mark.parametrize("make, error, message", BAD)
def test_bad_input_is_a_clear_error_that_makes_no_sub_env(make, error, message, monkeypatch):
    made = []
    monkeypatch.setattr(CartPoleEnv, "__init__", lambda self, *a, **k: made.append(self))
    with pytest.raises(error, match=message):
        make()
    assert made == []


def test_a_maker_that_makes_no_env_is_a_type_error_and_the_others_are_closed():
    closed = []

    class Closing(SpringEnv):
        def close(self):
            closed.append(self)

    with pytest.raises(TypeError, match=r"env_fns\[1\] made 3, not a gymnasium.Env"):
        ClockBankVectorEnv([Closing, lambda: 3], dt=0.05)
    assert len(closed) == 1

    def broken():
        raise OSError("no display")

    with pytest.raises(OSError, match="no display"):
        ClockBankVectorEnv([Closing, broken], dt=0.05)
    assert len(closed) == 2


@pytest.mark.parametrize("seed, error, message", [
    ("abc", TypeError, r"seed must be None, an int or a list .* got 'abc'"),
    ([1, "b", 3], TypeError, r"seed\[1\] must be an integer, got 'b'"),
    ([1, -2, 3], ValueError, r"seed\[1\] must be >= 0, got -2"),
    (-1, ValueError, r"seed must be >= 0, got -1"),
    (True, TypeError, r"seed must be an integer, got True"),
    (2.5, TypeError, r"seed must be an integer, got 2.5"),
    ([1, 2], ValueError, r"got 2 of them"),
])
def test_a_bad_seed_is_refused_before_any_sub_env_is_reset(seed, error, message):
    envs = ClockBankVectorEnv([CartPoleEnv] * 3, dt=0.02)
    envs.reset(seed=0)
    envs.step(np.array([0, 1, 0]))
    state = [e.unwrapped.state.copy() for e in envs.envs]
    start = envs.episode_ticks.tolist()
    with pytest.raises(error, match=message):
        envs.reset(seed=seed)
    assert all(np.array_equal(a, e.unwrapped.state) for a, e in zip(state, envs.envs, strict=True))
    assert envs.episode_ticks.tolist() == start


def test_a_numpy_integer_seed_seeds_as_the_int_does():
    ours = ClockBankVectorEnv([CartPoleEnv] * 3, dt=0.02)
    assert data_equivalence(ours.reset(seed=np.int64(7))[0], ours.reset(seed=7)[0])
    assert data_equivalence(ours.reset(seed=np.array([7, 8, 9]))[0], ours.reset(seed=7)[0])


def test_sub_envs_of_different_spaces_are_refused_and_closed():
    closed = []

    class Closing(SpringEnv):
        def close(self):
            closed.append(self)

    with pytest.raises(ValueError, match="sub-env 1's observation space"):
        ClockBankVectorEnv([Closing, CartPoleEnv], dt=0.05)
    assert len(closed) == 1


def test_steps_for_time_limit_is_the_equivalent_timelimit():
    assert steps_for_time_limit(0.5, 0.02) == 25
    assert steps_for_time_limit(0.51, 0.02) == 26
    assert steps_for_time_limit(0.0, 0.02) == 1
    assert steps_for_time_limit(math.inf, 0.02) is None
    assert steps_for_time_limit(0.1, 0.02, fixed_dt=0.01) == 5
    assert steps_for_time_limit(0.11, 0.02, fixed_dt=0.01) == 6


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda m: m.name)
def test_a_sub_env_that_raises_leaves_its_slot_and_the_later_ones_as_they_were(mode):
    """The slots ran before the sub-envs stepped: one that raised had its tick moved on
    without its step, so its episode tick counted a step it never took."""
    failing = []

    class Flaky(CartPoleEnv):
        def step(self, action):
            if failing:
                failing.pop()
                raise RuntimeError("flaky")
            return super().step(action)

    envs = ClockBankVectorEnv([CartPoleEnv, Flaky, CartPoleEnv], dt=0.02, time_limits=1.0,
                              autoreset_mode=mode)
    envs.reset(seed=0)
    envs.step(np.array([0, 0, 0]))
    failing.append(True)
    with pytest.raises(RuntimeError, match="flaky"):
        envs.step(np.array([0, 0, 0]))
    assert envs.episode_ticks.tolist() == [2, 1, 1]     # sub-env 0 stepped; 1 and 2 did not
    _, _, _, _, infos = envs.step(np.array([0, 0, 0]))
    assert infos["tick"].tolist() == [3, 2, 2]
