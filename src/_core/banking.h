/* The banking arithmetic, written once: wall time times scale into whole quanta, the exact
 * path for wide frames, the stall guard's cap and the quanta it drops, and the bank left over
 * (a live clock's alpha). WorldClock.advance (clock.pxi) calls cvc_bank_live; the ClockBank's
 * portable loop calls cvc_bank_below_exact for every slot and its scalar fix-up calls
 * cvc_bank_live (clock_bank_kernel.h). The AVX2 loop states cvc_bank_below_exact in vector
 * form; tests/core/test_banking.py holds it, the portable loop and WorldClock to
 * cvc_bank_live bit for bit (through cvcclock._core._bank_live).
 *
 * The bank is held in quanta, as a double, and snapped to the nearest whole quantum when it
 * lies within CVC_BANK_SNAP of one. Why not integer nanoseconds (Bevy's choice): fixed_dt
 * itself is rarely a whole number of nanoseconds (1/120 s is 8333333.3 ns), so a nanosecond
 * bank rounds the quantum and, over enough frames, invents or loses quanta. A bank in quanta
 * divides wall_dt * scale by fixed_dt once per call; for the ratios hosts use (1/60 over
 * 1/120, 1/60 over 0.01) the quotient is within a few ulps of the true rational, and the snap
 * turns 1.9999999999999998 into 2 instead of 1. Live advances keep only the fraction in the
 * bank, so its absolute error stays near 1e-16 however long the run; each snap moves it by at
 * most CVC_BANK_SNAP, far inside the conservation law's one quantum over 10**6 advances.
 *
 * A quotient's rounding error grows with its size: at 2**34 quanta a frame (fixed_dt 1e-6 at
 * scale 1e6) one ulp is 4e-6 quanta, which 10**6 frames add up to more than a quantum. So a
 * frame of CVC_EXACT_QUANTA or more quanta computes its quotient exactly, as a double-double
 * (Dekker's error-free product, then one correction of the division), and keeps the whole part
 * and the fraction apart; below that, one rounding costs at most 1.5e-11 quanta a frame.
 *
 * Every value is a double or an int64, computed with the same operations in the same order on
 * every path; the build sets -ffp-contract=off (CMakeLists.txt), as a fused multiply-add would
 * change the bits. Whole quanta are int64s; a frame has at most 2**52 + 1 of them, which a
 * double also counts exactly.
 */
#ifndef CVC_BANKING_H
#define CVC_BANKING_H

#include <math.h>
#include <stdint.h>

#if defined(_MSC_VER)
#define CVC_INLINE static __forceinline
#define CVC_NOINLINE static __declspec(noinline)
#define CVC_LIKELY(x) (x)
#else
#define CVC_INLINE static inline __attribute__((always_inline))
#define CVC_NOINLINE static __attribute__((noinline))
#define CVC_LIKELY(x) __builtin_expect(!!(x), 1)
#endif

#define CVC_BANK_SNAP 1e-9
#define CVC_EXACT_QUANTA 65536.0
/* A live advance spans at most this many quanta (more cannot be counted exactly): 2**52. */
#define CVC_MAX_QUANTA 4503599627370496.0
#define CVC_DEKKER_SPLIT 134217729.0   /* 2**27 + 1 */

/* What a live advance does: the quanta it runs now, the quanta the cap drops, and the bank
 * it leaves (in [0, 1) quanta, the clock's alpha). */
typedef struct {
    int64_t steps;
    int64_t dropped;
    double bank;
} cvc_banked;

/* The quanta wall_dt spans at scale: the quotient every path starts from (and the one the
 * checks compare with CVC_MAX_QUANTA). */
CVC_INLINE double cvc_quanta(double wall_dt, double scale, double fixed_dt) {
    return wall_dt * scale / fixed_dt;
}

/* The stall guard: of the whole quanta banked, those beyond max_steps (max_steps *
 * ceil(scale) when the cap scales with the rate and scale > 1, at most CVC_MAX_QUANTA) are
 * dropped. max_steps <= 2**32 and scale <= 1e6 keep the product a whole number below 2**52.
 * The branch keeps ceil off the common path (a cap that does not scale). */
CVC_INLINE void cvc_bank_cap(cvc_banked *out, int64_t whole, int64_t max_steps, double scale,
                             int64_t cap_scales) {
    int64_t cap = max_steps;
    if (cap_scales & (scale > 1.0)) {
        const double scaled = (double)max_steps * ceil(scale);
        cap = (int64_t)(scaled < CVC_MAX_QUANTA ? scaled : CVC_MAX_QUANTA);
    }
    out->steps = whole > cap ? cap : whole;
    out->dropped = whole - out->steps;
}

/* A live advance of q = cvc_quanta(...) < CVC_EXACT_QUANTA quanta (or any q in [0, 2**52],
 * whose result the caller discards) on a bank in [0, 1): the common path, without a branch
 * but the cap's, so that the portable loop can run it for every slot. The sum is at least 0
 * and below 2**17, so truncating to int64 is floor (no libm call), and exact. */
CVC_INLINE cvc_banked cvc_bank_below_exact(double bank, double q, double scale,
                                           int64_t max_steps, int64_t cap_scales) {
    cvc_banked out;
    double b = bank + q;
    int64_t whole = (int64_t)(b + 0.5);
    if (fabs(b - (double)whole) <= CVC_BANK_SNAP)
        b = (double)whole;
    whole = (int64_t)b;
    out.bank = b - (double)whole;
    cvc_bank_cap(&out, whole, max_steps, scale, cap_scales);
    return out;
}

/* The rounding error of p = a * b: a * b == p + error exactly (Dekker, no FMA). */
CVC_INLINE double cvc_two_product_error(double a, double b, double p) {
    double t = CVC_DEKKER_SPLIT * a;
    const double ah = t - (t - a);
    const double al = a - ah;
    t = CVC_DEKKER_SPLIT * b;
    const double bh = t - (t - b);
    const double bl = b - bh;
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}

/* A live advance of q >= CVC_EXACT_QUANTA quanta (q its rounded value, at most
 * CVC_MAX_QUANTA): bank + wall_dt * scale / fixed_dt split exactly into whole quanta and the
 * fraction. Rare, so out of line: the common path stays small. */
CVC_NOINLINE cvc_banked cvc_bank_exact(double bank, double wall_dt, double scale,
                                       double fixed_dt, double q, int64_t max_steps,
                                       int64_t cap_scales) {
    cvc_banked out;
    const double p = wall_dt * scale;
    const double p_err = cvc_two_product_error(wall_dt, scale, p);
    const double m = q * fixed_dt;
    /* p + p_err - q * fixed_dt, exactly enough: the first difference is exact (Sterbenz). */
    const double rest = ((p - m) - cvc_two_product_error(q, fixed_dt, m)) + p_err;
    const double w = floor(q);
    double b = bank + ((q - w) + rest / fixed_dt);
    const double nearest = floor(b + 0.5);
    if (fabs(b - nearest) <= CVC_BANK_SNAP)
        b = nearest;
    const double carry = floor(b);
    out.bank = b - carry;
    cvc_bank_cap(&out, (int64_t)w + (int64_t)carry, max_steps, scale, cap_scales);
    return out;
}

/* A live advance of wall_dt wall seconds on a clock whose bank holds bank quanta, in [0, 1);
 * the caller checked that cvc_quanta(wall_dt, scale, fixed_dt) <= CVC_MAX_QUANTA. */
CVC_INLINE cvc_banked cvc_bank_live(double bank, double wall_dt, double scale, double fixed_dt,
                                    int64_t max_steps, int64_t cap_scales) {
    const double q = cvc_quanta(wall_dt, scale, fixed_dt);
    if (CVC_LIKELY(q < CVC_EXACT_QUANTA))
        return cvc_bank_below_exact(bank, q, scale, max_steps, cap_scales);
    return cvc_bank_exact(bank, wall_dt, scale, fixed_dt, q, max_steps, cap_scales);
}

#endif /* CVC_BANKING_H */
