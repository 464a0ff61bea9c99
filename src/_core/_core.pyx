# cython: language_level=3, freethreading_compatible=True, binding=False, embedsignature=True, embedsignature.format=clinic, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, autotestdict=False, always_allow_keywords=False, auto_pickle=False
"""The compiled core of cvcclock: the clock, its followers and its timers.

One module, its source split by concept into the .pxi files included below; each cdef
class declares its fields beside its code (nothing cimports this module, so no .pxd).
"""

import enum
import numbers
import operator
import sys
import threading
import weakref

cimport cython
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.mem cimport PyMem_Free, PyMem_Realloc
from cpython.object cimport PyObject
from libc.math cimport INFINITY, ceil, fabs, floor, fmin, isfinite
from libc.stdint cimport int32_t, int64_t, uint8_t, uintptr_t

# A class used by an earlier part before its definition is declared ahead.
cdef class WorldClock
cdef class Timer
cdef class Presentation
cdef class ClockState

include "checks.pxi"
include "config.pxi"
include "result.pxi"
include "timer_queue.pxi"
include "threads.pxi"
include "clock.pxi"
include "follower.pxi"
include "timers.pxi"
include "presentation.pxi"
include "state.pxi"
include "clock_bank.pxi"
