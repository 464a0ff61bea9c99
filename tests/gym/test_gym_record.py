"""RecordEpisodes writes each episode as a cvcclock trace; replay_episode plays it back ==."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.envs.classic_control import CartPoleEnv, PendulumEnv  # noqa: E402

from cvcclock import ClockConfig, WorldClock, WorldClockBinding  # noqa: E402
from cvcclock.gym import ClockedEnv, Episode, RecordEpisodes, replay_episode  # noqa: E402
from cvcclock.replay import DivergenceError, InputTrace, TraceFormatError  # noqa: E402
from support.gym_envs import SpringEnv  # noqa: E402

ENVS = {"CartPole": CartPoleEnv, "Pendulum": PendulumEnv, "Spring": SpringEnv}


def record(env, episodes, seeds, options=None, steps=None):
    """Run ``episodes`` episodes, collecting what the env returned, independently of the
    recorder: one Episode each."""
    env.action_space.seed(123)
    out = []
    for index in range(episodes):
        seed = seeds[index]
        opts = None if options is None else options[index]
        observation, info = env.reset(seed=seed, options=opts)
        obs, infos, rewards, terms, truncs, actions = [observation], [info], [], [], [], []
        for _ in range(steps or 10_000):
            action = env.action_space.sample()
            observation, reward, terminated, truncated, info = env.step(action)
            actions.append(env.action_space.from_jsonable(
                env.action_space.to_jsonable([action]))[0])
            obs.append(observation)
            infos.append(info)
            rewards.append(reward)
            terms.append(terminated)
            truncs.append(truncated)
            if terminated or truncated:
                break
        out.append(Episode(index, seed, opts, tuple(actions), tuple(obs), tuple(rewards),
                           tuple(terms), tuple(truncs), tuple(infos)))
    return out


@pytest.mark.parametrize("name", ENVS)
def test_each_episode_replays_equal_to_the_recording(name, tmp_path):
    make = ENVS[name]
    env = RecordEpisodes(ClockedEnv(make(), time_limit=1.5), tmp_path)
    recorded = record(env, 3, seeds=[5, 6, 7])
    env.close()
    assert sorted(os.listdir(tmp_path)) == [f"episode-00000{i}.trace" for i in range(3)]
    for episode in recorded:
        assert replay_episode(make, tmp_path, episode.index) == episode
    assert recorded[0] != recorded[1]


def test_the_trace_holds_the_reset_and_the_actions_stamped_by_tick(tmp_path):
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    env = RecordEpisodes(ClockedEnv(SpringEnv(), clock, time_limit=0.2), tmp_path)
    record(env, 2, seeds=[3, 4], options=[{"scale": 0.25}, None])
    trace = InputTrace.load(tmp_path / "episode-000001.trace")
    header = trace.header
    assert (header.fixed_dt, header.dt, header.seed, header.start_tick) == (0.01, 0.05, 4, 20)
    assert header.metadata == {"episode": 1, "reset_seed": 4, "options": None,
                               "time_limit": 0.2, "env": None}
    assert [i.tick for i in trace.inputs] == [20, 25, 30, 35]   # the tick before each step
    assert sorted(trace.hashes) == [25, 30, 35, 40] and trace.end_tick == 40
    first = InputTrace.load(tmp_path / "episode-000000.trace")
    assert first.header.metadata["options"] == {"scale": 0.25}


def test_an_episode_reset_without_a_seed_replays_after_the_ones_before_it(tmp_path):
    env = RecordEpisodes(ClockedEnv(PendulumEnv(), time_limit=0.5), tmp_path)
    recorded = record(env, 4, seeds=[11, None, None, 12])
    env.close()
    for episode in recorded:
        assert replay_episode(PendulumEnv, tmp_path, episode.index) == episode


def test_an_episode_with_no_seed_before_it_cannot_replay(tmp_path):
    env = RecordEpisodes(ClockedEnv(PendulumEnv(), time_limit=0.5), tmp_path)
    record(env, 1, seeds=[None])
    env.close()
    with pytest.raises(ValueError, match="no episode from 0 to 0 .* was reset with a seed"):
        replay_episode(PendulumEnv, tmp_path, 0)


def test_a_replay_that_differs_names_the_first_step_that_does(tmp_path):
    env = RecordEpisodes(ClockedEnv(SpringEnv(), time_limit=1.0), tmp_path)
    record(env, 1, seeds=[2])
    env.close()
    with pytest.raises(DivergenceError) as caught:
        replay_episode(lambda: SpringEnv(stiffness=40.000001), tmp_path, 0)
    assert caught.value.divergence.tick == 1      # the first step already differs


def test_an_episode_still_open_is_written_at_reset_and_close(tmp_path):
    env = RecordEpisodes(ClockedEnv(PendulumEnv()), tmp_path)
    recorded = record(env, 2, seeds=[1, 2], steps=7)      # no limit: never ends by itself
    assert env.episodes == 1                                # the first, at the second reset
    env.close()
    assert env.episodes == 2
    assert [replay_episode(PendulumEnv, tmp_path, i) for i in range(2)] == recorded


def test_a_recording_on_a_clock_paced_in_human_mode_replays_in_a_batch(tmp_path):
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    binding = WorldClockBinding({"sim.speed": 2.5}, clock)   # several steps due per frame
    inner = SpringEnv(render_mode="human")
    env = RecordEpisodes(ClockedEnv(inner, binding=binding, capture=True, time_limit=0.5),
                         tmp_path)
    recorded = record(env, 2, seeds=[8, 9])
    assert clock.tick > 0
    for episode in recorded:
        assert replay_episode(SpringEnv, tmp_path, episode.index) == episode


BAD_RESETS = [
    ({"seed": -1}, ValueError, r"seed"),
    ({"seed": 1.5}, TypeError, r"seed"),
    ({"options": {"scale": np.float64(0.3)}}, TypeError, r"options.*cannot be stored"),
    ({"options": {"scale": float("nan")}}, ValueError, r"options.*cannot be stored"),
    ({"options": [1]}, TypeError, r"options must be a dict"),
]


@pytest.mark.parametrize("kwargs, error, message", BAD_RESETS)
def test_a_reset_the_trace_cannot_hold_is_refused_before_the_env_is_reset(
        kwargs, error, message, tmp_path):
    env = RecordEpisodes(ClockedEnv(SpringEnv()), tmp_path)
    env.reset(seed=1)
    env.step(np.zeros(1, np.float32))
    state, steps = env.unwrapped.state.copy(), env.unwrapped.steps
    with pytest.raises(error, match=message):
        env.reset(**kwargs)
    assert np.array_equal(env.unwrapped.state, state) and env.unwrapped.steps == steps
    assert env.episodes == 0 and os.listdir(tmp_path) == []


def test_bad_arguments_are_refused(tmp_path):
    with pytest.raises(TypeError, match="env must be a ClockedEnv"):
        RecordEpisodes(SpringEnv(), tmp_path)
    with pytest.raises(TypeError, match="path"):
        RecordEpisodes(ClockedEnv(SpringEnv()), 3)
    env = RecordEpisodes(ClockedEnv(SpringEnv()), tmp_path)
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        env.step(np.zeros(1, np.float32))
    env.reset(seed=1)
    env.close()
    with pytest.raises(TypeError, match="env_fn must make"):
        replay_episode(lambda: ClockedEnv(SpringEnv()), tmp_path, 0)
    with pytest.raises(TypeError, match="env_fn"):
        replay_episode("SpringEnv", tmp_path, 0)
    with pytest.raises(ValueError, match="episode"):
        replay_episode(SpringEnv, tmp_path, -1)
    with pytest.raises(FileNotFoundError):
        replay_episode(SpringEnv, tmp_path, 5)


def test_the_trace_is_a_cvcclock_trace_a_person_can_read(tmp_path):
    env = RecordEpisodes(ClockedEnv(CartPoleEnv(), time_limit=0.1), tmp_path)
    record(env, 1, seeds=[0])
    lines = (tmp_path / "episode-000000.trace").read_text().splitlines()
    assert json.loads(lines[0])["format"] == "cvcclock-trace"
    assert json.loads(lines[1]) == {"tick": 0, "input": "action",
                                    "value": json.loads(lines[1])["value"]}
    end = json.loads(lines[-1])
    assert end["end"] == 5 and set(end) == {"end", "sha256"}   # format 2: the body's digest


def resigned(path, edit):
    """Rewrite the trace at ``path`` as ``edit(lines)`` with a fresh body digest, as a
    deliberate editor would: only the checks past the digest stand in its way."""
    import hashlib

    lines = path.read_bytes().rstrip(b"\n").split(b"\n")
    lines, end = edit(lines[:-1], json.loads(lines[-1])["end"])
    body = b"".join(line + b"\n" for line in lines)
    digest = hashlib.sha256(body + json.dumps({"end": end}).encode() + b"\n").hexdigest()
    path.write_bytes(body + json.dumps({"end": end, "sha256": digest}).encode() + b"\n")


def with_header(**meta):
    def edit(lines, end):
        header = json.loads(lines[0])
        header["metadata"].update(meta)
        return [json.dumps(header).encode(), *lines[1:]], end
    return edit


@pytest.mark.parametrize("edit, message", [
    # An end tick far past the last step asked for a billion steps, run one by one.
    (lambda lines, end: (lines, 10**9), r"line 12: the end tick 1000000000 makes the episode "
                                        r"1000000000 steps, but the trace records the "
                                        r"outcome of 5"),
    # Without its hash lines the replay checked nothing and returned as if it matched.
    (lambda lines, end: ([x for x in lines if b'"hash"' not in x], end),
     r"records the outcome of 0"),
    (with_header(reset_seed=-1), r"line 1: metadata\['reset_seed'\] must be >= 0, got -1"),
    (with_header(reset_seed="s"), r"line 1: metadata\['reset_seed'\] must be an integer"),
    (with_header(options=[1]), r"line 1: metadata\['options'\] must be a dict or None"),
    (with_header(episode=3), r"line 1: metadata\['episode'\] must be 0, got 3"),
])
def test_an_edited_episode_is_refused_before_it_replays_in_bounded_time(
        tmp_path, edit, message):
    env = RecordEpisodes(ClockedEnv(CartPoleEnv(), time_limit=0.1), tmp_path)
    record(env, 1, seeds=[3])
    env.close()
    resigned(tmp_path / "episode-000000.trace", edit)
    with pytest.raises(TraceFormatError, match=message):
        replay_episode(CartPoleEnv, tmp_path, 0)


@pytest.mark.parametrize("value", [b"[7]", b'"x"', b"[[0, 1]]"])
def test_an_edited_action_outside_the_action_space_is_a_value_error(tmp_path, value):
    env = RecordEpisodes(ClockedEnv(CartPoleEnv(), time_limit=0.1), tmp_path)
    record(env, 1, seeds=[3])
    env.close()

    def edit(lines, end):
        first = json.loads(lines[1])
        assert first["input"] == "action"
        return [lines[0], lines[1].replace(json.dumps(first["value"]).encode(), value),
                *lines[2:]], end

    resigned(tmp_path / "episode-000000.trace", edit)
    with pytest.raises(ValueError, match=r"the recorded action .* the env's action space "
                                         r"Discrete\(2\)"):
        replay_episode(CartPoleEnv, tmp_path, 0)
