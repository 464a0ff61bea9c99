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
 * change the bits. Whole numbers stay below 2**52 + 2, where doubles count exactly.
 */
#ifndef CVC_BANKING_H
#define CVC_BANKING_H

#include <math.h>
#include <stdint.h>
#include <string.h>

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

/* Exact conversions for whole numbers in [0, 2**52], by the bits of 2**52 + x: no libm call
 * or x87 path in scalar code, and vectorisable where the machine has no int64 <-> double
 * vector conversion (SSE2, AVX2). */
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

/* floor(x) for x in [0, 2**52): x rounded to a whole number by the addition, less one if that
 * rounded up. The same bits as floor, without its libm call (baseline x86-64 has no rounding
 * instruction) and branch-free. */
CVC_INLINE double cvc_floor_whole(double x) {
    const double r = (x + CVC_TWO52) - CVC_TWO52;
    return r - (r > x ? 1.0 : 0.0);
}

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

/* The stall guard: quanta beyond max_steps (max_steps * ceil(scale) when the cap scales with
 * the rate and scale > 1, at most CVC_MAX_QUANTA) are dropped. max_steps <= 2**32 and
 * scale <= 1e6, so every value is a whole number below 2**52. */
CVC_INLINE void cvc_bank_cap(cvc_banked *out, double whole, int64_t max_steps, double scale,
                             int64_t cap_scales) {
    double cap = cvc_i64_to_double(max_steps);
    if (cap_scales & (scale > 1.0)) {
        const double scaled = cap * ceil(scale);
        cap = scaled < CVC_MAX_QUANTA ? scaled : CVC_MAX_QUANTA;
    }
    const double run = whole > cap ? cap : whole;
    out->steps = cvc_whole_to_i64(run);
    out->dropped = cvc_whole_to_i64(whole - run);
}

/* A live advance of q = cvc_quanta(...) < CVC_EXACT_QUANTA quanta on a bank in [0, 1):
 * branch-free, so that the portable loop vectorises it. The sum is below 2**17. */
CVC_INLINE cvc_banked cvc_bank_below_exact(double bank, double q, double scale,
                                           int64_t max_steps, int64_t cap_scales) {
    cvc_banked out;
    const double b0 = bank + q;
    const double nearest = cvc_floor_whole(b0 + 0.5);
    const double b1 = fabs(b0 - nearest) <= CVC_BANK_SNAP ? nearest : b0;
    const double whole = cvc_floor_whole(b1);
    out.bank = b1 - whole;
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
    cvc_bank_cap(&out, w + carry, max_steps, scale, cap_scales);
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
