"""ClockBankVectorEnv: sub-envs stepped in one process, one ClockBank slot each.

Each sub-env's time is its slot of one ``ClockBank``: a step runs ``period`` quanta on every
slot that steps, in one call, and the time limits are one comparison of arrays. The step
loop, the autoreset modes and the info merging are those of Gymnasium's ``SyncVectorEnv``,
so for the same seeds its results are ``SyncVectorEnv``'s over ``TimeLimit``-wrapped copies
with the equivalent step limits (``steps_for_time_limit``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from copy import deepcopy
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import Env
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array, iterate

from cvcclock import ClockBank, ClockConfig, ticks_per_step
from cvcclock.checks import (
    check_bool,
    check_callable,
    check_seconds,
    check_seed,
    check_time_limit,
    check_time_limits,
)
from cvcclock.gym._env import limit_ticks

__all__ = ["ClockBankVectorEnv", "steps_for_time_limit"]


def steps_for_time_limit(time_limit: float, dt: float, fixed_dt: float | None = None) -> int | None:
    """The ``TimeLimit(max_episode_steps=...)`` that truncates where ``time_limit`` does.

    Parameters
    ----------
    time_limit : float
        World seconds, >= 0, or ``math.inf``.
    dt : float
        The control step in seconds.
    fixed_dt : float, optional
        The clock's quantum; ``dt`` when omitted.

    Returns
    -------
    int or None
        The step count (at least 1: the first step truncates a limit of 0), or None for no
        limit.
    """
    fixed = dt if fixed_dt is None else check_seconds(fixed_dt, "fixed_dt", minimum=1e-6)
    period = ticks_per_step(dt, fixed)
    limit = check_time_limit(time_limit)
    if limit == math.inf:
        return None
    return max(1, -(-limit_ticks(limit, fixed) // period))


def _autoreset_mode(value: object) -> AutoresetMode:
    if isinstance(value, AutoresetMode):
        return value
    try:
        return AutoresetMode(value)
    except ValueError:
        names = ", ".join(repr(m.value) for m in AutoresetMode)
        raise ValueError(f"autoreset_mode must be an AutoresetMode or one of {names}, got "
                         f"{value!r}") from None


def _make_all(fns: list[Callable[[], Env[Any, Any]]]) -> list[Env[Any, Any]]:
    """Each ``fns[i]()``; if one raises, the sub-envs already made are closed."""
    envs: list[Env[Any, Any]] = []
    try:
        for fn in fns:
            envs.append(fn())
    except BaseException:
        _close_all(envs)
        raise
    return envs


def _close_all(envs: list[Any]) -> None:
    """Close what is a sub-env among ``envs`` (a maker may have made something else)."""
    for env in envs:
        if isinstance(env, Env):
            env.close()


class ClockBankVectorEnv(VectorEnv[Any, Any, np.ndarray]):
    """A vector env of sub-envs on one ``ClockBank``: each its own tick and time limit.

    Parameters
    ----------
    env_fns : sequence of callables
        Each makes one sub-env (a ``gymnasium.Env``); at least one.
    dt : float
        The control step in world seconds, for every sub-env.
    time_limits : float or sequence of float, optional
        World seconds per episode: one for every sub-env, or one a sub-env (``math.inf``
        for none); each >= 0. A sub-env's step whose episode tick reaches its limit returns
        ``truncated=True``. None: no limits.
    autoreset_mode : AutoresetMode or str
        Gymnasium's autoreset mode: ``NEXT_STEP`` (the default), ``SAME_STEP`` or
        ``DISABLED``; in ``metadata["autoreset_mode"]``.
    fixed_dt : float, optional
        The bank's quantum; ``dt`` when omitted. ``dt`` is a whole number of it.
    copy : bool
        Whether ``reset`` and ``step`` return a copy of the observations (as
        ``SyncVectorEnv``'s ``copy``).

    Attributes
    ----------
    envs : list of gymnasium.Env
        The sub-envs.
    num_envs : int
    bank : ClockBank
        The sub-envs' clocks, slot i sub-env i's.
    dt : float
    period : int
        The control step in quanta.
    time_limits : numpy.ndarray
        float64, one a sub-env (``inf`` for none).
    autoreset_mode : AutoresetMode

    Raises
    ------
    TypeError
        If ``env_fns`` holds something not callable, or a number is of the wrong type.
    ValueError
        For an empty ``env_fns``, a ``dt`` that is not a whole number of quanta, a negative
        or NaN limit, a sequence of limits whose length is not the number of sub-envs, or an
        unknown autoreset mode: all checked before any sub-env is made. Also if the sub-envs'
        spaces differ (they are closed then).

    Notes
    -----
    ``info`` gains ``"tick"`` (int64) and ``"t"`` (float64): each sub-env's tick counted
    from its episode's start, and the same in world seconds, with their masks ``"_tick"``
    and ``"_t"`` (all true). Without them the infos are ``SyncVectorEnv``'s.

    With ``NEXT_STEP``, a sub-env that is reset by a step does not step, and its slot runs
    no quanta. With ``DISABLED``, stepping a sub-env whose episode ended without resetting
    it (``reset(options={"reset_mask": ...})``) is a RuntimeError, raised before any
    sub-env steps.
    """

    def __init__(self, env_fns: Sequence[Callable[[], Env[Any, Any]]], *, dt: float,
                 time_limits: float | Sequence[float] | npt.ArrayLike | None = None,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                 fixed_dt: float | None = None, copy: bool = True) -> None:
        # Every argument first: a bad one makes no sub-env.
        if not isinstance(env_fns, Iterable) or isinstance(env_fns, str | bytes):
            raise TypeError(f"env_fns must be a sequence of callables, got {env_fns!r}")
        fns = list(env_fns)
        if not fns:
            raise ValueError(f"env_fns must make at least one sub-env, got {env_fns!r}")
        for i, fn in enumerate(fns):
            check_callable(fn, f"env_fns[{i}]")
        # Without fixed_dt the step is the quantum, so it is held to the quantum's bound.
        step = check_seconds(dt, "dt", minimum=1e-6 if fixed_dt is None else 0.0)
        fixed = step if fixed_dt is None else check_seconds(fixed_dt, "fixed_dt", minimum=1e-6)
        period = ticks_per_step(step, fixed)
        limits = check_time_limits(math.inf if time_limits is None else time_limits, len(fns))
        mode = _autoreset_mode(autoreset_mode)
        copy = check_bool(copy, "copy")

        super().__init__()
        self.env_fns = fns
        self.copy = copy
        self.autoreset_mode = mode
        self.dt = step
        self.period = period
        self.time_limits = limits
        self.envs = _make_all(fns)
        try:
            self._check_spaces()
        except Exception:
            _close_all(self.envs)
            raise
        n = self.num_envs = len(self.envs)
        self.metadata = dict(self.envs[0].metadata)
        self.metadata["autoreset_mode"] = mode
        self.render_mode = self.envs[0].render_mode
        self.single_action_space = self.envs[0].action_space
        self.action_space = batch_space(self.single_action_space, n)
        self.single_observation_space = self.envs[0].observation_space
        self.observation_space = batch_space(self.single_observation_space, n)

        self.bank = ClockBank(n, ClockConfig(fixed_dt=fixed))
        self._fixed_dt = fixed
        self._limit = np.array([limit_ticks(v, fixed) for v in limits], dtype=np.int64)
        self._start = np.zeros(n, dtype=np.int64)
        self._all = np.ones(n, dtype=np.bool_)

        self._env_obs: list[Any] = [None] * n
        self._observations: Any = create_empty_array(self.single_observation_space, n=n,
                                                     fn=np.zeros)
        self._autoreset_envs = np.zeros(n, dtype=np.bool_)

    def _check_spaces(self) -> None:
        first = self.envs[0]
        for i, env in enumerate(self.envs):
            if not isinstance(env, Env):
                raise TypeError(f"env_fns[{i}] made {env!r}, not a gymnasium.Env")
            if env.observation_space != first.observation_space:
                raise ValueError(f"sub-env {i}'s observation space {env.observation_space} "
                                 f"is not sub-env 0's {first.observation_space}")
            if env.action_space != first.action_space:
                raise ValueError(f"sub-env {i}'s action space {env.action_space} is not "
                                 f"sub-env 0's {first.action_space}")

    # -- time ------------------------------------------------------------------------------

    @property
    def episode_ticks(self) -> npt.NDArray[np.int64]:
        """Each sub-env's tick counted from its episode's start (a new array)."""
        return self.bank.tick - self._start

    def _advance(self, some_resetting: bool) -> None:
        """One call runs every stepping slot's quanta; a sub-env being reset runs none.

        The cheapest call that does it: ``advance_ticks`` of one count when every slot
        steps, ``step_once`` of a mask for one-quantum steps; an array of counts (whose
        checks cost some microseconds) only for a longer step while some are reset.
        """
        bank = self.bank
        if not some_resetting:
            bank.advance_ticks(self.period)
        elif self.period == 1:
            bank.step_once(~self._autoreset_envs)
        else:
            bank.advance_ticks(np.where(self._autoreset_envs, 0, self.period))

    def _add_time(self, infos: dict[str, Any]) -> dict[str, Any]:
        ticks = self.bank.tick - self._start
        infos["tick"] = ticks
        infos["_tick"] = self._all.copy()
        infos["t"] = ticks * self._fixed_dt
        infos["_t"] = self._all.copy()
        return infos

    # -- the VectorEnv API -----------------------------------------------------------------

    def reset(self, *, seed: int | list[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset the sub-envs (those ``options["reset_mask"]`` selects, or all), as
        ``SyncVectorEnv.reset`` does; their episodes start at their slots' current ticks.

        Parameters
        ----------
        seed : int, list of int or None, or None
            None, an int (sub-env i gets ``seed + i``) or one a sub-env.
        options : dict, optional
            Passed to each sub-env's ``reset``; ``"reset_mask"``, a bool array of one a
            sub-env, selects the sub-envs to reset.

        Returns
        -------
        tuple
            ``(observations, infos)``.

        Raises
        ------
        TypeError, ValueError
            If a seed is not a non-negative integer (any integer type, not a bool), the
            list's length is not ``num_envs``, or the reset mask is bad; checked before any
            sub-env is reset.
        """
        n = self.num_envs
        seeds = self._seeds(seed)
        mask = self._reset_mask(options)
        if mask is not None:
            options = {k: v for k, v in options.items() if k != "reset_mask"} if options else None
        where = self._all if mask is None else mask
        if mask is None:
            self._autoreset_envs = np.zeros(n, dtype=np.bool_)
        else:
            self._autoreset_envs[mask] = False
        infos: dict[str, Any] = {}
        ticks = self.bank.tick
        for i, (env, single_seed) in enumerate(zip(self.envs, seeds, strict=True)):
            if where[i]:
                self._env_obs[i], env_info = env.reset(seed=single_seed, options=options)
                self._start[i] = ticks[i]
                infos = self._add_info(infos, env_info, i)
        self._observations = concatenate(self.single_observation_space, self._env_obs,
                                         self._observations)
        return (deepcopy(self._observations) if self.copy else self._observations,
                self._add_time(infos))

    def _seeds(self, seed: object) -> list[int | None]:
        """One seed a sub-env, each checked before any sub-env is reset."""
        n = self.num_envs
        if seed is None:
            return [None] * n
        if isinstance(seed, str | bytes):
            raise TypeError(f"seed must be None, an int or a list of num_envs={n} seeds, got "
                            f"{seed!r}")
        if not isinstance(seed, Sequence | np.ndarray) or np.ndim(seed) == 0:
            first = check_seed(seed)   # any integer type, numpy's too; never a bool
            return [first + i for i in range(n)]
        seeds = list(seed)
        if len(seeds) != n:
            raise ValueError(f"seed must be None, an int or a list of num_envs={n} seeds, got "
                             f"{len(seeds)} of them: {seed!r}")
        return [None if s is None else check_seed(s, f"seed[{i}]") for i, s in enumerate(seeds)]

    def _reset_mask(self, options: dict[str, Any] | None) -> npt.NDArray[np.bool_] | None:
        if options is None or "reset_mask" not in options:
            return None
        mask = options["reset_mask"]
        n = self.num_envs
        if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_:
            raise TypeError(f"options['reset_mask'] must be a numpy bool array, got {mask!r}")
        if mask.shape != (n,):
            raise ValueError(f"options['reset_mask'] must have shape ({n},), got {mask.shape}")
        if not mask.any():
            raise ValueError(f"options['reset_mask'] must select at least one sub-env, got "
                             f"{mask!r}")
        return mask

    def step(self, actions: Any) -> tuple[Any, npt.NDArray[np.float64], npt.NDArray[np.bool_],
                                          npt.NDArray[np.bool_], dict[str, Any]]:
        """Step every sub-env one control step, each on its own slot; autoreset as the mode
        says.

        Parameters
        ----------
        actions : object
            A batch of ``action_space``.

        Returns
        -------
        tuple
            ``(observations, rewards, terminations, truncations, infos)``, as
            ``SyncVectorEnv.step`` returns them; a sub-env's truncation is also true at the
            step whose episode tick reaches its time limit.

        Raises
        ------
        RuntimeError
            With ``DISABLED``, if a sub-env whose episode ended was not reset; nothing has
            stepped then.
        """
        mode = self.autoreset_mode
        if mode is AutoresetMode.DISABLED and self._autoreset_envs.any():
            ended = np.flatnonzero(self._autoreset_envs).tolist()
            raise RuntimeError(
                f"sub-envs {ended} ended their episodes and were not reset; with "
                "autoreset_mode DISABLED, reset them with reset(options={'reset_mask': ...}) "
                "before stepping")
        actions_iter = iterate(self.action_space, actions)
        n = self.num_envs
        resetting = self._autoreset_envs.tolist() if mode is AutoresetMode.NEXT_STEP else None
        some_resetting = resetting is not None and any(resetting)
        # The ticks the step ends at; the slots run there once the sub-envs have stepped, so
        # a sub-env that raises leaves its slot (and those of the ones after it) as it was.
        ticks = self.bank.tick + (np.where(self._autoreset_envs, 0, self.period)
                                  if some_resetting else self.period)
        over = ((ticks - self._start) >= self._limit).tolist()   # the time limits, at once
        same_step = mode is AutoresetMode.SAME_STEP

        # Python lists in the loop, arrays after it: a list's item costs less than an
        # array's, and the arrays hold the same float64 and bool values SyncVectorEnv's do.
        rewards: list[Any] = [0.0] * n
        terminations: list[Any] = [False] * n
        truncations: list[Any] = [False] * n
        started: list[int] = []
        infos: dict[str, Any] = {}
        stepped: list[int] = []
        try:
            for i, (env, action) in enumerate(zip(self.envs, actions_iter, strict=True)):
                if resetting is not None and resetting[i]:
                    observation, env_info = env.reset()
                    started.append(i)
                else:
                    observation, reward, terminated, truncated, env_info = env.step(action)
                    stepped.append(i)
                    truncated = truncated or over[i]
                    rewards[i], terminations[i], truncations[i] = reward, terminated, truncated
                    if same_step and (terminated or truncated):
                        infos = self._add_info(
                            infos, {"final_obs": observation, "final_info": env_info}, i)
                        observation, env_info = env.reset()
                        started.append(i)
                self._env_obs[i] = observation
                infos = self._add_info(infos, env_info, i)
        except BaseException:
            # The sub-envs that stepped before one raised keep their step's quanta.
            if stepped:
                counts = np.zeros(n, dtype=np.int64)
                counts[stepped] = self.period
                self.bank.advance_ticks(counts)
            raise
        self._advance(some_resetting)
        if started:
            self._start[started] = ticks[started]
        # New arrays each step, so they are returned as they are: the env keeps none of them.
        rewards_out = np.array(rewards, dtype=np.float64)
        terminated_out = np.array(terminations, dtype=np.bool_)
        truncated_out = np.array(truncations, dtype=np.bool_)

        self._observations = concatenate(self.single_observation_space, self._env_obs,
                                         self._observations)
        self._autoreset_envs = np.logical_or(terminated_out, truncated_out)
        return (deepcopy(self._observations) if self.copy else self._observations,
                rewards_out, terminated_out, truncated_out, self._add_time(infos))

    def render(self) -> tuple[Any, ...]:
        """Each sub-env's ``render()``."""
        return tuple(env.render() for env in self.envs)

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call the method ``name`` of each sub-env (or read the attribute); their results."""
        results = []
        for env in self.envs:
            value = env.get_wrapper_attr(name)
            results.append(value(*args, **kwargs) if callable(value) else value)
        return tuple(results)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """The attribute ``name`` of each sub-env."""
        return self.call(name)

    def set_attr(self, name: str, values: list[Any] | tuple[Any, ...] | Any) -> None:
        """Set the attribute ``name`` of each sub-env: to ``values[i]``, or to ``values``
        when it is not a list or tuple."""
        if not isinstance(values, list | tuple):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise ValueError(f"values must have one value a sub-env ({self.num_envs}), got "
                             f"{len(values)}")
        for env, value in zip(self.envs, values, strict=True):
            env.set_wrapper_attr(name, value)

    def close_extras(self, **kwargs: Any) -> None:
        """Close every sub-env."""
        for env in self.envs:
            env.close()

    def __repr__(self) -> str:
        return (f"ClockBankVectorEnv(num_envs={len(self.envs)}, dt={self.dt!r}, "
                f"autoreset_mode={self.autoreset_mode.name})")

