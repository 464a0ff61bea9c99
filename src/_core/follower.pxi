# Followers: simulations stepping every k quanta of the one clock.

# Relative tolerance for "dt is a whole number of quanta": wide enough for decimal steps
# such as 0.06 / 0.01 = 5.999999999999999, far too narrow to hide a real 7.2.
cdef double WHOLE_QUANTA_RTOL = 1e-9


def ticks_per_step(dt, fixed_dt):
    """The whole number of quanta in a step of ``dt`` seconds.

    Parameters
    ----------
    dt : float
        The follower's step in seconds.
    fixed_dt : float
        The clock's quantum in seconds.

    Returns
    -------
    int
        k >= 1 with ``dt == k * fixed_dt`` to a relative tolerance of 1e-9.

    Raises
    ------
    ValueError
        If ``dt`` is not a whole number of quanta; the message names the nearest whole counts.
    """
    return _whole_quanta(dt, fixed_dt, "dt")


cdef int64_t _whole_quanta(object dt, object fixed_dt, str name) except -1:
    """ticks_per_step, with errors naming the caller's argument (``interval``, ``delay``)."""
    cdef double step = _as_seconds(dt, name, 0.0)
    cdef double quantum = _as_fixed_dt(fixed_dt)
    cdef double ratio = step / quantum
    cdef double k = floor(ratio + 0.5)
    if ratio > <double>MAX_COUNT:
        raise ValueError(f"{name}={dt!r} is {ratio:.6g} quanta of fixed_dt={fixed_dt!r}, "
                         f"more than MAX_TICK ({MAX_COUNT})")
    if k >= 1.0 and fabs(ratio - k) <= WHOLE_QUANTA_RTOL * ratio:
        return <int64_t>k
    if ratio < 1.0:
        raise ValueError(f"{name}={dt!r} is {ratio!r} quanta of fixed_dt={fixed_dt!r}, less "
                         f"than one; the shortest is 1 quantum ({quantum!r} s)")
    lo = <int64_t>floor(ratio)
    hi = lo + 1
    raise ValueError(
        f"{name}={dt!r} is {ratio!r} quanta of fixed_dt={fixed_dt!r}, not a whole number; "
        f"the nearest whole counts are {lo} ({lo * quantum:.6g} s) and {hi} ({hi * quantum:.6g} s)")


cdef class ClockFollower:
    """ClockFollower(k, start_tick=0)
--

A simulation that steps every ``k`` quanta of a clock.

    Steps fall due at ticks that are multiples of ``k``. The follower never advances the
    clock; it counts the steps that fell due since it last looked.

    Parameters
    ----------
    k : int
        The period in quanta; at least 1.
    start_tick : int
        The follower owes the steps due after this tick.
    """

    # Its owner's (threads.pxi): period is fixed once made; a take changes the others under the
    # critical sections of the follower and of its clock, so that two takes never tear them
    # and a take reads the clock's tick and discontinuity count as one pair.
    cdef readonly int64_t period
    cdef int64_t _last_tick
    cdef int64_t _discontinuities


    def __cinit__(self):
        self.period = 1                # never 0, even for an instance made with __new__
        self._discontinuities = -1     # adopt the clock's count at the first take

    def __init__(self, k, start_tick=0):
        cdef int64_t period = _as_count(k, "k", 1)
        self._last_tick = _as_count(start_tick, "start_tick", 0)
        self.period = period

    @staticmethod
    def for_step(WorldClock clock not None, dt):
        """A follower stepping every ``dt`` seconds, starting at the clock's current tick.

        A new follower owes nothing for the past. ``dt`` must be a whole number of quanta.
        """
        cdef ClockFollower f = ClockFollower.__new__(ClockFollower)
        cdef double fixed_dt
        with cython.critical_section(clock):   # one configuration's quantum, tick and count
            fixed_dt = clock._fixed_dt
            f._last_tick = clock._tick
            f._discontinuities = clock._discontinuities
        f.period = ticks_per_step(dt, fixed_dt)
        return f

    @property
    def last_tick(self):
        """The tick up to which due steps have been counted."""
        return self._last_tick

    def take(self, WorldClock clock not None, /):
        """The number of steps that fell due since the last take (or the start).

        After the clock was configured or sought, returns 0 once and resynchronises to the
        clock's current tick.
        """
        cdef int64_t n
        with cython.critical_section(self, clock):
            n = self._take(clock)
        return n

    def take_due(self, WorldClock clock not None, /):
        """Like ``take``, but the due ticks themselves: a ``range`` of multiples of ``k``.

        For a follower that needs the tick each step fell due at (to stamp its output).
        """
        cdef int64_t n, last
        with cython.critical_section(self, clock):
            n = self._take(clock)
            last = self._last_tick // self.period * self.period   # the tick the take read
        return range(last - (n - 1) * self.period, last + 1, self.period) if n else range(0)

    cdef int64_t _take(self, WorldClock clock) noexcept:
        cdef int64_t tick = clock._tick
        cdef int64_t n
        if self._discontinuities != clock._discontinuities:
            if self._discontinuities != -1:
                self._discontinuities = clock._discontinuities
                self._last_tick = tick
                return 0
            self._discontinuities = clock._discontinuities
        if tick <= self._last_tick:
            return 0
        n = tick // self.period - self._last_tick // self.period
        self._last_tick = tick
        return n

    def alpha(self, tick, clock_alpha):
        """The fraction into this follower's own step: ``((tick % k) + clock_alpha) / k``.

        ``tick`` is a tick (>= 0) and ``clock_alpha`` the clock's alpha, in [0, 1).
        """
        cdef int64_t t = _as_count(tick, "tick", 0)
        cdef double a = _as_fraction(clock_alpha, "clock_alpha")
        return ((t % self.period) + a) / self.period

    def alpha_of(self, clock, /):
        """``alpha(clock.tick, clock.alpha)``, with the tick and alpha read as one pair.

        What a renderer calls to interpolate this follower between its last two steps.

        Parameters
        ----------
        clock : WorldClock
            The clock this follower steps with.

        Returns
        -------
        float
            The fraction into this follower's own step, in [0, 1).
        """
        if not isinstance(clock, WorldClock):
            raise TypeError(f"clock must be a WorldClock, got {clock!r}")
        cdef WorldClock c = <WorldClock>clock
        cdef int64_t tick
        cdef double a
        with cython.critical_section(c):   # as take: never torn by configure or restore
            tick, a = c._tick, c._alpha
        return ((tick % self.period) + a) / self.period

    def __repr__(self):
        return f"ClockFollower({self.period}, start_tick={self._last_tick})"

    def __reduce__(self):
        return (_follower_from_state, (self.period, self._last_tick, self._discontinuities))


def _follower_from_state(period, last_tick, discontinuities):
    cdef ClockFollower f = ClockFollower(period, last_tick)
    f._discontinuities = discontinuities
    return f
