/* Bit scans for the timer wheel (timer_wheel.pxi): which level a timer's epoch files at, and
 * a level's first occupied bucket. One instruction each on the compilers the core builds with. */
#ifndef CVC_TIMER_WHEEL_H
#define CVC_TIMER_WHEEL_H

#include <stdint.h>

#if defined(_MSC_VER)
#include <intrin.h>
static __forceinline int cvc_highest_bit(uint64_t x) {   /* x != 0 */
    unsigned long i;
    _BitScanReverse64(&i, x);
    return (int)i;
}
static __forceinline int cvc_lowest_bit(uint64_t x) {    /* x != 0 */
    unsigned long i;
    _BitScanForward64(&i, x);
    return (int)i;
}
#else
static inline int cvc_highest_bit(uint64_t x) { return 63 - __builtin_clzll(x); }
static inline int cvc_lowest_bit(uint64_t x) { return __builtin_ctzll(x); }
#endif

#endif /* CVC_TIMER_WHEEL_H */
