"""The core's public surface: values, pickling, waiting followers, and the stubs."""

import pickle
import subprocess
import sys
import threading
import time
from pathlib import Path

import cvcclock
import cvcclock._core
from cvcclock import ClockConfig, Mode, StepResult, WorldClock

CORE_CLASSES = ("WorldClock", "ClockConfig", "StepResult", "Timer", "Presentation",
                "ClockFollower", "ClockState", "TimerState", "ClockBank", "BankFollower", "Mode")


def test_core_classes_carry_the_module_users_import_them_from():
    for name in CORE_CLASSES:
        cls = getattr(cvcclock, name)
        assert (cls.__module__, cls.__qualname__) == ("cvcclock", name)
        assert pickle.dumps(cls, protocol=0).startswith(f"ccvcclock\n{name}\n".encode())
        # Pickles written before the classes were renamed name cvcclock._core: it still has them.
        assert getattr(cvcclock._core, name) is cls
    assert repr(WorldClock) == "<class 'cvcclock.WorldClock'>"


def test_config_is_a_value():
    a = ClockConfig(fixed_dt=0.01, scale=2.0)
    assert a == ClockConfig(fixed_dt=0.01, scale=2.0)
    assert hash(a) == hash(ClockConfig(fixed_dt=0.01, scale=2.0))
    assert a != ClockConfig(fixed_dt=0.01)
    assert pickle.loads(pickle.dumps(a)) == a
    assert eval(repr(a), {"ClockConfig": ClockConfig}) == a
    assert a.replace(scale=3.0).scale == 3.0 and a.scale == 2.0


def test_config_reports_values_set_on_their_own():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    clock.scale = 2.0
    clock.lockstep_steps = 4
    clock.max_steps_per_advance = 12
    assert clock.config == ClockConfig(fixed_dt=0.01, scale=2.0, lockstep_steps=4,
                                       max_steps_per_advance=12)
    assert clock.fixed_dt == 0.01


def test_step_result_is_a_value():
    r = WorldClock(ClockConfig(fixed_dt=0.01)).advance(0.025)
    assert r == StepResult(2, 0, 0, r.alpha)
    assert r.last_tick == 2
    assert pickle.loads(pickle.dumps(r)) == r
    assert "steps=2" in repr(r)


def test_mode_values_are_the_names():
    assert [m.value for m in Mode] == ["live", "lockstep", "paused", "stepping", "replay"]
    assert Mode.LIVE == "live"


def test_wait_for_tick_change_returns_at_once_when_the_tick_differs():
    clock = WorldClock()
    clock.step_once()
    assert clock.wait_for_tick_change(0, 0.0) == 1


def test_wait_for_tick_change_times_out_with_none():
    assert WorldClock().wait_for_tick_change(0, 0.01) is None


def test_wait_for_tick_change_wakes_a_follower_thread_with_the_gil_released():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    got = []
    waiting = threading.Event()

    def follower():
        waiting.set()
        got.append(clock.wait_for_tick_change(0, 10.0))

    thread = threading.Thread(target=follower)
    thread.start()
    waiting.wait()
    # The driver keeps running Python while the follower waits: the GIL is not held by it.
    spins = 0
    deadline = time.perf_counter() + 0.05
    while time.perf_counter() < deadline:
        spins += 1
    assert spins > 1000
    clock.advance_ticks(3)
    thread.join(10.0)
    assert got == [3]


def test_stubs_match_the_compiled_module():
    allowlist = Path(__file__).parents[1] / "project" / "stubtest_allowlist.txt"
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "cvcclock._core", "--allowlist", str(allowlist)],
        capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_public_names_have_docstrings():
    for name in cvcclock.__all__:
        obj = getattr(cvcclock, name)
        if name.startswith("__"):
            continue
        assert obj.__doc__, name
        for attr, member in vars(obj).items() if isinstance(obj, type) else ():
            if not attr.startswith("_") and callable(member) or isinstance(member, property):
                assert getattr(member, "__doc__", None), f"{name}.{attr}"
