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
cdef enum:
    MODE_LIVE = 0
    MODE_LOCKSTEP = 1
    MODE_PAUSED = 2
    MODE_STEPPING = 3
    MODE_REPLAY = 4

# Quanta beyond this in one call cannot be counted exactly in a double.
cdef double MAX_QUANTA = 2.0 ** 52
# Bounds that keep one call's quanta countable: a live advance spans at most
# wall_dt * MAX_SCALE / MIN_FIXED_DT quanta, and per-call step counts stay small.
cdef double MIN_FIXED_DT = 1e-6
cdef double MAX_SCALE = 1e6
cdef int64_t MAX_STEPS_PER_CALL = 2 ** 32


cdef int _mode_index(object mode) except -1:
    if isinstance(mode, Mode):
        return _MODES.index(mode)
    if isinstance(mode, str):
        try:
            return _MODES.index(Mode(mode))
        except ValueError:
            pass
        raise ValueError(f"mode={mode!r} is not a mode; expected one of {_MODE_NAMES}")
    raise TypeError(f"mode must be a Mode or one of {_MODE_NAMES}, got {mode!r}")


cdef double _as_scale(object value) except? -1.0:
    return _as_seconds(value, "scale", 0.0, MAX_SCALE)


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
        cdef double dt = _as_seconds(fixed_dt, "fixed_dt", MIN_FIXED_DT)
        cdef double s = _as_scale(scale)
        cdef int64_t cap = _as_count(max_steps_per_advance, "max_steps_per_advance", 1,
                                     MAX_STEPS_PER_CALL)
        cdef bint cap_scales = _as_bool(cap_scales_with_rate, "cap_scales_with_rate")
        cdef int64_t lockstep = _as_count(lockstep_steps, "lockstep_steps", 1, MAX_STEPS_PER_CALL)
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
