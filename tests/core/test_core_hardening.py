"""The core's classes are safe however they are made, and their calls tell the truth (issue 10).

Each cdef class is exercised made with ``__new__`` (no ``__init__``), subclassed (with an
``__init__`` that skips the base's), and re-initialised; none may crash, hang or corrupt.
"""

import copy
import gc
import inspect
import pickle
import threading
import tracemalloc
import weakref

import numpy as np
import pytest

from cvcclock import (
    ClockConfig,
    ClockFollower,
    Presentation,
    StepResult,
    Timer,
    WorldClock,
    ticks_per_step,
)

# -- Presentation ------------------------------------------------------------------------


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


# -- made with __new__, subclassed, re-initialised ---------------------------------------


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


# -- coalesce timers after a raise (item 6) ----------------------------------------------


def test_a_coalesce_timer_fires_once_per_call_after_another_callback_raised(make_clock):
    clock = make_clock(fixed_dt=0.01)
    fires = []   # (call number, tick, count)
    call = [0]
    clock.every_ticks(2, lambda tick, count: fires.append((call[0], tick, count)),
                      catch_up="coalesce")
    clock.after_ticks(3, lambda tick: 1 / 0)
    call[0] = 1
    with pytest.raises(ZeroDivisionError):
        clock.advance_ticks(10)    # covers 2..10; raises at 3, before the coalesced fire at 10
    assert fires == []
    call[0] = 2
    clock.advance_ticks(10)        # runs 4..13: the last due tick it covers is 12
    assert fires == [(2, 12, 6)]
    call[0] = 3
    clock.advance_ticks(1)
    clock.advance_ticks(1)         # 14
    assert fires == [(2, 12, 6), (3, 14, 1)]


# -- paused timers nobody can reach (item 7) ---------------------------------------------


def test_a_paused_timer_whose_handle_is_dropped_is_released():
    """The clock keeps no paused timer alive: pausing takes it off the queue at once."""
    clock = WorldClock()
    refs = []
    for _ in range(1000):
        timer = clock.every_ticks(5, lambda tick: None)
        timer.pause()
        refs.append(weakref.ref(timer))
        del timer
    gc.collect()
    assert sum(ref() is not None for ref in refs) == 0
    kept = clock.every_ticks(5, lambda tick: None)
    kept.pause()
    clock.advance_ticks(12)
    kept.resume()                  # a handle still held resumes on its grid
    assert kept.next_tick == 15
    kept.pause()
    clock.configure(ClockConfig())
    assert not kept.paused and kept.next_tick is None   # configure still ends it


def test_memory_stays_bounded_over_many_paused_and_dropped_timers():
    clock = WorldClock()

    def cycles(n):
        for _ in range(n):
            clock.every_ticks(7, lambda tick: None).pause()

    cycles(1000)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        cycles(100_000)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 256 * 1024, grown


# -- signatures, reprs and messages that tell the truth ----------------------------------


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


def test_follower_repr_is_a_valid_call():
    f = ClockFollower(3, start_tick=7)
    again = eval(repr(f), {"ClockFollower": ClockFollower})
    assert (again.period, again.last_tick) == (3, 7)


@pytest.mark.parametrize("clock_alpha", [1.0, 2.0, -0.1])
def test_follower_alpha_refuses_a_clock_alpha_outside_zero_one(clock_alpha):
    with pytest.raises(ValueError, match=r"clock_alpha must be in \[0, 1\)"):
        ClockFollower(3).alpha(5, clock_alpha)


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
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        clocks = [WorldClock() for _ in range(10_000)]
        per_clock = (tracemalloc.get_traced_memory()[0] - before) / len(clocks)
    finally:
        tracemalloc.stop()
    assert per_clock <= 400, per_clock
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
