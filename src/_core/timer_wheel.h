/* Bit scans and prefetches for the timer queue (timer_queue.pxi, timer_wheel.pxi): which
 * level a timer's epoch files at, a level's first occupied bucket, and a hint to fetch the
 * Timer a later step will touch. One instruction each on the compilers the core builds with. */
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
#if defined(_M_X64) || defined(_M_IX86)
#include <xmmintrin.h>
#define cvc_prefetch(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#else
#define cvc_prefetch(p) ((void)(p))
#endif
#else
static inline int cvc_highest_bit(uint64_t x) { return 63 - __builtin_clzll(x); }
static inline int cvc_lowest_bit(uint64_t x) { return __builtin_ctzll(x); }
/* For writing: every Timer the queue fetches ahead it also writes (its place). */
#define cvc_prefetch(p) __builtin_prefetch((const void *)(p), 1, 3)
#endif

#endif /* CVC_TIMER_WHEEL_H */
