# Threads: who may touch the core's state from which thread, and what makes that hold on a
# free-threaded CPython (3.13t, 3.14t), where no GIL makes each call run whole.
#
# The rule, the same on every build (each declaration says which side of it its state is on):
# - one driver thread at a time changes a clock: the advancing calls (advance_to_next_due
#   among them), configure, seek_tick, restore, the setters, pause and resume, making timers,
#   cancel_all and a Timer's cancel, pause and resume, and the calls that read the timer queue
#   (state, pickling, next_due_tick). Timer callbacks run on it.
# - any thread may read tick, t, alpha, discontinuities and fixed_dt and the clock's repr, take
#   a ClockFollower or its alpha_of (its owner does; two takes on one follower never tear it
#   either), wait_for_tick_change, and enter and leave presenting(). The values (ClockConfig,
#   StepResult, ClockState, TimerState) never change once made, so any thread may read them.
#   SimThread and FrameLoop (threads.py, loop.py) keep the rule.
# The driver's other plain reads (frame, owed, mode, paused, a Timer's next_tick and
# countdown, ...) are single words: another thread reading one gets some recent value, but
# not a consistent set of them.
#
# Under the GIL a core call runs whole except where it calls Python code. Without the GIL:
# - a driver call claims the clock for its thread (a compare-and-swap on WorldClock._driver)
#   and refuses, with a RuntimeError, to run while another thread holds it, rather than tear
#   the timer heap; a call nested in a timer callback on the driver's thread is the driver's.
# - the reads another thread may make are one aligned word (tick, alpha, discontinuities),
#   or hold the clock's critical section where two fields must agree (t and the repr; a take
#   and alpha_of, against a discontinuity); the caches of Python objects behind tick, t and
#   alpha are bypassed.
# - a full fence orders publishing a tick before looking for waiters, and a waiter's
#   registration before its look at the tick, so one of the two always sees the other.
# Critical sections compile to nothing under the GIL, and so do the helpers below: the GIL
# build runs exactly the code it ran before.

cdef extern from *:
    """
    #ifdef Py_GIL_DISABLED
      #define CVC_FREE_THREADED 1
      /* 1: claimed now, release it at the end; 0: this thread holds it already (a call made
         from a timer callback); -1: another thread holds it. */
      static inline int cvc_claim(uintptr_t *owner) {
          uintptr_t me = (uintptr_t)PyThreadState_GetUnchecked();
          uintptr_t seen = 0;
          if (_Py_atomic_compare_exchange_uintptr(owner, &seen, me)) {
              return 1;
          }
          return seen == me ? 0 : -1;
      }
      #define cvc_release(owner) _Py_atomic_store_uintptr_release((owner), 0)
      #define cvc_fence() _Py_atomic_fence_seq_cst()
    #else
      #define CVC_FREE_THREADED 0
      #define cvc_claim(owner) 0
      #define cvc_release(owner) ((void)0)
      #define cvc_fence() ((void)0)
    #endif
    """
    const bint CVC_FREE_THREADED
    int cvc_claim(uintptr_t *owner) noexcept nogil
    void cvc_release(uintptr_t *owner) noexcept nogil
    void cvc_fence() noexcept nogil


cdef inline int _claim(WorldClock clock, str call) except -1:
    """Claim ``clock`` for this thread's driver call ``call``; the result goes to ``_release``.

    Free-threaded builds only (0 under the GIL): raises RuntimeError if another thread is
    inside a driver call on this clock."""
    cdef int claimed = cvc_claim(&clock._driver)
    if claimed < 0:
        raise RuntimeError(
            f"{call}: another thread is advancing or changing this clock; one driver thread "
            f"at a time may (others read tick, t and alpha, take their own followers and "
            f"wait_for_tick_change)")
    return claimed


cdef inline void _release(WorldClock clock, int claimed) noexcept:
    if claimed:
        cvc_release(&clock._driver)


cdef inline bint _has_waiters(WorldClock clock) noexcept:
    """Whether a thread waits in ``wait_for_tick_change``; call after publishing the tick."""
    cvc_fence()
    return clock._waiters != 0
