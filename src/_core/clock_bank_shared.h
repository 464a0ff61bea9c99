/* The ClockBank's loop for a bank whose slots share one configuration, one mode and one
 * realized-speed window (a bank made from one config, advanced by one wall_dt for every
 * slot, no slot reconfigured on its own): clock_bank.pxi says when it runs.
 *
 * Why a loop of its own: the general loop (clock_bank_kernel.h) reads each slot's
 * configuration (34 bytes) and its window (16) and writes the window back, about 148 bytes a
 * slot with the validation pass. When every slot shares those, the quotient, the cap, the
 * mode's quanta and the window's wall time are one value each, computed once; a slot needs
 * only its bank and tick (read and written) and its steps (written), 40 bytes.
 *
 * The window's quanta are kept as a base instead of a count: window_ticks[i] holds
 * tick[i] - (quanta advanced in the window), which an advance leaves unchanged (it adds the
 * same quanta to both), so no slot's window is touched until the window completes (every
 * slot at once: they share its wall time). clock_bank.pxi turns bases back into counts
 * before any other call reads them or moves a tick (cvc_shared_counts).
 *
 * Every value is what the general loop computes, bit for bit: the banking is banking.h's
 * cvc_bank_below_exact (the AVX2 loop restates it with the general AVX2 loop's operations),
 * and the realized speed is count * fixed_dt / window_wall in doubles, as clock.pxi's.
 */
#ifndef CVC_CLOCK_BANK_SHARED_H
#define CVC_CLOCK_BANK_SHARED_H

#include "clock_bank_kernel.h"

/* One advance of a shared bank, as clock_bank.pxi computes it once for every slot. */
typedef struct {
    int64_t live;         /* the shared mode is live: bank q quanta */
    double q;             /* live: the quotient wall_dt * scale / fixed_dt, < CVC_EXACT_QUANTA */
    double scale;         /* live: for the cap (cvc_bank_cap) */
    int64_t max_steps, cap_scales;
    int64_t quanta;       /* not live: the quanta every slot runs (lockstep_steps, or 0) */
    int64_t may_drop;     /* live: some slot may bank more than the cap (then count drops) */
    int64_t enter;        /* window_ticks holds counts: make them bases */
    int64_t close;        /* the window completes at this advance */
    double fixed_dt, window_wall;   /* at a close: realized = count * fixed_dt / window_wall */
    int64_t max_count;
} cvc_shared_step;

/* The stall guard's cap for the shared configuration, as cvc_bank_cap computes it. */
CVC_INLINE int64_t cvc_shared_cap(const cvc_shared_step *p) {
    cvc_banked out;
    cvc_bank_cap(&out, INT64_MAX, p->max_steps, p->scale, p->cap_scales);
    return out.steps;
}

/* The window's part of slot i's advance to tick t (st quanta run). */
CVC_INLINE void cvc_shared_window(const cvc_clock_bank *s, const cvc_shared_step *p, int64_t i,
                                  int64_t t, int64_t st) {
    int64_t *base = s->window_ticks;
    if (p->enter) {
        const int64_t count = base[i] + st;
        if (p->close) {
            s->realized[i] = (double)count * p->fixed_dt / p->window_wall;
            base[i] = t;
        } else {
            base[i] = t - count;
        }
    } else if (p->close) {
        s->realized[i] = (double)(t - base[i]) * p->fixed_dt / p->window_wall;
        base[i] = t;
    }
}

/* Slots [lo, hi), one at a time: the portable loop, and the AVX2 loop's tail. */
static void cvc_shared_slots_c(const cvc_clock_bank *s, const cvc_shared_step *p, int64_t lo,
                               int64_t hi) {
    for (int64_t i = lo; i < hi; i++) {
        int64_t st = p->quanta;
        if (p->live) {
            const cvc_banked b = cvc_bank_below_exact(s->bank[i], p->q, p->scale, p->max_steps,
                                                      p->cap_scales);
            s->bank[i] = b.bank;
            st = b.steps;
            if (b.dropped) {   /* rare: the stall guard dropped quanta */
                const int64_t total = s->dropped[i] + b.dropped;
                s->dropped[i] = total < p->max_count ? total : p->max_count;
            }
        }
        const int64_t t = s->tick[i] + st;
        cvc_shared_window(s, p, i, t, st);
        s->tick[i] = t;
        s->steps[i] = st;
    }
}

#if CVC_HAVE_AVX2

/* The live banking of 4 slots: the general AVX2 loop's operations with the scale, the cap
 * and the quotient broadcast. */
CVC_AVX2_FN void cvc_shared_live_avx2(const cvc_clock_bank *s, const cvc_shared_step *p,
                                      int64_t n) {
    double *bank = s->bank;
    int64_t *tick = s->tick, *steps = s->steps;
    const __m256d q = _mm256_set1_pd(p->q), half = _mm256_set1_pd(0.5);
    const __m256d snap = _mm256_set1_pd(CVC_BANK_SNAP);
    const __m256d magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(INT64_MAX));
    const __m256d cap = _mm256_set1_pd((double)cvc_shared_cap(p));
    const int plain = !p->may_drop && !p->enter && !p->close;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const __m256d b0 = _mm256_add_pd(_mm256_loadu_pd(bank + i), q);
        const __m256d nearest = _mm256_round_pd(_mm256_add_pd(b0, half), CVC_FLOOR);
        const __m256d near = _mm256_cmp_pd(
            _mm256_and_pd(_mm256_sub_pd(b0, nearest), magnitude), snap, _CMP_LE_OQ);
        const __m256d b1 = _mm256_blendv_pd(b0, nearest, near);
        const __m256d whole = _mm256_round_pd(b1, CVC_FLOOR);
        const __m256d run = _mm256_min_pd(cap, whole);
        const __m256i st = cvc_whole_to_i64x4(run);
        _mm256_storeu_pd(bank + i, _mm256_sub_pd(b1, whole));
        const __m256i t = _mm256_add_epi64(_mm256_loadu_si256((const __m256i *)(tick + i)), st);
        _mm256_storeu_si256((__m256i *)(tick + i), t);
        _mm256_storeu_si256((__m256i *)(steps + i), st);
        if (!plain) {   /* a drop, or the window entered or completed: lane by lane */
            int64_t lane_t[4], lane_st[4];
            double lane_dropped[4];
            _mm256_storeu_si256((__m256i *)lane_t, t);
            _mm256_storeu_si256((__m256i *)lane_st, st);
            _mm256_storeu_pd(lane_dropped, _mm256_sub_pd(whole, run));
            for (int j = 0; j < 4; j++) {
                const int64_t dropped = (int64_t)lane_dropped[j];
                if (dropped) {
                    const int64_t total = s->dropped[i + j] + dropped;
                    s->dropped[i + j] = total < p->max_count ? total : p->max_count;
                }
                cvc_shared_window(s, p, i + j, lane_t[j], lane_st[j]);
            }
        }
    }
    cvc_shared_slots_c(s, p, i, n);
}

/* A mode that banks nothing: every slot runs the same quanta. */
CVC_AVX2_FN void cvc_shared_fixed_avx2(const cvc_clock_bank *s, const cvc_shared_step *p,
                                       int64_t n) {
    int64_t *tick = s->tick, *steps = s->steps;
    const __m256i st = _mm256_set1_epi64x(p->quanta);
    const int plain = !p->enter && !p->close;
    int64_t i = 0;
    for (; plain && i + 4 <= n; i += 4) {
        const __m256i t = _mm256_add_epi64(_mm256_loadu_si256((const __m256i *)(tick + i)), st);
        _mm256_storeu_si256((__m256i *)(tick + i), t);
        _mm256_storeu_si256((__m256i *)(steps + i), st);
    }
    cvc_shared_slots_c(s, p, i, n);
}

#endif /* CVC_HAVE_AVX2 */

/* Advance every slot of a shared bank by p's step. */
static void cvc_advance_shared(const cvc_clock_bank *s, const cvc_shared_step *p) {
#if CVC_HAVE_AVX2
    if (cvc_use_avx2) {
        if (p->live)
            cvc_shared_live_avx2(s, p, s->n);
        else
            cvc_shared_fixed_avx2(s, p, s->n);
        return;
    }
#endif
    cvc_shared_slots_c(s, p, 0, s->n);
}

/* Bases back into counts: window_ticks[i] = tick[i] - base, every slot's window wall time
 * the shared one. */
static void cvc_shared_counts(const cvc_clock_bank *s, double window_wall) {
    for (int64_t i = 0; i < s->n; i++) {
        s->window_ticks[i] = s->tick[i] - s->window_ticks[i];
        s->window_wall[i] = window_wall;
    }
}

#endif /* CVC_CLOCK_BANK_SHARED_H */
