# Many clocks in one object: ClockBank holds n independent clocks as arrays and advances them
# with one loop in C (clock_bank_kernel.h), and BankFollower counts the steps due on each.

from libc.stdint cimport uint8_t

cdef extern from "clock_bank_kernel.h" nogil:
    ctypedef struct cvc_rules:
        double window_wall, min_fixed_dt, max_scale
        int64_t max_steps_per_call, max_count
        uint8_t live, lockstep, modes
    ctypedef struct cvc_clock_bank:
        int64_t n
        const double *scale
        const double *fixed_dt
        const int64_t *max_steps
        const int64_t *lockstep
        const uint8_t *cap_scales
        const uint8_t *mode
        const uint8_t *mode_seen
        int64_t *tick
        int64_t *dropped
        int64_t *window_ticks
        int64_t *steps
        double *bank
        double *window_wall
        double *realized
    void cvc_advance(const cvc_clock_bank *s, const double *wall, double wall_dt,
                     const cvc_rules *r)
    int64_t cvc_first_bad(const cvc_clock_bank *s, const double *wall, double wall_dt,
                          const cvc_rules *r, int *mode_changed)
    int64_t cvc_first_overflow(const cvc_clock_bank *s, const double *wall, double wall_dt,
                               const cvc_rules *r, int64_t *steps)
    int64_t cvc_slot_bad(const cvc_clock_bank *s, int64_t i, double d, int per_slot,
                         const cvc_rules *r)
    int cvc_choose_kernel(int want_avx2)
    int cvc_use_avx2

cdef extern from "banking.h" nogil:
    const double EXACT_QUANTA "CVC_EXACT_QUANTA"

cdef extern from "clock_bank_shared.h" nogil:
    ctypedef struct cvc_shared_step:
        int64_t live
        double q, scale
        int64_t max_steps, cap_scales, quanta, may_drop, enter, close
        double fixed_dt, window_wall
        int64_t max_count
    int64_t cvc_shared_cap(const cvc_shared_step *p)
    void cvc_advance_shared(const cvc_clock_bank *s, const cvc_shared_step *p)
    void cvc_shared_counts(const cvc_clock_bank *s, double window_wall)


# The core's constants, handed to the C loops so that each is defined once (the banking
# arithmetic's are banking.h's).
cdef cvc_rules _RULES
_RULES.window_wall = WINDOW_WALL  # the realized-speed window, in wall seconds
_RULES.min_fixed_dt = MIN_FIXED_DT
_RULES.max_scale = MAX_SCALE
_RULES.max_steps_per_call = MAX_STEPS_PER_CALL
_RULES.max_count = MAX_COUNT
_RULES.live = MODE_LIVE
_RULES.lockstep = MODE_LOCKSTEP
_RULES.modes = len(_MODES)

cvc_choose_kernel(True)


def _clock_bank_kernel(name=None):
    """The loops ``ClockBank`` runs: "avx2" (x86-64 with AVX2, the default there) or
    "portable" (C the compiler vectorised for the build's target). With a name, switch to it
    first, for every bank; the tests run both."""
    if name is not None:
        if name not in ("avx2", "portable"):
            raise ValueError(f"name must be 'avx2' or 'portable', got {name!r}")
        if cvc_choose_kernel(name == "avx2") != (name == "avx2"):
            raise ValueError("this machine or build has no AVX2 loops")
    return "avx2" if cvc_use_avx2 else "portable"


def _clock_bank_paths(ClockBank bank not None, /):
    """For the tests: whether ``bank``'s next advance by one wall_dt runs the shared loop
    (``"shared"``), whether a configuration array was handed out (``"views_out"``: every
    call then checks the configuration) and whether its windows are held as bases."""
    return {"shared": bank._shared and not bank._views_out and bank._mode_all >= 0
                      and bank._n > 0,
            "views_out": bank._views_out, "bases": bank._bases}


# An advance runs at most this many quanta in a slot: the cap is below 2**52 (see banking.h).
cdef int64_t _MAX_ADVANCE_QUANTA = <int64_t>MAX_QUANTA
# Slots in one bank at most: keeps every size computation far inside Py_ssize_t.
cdef int64_t MAX_CLOCK_BANK_SLOTS = 2 ** 32

# The bank's arrays, one per field, in one allocation: name, dtype.
cdef tuple _CLOCK_BANK_LAYOUT = (
    ("scale", "f8"), ("fixed_dt", "f8"), ("max_steps", "i8"), ("lockstep", "i8"),
    ("cap_scales", "u1"), ("mode", "u1"), ("mode_seen", "u1"), ("resume_mode", "u1"),
    ("tick", "i8"), ("dropped", "i8"), ("window_ticks", "i8"), ("steps", "i8"),
    ("bank", "f8"), ("window_wall", "f8"), ("realized", "f8"), ("alpha", "f8"),
    ("frame_base", "i8"), ("discontinuities", "i8"),
)

# The arrays the host may read but not write.
cdef frozenset _READ_ONLY = frozenset({"tick", "total_dropped", "discontinuities", "steps"})

cdef object _np = None


cdef inline void *_at(unsigned char *base, object offset):
    """base + offset, or NULL for a bank of no slots (no arithmetic on NULL)."""
    return base + <Py_ssize_t>offset if base != NULL else NULL


cdef object _numpy():
    """numpy, imported by the first bank: a plain frame loop never pays for the import."""
    global _np
    if _np is None:
        import numpy
        _np = numpy
    return _np


cdef object _slot_array(object value, str name, Py_ssize_t n, str kind):
    """``value`` checked as a numpy array of one ``kind`` ("float64", "integer" or "bool")
    value a slot, or a TypeError (not such an array) or ValueError (wrong shape) naming it."""
    np = _numpy()
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{name} must be a numpy {kind} array of shape ({n},), got {value!r}")
    dtype = value.dtype
    if not (dtype == np.float64 if kind == "float64" else
            dtype == np.bool_ if kind == "bool" else dtype.kind in "iu"):
        raise TypeError(f"{name} must be a numpy {kind} array of shape ({n},), got an array "
                        f"of dtype {dtype}")
    if value.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), one value a slot, got shape "
                         f"{value.shape}")
    return value


cdef object _count_array(object value, str name, Py_ssize_t n, int64_t minimum):
    """An integer array of n counts in [minimum, 2**62], as a new int64 array; errors name
    the first bad slot as ``name[i]``, as ``check_count`` words them."""
    np = _numpy()
    value = _slot_array(value, name, n, "integer")
    bad = np.flatnonzero((value < minimum) | (value > MAX_COUNT))
    if bad.size:
        i = int(bad[0])
        _as_count(int(value[i]), f"{name}[{i}]", minimum)
    return value.astype(np.int64)


cdef class ClockBank:
    """ClockBank(n, config=None)
--

n independent clocks in one object, each exactly a ``WorldClock`` without timers.

    Parameters
    ----------
    n : int
        The number of clocks (slots), 0 to 2**32.
    config : ClockConfig, optional
        Every slot's starting configuration; ``ClockConfig()`` when omitted.

    Notes
    -----
    Slot i computes exactly what a ``WorldClock`` computes, bit for bit: the same ticks,
    steps, dropped quanta, alphas, frames and realized speeds, and ``clock_state(i)`` equals
    the clock's ``state()``. One loop in C advances every slot with the GIL released: AVX2
    where the CPU has it, else plain C (see ``clock_bank_kernel.h``).

    The configuration is a set of numpy arrays the host reads and writes in place:
    ``scale``, ``fixed_dt``, ``max_steps_per_advance``, ``cap_scales_with_rate``,
    ``lockstep_steps`` and ``mode``. They are checked when used, against ``ClockConfig``'s
    rules: a bad value raises an error naming the field, the slot and the value, and no slot
    changes. A write takes effect at the next call, as the same assignment on the
    ``WorldClock`` would (``mode`` included); writing ``fixed_dt`` or
    ``cap_scales_with_rate``, which a ``WorldClock`` sets only with ``configure``, keeps the
    slot's tick and bank (as ``restore`` of a state with that configuration would), while
    ``configure(i, config)`` restarts the slot.

    A bank whose slots share one configuration, one mode and one realized-speed window (made
    from one config, advanced by one ``wall_dt`` for every slot, no slot reconfigured on its
    own) advances with a loop that touches only each slot's bank, tick and steps. Until a
    configuration array is read from the bank, only its methods write the configuration
    and the checks of it are skipped; from the first read of one (a writable view the host
    may write at any time) every call checks every slot again, and the shared loop no
    longer runs.

    ``mode`` holds small ints: slot i is in mode ``ClockBank.MODES[mode[i]]``, that is
    0 live, 1 lockstep, 2 paused, 3 stepping, 4 replay. ``set_mode`` takes ``Mode`` values
    or their names.

    ``tick``, ``total_dropped`` and ``discontinuities`` are read-only views that follow the
    bank; ``t``, ``alpha``, ``frame`` and ``realized_scale`` compute a new array each read.
    ``advance``, ``advance_ticks`` and ``step_once`` return the same read-only array every
    call, overwritten by the next: copy it to keep it.

    Do not write the arrays from another thread while a call runs: the loop runs without
    the GIL. A call on the bank while another runs (from another thread) raises RuntimeError.
    """

    MODES = _MODES

    cdef Py_ssize_t _n
    cdef bint _made
    cdef bint _busy
    cdef cvc_clock_bank _c        # pointers into _memory, for the C loops
    cdef uint8_t *_mode_seen      # the mode each slot last ran in (see _sync_slot)
    cdef uint8_t *_resume_mode    # WorldClock._resume_mode of each slot, for clock_state
    cdef double *_alpha           # alpha of the slots not last seen live (live: the bank)
    cdef int64_t *_frame_base     # _frames when the slot was configured
    cdef int64_t *_discontinuities
    cdef int64_t _frames          # advance calls since the bank was made
    cdef int64_t _tick_hi         # at least every slot's tick: skips the tick-limit check
    # What the bank knows of its configuration without reading it (see _advance_shared):
    # only the methods write it until a writable configuration array is handed out.
    cdef bint _views_out          # a configuration array was handed out: read it every call
    cdef bint _shared             # every slot has one configuration and one window
    cdef int _mode_all            # the mode every slot is in and last ran in; -1: mixed
    cdef double _scale_hi         # at least every slot's scale, and at most every fixed_dt:
    cdef double _fixed_dt_lo      # a live quotient below the bound's is below every slot's
    cdef bint _bases              # window_ticks holds bases (clock_bank_shared.h)
    cdef double _shared_wall      # ... and then every slot's window wall time is this
    cdef object _memory           # the bytearray holding every array
    cdef unsigned char[::1] _raw  # an export of _memory: it can never be resized
    cdef dict _arrays             # the public arrays by field


    def __cinit__(self, *args, **kwargs):
        self._lay_out(0)          # an instance made with __new__ is a bank of 0 slots

    def __init__(self, n, config=None):
        if self._made:
            raise TypeError("ClockBank.__init__ runs once (the host holds views of its "
                            "arrays); make a new ClockBank")
        cdef int64_t size = _as_count(n, "n", 0, MAX_CLOCK_BANK_SLOTS)
        if config is None:
            config = ClockConfig()
        elif not isinstance(config, ClockConfig):
            raise TypeError(f"config must be a ClockConfig, got {config!r}")
        cdef ClockConfig cfg = <ClockConfig>config
        cdef Py_ssize_t i
        self._enter()   # refused while another call on this bank (made with __new__) runs
        try:
            self._lay_out(size)
            a = self._arrays
            a["scale"].fill(cfg.scale)
            a["fixed_dt"].fill(cfg.fixed_dt)
            a["max_steps_per_advance"].fill(cfg.max_steps_per_advance)
            a["cap_scales_with_rate"].fill(cfg.cap_scales_with_rate)
            a["lockstep_steps"].fill(cfg.lockstep_steps)
            self._shared, self._mode_all = True, MODE_LIVE
            self._scale_hi, self._fixed_dt_lo = cfg.scale, cfg.fixed_dt
            with nogil:
                for i in range(size):
                    self._c.realized[i] = -1.0
                    self._discontinuities[i] = 1
            self._made = True
        finally:
            self._busy = False

    cdef int _lay_out(self, Py_ssize_t n) except -1:
        """Allocate the arrays of n slots, zeroed, and point the bank at them; on failure
        (MemoryError) the bank is as it was."""
        np = _numpy()
        offsets = {}
        cdef Py_ssize_t size = 0
        for name, code in _CLOCK_BANK_LAYOUT:
            offsets[name] = size
            size += (n * np.dtype(code).itemsize + 63) // 64 * 64   # 64-byte aligned
        memory = bytearray(size)
        cdef unsigned char[::1] raw = memory
        readonly = memoryview(memory).toreadonly()
        arrays = {public: np.frombuffer(readonly if public in _READ_ONLY else memory, dtype, n,
                                        offsets[field])
                  for public, field, dtype in (
                      ("scale", "scale", np.float64), ("fixed_dt", "fixed_dt", np.float64),
                      ("max_steps_per_advance", "max_steps", np.int64),
                      ("cap_scales_with_rate", "cap_scales", np.bool_),
                      ("lockstep_steps", "lockstep", np.int64), ("mode", "mode", np.uint8),
                      ("tick", "tick", np.int64), ("total_dropped", "dropped", np.int64),
                      ("discontinuities", "discontinuities", np.int64),
                      ("steps", "steps", np.int64))}
        cdef unsigned char *base = &raw[0] if size else NULL
        cdef cvc_clock_bank c
        c.n = n
        c.scale = <const double *>_at(base, offsets["scale"])
        c.fixed_dt = <const double *>_at(base, offsets["fixed_dt"])
        c.max_steps = <const int64_t *>_at(base, offsets["max_steps"])
        c.lockstep = <const int64_t *>_at(base, offsets["lockstep"])
        c.cap_scales = <const uint8_t *>_at(base, offsets["cap_scales"])
        c.mode = <const uint8_t *>_at(base, offsets["mode"])
        c.mode_seen = <const uint8_t *>_at(base, offsets["mode_seen"])
        c.tick = <int64_t *>_at(base, offsets["tick"])
        c.dropped = <int64_t *>_at(base, offsets["dropped"])
        c.window_ticks = <int64_t *>_at(base, offsets["window_ticks"])
        c.steps = <int64_t *>_at(base, offsets["steps"])
        c.bank = <double *>_at(base, offsets["bank"])
        c.window_wall = <double *>_at(base, offsets["window_wall"])
        c.realized = <double *>_at(base, offsets["realized"])
        # Everything made: now assign, so that a failure above leaves the bank as it was.
        self._memory, self._raw, self._arrays, self._n, self._c = memory, raw, arrays, n, c
        self._mode_seen = <uint8_t *>c.mode_seen
        self._resume_mode = <uint8_t *>_at(base, offsets["resume_mode"])
        self._alpha = <double *>_at(base, offsets["alpha"])
        self._frame_base = <int64_t *>_at(base, offsets["frame_base"])
        self._discontinuities = <int64_t *>_at(base, offsets["discontinuities"])
        self._frames = 0
        self._tick_hi = 0
        return 0

    def __len__(self):
        return self._n

    def __repr__(self):
        return f"<ClockBank of {self._n} clocks>"

    # -- the configuration, as arrays the host writes ---------------------------------------

    @property
    def scale(self):
        """float64 array: world seconds per wall second of each slot, 0 to 1e6 (writable)."""
        return self._config_array("scale")

    @property
    def fixed_dt(self):
        """float64 array: each slot's quantum in seconds, at least 1e-6 (writable)."""
        return self._config_array("fixed_dt")

    @property
    def max_steps_per_advance(self):
        """int64 array: each slot's stall-guard cap, 1 to 2**32 (writable)."""
        return self._config_array("max_steps_per_advance")

    @property
    def cap_scales_with_rate(self):
        """bool array: whether each slot's cap grows with ``ceil(scale)`` (writable)."""
        return self._config_array("cap_scales_with_rate")

    @property
    def lockstep_steps(self):
        """int64 array: each slot's quanta per advance in lockstep mode, 1 to 2**32 (writable)."""
        return self._config_array("lockstep_steps")

    @property
    def mode(self):
        """uint8 array: each slot's mode as an index into ``ClockBank.MODES`` (writable)."""
        return self._config_array("mode")

    cdef object _config_array(self, str name):
        """A writable configuration array: from now on the host may write it at any time,
        so every call reads and checks the configuration again (as before any was handed
        out it need not: only the methods, which check what they write, changed it)."""
        self._views_out = True
        return self._arrays[name]

    def set_mode(self, mode, where=None):
        """Put slots into ``mode``, as ``WorldClock.mode = mode`` does, at once.

        Parameters
        ----------
        mode : Mode or str
            The mode, or its name.
        where : int, bool array or None
            One slot, a mask of n slots, or every slot (None).
        """
        cdef int m = _mode_index(mode)
        cdef Py_ssize_t i, one = -1
        cdef const uint8_t[::1] mask
        np = _numpy()
        cdef bint masked = isinstance(where, np.ndarray)
        if masked:
            mask = _slot_array(where, "where", self._n, "bool").astype(np.uint8)
        elif where is not None:
            one = self._slot(where, "where")
        cdef bint same = True
        self._enter()
        try:
            with nogil:
                for i in range(self._n):
                    if (masked and mask[i]) or i == one or (one < 0 and not masked):
                        (<uint8_t *>self._c.mode)[i] = m
                        self._sync_slot(i)
                    same = same and self._c.mode[i] == m and self._mode_seen[i] == m
            self._mode_all = m if same else -1
        finally:
            self._busy = False

    # -- observability ------------------------------------------------------------------------

    @property
    def tick(self):
        """int64 array, read-only view: each slot's integer world time, in quanta."""
        return self._arrays["tick"]

    @property
    def total_dropped(self):
        """int64 array, read-only view: quanta each slot's stall guard dropped since its
        ``configure`` (saturating at 2**62)."""
        return self._arrays["total_dropped"]

    @property
    def discontinuities(self):
        """int64 array, read-only view: how many times each slot was configured; followers
        compare it with the count they last saw to resynchronise."""
        return self._arrays["discontinuities"]

    # The reads below loop over n taken with the GIL held: only a bank of 0 slots (made with
    # __new__) can be initialised meanwhile, and that loop then touches nothing.

    @property
    def t(self):
        """float64 array, new each read: world seconds ``tick * fixed_dt`` of each slot."""
        cdef Py_ssize_t i, n = self._n
        out = _numpy().empty(n, _numpy().float64)
        cdef double[::1] view = out
        self._enter_checked()
        with nogil:
            for i in range(n):
                view[i] = self._c.tick[i] * self._c.fixed_dt[i]
        return out

    @property
    def alpha(self):
        """float64 array, new each read: each slot's alpha, as ``WorldClock.alpha``."""
        cdef Py_ssize_t i, n = self._n
        out = _numpy().empty(n, _numpy().float64)
        cdef double[::1] view = out
        self._enter_checked()
        with nogil:
            for i in range(n):
                view[i] = self._c.bank[i] if self._mode_seen[i] == MODE_LIVE else self._alpha[i]
        return out

    @property
    def frame(self):
        """int64 array, new each read: ``advance`` calls since each slot's ``configure``."""
        cdef Py_ssize_t i, n = self._n
        out = _numpy().empty(n, _numpy().int64)
        cdef int64_t[::1] view = out
        with nogil:
            for i in range(n):
                view[i] = self._frames - self._frame_base[i]
        return out

    @property
    def realized_scale(self):
        """float64 array, new each read: each slot's ``WorldClock.realized_scale``."""
        cdef Py_ssize_t i, n = self._n
        out = _numpy().empty(n, _numpy().float64)
        cdef double[::1] view = out
        self._enter_checked()
        with nogil:
            for i in range(n):
                if self._c.realized[i] >= 0.0:
                    view[i] = self._c.realized[i]
                elif self._window_wall(i) > 0.0:
                    view[i] = (self._window_ticks(i) * self._c.fixed_dt[i]
                               / self._window_wall(i))
                else:
                    view[i] = 0.0
        return out

    cdef int _enter_checked(self) except -1:
        """Check the configuration before a read that uses it (see ``_check``)."""
        self._enter()
        try:
            self._check(NULL, 0.0, None)
        finally:
            self._busy = False
        return 0

    # -- advancing ----------------------------------------------------------------------------

    def advance(self, wall_dt, /):
        """Advance every slot by ``wall_dt`` wall seconds, each as its mode says.

        Parameters
        ----------
        wall_dt : float or numpy.ndarray
            Wall seconds since the last call, finite and non-negative: one for every slot,
            or a float64 array of one a slot.

        Returns
        -------
        numpy.ndarray
            int64, read-only: the quanta each slot ran. The same array every call.
        """
        cdef double d = 0.0
        cdef const double[::1] wall
        cdef const double *per_slot = NULL
        if isinstance(wall_dt, _numpy().ndarray):
            wall = _numpy().ascontiguousarray(_slot_array(wall_dt, "wall_dt", self._n, "float64"))
            if self._n:
                per_slot = &wall[0]
        else:
            d = _as_wall_dt(wall_dt)
        self._enter()
        try:
            if not (per_slot == NULL and self._advance_shared(d, wall_dt)):
                self._counts()
                if per_slot != NULL and self._n > 1:
                    self._shared = False      # each slot's window now has its own wall time
                self._check(per_slot, d, wall_dt)
                self._check_advance_limit(per_slot, d)
                with nogil:
                    cvc_advance(&self._c, per_slot, d, &_RULES)
                self._tick_hi += _MAX_ADVANCE_QUANTA
            self._frames += 1
        finally:
            self._busy = False
        return self._arrays["steps"]

    cdef bint _advance_shared(self, double d, object wall_dt) except -1:
        """Advance every slot by ``d`` with the shared bank's loop (clock_bank_shared.h), if
        the bank is one: every slot one configuration, one mode and one window, none written
        by the host (no configuration array handed out). False if it is not, or if this
        advance needs the general loop (a live quotient of CVC_EXACT_QUANTA or more)."""
        if not self._shared or self._views_out or self._mode_all < 0 or self._n == 0:
            return False
        cdef cvc_shared_step p
        cdef double scale = self._c.scale[0], fixed_dt = self._c.fixed_dt[0], wall
        cdef int64_t most
        p.live = self._mode_all == MODE_LIVE
        p.q = cvc_quanta(d, scale, fixed_dt) if p.live else 0.0
        if p.q > MAX_QUANTA:
            self._raise_bad_slot(0, False, wall_dt)   # slot 0 is the first bad one, as all are
        if p.q >= EXACT_QUANTA:
            return False
        p.scale, p.max_steps, p.cap_scales = scale, self._c.max_steps[0], self._c.cap_scales[0]
        p.quanta = self._c.lockstep[0] if self._mode_all == MODE_LOCKSTEP else 0
        most = cvc_shared_cap(&p) if p.live else p.quanta
        # A slot banks at most q + 1 quanta (its bank is below 1): below the cap, none drops.
        p.may_drop = p.live and p.q + 1.0 > <double>most
        self._check_advance_limit(NULL, d)
        wall = (self._shared_wall if self._bases else self._c.window_wall[0]) + d
        p.enter = not self._bases
        p.close = wall >= WINDOW_WALL
        p.fixed_dt, p.window_wall, p.max_count = fixed_dt, wall, MAX_COUNT
        with nogil:
            cvc_advance_shared(&self._c, &p)
        self._bases = True
        self._shared_wall = 0.0 if p.close else wall
        self._tick_hi += most
        return True

    cdef int _counts(self) except -1:
        """Turn the shared loop's window bases back into counts, for the general loop."""
        if self._bases:
            with nogil:
                cvc_shared_counts(&self._c, self._shared_wall)
            self._bases = False
        return 0

    cdef inline int64_t _window_ticks(self, Py_ssize_t i) noexcept nogil:
        """Slot i's window count, in either form (see _counts)."""
        return self._c.tick[i] - self._c.window_ticks[i] if self._bases else self._c.window_ticks[i]

    cdef inline double _window_wall(self, Py_ssize_t i) noexcept nogil:
        return self._shared_wall if self._bases else self._c.window_wall[i]

    def advance_ticks(self, n, /):
        """Run exactly ``n`` quanta in every slot now, in any mode, with no cap (batch).

        Parameters
        ----------
        n : int or numpy.ndarray
            Quanta, at least 0: one count for every slot, or an integer array of one a slot.

        Returns
        -------
        numpy.ndarray
            int64, read-only: the quanta each slot ran (the array ``advance`` returns).
        """
        cdef int64_t count = 0, most
        cdef const int64_t[::1] counts = None
        if isinstance(n, _numpy().ndarray):
            array = _count_array(n, "n", self._n, 0)
            counts, most = array, array.max(initial=0)
        else:
            count = most = _as_count(n, "n", 0)
        self._run_ticks(counts, count, most, "advance_ticks")
        return self._arrays["steps"]

    def step_once(self, mask=None):
        """Run exactly one quantum in every slot, or in the slots ``mask`` selects, in any mode.

        Parameters
        ----------
        mask : numpy.ndarray, optional
            A bool array of one value a slot: the slots to step; every slot when omitted.

        Returns
        -------
        numpy.ndarray
            int64, read-only: 1 for each slot stepped, else 0 (the array ``advance`` returns).
        """
        cdef const int64_t[::1] counts = None
        if mask is not None:
            counts = _slot_array(mask, "mask", self._n, "bool").astype(_numpy().int64)
        self._run_ticks(counts, 1, 1, "step_once")
        return self._arrays["steps"]

    cdef int _run_ticks(self, const int64_t[::1] counts, int64_t count, int64_t most,
                        str call) except -1:
        """Run ``counts[i]`` quanta in slot i (or ``count`` in every slot, if counts is None),
        at most ``most`` a slot, after checking that no tick passes 2**62."""
        cdef Py_ssize_t i
        cdef bint each = counts is not None
        cdef int64_t k
        self._enter()
        try:
            self._check_grant(counts, count, most, call)
            with nogil:
                for i in range(self._n):
                    k = counts[i] if each else count
                    self._c.tick[i] += k
                    self._c.steps[i] = k
                    if self._bases:   # these quanta are not the window's: the base moves too
                        self._c.window_ticks[i] += k
            self._tick_hi += most
        finally:
            self._busy = False
        return 0

    # -- the checks: every slot before any slot changes --------------------------------------

    cdef int _enter(self) except -1:
        """Mark the bank busy for a call that reads or changes many slots."""
        with cython.critical_section(self):   # check-and-set as one step without the GIL
            if self._busy:
                raise RuntimeError("the ClockBank is busy with another call (from another "
                                   "thread, or made during this one)")
            self._busy = True
        return 0

    cdef int _check(self, const double *wall, double d, object wall_dt) except -1:
        """Check every slot's configuration (and wall time, and live quotient), raising for
        the first bad slot; then bring the slots whose mode was written up to date."""
        cdef int changed = 0
        cdef int64_t bad
        # Until a configuration array is handed out only the methods write the configuration,
        # checking what they write, and set_mode brings every slot's mode up to date: what is
        # left to check is a live quotient, below the bound's for every slot when it is below
        # CVC_MAX_QUANTA there (fl(d * s) / f grows with s and falls with f).
        if (not self._views_out and wall == NULL
                and cvc_quanta(d, self._scale_hi, self._fixed_dt_lo) <= MAX_QUANTA):
            return 0
        with nogil:
            bad = cvc_first_bad(&self._c, wall, d, &_RULES, &changed)
        if bad >= 0:
            self._raise_bad_slot(bad, wall != NULL, wall_dt)
        cdef Py_ssize_t i
        if changed:
            with nogil:
                for i in range(self._n):
                    self._sync_slot(i)
        return 0

    cdef int _raise_bad_slot(self, Py_ssize_t i, bint per_slot, object wall_dt) except -1:
        """Raise the error for slot i, which cvc_first_bad found bad, in the core's words."""
        a = self._arrays
        if per_slot:
            wall_dt = float(wall_dt[i])
            _as_wall_dt(wall_dt, f"wall_dt[{i}]")
        scale = float(a["scale"][i])
        fixed_dt = float(a["fixed_dt"][i])
        _as_scale(scale, f"scale[{i}]")
        _as_fixed_dt(fixed_dt, f"fixed_dt[{i}]")
        _as_steps(int(a["max_steps_per_advance"][i]), f"max_steps_per_advance[{i}]")
        _as_steps(int(a["lockstep_steps"][i]), f"lockstep_steps[{i}]")
        _as_mode_number(int(a["mode"][i]), f"mode[{i}]")
        _raise_too_wide(wall_dt, scale, fixed_dt, f" in slot {i}")

    cdef int _check_advance_limit(self, const double *wall, double d) except -1:
        """Refuse an advance that would take a slot's tick past 2**62, as ``_grant`` does."""
        cdef int64_t steps = 0, bad
        if not self._near_tick_limit(_MAX_ADVANCE_QUANTA):
            return 0
        with nogil:
            bad = cvc_first_overflow(&self._c, wall, d, &_RULES, &steps)
        if bad >= 0:
            self._raise_past_limit("advance", steps, bad)
        return 0

    cdef int _check_grant(self, const int64_t[::1] counts, int64_t count, int64_t most,
                          str call) except -1:
        """Refuse to run ``counts[i]`` (or ``count``) quanta if any slot would pass 2**62."""
        cdef Py_ssize_t i
        cdef int64_t k
        if not self._near_tick_limit(most):
            return 0
        for i in range(self._n):
            k = counts[i] if counts is not None else count
            if k > MAX_COUNT - self._c.tick[i]:
                self._raise_past_limit(call, k, i)
        return 0

    cdef bint _near_tick_limit(self, int64_t most) except -1:
        """Whether running up to ``most`` quanta a slot could pass 2**62; the bound on the
        ticks is tightened (one pass over them) before a slot-by-slot check is needed."""
        cdef Py_ssize_t i
        cdef int64_t hi = 0
        if self._tick_hi <= MAX_COUNT - most:
            return False
        with nogil:
            for i in range(self._n):
                hi = max(hi, self._c.tick[i])
        self._tick_hi = hi
        return hi > MAX_COUNT - most

    cdef int _raise_past_limit(self, str call, int64_t n, Py_ssize_t i) except -1:
        raise ValueError(f"{call} of {n} quanta would take the tick of slot {i} past "
                         f"MAX_TICK ({MAX_COUNT}) "
                         f"(tick {self._c.tick[i]})")

    cdef void _sync_slot(self, Py_ssize_t i) noexcept nogil:
        """Apply a mode written since slot i last ran, as ``WorldClock``'s mode setter does:
        alpha is the bank (live), frozen (paused), or 0; a paused slot remembers the mode it
        left, as the clock does for ``resume()``."""
        cdef uint8_t mode = self._c.mode[i], seen = self._mode_seen[i]
        if mode == seen:
            return
        if mode == MODE_PAUSED:
            if seen == MODE_LIVE:
                self._alpha[i] = self._c.bank[i]
        else:
            self._alpha[i] = 0.0
            self._resume_mode[i] = mode
        self._mode_seen[i] = mode

    # -- one slot --------------------------------------------------------------------------

    cdef Py_ssize_t _slot(self, object i, str name) except -1:
        cdef int64_t slot = _as_count(i, name, 0)
        if slot >= self._n:
            raise ValueError(f"{name} must be a slot of the bank, below {self._n}, got {i!r}")
        return slot

    def configure(self, i, config, /):
        """Replace slot ``i``'s configuration and restart it at tick 0, as
        ``WorldClock.configure`` does: the bank, the dropped count, the realized-speed window
        and the frame count restart too, the mode is kept, and followers resynchronise."""
        cdef Py_ssize_t slot = self._slot(i, "i")
        if not isinstance(config, ClockConfig):
            raise TypeError(f"config must be a ClockConfig, got {config!r}")
        cdef ClockConfig cfg = <ClockConfig>config
        self._enter()
        try:
            self._counts()
            if self._n > 1:
                self._shared = False   # its own configuration, or at least its own window
            self._scale_hi = max(self._scale_hi, cfg.scale)
            self._fixed_dt_lo = min(self._fixed_dt_lo, cfg.fixed_dt)
            (<double *>self._c.scale)[slot] = cfg.scale
            (<double *>self._c.fixed_dt)[slot] = cfg.fixed_dt
            (<int64_t *>self._c.max_steps)[slot] = cfg.max_steps_per_advance
            (<uint8_t *>self._c.cap_scales)[slot] = cfg.cap_scales_with_rate
            (<int64_t *>self._c.lockstep)[slot] = cfg.lockstep_steps
            self._c.tick[slot] = 0
            self._c.bank[slot] = 0.0
            self._alpha[slot] = 0.0
            self._c.dropped[slot] = 0
            self._frame_base[slot] = self._frames
            self._c.window_wall[slot] = 0.0
            self._c.window_ticks[slot] = 0
            self._c.realized[slot] = -1.0
            self._discontinuities[slot] += 1
        finally:
            self._busy = False

    def clock_state(self, i, /):
        """Slot ``i`` as a ``ClockState``: exactly what ``WorldClock.state()`` returns for a
        clock given the same calls (no timers, nothing owed)."""
        cdef Py_ssize_t slot = self._slot(i, "i")
        if cvc_slot_bad(&self._c, slot, 0.0, 0, &_RULES):
            self._raise_bad_slot(slot, False, 0.0)
        self._enter()
        try:
            self._sync_slot(slot)
        finally:
            self._busy = False
        cdef bint live = self._mode_seen[slot] == MODE_LIVE
        cdef double realized = self._c.realized[slot]
        config = ClockConfig(self._c.fixed_dt[slot], scale=self._c.scale[slot],
                             max_steps_per_advance=self._c.max_steps[slot],
                             cap_scales_with_rate=self._c.cap_scales[slot] != 0,
                             lockstep_steps=self._c.lockstep[slot])
        return _clock_state_from_fields(
            config, _MODES[self._mode_seen[slot]], _MODES[self._resume_mode[slot]],
            self._c.tick[slot], self._c.bank[slot],
            self._c.bank[slot] if live else self._alpha[slot], 0, self._c.dropped[slot],
            self._frames - self._frame_base[slot], self._window_wall(slot),
            self._window_ticks(slot), realized if realized >= 0.0 else 0.0,
            realized >= 0.0, self._discontinuities[slot], 0, ())


cdef class BankFollower:
    """BankFollower(k, start_tick=0)
--

A ``ClockFollower`` for every slot of a ``ClockBank``: steps every ``k`` quanta of each.

    Parameters
    ----------
    k : int or numpy.ndarray
        The period in quanta, at least 1: one for every slot, or an integer array of one a slot.
    start_tick : int or numpy.ndarray
        Each slot owes the steps due after this tick: one for every slot, or one a slot.

    Notes
    -----
    Slot i counts exactly what ``ClockFollower(k[i], start_tick[i]).take(clock)`` counts, a
    discontinuity included (after ``configure(i, ...)`` it returns 0 once for that slot and
    resynchronises). With only scalars, the follower takes its size from the first bank it
    follows; from then on (or with an array) it follows banks of that size.
    """

    cdef Py_ssize_t _n              # -1 until known
    cdef bint _made
    cdef bint _busy
    cdef int64_t _period            # when _periods is None
    cdef int64_t _start             # when _start_ticks is None
    cdef object _periods            # int64 array, one k a slot, or None
    cdef object _start_ticks
    cdef int64_t[::1] _last
    cdef int64_t[::1] _seen         # discontinuities last seen; -1: adopt at the first take
    cdef int64_t[::1] _due
    cdef object _arrays             # (last_tick, due) read-only views


    def __cinit__(self, *args, **kwargs):
        self._n = -1
        self._period = 1

    def __init__(self, k, start_tick=0):
        if self._made:
            raise TypeError("BankFollower.__init__ runs once; make a new BankFollower")
        if self._busy:
            raise RuntimeError("the BankFollower is busy with another call")
        np = _numpy()
        cdef Py_ssize_t n = -1
        periods = starts = None
        cdef int64_t period = 1, start = 0
        for name, value in (("k", k), ("start_tick", start_tick)):
            if isinstance(value, np.ndarray):   # the first array gives the size
                if value.ndim != 1:
                    raise ValueError(f"{name} must be one-dimensional, one value a slot, got "
                                     f"shape {value.shape}")
                if n < 0:
                    n = value.shape[0]
        if isinstance(k, np.ndarray):
            periods = _count_array(k, "k", n, 1)
        else:
            period = _as_count(k, "k", 1)
        if isinstance(start_tick, np.ndarray):
            starts = _count_array(start_tick, "start_tick", n, 0)
        else:
            start = _as_count(start_tick, "start_tick", 0)
        self._period, self._start, self._periods, self._start_ticks = period, start, periods, starts
        if n >= 0:
            self._lay_out(n)
        self._made = True

    cdef int _lay_out(self, Py_ssize_t n) except -1:
        np = _numpy()
        last = (self._start_ticks.copy() if self._start_ticks is not None
                else np.full(n, self._start, np.int64))
        seen = np.full(n, -1, np.int64)
        due = np.zeros(n, np.int64)
        views = (last.view(), due.view())
        for v in views:
            v.flags.writeable = False
        self._last, self._seen, self._due, self._arrays, self._n = last, seen, due, views, n
        return 0

    @property
    def period(self):
        """The period in quanta: the int, or the read-only int64 array of one a slot."""
        if self._periods is None:
            return self._period
        view = self._periods.view()
        view.flags.writeable = False
        return view

    @property
    def last_tick(self):
        """int64 array, read-only view: the tick up to which each slot's due steps were
        counted; empty until the first take if the follower was made with scalars only."""
        if self._n < 0:
            return _numpy().zeros(0, _numpy().int64)
        return self._arrays[0]

    def take(self, ClockBank bank not None, /):
        """The steps that fell due on each slot since the last take (or the start).

        Returns
        -------
        numpy.ndarray
            int64, read-only: steps due per slot; the same array every call, overwritten by
            the next. ``numpy.flatnonzero`` of it lists the worlds to step.
        """
        cdef const int64_t[::1] periods
        cdef bint each = self._periods is not None
        cdef int64_t period = self._period, tick, k
        cdef int64_t *ticks = bank._c.tick
        cdef int64_t *discontinuities = bank._discontinuities
        cdef Py_ssize_t i
        with cython.critical_section(self, bank):   # check-and-set both as one step
            if self._busy or bank._busy:
                raise RuntimeError("the BankFollower or its bank is busy with another call")
            self._busy = bank._busy = True
        try:
            if self._n < 0:
                self._lay_out(bank._n)
            elif bank._n != self._n:
                raise ValueError(f"bank has {bank._n} clocks; this follower follows {self._n}")
            if each:
                periods = self._periods
            with nogil:
                for i in range(self._n):
                    tick = ticks[i]
                    self._due[i] = 0
                    if self._seen[i] != discontinuities[i]:
                        if self._seen[i] != -1:
                            self._seen[i] = discontinuities[i]
                            self._last[i] = tick
                            continue
                        self._seen[i] = discontinuities[i]
                    if tick <= self._last[i]:
                        continue
                    k = periods[i] if each else period
                    self._due[i] = tick // k - self._last[i] // k
                    self._last[i] = tick
        finally:
            self._busy = bank._busy = False
        return self._arrays[1]

    def __repr__(self):
        return f"<BankFollower of {self._n if self._n >= 0 else 'any number of'} clocks>"
