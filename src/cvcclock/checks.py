"""The argument rules every part of cvcclock shares, so each rule and its message lives once.

The numeric rules are the compiled core's own; this module gives the Python layer (and hosts
that wrap cvcclock) the same checks the clock applies, and adds the rule the core has no
argument for:

- ``check_seconds(value, name, minimum=0.0, maximum=inf)``: a finite real number of seconds;
- ``check_real(value, name)``: a finite real number of either sign;
- ``check_count(value, name, minimum=0, maximum=MAX_TICK)``: an integer (any ``__index__``
  type such as ``numpy.int64``, never a bool);
- ``check_bool(value, name)``: a ``bool`` or ``numpy.bool_``, nothing else;
- ``check_seed(value, name="seed")``: a run's seed, a non-negative integer of any size;
- ``MAX_TICK``: 2**62, the largest tick, count or due tick.

A wrong type raises TypeError, a wrong value ValueError; both name the argument and the value.
"""

from __future__ import annotations

import operator

from cvcclock._core import MAX_TICK, check_bool, check_count, check_real, check_seconds

__all__ = ["MAX_TICK", "check_bool", "check_count", "check_real", "check_seconds", "check_seed"]


def check_seed(value: object, name: str = "seed") -> int:
    """Return ``value`` as a run's seed: a non-negative int of any size.

    A seed is what ``numpy.random.SeedSequence`` takes as entropy, so it has no upper bound
    (the seeds ``simulate`` derives for later attempts are 64 bits, three in four of them
    above ``MAX_TICK``): it is not a count. An integer is what ``check_count`` takes for
    one: any ``__index__`` type such as ``numpy.int64``, never a bool.

    Parameters
    ----------
    value : int
        The argument to check.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    int
        ``value`` as a Python int.

    Raises
    ------
    TypeError
        If ``value`` is not an integer, or is a bool.
    ValueError
        If it is negative.
    """
    try:
        return check_count(value, name)
    except ValueError:
        seed = operator.index(value)   # type: ignore[arg-type]  # check_count took it as one
        if seed < 0:
            raise
        return seed
