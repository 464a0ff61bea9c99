# The argument rules, once: every module of cvcclock calls these (through cvcclock.checks in
# Python), so each rule and its message lives in one place.

# Ticks, counts and due ticks stay at or below this, so int64 sums of two never overflow.
cdef int64_t MAX_COUNT = 2 ** 62
MAX_TICK = MAX_COUNT


cdef inline bint _is_bool(object value):
    """A Python bool or a numpy bool (looked up only if numpy is already imported)."""
    if isinstance(value, bool):
        return True
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.bool_)


cdef double _as_seconds(object value, str name, double minimum,
                        double maximum=INFINITY) except? -1.0:
    """A finite real number in [minimum, maximum], or an error naming ``name`` and the value."""
    cdef double d
    if type(value) is float:
        d = value
    else:
        d = _as_real(value, name)
    if not isfinite(d) or d < minimum or d > maximum:
        bound = "non-negative" if minimum == 0.0 else f">= {minimum!r}"
        if maximum != INFINITY:
            bound += f" and <= {maximum!r}"
        raise ValueError(f"{name} must be finite and {bound}, got {value!r}")
    return d


cdef double _as_real(object value, str name) except? -1.0:
    """A finite real number (not a bool) of either sign."""
    cdef double d
    if type(value) is float:
        d = value
    elif _is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    else:
        try:
            d = float(value)
        except OverflowError:
            raise ValueError(f"{name} must be finite, got {value!r}") from None
    if not isfinite(d):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return d


cdef double _as_fraction(object value, str name) except? -1.0:
    """A real number in [0, 1): an alpha."""
    cdef double d = _as_real(value, name)
    if not 0.0 <= d < 1.0:
        raise ValueError(f"{name} must be in [0, 1), got {value!r}")
    return d


cdef int64_t _as_count(object value, str name, int64_t minimum,
                       int64_t maximum=MAX_COUNT) except? -1:
    """An int (not a bool) in [minimum, maximum], or an error naming ``name`` and the value."""
    cdef int64_t n
    cdef int overflow = 0
    if type(value) is int:   # the hot path: no Python-level calls or comparisons
        n = PyLong_AsLongLongAndOverflow(value, &overflow)
    elif _is_bool(value):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    else:
        try:
            index = operator.index(value)
        except TypeError:
            raise TypeError(f"{name} must be an integer, got {value!r}") from None
        n = PyLong_AsLongLongAndOverflow(index, &overflow)
    if overflow < 0 or (not overflow and n < minimum):
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    if overflow > 0 or n > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {value!r}")
    return n


cdef bint _as_bool(object value, str name) except -1:
    """A bool or a numpy bool; nothing else is taken for one (not 0, 1 or "False")."""
    if not _is_bool(value):
        raise TypeError(f"{name} must be a bool, got {value!r}")
    return bool(value)


def check_seconds(value, name, minimum=0.0, maximum=INFINITY):
    """Return ``value`` as a float of seconds: finite and in [minimum, maximum].

    Parameters
    ----------
    value : real number
        The argument to check (not a bool).
    name : str
        The argument's name, for the error message.
    minimum, maximum : float
        The bounds, inclusive.

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If it is NaN, infinite or out of bounds.
    """
    return _as_seconds(value, name, minimum, maximum)


def check_real(value, name):
    """Return ``value`` as a finite float of either sign (TypeError if not a real number,
    ValueError if NaN or infinite), naming ``name`` in the error."""
    return _as_real(value, name)


def check_count(value, name, minimum=0, maximum=MAX_TICK):
    """Return ``value`` as an int in [minimum, maximum] (TypeError if not an integer or a bool,
    ValueError if out of bounds), naming ``name`` in the error. Any ``__index__`` integer,
    such as ``numpy.int64``, is taken; the bounds may not exceed 2**62 in magnitude."""
    return _as_count(value, name, minimum, maximum)


def check_bool(value, name):
    """Return ``value`` as a bool; only ``bool`` and ``numpy.bool_`` are taken (TypeError
    otherwise, naming ``name``)."""
    return _as_bool(value, name)


def check_callable(value, name, what="callable", *, optional=False):
    """Return ``value`` if it is callable (or None, with ``optional=True``).

    Parameters
    ----------
    value : callable
        The argument to check.
    name : str
        The argument's name, for the error message.
    what : str
        What the message says ``value`` must be, where a caller wants a kind of callable:
        ``"a generator function"``. Only ``callable(value)`` is checked.
    optional : bool
        Whether None is taken too.

    Returns
    -------
    callable or None
        ``value``, unchanged.

    Raises
    ------
    TypeError
        If ``value`` is not callable (nor None, with ``optional=True``).
    """
    if callable(value) or (optional and value is None):
        return value
    raise TypeError(f"{name} must be {what}{' or None' if optional else ''}, got {value!r}")


def check_timeout(value, name="timeout", *, forever=True):
    """Return ``value`` as a timeout in seconds, as ``WorldClock.wait_for_tick_change`` takes it.

    A timeout is finite seconds >= 0 (``check_seconds``). The longest a thread can wait
    with one is ``threading.TIMEOUT_MAX`` seconds (some 292 years on Linux).

    Parameters
    ----------
    value : float or None
        The argument to check.
    name : str
        The argument's name, for the error message.
    forever : bool
        True for a wait that may last for ever: None, or a timeout longer than
        ``threading.TIMEOUT_MAX``, is returned as None (wait for ever). False for a timeout
        that must be a number of seconds (a join that reports what it waited): None is
        refused, and so is one longer than ``threading.TIMEOUT_MAX``.

    Returns
    -------
    float or None
        The timeout in seconds; None to wait for ever (only with ``forever=True``).

    Raises
    ------
    TypeError
        If ``value`` is not a real number (nor None, with ``forever=True``).
    ValueError
        If it is NaN, infinite or negative, or (with ``forever=False``) longer than
        ``threading.TIMEOUT_MAX``.
    """
    if not forever:
        return _as_seconds(value, name, 0.0, threading.TIMEOUT_MAX)
    if value is None:
        return None
    seconds = _as_seconds(value, name, 0.0, INFINITY)
    return None if seconds > threading.TIMEOUT_MAX else seconds
