# cython: language_level=3, binding=False, embedsignature=True, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, autotestdict=False
"""The compiled core of cvcclock: the clock, its followers and its timers.

One module, its source split by concept into the .pxi files included below; the fields of
its cdef classes are declared in cvcclock._core.pxd.
"""

from libc.stdint cimport int64_t
from libc.math cimport ceil, fabs, floor, isfinite

include "config.pxi"
include "result.pxi"
include "clock.pxi"
include "follower.pxi"
include "timers.pxi"
