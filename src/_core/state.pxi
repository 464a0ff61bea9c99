# The clock's state as a value: state() takes it, restore() puts it back, pickle and deepcopy
# carry it. Called once per keyframe, never per quantum, so it is written for clarity.

cdef class TimerState:
    """TimerState()
--

One timer's schedule inside a ``ClockState``: an immutable value.

    Attributes
    ----------
    timer : Timer
        The handle it belongs to; ``restore`` matches timers by this identity.
    seq : int
        Creation order on its clock, the tie-break between timers due at one tick.
    period_ticks : int or None
        The period in quanta; None for a one-shot.
    catch_up : str
        ``"each"`` or ``"coalesce"``.
    anchor : int
        The tick it was made at: it falls due at ``anchor + m * period``.
    due : int
        The tick it falls due at next (or would, once resumed).
    pending : int
        Coalesce: the intervals carried to ``due``, reported when it fires there.
    fired : int
        Callback calls so far.
    paused : bool
        Whether it is paused.
    paused_at : int or None
        The tick it was paused at (its countdown reads as of then); None unless paused.
    """

    # Filled when made and never changed after: any thread reads it (threads.pxi).
    cdef readonly Timer timer
    cdef readonly int64_t seq
    cdef int64_t _period
    cdef bint _coalesce
    cdef readonly int64_t anchor
    cdef readonly int64_t due
    cdef readonly int64_t pending
    cdef readonly int64_t fired
    cdef readonly bint paused
    cdef int64_t _paused_at      # -1 unless paused

    def __init__(self):
        raise TypeError("TimerState values are made by WorldClock.state()")

    @property
    def paused_at(self):
        """The tick it was paused at; None unless paused."""
        return self._paused_at if self.paused else None

    @property
    def period_ticks(self):
        """The period in quanta; None for a one-shot."""
        return self._period if self._period else None

    @property
    def catch_up(self):
        """``"each"`` or ``"coalesce"``."""
        return _CATCH_UPS[self._coalesce]

    def _schedule(self):
        return (self.seq, self._period, self._coalesce, self.anchor, self.due, self.pending,
                self.fired, self.paused, self._paused_at)

    def __eq__(self, other):
        # A value: equal schedules are equal, whichever handles (or clocks) they belong to.
        if not isinstance(other, TimerState):
            return NotImplemented
        return self._schedule() == (<TimerState>other)._schedule()

    def __hash__(self):
        return hash(self._schedule())

    def __repr__(self):
        return (f"TimerState(seq={self.seq}, period_ticks={self.period_ticks}, "
                f"catch_up={self.catch_up!r}, anchor={self.anchor}, due={self.due}, "
                f"pending={self.pending}, fired={self.fired}, paused={self.paused}, "
                f"paused_at={self.paused_at})")

    def __copy__(self):
        return self

    def __reduce__(self):
        return (_timer_state_from_fields, (self.timer,) + self._schedule())


def _timer_state_from_fields(timer, seq, period, coalesce, anchor, due, pending, fired, paused,
                             paused_at):
    """Unpickle a TimerState; the fields come from a TimerState's own __reduce__, and are
    checked as the clock's own timer fields are (a damaged pickle is refused, naming it)."""
    if not isinstance(timer, Timer):
        raise TypeError(f"TimerState.timer must be a Timer, got {timer!r}")
    cdef int64_t s = _as_count(seq, "TimerState.seq", 0)
    cdef int64_t k = _as_count(period, "TimerState.period_ticks", 0)
    cdef bint c = _as_bool(coalesce, "TimerState.coalesce")
    cdef int64_t a = _as_count(anchor, "TimerState.anchor", 0)
    cdef int64_t d = _as_count(due, "TimerState.due", 0)
    cdef int64_t p = _as_count(pending, "TimerState.pending", 0)
    cdef int64_t f = _as_count(fired, "TimerState.fired", 0)
    cdef bint held = _as_bool(paused, "TimerState.paused")
    cdef int64_t at = _as_count(paused_at, "TimerState.paused_at", 0) if held else -1
    _check_schedule(k, c, a, d, p, held)
    return _timer_state(timer, s, k, c, a, d, p, f, held, at)


cdef int _check_schedule(int64_t period, bint coalesce, int64_t anchor, int64_t due,
                         int64_t pending, bint paused) except -1:
    """The rules that tie a timer's fields together, as _make_timer, _fire and pause keep
    them: a one-shot (period 0) is "each" and falls due after the tick it was made at; a
    repeating timer falls due on its grid (anchor + m * period, m >= 1); only a coalescing
    repeating timer that is scheduled carries intervals (pending)."""
    if period == 0:
        if coalesce:
            raise ValueError("TimerState: a one-shot (period_ticks None) has catch_up 'each', "
                             "got 'coalesce'")
        if due <= anchor:
            raise ValueError(f"TimerState.due of a one-shot must be after its anchor "
                             f"{anchor}, got {due}")
    elif due <= anchor or (due - anchor) % period:
        raise ValueError(f"TimerState.due must lie on its grid, anchor {anchor} + m * period "
                         f"{period} with m >= 1, got {due}")
    if pending and (paused or not coalesce or not period):
        raise ValueError(f"TimerState.pending must be 0 unless the timer coalesces, repeats "
                         f"and is scheduled, got {pending}")
    return 0


cdef TimerState _timer_state(Timer timer, int64_t seq, int64_t period, bint coalesce,
                             int64_t anchor, int64_t due, int64_t pending, int64_t fired,
                             bint paused, int64_t paused_at):
    cdef TimerState ts = TimerState.__new__(TimerState)
    ts.timer, ts.seq, ts._period, ts._coalesce = timer, seq, period, coalesce
    ts.anchor, ts.due, ts.pending, ts.fired, ts.paused = anchor, due, pending, fired, paused
    ts._paused_at = paused_at if paused else -1
    return ts


cdef class ClockState:
    """ClockState()
--

Everything that decides a clock's future, as an immutable value: ``WorldClock.state()``.

    Equal states make equal futures: the same calls on clocks restored from equal states
    return equal results. Equality compares every field but ``discontinuities`` (which
    only tells followers to resynchronise, and which ``restore`` itself counts), and
    compares timers by their schedules, not their handles. It pickles when its timers'
    callbacks pickle. Unpickling checks every field by the rule the clock's own field
    obeys (a bank in [0, 1), a tick within ``MAX_TICK``, a timer on its grid, ...): a
    damaged pickle raises an error naming the field, so ``restore`` never sees one.

    Attributes
    ----------
    config : ClockConfig
        The configuration, including values set on their own.
    mode : Mode
    resume_mode : Mode
        The mode ``resume()`` returns to: while paused, the mode the clock was paused from
        (live if it never was in another); otherwise ``mode`` itself.
    tick : int
    bank : float
        Wall time banked, in quanta: the fraction of a quantum not yet run.
    alpha : float
    owed : int
        Quanta granted but not yet run (a timer callback raised).
    total_dropped : int
    frame : int
    window_wall, window_ticks, realized, window_done
        The realized-speed window: wall seconds and quanta so far, the last completed
        window's figure, and whether one has completed.
    discontinuities : int
        The clock's discontinuity count when the state was taken.
    timer_seq : int
        The creation order the next timer will get.
    timers : tuple of TimerState
        The scheduled and paused timers, in creation order.
    """

    # Filled when made and never changed after: any thread reads it (threads.pxi).
    cdef readonly ClockConfig config
    cdef readonly object mode
    cdef readonly object resume_mode
    cdef readonly int64_t tick
    cdef readonly double bank
    cdef readonly double alpha
    cdef readonly int64_t owed
    cdef readonly int64_t total_dropped
    cdef readonly int64_t frame
    cdef readonly double window_wall
    cdef readonly int64_t window_ticks
    cdef readonly double realized
    cdef readonly bint window_done
    cdef readonly int64_t discontinuities
    cdef readonly int64_t timer_seq
    cdef readonly tuple timers

    def __init__(self):
        raise TypeError("ClockState values are made by WorldClock.state()")

    def _fields(self):
        return (self.config, self.mode, self.resume_mode, self.tick, self.bank, self.alpha,
                self.owed, self.total_dropped, self.frame, self.window_wall, self.window_ticks,
                self.realized, self.window_done, self.discontinuities, self.timer_seq,
                self.timers)

    def _value(self):
        """The fields equality compares: all but ``discontinuities``."""
        fields = self._fields()
        return fields[:13] + fields[14:]

    def __eq__(self, other):
        if not isinstance(other, ClockState):
            return NotImplemented
        return self._value() == (<ClockState>other)._value()

    def __hash__(self):
        return hash(self._value())

    def __repr__(self):
        if self.config is None:
            return "<ClockState empty: not made by WorldClock.state()>"
        resume = (f" resume_mode={self.resume_mode.value!r}" if self.mode is Mode.PAUSED
                  else "")
        return (f"<ClockState tick={self.tick} mode={self.mode.value!r}{resume} "
                f"bank={self.bank!r} owed={self.owed} timers={len(self.timers)}>")

    def __copy__(self):
        return self

    def __reduce__(self):
        return (_clock_state_from_fields, self._fields())


def _clock_state_from_fields(config, mode, resume_mode, tick, bank, alpha, owed, total_dropped,
                             frame, window_wall, window_ticks, realized, window_done,
                             discontinuities, timer_seq, timers):
    """Unpickle a ClockState; the fields come from a ClockState's own __reduce__ (and from
    ClockBank.clock_state). Each is checked by the rule the clock's own field obeys, so that
    a damaged pickle is refused here, naming the field, and never reaches restore()."""
    if not isinstance(config, ClockConfig):
        raise TypeError(f"ClockState.config must be a ClockConfig, got {config!r}")
    cdef ClockState s = ClockState.__new__(ClockState)
    s.config, s.mode, s.resume_mode = config, Mode(mode), Mode(resume_mode)
    if s.resume_mode is Mode.PAUSED or (s.mode is not Mode.PAUSED
                                        and s.resume_mode is not s.mode):
        raise ValueError(f"resume_mode must be the mode itself, or while paused the mode it "
                         f"left; got mode={s.mode.value!r}, resume_mode={s.resume_mode.value!r}")
    s.tick = _as_count(tick, "ClockState.tick", 0)
    s.bank = _as_fraction(bank, "ClockState.bank")
    s.alpha = _as_fraction(alpha, "ClockState.alpha")
    # _grant keeps tick + owed within MAX_TICK.
    s.owed = _as_count(owed, "ClockState.owed", 0, MAX_COUNT - s.tick)
    s.total_dropped = _as_count(total_dropped, "ClockState.total_dropped", 0)
    s.frame = _as_count(frame, "ClockState.frame", 0)
    s.window_wall = _as_window_wall(window_wall, "ClockState.window_wall")
    s.window_ticks = _as_count(window_ticks, "ClockState.window_ticks", 0)
    s.realized = _as_realized(realized, "ClockState.realized")
    s.window_done = _as_bool(window_done, "ClockState.window_done")
    s.discontinuities = _as_count(discontinuities, "ClockState.discontinuities", 0)
    s.timer_seq = _as_count(timer_seq, "ClockState.timer_seq", 0)
    s.timers = tuple(timers)
    _check_timers(s)
    return s


cdef int _check_timers(ClockState s) except -1:
    """The timers of a state: TimerStates made by state() (or unpickled, so checked), in
    creation order, each made before the state's next creation order, and none scheduled
    before its tick (the queue fires what is due, and a due tick behind would run it back)."""
    cdef TimerState ts
    cdef int64_t last = -1
    for t in s.timers:
        if not isinstance(t, TimerState):
            raise TypeError(f"timers must be TimerState values, got {s.timers!r}")
        ts = <TimerState>t
        if ts.timer is None:
            raise TypeError(f"state holds a TimerState not made by WorldClock.state(): {ts!r}")
        if ts.seq <= last or ts.seq >= s.timer_seq:
            raise ValueError(f"ClockState.timers must be in creation order, each seq below "
                             f"timer_seq {s.timer_seq}; got seq {ts.seq} after {last}")
        last = ts.seq
        if not ts.paused and ts.due < s.tick:
            raise ValueError(f"ClockState.timers: a scheduled timer due at {ts.due} lies "
                             f"before the tick {s.tick}")
    return 0


cdef list _live_timers(WorldClock clock):
    """The clock's scheduled and paused timers, in creation order."""
    cdef list live = _queue_timers(clock)
    if clock._paused_timers is not None:
        live.extend(clock._paused_timers)
    live.sort(key=_timer_seq_of)
    return live


cdef ClockState _take_state(WorldClock clock):
    cdef ClockState s = ClockState.__new__(ClockState)
    cdef Timer t
    s.config, s.mode, s.tick = clock.config, _MODES[clock._mode], clock._tick
    s.resume_mode = _MODES[clock._resume_mode]
    s.bank, s.alpha, s.owed = clock._bank, clock._alpha, clock._owed
    s.total_dropped, s.frame = clock._total_dropped, clock._frame
    s.window_wall, s.window_ticks = clock._window_wall, clock._window_ticks
    s.realized, s.window_done = clock._realized, clock._window_done
    s.discontinuities, s.timer_seq = clock._discontinuities, clock._timer_seq
    s.timers = tuple([_timer_state(t, t._seq, t._period, t._coalesce, t._anchor, t._due,
                                   0 if t._state == TIMER_PAUSED else t._pending, t.fired,
                                   t._state == TIMER_PAUSED, t._pending)   # paused: paused at
                      for t in _live_timers(clock)])
    return s


cdef int _check_restorable(WorldClock clock, object state, bint adopt) except -1:
    """Refuse, naming them, a state whose timers are not exactly the clock's live timers.

    With ``adopt`` (unpickling, deepcopy) a bare timer handle, not yet given a clock, is the
    clock's own."""
    if not isinstance(state, ClockState) or (<ClockState>state).config is None:
        raise TypeError(f"state must be a ClockState made by WorldClock.state(), got {state!r}")
    cdef ClockState s = <ClockState>state
    cdef TimerState ts
    for ts in s.timers:
        if ts.timer is None:
            raise TypeError(f"state holds a TimerState not made by WorldClock.state(): {ts!r}")
    mine = {id(ts.timer) for ts in s.timers}
    missing = [ts.timer for ts in s.timers
               if ts.timer._clock is not clock and not (adopt and ts.timer._clock is None)]
    extra = [t for t in _live_timers(clock) if id(t) not in mine]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing (made by another clock): {missing!r}")
        if extra:
            parts.append(f"extra (live here, not in the state; cancel them first): {extra!r}")
        raise ValueError("the state's timers are not this clock's timers: " + "; ".join(parts))
    return 0


cdef int _put_state(WorldClock clock, ClockState s, int64_t discontinuities) except -1:
    """Set every field from ``s`` and reschedule its timers; the caller checked it fits."""
    cdef ClockConfig cfg = s.config
    cdef TimerState ts
    cdef Timer t
    cdef int mode = _mode_index(s.mode)
    cdef int resume_mode = _mode_index(s.resume_mode)
    with cython.critical_section(clock):   # readers see the old (tick, t, count) or the new
        clock._fixed_dt, clock._scale = cfg.fixed_dt, cfg.scale
        clock._max_steps = cfg.max_steps_per_advance
        clock._cap_scales, clock._lockstep_steps = cfg.cap_scales_with_rate, cfg.lockstep_steps
        clock._mode, clock._resume_mode = mode, resume_mode
        clock._tick, clock._bank, clock._alpha, clock._owed = s.tick, s.bank, s.alpha, s.owed
        clock._total_dropped, clock._frame = s.total_dropped, s.frame
        clock._window_wall, clock._window_ticks = s.window_wall, s.window_ticks
        clock._realized, clock._window_done = s.realized, s.window_done
        clock._discontinuities, clock._timer_seq = discontinuities, s.timer_seq
    _queue_release(clock, False)   # every live timer is in s.timers, which holds it
    clock._paused_timers = None
    for ts in s.timers:
        t = ts.timer
        t._clock, t._seq, t._period, t._coalesce = clock, ts.seq, ts._period, ts._coalesce
        t._anchor, t._pending, t.fired = ts.anchor, ts.pending, ts.fired
        if ts.paused:
            t._due, t._state, t._pending = ts.due, TIMER_PAUSED, ts._paused_at
            if clock._paused_timers is None:
                clock._paused_timers = weakref.WeakSet()
            clock._paused_timers.add(t)
        else:
            _queue_push(clock, t, ts.due)
    clock._notify()
    return 0


def _new_clock(cls):
    """Unpickle a WorldClock: a bare instance, filled by ``__setstate__``."""
    return cls.__new__(cls)


def _new_timer():
    """Unpickle a Timer: a bare handle, filled by its own and its clock's ``__setstate__``."""
    return Timer.__new__(Timer)
