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
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t, uintptr_t

# A class used by an earlier part before its definition is declared ahead.
cdef class WorldClock
cdef class Timer
cdef class Presentation
cdef class ClockState

# The public classes carry the module users import them from, ``cvcclock`` (as the wings' do, by
# cvcclock._public.publish; Mode, a Python class, is published by cvcclock/__init__): repr,
# pickles and the API reference then say cvcclock.WorldClock. A static type's __module__ is
# its tp_name up to the last dot, which Python cannot set; the name is rewritten here, once, as
# the module loads and before any instance exists, so it costs nothing after. Pickles that name
# cvcclock._core still load: every name stays importable from here.
from cpython.object cimport PyTypeObject


cdef _public_name(type cls, const char *name):
    if cls.__flags__ & (1 << 9):  # Py_TPFLAGS_HEAPTYPE: __module__ would come from its dict
        raise ImportError(f"{cls!r} is a heap type: its tp_name does not give its __module__")
    (<PyTypeObject *>cls).tp_name = name


# C string literals: static storage, alive as long as the types are.
_public_name(WorldClock, "cvcclock.WorldClock")
_public_name(ClockConfig, "cvcclock.ClockConfig")
_public_name(StepResult, "cvcclock.StepResult")
_public_name(Timer, "cvcclock.Timer")
_public_name(Presentation, "cvcclock.Presentation")
_public_name(ClockFollower, "cvcclock.ClockFollower")
_public_name(ClockState, "cvcclock.ClockState")
_public_name(TimerState, "cvcclock.TimerState")
_public_name(ClockBank, "cvcclock.ClockBank")
_public_name(BankFollower, "cvcclock.BankFollower")

include "checks.pxi"
include "config.pxi"
include "result.pxi"
include "timer_wheel.pxi"
include "timer_queue.pxi"
include "threads.pxi"
include "clock.pxi"
include "follower.pxi"
include "timers.pxi"
include "presentation.pxi"
include "state.pxi"
include "clock_bank.pxi"
