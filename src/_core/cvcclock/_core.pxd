# Fields of the core's cdef classes, shared by the .pxi parts that _core.pyx includes.
from libc.stdint cimport int64_t


cdef class WorldClock


cdef class ClockConfig:
    cdef bint _frozen
    cdef readonly double fixed_dt
    cdef readonly double scale
    cdef readonly int64_t max_steps_per_advance
    cdef readonly bint cap_scales_with_rate
    cdef readonly int64_t lockstep_steps


cdef class StepResult:
    cdef readonly int64_t steps
    cdef readonly int64_t first_tick
    cdef readonly int64_t dropped
    cdef readonly double alpha


cdef class Timer:
    cdef WorldClock _clock
    cdef readonly object callback
    cdef int64_t _period         # 0 for a one-shot
    cdef int64_t _anchor         # the tick it was made at: it falls due at anchor + m * period
    cdef int64_t _due            # the next due tick while scheduled or paused
    cdef int64_t _seq            # creation order, the tie-break at equal due ticks
    cdef int64_t _gen            # bumped whenever its heap entry goes stale
    cdef int64_t _pending        # coalesce: intervals covered, to report at the moved due tick
    cdef readonly int64_t fired
    cdef bint _coalesce
    cdef int _state



cdef class WorldClock:
    # configuration
    cdef double _fixed_dt
    cdef double _scale
    cdef int64_t _max_steps
    cdef bint _cap_scales
    cdef int64_t _lockstep_steps
    cdef int _mode
    # world time and the bank
    cdef int64_t _tick
    cdef double _bank            # wall time banked, in quanta; see clock.pxi
    cdef double _alpha
    cdef int64_t _owed           # quanta granted but not yet run (a timer callback raised)
    # observability
    cdef int64_t _total_dropped
    cdef int64_t _frame
    cdef int64_t _discontinuities
    cdef double _window_wall
    cdef int64_t _window_ticks
    cdef double _realized
    cdef bint _window_done
    # waiting followers
    cdef object _cond
    cdef int _waiters
    # reentrancy guards
    cdef int _presenting         # threads inside presenting(), summed over _presenters
    cdef dict _presenters        # thread ident -> depth of presenting() on that thread
    cdef bint _running
    # timers: a binary heap of (due tick, creation order, generation, Timer) entries
    cdef list _heap
    cdef set _paused_timers
    cdef int64_t _timer_seq
    cdef int64_t _stale          # heap entries whose timer moved, paused or ended

    cdef bint _presenting_here(self) except -1
    cdef int _check_can_advance(self) except -1
    cdef int _set_mode(self, int mode) except -1
    cdef int _notify(self) except -1


cdef class Presentation:
    cdef WorldClock _clock
    cdef object _thread         # the ident of the thread that entered it; None until then


cdef class ClockFollower:
    cdef readonly int64_t period
    cdef int64_t _last_tick
    cdef int64_t _discontinuities

    cdef int64_t _take(self, WorldClock clock)
