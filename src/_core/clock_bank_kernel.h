/* The ClockBank's per-clock loops in C: WorldClock.advance over arrays.
 *
 * Every slot computes exactly what clock.pxi computes for one clock: the banking arithmetic is
 * banking.h's, the one WorldClock.advance calls (the AVX2 loop restates its common path in
 * vector form, with the same float operations in the same order). The slots run in blocks of
 * CVC_BLOCK. The common case (any mode, a live quotient below CVC_EXACT_QUANTA, a window
 * count below 2**52) runs branch-free, 4 slots a vector: AVX2 intrinsics on x86-64 machines
 * that have it (chosen at run time), elsewhere a plain C loop the compiler may vectorise for
 * its target. A slot outside it (the exact double-double path, a huge window count) is left
 * untouched, marked steps == -1, and run by the scalar reference code (cvc_slot_advance, on
 * cvc_bank_live) while its block is still in cache.
 *
 * The banking constants are banking.h's; the rest (the configuration's limits, the mode
 * numbers) come from the Cython core in a cvc_rules value, so each is defined once.
 */
#ifndef CVC_CLOCK_BANK_KERNEL_H
#define CVC_CLOCK_BANK_KERNEL_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "banking.h"

#if defined(_MSC_VER)
#define CVC_RESTRICT __restrict
#else
#define CVC_RESTRICT __restrict__
#endif

/* Exact conversions for whole numbers in [0, 2**52), by the bits of 2**52 + x: vectorisable
 * where the machine has no int64 <-> double vector conversion (AVX2). */
#define CVC_TWO52 4503599627370496.0
#define CVC_TWO52_BITS INT64_C(0x4330000000000000)

CVC_INLINE int64_t cvc_whole_to_i64(double x) {
    double y = x + CVC_TWO52;
    int64_t bits;
    memcpy(&bits, &y, sizeof bits);
    return bits - CVC_TWO52_BITS;
}

CVC_INLINE double cvc_i64_to_double(int64_t i) {
    int64_t bits = i + CVC_TWO52_BITS;
    double y;
    memcpy(&y, &bits, sizeof y);
    return y - CVC_TWO52;
}

/* The AVX2 loops: GCC or Clang on x86-64, any OS or libc (the CPU is asked at run time). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CVC_HAVE_AVX2 1
#include <immintrin.h>
#define CVC_AVX2_FN static __attribute__((target("avx2")))
#define CVC_AVX2_INLINE static inline __attribute__((target("avx2"), always_inline))
#else
#define CVC_HAVE_AVX2 0
#endif

/* Slots per block: a block's arrays (about 30 KiB) are still in cache for the fix-up. */
#define CVC_BLOCK 256

typedef struct {
    double window_wall, min_fixed_dt, max_scale;
    int64_t max_steps_per_call, max_count;
    uint8_t live, lockstep, modes;
} cvc_rules;

typedef struct {
    int64_t n;
    /* the configuration, host-writable (validated by cvc_first_bad before each advance) */
    const double *scale, *fixed_dt;
    const int64_t *max_steps, *lockstep;
    const uint8_t *cap_scales, *mode, *mode_seen;
    /* the state */
    int64_t *tick, *dropped, *window_ticks, *steps;
    double *bank, *window_wall, *realized;   /* realized < 0: no window completed yet */
} cvc_clock_bank;

/* ---- the scalar reference: clock.pxi's WorldClock.advance for one slot ----------------- */

/* The quanta slot i runs on an advance of d, and in live mode its new bank and the quanta
 * dropped; changes nothing. */
static int64_t cvc_slot_plan(const cvc_clock_bank *s, int64_t i, double d,
                             const cvc_rules *r, double *bank, int64_t *dropped) {
    const uint8_t mode = s->mode[i];
    *bank = s->bank[i];
    *dropped = 0;
    if (mode == r->lockstep)
        return s->lockstep[i];
    if (mode != r->live)
        return 0;
    const cvc_banked banked = cvc_bank_live(s->bank[i], d, s->scale[i], s->fixed_dt[i],
                                            s->max_steps[i], s->cap_scales[i]);
    *bank = banked.bank;
    *dropped = banked.dropped;
    return banked.steps;
}

/* Advance slot i by d, every field as WorldClock.advance sets it. */
static void cvc_slot_advance(const cvc_clock_bank *s, int64_t i, double d,
                             const cvc_rules *r) {
    double bank;
    int64_t dropped;
    const int64_t steps = cvc_slot_plan(s, i, d, r, &bank, &dropped);
    if (s->mode[i] == r->live) {
        s->bank[i] = bank;
        s->dropped[i] = s->dropped[i] + dropped < r->max_count ? s->dropped[i] + dropped
                                                               : r->max_count;
    }
    s->window_wall[i] += d;
    s->window_ticks[i] += steps;
    if (s->window_wall[i] >= r->window_wall) {
        s->realized[i] = s->window_ticks[i] * s->fixed_dt[i] / s->window_wall[i];
        s->window_wall[i] = 0.0;
        s->window_ticks[i] = 0;
    }
    s->tick[i] += steps;
    s->steps[i] = steps;
}

/* Whether slot i is one WorldClock could hold and advance by d: the configuration within the
 * ClockConfig limits, a valid mode, a finite d >= 0 (checked by the caller when scalar), and
 * a live quotient of at most CVC_MAX_QUANTA. The tick limit is checked apart (cvc_first_overflow). */
CVC_INLINE int64_t cvc_slot_bad(const cvc_clock_bank *s, int64_t i, double d, int per_slot,
                                const cvc_rules *r) {
    const double sc = s->scale[i], f = s->fixed_dt[i];
    const int64_t m = s->max_steps[i], k = s->lockstep[i];
    const uint8_t mode = s->mode[i];
    int64_t bad = !((sc >= 0.0) & (sc <= r->max_scale));
    bad |= !((f >= r->min_fixed_dt) & (f <= DBL_MAX));
    bad |= (m < 1) | (m > r->max_steps_per_call) | (k < 1) | (k > r->max_steps_per_call);
    bad |= mode >= r->modes;
    if (per_slot)
        bad |= !((d >= 0.0) & (d <= DBL_MAX));
    bad |= (mode == r->live) & (cvc_quanta(d, sc, f) > CVC_MAX_QUANTA);
    return bad;
}

/* ---- the portable block loops ------------------------------------------------------------ */

/* GCC's default -ftrapping-math keeps a loop scalar if it would have to compute a float
 * operation for every lane that the source computes for some (floor, ceil, a division in one
 * arm of a select). Without traps the results are the same bits; only the exception flags,
 * which nothing in cvcclock or CPython reads, may differ. Clang ignores traps by default. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math")
#endif

/* Slots [0, n), n <= CVC_BLOCK, of the arrays in the common case; returns nonzero if it left
 * any slot for the fix-up (marked steps == -1, its state untouched). wall holds one d a slot,
 * or is NULL: then every slot advances by d0. The arrays are the restrict parameters of a
 * function that is not inlined, so that GCC knows they never overlap (inlined, it forgets). */
CVC_NOINLINE int cvc_advance_block_c(
    int64_t n, const double *CVC_RESTRICT wall, double d0,
    const double *CVC_RESTRICT scale, const double *CVC_RESTRICT fixed_dt,
    const int64_t *CVC_RESTRICT max_steps, const int64_t *CVC_RESTRICT lockstep,
    const uint8_t *CVC_RESTRICT cap_scales, const uint8_t *CVC_RESTRICT mode,
    int64_t *CVC_RESTRICT tick, int64_t *CVC_RESTRICT dropped,
    int64_t *CVC_RESTRICT window_ticks, int64_t *CVC_RESTRICT steps, double *CVC_RESTRICT bank,
    double *CVC_RESTRICT window_wall, double *CVC_RESTRICT realized, const cvc_rules *r) {
    const double window = r->window_wall;
    const int64_t max_count = r->max_count, huge_window = INT64_C(1) << 52;
    /* The wall times and modes first, as 8-byte values in L1: with one width of value GCC
     * vectorises the main loop at one slot a 64-bit lane, instead of at 32 slots an iteration
     * (sized for the bytes) with registers spilled. */
    double d_of[CVC_BLOCK];
    int64_t live_of[CVC_BLOCK], lock_of[CVC_BLOCK], capped_of[CVC_BLOCK];
    for (int64_t i = 0; i < n; i++)
        d_of[i] = wall ? wall[i] : d0;
    for (int64_t i = 0; i < n; i++) {
        live_of[i] = mode[i] == r->live;
        lock_of[i] = mode[i] == r->lockstep;
        capped_of[i] = cap_scales[i] != 0;
    }
    int64_t any_rare = 0;
    for (int64_t i = 0; i < n; i++) {
        const double d = d_of[i], sc = scale[i], f = fixed_dt[i];
        const int64_t live = live_of[i];
        /* live banking, computed for every slot (the mode picks) and kept where the
         * quotient is below CVC_EXACT_QUANTA; the fix-up runs the others. A slot not live
         * banks 0: its quotient may be any size, too big to truncate to int64. */
        const double q = cvc_quanta(d, sc, f);
        const cvc_banked live_bank = cvc_bank_below_exact(bank[i], live ? q : 0.0, sc,
                                                          max_steps[i], capped_of[i]);
        const double b = live_bank.bank;
        const int64_t st = live ? live_bank.steps : (lock_of[i] ? lockstep[i] : 0);
        const int64_t dr = live ? live_bank.dropped : 0;
        /* the frame and the realized-speed window, in every mode */
        const double ww = window_wall[i] + d;
        const int64_t wt = window_ticks[i] + st;
        const int64_t close = ww >= window;
        const int64_t rare = (live & (q >= CVC_EXACT_QUANTA)) | (close & (wt >= huge_window));
        const int64_t keep = rare ^ 1;
        if (close & keep)
            realized[i] = cvc_i64_to_double(wt) * f / ww;
        bank[i] = live & keep ? b : bank[i];
        if ((dr != 0) & keep) {   /* rare: the stall guard dropped quanta */
            const int64_t total = dropped[i] + dr;
            dropped[i] = total < max_count ? total : max_count;
        }
        window_wall[i] = keep & (close ^ 1) ? ww : (keep ? 0.0 : window_wall[i]);
        window_ticks[i] = keep & (close ^ 1) ? wt : (keep ? 0 : window_ticks[i]);
        tick[i] += keep ? st : 0;
        steps[i] = keep ? st : -1;
        any_rare |= rare;
    }
    return any_rare != 0;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

/* Whether any of slots [lo, lo + n) is bad (see cvc_slot_bad); *changed gets whether any
 * slot's mode differs from the one it last ran in. */
CVC_NOINLINE int cvc_bad_block_c(const cvc_clock_bank *s, int64_t lo, int64_t n,
                                 const double *wall, double d0, const cvc_rules *r,
                                 int64_t *changed) {
    int64_t bad = 0, diff = 0;
    for (int64_t i = lo; i < lo + n; i++) {
        bad |= cvc_slot_bad(s, i, wall ? wall[i] : d0, wall != NULL, r);
        diff |= s->mode[i] != s->mode_seen[i];
    }
    *changed |= diff;
    return bad != 0;
}

/* ---- the AVX2 block loops: the same arithmetic, 4 slots a vector --------------------------- */

#if CVC_HAVE_AVX2

/* 4 bytes as 4 int64 lanes. */
CVC_AVX2_INLINE __m256i cvc_load4_u8(const uint8_t *p) {
    int32_t v;
    memcpy(&v, p, sizeof v);
    return _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(v));
}

/* cvc_i64_to_double and cvc_whole_to_i64, 4 lanes at a time. */
CVC_AVX2_INLINE __m256d cvc_i64_to_double4(__m256i i) {
    return _mm256_sub_pd(
        _mm256_castsi256_pd(_mm256_add_epi64(i, _mm256_set1_epi64x(CVC_TWO52_BITS))),
        _mm256_set1_pd(CVC_TWO52));
}

CVC_AVX2_INLINE __m256i cvc_whole_to_i64x4(__m256d x) {
    return _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(x, _mm256_set1_pd(CVC_TWO52))),
                            _mm256_set1_epi64x(CVC_TWO52_BITS));
}

#define CVC_FLOOR (_MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
#define CVC_CEIL (_MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)

/* cvc_advance_block_c for slots [lo, lo + n): banking.h's cvc_bank_below_exact in vector form,
 * operation for operation (its truncations, of values >= 0, as floor rounding; the int64
 * conversions by the bits of 2**52 + x; the cap in doubles, exact below 2**52); the last
 * n % 4 slots are left for the fix-up. */
CVC_AVX2_FN int cvc_advance_block_avx2(const cvc_clock_bank *s, int64_t lo, int64_t n,
                                       const double *wall, double d0, const cvc_rules *r) {
    const double *scale = s->scale + lo, *fixed_dt = s->fixed_dt + lo;
    const int64_t *max_steps = s->max_steps + lo, *lockstep = s->lockstep + lo;
    const uint8_t *cap_scales = s->cap_scales + lo, *mode = s->mode + lo;
    int64_t *tick = s->tick + lo, *dropped = s->dropped + lo;
    int64_t *window_ticks = s->window_ticks + lo, *steps = s->steps + lo;
    double *bank = s->bank + lo, *window_wall = s->window_wall + lo;
    double *realized = s->realized + lo;
    if (wall)
        wall += lo;
    const __m256d all_d0 = _mm256_set1_pd(d0), half = _mm256_set1_pd(0.5);
    const __m256d snap = _mm256_set1_pd(CVC_BANK_SNAP), exact = _mm256_set1_pd(CVC_EXACT_QUANTA);
    const __m256d max_quanta = _mm256_set1_pd(CVC_MAX_QUANTA), one = _mm256_set1_pd(1.0);
    const __m256d window = _mm256_set1_pd(r->window_wall);
    const __m256d magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(INT64_MAX));
    const __m256i live_mode = _mm256_set1_epi64x(r->live);
    const __m256i lockstep_mode = _mm256_set1_epi64x(r->lockstep);
    const __m256i max_count = _mm256_set1_epi64x(r->max_count);
    const __m256i below_huge = _mm256_set1_epi64x((INT64_C(1) << 52) - 1);
    const __m256i zero = _mm256_setzero_si256();
    __m256i any_rare = zero;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const __m256d d = wall ? _mm256_loadu_pd(wall + i) : all_d0;
        const __m256d sc = _mm256_loadu_pd(scale + i), f = _mm256_loadu_pd(fixed_dt + i);
        const __m256i m = cvc_load4_u8(mode + i);
        const __m256i live = _mm256_cmpeq_epi64(m, live_mode);
        const __m256i lock = _mm256_cmpeq_epi64(m, lockstep_mode);
        const __m256i uncapped = _mm256_cmpeq_epi64(cvc_load4_u8(cap_scales + i), zero);
        /* live banking */
        const __m256d q = _mm256_div_pd(_mm256_mul_pd(d, sc), f);
        const __m256d bank_old = _mm256_loadu_pd(bank + i);
        const __m256d b0 = _mm256_add_pd(bank_old, q);
        const __m256d nearest = _mm256_round_pd(_mm256_add_pd(b0, half), CVC_FLOOR);
        const __m256d near = _mm256_cmp_pd(
            _mm256_and_pd(_mm256_sub_pd(b0, nearest), magnitude), snap, _CMP_LE_OQ);
        const __m256d b1 = _mm256_blendv_pd(b0, nearest, near);
        const __m256d whole = _mm256_round_pd(b1, CVC_FLOOR);
        const __m256d b = _mm256_sub_pd(b1, whole);
        /* the cap; min_pd(a, b) is a < b ? a : b, the C loop's selects */
        const __m256d cap_base =
            cvc_i64_to_double4(_mm256_loadu_si256((const __m256i *)(max_steps + i)));
        const __m256d cap_scaled = _mm256_min_pd(
            _mm256_mul_pd(cap_base, _mm256_round_pd(sc, CVC_CEIL)), max_quanta);
        const __m256d scaled = _mm256_andnot_pd(_mm256_castsi256_pd(uncapped),
                                                _mm256_cmp_pd(sc, one, _CMP_GT_OQ));
        const __m256d cap = _mm256_blendv_pd(cap_base, cap_scaled, scaled);
        const __m256d run = _mm256_min_pd(cap, whole);
        const __m256i k = _mm256_loadu_si256((const __m256i *)(lockstep + i));
        const __m256i st = _mm256_blendv_epi8(_mm256_and_si256(lock, k),
                                              cvc_whole_to_i64x4(run), live);
        const __m256i dr = _mm256_and_si256(live, cvc_whole_to_i64x4(_mm256_sub_pd(whole, run)));
        /* the frame and the realized-speed window, in every mode */
        const __m256d ww_old = _mm256_loadu_pd(window_wall + i);
        const __m256i wt_old = _mm256_loadu_si256((const __m256i *)(window_ticks + i));
        const __m256d ww = _mm256_add_pd(ww_old, d);
        const __m256i wt = _mm256_add_epi64(wt_old, st);
        const __m256i close = _mm256_castpd_si256(_mm256_cmp_pd(ww, window, _CMP_GE_OQ));
        const __m256i rare = _mm256_or_si256(
            _mm256_and_si256(live, _mm256_castpd_si256(_mm256_cmp_pd(q, exact, _CMP_GE_OQ))),
            _mm256_and_si256(close, _mm256_cmpgt_epi64(wt, below_huge)));
        const __m256i kept_close = _mm256_andnot_si256(rare, close);
        if (!_mm256_testz_si256(kept_close, kept_close))
            _mm256_maskstore_pd(realized + i, kept_close,
                                _mm256_div_pd(_mm256_mul_pd(cvc_i64_to_double4(wt), f), ww));
        /* the commit: a rare slot keeps every old value */
        const __m256d rare_d = _mm256_castsi256_pd(rare);
        _mm256_storeu_pd(bank + i, _mm256_blendv_pd(
            bank_old, b, _mm256_castsi256_pd(_mm256_andnot_si256(rare, live))));
        _mm256_storeu_pd(window_wall + i, _mm256_blendv_pd(
            _mm256_andnot_pd(_mm256_castsi256_pd(close), ww), ww_old, rare_d));
        _mm256_storeu_si256((__m256i *)(window_ticks + i),
                            _mm256_blendv_epi8(_mm256_andnot_si256(close, wt), wt_old, rare));
        const __m256i tick_old = _mm256_loadu_si256((const __m256i *)(tick + i));
        _mm256_storeu_si256((__m256i *)(tick + i),
                            _mm256_add_epi64(tick_old, _mm256_andnot_si256(rare, st)));
        _mm256_storeu_si256((__m256i *)(steps + i), _mm256_or_si256(rare, st));
        const __m256i drop = _mm256_andnot_si256(
            _mm256_or_si256(rare, _mm256_cmpeq_epi64(dr, zero)), _mm256_set1_epi64x(-1));
        if (!_mm256_testz_si256(drop, drop)) {   /* rare: the stall guard dropped quanta */
            const __m256i total = _mm256_add_epi64(
                _mm256_loadu_si256((const __m256i *)(dropped + i)), dr);
            _mm256_maskstore_epi64((long long *)(dropped + i), drop, _mm256_blendv_epi8(
                total, max_count, _mm256_cmpgt_epi64(total, max_count)));
        }
        any_rare = _mm256_or_si256(any_rare, rare);
    }
    for (int64_t j = i; j < n; j++)
        steps[j] = -1;
    return !_mm256_testz_si256(any_rare, any_rare) || i < n;
}

/* cvc_bad_block_c, 4 slots a vector. */
CVC_AVX2_FN int cvc_bad_block_avx2(const cvc_clock_bank *s, int64_t lo, int64_t n,
                                   const double *wall, double d0, const cvc_rules *r,
                                   int64_t *changed) {
    const __m256d zero_d = _mm256_setzero_pd(), all_d0 = _mm256_set1_pd(d0);
    const __m256d biggest = _mm256_set1_pd(DBL_MAX), max_scale = _mm256_set1_pd(r->max_scale);
    const __m256d min_fixed_dt = _mm256_set1_pd(r->min_fixed_dt);
    const __m256d max_quanta = _mm256_set1_pd(CVC_MAX_QUANTA);
    const __m256i zero = _mm256_setzero_si256(), live_mode = _mm256_set1_epi64x(r->live);
    const __m256i max_steps = _mm256_set1_epi64x(r->max_steps_per_call);
    const __m256i modes = _mm256_set1_epi64x(r->modes);
    __m256d ok = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    int64_t diff = 0, i = lo;
    for (; i + 4 <= lo + n; i += 4) {
        const __m256d d = wall ? _mm256_loadu_pd(wall + i) : all_d0;
        const __m256d sc = _mm256_loadu_pd(s->scale + i), f = _mm256_loadu_pd(s->fixed_dt + i);
        const __m256i m = _mm256_loadu_si256((const __m256i *)(s->max_steps + i));
        const __m256i k = _mm256_loadu_si256((const __m256i *)(s->lockstep + i));
        const __m256i mode = cvc_load4_u8(s->mode + i);
        __m256d good = _mm256_and_pd(_mm256_cmp_pd(sc, zero_d, _CMP_GE_OQ),
                                     _mm256_cmp_pd(sc, max_scale, _CMP_LE_OQ));
        good = _mm256_and_pd(good, _mm256_and_pd(_mm256_cmp_pd(f, min_fixed_dt, _CMP_GE_OQ),
                                                 _mm256_cmp_pd(f, biggest, _CMP_LE_OQ)));
        __m256i counts = _mm256_and_si256(_mm256_cmpgt_epi64(m, zero), _mm256_cmpgt_epi64(k, zero));
        counts = _mm256_andnot_si256(_mm256_or_si256(_mm256_cmpgt_epi64(m, max_steps),
                                                     _mm256_cmpgt_epi64(k, max_steps)), counts);
        counts = _mm256_and_si256(counts, _mm256_cmpgt_epi64(modes, mode));
        good = _mm256_and_pd(good, _mm256_castsi256_pd(counts));
        if (wall)
            good = _mm256_and_pd(good, _mm256_and_pd(_mm256_cmp_pd(d, zero_d, _CMP_GE_OQ),
                                                     _mm256_cmp_pd(d, biggest, _CMP_LE_OQ)));
        const __m256d too_wide = _mm256_cmp_pd(_mm256_div_pd(_mm256_mul_pd(d, sc), f),
                                               max_quanta, _CMP_GT_OQ);
        good = _mm256_andnot_pd(_mm256_and_pd(_mm256_castsi256_pd(
            _mm256_cmpeq_epi64(mode, live_mode)), too_wide), good);
        ok = _mm256_and_pd(ok, good);
        int32_t now, seen;
        memcpy(&now, s->mode + i, sizeof now);
        memcpy(&seen, s->mode_seen + i, sizeof seen);
        diff |= now != seen;
    }
    int64_t bad = _mm256_movemask_pd(ok) != 0xf;
    for (; i < lo + n; i++) {
        bad |= cvc_slot_bad(s, i, wall ? wall[i] : d0, wall != NULL, r);
        diff |= s->mode[i] != s->mode_seen[i];
    }
    *changed |= diff;
    return bad != 0;
}

#endif /* CVC_HAVE_AVX2 */

/* ---- the entry points --------------------------------------------------------------------- */

/* Which block loops run: the AVX2 ones where the machine has AVX2, unless told otherwise. */
static int cvc_use_avx2 = 0;

/* Choose the loops: want_avx2 asks for AVX2; returns whether AVX2 is now in use. */
static int cvc_choose_kernel(int want_avx2) {
#if CVC_HAVE_AVX2
    __builtin_cpu_init();   /* asks the CPU (and the OS, for the YMM state) once more */
    cvc_use_avx2 = want_avx2 && __builtin_cpu_supports("avx2");
#else
    (void)want_avx2;
#endif
    return cvc_use_avx2;
}

/* Advance every slot by wall[i] (or by wall_dt, if wall is NULL), block by block; the caller
 * checked the bank with cvc_first_bad and cvc_first_overflow. */
static void cvc_advance(const cvc_clock_bank *s, const double *wall, double wall_dt,
                        const cvc_rules *r) {
    for (int64_t lo = 0; lo < s->n; lo += CVC_BLOCK) {
        const int64_t n = lo + CVC_BLOCK < s->n ? CVC_BLOCK : s->n - lo;
        int rare;
#if CVC_HAVE_AVX2
        if (cvc_use_avx2)
            rare = cvc_advance_block_avx2(s, lo, n, wall, wall_dt, r);
        else
#endif
            rare = cvc_advance_block_c(
                n, wall ? wall + lo : NULL, wall_dt, s->scale + lo, s->fixed_dt + lo,
                s->max_steps + lo, s->lockstep + lo, s->cap_scales + lo, s->mode + lo,
                s->tick + lo, s->dropped + lo, s->window_ticks + lo, s->steps + lo,
                s->bank + lo, s->window_wall + lo, s->realized + lo, r);
        if (rare) {
            for (int64_t i = lo; i < lo + n; i++)   /* while the block is in cache */
                if (s->steps[i] < 0)
                    cvc_slot_advance(s, i, wall ? wall[i] : wall_dt, r);
        }
    }
}

/* The first slot that cannot be advanced by wall_dt (wall: NULL, or one wall_dt a slot), or
 * -1; then *mode_changed says whether any slot's mode differs from the one last seen. */
static int64_t cvc_first_bad(const cvc_clock_bank *s, const double *wall, double wall_dt,
                             const cvc_rules *r, int *mode_changed) {
    int64_t changed = 0;
    for (int64_t lo = 0; lo < s->n; lo += CVC_BLOCK) {
        const int64_t n = lo + CVC_BLOCK < s->n ? CVC_BLOCK : s->n - lo;
        int bad;
#if CVC_HAVE_AVX2
        if (cvc_use_avx2)
            bad = cvc_bad_block_avx2(s, lo, n, wall, wall_dt, r, &changed);
        else
#endif
            bad = cvc_bad_block_c(s, lo, n, wall, wall_dt, r, &changed);
        if (bad) {
            for (int64_t i = lo; i < lo + n; i++)
                if (cvc_slot_bad(s, i, wall ? wall[i] : wall_dt, wall != NULL, r))
                    return i;
        }
    }
    *mode_changed = changed != 0;
    return -1;
}

/* The first slot whose tick an advance would take past max_count, or -1; *steps gets its
 * quanta. Scalar: run only when the bank's ticks are within 2**52 of the limit. */
static int64_t cvc_first_overflow(const cvc_clock_bank *s, const double *wall, double wall_dt,
                                  const cvc_rules *r, int64_t *steps) {
    double bank;
    int64_t dropped;
    for (int64_t i = 0; i < s->n; i++) {
        *steps = cvc_slot_plan(s, i, wall ? wall[i] : wall_dt, r, &bank, &dropped);
        if (*steps > r->max_count - s->tick[i])
            return i;
    }
    return -1;
}

#endif /* CVC_CLOCK_BANK_KERNEL_H */
