"""Episodes of a ClockedEnv recorded as cvcclock traces, and replayed through a Replayer.

One trace a episode (``episode-000000.trace``, ...): the header holds the reset's seed and
options, the env's step and time limit; each action is an input stamped with the tick of the
step before it (so it is applied before the step it was given for, under any pacing); each
step's outcome (observation, reward, terminated, truncated) is a state hash at its due tick,
so a replay that differs names the first step that does (``DivergenceError``).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Callable, Mapping
from typing import Any, SupportsFloat

import gymnasium
from gymnasium.utils.env_checker import data_equivalence

from cvcclock import ClockConfig, WorldClock
from cvcclock.checks import MAX_TICK, check_callable, check_count, check_path, check_seed
from cvcclock.gym._env import ClockedEnv
from cvcclock.replay import (
    Input,
    InputTrace,
    JSONValue,
    Replayer,
    TraceFormatError,
    TraceHeader,
    default_state_hash,
)

__all__ = ["Episode", "RecordEpisodes", "episode_path", "replay_episode"]

_ACTION = "action"


def episode_path(path: str | os.PathLike[str], episode: int) -> str:
    """The trace file of episode number ``episode`` in the directory ``path``."""
    return os.path.join(check_path(path, "path"), f"episode-{episode:06d}.trace")


def _outcome_hash(observation: Any, reward: SupportsFloat, terminated: bool,
                  truncated: bool) -> str:
    return default_state_hash((observation, float(reward), bool(terminated), bool(truncated)))


def _json_action(space: gymnasium.Space[Any], action: Any) -> tuple[JSONValue, Any]:
    """The action as the trace stores it (the space's ``to_jsonable`` of a batch of one),
    and the action a replay will apply, read back from it."""
    value: Any = _json_copy(space.to_jsonable([action]), "action")
    return value, space.from_jsonable(value)[0]


@dataclasses.dataclass(frozen=True, eq=False)
class Episode:
    """One episode as a ``ClockedEnv`` ran it: its reset and every step's results.

    Attributes
    ----------
    index : int
        The episode's number in its recording.
    seed : int or None
        The seed its ``reset`` was given.
    options : dict or None
        The options its ``reset`` was given.
    actions : tuple
        The actions applied, as the env received them.
    observations : tuple
        The reset's observation, then each step's.
    rewards, terminations, truncations : tuple
        Each step's.
    infos : tuple of dict
        The reset's info, then each step's (with ``"tick"`` and ``"t"``).

    Notes
    -----
    Two episodes are ``==`` when every field is, arrays compared exactly
    (``gymnasium.utils.env_checker.data_equivalence(..., exact=True)``).
    """

    index: int
    seed: int | None
    options: dict[str, Any] | None
    actions: tuple[Any, ...]
    observations: tuple[Any, ...]
    rewards: tuple[Any, ...]
    terminations: tuple[bool, ...]
    truncations: tuple[bool, ...]
    infos: tuple[dict[str, Any], ...]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Episode):
            return NotImplemented
        return all(data_equivalence(getattr(self, f.name), getattr(other, f.name), exact=True)
                   for f in dataclasses.fields(self))

    __hash__ = None  # type: ignore[assignment]  # equal by value, and mutable inside


class _Open:
    """The episode being recorded."""

    def __init__(self, index: int, seed: int | None, options: JSONValue, start: int) -> None:
        self.index = index
        self.seed = seed
        self.options = options
        self.start = start
        self.inputs: list[Input] = []
        self.hashes: dict[int, str] = {}
        self.end = start


class RecordEpisodes(gymnasium.Wrapper[Any, Any, Any, Any]):
    """Record each episode of a ``ClockedEnv`` as a cvcclock trace in the directory ``path``.

    Parameters
    ----------
    env : ClockedEnv
        The env to record (its clock stamps the actions).
    path : str or path-like
        A directory (made if missing); episode n is written to ``episode-NNNNNN.trace``
        there (``episode_path``) when it ends (terminated or truncated), at the next
        ``reset()``, or at ``close()``, replacing a file of that name.

    Attributes
    ----------
    path : str
        The directory.
    episodes : int
        Episodes written so far.

    Raises
    ------
    TypeError
        If ``env`` is not a ``ClockedEnv``.

    Notes
    -----
    The env receives each action as a replay will: read back from the JSON the trace
    stores (the action space's ``to_jsonable`` and ``from_jsonable``), so a float64 action
    for a float32 ``Box`` reaches the env as float32 in the recording too. ``reset``'s seed
    must be a non-negative int or None and its options a JSON object (checked before the
    env is reset). An episode reset without a seed continues the env's random generator:
    it replays after the episodes before it, from the last one reset with a seed.
    """

    def __init__(self, env: ClockedEnv, path: str | os.PathLike[str]) -> None:
        if not isinstance(env, ClockedEnv):
            raise TypeError(f"env must be a ClockedEnv (its clock stamps the actions), got "
                            f"{env!r}")
        directory = check_path(path, "path")
        super().__init__(env)
        os.makedirs(directory, exist_ok=True)
        self.path = directory
        self.episodes = 0
        self._clocked = env
        self._open: _Open | None = None

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset the env and start recording an episode (writing the one still open).

        Raises
        ------
        TypeError, ValueError
            If ``seed`` is not a non-negative int or None, or ``options`` is not a JSON
            object or None; the env is not reset then.
        """
        if seed is not None:
            check_seed(seed)
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"options must be a dict or None, got {options!r}")
        stored = None if options is None else _json_copy(options, "options")
        self._finish()
        observation, info = self.env.reset(seed=seed, options=options)
        self._open = _Open(self.episodes, seed, stored, self._clocked.tick)
        return observation, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env with ``action`` and record it, stamped with the tick before its step.

        Raises
        ------
        RuntimeError
            Before the first ``reset()``.
        TypeError
            If the action space cannot store ``action`` as JSON.
        """
        episode = self._open
        if episode is None:
            raise RuntimeError("RecordEpisodes.step() before reset(): an episode starts at "
                               "a reset")
        value, applied = _json_action(self.action_space, action)
        stamped = Input(self._clocked.tick, _ACTION, value)
        observation, reward, terminated, truncated, info = self.env.step(applied)
        episode.inputs.append(stamped)
        episode.end = self._clocked.tick
        episode.hashes[episode.end] = _outcome_hash(observation, reward, terminated, truncated)
        if terminated or truncated:
            self._finish()
        return observation, reward, terminated, truncated, info

    def close(self) -> None:
        """Write the episode still open, then close the env."""
        self._finish()
        super().close()

    def _finish(self) -> None:
        episode = self._open
        if episode is None:
            return
        self._open = None
        clocked = self._clocked
        limit = None if math.isinf(clocked.time_limit) else clocked.time_limit
        spec = clocked.spec
        header = TraceHeader(
            fixed_dt=clocked.clock.fixed_dt, dt=clocked.dt, start_tick=episode.start,
            seed=0 if episode.seed is None else episode.seed,
            metadata={"episode": episode.index, "reset_seed": episode.seed,
                      "options": episode.options, "time_limit": limit,
                      "env": None if spec is None else spec.id})
        InputTrace(header, tuple(episode.inputs), episode.hashes, episode.end).save(
            episode_path(self.path, episode.index))
        self.episodes += 1


def _json_copy(value: Any, name: str) -> JSONValue:
    """``value`` checked and copied as a trace stores JSON (by the trace's own header rule),
    so a value the trace cannot hold is refused before the env is reset or stepped."""
    try:
        header = TraceHeader(fixed_dt=1.0, dt=1.0, metadata={name: value})
    except (TypeError, ValueError) as error:
        raise type(error)(f"{name} {value!r} cannot be stored in a trace: {error}") from None
    return header.metadata[name]


class _ReplayedEnv:
    """The replay's world: ``apply`` takes the recorded action, ``step`` steps the env."""

    def __init__(self, env: ClockedEnv) -> None:
        self.env = env
        self.action: Any = None
        self.outcome: tuple[Any, ...] | None = None
        self.actions: list[Any] = []
        self.observations: list[Any] = []
        self.rewards: list[Any] = []
        self.terminations: list[bool] = []
        self.truncations: list[bool] = []
        self.infos: list[dict[str, Any]] = []

    def apply(self, name: str, value: Any) -> None:
        if name != _ACTION:
            raise ValueError(f"an episode's trace holds actions only, got the input {name!r}")
        space = self.env.action_space
        try:
            action = space.from_jsonable(value)[0]
        except Exception as error:   # noqa: BLE001 - each space raises its own
            raise ValueError(f"the recorded action {value!r} cannot be read as one of the "
                             f"env's action space {space}: {error!r}") from None
        if not space.contains(action):
            raise ValueError(f"the recorded action {value!r} is not in the env's action "
                             f"space {space}")
        self.action = action

    def step(self, dt: float) -> None:
        observation, reward, terminated, truncated, info = self.env.step(self.action)
        self.actions.append(self.action)
        self.observations.append(observation)
        self.rewards.append(reward)
        self.terminations.append(terminated)
        self.truncations.append(truncated)
        self.infos.append(info)
        self.outcome = (observation, reward, terminated, truncated)

    def snapshot(self) -> tuple[Any, ...] | None:
        return self.outcome

    def restore(self, snapshot: Any) -> None:
        raise NotImplementedError("an env's replay cannot seek: replay its episode from the "
                                  "start")


def _state_hash(snapshot: tuple[Any, ...] | None) -> str:
    return "" if snapshot is None else _outcome_hash(*snapshot)


def replay_episode(env_fn: Callable[[], gymnasium.Env[Any, Any]], path: str | os.PathLike[str],
                   episode: int) -> Episode:
    """Replay episode number ``episode`` of a ``RecordEpisodes`` recording.

    The env ``env_fn()`` makes is wrapped in a ``ClockedEnv`` as recorded (its step, its
    clock's quantum, its time limit) on a clock of its own, reset with the recorded seed and
    options, and stepped with the recorded actions at the recorded ticks by a
    ``cvcclock.replay.Replayer``, which checks every step's outcome against the recorded
    hash. An episode reset without a seed is replayed after the episodes before it, from
    the last one reset with a seed, on the same env.

    Parameters
    ----------
    env_fn : callable
        Makes the env the recorded ``ClockedEnv`` wrapped (not a ``ClockedEnv``).
    path : str or path-like
        The recording's directory.
    episode : int
        The episode's number, from 0.

    Returns
    -------
    Episode
        Its observations, rewards, terminations, truncations and infos: ``==`` the
        recorded ones for a deterministic env.

    Raises
    ------
    DivergenceError
        If a step's outcome differs from the recording's (naming the step's tick).
    ValueError
        If no episode up to ``episode`` was reset with a seed (the env's random state at
        its start is unknown), or a recorded action is not in the env's action space.
    FileNotFoundError, TraceFormatError
        If an episode's trace is missing or unreadable, or holds what ``RecordEpisodes``
        never writes (another episode number, a seed that is not a non-negative integer,
        options that are not a dict, a step without its outcome hash); all but the actions
        are checked before the env is made, so a replay's work is bounded by the file.
    TypeError
        If ``env_fn`` is not callable or makes something other than a plain
        ``gymnasium.Env``.
    """
    check_callable(env_fn, "env_fn")
    index = check_count(episode, "episode")
    traces = _traces_back_to_a_seed(path, index)
    first = traces[0].header
    clock = WorldClock(ClockConfig(fixed_dt=first.fixed_dt))
    clock.advance_ticks(first.start_tick)
    inner = env_fn()
    if isinstance(inner, ClockedEnv) or not isinstance(inner, gymnasium.Env):
        raise TypeError(f"env_fn must make the env the recorded ClockedEnv wrapped (a "
                        f"gymnasium.Env, not a ClockedEnv), got {inner!r}")
    meta: Mapping[str, Any] = first.metadata
    time_limit = meta.get("time_limit")
    env = ClockedEnv(inner, clock, dt=first.dt, time_limit=time_limit)
    result = None
    for trace in traces:
        result = _replay_one(env, trace)
    assert result is not None
    return result


def _traces_back_to_a_seed(path: str | os.PathLike[str], index: int) -> list[InputTrace]:
    """The traces of ``index`` and of the episodes before it back to one reset with a seed."""
    traces: list[InputTrace] = []
    for number in range(index, -1, -1):
        file = episode_path(path, number)
        trace = InputTrace.load(file)
        _check_episode(trace, file, number)
        traces.append(trace)
        if trace.header.metadata.get("reset_seed") is not None:
            return traces[::-1]
    raise ValueError(f"no episode from 0 to {index} in {os.fspath(path)!r} was reset with a "
                     "seed: the env's random state at their start is unknown, so none replays")


def _check_episode(trace: InputTrace, file: str, number: int) -> None:
    """Refuse a trace that ``RecordEpisodes`` could not have written for episode ``number``:
    its header's episode, seed and options, and an outcome hash for every step, so that the
    replay's work is bounded by the file's size and no step goes unchecked."""
    header = trace.header
    meta = header.metadata
    try:
        if meta.get("episode") != number or isinstance(meta.get("episode"), bool):
            raise ValueError(f"metadata['episode'] must be {number}, got "
                             f"{meta.get('episode')!r}")
        if meta.get("reset_seed") is not None:
            check_seed(meta["reset_seed"], "metadata['reset_seed']")
        if not isinstance(meta.get("options"), dict | None):
            raise TypeError(f"metadata['options'] must be a dict or None, got "
                            f"{meta['options']!r}")
    except (TypeError, ValueError) as error:
        raise TraceFormatError(f"{file}, line 1: {error}", 1) from None
    steps = (trace.end_tick - header.start_tick) // header.period
    if len(trace.hashes) != steps:
        line = 2 + len(trace.inputs) + len(trace.hashes)
        raise TraceFormatError(
            f"{file}, line {line}: the end tick {trace.end_tick} makes the episode "
            f"{steps} steps, but the trace records the outcome of {len(trace.hashes)}: "
            "every recorded step has one", line)


def _replay_one(env: ClockedEnv, trace: InputTrace) -> Episode:
    header = trace.header
    meta: Mapping[str, Any] = header.metadata
    if env.clock.tick != header.start_tick or env.tick != header.start_tick:
        raise ValueError(f"episode {meta.get('episode')!r} starts at tick {header.start_tick}; "
                         f"the episode before it ended at tick {env.tick}")
    seed = meta.get("reset_seed")
    options = meta.get("options")
    observation, info = env.reset(seed=seed, options=options)
    world = _ReplayedEnv(env)
    replayer = Replayer(world, env.clock, trace, keyframe_every=MAX_TICK,
                        state_hash=_state_hash)
    while not replayer.done:
        env.clock.advance_ticks(env.period)
        replayer.pump()
    return Episode(index=check_count(meta.get("episode"), "episode"),
                   seed=seed, options=options, actions=tuple(world.actions),
                   observations=(observation, *world.observations),
                   rewards=tuple(world.rewards), terminations=tuple(world.terminations),
                   truncations=tuple(world.truncations), infos=(info, *world.infos))
