# The world clock: banking wall time into whole quanta, the stall guard, alpha, realized speed.


# The bank is held in quanta, as a double, with a snap to whole quanta and an exact path for
# frames of 65,536 quanta or more: banking.h says why, and holds the arithmetic, which the
# ClockBank's loops share.
cdef object _CONDITION_LOCK = threading.Lock()


def _bank_live(bank, wall_dt, scale, fixed_dt, max_steps_per_advance, cap_scales_with_rate):
    """banking.h's cvc_bank_live, for the tests: (steps, dropped, new bank) of a live advance
    by ``wall_dt`` on a bank of ``bank`` quanta, the arguments checked as the clock's are."""
    cdef double b = _as_fraction(bank, "bank")
    cdef double d = _as_wall_dt(wall_dt)
    cdef double s = _as_scale(scale)
    cdef double f = _as_fixed_dt(fixed_dt)
    cdef int64_t cap = _as_steps(max_steps_per_advance, "max_steps_per_advance")
    cdef bint scales = _as_bool(cap_scales_with_rate, "cap_scales_with_rate")
    if cvc_quanta(d, s, f) > MAX_QUANTA:
        _raise_too_wide(wall_dt, s, f, "")
    cdef cvc_banked banked = cvc_bank_live(b, d, s, f, cap, scales)
    return banked.steps, banked.dropped, banked.bank


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
    World time is ``t = tick * fixed_dt``, computed, never accumulated. One driver thread at
    a time calls the advancing methods (``advance``, ``advance_ticks``, ``step_once``) and
    the others that change the clock or its timers; any thread may read ``tick``, ``t`` and
    ``alpha``, take its own followers and ``wait_for_tick_change``. On a free-threaded
    CPython such a driver call made while another thread is inside one raises RuntimeError.
    """

    # Who may touch each field from which thread: see threads.pxi. "driver" fields are
    # written by the driver only; "any thread reads" ones are single words, or read under the
    # clock's critical section where two must agree.
    # configuration: driver; any thread reads fixed_dt (with tick, under the critical section)
    cdef double _fixed_dt
    cdef double _scale
    cdef int64_t _max_steps
    cdef bint _cap_scales
    cdef int64_t _lockstep_steps
    cdef int _mode
    cdef int _resume_mode        # the mode resume() returns to: while paused, the one it left;
                                 # otherwise _mode itself (so equal states mean equal futures)
    # world time and the bank: driver; any thread reads tick and alpha
    cdef int64_t _tick
    cdef object _tick_int        # the Python int of tick _tick_int_of, made by the last read;
    cdef int64_t _tick_int_of    # GIL builds only: without it two readers would race on it
    cdef object _t_float         # likewise for t and alpha
    cdef double _t_float_of
    cdef object _alpha_float
    cdef double _alpha_float_of
    cdef double _bank            # wall time banked, in quanta; see banking.h
    cdef double _alpha
    cdef int64_t _owed           # quanta granted but not yet run (a timer callback raised)
    # observability: driver; any thread reads discontinuities (with tick, under the critical
    # section, against configure, seek_tick and restore, which write both under it)
    cdef int64_t _total_dropped
    cdef int64_t _frame
    cdef int64_t _discontinuities
    cdef double _window_wall
    cdef int64_t _window_ticks
    cdef double _realized
    cdef bint _window_done
    # waiting followers: any thread, under _CONDITION_LOCK (_cond) and _cond itself (_waiters)
    cdef object _cond            # made by the first wait_for_tick_change: most clocks never wait
    cdef int _waiters
    # reentrancy guards: _presenting and _presenters are any thread's, under the clock's
    # critical section (presentation.pxi); _running is the driver's
    cdef int _presenting         # threads inside presenting(), summed over _presenters
    cdef dict _presenters        # thread ident -> depth of presenting(); made at first entry
    cdef bint _running
    # free-threaded builds: the thread inside a driver call, 0 if none (threads.pxi)
    cdef uintptr_t _driver
    # timers: the queue of scheduled ones (timer_queue.pxi), the paused ones, creation order;
    # driver only, like each Timer's fields
    cdef TimerKey *_keys         # the near heap (timer_queue.pxi): its keys,
    cdef PyObject **_items       # its timers (the queue's references),
    cdef Py_ssize_t _heap_n      # how many,
    cdef Py_ssize_t _heap_cap    # and room for how many, counted from the room's start,
    cdef Py_ssize_t _heap_lo     # which lies this many places before _keys and _items;
    cdef bint _heap_sorted       # and whether it is sorted (timer_queue.pxi)
    cdef _Wheel *_wheel          # the later timers (timer_wheel.pxi); NULL until the first timer
    cdef object _paused_timers   # None, or a WeakSet: a paused timer nobody can resume is freed
    cdef int64_t _timer_seq


    def __cinit__(self):
        # The default configuration, so that even an instance made with __new__ is sane.
        self._fixed_dt = 1.0 / 120.0
        self._scale = 1.0
        self._max_steps = 8
        self._lockstep_steps = 1

    def __init__(self, config=None):
        self.configure(ClockConfig() if config is None else config)

    def __dealloc__(self):
        _queue_release(self, True)
        PyMem_Free(self._wheel)

    # -- configuration -------------------------------------------------------------------

    def configure(self, config, /):
        """Replace the configuration and restart at tick 0.

        The bank, the dropped count, the realized-speed window and the frame count restart
        too; the mode is kept, and so is the mode a paused clock resumes to (the pause is
        the host's, not the configuration's). Followers see a discontinuity and
        resynchronise; every timer ends (a timer's period in quanta may not survive a new
        quantum).
        """
        if not isinstance(config, ClockConfig):
            raise TypeError(f"config must be a ClockConfig, got {config!r}")
        cdef ClockConfig cfg = <ClockConfig>config
        cdef int claimed = _claim(self, "configure")
        try:
            self._check_can_advance()
            with cython.critical_section(self):   # readers see the old (tick, t, count) or the new
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
        finally:
            _release(self, claimed)

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
        cdef double scale = _as_scale(value)
        cdef int claimed = _claim(self, "scale")
        self._scale = scale
        _release(self, claimed)

    @property
    def max_steps_per_advance(self):
        """The stall guard's cap on quanta per ``advance``. Settable without a restart."""
        return self._max_steps

    @max_steps_per_advance.setter
    def max_steps_per_advance(self, value):
        cdef int64_t cap = _as_steps(value, "max_steps_per_advance")
        cdef int claimed = _claim(self, "max_steps_per_advance")
        self._max_steps = cap
        _release(self, claimed)

    @property
    def lockstep_steps(self):
        """Quanta per ``advance`` in lockstep mode. Settable without a restart."""
        return self._lockstep_steps

    @lockstep_steps.setter
    def lockstep_steps(self, value):
        cdef int64_t steps = _as_steps(value, "lockstep_steps")
        cdef int claimed = _claim(self, "lockstep_steps")
        self._lockstep_steps = steps
        _release(self, claimed)

    @property
    def mode(self):
        """The current ``Mode``; set it with a ``Mode`` or its name."""
        return _MODES[self._mode]

    @mode.setter
    def mode(self, value):
        cdef int mode = _mode_index(value)
        cdef int claimed = _claim(self, "mode")
        self._set_mode(mode)
        _release(self, claimed)

    cdef int _set_mode(self, int mode) noexcept:
        # Entering paused keeps _resume_mode, which then still names the mode it left.
        if mode != MODE_PAUSED:
            self._resume_mode = mode
        self._mode = mode
        # alpha is the bank's fraction in live mode, 0 in the inspecting modes, and frozen
        # at its last value while paused.
        if mode == MODE_LIVE:
            self._alpha = self._bank
        elif mode != MODE_PAUSED:
            self._alpha = 0.0
        return 0

    @property
    def paused(self):
        """Whether the clock is in paused mode (by ``pause()`` or by ``mode = "paused"``)."""
        return self._mode == MODE_PAUSED

    def pause(self):
        """Enter paused mode, remembering the mode it leaves for ``resume()``.

        As ``mode = "paused"`` does: ``advance`` runs nothing and alpha stays frozen;
        ``advance_ticks`` and ``step_once`` still run quanta. Pausing a paused clock changes
        nothing (it still resumes to the mode it was first paused from).
        """
        cdef int claimed = _claim(self, "pause")
        self._set_mode(MODE_PAUSED)
        _release(self, claimed)

    def resume(self):
        """Leave paused mode for the mode it was paused from; nothing if not paused.

        The mode is the one the clock was in when it entered paused mode, by ``pause()`` or
        by ``mode = "paused"``; live for a clock that was never in another. Alpha then
        follows that mode, as the ``mode`` setter's does.
        """
        cdef int claimed = _claim(self, "resume")
        if self._mode == MODE_PAUSED:
            self._set_mode(self._resume_mode)
        _release(self, claimed)

    # -- observability -------------------------------------------------------------------

    @property
    def tick(self):
        """The authoritative integer world time, in quanta."""
        if CVC_FREE_THREADED:
            return self._tick    # no cache: two readers would race on it
        # Hand out one int per tick rather than a new one per read: followers, timers and
        # the renderer read the tick many times a frame.
        if self._tick_int is None or self._tick_int_of != self._tick:
            self._tick_int = self._tick
            self._tick_int_of = self._tick
        return self._tick_int

    @property
    def t(self):
        """World seconds: ``tick * fixed_dt``."""
        cdef double t
        with cython.critical_section(self):   # a tick and a quantum of one configuration
            t = self._tick * self._fixed_dt
        if CVC_FREE_THREADED:
            return t
        if self._t_float is None or self._t_float_of != t:   # one float per value, as tick
            self._t_float = t
            self._t_float_of = t
        return self._t_float

    @property
    def alpha(self):
        """Fraction of a quantum banked (live), 0 (lockstep, stepping, replay), frozen (paused)."""
        if CVC_FREE_THREADED:
            return self._alpha
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
        timeout = check_timeout(timeout)   # longer than the platform can wait: None, for ever
        if self._tick != seen:
            return self._tick
        cond = self._condition()
        with cond:
            self._waiters += 1
            cvc_fence()   # register before looking at the tick: see _has_waiters
            try:
                if not cond.wait_for(lambda: self._tick != seen, timeout):
                    return None
            finally:
                self._waiters -= 1
        return self._tick

    cdef object _condition(self):
        """The condition waiters sleep on, made once; the lock keeps two threads from each
        making one (and one of them waiting where no notify comes). Read under the lock too:
        without the GIL, a thread that did not make it may not yet see it whole otherwise."""
        with _CONDITION_LOCK:
            if self._cond is None:
                self._cond = threading.Condition(threading.Lock())
            return self._cond

    cdef int _notify(self) except -1:
        """Wake the threads in ``wait_for_tick_change``; free when none waits."""
        if _has_waiters(self):
            cond = self._condition()
            with cond:
                cond.notify_all()
        return 0

    def __repr__(self):
        # Plain fields only, so that it never raises (an instance made with __new__ has the
        # default configuration); the tick and quantum of one configuration, as t reads them.
        cdef int64_t tick
        cdef double fixed_dt
        with cython.critical_section(self):
            tick, fixed_dt = self._tick, self._fixed_dt
        extra = f" scale={self._scale!r}" if self._scale != 1.0 else ""
        if self._mode == MODE_PAUSED:
            extra += f" resume_mode={_MODES[self._resume_mode].value!r}"
        return (f"<{type(self).__name__} tick={tick} t={tick * fixed_dt!r} "
                f"mode={_MODES[self._mode].value!r} fixed_dt={fixed_dt!r}{extra}>")

    # -- advancing -------------------------------------------------------------------------

    @property
    def can_advance(self):
        """False where an advancing call would raise: on a thread inside ``presenting()``, or
        inside a timer callback. Lets a caller refuse before it changes anything else."""
        return not (self._running or self._presenting_here())

    cdef bint _presenting_here(self) except -1:
        if not self._presenting:
            return False   # this thread's own entries are always visible to it
        with cython.critical_section(self):   # _presenters as the last entry left it
            return self._presenters is not None and threading.get_ident() in self._presenters

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
        cdef double d
        cdef int64_t steps = 0, dropped = 0, first
        cdef cvc_banked banked
        cdef int claimed = _claim(self, "advance")
        try:
            if type(wall_dt) is float:
                d = wall_dt
                if not (d >= 0.0 and d <= 1e300):   # also rejects NaN
                    _as_wall_dt(wall_dt)
            else:
                d = _as_wall_dt(wall_dt)
            if self._presenting or self._running:
                self._check_can_advance()
            # Each mode grants its quanta (the only check that can fail after validation)
            # before it changes anything; the live path is whole in its branch, which keeps
            # the bank in a register from the arithmetic to the store (the hot path).
            if self._mode == MODE_LIVE:
                if cvc_quanta(d, self._scale, self._fixed_dt) > MAX_QUANTA:
                    _raise_too_wide(wall_dt, self._scale, self._fixed_dt, "")
                banked = cvc_bank_live(self._bank, d, self._scale, self._fixed_dt,
                                       self._max_steps, self._cap_scales)
                steps = banked.steps
                dropped = banked.dropped
                _grant(self, steps, "advance")
                self._bank = banked.bank
                self._alpha = banked.bank
                # Saturates rather than wrapping: past 2**62 it reads "at least that many".
                self._total_dropped = min(self._total_dropped + dropped, MAX_COUNT)
            elif self._mode == MODE_LOCKSTEP:
                steps = self._lockstep_steps
                _grant(self, steps, "advance")
            self._frame += 1
            self._window_wall += d
            self._window_ticks += steps
            if self._window_wall >= WINDOW_WALL:
                self._realized = self._window_ticks * self._fixed_dt / self._window_wall
                self._window_done = True
                self._window_wall = 0.0
                self._window_ticks = 0
            first = self._tick
            if self._mode == MODE_LIVE or self._mode == MODE_LOCKSTEP:   # the others run nothing
                _run(self, self._owed)
            return _step_result(self, first, dropped)
        finally:
            _release(self, claimed)

    def advance_ticks(self, n, /):
        """Run exactly ``n`` quanta now, in any mode, with no cap (batch).

        Quanta still owed (see ``owed``) are the first of the ``n``.

        Returns
        -------
        StepResult
        """
        return _run_exactly(self, _as_count(n, "n", 0), "advance_ticks")

    def step_once(self):
        """Run exactly one quantum, in any mode (an owed one, if any is owed).

        Returns
        -------
        StepResult
        """
        return _run_exactly(self, 1, "step_once")

    def advance_to_next_due(self):
        """Run the quanta up to the next scheduled timer's due tick, firing it (batch).

        ``advance_ticks(next_due_tick - tick)`` in one call, in any mode, with no cap: the
        quanta owed are the first of those it runs, and quanta owed beyond that tick stay
        owed. Timers still due at the current tick (left so by a callback that raised) fire
        first, then it runs on to the next due tick after them. With no timer scheduled it
        runs nothing and returns an empty result, so ``while clock.advance_to_next_due():``
        runs a headless harness until no timer is scheduled; a repeating timer never ends
        by itself, so cancel or pause it in a callback, or bound the loop by tick.

        Returns
        -------
        StepResult
            Falsy exactly when no quantum ran.

        Raises
        ------
        RuntimeError
            Inside ``presenting()`` or a timer callback, as ``advance_ticks``.
        """
        return _run_to_next_due(self)

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
        cdef int claimed = _claim(self, "drop_owed")
        cdef int64_t n
        try:
            self._check_can_advance()
            n = self._owed
            self._owed = 0
            self._total_dropped = min(self._total_dropped + n, MAX_COUNT)
        finally:
            _release(self, claimed)
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
        cdef int claimed = _claim(self, "seek_tick")
        try:
            self._check_can_advance()
            if target == self._tick:
                return
            with cython.critical_section(self):   # the tick and the count change together
                self._tick = target
                self._owed = 0
                self._discontinuities += 1
            _realign_timers(self)
            self._notify()
        finally:
            _release(self, claimed)

    # -- state -----------------------------------------------------------------------------

    def state(self):
        """Everything that decides this clock's future, as an immutable ``ClockState``.

        The configuration, mode, tick, bank, alpha, owed quanta, counters, the realized-speed
        window and each scheduled or paused timer's schedule. ``restore`` puts it back.
        """
        cdef int claimed = _claim(self, "state")
        try:
            return _take_state(self)
        finally:
            _release(self, claimed)

    def restore(self, state, /):
        """Put the clock back exactly as it was when ``state`` was taken, in any mode.

        Counts one discontinuity: followers' next ``take`` returns 0 and resynchronises
        them to the restored tick. Timers are matched to their handles by identity; a
        state whose timers differ from the clock's live ones (made by another clock, or
        timers made since and still live here) is refused with a ValueError naming them,
        and nothing changes. Timers that ended since the state was taken live again.
        """
        cdef int claimed = _claim(self, "restore")
        cdef ClockState s
        try:
            self._check_can_advance()
            _check_restorable(self, state, False)
            s = <ClockState>state
            _put_state(self, s, max(self._discontinuities, s.discontinuities) + 1)
        finally:
            _release(self, claimed)

    def __reduce__(self):
        # The state goes in the third slot so that timers referring back to this clock
        # find it already made (pickle and deepcopy handle the cycle that way). A subclass's
        # own attributes go with it: a copy that lost them would be another object.
        cdef int claimed = _claim(self, "pickling a clock")
        try:
            state = _take_state(self)
            attributes = getattr(self, "__dict__", None)
            return (_new_clock, (type(self),), (state, attributes) if attributes else state)
        finally:
            _release(self, claimed)

    def __setstate__(self, state):
        """Fill a clock being unpickled or deep-copied; a copy is exact, discontinuities too,
        and so are a subclass's own attributes (``state`` is then ``(ClockState, dict)``)."""
        cdef int claimed = _claim(self, "__setstate__")
        attributes = None
        try:
            if type(state) is tuple and len(state) == 2:
                state, attributes = state
                if type(attributes) is not dict or getattr(self, "__dict__", None) is None:
                    raise TypeError(f"a WorldClock state with attributes is (ClockState, dict) "
                                    f"for a subclass's instance, got {attributes!r} for "
                                    f"{type(self).__qualname__}")
            self._check_can_advance()
            _check_restorable(self, state, True)
            _put_state(self, <ClockState>state, (<ClockState>state).discontinuities)
            if attributes:
                self.__dict__.update(attributes)
        finally:
            _release(self, claimed)

    def __copy__(self):
        raise TypeError("a shallow copy of a WorldClock would share its timers; "
                        "use copy.deepcopy, or state() and restore()")

    # -- timers ----------------------------------------------------------------------------

    def cancel_all(self, callback, /):
        """Cancel every scheduled or paused timer whose callback equals ``callback``.

        Equality, not identity: ``clock.cancel_all(obj.method)`` cancels the timers made
        with any ``obj.method``, as pyglet's ``unschedule`` does. Safe inside a timer
        callback, that timer's own included.

        Parameters
        ----------
        callback : callable
            The callback to match.

        Returns
        -------
        int
            How many timers it cancelled.
        """
        check_callable(callback, "callback")
        cdef int claimed = _claim(self, "cancel_all")
        cdef Timer timer
        cdef int64_t n = 0
        try:
            # Compare them all before cancelling any: an __eq__ that raises changes nothing.
            matches = [timer for timer in _live_timers(self) if timer.callback == callback]
            for timer in matches:
                if timer._state != TIMER_ENDED:   # an __eq__ may have cancelled it already
                    _end_timer(self, timer)
                    n += 1
        finally:
            _release(self, claimed)
        return n

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
        """The tick of the next active timer, or None: ``advance_to_next_due()`` runs to it."""
        cdef int claimed = _claim(self, "next_due_tick")
        cdef int64_t due = self._keys[0].due if self._heap_n else -1
        _release(self, claimed)
        return due if due >= 0 else None

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

cdef inline StepResult _run_exactly(WorldClock clock, int64_t count, str call):
    """``advance_ticks(count)`` and ``step_once()``: run ``count`` quanta, the owed first."""
    cdef int64_t first
    cdef int claimed = _claim(clock, call)
    try:
        clock._check_can_advance()
        first = clock._tick
        if count > clock._owed:
            _grant(clock, count - clock._owed, call)
        _run(clock, count)
        return _step_result(clock, first, 0)
    finally:
        _release(clock, claimed)


cdef StepResult _run_to_next_due(WorldClock clock):
    """``advance_to_next_due()``: fire what is due now, then run to the next due tick."""
    cdef int64_t first, n
    cdef int claimed = _claim(clock, "advance_to_next_due")
    try:
        clock._check_can_advance()
        first = clock._tick
        if clock._heap_n and clock._keys[0].due <= clock._tick:
            _run(clock, 0)     # no timer a callback makes or resumes falls due at this tick
        if clock._heap_n:
            n = clock._keys[0].due - clock._tick
            if n > clock._owed:
                _grant(clock, n - clock._owed, "advance_to_next_due")
            _run(clock, n)
        return _step_result(clock, first, 0)
    finally:
        _release(clock, claimed)


cdef inline int _grant(WorldClock clock, int64_t n, str call) except -1:
    """Owe n more quanta, refusing any that would take the tick past 2**62."""
    if n > MAX_COUNT - clock._tick - clock._owed:
        raise ValueError(f"{call} of {n} quanta would take the tick past "
                         f"MAX_TICK ({MAX_COUNT}) "
                         f"(tick {clock._tick})")
    clock._owed += n
    return 0


cdef inline int _run(WorldClock clock, int64_t n) except -1:
    """Run ``n`` of the quanta granted (``_owed``, at least ``n``)."""
    if clock._heap_n and clock._keys[0].due <= clock._tick + n:
        return _run_firing_timers(clock, n)
    if n:
        clock._tick += n
        clock._owed -= n
        if _has_waiters(clock):
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
        while clock._heap_n and clock._keys[0].due <= target:
            timer = <Timer>clock._items[0]
            due = clock._keys[0].due
            clock._tick = due
            clock._owed = rest + (target - due)
            _fire(clock, timer, due, target)
            # Drop it before the next top is read, still inside the firing: if that was its
            # last reference, the code its release runs (a callback's __del__ cancelling the
            # next timer, say) must not find the top read already, nor advance the clock.
            clock._running = True
            timer = None
            clock._running = False
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
