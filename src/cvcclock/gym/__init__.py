"""Gymnasium environments on the clock, and a vector env of many clocks.

- :class:`ClockedEnv` wraps a Gymnasium env so that each ``step()`` is one step of a
  ``ClockFollower`` at the env's control ``dt``: ``info`` gains the episode's ``tick`` and
  ``t``, a ``time_limit`` in world seconds truncates at exactly the step whose tick reaches
  it, and in human mode a ``FrameLoop`` paces the env at its render fps under the binding's
  keys (pause, single-step, speed). Its clock's state is saved and restored with
  ``clock_state()`` / ``restore_clock_state()``.
- :class:`RecordEpisodes` writes each episode of a ``ClockedEnv`` (its reset seed and
  options, its actions stamped by tick, a hash of every step's outcome) as a cvcclock trace;
  :func:`replay_episode` plays one back and returns its :class:`Episode`.
- :class:`ClockBankVectorEnv` is a ``gymnasium.vector.VectorEnv`` whose sub-envs each have a
  slot of one ``ClockBank``: their own tick, time limit and autoreset, ``==``
  ``SyncVectorEnv`` over ``TimeLimit``-wrapped copies (:func:`steps_for_time_limit`).

Needs the ``gym`` extra (Gymnasium 1.x).
"""

from __future__ import annotations

from cvcclock._extras import install_hint

try:
    import gymnasium as _gymnasium
except ImportError as error:   # tests/gym/test_gym_env.py hides Gymnasium to test it
    raise ImportError(f"cvcclock.gym needs Gymnasium: {install_hint('gym')}") from error
del _gymnasium

from cvcclock._public import publish  # noqa: E402
from cvcclock.gym._env import ClockedEnv, ClockedEnvState, control_dt, limit_ticks  # noqa: E402
from cvcclock.gym._record import Episode, RecordEpisodes, replay_episode  # noqa: E402
from cvcclock.gym._vector import ClockBankVectorEnv, steps_for_time_limit  # noqa: E402

__all__ = ["ClockBankVectorEnv", "ClockedEnv", "ClockedEnvState", "Episode", "RecordEpisodes",
           "control_dt", "limit_ticks", "replay_episode", "steps_for_time_limit"]

publish(__name__, globals(), __all__)
