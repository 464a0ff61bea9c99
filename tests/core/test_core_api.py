"""The core's public surface: values, pickling, waiting followers, the stubs, reprs, classes
that are safe however they are made, and signatures and messages that tell the truth."""

import copy
import inspect
import pickle
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import cvcclock
import cvcclock._core
from cvcclock import (
    ClockConfig,
    ClockFollower,
    Mode,
    Presentation,
    StepResult,
    Timer,
    WorldClock,
    ticks_per_step,
)

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


# -- a clock's repr ----------------------------------------------------------------------------


def test_the_clock_repr_shows_tick_t_mode_and_fixed_dt():
    clock = WorldClock()
    clock.advance_ticks(120)
    assert repr(clock) == "<WorldClock tick=120 t=1.0 mode='live' fixed_dt=0.008333333333333333>"
    clock.scale = 2.5
    clock.mode = "lockstep"
    clock.pause()
    assert repr(clock) == ("<WorldClock tick=120 t=1.0 mode='paused' "
                           "fixed_dt=0.008333333333333333 scale=2.5 resume_mode='lockstep'>")


def test_the_clock_repr_never_raises():
    class Sub(WorldClock):
        pass

    bare = WorldClock.__new__(WorldClock)
    assert repr(bare) == "<WorldClock tick=0 t=0.0 mode='live' fixed_dt=0.008333333333333333>"
    assert repr(Sub.__new__(Sub)).startswith("<Sub tick=0 ")
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    seen = []
    clock.after_ticks(3, lambda tick: seen.append(repr(clock)))
    clock.advance_ticks(5)
    with clock.presenting():
        seen.append(repr(clock))
    assert seen == ["<WorldClock tick=3 t=0.03 mode='live' fixed_dt=0.01>",
                    "<WorldClock tick=5 t=0.05 mode='live' fixed_dt=0.01>"]


# -- StepResult: its truth, last_tick, and a value checked when made ---------------------------


def test_a_step_result_is_falsy_exactly_when_no_quanta_ran():
    clock = WorldClock()
    assert not clock.advance(0.0) and not clock.advance_ticks(0)
    assert clock.advance(1 / 60) and clock.step_once() and clock.advance_ticks(3)
    assert bool(StepResult(0, 5, 0, 0.5)) is False
    assert bool(StepResult(1, 5, 0, 0.0)) is True
    clock.mode = "paused"
    assert not clock.advance(1 / 60)


def test_last_tick_is_the_tick_after_the_last_quantum_and_repr_stays_a_call():
    clock = WorldClock()
    clock.advance_ticks(7)
    for call in (lambda: clock.advance(1 / 60), lambda: clock.advance_ticks(5),
                 clock.step_once, lambda: clock.advance_ticks(0)):
        result = call()
        assert result.last_tick == result.first_tick + result.steps == clock.tick
        again = eval(repr(result), {"StepResult": StepResult})
        assert again == result and again.last_tick == result.last_tick
        assert pickle.loads(pickle.dumps(result)) == result
    assert "last_tick" not in repr(result)


def test_a_step_result_is_validated_and_immutable():
    r = StepResult(2, 5, 1, 0.25)
    assert (r.steps, r.first_tick, r.dropped, r.alpha, r.last_tick) == (2, 5, 1, 0.25, 7)
    h = hash(r)
    with pytest.raises(TypeError, match="immutable"):
        r.__init__(9, 9, 9, 0.5)
    returned = WorldClock().advance(1 / 60)
    with pytest.raises(TypeError, match="immutable"):
        returned.__init__(9, 9, 9, 0.5)
    assert hash(r) == h and returned.steps == 2
    with pytest.raises(TypeError, match="steps"):
        StepResult(1.5, 0, 0, 0.0)
    with pytest.raises(TypeError, match="dropped"):
        StepResult(1, 0, True, 0.0)
    with pytest.raises(ValueError, match="first_tick"):
        StepResult(1, -1, 0, 0.0)
    with pytest.raises(ValueError, match="alpha"):
        StepResult(1, 0, 0, 1.0)
    assert StepResult(np.int64(1), 0, 0, np.float64(0.5)) == StepResult(1, 0, 0, 0.5)
    assert pickle.loads(pickle.dumps(r)) == r and copy.deepcopy(r) == r


# -- Presentation, however it is made or left --------------------------------------------------


def test_presentation_without_a_clock_raises_instead_of_crashing():
    with pytest.raises(TypeError):
        Presentation()
    with pytest.raises(RuntimeError, match="no clock"):
        Presentation.__new__(Presentation).__enter__()
    with pytest.raises(RuntimeError, match="without being entered"):
        Presentation.__new__(Presentation).__exit__(None, None, None)

    class Skipping(Presentation):
        def __init__(self):
            pass

    with pytest.raises(RuntimeError, match="no clock"), Skipping():
        pass


def test_presentation_made_directly_or_subclassed_marks_its_clock():
    clock = WorldClock()

    class Marked(Presentation):
        pass

    for context in (Presentation(clock), Marked(clock), clock.presenting()):
        with context as inside:
            assert inside is clock and not clock.can_advance
            with pytest.raises(RuntimeError, match="presenting"):
                clock.advance(1 / 60)
        assert clock.can_advance


def test_a_presentation_cannot_be_reinitialised_while_entered():
    a, b = WorldClock(), WorldClock()
    p = Presentation(a)
    with p:
        with pytest.raises(RuntimeError, match="entered"):
            p.__init__(b)
    p.__init__(b)          # left: it may be pointed at another clock
    with p:
        assert not b.can_advance and a.can_advance


def test_leaving_presenting_on_another_thread_releases_the_entering_thread():
    """A render generator finalised by the garbage collector on another thread."""
    clock = WorldClock()

    def render():
        with clock.presenting():
            yield

    gen = render()
    next(gen)
    assert not clock.can_advance
    closer = threading.Thread(target=gen.close)
    closer.start()
    closer.join(5)
    assert not closer.is_alive()
    assert clock.can_advance
    assert clock.advance(1 / 60).steps == 2
    clock.configure(ClockConfig())


# -- made with __new__, subclassed, re-initialised: never a crash, hang or corruption ----------
# Each cdef class made with ``__new__`` (no ``__init__``), subclassed with an ``__init__``
# that skips the base's, and re-initialised.


def test_a_config_made_with_new_is_the_default_configuration():
    cfg = ClockConfig.__new__(ClockConfig)
    assert cfg == ClockConfig()
    clock = WorldClock(cfg)
    for _ in range(10):
        clock.advance(1 / 60)
    assert clock.tick == 20
    other = WorldClock()
    other.configure(ClockConfig.__new__(ClockConfig))
    assert other.advance(1 / 60).steps == 2


def test_a_config_subclass_that_skips_init_is_the_default_configuration():
    class Lazy(ClockConfig):
        def __init__(self):
            pass

    clock = WorldClock(Lazy())
    assert clock.advance(1 / 60).steps == 2 and clock.config == ClockConfig()


def test_every_core_class_made_with_new_is_inert():
    clock = WorldClock.__new__(WorldClock)
    assert clock.advance(1 / 60).steps == 2 and clock.tick == 2
    assert clock.every_ticks(2, lambda tick: None).next_tick == 4
    result = StepResult.__new__(StepResult)
    assert (result.steps, result.first_tick, result.dropped, result.alpha) == (0, 0, 0, 0.0)
    assert result == StepResult(0, 0, 0, 0.0) and "StepResult(" in repr(result)
    follower = ClockFollower.__new__(ClockFollower)     # as ClockFollower(1): owes from tick 0
    assert follower.take(clock) == 2 and follower.alpha(3, 0.5) == 0.5
    timer = Timer.__new__(Timer)
    timer.cancel(), timer.pause(), timer.resume()
    assert (timer.active, timer.paused, timer.next_tick, timer.fired) == (False, False, None, 0)
    assert "ended" in repr(timer)


def test_subclasses_that_skip_init_are_sane():
    class Clock(WorldClock):
        def __init__(self):
            pass

    class Follower(ClockFollower):
        def __init__(self):
            pass

    clock, follower = Clock(), Follower()   # as WorldClock() and ClockFollower(1)
    clock.advance_ticks(5)
    assert (clock.tick, follower.take(clock)) == (5, 5)
    clock.advance_ticks(3)
    assert follower.take(clock) == 3


def test_reinitialising_a_clock_restarts_it_and_a_failed_one_changes_nothing():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    timer = clock.every_ticks(2, lambda tick: None)
    clock.advance_ticks(7)
    with pytest.raises(TypeError, match="config"):
        clock.__init__("fast")
    assert (clock.tick, clock.fixed_dt, timer.active) == (7, 0.01, True)
    clock.__init__(ClockConfig(fixed_dt=0.02))
    assert (clock.tick, clock.fixed_dt, timer.active) == (0, 0.02, False)


# -- signatures and messages that tell the truth -----------------------------------------------


def _public_callables():
    for cls in (ClockConfig, WorldClock, StepResult, ClockFollower, Presentation, Timer):
        for name, member in vars(cls).items():
            if not name.startswith("_") and callable(member):
                yield f"{cls.__name__}.{name}", getattr(cls, name)


@pytest.mark.parametrize("name, member", list(_public_callables()))
def test_inspect_signature_reads_every_core_method(name, member):
    inspect.signature(member)


@pytest.mark.parametrize("cls", [ClockConfig, WorldClock, StepResult, ClockFollower, Presentation])
def test_inspect_signature_reads_every_core_constructor(cls):
    params = inspect.signature(cls).parameters
    assert params and "args" not in params


def test_single_argument_methods_are_positional_only_as_the_stubs_say():
    clock, follower = WorldClock(), ClockFollower(2)
    calls = [(clock.advance, "wall_dt", 0.1), (clock.advance_ticks, "n", 1),
             (clock.configure, "config", ClockConfig()), (follower.take, "clock", clock),
             (follower.take_due, "clock", clock)]
    for method, name, value in calls:
        param = inspect.signature(method).parameters[name]
        assert param.kind is inspect.Parameter.POSITIONAL_ONLY, method
        with pytest.raises(TypeError):
            method(**{name: value})
        method(value)


def test_config_takes_fixed_dt_by_position_as_help_shows():
    assert str(inspect.signature(ClockConfig)).startswith("(fixed_dt=0.008333333333333333, *,")
    assert ClockConfig(0.01) == ClockConfig(fixed_dt=0.01)
    assert ClockConfig(cap_scales_with_rate=np.True_).cap_scales_with_rate is True
    assert ClockConfig(max_steps_per_advance=np.int64(3)).max_steps_per_advance == 3


@pytest.mark.parametrize("call, error, message", [
    (lambda: WorldClock().advance(10**400), ValueError, "wall_dt must be finite"),
    (lambda: WorldClock().advance_ticks(-2**63), ValueError, "n must be >= 0"),
    (lambda: WorldClock().advance_ticks(2**63), ValueError, "n must be <= "),
    (lambda: WorldClock().advance_ticks(np.True_), TypeError, "n must be an integer"),
    (lambda: ClockConfig(cap_scales_with_rate=1), TypeError, "cap_scales_with_rate must be a bool"),
    (lambda: ticks_per_step(2.9999999, 1.0), ValueError, "is 2.9999999 quanta"),
    (lambda: ticks_per_step(0.004, 0.01), ValueError, "less than one; the shortest is 1 quantum"),
    (lambda: WorldClock().after(0, print), ValueError, "delay=0 is 0.0 quanta"),
    (lambda: WorldClock().every(0.0001, print), ValueError, "interval=0.0001"),
])
def test_messages_name_the_argument_and_what_is_wrong(call, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace("[", r"\[")):
        call()


def test_a_clock_weighs_little_until_a_thread_waits_on_it():
    # tracemalloc counts every thread's allocations: with the GIL off, a thread an earlier
    # test left winding down allocates during the count (415 bytes seen in a 3.13t run, 368
    # alone). Such noise only adds, so the least of three counts is the clock's own weight.
    weights = []
    for _ in range(3):
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            clocks = [WorldClock() for _ in range(10_000)]
            weights.append((tracemalloc.get_traced_memory()[0] - before) / len(clocks))
        finally:
            tracemalloc.stop()
    per_clock = min(weights)
    assert per_clock <= 400, weights
    clock = clocks[0]
    waiter = threading.Thread(target=clock.wait_for_tick_change, args=(0, 5.0))
    waiter.start()
    while waiter.is_alive() and clock.tick == 0:
        clock.advance_ticks(1)      # the first wait makes the condition; a tick wakes it
        waiter.join(0.01)
    waiter.join(5)
    assert not waiter.is_alive()


def test_import_cvcclock_pulls_in_no_asyncio():
    import subprocess
    import sys

    code = "import sys, cvcclock; print('asyncio' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.stdout.strip() == "False", out.stderr
