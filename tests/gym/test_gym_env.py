"""ClockedEnv: Gymnasium's own checks, the clock's ticks in info, time limits in world seconds,
clock state saved and restored, and bad input refused without changing anything."""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.envs.classic_control import CartPoleEnv, PendulumEnv  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.utils.env_match import check_environments_match  # noqa: E402
from gymnasium.wrappers import TimeLimit  # noqa: E402

from cvcclock import ClockConfig, WorldClock, WorldClockBinding  # noqa: E402
from cvcclock.gym import ClockedEnv, ClockedEnvState, control_dt, limit_ticks  # noqa: E402
from support.gym_envs import FailingEnv, NoTimeEnv, SpringEnv  # noqa: E402

MAKERS = {
    "CartPole": lambda **kw: gymnasium.make("CartPole-v1", **kw).unwrapped,
    "Pendulum": lambda **kw: gymnasium.make("Pendulum-v1", **kw).unwrapped,
    "Spring": lambda **kw: gymnasium.make("cvcclock-tests/Spring-v0", **kw).unwrapped,
}


@pytest.fixture(autouse=True)
def _quiet_checker():
    # check_env warns that a wrapper is checked (it is: ClockedEnv is what is under test) and
    # about infinite Box bounds of the envs' own spaces.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("name", MAKERS)
def test_gymnasiums_env_checker_passes_on_a_clocked_env(name, monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")   # the human modes open a window
    # The classic-control envs render with pygame: where it is missing (the README's suite)
    # the checker checks all but their render modes; the gym stage installs it.
    renders = name == "Spring" or importlib.util.find_spec("pygame") is not None
    env = ClockedEnv(MAKERS[name](), time_limit=1.0)
    check_env(env, skip_render_check=not renders)
    env.close()


@pytest.mark.parametrize("name", MAKERS)
def test_a_clocked_env_matches_the_bare_env_step_for_step(name):
    # Gymnasium's own comparison: same observations, rewards, terminations, truncations;
    # the infos are the bare env's plus tick and t.
    check_environments_match(MAKERS[name](), ClockedEnv(MAKERS[name]()), num_steps=300,
                             seed=3, info_comparison="superset")


def test_the_step_is_the_envs_dt_or_its_render_fps_or_the_one_given():
    assert ClockedEnv(PendulumEnv()).dt == 0.05                # Pendulum's dt attribute
    assert ClockedEnv(CartPoleEnv()).dt == 1 / 50              # CartPole: 1 / render_fps
    assert ClockedEnv(CartPoleEnv(), dt=0.04).dt == 0.04
    assert control_dt(NoTimeEnv(), 0.1) == 0.1
    env = ClockedEnv(PendulumEnv())
    assert env.clock.fixed_dt == 0.05 and env.period == 1      # a clock of its own


def test_info_holds_the_episode_tick_and_world_seconds():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    env = ClockedEnv(SpringEnv(), clock)          # dt 0.05: 5 quanta a step
    assert env.period == 5
    _, info = env.reset(seed=1)
    assert (info["tick"], info["t"]) == (0, 0.0)
    ticks = [env.step(np.zeros(1, np.float32))[4]["tick"] for _ in range(4)]
    assert ticks == [5, 10, 15, 20]
    assert clock.tick == 20 and env.tick == 20
    _, info = env.reset(seed=1)                   # a new episode counts from its start
    assert info["tick"] == 0 and env.episode_start == 20
    _, _, _, _, info = env.step(np.zeros(1, np.float32))
    assert (info["tick"], info["t"]) == (5, 5 * 0.01)


@pytest.mark.parametrize("fixed_dt, time_limit, steps", [
    (0.05, 0.15, 3),       # 3 quanta: the third step's tick reaches it
    (0.05, 0.16, 4),       # 3.2 quanta: the fourth step's is the first at or past it
    (0.01, 0.12, 3),       # 12 quanta, steps of 5: ticks 5, 10, 15
    (0.01, 0.10, 2),       # exactly the second step's tick
    (0.05, 0.0, 1),        # no time at all: the first step ends it
    (0.05, 0.3, 6),        # 0.3 / 0.05 is 5.999...: a whole number of quanta within 1e-9
])
def test_a_time_limit_truncates_at_exactly_the_step_whose_tick_reaches_it(
        fixed_dt, time_limit, steps):
    env = ClockedEnv(SpringEnv(stiffness=0.0), WorldClock(ClockConfig(fixed_dt=fixed_dt)),
                     time_limit=time_limit)
    env.reset(seed=0)
    truncated = []
    for _ in range(steps + 2):
        truncated.append(env.step(np.zeros(1, np.float32))[3])
    assert truncated.index(True) == steps - 1
    assert limit_ticks(time_limit, fixed_dt) == math.ceil(round(time_limit / fixed_dt, 6))


def test_a_time_limit_equals_timelimit_with_the_equivalent_steps():
    env = ClockedEnv(CartPoleEnv(), time_limit=0.5)
    reference = TimeLimit(CartPoleEnv(), max_episode_steps=25)
    check_environments_match(reference, env, num_steps=400, seed=11, info_comparison="superset")


def test_envs_on_one_clock_each_step_at_their_own_rate():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    fast = ClockedEnv(SpringEnv(), clock, dt=0.02)
    slow = ClockedEnv(SpringEnv(), clock, dt=0.03)
    fast.reset(seed=0)
    slow.reset(seed=0)
    seen = []
    for _ in range(3):
        seen.append(("fast", fast.step(np.zeros(1, np.float32))[4]["tick"], clock.tick))
        seen.append(("slow", slow.step(np.zeros(1, np.float32))[4]["tick"], clock.tick))
    assert seen == [("fast", 2, 2), ("slow", 3, 3), ("fast", 4, 4), ("slow", 6, 6),
                    ("fast", 6, 6), ("slow", 9, 9)]


def test_outside_human_mode_the_clock_never_waits_on_the_wall():
    clock = WorldClock(ClockConfig(fixed_dt=0.05))
    clock.mode = "paused"          # paused, and nobody drives it: training still runs
    env = ClockedEnv(PendulumEnv(), clock)
    env.reset(seed=0)
    for _ in range(100):
        env.step(np.zeros(1, np.float32))
    assert clock.tick == 100 and env.binding is None and env.frame_loop is None


def test_the_clock_state_saves_and_restores_the_envs_time():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    env = ClockedEnv(SpringEnv(), clock, time_limit=0.4)
    env.reset(seed=4)
    for _ in range(3):
        env.step(np.full(1, 0.5, np.float32))
    saved = env.clock_state()
    physics = env.unwrapped.state.copy(), env.unwrapped.steps
    assert isinstance(saved, ClockedEnvState) and saved.clock == clock.state()

    def run():
        return [env.step(np.full(1, 0.5, np.float32)) for _ in range(6)]

    first = run()
    env.restore_clock_state(saved)
    # The env's own state is the env's to restore.
    env.unwrapped.state, env.unwrapped.steps = physics[0].copy(), physics[1]
    again = run()
    assert [(o.tolist(), r, te, tr, i) for o, r, te, tr, i in first] == \
        [(o.tolist(), r, te, tr, i) for o, r, te, tr, i in again]
    assert [step[3] for step in again] == [False, False, False, False, True, True]
    assert [step[4]["tick"] for step in again] == [20, 25, 30, 35, 40, 45]


def test_a_jump_of_the_clock_the_env_did_not_make_is_refused():
    clock = WorldClock(ClockConfig(fixed_dt=0.05))
    env = ClockedEnv(PendulumEnv(), clock)
    env.reset(seed=0)
    saved = clock.state()
    env.step(np.zeros(1, np.float32))
    clock.restore(saved)
    with pytest.raises(RuntimeError, match="the clock jumped"):
        env.step(np.zeros(1, np.float32))


def test_a_step_whose_env_raises_stays_due():
    env = ClockedEnv(FailingEnv(fail_at=2))
    env.reset(seed=0)
    assert env.step(np.zeros(1, np.float32))[4]["tick"] == 1
    with pytest.raises(RuntimeError, match="the env broke"):
        env.step(np.zeros(1, np.float32))
    assert env.clock.tick == 2 and env.tick == 1
    assert env.step(np.zeros(1, np.float32))[4]["tick"] == 2   # the same due tick
    assert env.clock.tick == 2


def test_a_step_inside_presenting_is_refused_and_changes_nothing():
    env = ClockedEnv(PendulumEnv())
    env.reset(seed=0)
    with env.clock.presenting(), pytest.raises(RuntimeError):
        env.step(np.zeros(1, np.float32))
    assert env.clock.tick == 0 and env.tick == 0


BAD = [
    (lambda c: ClockedEnv(SpringEnv(), c, dt=0.03), ValueError,
     r"dt=0\.03 is 3\.6\d* quanta of fixed_dt=0\.00833"),
    (lambda c: ClockedEnv(SpringEnv(), c, time_limit=-1.0), ValueError, r"time_limit.*-1\.0"),
    (lambda c: ClockedEnv(SpringEnv(), c, time_limit=math.nan), ValueError, r"time_limit.*nan"),
    (lambda c: ClockedEnv(SpringEnv(), c, time_limit="1"), TypeError, r"time_limit"),
    (lambda c: ClockedEnv(NoTimeEnv(), c), ValueError, r"no dt attribute and no "
                                                       r"metadata\['render_fps'\].*dt="),
    (lambda c: ClockedEnv(SpringEnv(), c, dt=-0.05), ValueError, r"dt.*-0\.05"),
    (lambda c: ClockedEnv(SpringEnv(), c, dt=0.0), ValueError, r"dt.*0\.0"),
    (lambda c: ClockedEnv(SpringEnv(), c, dt="0.05"), TypeError, r"dt"),
    (lambda c: ClockedEnv("CartPole-v1", c), TypeError, r"env must be a gymnasium\.Env"),
    (lambda c: ClockedEnv(SpringEnv(), "clock"), TypeError, r"clock must be a WorldClock"),
    (lambda c: ClockedEnv(SpringEnv(render_mode="human"), c,
                          binding=WorldClockBinding({}, WorldClock())), ValueError,
     r"not the binding's clock"),
    (lambda c: ClockedEnv(SpringEnv(render_mode="human"), c, capture=1), TypeError,
     r"capture"),
    (lambda c: ClockedEnv(SpringEnv(render_mode="human"), c, max_wait_frames=-1), ValueError,
     r"max_wait_frames"),
]


@pytest.mark.parametrize("make, error, message", BAD)
def test_bad_input_is_a_clear_error_that_changes_nothing(make, error, message):
    clock = WorldClock()                        # 1/120 s quanta
    timer = clock.every_ticks(3, lambda tick: None)
    clock.advance_ticks(7)
    before, jumps = clock.state(), clock.discontinuities
    with pytest.raises(error, match=message):
        make(clock)
    assert clock.state() == before and clock.discontinuities == jumps
    assert timer.active and timer.next_tick == 9


def test_a_non_whole_dt_names_the_step_and_the_quantum():
    with pytest.raises(ValueError) as caught:
        ClockedEnv(CartPoleEnv(), WorldClock(ClockConfig(fixed_dt=0.015)))
    assert "dt=0.02" in str(caught.value) and "fixed_dt=0.015" in str(caught.value)


def test_restoring_a_state_of_another_kind_is_refused_and_changes_nothing():
    env = ClockedEnv(SpringEnv(), WorldClock(ClockConfig(fixed_dt=0.01)))
    env.reset(seed=0)
    env.step(np.zeros(1, np.float32))
    other = ClockedEnv(SpringEnv(), WorldClock(ClockConfig(fixed_dt=0.05)))
    before = env.clock.state()
    with pytest.raises(ValueError, match="fixed_dt=0.05"):
        env.restore_clock_state(other.clock_state())
    with pytest.raises(TypeError, match="ClockedEnvState"):
        env.restore_clock_state(before)
    assert env.clock.state() == before
    assert env.step(np.zeros(1, np.float32))[4]["tick"] == 10


@pytest.mark.parametrize("dt, message", [
    (1e-300, r"^dt must be at least 1e-06 s to be the quantum of the env's own clock .*"
             r"got 1e-300$"),
    (None, r"^the env's control step must be at least 1e-06 s .* got 1e-09$"),
])
def test_a_step_too_short_for_a_clock_of_its_own_is_refused_before_the_env_is_taken(
        dt, message):
    env = ClockedEnv(SpringEnv())
    env.reset(seed=0)
    env.step(np.zeros(1, np.float32))
    inner, before = env.env, env.clock_state()
    fast = SpringEnv()
    fast.dt = 1e-9
    with pytest.raises(ValueError, match=message):
        env.__init__(fast, dt=dt)          # __init__ run again: changes nothing either
    assert env.env is inner and env.clock_state() == before


@pytest.mark.parametrize("change, error, message", [
    ({"last_tick": -5}, ValueError, r"state.last_tick must be >= 0, got -5"),
    ({"taken_tick": 0}, ValueError, r"episode_start <= last_tick <= taken_tick"),
    ({"episode_start": 10**30}, ValueError, r"state.episode_start must be <= 5, got 10{30}"),
    ({"last_tick": 7.5}, TypeError, r"state.last_tick must be an integer, got 7.5"),
    ({"taken_tick": 6}, ValueError, r"state.taken_tick must be <= 5, got 6"),
    ({"last_tick": 2, "taken_tick": 2}, ValueError, r"state.last_tick must be a multiple"),
    ({"clock": "a state"}, TypeError, r"state.clock must be a ClockState, got 'a state'"),
])
def test_restoring_a_state_no_env_could_have_made_is_refused_and_changes_nothing(
        change, error, message):
    env = ClockedEnv(SpringEnv(), WorldClock(ClockConfig(fixed_dt=0.01)))
    env.reset(seed=0)
    env.step(np.zeros(1, np.float32))
    saved = env.clock_state()
    bad = dataclasses.replace(saved, **change)
    env.step(np.zeros(1, np.float32))
    before = env.clock_state()
    with pytest.raises(error, match=message):
        env.restore_clock_state(bad)
    assert env.clock_state() == before
    assert env.step(np.zeros(1, np.float32))[4]["tick"] == 15


def test_without_gymnasium_the_wing_says_how_to_install_it():
    import subprocess
    import sys

    code = ("import sys; sys.modules['gymnasium'] = None\n"
            "try:\n    import cvcclock.gym\nexcept ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.stdout.strip() == ("cvcclock.gym needs Gymnasium: pip install '.[gym]' (in a "
                                  "checkout) or pip install 'cvcclock[gym]' (from an index)")
