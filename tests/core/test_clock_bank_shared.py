"""The shared bank's loop (clock_bank_shared.h) and the checks a bank skips (issue 22, item 4).

A bank made from one config, advanced by one wall_dt and never reconfigured per slot runs a
loop that touches only each slot's bank, tick and steps; a bank whose configuration only its
methods wrote skips the validation pass. Both stay exactly n WorldClocks, through the switch
to the general loop when a slot is reconfigured, given its own wall time, or when a
configuration array is handed out (the host may then write it at any time, so every call
checks it again). The bank is observed here only through reads that hand out no
configuration array (clock_state, tick, alpha, ...), so that the paths stay as drawn.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cvcclock import ClockBank, ClockConfig, Mode, WorldClock
from cvcclock._core import _clock_bank_kernel, _clock_bank_paths

MODES = list(Mode)
configs = st.builds(
    ClockConfig,
    st.sampled_from([1e-6, 1 / 240, 1 / 120, 0.01, 0.37]),
    scale=st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.7, 1e3]),
    max_steps_per_advance=st.sampled_from([1, 2, 5, 8, 2**32]),
    cap_scales_with_rate=st.booleans(),
    lockstep_steps=st.sampled_from([1, 3, 2**32]),
)
wall_dts = st.one_of(st.sampled_from([0.0, 1 / 60, 1 / 30, 0.1, 0.26, 0.5, 0.6]),
                     st.floats(0.0, 1.0, allow_nan=False))


def _kernels():
    default, found = _clock_bank_kernel(), ["portable"]
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


def assert_same(bank, clocks):
    """Every slot equals its clock, read without handing out a configuration array."""
    assert bank.tick.tolist() == [c.tick for c in clocks]
    assert bank.total_dropped.tolist() == [c.total_dropped for c in clocks]
    assert bank.alpha.tolist() == [c.alpha for c in clocks]
    assert bank.frame.tolist() == [c.frame for c in clocks]
    assert bank.t.tolist() == [c.t for c in clocks]
    assert bank.realized_scale.tolist() == [c.realized_scale for c in clocks]
    for i, clock in enumerate(clocks):
        assert bank.clock_state(i) == clock.state()


def call(data, bank, clocks):
    """Draw one call; make it on the bank and on every clock; return both steps (or None)."""
    n = len(clocks)
    kind = data.draw(st.sampled_from(
        ["advance"] * 8 + ["advance_each", "advance_ticks", "advance_ticks_each", "step_once",
                           "step_mask", "set_mode", "set_mode_one", "configure", "write"]))
    if kind == "advance":
        wall_dt = data.draw(wall_dts)
        return bank.advance(wall_dt).tolist(), [c.advance(wall_dt).steps for c in clocks]
    if kind == "advance_each":
        walls = data.draw(st.lists(wall_dts, min_size=n, max_size=n))
        return (bank.advance(np.array(walls, dtype=np.float64)).tolist(),
                [c.advance(w).steps for c, w in zip(clocks, walls, strict=True)])
    if kind == "advance_ticks":
        k = data.draw(st.integers(0, 40))
        return bank.advance_ticks(k).tolist(), [c.advance_ticks(k).steps for c in clocks]
    if kind == "advance_ticks_each":
        ks = data.draw(st.lists(st.integers(0, 40), min_size=n, max_size=n))
        return (bank.advance_ticks(np.array(ks)).tolist(),
                [c.advance_ticks(k).steps for c, k in zip(clocks, ks, strict=True)])
    if kind == "step_once":
        return bank.step_once().tolist(), [c.step_once().steps for c in clocks]
    if kind == "step_mask":
        mask = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
        return (bank.step_once(np.array(mask, dtype=bool)).tolist(),
                [c.step_once().steps if m else 0 for c, m in zip(clocks, mask, strict=True)])
    if kind == "set_mode":
        mode = data.draw(st.sampled_from(MODES))
        bank.set_mode(mode)
        for c in clocks:
            c.mode = mode
        return None
    i = data.draw(st.integers(0, n - 1))
    if kind == "set_mode_one":
        mode = data.draw(st.sampled_from(MODES))
        bank.set_mode(mode, i)
        clocks[i].mode = mode
    elif kind == "configure":
        config = data.draw(configs)
        bank.configure(i, config)
        clocks[i].configure(config)
    else:   # the host writes a configuration array: the switch to checking every call
        scale = data.draw(st.sampled_from([0.0, 0.5, 2.0]))
        bank.scale[i] = clocks[i].scale = scale
    return None


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), n=st.integers(1, 11), config=configs, calls=st.integers(1, 40))
def test_a_shared_bank_is_n_world_clocks_through_every_switch(kernel, data, n, config, calls):
    bank = ClockBank(n, config)
    clocks = [WorldClock(config) for _ in range(n)]
    assert _clock_bank_paths(bank)["shared"]
    for _ in range(calls):
        got = call(data, bank, clocks)
        if got is not None:
            assert got[0] == got[1]
        assert_same(bank, clocks)


@pytest.mark.parametrize("mode", ["live", "lockstep", "paused"])
def test_a_long_shared_run_stays_shared_and_exact(kernel, mode):
    # 1,000 frames (windows completing every 30) in one mode, ticks and drops included:
    # the shared loop throughout, its windows as bases, against the clocks at the end.
    config = ClockConfig(1 / 120, scale=3.7, max_steps_per_advance=5)
    n = 37                       # a ragged end past the vectors of 4
    bank, clocks = ClockBank(n, config), [WorldClock(config) for _ in range(n)]
    bank.set_mode(mode)
    for c in clocks:
        c.mode = mode
    walls = [1 / 60, 0.013, 0.0, 1 / 30, 0.2]
    for frame in range(1000):
        wall_dt = walls[frame % len(walls)]
        assert bank.advance(wall_dt).tolist() == [c.advance(wall_dt).steps for c in clocks]
        if frame % 97 == 0:
            bank.advance_ticks(3)
            for c in clocks:
                c.advance_ticks(3)
        assert _clock_bank_paths(bank)["shared"] and _clock_bank_paths(bank)["bases"]
    assert_same(bank, clocks)
    assert bank.total_dropped.tolist() == [c.total_dropped for c in clocks]
    if mode == "live":
        assert clocks[0].total_dropped > 0      # the stall guard's branch ran


def test_a_slot_reconfigured_or_given_its_own_wall_time_leaves_the_shared_loop():
    config = ClockConfig(1 / 120)
    bank = ClockBank(4, config)
    bank.advance(1 / 60)
    assert _clock_bank_paths(bank) == {"shared": True, "views_out": False, "bases": True}
    bank.configure(2, config)                 # the same config, but its own window
    assert _clock_bank_paths(bank) == {"shared": False, "views_out": False, "bases": False}
    other = ClockBank(4, config)
    other.advance(np.full(4, 1 / 60))
    assert not _clock_bank_paths(other)["shared"]
    lone = ClockBank(1, config)
    lone.configure(0, config.replace(scale=2.0))    # one slot: still one configuration
    assert _clock_bank_paths(lone)["shared"]


def test_a_configuration_array_handed_out_is_checked_at_every_call():
    bank = ClockBank(3, ClockConfig(1 / 120))
    bank.advance(1 / 60)
    scale = bank.scale                        # a writable view: the host may write it later
    assert _clock_bank_paths(bank) == {"shared": False, "views_out": True, "bases": True}
    before = bank.tick.tolist()
    scale[1] = float("nan")                   # written after it was handed out
    with pytest.raises(ValueError, match=r"scale\[1\] must be finite"):
        bank.advance(1 / 60)
    assert bank.tick.tolist() == before       # no slot changed
    scale[1] = 1.0
    bank.advance(1 / 60)
    assert bank.tick.tolist() == [4, 4, 4]


def test_a_mixed_bank_whose_configuration_only_its_methods_wrote_is_not_checked_again():
    # Slots configured by configure(i, config) hold checked values: the validation pass is
    # skipped, but a frame too wide for any slot is still refused, naming the first.
    bank = ClockBank(3, ClockConfig(1 / 120))
    bank.configure(1, ClockConfig(1e-6, scale=1e6))
    assert not _clock_bank_paths(bank)["views_out"]
    assert bank.advance(1 / 60).tolist() == [2, 8, 2]
    with pytest.raises(ValueError, match="in slot 1"):
        bank.advance(1e4)
    assert bank.tick.tolist() == [2, 8, 2]


def test_a_too_wide_frame_on_a_shared_bank_is_refused_naming_slot_0():
    bank = ClockBank(3, ClockConfig(1e-6, scale=1e6))
    with pytest.raises(ValueError, match="spans more than 2\\*\\*52 quanta .* in slot 0"):
        bank.advance(1e4)
    assert bank.tick.tolist() == [0, 0, 0]
    assert bank.advance(1.0).tolist() == [8, 8, 8]     # the exact quotient: the general loop


def test_the_bench_rows_run_the_paths_they_name():
    from cvcclock.bench._cases import shared_bank, touched_bank

    assert _clock_bank_paths(shared_bank(1000))["shared"]
    mixed = _clock_bank_paths(shared_bank(1000, mixed=100))
    assert not mixed["shared"] and not mixed["views_out"]
    assert _clock_bank_paths(touched_bank(1000))["views_out"]
