# The world clock: banking wall time into whole quanta, the stall guard, alpha, realized speed.


# The bank is held in quanta, as a double, and snapped to the nearest whole quantum when it
# lies within BANK_SNAP of one. Why not integer nanoseconds (Bevy's choice): fixed_dt itself is
# rarely a whole number of nanoseconds (1/120 s is 8333333.3 ns), so a nanosecond bank rounds
# the quantum and, over enough frames, invents or loses quanta. A bank in quanta divides
# wall_dt * scale by fixed_dt once per call; for the ratios hosts use (1/60 over 1/120, 1/60
# over 0.01) the quotient is within a few ulps of the true rational, and the snap turns
# 1.9999999999999998 into 2 instead of 1. Live advances keep only the fraction in the bank,
# so its absolute error stays near 1e-16 however long the run; each snap moves it by at most
# BANK_SNAP, far inside the conservation law's one quantum over 10**6 advances.
#
# A quotient's rounding error grows with its size: at 2**34 quanta a frame (fixed_dt 1e-6 at
# scale 1e6) one ulp is 4e-6 quanta, which 10**6 frames add up to more than a quantum. So a
# frame of EXACT_QUANTA or more quanta computes its quotient exactly, as a double-double
# (Dekker's error-free product, then one correction of the division), and keeps the whole
# part and the fraction apart; below that, one rounding costs at most 1.5e-11 quanta a frame.
cdef double BANK_SNAP = 1e-9
cdef object _CONDITION_LOCK = threading.Lock()
cdef double EXACT_QUANTA = 65536.0
cdef double DEKKER_SPLIT = 134217729.0   # 2**27 + 1


cdef inline double _two_product_error(double a, double b, double p) noexcept:
    """The rounding error of ``p = a * b``: a * b == p + error exactly (Dekker, no FMA)."""
    cdef double t = DEKKER_SPLIT * a
    cdef double ah = t - (t - a)
    cdef double al = a - ah
    t = DEKKER_SPLIT * b
    cdef double bh = t - (t - b)
    cdef double bl = b - bh
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl


cdef double _bank_exact(double bank, double wall_dt, double scale, double fixed_dt,
                        double q, int64_t *whole) noexcept:
    """``bank + wall_dt * scale / fixed_dt`` split exactly into ``whole`` and the returned
    fraction in [0, 1), for a quotient ``q`` (its rounded value) of EXACT_QUANTA or more."""
    cdef double p = wall_dt * scale
    cdef double p_err = _two_product_error(wall_dt, scale, p)
    cdef double m = q * fixed_dt
    # p + p_err - q * fixed_dt, exactly enough: the first difference is exact (Sterbenz).
    cdef double rest = ((p - m) - _two_product_error(q, fixed_dt, m)) + p_err
    cdef double w = floor(q)
    cdef double b = bank + ((q - w) + rest / fixed_dt)
    cdef double nearest = floor(b + 0.5)
    if fabs(b - nearest) <= BANK_SNAP:
        b = nearest
    cdef double carry = floor(b)
    whole[0] = <int64_t>w + <int64_t>carry
    return b - carry


cdef class WorldClock:
    """WorldClock(config=None)
--

One notion of simulation time: an integer tick advanced in whole quanta.

    Parameters
    ----------
    config : ClockConfig, optional
        The configuration; ``ClockConfig()`` when omitted.

    Notes
    -----
    World time is ``t = tick * fixed_dt``, computed, never accumulated. One driver calls the
    advancing methods (``advance``, ``advance_ticks``, ``step_once``); followers read ``tick``.
    """

    # configuration
    cdef double _fixed_dt
    cdef double _scale
    cdef int64_t _max_steps
    cdef bint _cap_scales
    cdef int64_t _lockstep_steps
    cdef int _mode
    # world time and the bank
    cdef int64_t _tick
    cdef object _tick_int        # the Python int of tick _tick_int_of, made by the last read
    cdef int64_t _tick_int_of
    cdef object _t_float         # likewise for t and alpha
    cdef double _t_float_of
    cdef object _alpha_float
    cdef double _alpha_float_of
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
    cdef object _cond            # made by the first wait_for_tick_change: most clocks never wait
    cdef int _waiters
    # reentrancy guards
    cdef int _presenting         # threads inside presenting(), summed over _presenters
    cdef dict _presenters        # thread ident -> depth of presenting(); made at first entry
    cdef bint _running
    # timers: the queue of scheduled ones (timer_queue.pxi), the paused ones, creation order
    cdef TimerKey *_keys
    cdef Py_ssize_t _keys_cap
    cdef list _queue
    cdef object _paused_timers   # None, or a WeakSet: a paused timer nobody can resume is freed
    cdef int64_t _timer_seq


    def __cinit__(self):
        self._queue = []
        # The default configuration, so that even an instance made with __new__ is sane.
        self._fixed_dt = 1.0 / 120.0
        self._scale = 1.0
        self._max_steps = 8
        self._lockstep_steps = 1

    def __init__(self, config=None):
        self.configure(ClockConfig() if config is None else config)

    def __dealloc__(self):
        PyMem_Free(self._keys)

    # -- configuration -------------------------------------------------------------------

    def configure(self, config, /):
        """Replace the configuration and restart at tick 0.

        The bank, the dropped count, the realized-speed window and the frame count restart
        too; the mode is kept. Followers see a discontinuity and resynchronise; every timer
        ends (a timer's period in quanta may not survive a new quantum).
        """
        if not isinstance(config, ClockConfig):
            raise TypeError(f"config must be a ClockConfig, got {config!r}")
        self._check_can_advance()
        cdef ClockConfig cfg = <ClockConfig>config
        self._fixed_dt = cfg.fixed_dt
        self._scale = cfg.scale
        self._max_steps = cfg.max_steps_per_advance
        self._cap_scales = cfg.cap_scales_with_rate
        self._lockstep_steps = cfg.lockstep_steps
        self._tick = 0
        self._bank = 0.0
        self._alpha = 0.0
        self._owed = 0
        self._total_dropped = 0
        self._frame = 0
        self._window_wall = 0.0
        self._window_ticks = 0
        self._realized = 0.0
        self._window_done = False
        self._discontinuities += 1
        _end_all_timers(self)
        self._notify()

    @property
    def config(self):
        """The current configuration, including values set on their own since ``configure``."""
        return ClockConfig(fixed_dt=self._fixed_dt, scale=self._scale,
                           max_steps_per_advance=self._max_steps,
                           cap_scales_with_rate=bool(self._cap_scales),
                           lockstep_steps=self._lockstep_steps)

    @property
    def fixed_dt(self):
        """The quantum in seconds (set with ``configure``)."""
        return self._fixed_dt

    @property
    def scale(self):
        """World seconds per wall second in live mode; 0 pauses. Settable without a restart."""
        return self._scale

    @scale.setter
    def scale(self, value):
        self._scale = _as_scale(value)

    @property
    def max_steps_per_advance(self):
        """The stall guard's cap on quanta per ``advance``. Settable without a restart."""
        return self._max_steps

    @max_steps_per_advance.setter
    def max_steps_per_advance(self, value):
        self._max_steps = _as_count(value, "max_steps_per_advance", 1, MAX_STEPS_PER_CALL)

    @property
    def lockstep_steps(self):
        """Quanta per ``advance`` in lockstep mode. Settable without a restart."""
        return self._lockstep_steps

    @lockstep_steps.setter
    def lockstep_steps(self, value):
        self._lockstep_steps = _as_count(value, "lockstep_steps", 1, MAX_STEPS_PER_CALL)

    @property
    def mode(self):
        """The current ``Mode``; set it with a ``Mode`` or its name."""
        return _MODES[self._mode]

    @mode.setter
    def mode(self, value):
        self._set_mode(_mode_index(value))

    cdef int _set_mode(self, int mode) except -1:
        self._mode = mode
        # alpha is the bank's fraction in live mode, 0 in the inspecting modes, and frozen
        # at its last value while paused.
        if mode == MODE_LIVE:
            self._alpha = self._bank
        elif mode != MODE_PAUSED:
            self._alpha = 0.0
        return 0

    # -- observability -------------------------------------------------------------------

    @property
    def tick(self):
        """The authoritative integer world time, in quanta."""
        # Hand out one int per tick rather than a new one per read: followers, timers and
        # the renderer read the tick many times a frame.
        if self._tick_int is None or self._tick_int_of != self._tick:
            self._tick_int = self._tick
            self._tick_int_of = self._tick
        return self._tick_int

    @property
    def t(self):
        """World seconds: ``tick * fixed_dt``."""
        cdef double t = self._tick * self._fixed_dt
        if self._t_float is None or self._t_float_of != t:   # one float per value, as tick
            self._t_float = t
            self._t_float_of = t
        return self._t_float

    @property
    def alpha(self):
        """Fraction of a quantum banked (live), 0 (lockstep, stepping, replay), frozen (paused)."""
        if self._alpha_float is None or self._alpha_float_of != self._alpha:
            self._alpha_float = self._alpha
            self._alpha_float_of = self._alpha
        return self._alpha_float

    @property
    def total_dropped(self):
        """Quanta the stall guard dropped since ``configure`` (and owed quanta discarded by
        ``drop_owed``)."""
        return self._total_dropped

    @property
    def frame(self):
        """``advance`` calls since ``configure``: the current frame."""
        return self._frame

    @property
    def discontinuities(self):
        """How many times the clock was configured or sought to another tick.

        Followers compare it with the count they last saw to resynchronise.
        """
        return self._discontinuities

    @property
    def realized_scale(self):
        """World seconds ``advance`` ran per supplied wall second.

        Over the last completed window of at least 0.5 wall seconds; before the first window
        completes, the running figure; 0.0 before any wall time.
        """
        if self._window_done:
            return self._realized
        if self._window_wall > 0.0:
            return self._window_ticks * self._fixed_dt / self._window_wall
        return 0.0

    def wait_for_tick_change(self, tick, timeout=None):
        """Block until ``self.tick != tick``, with the GIL released.

        Parameters
        ----------
        tick : int
            The tick the caller last saw.
        timeout : float or None
            Seconds to wait at most; None waits for ever.

        Returns
        -------
        int or None
            The new tick, or None on timeout.
        """
        cdef int64_t seen = _as_count(tick, "tick", -MAX_COUNT)
        if timeout is not None:
            timeout = _as_seconds(timeout, "timeout", 0.0)
            if timeout > threading.TIMEOUT_MAX:
                timeout = None   # longer than the platform can wait: for ever
        if self._tick != seen:
            return self._tick
        cond = self._condition()
        with cond:
            self._waiters += 1
            try:
                if not cond.wait_for(lambda: self._tick != seen, timeout):
                    return None
            finally:
                self._waiters -= 1
        return self._tick

    cdef object _condition(self):
        """The condition waiters sleep on, made once; the lock keeps two threads from each
        making one (and one of them waiting where no notify comes)."""
        if self._cond is None:
            with _CONDITION_LOCK:
                if self._cond is None:
                    self._cond = threading.Condition(threading.Lock())
        return self._cond

    cdef int _notify(self) except -1:
        """Wake the threads in ``wait_for_tick_change``; free when none waits."""
        if self._waiters:
            with self._cond:
                self._cond.notify_all()
        return 0

    # -- advancing -------------------------------------------------------------------------

    @property
    def can_advance(self):
        """False where an advancing call would raise: on a thread inside ``presenting()``, or
        inside a timer callback. Lets a caller refuse before it changes anything else."""
        return not (self._running or self._presenting_here())

    cdef bint _presenting_here(self) except -1:
        return self._presenting and threading.get_ident() in self._presenters

    cdef int _check_can_advance(self) except -1:
        if self._presenting_here():
            raise RuntimeError("the clock cannot advance inside presenting(): "
                               "presentation costs zero world time")
        if self._running:
            raise RuntimeError("the clock cannot advance from inside a timer callback")
        return 0

    def advance(self, wall_dt, /):
        """Advance by ``wall_dt`` wall seconds, as the mode says.

        live: bank ``wall_dt * scale`` and run the whole quanta, at most the stall guard's cap;
        the rest are dropped and counted. lockstep: run ``lockstep_steps`` quanta. paused,
        stepping, replay: run nothing.

        Parameters
        ----------
        wall_dt : float
            Wall seconds since the last call; finite and non-negative.

        Returns
        -------
        StepResult
        """
        cdef double d, q, b = self._bank
        cdef int64_t whole, cap, steps = 0, dropped = 0, first
        if type(wall_dt) is float:
            d = wall_dt
            if not (d >= 0.0 and d <= 1e300):   # also rejects NaN
                _as_seconds(wall_dt, "wall_dt", 0.0)
        else:
            d = _as_seconds(wall_dt, "wall_dt", 0.0)
        if self._presenting or self._running:
            self._check_can_advance()
        if self._mode == MODE_LIVE:
            q = d * self._scale / self._fixed_dt
            if q > MAX_QUANTA:
                raise ValueError(f"wall_dt={wall_dt!r} at scale {self._scale!r} spans more "
                                 f"than 2**52 quanta of {self._fixed_dt!r} s")
            if q < EXACT_QUANTA:
                b = b + q
                # b >= 0 and < 2**17, so truncating to int64 is floor: no libm call.
                whole = <int64_t>(b + 0.5)
                if fabs(b - <double>whole) <= BANK_SNAP:
                    b = <double>whole
                whole = <int64_t>b
                b = b - <double>whole
            else:
                b = _bank_exact(b, d, self._scale, self._fixed_dt, q, &whole)
            cap = self._max_steps
            if self._cap_scales and self._scale > 1.0:
                cap = <int64_t>fmin(<double>self._max_steps * ceil(self._scale), MAX_QUANTA)
            if whole > cap:
                steps = cap
                dropped = whole - cap
            else:
                steps = whole
        elif self._mode == MODE_LOCKSTEP:
            steps = self._lockstep_steps
        _grant(self, steps, "advance")   # the only check that can fail after validation
        if self._mode == MODE_LIVE:
            self._bank = b
            self._alpha = b
            # Saturates rather than wrapping: past 2**62 it reads "at least that many".
            self._total_dropped = min(self._total_dropped + dropped, MAX_COUNT)
        self._frame += 1
        self._window_wall += d
        self._window_ticks += steps
        if self._window_wall >= 0.5:
            self._realized = self._window_ticks * self._fixed_dt / self._window_wall
            self._window_done = True
            self._window_wall = 0.0
            self._window_ticks = 0
        first = self._tick
        if self._mode == MODE_LIVE or self._mode == MODE_LOCKSTEP:   # the others run nothing
            _run(self, self._owed)
        return _step_result(self, first, dropped)

    def advance_ticks(self, n, /):
        """Run exactly ``n`` quanta now, in any mode, with no cap (batch).

        Quanta still owed (see ``owed``) are the first of the ``n``.

        Returns
        -------
        StepResult
        """
        cdef int64_t count = _as_count(n, "n", 0)
        self._check_can_advance()
        cdef int64_t first = self._tick
        if count > self._owed:
            _grant(self, count - self._owed, "advance_ticks")
        _run(self, count)
        return _step_result(self, first, 0)

    def step_once(self):
        """Run exactly one quantum, in any mode (an owed one, if any is owed).

        Returns
        -------
        StepResult
        """
        self._check_can_advance()
        cdef int64_t first = self._tick
        if not self._owed:
            _grant(self, 1, "step_once")
        _run(self, 1)
        return _step_result(self, first, 0)

    @property
    def owed(self):
        """Quanta granted but not yet run, because a timer callback raised mid-call.

        The next ``advance`` in live or lockstep mode runs them first, outside the cap;
        ``advance_ticks(n)`` and ``step_once()`` count them among the quanta they run;
        ``advance`` in paused, stepping or replay mode runs nothing and keeps them.
        ``drop_owed()`` discards them; ``configure`` and ``seek_tick`` clear them.
        """
        return self._owed

    def drop_owed(self):
        """Discard the owed quanta, counting them in ``total_dropped``; return how many.

        Timers still due at the current tick (after the one whose callback raised) stay due.
        """
        self._check_can_advance()
        cdef int64_t n = self._owed
        self._owed = 0
        self._total_dropped = min(self._total_dropped + n, MAX_COUNT)
        return n

    def seek_tick(self, n, /):
        """Position the clock at tick ``n``; replay mode only.

        Seeking to another tick is a discontinuity: followers resynchronise and owe nothing
        for the ticks skipped. Seeking to the current tick changes nothing.
        """
        cdef int64_t target = _as_count(n, "n", 0)
        if self._mode != MODE_REPLAY:
            raise ValueError(f"seek_tick(n={n!r}) needs replay mode; the clock is in "
                             f"{_MODES[self._mode].value!r} mode")
        self._check_can_advance()
        if target == self._tick:
            return
        self._tick = target
        self._owed = 0
        self._discontinuities += 1
        _realign_timers(self)
        self._notify()

    # -- state -----------------------------------------------------------------------------

    def state(self):
        """Everything that decides this clock's future, as an immutable ``ClockState``.

        The configuration, mode, tick, bank, alpha, owed quanta, counters, the realized-speed
        window and each scheduled or paused timer's schedule. ``restore`` puts it back.
        """
        return _take_state(self)

    def restore(self, state, /):
        """Put the clock back exactly as it was when ``state`` was taken, in any mode.

        Counts one discontinuity: followers' next ``take`` returns 0 and resynchronises
        them to the restored tick. Timers are matched to their handles by identity; a
        state whose timers differ from the clock's live ones (made by another clock, or
        timers made since and still live here) is refused with a ValueError naming them,
        and nothing changes. Timers that ended since the state was taken live again.
        """
        self._check_can_advance()
        _check_restorable(self, state, False)
        cdef ClockState s = <ClockState>state
        _put_state(self, s, max(self._discontinuities, s.discontinuities) + 1)

    def __reduce__(self):
        # The state goes in the third slot so that timers referring back to this clock
        # find it already made (pickle and deepcopy handle the cycle that way).
        return (_new_clock, (type(self),), _take_state(self))

    def __setstate__(self, state):
        """Fill a clock being unpickled or deep-copied; a copy is exact, discontinuities too."""
        self._check_can_advance()
        _check_restorable(self, state, True)
        _put_state(self, <ClockState>state, (<ClockState>state).discontinuities)

    def __copy__(self):
        raise TypeError("a shallow copy of a WorldClock would share its timers; "
                        "use copy.deepcopy, or state() and restore()")

    # -- timers ----------------------------------------------------------------------------

    def every(self, interval, callback, *, catch_up="each"):
        """Call ``callback`` every ``interval`` world seconds, a whole number of quanta.

        Parameters
        ----------
        interval : float
            The period in seconds; ``ticks_per_step(interval, fixed_dt)`` quanta.
        callback : callable
            ``callback(tick)``, or ``callback(tick, count)`` with ``catch_up="coalesce"``.
        catch_up : {"each", "coalesce"}
            "each" fires once per elapsed interval however wide the advance; "coalesce"
            fires at most once per advancing call, at the last due tick it covered, with the
            number of intervals covered.

        Returns
        -------
        Timer
        """
        cdef int64_t k = _whole_quanta(interval, self._fixed_dt, "interval")
        return _make_timer(self, k, k, callback, catch_up, "interval")

    def after(self, delay, callback):
        """Call ``callback(tick)`` once, ``delay`` world seconds (whole quanta) from now."""
        cdef int64_t k = _whole_quanta(delay, self._fixed_dt, "delay")
        return _make_timer(self, 0, k, callback, "each", "delay")

    def every_ticks(self, k, callback, *, catch_up="each"):
        """Call ``callback`` every ``k`` quanta; see ``every``."""
        cdef int64_t period = _as_count(k, "k", 1)
        return _make_timer(self, period, period, callback, catch_up, "k")

    def after_ticks(self, k, callback):
        """Call ``callback(tick)`` once, ``k`` quanta from now."""
        cdef int64_t delay = _as_count(k, "k", 1)
        return _make_timer(self, 0, delay, callback, "each", "k")

    @property
    def next_due_tick(self):
        """The tick of the next active timer, or None: a headless harness can jump straight
        to it with ``advance_ticks(next_due_tick - tick)``."""
        return self._keys[0].due if self._queue else None

    def presenting(self):
        """A context manager marking render code: presentation costs zero world time.

        Inside it any advancing call (and ``configure``, ``seek_tick``) raises RuntimeError;
        reading ``tick``, ``t``, ``alpha`` and followers' alphas is what it is for.
        """
        cdef Presentation p = Presentation.__new__(Presentation)
        p._clock = self
        return p


# The advancing calls' shared steps, as inline functions rather than methods: the hot path
# then makes no vtable calls.

cdef inline int _grant(WorldClock clock, int64_t n, str call) except -1:
    """Owe n more quanta, refusing any that would take the tick past 2**62."""
    if n > MAX_COUNT - clock._tick - clock._owed:
        raise ValueError(f"{call} of {n} quanta would take the tick past 2**62 "
                         f"(tick {clock._tick})")
    clock._owed += n
    return 0


cdef inline int _run(WorldClock clock, int64_t n) except -1:
    """Run ``n`` of the quanta granted (``_owed``, at least ``n``)."""
    if clock._queue and clock._keys[0].due <= clock._tick + n:
        return _run_firing_timers(clock, n)
    if n:
        clock._tick += n
        clock._owed -= n
        if clock._waiters:
            clock._notify()
    return 0


cdef int _run_firing_timers(WorldClock clock, int64_t n) except -1:
    """Run ``n`` granted quanta, firing timers at their due ticks on the way.

    If a callback raises, the clock stays at its due tick and the rest (the quanta, and
    timers due at that tick after it) stays owed to the next advancing call.
    """
    cdef int64_t target = clock._tick + n
    cdef int64_t rest = clock._owed - n      # owed still after this run
    cdef Timer timer
    cdef int64_t due
    try:
        while clock._queue and clock._keys[0].due <= target:
            timer = <Timer>clock._queue[0]
            due = clock._keys[0].due
            clock._tick = due
            clock._owed = rest + (target - due)
            _fire(clock, timer, due, target)
        clock._tick = target
        clock._owed = rest
    finally:
        clock._notify()
    return 0


cdef inline StepResult _step_result(WorldClock clock, int64_t first, int64_t dropped):
    """The value an advancing call returns: the quanta since ``first``, and the clock's alpha."""
    cdef StepResult r = StepResult.__new__(StepResult)
    r.steps = clock._tick - first
    r.first_tick = first
    r.dropped = dropped
    r.alpha = clock._alpha
    r._made = True
    return r
