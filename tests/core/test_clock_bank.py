"""ClockBank and BankFollower: n clocks in one object, exactly n WorldClocks and ClockFollowers.

Every test runs against each set of loops the machine has (AVX2 and the portable C), so the
loop a user's machine picks is the loop tested.
"""

import pickle
import platform
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cvcclock import (
    BankFollower,
    ClockBank,
    ClockConfig,
    ClockFollower,
    Mode,
    WorldClock,
)
from cvcclock._core import _clock_bank_kernel
from cvcclock.checks import MAX_TICK

MODES = list(Mode)


def _kernels():
    default = _clock_bank_kernel()
    found = ["portable"]
    try:
        _clock_bank_kernel("avx2")
        found.append("avx2")
    except ValueError:
        pass
    _clock_bank_kernel(default)
    return found


@pytest.fixture(params=_kernels())
def kernel(request):
    before = _clock_bank_kernel()
    _clock_bank_kernel(request.param)
    yield request.param
    _clock_bank_kernel(before)


def test_the_avx2_loops_run_by_default_where_the_cpu_has_avx2():
    flags = ""
    if Path("/proc/cpuinfo").exists():
        flags = Path("/proc/cpuinfo").read_text()
    has_avx2 = platform.machine() in ("x86_64", "AMD64") and " avx2" in flags
    assert _clock_bank_kernel() == ("avx2" if has_avx2 else "portable")


# -- the model: n WorldClocks driven by the same calls -----------------------------------------

FIXED_DTS = [1e-6, 1 / 1000, 1 / 240, 1 / 120, 0.01, 1 / 60, 0.37]
# 1e3 and 1e6 reach the exact double-double path (65536 quanta a frame and more)
SCALES = [0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.7, 1e3, 1e6]
configs = st.builds(
    ClockConfig,
    st.sampled_from(FIXED_DTS),
    scale=st.sampled_from(SCALES),
    max_steps_per_advance=st.sampled_from([1, 2, 5, 8, 2**32]),
    cap_scales_with_rate=st.booleans(),
    lockstep_steps=st.sampled_from([1, 3, 2**32]),
)
wall_dts = st.one_of(st.sampled_from([0.0, 1 / 60, 1 / 30, 1 / 144, 0.1, 0.26, 0.5, 0.6]),
                     st.floats(0.0, 1.0, allow_nan=False))


def change_config(clock, **fields):
    """What writing fixed_dt or cap_scales_with_rate into a bank does to its slot: the
    WorldClock restored to its own state with that configuration."""
    function, args = clock.state().__reduce__()
    args = list(args)
    args[0] = args[0].replace(**fields)
    clock.restore(function(*args))


def assert_same(bank, clocks):
    """Every observable of every slot equals its clock's."""
    assert len(bank) == len(clocks)
    assert bank.tick.tolist() == [c.tick for c in clocks]
    assert bank.total_dropped.tolist() == [c.total_dropped for c in clocks]
    assert bank.alpha.tolist() == [c.alpha for c in clocks]
    assert bank.frame.tolist() == [c.frame for c in clocks]
    assert bank.t.tolist() == [c.t for c in clocks]
    assert bank.realized_scale.tolist() == [c.realized_scale for c in clocks]
    assert bank.mode.tolist() == [MODES.index(c.mode) for c in clocks]
    assert bank.scale.tolist() == [c.scale for c in clocks]
    assert bank.fixed_dt.tolist() == [c.fixed_dt for c in clocks]
    assert bank.max_steps_per_advance.tolist() == [c.max_steps_per_advance for c in clocks]
    assert bank.lockstep_steps.tolist() == [c.lockstep_steps for c in clocks]
    for i, clock in enumerate(clocks):
        assert bank.clock_state(i) == clock.state()


CALLS = ["advance"] * 4 + ["advance_each"] * 2 + [
    "advance_ticks", "advance_ticks_each", "step_once", "step_mask", "configure", "scale",
    "max_steps", "lockstep", "mode", "set_mode"]
# Writes a WorldClock can mirror only with restore(), which counts a discontinuity.
RESTORING_CALLS = ["fixed_dt", "cap_scales"]


def apply(data, bank, clocks, configures, kinds=CALLS + RESTORING_CALLS):
    """Draw one call and make it on the bank and on every clock; return the bank's steps
    and the clocks' steps (None for a call that returns none)."""
    n = len(clocks)
    kind = data.draw(st.sampled_from(kinds))
    if kind == "advance":
        wall_dt = data.draw(wall_dts)
        return bank.advance(wall_dt), [c.advance(wall_dt).steps for c in clocks]
    if kind == "advance_each":
        walls = data.draw(st.lists(wall_dts, min_size=n, max_size=n))
        return (bank.advance(np.array(walls, dtype=np.float64)),
                [c.advance(w).steps for c, w in zip(clocks, walls, strict=True)])
    if kind == "advance_ticks":
        k = data.draw(st.integers(0, 40))
        return bank.advance_ticks(k), [c.advance_ticks(k).steps for c in clocks]
    if kind == "advance_ticks_each":
        ks = data.draw(st.lists(st.integers(0, 40), min_size=n, max_size=n))
        dtype = data.draw(st.sampled_from([np.int64, np.int32, np.uint16]))
        return (bank.advance_ticks(np.array(ks, dtype=dtype)),
                [c.advance_ticks(k).steps for c, k in zip(clocks, ks, strict=True)])
    if kind == "step_once":
        return bank.step_once(), [c.step_once().steps for c in clocks]
    if kind == "step_mask":
        mask = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
        return (bank.step_once(np.array(mask, dtype=bool)),
                [c.step_once().steps if m else 0 for c, m in zip(clocks, mask, strict=True)])
    if kind == "set_mode":
        mode = data.draw(st.sampled_from(MODES))
        how = data.draw(st.sampled_from(["all", "one", "mask", "name"]))
        if how in ("all", "name"):
            bank.set_mode(mode.value if how == "name" else mode)
            chosen = range(n)
        elif how == "mask":
            mask = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
            bank.set_mode(mode, np.array(mask, dtype=bool))
            chosen = [i for i in range(n) if mask[i]]
        else:
            if not n:
                return None, None
            chosen = [data.draw(st.integers(0, n - 1))]
            bank.set_mode(mode, chosen[0])
        for i in chosen:
            clocks[i].mode = mode
        return None, None
    if not n:
        return None, None
    i = data.draw(st.integers(0, n - 1))
    if kind == "configure":
        config = data.draw(configs)
        bank.configure(i, config)
        clocks[i].configure(config)
        configures[i] += 1
    elif kind == "scale":
        bank.scale[i] = clocks[i].scale = data.draw(st.sampled_from(SCALES))
    elif kind == "max_steps":
        m = data.draw(st.sampled_from([1, 3, 8, 2**32]))
        bank.max_steps_per_advance[i] = clocks[i].max_steps_per_advance = m
    elif kind == "lockstep":
        k = data.draw(st.sampled_from([1, 2, 2**32]))
        bank.lockstep_steps[i] = clocks[i].lockstep_steps = k
    elif kind == "mode":   # written into the array; a slot sees it at its next call
        mode = data.draw(st.sampled_from(MODES))
        bank.mode[i] = MODES.index(mode)
        clocks[i].mode = mode
    elif kind == "fixed_dt":
        fixed_dt = data.draw(st.sampled_from(FIXED_DTS))
        bank.fixed_dt[i] = fixed_dt
        change_config(clocks[i], fixed_dt=fixed_dt)
    else:
        capped = data.draw(st.booleans())
        bank.cap_scales_with_rate[i] = capped
        change_config(clocks[i], cap_scales_with_rate=capped)
    return None, None


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), start=st.lists(configs, max_size=12), calls=st.integers(1, 25))
def test_a_bank_is_n_world_clocks(kernel, data, start, calls):
    n = len(start)
    first = data.draw(st.one_of(st.none(), configs))
    bank = ClockBank(n, first)
    clocks = [WorldClock(first) for _ in range(n)]
    configures = [0] * n
    for i, config in enumerate(start):
        if data.draw(st.booleans()):
            bank.configure(i, config)
            clocks[i].configure(config)
            configures[i] += 1
    for _ in range(calls):
        steps, expected = apply(data, bank, clocks, configures)
        if steps is not None:
            assert steps.tolist() == expected
        assert_same(bank, clocks)
    assert bank.discontinuities.tolist() == [1 + k for k in configures]


def test_a_bank_of_many_blocks_is_its_world_clocks(kernel):
    # 600 slots: blocks of 256 and a ragged end, every mode and path mixed in each vector
    rng = random.Random(13)
    n = 600
    bank = ClockBank(n)
    clocks = [WorldClock() for _ in range(n)]
    for i in range(n):
        config = ClockConfig(rng.choice(FIXED_DTS), scale=rng.choice(SCALES),
                             max_steps_per_advance=rng.choice([1, 5, 8, 2**32]),
                             cap_scales_with_rate=rng.random() < 0.5,
                             lockstep_steps=rng.choice([1, 3]))
        bank.configure(i, config)
        clocks[i].configure(config)
        mode = rng.choice(MODES)
        bank.mode[i] = MODES.index(mode)
        clocks[i].mode = mode
    for frame in range(40):
        if frame % 3:
            wall_dt = rng.choice([0.0, 1 / 60, 1 / 30, 0.2, 0.6])
            assert bank.advance(wall_dt).tolist() == [c.advance(wall_dt).steps for c in clocks]
        else:
            walls = [rng.choice([0.0, 1 / 60, 0.3]) for _ in range(n)]
            assert (bank.advance(np.array(walls)).tolist()
                    == [c.advance(w).steps for c, w in zip(clocks, walls, strict=True)])
        i = rng.randrange(n)
        mode = rng.choice(MODES)
        bank.mode[i] = MODES.index(mode)
        clocks[i].mode = mode
    assert_same(bank, clocks)


def test_a_window_of_2_to_the_52_quanta_is_counted_exactly(kernel):
    # The realized-speed window's count past 2**52 leaves the vector loop: lockstep slots of
    # 2**32 quanta, 2**20 frames of no wall time, then one frame that closes the window.
    config = ClockConfig(lockstep_steps=2**32)
    bank, clocks = ClockBank(5, config), [WorldClock(config) for _ in range(5)]
    for i in (1, 3):
        bank.mode[i] = MODES.index(Mode.LOCKSTEP)
        clocks[i].mode = Mode.LOCKSTEP
    for _ in range(2**20):
        bank.advance(0.0)
    for clock in clocks:
        for _ in range(2**20):
            clock.advance(0.0)
    assert bank.advance(0.5).tolist() == [c.advance(0.5).steps for c in clocks]
    assert_same(bank, clocks)
    assert bank.realized_scale[1] == clocks[1].realized_scale > 0


def test_the_mode_a_slot_sees_is_the_one_written_before_its_next_call(kernel):
    bank, clock = ClockBank(1), WorldClock()
    bank.advance(0.01)
    clock.advance(0.01)
    bank.mode[0] = MODES.index(Mode.PAUSED)     # paused from live: alpha frozen at the bank
    clock.mode = Mode.PAUSED
    assert bank.alpha.tolist() == [clock.alpha] and clock.alpha > 0
    bank.set_mode("lockstep")                   # a method takes effect at once
    bank.set_mode(Mode.PAUSED)
    clock.mode = Mode.LOCKSTEP
    clock.mode = Mode.PAUSED
    assert bank.alpha.tolist() == [clock.alpha] == [0.0]
    assert bank.clock_state(0) == clock.state()


def test_advancing_calls_return_one_read_only_array():
    bank = ClockBank(3)
    steps = bank.advance(1 / 60)
    assert steps.dtype == np.int64 and steps.tolist() == [2, 2, 2]
    assert bank.advance_ticks(5) is steps and steps.tolist() == [5, 5, 5]
    assert bank.step_once(np.array([True, False, True])) is steps
    assert steps.tolist() == [1, 0, 1]
    with pytest.raises(ValueError):
        steps[0] = 7
    for view in (bank.tick, bank.total_dropped, bank.discontinuities):
        with pytest.raises(ValueError):
            view[0] = 7
        with pytest.raises(ValueError):
            view.flags.writeable = True
    assert bank.tick is bank.tick and bank.scale is bank.scale
    with pytest.raises(AttributeError):
        bank.scale = 2.0


def test_arrays_are_views_that_follow_the_bank():
    bank = ClockBank(2)
    tick, scale = bank.tick, bank.scale
    scale[1] = 2.0
    bank.advance(1 / 60)
    assert tick.tolist() == [2, 4]
    assert bank.clock_state(1).config.scale == 2.0


# -- bad input: the right error, naming the argument (and slot), and nothing changes -------------

def make_bank():
    bank = ClockBank(6, ClockConfig(1 / 120, max_steps_per_advance=3))
    bank.scale[2] = 7.0
    bank.mode[4] = MODES.index(Mode.LOCKSTEP)
    bank.advance(np.array([0.1, 0.0, 0.05, 1 / 60, 1 / 60, 0.3]))
    bank.advance_ticks(np.arange(6))
    return bank


def observe(bank):
    """Everything a host can see of the bank, copied: its arrays and each slot's state."""
    seen = {name: getattr(bank, name).tolist() for name in (
        "scale", "fixed_dt", "max_steps_per_advance", "cap_scales_with_rate", "lockstep_steps",
        "mode", "tick", "total_dropped", "discontinuities", "frame", "alpha", "t",
        "realized_scale")}
    seen["states"] = [bank.clock_state(i) for i in range(len(bank))]
    return seen


def assert_refused(bank, call, error, match):
    before = observe(bank)
    with pytest.raises(error, match=match):
        call()
    assert observe(bank) == before


@pytest.mark.parametrize("wall_dt, error, match", [
    (float("nan"), ValueError, r"wall_dt must be finite and non-negative, got nan"),
    (-1.0, ValueError, r"wall_dt .*got -1.0"),
    (float("inf"), ValueError, r"wall_dt .*got inf"),
    ("0.1", TypeError, r"wall_dt must be a real number"),
    (True, TypeError, r"wall_dt must be a real number"),
    (None, TypeError, r"wall_dt"),
    ([0.1] * 6, TypeError, r"wall_dt"),
    (np.zeros(6, dtype=np.float32), TypeError, r"wall_dt must be a numpy float64 array .* "
                                               r"dtype float32"),
    (np.zeros(6, dtype=np.int64), TypeError, r"wall_dt .*dtype int64"),
    (np.zeros(7), ValueError, r"wall_dt must have shape \(6,\).*\(7,\)"),
    (np.zeros((6, 1)), ValueError, r"wall_dt must have shape \(6,\)"),
    (np.array([0.1, 0.1, 0.1, np.nan, 0.1, 0.1]), ValueError, r"wall_dt\[3\] must be .*nan"),
    (np.array([0.1, 0.1, 0.1, -0.5, 0.1, 0.1]), ValueError, r"wall_dt\[3\] .*-0.5"),
    (np.array([0.1, 0.1, 0.1, 0.1, 0.1, np.inf]), ValueError, r"wall_dt\[5\] .*inf"),
])
def test_bad_wall_times_are_refused(kernel, wall_dt, error, match):
    bank = make_bank()
    assert_refused(bank, lambda: bank.advance(wall_dt), error, match)


@pytest.mark.parametrize("field, value, match", [
    ("scale", np.nan, r"scale\[5\] must be finite and non-negative and <= 1000000.0, got nan"),
    ("scale", -1.0, r"scale\[5\] .*got -1.0"),
    ("scale", 2e6, r"scale\[5\] .*got 2000000.0"),
    ("fixed_dt", 0.0, r"fixed_dt\[5\] must be finite and >= 1e-06, got 0.0"),
    ("fixed_dt", np.inf, r"fixed_dt\[5\] .*got inf"),
    ("fixed_dt", np.nan, r"fixed_dt\[5\] .*got nan"),
    ("max_steps_per_advance", 0, r"max_steps_per_advance\[5\] must be >= 1, got 0"),
    ("max_steps_per_advance", 2**32 + 1, r"max_steps_per_advance\[5\] must be <= 4294967296"),
    ("max_steps_per_advance", -5, r"max_steps_per_advance\[5\] must be >= 1, got -5"),
    ("lockstep_steps", 0, r"lockstep_steps\[5\] must be >= 1, got 0"),
    ("lockstep_steps", 2**40, r"lockstep_steps\[5\] must be <= 4294967296, got 1099511627776"),
    ("mode", 5, r"mode\[5\] must be the index of a mode in ClockBank.MODES.*got 5"),
    ("mode", 255, r"mode\[5\] .*got 255"),
])
def test_a_bad_value_in_one_slot_is_refused_and_no_slot_changes(kernel, field, value, match):
    bank = make_bank()
    before = observe(bank)
    array = getattr(bank, field)
    good = array[5].copy()
    array[5] = value
    for call in (lambda: bank.advance(1 / 60), lambda: bank.advance(np.full(6, 1 / 60)),
                 lambda: bank.t, lambda: bank.alpha, lambda: bank.realized_scale,
                 lambda: bank.clock_state(5)):
        with pytest.raises(ValueError, match=match):
            call()
    assert bank.clock_state(4) == before["states"][4]   # only slot 5 is bad
    array[5] = good
    assert observe(bank) == before


def test_the_lowest_bad_slot_is_named():
    bank = make_bank()
    bank.scale[4] = -1.0
    bank.fixed_dt[2] = 0.0
    with pytest.raises(ValueError, match=r"fixed_dt\[2\]"):
        bank.advance(0.1)


def test_a_frame_of_more_than_2_to_the_52_quanta_is_refused(kernel):
    bank = make_bank()
    bank.configure(3, ClockConfig(1e-6, scale=1e6))
    walls = np.full(6, 0.01)
    walls[3] = 5000.0     # 5e15 quanta
    assert_refused(bank, lambda: bank.advance(walls), ValueError,
                   r"wall_dt=5000.0 at scale 1000000.0 spans more than 2\*\*52 quanta of "
                   r"1e-06 s in slot 3")
    assert_refused(bank, lambda: bank.advance(5000.0), ValueError, r"in slot 3")
    bank.mode[3] = MODES.index(Mode.PAUSED)   # only a live slot banks wall time
    bank.advance(walls)


def test_no_tick_passes_2_to_the_62(kernel):
    bank = make_bank()
    bank.advance_ticks(MAX_TICK - 10 - bank.tick)   # every slot at 2**62 - 10
    assert bank.tick.tolist() == [MAX_TICK - 10] * 6
    near = np.full(6, 10)
    near[2] = 11
    assert_refused(bank, lambda: bank.advance_ticks(near), ValueError,
                   rf"advance_ticks of 11 quanta would take the tick of slot 2 past "
                   rf"MAX_TICK \({MAX_TICK}\) \(tick {MAX_TICK - 10}\)")
    assert_refused(bank, lambda: bank.advance_ticks(11), ValueError, r"slot 0")
    bank.lockstep_steps[4] = 11
    assert_refused(bank, lambda: bank.advance(0.0), ValueError,
                   rf"advance of 11 quanta would take the tick of slot 4 past "
                   rf"MAX_TICK \({MAX_TICK}\)")
    bank.lockstep_steps[4] = 10
    bank.advance(0.0)
    bank.advance_ticks(MAX_TICK - bank.tick)
    assert bank.tick.tolist() == [MAX_TICK] * 6
    assert_refused(bank, bank.step_once, ValueError, r"step_once of 1 quanta .*slot 0")
    assert_refused(bank, lambda: bank.step_once(np.eye(6, dtype=bool)[5]), ValueError,
                   r"slot 5")
    bank.step_once(np.zeros(6, dtype=bool))


@pytest.mark.parametrize("n, error, match", [
    (-1, ValueError, r"n must be >= 0, got -1"),
    (1.5, TypeError, r"n must be an integer, got 1.5"),
    (True, TypeError, r"n must be an integer"),
    (np.array([1, 2]), ValueError, r"n must have shape \(6,\)"),
    (np.ones(6), TypeError, r"n must be a numpy integer array .*float64"),
    (np.ones(6, dtype=bool), TypeError, r"n .*dtype bool"),
    (np.array([1, -1, 0, 0, 0, 0]), ValueError, r"n\[1\] must be >= 0, got -1"),
    (np.array([0, 0, 0, 0, 2**63, 0], dtype=np.uint64), ValueError,
     r"n\[4\] must be <= 4611686018427387904"),
    (2**62 + 1, ValueError, r"n must be <= 4611686018427387904"),
])
def test_bad_tick_counts_are_refused(kernel, n, error, match):
    bank = make_bank()
    assert_refused(bank, lambda: bank.advance_ticks(n), error, match)


@pytest.mark.parametrize("mask, error, match", [
    (np.ones(6, dtype=np.int64), TypeError, r"mask must be a numpy bool array of shape \(6,\)"),
    ([True] * 6, TypeError, r"mask"),
    (np.ones(5, dtype=bool), ValueError, r"mask must have shape \(6,\)"),
    (True, TypeError, r"mask"),
])
def test_bad_masks_are_refused(mask, error, match):
    bank = make_bank()
    assert_refused(bank, lambda: bank.step_once(mask), error, match)


@pytest.mark.parametrize("call, error, match", [
    (lambda b: b.configure(6, ClockConfig()), ValueError,
     r"i must be a slot of the bank, below 6, got 6"),
    (lambda b: b.configure(-1, ClockConfig()), ValueError, r"i must be >= 0, got -1"),
    (lambda b: b.configure(True, ClockConfig()), TypeError, r"i must be an integer"),
    (lambda b: b.configure(1.0, ClockConfig()), TypeError, r"i must be an integer"),
    (lambda b: b.configure(0, None), TypeError, r"config must be a ClockConfig, got None"),
    (lambda b: b.configure(0, {"fixed_dt": 0.1}), TypeError, r"config must be a ClockConfig"),
    (lambda b: b.clock_state(6), ValueError, r"i must be a slot of the bank, below 6"),
    (lambda b: b.clock_state("0"), TypeError, r"i must be an integer"),
    (lambda b: b.set_mode("warp"), ValueError, r"mode='warp' is not a mode"),
    (lambda b: b.set_mode(3), TypeError, r"mode must be a Mode"),
    (lambda b: b.set_mode(Mode.PAUSED, 6), ValueError, r"where must be a slot of the bank"),
    (lambda b: b.set_mode(Mode.PAUSED, np.ones(6, dtype=int)), TypeError,
     r"where must be a numpy bool array"),
    (lambda b: b.set_mode(Mode.PAUSED, np.ones(3, dtype=bool)), ValueError,
     r"where must have shape \(6,\)"),
])
def test_bad_slots_configs_and_modes_are_refused(call, error, match):
    bank = make_bank()
    assert_refused(bank, lambda: call(bank), error, match)


@pytest.mark.parametrize("args, error, match", [
    ((-1,), ValueError, r"n must be >= 0, got -1"),
    ((1.5,), TypeError, r"n must be an integer, got 1.5"),
    (("3",), TypeError, r"n must be an integer"),
    ((2**33,), ValueError, r"n must be <= 4294967296"),
    ((3, 1 / 120), TypeError, r"config must be a ClockConfig, got 0.00833"),
])
def test_bad_banks_are_refused(args, error, match):
    with pytest.raises(error, match=match):
        ClockBank(*args)


def test_a_bank_is_made_once():
    bank = make_bank()
    assert_refused(bank, lambda: bank.__init__(2), TypeError, r"ClockBank.__init__ runs once")
    with pytest.raises(TypeError):
        pickle.dumps(bank)


def test_a_call_made_while_another_runs_is_refused():
    # A wall-time array whose reads call back into the bank: the way another thread's call
    # would meet this one, made deterministic.
    bank = ClockBank(3)
    refused = []

    class Meddling(np.ndarray):
        def __getitem__(self, i):
            for call in (lambda: bank.configure(0, ClockConfig()), bank.step_once,
                         lambda: bank.alpha, lambda: BankFollower(1).take(bank)):
                with pytest.raises(RuntimeError, match="busy with another call") as error:
                    call()
                refused.append(error.value)
            return np.ndarray.__getitem__(self, i)

    walls = np.array([0.1, np.nan, 0.1]).view(Meddling)
    before = observe(bank)
    with pytest.raises(ValueError, match=r"wall_dt\[1\]"):
        bank.advance(walls)
    assert len(refused) == 4
    assert observe(bank) == before


def test_banks_however_made_do_not_crash(kernel):
    for bank in (ClockBank.__new__(ClockBank), ClockBank(0)):
        assert len(bank) == 0
        assert bank.advance(0.1).tolist() == []
        assert bank.advance(np.zeros(0)).tolist() == []
        assert bank.advance_ticks(3).tolist() == []
        assert bank.advance_ticks(np.zeros(0, dtype=int)).tolist() == []
        assert bank.step_once().tolist() == bank.step_once(np.zeros(0, bool)).tolist() == []
        for name in ("tick", "t", "alpha", "frame", "total_dropped", "realized_scale",
                     "scale", "mode", "discontinuities"):
            assert getattr(bank, name).tolist() == []
        bank.set_mode("paused")
        with pytest.raises(ValueError, match="below 0"):
            bank.configure(0, ClockConfig())
        with pytest.raises(ValueError, match="below 0"):
            bank.clock_state(0)
        assert BankFollower(2).take(bank).tolist() == []
        repr(bank)

    class Unmade(ClockBank):
        def __init__(self):
            pass

    class Made(ClockBank):
        def __init__(self, n):
            super().__init__(n, ClockConfig(0.01))

    assert Unmade().advance(0.5).tolist() == []
    made = Made(3)
    assert made.advance(0.5).tolist() == [8, 8, 8]
    follower = BankFollower.__new__(BankFollower)   # k = 1 from tick 0
    assert follower.take(made).tolist() == [8, 8, 8]
    made.advance_ticks(2)
    assert follower.take(made).tolist() == [2, 2, 2]


# -- BankFollower: n ClockFollowers ------------------------------------------------------------

def takes(followers, clocks):
    return [f.take(c) for f, c in zip(followers, clocks, strict=True)]


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), n=st.integers(0, 10), per_slot_k=st.booleans(),
       per_slot_start=st.booleans(), calls=st.integers(1, 20))
def test_a_bank_follower_is_n_clock_followers(kernel, data, n, per_slot_k, per_slot_start,
                                              calls):
    ks = data.draw(st.lists(st.integers(1, 7), min_size=n, max_size=n)) if per_slot_k else None
    k = None if per_slot_k else data.draw(st.integers(1, 7))
    starts = (data.draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
              if per_slot_start else None)
    start = None if per_slot_start else data.draw(st.integers(0, 30))
    bank = ClockBank(n)
    clocks = [WorldClock() for _ in range(n)]
    follower = BankFollower(np.array(ks, dtype=np.int64) if per_slot_k else k,
                            np.array(starts, dtype=np.uint8) if per_slot_start else start)
    followers = [ClockFollower(ks[i] if per_slot_k else k,
                               starts[i] if per_slot_start else start) for i in range(n)]
    configures = [0] * n
    for _ in range(calls):
        if data.draw(st.booleans()):
            assert follower.take(bank).tolist() == takes(followers, clocks)
            assert follower.last_tick.tolist() == [f.last_tick for f in followers]
        else:
            apply(data, bank, clocks, configures, CALLS)
    assert follower.take(bank).tolist() == takes(followers, clocks)
    assert bank.discontinuities.tolist() == [c.discontinuities for c in clocks]
    if per_slot_k:
        assert follower.period.tolist() == ks
    else:
        assert follower.period == k


def test_a_bank_follower_resynchronises_only_the_slot_configured():
    bank = ClockBank(3)
    follower = BankFollower(2)
    assert follower.last_tick.tolist() == []        # sized by the first bank it follows
    bank.advance_ticks(5)
    assert follower.take(bank).tolist() == [2, 2, 2]
    bank.advance_ticks(4)
    bank.configure(1, ClockConfig())
    bank.advance_ticks(4)
    assert follower.take(bank).tolist() == [4, 0, 4]
    bank.advance_ticks(2)
    assert follower.take(bank).tolist() == [1, 1, 1]
    assert np.flatnonzero(follower.take(bank)).tolist() == []


@pytest.mark.parametrize("args, error, match", [
    ((0,), ValueError, r"k must be >= 1, got 0"),
    ((1.5,), TypeError, r"k must be an integer"),
    ((True,), TypeError, r"k must be an integer"),
    ((np.array([1, 2, 0]),), ValueError, r"k\[2\] must be >= 1, got 0"),
    ((np.array([1.0, 2.0]),), TypeError, r"k must be a numpy integer array"),
    ((np.ones((2, 2), dtype=int),), ValueError, r"k must be one-dimensional"),
    ((2, -1), ValueError, r"start_tick must be >= 0, got -1"),
    ((np.array([1, 2]), np.array([0, 0, 0])), ValueError, r"start_tick must have shape \(2,\)"),
    ((2, np.array([0, -3])), ValueError, r"start_tick\[1\] must be >= 0, got -3"),
])
def test_bad_followers_are_refused(args, error, match):
    with pytest.raises(error, match=match):
        BankFollower(*args)


def test_a_follower_takes_from_banks_of_its_size_only():
    follower = BankFollower(np.array([1, 2]))
    with pytest.raises(ValueError, match="bank has 3 clocks; this follower follows 2"):
        follower.take(ClockBank(3))
    with pytest.raises(TypeError):
        follower.take(WorldClock())
    with pytest.raises(TypeError):
        follower.take(None)
    with pytest.raises(TypeError, match="runs once"):
        follower.__init__(3)
    assert follower.take(ClockBank(2)).tolist() == [0, 0]
