"""One banking arithmetic: WorldClock.advance, the ClockBank's AVX2 and portable loops and
banking.h's cvc_bank_live (reached through cvcclock._core._bank_live) agree bit for bit.

The edge cases are the ones where a restatement of the arithmetic would drift first: frames
of 65,536 quanta and more (the exact double-double path) and the boundary below them, the
stall guard's cap (scaled with the rate, too), scale 0, the widest frame the clock accepts,
subnormal quotients (which the snap must clear from the bank), and the sums the snap turns
into whole quanta.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cvcclock import ClockBank, ClockConfig, WorldClock
from cvcclock._core import _bank_live, _clock_bank_kernel

MAX_QUANTA = 2.0**52
EXACT_QUANTA = 65536.0
TINY = math.ulp(0.0)   # the smallest subnormal
Q = 2.0**-10           # a quantum 65,536 of which are 64 s

# (fixed_dt, scale, max_steps_per_advance, cap_scales_with_rate, wall_dts)
CASES = [
    # the snap: 1/60 over 1/120 is 1.9999999999999998 before it
    (1 / 120, 1.0, 8, False, [1 / 60] * 6),
    (0.01, 1.0, 8, False, [1 / 60] * 6),
    (1 / 120, 1.0, 8, False, [1 / 144, 1 / 144, 1 / 30, 0.0, -0.0, 1 / 60]),
    # the boundary of the exact path: just below, at and just above 65,536 quanta
    (Q, 1.0, 2**32, False, [math.nextafter(64.0, 0.0), 64.0, math.nextafter(64.0, 1e9),
                            64.0 - Q / 2, 64.0 + Q / 3, 0.1]),
    # the exact path, far above it (fixed_dt 1e-6 at scale 1e3 and 1e6)
    (1e-6, 1e3, 2**32, False, [0.1, 1 / 60, 0.3, 1 / 7, 1.0, 0.5]),
    (1e-6, 1e6, 2**32, True, [1 / 60, 1e-3, 0.37, 1 / 3, 2.0, 1e-9]),
    # the widest frame the clock takes: 2**52 quanta less a little
    (1e-6, 1e6, 2**32, True, [4503.0, 4503.5, 1.0, 4503.599, 0.0, 4503.5996]),
    (1.0, 1.0, 1, False, [MAX_QUANTA - 1.0, MAX_QUANTA - 0.5, MAX_QUANTA, 0.75, 0.5, 1.0]),
    # the cap: hit, hit when it scales with the rate, and scale 1 (which never scales it)
    (1 / 120, 1.0, 1, False, [0.1, 0.5, 1 / 60, 1.0, 0.26, 0.6]),
    (1 / 120, 3.7, 8, True, [0.1, 0.5, 1 / 60, 1.0, 0.26, 0.6]),
    (1 / 120, 3.7, 8, False, [0.1, 0.5, 1 / 60, 1.0, 0.26, 0.6]),
    (1 / 240, 1.0, 5, True, [0.5, 0.5, 1 / 60, 1.0, 0.26, 0.6]),
    (1 / 1000, 1e3, 2, True, [0.001, 0.5, 1 / 60, 1.0, 0.26, 0.6]),
    # scale 0: nothing banked, however wide the frame
    (1 / 120, 0.0, 8, True, [1e300, 1 / 60, 1e-300, 0.5, 1e308, 1.0]),
    (1e-6, 0.0, 1, False, [1e300, 1 / 60, 1e-300, 0.5, 1e308, 1.0]),
    # subnormal leftovers: frames of a few subnormal quanta, which the snap clears, between
    # whole quanta
    (1.0, 1.0, 8, False, [TINY, TINY, 3 * TINY, 1.0, TINY, 2.2250738585072014e-308]),
    (1e-6, 1.0, 8, False, [TINY, 1e-320, 1e-6, TINY, 1e-310, 1e-6 - 1e-22]),
    # a bank one ulp short of a quantum, and just over: the snap decides
    (1.0, 1.0, 8, False, [math.nextafter(1.0, 0.0), TINY, 1.0 - 1e-9, 1e-9, 0.5, 0.5]),
    (0.37, 1.5, 8, True, [0.37 * (1 - 2e-9), 0.37 * 1e-9, 0.74, 1 / 60, 0.26, 0.6]),
]


def bits(x):
    """A float's bits as text: tells -0.0 from 0.0, where == would not."""
    return float(x).hex()


def through_function(fixed_dt, scale, cap, scales, walls):
    """(steps, dropped, bank bits) of each frame, by cvc_bank_live alone."""
    bank, out = 0.0, []
    for d in walls:
        steps, dropped, bank = _bank_live(bank, d, scale, fixed_dt, cap, scales)
        out.append((steps, dropped, bits(bank)))
    return out


def through_clock(fixed_dt, scale, cap, scales, walls):
    clock = WorldClock(ClockConfig(fixed_dt, scale=scale, max_steps_per_advance=cap,
                                   cap_scales_with_rate=scales))
    out = []
    for d in walls:
        r = clock.advance(d)
        assert bits(r.alpha) == bits(clock.state().bank)
        out.append((r.steps, r.dropped, bits(r.alpha)))
    return out


def through_bank(cases, kernel):
    """Every case in a slot of one ClockBank, advanced frame by frame with the given loops;
    per case, (steps, dropped, bank bits) of each frame."""
    before = _clock_bank_kernel()
    _clock_bank_kernel(kernel)
    try:
        n = len(cases)
        bank = ClockBank(n)
        bank.fixed_dt[:] = [c[0] for c in cases]
        bank.scale[:] = [c[1] for c in cases]
        bank.max_steps_per_advance[:] = [c[2] for c in cases]
        bank.cap_scales_with_rate[:] = [c[3] for c in cases]
        frames = len(cases[0][4])
        out = [[] for _ in cases]
        for k in range(frames):
            dropped_before = bank.total_dropped.copy()
            steps = bank.advance(np.array([c[4][k] for c in cases], np.float64)).copy()
            dropped = bank.total_dropped - dropped_before
            alpha = bank.alpha
            for i in range(n):
                out[i].append((int(steps[i]), int(dropped[i]), bits(alpha[i])))
        return out
    finally:
        _clock_bank_kernel(before)


def kernels():
    found = ["portable"]
    before = _clock_bank_kernel()
    try:
        _clock_bank_kernel("avx2")
        found.append("avx2")
    except ValueError:
        pass
    _clock_bank_kernel(before)
    return found


@pytest.mark.parametrize("case", CASES, ids=range(len(CASES)))
def test_world_clock_banks_exactly_as_the_shared_function(case):
    assert through_clock(*case) == through_function(*case)


def test_the_cases_reach_every_path():
    """The exact path, the cap, scale 0 and a subnormal quotient each occur in CASES; no bank
    is ever subnormal (a bank within the snap of a whole quantum is that quantum)."""
    exact = capped = subnormal = False
    for fixed_dt, scale, cap, scales, walls in CASES:
        bank = 0.0
        for d in walls:
            q = d * scale / fixed_dt
            exact |= q >= EXACT_QUANTA
            subnormal |= 0.0 < q < 2.2250738585072014e-308
            _, dropped, bank = _bank_live(bank, d, scale, fixed_dt, cap, scales)
            capped |= dropped > 0
            assert bank == 0.0 or bank >= 1e-9
    assert exact and capped and subnormal
    assert any(c[1] == 0.0 for c in CASES)


@pytest.mark.parametrize("kernel", kernels())
@pytest.mark.parametrize("pad", [0, 1, 3], ids=lambda p: f"pad{p}")
def test_bank_loops_bank_exactly_as_the_shared_function(kernel, pad):
    """Each case in a slot of a bank (the AVX2 loop runs 4 slots a vector; padding moves the
    cases across vector lanes and into the scalar tail)."""
    padded = [(1 / 120, 1.0, 8, False, [1 / 60] * len(CASES[0][4]))] * pad + CASES
    got = through_bank(padded, kernel)[pad:]
    for case, slot in zip(CASES, got, strict=True):
        assert slot == through_function(*case), case


def test_a_frame_wider_than_2_52_quanta_is_refused_alike():
    fixed_dt, scale, d = 1e-6, 1e6, 4503.6
    assert d * scale / fixed_dt > MAX_QUANTA
    with pytest.raises(ValueError, match="spans more than 2\\*\\*52 quanta"):
        _bank_live(0.0, d, scale, fixed_dt, 8, False)
    clock = WorldClock(ClockConfig(fixed_dt, scale=scale))
    with pytest.raises(ValueError, match="spans more than 2\\*\\*52 quanta"):
        clock.advance(d)
    assert clock.tick == 0 and clock.frame == 0
    bank = ClockBank(4, ClockConfig(fixed_dt, scale=scale))
    with pytest.raises(ValueError, match="spans more than 2\\*\\*52 quanta .* in slot 0"):
        bank.advance(d)
    assert bank.tick.tolist() == [0, 0, 0, 0]


def test_the_shared_function_checks_its_arguments():
    with pytest.raises(ValueError, match="bank"):
        _bank_live(1.0, 0.1, 1.0, 0.01, 8, False)
    with pytest.raises(ValueError, match="wall_dt"):
        _bank_live(0.0, -0.1, 1.0, 0.01, 8, False)
    with pytest.raises(ValueError, match="max_steps_per_advance"):
        _bank_live(0.0, 0.1, 1.0, 0.01, 0, False)
    with pytest.raises(TypeError, match="cap_scales_with_rate"):
        _bank_live(0.0, 0.1, 1.0, 0.01, 8, 1)


FIXED_DTS = [1e-6, 2.0**-10, 1 / 1000, 1 / 240, 1 / 120, 0.01, 1 / 60, 0.37, 1.0]
SCALES = [0.0, 0.25, 1.0, 1.5, 3.7, 1e3, 1e6]
case_st = st.tuples(
    st.sampled_from(FIXED_DTS), st.sampled_from(SCALES), st.sampled_from([1, 2, 8, 2**32]),
    st.booleans(),
    st.lists(st.one_of(st.floats(0.0, 1.0), st.floats(0.0, 1e-300), st.floats(0.0, 70.0),
                       st.sampled_from([0.0, TINY, 1 / 60, 64.0])),
             min_size=4, max_size=4),
).filter(lambda c: all(d * c[1] / c[0] <= MAX_QUANTA for d in c[4]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(case_st, min_size=1, max_size=9))
def test_random_frames_bank_alike_everywhere(cases):
    want = [through_function(*c) for c in cases]
    assert [through_clock(*c) for c in cases] == want
    for kernel in kernels():
        assert through_bank(cases, kernel) == want
