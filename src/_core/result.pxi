# The value every advancing call returns.


@cython.freelist(16)
cdef class StepResult:
    """StepResult(steps, first_tick, dropped, alpha)
--

What one advancing call did: an immutable value.

    Attributes
    ----------
    steps : int
        Quanta run by this call: ticks ``first_tick + 1`` … ``first_tick + steps``.
    first_tick : int
        The tick before this call's first quantum.
    dropped : int
        Quanta the stall guard dropped in this call.
    alpha : float
        The clock's alpha after the call: the bank's fraction of a quantum.
    last_tick : int
        The tick after this call's last quantum: ``first_tick + steps``.

    Notes
    -----
    A result is falsy exactly when ``steps == 0``. Its repr is a valid call, so it shows
    the four fields the constructor takes and not ``last_tick``, which follows from them.
    """

    # Filled before it is returned and never changed after: any thread reads it (threads.pxi).
    cdef readonly int64_t steps
    cdef readonly int64_t first_tick
    cdef readonly int64_t dropped
    cdef readonly double alpha
    cdef bint _made              # set once its fields are filled: it never changes again


    def __init__(self, steps, first_tick, dropped, alpha):
        if self._made:
            raise TypeError("StepResult is immutable")
        # Validate everything before assigning anything.
        cdef int64_t n = _as_count(steps, "steps", 0)
        cdef int64_t first = _as_count(first_tick, "first_tick", 0)
        cdef int64_t d = _as_count(dropped, "dropped", 0)
        cdef double a = _as_fraction(alpha, "alpha")
        if n > MAX_COUNT - first:
            raise ValueError(f"first_tick + steps must be <= MAX_TICK ({MAX_COUNT}), got {first} + {n}")
        self.steps, self.first_tick, self.dropped, self.alpha = n, first, d, a
        self._made = True

    @property
    def last_tick(self):
        """The tick after this call's last quantum: ``first_tick + steps``."""
        return self.first_tick + self.steps

    def __bool__(self):
        """False exactly when the call ran no quanta (``steps == 0``)."""
        return self.steps != 0

    def _astuple(self):
        return (self.steps, self.first_tick, self.dropped, self.alpha)

    def __eq__(self, other):
        if not isinstance(other, StepResult):
            return NotImplemented
        return self._astuple() == (<StepResult>other)._astuple()

    def __hash__(self):
        return hash(self._astuple())

    def __repr__(self):
        return ("StepResult(steps=%d, first_tick=%d, dropped=%d, alpha=%r)"
                % (self.steps, self.first_tick, self.dropped, self.alpha))

    def __reduce__(self):
        return (StepResult, self._astuple())
