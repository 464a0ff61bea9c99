"""The argument rules every part of cvcclock shares, so each rule and its message lives once.

The rules are the compiled core's own; this module gives the Python layer (and hosts that
wrap cvcclock) the same checks the clock applies:

- ``check_seconds(value, name, minimum=0.0, maximum=inf)``: a finite real number of seconds;
- ``check_real(value, name)``: a finite real number of either sign;
- ``check_count(value, name, minimum=0, maximum=MAX_TICK)``: an integer (any ``__index__``
  type such as ``numpy.int64``, never a bool);
- ``check_bool(value, name)``: a ``bool`` or ``numpy.bool_``, nothing else;
- ``MAX_TICK``: 2**62, the largest tick, count or due tick.

A wrong type raises TypeError, a wrong value ValueError; both name the argument and the value.
"""

from cvcclock._core import MAX_TICK, check_bool, check_count, check_real, check_seconds

__all__ = ["MAX_TICK", "check_bool", "check_count", "check_real", "check_seconds"]
