# Modes and the immutable clock configuration.

class Mode(enum.StrEnum):
    """How ``WorldClock.advance`` turns wall time into quanta.

    The values are the names the state tree and ``pycvc`` use.
    """

    LIVE = "live"
    LOCKSTEP = "lockstep"
    PAUSED = "paused"
    STEPPING = "stepping"
    REPLAY = "replay"


# Index i of _MODES is the int the core stores; keep in step with the MODE_* constants.
cdef tuple _MODES = tuple(Mode)
cdef str _MODE_NAMES = ", ".join(m.value for m in _MODES)
# realized_scale's window: it completes once this much wall time has been supplied.
cdef double WINDOW_WALL = 0.5
_REALIZED_WINDOW = WINDOW_WALL   # for the pacing picture, which says so

cdef enum:
    MODE_LIVE = 0
    MODE_LOCKSTEP = 1
    MODE_PAUSED = 2
    MODE_STEPPING = 3
    MODE_REPLAY = 4

# The banking arithmetic, in C (banking.h): WorldClock.advance and the ClockBank's loops
# call the same functions. MAX_QUANTA: quanta beyond this in one call (2**52) cannot be
# counted exactly in a double.
cdef extern from "banking.h" nogil:
    const double MAX_QUANTA "CVC_MAX_QUANTA"
    ctypedef struct cvc_banked:
        int64_t steps
        int64_t dropped
        double bank
    double cvc_quanta(double wall_dt, double scale, double fixed_dt)
    cvc_banked cvc_bank_live(double bank, double wall_dt, double scale, double fixed_dt,
                             int64_t max_steps, int64_t cap_scales)
# Bounds that keep one call's quanta countable: a live advance spans at most
# wall_dt * MAX_SCALE / MIN_FIXED_DT quanta, and per-call step counts stay small.
cdef double MIN_FIXED_DT = 1e-6
cdef double MAX_SCALE = 1e6
cdef int64_t MAX_STEPS_PER_CALL = 2 ** 32


# Each rule of a clock's configuration and mode, once: ClockConfig, WorldClock's setters and
# advance, and ClockBank's checks of its arrays (slot i's values, named like "scale[i]") call
# these, so a value is refused with the same words wherever it is set.

cdef int _mode_index(object mode) except -1:
    """The index in _MODES of a Mode or its name."""
    if isinstance(mode, Mode):
        return _MODES.index(mode)
    if isinstance(mode, str):
        try:
            return _MODES.index(Mode(mode))
        except ValueError:
            pass
        raise ValueError(f"mode={mode!r} is not a mode; expected one of {_MODE_NAMES}")
    raise TypeError(f"mode must be a Mode or one of {_MODE_NAMES}, got {mode!r}")


cdef int _as_mode_number(int64_t mode, str name) except -1:
    """An index into _MODES as the core stores it (ClockBank's mode array)."""
    if not 0 <= mode < len(_MODES):
        raise ValueError(f"{name} must be the index of a mode in ClockBank.MODES, 0 to "
                         f"{len(_MODES) - 1} ({_MODE_NAMES}), got {mode}")
    return <int>mode


cdef double _as_scale(object value, str name="scale") except? -1.0:
    return _as_seconds(value, name, 0.0, MAX_SCALE)


cdef double _as_fixed_dt(object value, str name="fixed_dt") except? -1.0:
    return _as_seconds(value, name, MIN_FIXED_DT)


cdef double _as_wall_dt(object value, str name="wall_dt") except? -1.0:
    """Wall seconds an advance banks: finite and non-negative."""
    return _as_seconds(value, name, 0.0)


cdef int64_t _as_steps(object value, str name) except? -1:
    """max_steps_per_advance and lockstep_steps: quanta per call, 1 to 2**32."""
    return _as_count(value, name, 1, MAX_STEPS_PER_CALL)


cdef double _as_window_wall(object value, str name) except? -1.0:
    """A realized-speed window's wall seconds so far: finite, in [0, WINDOW_WALL) (an advance
    that reaches WINDOW_WALL completes the window and restarts it at 0)."""
    cdef double d = _as_real(value, name)
    if not 0.0 <= d < WINDOW_WALL:
        raise ValueError(f"{name} must be in [0, {WINDOW_WALL!r}), got {value!r}")
    return d


cdef double _as_realized(object value, str name) except? -1.0:
    """A realized speed: a float >= 0, not NaN; infinite is one (a quantum near the largest
    double times a count of quanta overflows)."""
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    cdef double d
    try:
        d = float(value)
    except OverflowError:
        d = INFINITY if value > 0 else -INFINITY
    if not d >= 0.0:   # also NaN
        raise ValueError(f"{name} must be >= 0 and not NaN, got {value!r}")
    return d


cdef int _raise_too_wide(object wall_dt, double scale, double fixed_dt, str where) except -1:
    """Refuse a live advance that spans more than MAX_QUANTA quanta (cvc_quanta says which)."""
    raise ValueError(f"wall_dt={wall_dt!r} at scale {scale!r} spans more than 2**52 quanta "
                     f"of {fixed_dt!r} s{where}")


cdef class ClockConfig:
    """ClockConfig(fixed_dt=0.008333333333333333, *, scale=1.0, max_steps_per_advance=8, cap_scales_with_rate=False, lockstep_steps=1)
--

The clock's configuration: an immutable value.

    Parameters
    ----------
    fixed_dt : float
        The quantum in seconds; finite and at least 1e-6.
    scale : float
        World seconds per wall second; 0 pauses; at most 1e6.
    max_steps_per_advance : int
        The stall guard: at most this many quanta per ``advance``; 1 to 2**32.
    cap_scales_with_rate : bool
        For ``scale > 1`` the cap becomes ``max_steps_per_advance * ceil(scale)``.
    lockstep_steps : int
        Quanta per ``advance`` in lockstep mode; 1 to 2**32.
    """

    # Filled by __init__ and never changed after: any thread reads it (threads.pxi).
    cdef bint _frozen
    cdef readonly double fixed_dt
    cdef readonly double scale
    cdef readonly int64_t max_steps_per_advance
    cdef readonly bint cap_scales_with_rate
    cdef readonly int64_t lockstep_steps


    def __cinit__(self):
        # The defaults, so that an instance made with __new__ is a valid configuration.
        self.fixed_dt = 1.0 / 120.0
        self.scale = 1.0
        self.max_steps_per_advance = 8
        self.lockstep_steps = 1

    def __init__(self, fixed_dt=1.0 / 120.0, *, scale=1.0, max_steps_per_advance=8,
                 cap_scales_with_rate=False, lockstep_steps=1):
        if self._frozen:
            raise TypeError("ClockConfig is immutable; use replace()")
        # Validate everything before assigning anything: a failed call changes nothing.
        cdef double dt = _as_fixed_dt(fixed_dt)
        cdef double s = _as_scale(scale)
        cdef int64_t cap = _as_steps(max_steps_per_advance, "max_steps_per_advance")
        cdef bint cap_scales = _as_bool(cap_scales_with_rate, "cap_scales_with_rate")
        cdef int64_t lockstep = _as_steps(lockstep_steps, "lockstep_steps")
        self.fixed_dt, self.scale, self.max_steps_per_advance = dt, s, cap
        self.cap_scales_with_rate, self.lockstep_steps = cap_scales, lockstep
        self._frozen = True

    def replace(self, **changes):
        """Return a copy with the given fields changed (validated as in the constructor)."""
        fields = self._asdict()
        for name in changes:
            if name not in fields:
                raise TypeError(f"ClockConfig has no field {name!r}")
        fields.update(changes)
        return ClockConfig(**fields)

    def _asdict(self):
        """The fields as a dict, in declaration order."""
        return {
            "fixed_dt": self.fixed_dt,
            "scale": self.scale,
            "max_steps_per_advance": self.max_steps_per_advance,
            "cap_scales_with_rate": bool(self.cap_scales_with_rate),
            "lockstep_steps": self.lockstep_steps,
        }

    def __eq__(self, other):
        if not isinstance(other, ClockConfig):
            return NotImplemented
        return self._asdict() == (<ClockConfig>other)._asdict()

    def __hash__(self):
        return hash(tuple(self._asdict().values()))

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._asdict().items())
        return f"ClockConfig({args})"

    def __reduce__(self):
        return (_config_from_dict, (self._asdict(),))


def _config_from_dict(fields):
    return ClockConfig(**fields)
