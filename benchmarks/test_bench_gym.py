"""cvcclock.gym's costs beside Gymnasium's own: a ClockedEnv step over the bare env's, and
ClockBankVectorEnv against SyncVectorEnv over TimeLimit-wrapped copies.

Run with ``pytest benchmarks/test_bench_gym.py --benchmark-only -s`` (needs the gym extra).
Each test times its rows in interleaved rounds (row A, row B, row A, ...), so that a ratio
comes from the same seconds of a machine shared with other work, and prints the medians:

* ``test_clocked_env_overhead``: ``env.step(0)`` of a cheap env (it returns preallocated
  values), bare and under ``ClockedEnv`` (no render mode: the env drives its own clock, one
  ``advance_ticks`` and one ``take_due`` a step, with a time limit checked). The overhead is
  the difference of the medians, in ns a step (goal: at most 1,500 ns).
* ``test_vector_envs``: one ``step(actions)`` of 8, 64 and 1,024 sub-envs of the cheap env,
  with mixed time limits (so sub-envs truncate and autoreset), ``ClockBankVectorEnv`` and
  ``SyncVectorEnv`` over ``TimeLimit`` copies, in ns a sub-env step.

Both keep their figures in ``extra_info``.
"""

from __future__ import annotations

import statistics
import timeit
from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium import spaces  # noqa: E402
from gymnasium.vector import SyncVectorEnv  # noqa: E402
from gymnasium.wrappers import TimeLimit  # noqa: E402

from cvcclock.gym import ClockBankVectorEnv, ClockedEnv, steps_for_time_limit  # noqa: E402

ROUNDS = 9
STEPS = 20_000          # single-env steps a round
VECTOR_STEPS = {8: 400, 64: 60, 1024: 4}    # vector steps a round, ~the same sub-env steps


class Cheap(gymnasium.Env[np.ndarray, int]):
    """An env whose step costs as little as a Python env's can: preallocated results."""

    metadata: dict[str, Any] = {"render_modes": []}
    observation_space = spaces.Box(-1.0, 1.0, (1,), np.float32)
    action_space = spaces.Discrete(2)

    def __init__(self) -> None:
        self.dt = 0.02
        self._obs = np.zeros(1, np.float32)

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        return self._obs, {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        return self._obs, 0.0, False, False, {}


def interleaved(rows: dict[str, timeit.Timer], number: int, rounds: int) -> dict[str, float]:
    """Median seconds per call of each row, timed in turn for ``rounds`` rounds."""
    samples: dict[str, list[float]] = {name: [] for name in rows}
    for timer in rows.values():          # a warm-up round each
        timer.timeit(max(1, number // 10))
    for _ in range(rounds):
        for name, timer in rows.items():
            samples[name].append(timer.timeit(number) / number)
    return {name: statistics.median(values) for name, values in samples.items()}


def test_clocked_env_overhead(benchmark):
    bare = Cheap()
    clocked = ClockedEnv(Cheap(), time_limit=1e6)
    bare.reset(seed=0)
    clocked.reset(seed=0)
    assert clocked.step(0)[4] == {"tick": 1, "t": 0.02}
    rows = {"bare": timeit.Timer("step(0)", globals={"step": bare.step}),
            "ClockedEnv": timeit.Timer("step(0)", globals={"step": clocked.step})}
    medians = benchmark.pedantic(interleaved, args=(rows, STEPS, ROUNDS), rounds=1,
                                 iterations=1)
    overhead = (medians["ClockedEnv"] - medians["bare"]) * 1e9
    print()
    for name, seconds in medians.items():
        print(f"  {name:>12}: {seconds * 1e9:8.1f} ns a step")
        benchmark.extra_info[f"{name} ns"] = round(seconds * 1e9, 1)
    print(f"  ClockedEnv overhead: {overhead:.1f} ns a step (goal <= 1500)")
    benchmark.extra_info["overhead ns"] = round(overhead, 1)


def limits_for(n: int) -> list[float]:
    # 0.5 s to 2.5 s of 0.02 s steps: 25 to 125 steps an episode, mixed across sub-envs.
    return [0.5 + 0.02 * (i % 101) for i in range(n)]


def vector_pair(n: int) -> tuple[ClockBankVectorEnv, SyncVectorEnv]:
    limits = limits_for(n)
    ours = ClockBankVectorEnv([Cheap] * n, dt=0.02, time_limits=limits)

    def limited(steps: int):
        return lambda: TimeLimit(Cheap(), max_episode_steps=steps)

    reference = SyncVectorEnv([limited(steps_for_time_limit(v, 0.02)) for v in limits])
    ours.reset(seed=0)
    reference.reset(seed=0)
    return ours, reference


@pytest.mark.parametrize("n", sorted(VECTOR_STEPS))
def test_vector_envs(benchmark, n):
    ours, reference = vector_pair(n)
    actions = np.zeros(n, dtype=np.int64)
    rows = {"ClockBankVectorEnv": timeit.Timer("step(a)", globals={"step": ours.step,
                                                                   "a": actions}),
            "SyncVectorEnv+TimeLimit": timeit.Timer("step(a)", globals={"step": reference.step,
                                                                        "a": actions})}
    medians = benchmark.pedantic(interleaved, args=(rows, VECTOR_STEPS[n], ROUNDS), rounds=1,
                                 iterations=1)
    print()
    for name, seconds in medians.items():
        per = seconds / n * 1e9
        print(f"  n={n:>5} {name:>24}: {seconds * 1e6:9.1f} us a step, {per:7.1f} ns a "
              "sub-env step")
        benchmark.extra_info[f"{name} ns per sub-env step"] = round(per, 1)
    ratio = medians["SyncVectorEnv+TimeLimit"] / medians["ClockBankVectorEnv"]
    print(f"  n={n:>5} SyncVectorEnv+TimeLimit / ClockBankVectorEnv: {ratio:.2f}")
    benchmark.extra_info["sync / bank"] = round(ratio, 2)
