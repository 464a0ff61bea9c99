# Timers: handles on the clock's timer queue (timer_queue.pxi), fired inside the advancing
# call that runs their due tick. A wide advance costs O(fired) (and a timer's moves between the
# wheel's levels, a few between firings): the loop jumps from due tick to due tick and never
# visits the quanta in between.

cdef enum:
    TIMER_SCHEDULED = 0
    TIMER_PAUSED = 1
    TIMER_ENDED = 2          # cancelled, spent (one-shot), or dropped by configure()

cdef tuple _CATCH_UPS = ("each", "coalesce")


cdef class Timer:
    """Timer()
--

A handle on a timer from ``WorldClock.every``, ``after``, ``every_ticks`` or ``after_ticks``.

    A timer made at tick T with period k falls due at T + k, T + 2k, … (a one-shot only at
    T + k). Pausing keeps that grid: a resumed timer owes nothing for the intervals it was
    paused through, and a one-shot paused past its due tick ends without firing.

    Attributes
    ----------
    callback : callable
        Called as ``callback(tick)`` (catch_up "each") or ``callback(tick, count)`` ("coalesce").
    fired : int
        How many times the callback has been called.

    Notes
    -----
    ``remaining_ticks``, ``remaining`` and ``fraction`` are a countdown for a cooldown bar
    (Bevy's ``Timer`` has them). While a timer is paused they hold their values from the
    moment it was paused; once resumed they count towards the tick ``resume()`` put it on
    (its grid's next tick, or a one-shot's own tick), which ``next_tick`` reports meanwhile.
    """

    # The driver's, like its clock's queue (threads.pxi): _clock and callback are set once;
    # the rest changes only inside driver calls, which claim the clock.
    # The fields the queue reads and writes as a timer moves come first, together: a pull
    # then touches one cache line of each Timer it files (timer_wheel.pxi).
    cdef int64_t _due            # the next due tick while scheduled or paused
    cdef int64_t _seq            # creation order, the tie-break at equal due ticks
    cdef int32_t _pos            # its place in the clock's queue; -1 while not queued
    cdef int16_t _slot           # its wheel bucket, or -1 in the near heap (or not queued)
    cdef uint8_t _state
    cdef uint8_t _coalesce
    cdef WorldClock _clock
    cdef readonly object callback
    cdef object __weakref__      # a paused timer is held by its handles only
    cdef int64_t _period         # 0 for a one-shot
    cdef int64_t _anchor         # the tick it was made at: it falls due at anchor + m * period
    cdef int64_t _pending        # scheduled: coalesce's intervals covered, to report at the
                                 # moved due tick; paused: the tick it was paused at
                                 # (remaining_ticks and fraction read as of then). A pause drops
                                 # the intervals, so one field holds both: a Timer and its share
                                 # of the queue then fit in 128 bytes.
    cdef readonly int64_t fired


    def __cinit__(self):
        self._state = TIMER_ENDED    # an instance made with __new__ is inert
        self._pos = -1
        self._slot = -1

    def __init__(self):
        raise TypeError("make timers with WorldClock.every, after, every_ticks or after_ticks")

    @property
    def period_ticks(self):
        """The period in quanta; None for a one-shot."""
        return self._period if self._period else None

    @property
    def next_tick(self):
        """The tick it falls due at next; None once it has ended. A paused timer reports the
        tick it would fall due at if resumed now (None for a one-shot paused past its tick)."""
        cdef int64_t due = self._due
        if self._state == TIMER_PAUSED:
            due = _resume_tick(self, self._clock._tick)
        return None if self._state == TIMER_ENDED or due < 0 else due

    @property
    def remaining_ticks(self):
        """Quanta until it next fires, as an int: 0 once it has ended, and 0 for a timer
        still due at the current tick (a callback before it raised). Frozen while paused
        at the countdown it had then (a one-shot paused past its tick ends on resume
        without firing)."""
        return _remaining_ticks(self)

    @property
    def remaining(self):
        """``remaining_ticks`` in world seconds, at the clock's ``fixed_dt``; 0.0 once ended."""
        cdef int64_t r = _remaining_ticks(self)
        return <double>r * self._clock._fixed_dt if r else 0.0

    @property
    def fraction(self):
        """The fraction of its current interval elapsed, in [0, 1], for a cooldown bar.

        0.0 when scheduled and just after each firing of a repeating timer, rising to 1.0 at
        its due tick: ``1 - remaining_ticks / span``, where span is the period (a one-shot:
        its delay). 1.0 once it has ended (fired, cancelled or ended by ``configure``).
        Frozen while paused.
        """
        cdef int64_t span
        if self._state == TIMER_ENDED:
            return 1.0
        span = self._period if self._period else self._due - self._anchor
        if span <= 0:
            return 1.0
        # min: a coalescing timer carried past several intervals is due further than span
        return <double>(span - min(_remaining_ticks(self), span)) / <double>span

    @property
    def active(self):
        """True while it is scheduled to fire: not paused, cancelled or spent."""
        return self._state == TIMER_SCHEDULED

    @property
    def paused(self):
        """True between ``pause()`` and ``resume()``."""
        return self._state == TIMER_PAUSED

    @property
    def catch_up(self):
        """``"each"`` or ``"coalesce"``."""
        return _CATCH_UPS[self._coalesce]

    def cancel(self):
        """Stop it for good; a cancelled timer never fires again. Cancelling twice is harmless."""
        if self._clock is None:
            return   # a bare handle (made with __new__): inert
        cdef int claimed = _claim(self._clock, "Timer.cancel")
        try:
            if self._state != TIMER_ENDED:
                _end_timer(self._clock, self)
        finally:
            _release(self._clock, claimed)

    def pause(self):
        """Stop it firing until ``resume()``; it keeps its grid."""
        if self._clock is None:
            return
        cdef int claimed = _claim(self._clock, "Timer.pause")
        try:
            if self._state == TIMER_SCHEDULED:
                _queue_remove(self._clock, self)
                self._state = TIMER_PAUSED
                self._pending = self._clock._tick     # the tick it was paused at
                if self._clock._paused_timers is None:
                    self._clock._paused_timers = weakref.WeakSet()
                self._clock._paused_timers.add(self)
        finally:
            _release(self._clock, claimed)

    def resume(self):
        """Put a paused timer back on its grid, at its first due tick after the current one."""
        cdef int64_t due
        if self._clock is None:
            return
        cdef int claimed = _claim(self._clock, "Timer.resume")
        try:
            if self._state != TIMER_PAUSED:
                return
            _forget_paused(self._clock, self)
            self._pending = 0                          # no intervals carried, nor a pause
            due = _resume_tick(self, self._clock._tick)
            if due < 0:
                self._state = TIMER_ENDED
            else:
                _queue_push(self._clock, self, due)
        finally:
            _release(self._clock, claimed)

    def __reduce_ex__(self, protocol):
        # Say which callback stops a clock from pickling, rather than pickle's bare error.
        # The trial leaves out the clocks and timers the callback reaches (a bound method of
        # the clock, say): the real pickler handles those, memo and cycles included, where
        # a trial of each would pickle the clock again, and its timers' trials again, until
        # the recursion limit.
        import pickle   # here: a frame loop that never pickles never imports it
        try:
            _trial_pickler(protocol).dump(self.callback)
        except Exception as exc:
            raise pickle.PicklingError(
                f"cannot pickle {self!r}: its callback {self.callback!r} does not pickle "
                f"({type(exc).__name__}: {exc})") from exc
        return (_new_timer, (), (self._clock, self.callback))

    def __setstate__(self, state):
        """Fill a bare handle being unpickled; its clock's state sets its schedule."""
        if not (isinstance(state, tuple) and len(state) == 2
                and isinstance(state[0], WorldClock) and callable(state[1])):
            raise TypeError(f"a Timer state is (WorldClock, callable), got {state!r}")
        clock, callback = state
        # Only a bare handle, or one its clock's __setstate__ adopted first (a Timer pickled
        # on its own), takes a state: a live handle never changes clock or callback.
        if self.callback is not None or self._clock not in (None, clock):
            raise TypeError("only a Timer being unpickled can be given a state")
        self._clock = clock
        self.callback = callback

    def __deepcopy__(self, memo):
        import copy
        cdef Timer t = Timer.__new__(Timer)
        memo[id(self)] = t
        t.callback = copy.deepcopy(self.callback, memo)
        if self._clock is not None:
            clock = copy.deepcopy(self._clock, memo)   # adopts t if it is live there
            if t._clock is None:
                t._clock = clock                       # an ended timer: inert on the copy
        return t

    def __copy__(self):
        raise TypeError("a Timer handle cannot be copied; copy its clock with copy.deepcopy")

    def __repr__(self):
        state = ("active", "paused", "ended")[self._state]
        return (f"<Timer {state} period_ticks={self.period_ticks} next_tick={self.next_tick} "
                f"fired={self.fired} catch_up={self.catch_up!r}>")


cdef inline int64_t _remaining_ticks(Timer timer) noexcept:
    """Quanta from now (or, paused, from the tick it was paused at) to its due tick."""
    cdef int64_t now
    if timer._state == TIMER_ENDED:
        return 0
    now = timer._pending if timer._state == TIMER_PAUSED else timer._clock._tick
    return max(timer._due - now, 0)    # never negative, even for a forged state's timer


cdef int _end_timer(WorldClock clock, Timer timer) except -1:
    """Cancel a timer that is scheduled or paused: it never fires again."""
    if timer._state == TIMER_SCHEDULED:
        _queue_remove(clock, timer)
    _forget_paused(clock, timer)
    timer._state = TIMER_ENDED
    return 0


cdef inline int _forget_paused(WorldClock clock, Timer timer) except -1:
    if clock._paused_timers is not None:
        clock._paused_timers.discard(timer)
    return 0


cdef int64_t _next_on_grid(Timer timer, int64_t after):
    """The first tick of the timer's grid (anchor + m * period, m >= 1) later than ``after``;
    -1 if that lies past 2**62, where no tick can reach."""
    cdef int64_t m = 1
    if after >= timer._anchor:
        m = (after - timer._anchor) // timer._period + 1
    if m > (MAX_COUNT - timer._anchor) // timer._period:
        return -1
    return timer._anchor + m * timer._period


cdef int64_t _resume_tick(Timer timer, int64_t now):
    """Where a paused timer lands if resumed at ``now``; -1 if nowhere (a one-shot whose
    tick passed, or a grid past 2**62)."""
    if timer._period:
        return _next_on_grid(timer, now)
    return timer._due if timer._due > now else -1


cdef Timer _make_timer(WorldClock clock, int64_t period, int64_t delay, object callback,
                       object catch_up, str name):
    check_callable(callback, "callback")
    if catch_up not in _CATCH_UPS:
        raise ValueError(f"catch_up must be 'each' or 'coalesce', got {catch_up!r}")
    cdef Timer timer = Timer.__new__(Timer)
    timer.callback = callback
    timer._period = period
    timer._coalesce = catch_up == "coalesce"
    cdef int claimed = _claim(clock, "making a timer")
    try:
        if delay > MAX_COUNT - clock._tick:
            raise ValueError(f"{name} of {delay} quanta from tick {clock._tick} falls past "
                             f"MAX_TICK ({MAX_COUNT})")
        timer._clock = clock
        timer._anchor = clock._tick
        timer._seq = clock._timer_seq
        clock._timer_seq += 1
        _queue_push(clock, timer, clock._tick + delay)
    finally:
        _release(clock, claimed)
    return timer


cdef int _fire(WorldClock clock, Timer timer, int64_t due, int64_t target) except -1:
    """Fire the timer at the top of the queue, due at ``due``, in a call running to ``target``."""
    cdef int64_t count = 1, beyond
    if timer._coalesce:
        # Intervals covered so far: those carried to this tick (by this call, or by an
        # earlier call a callback interrupted) or just this one.
        count = timer._pending if timer._pending else 1
        timer._pending = 0
        if timer._period:
            beyond = (target - due) // timer._period
            if beyond:
                # Fire once, at the last due tick this call covers, in due order there.
                timer._pending = count + beyond
                _queue_move_top(clock, due + beyond * timer._period)
                return 0
    timer.fired += 1
    if timer._period and timer._period <= MAX_COUNT - due:
        _queue_move_top(clock, due + timer._period)
    else:
        _queue_remove(clock, timer)
        timer._state = TIMER_ENDED   # a one-shot, or a grid whose next tick no tick reaches
    if clock._heap_n:                # the next firing's Timer, fetched while this one runs
        cvc_prefetch(<char*>clock._items[0] + sizeof(PyObject))
    clock._running = True
    try:
        if timer._coalesce:
            timer.callback(due, count)
        else:
            timer.callback(due)
    finally:
        clock._running = False
    return 0


cdef int _realign_timers(WorldClock clock) except -1:
    """After a seek: repeating timers move to their first grid tick after the new tick;
    one-shots whose tick was sought over end without firing. Seeking fires nothing."""
    cdef Timer timer
    cdef int64_t due
    for timer in _queue_clear(clock):
        timer._pending = 0
        due = _resume_tick(timer, clock._tick)
        if due < 0:
            timer._state = TIMER_ENDED
        else:
            _queue_push(clock, timer, due)
    return 0


cdef int _end_all_timers(WorldClock clock) except -1:
    """configure() is a restart: every timer ends."""
    cdef Timer timer
    for timer in _queue_clear(clock):
        timer._state = TIMER_ENDED
    for timer in list(clock._paused_timers or ()):
        timer._state = TIMER_ENDED
    clock._paused_timers = None
    return 0


def _trial_pickler(protocol):
    """A pickler to nowhere that takes clocks and timers as given (``persistent_id``): what
    a Timer's ``__reduce_ex__`` tries its callback with."""
    global _TrialPickler
    if _TrialPickler is None:
        import pickle

        class TrialPickler(pickle.Pickler):
            def persistent_id(self, obj):
                return id(obj) if isinstance(obj, (WorldClock, Timer)) else None

        _TrialPickler = TrialPickler
    return _TrialPickler(_Discard(), protocol)


_TrialPickler = None


class _Discard:
    """A file that keeps nothing: the trial needs only whether pickling succeeds."""

    def write(self, data):
        return len(data)
