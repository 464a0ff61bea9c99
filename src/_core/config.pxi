# Modes, argument validation and the immutable clock configuration.
import enum
import math
import numbers
import operator

from cpython.long cimport PyLong_AsLongLongAndOverflow



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
# Tick counts are int64; this bound leaves room to add two of them without overflow.
cdef int64_t MAX_COUNT = 2 ** 62


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


cdef double _as_seconds(object value, str name, double minimum) except? -1.0:
    """A finite real number >= minimum, or an error naming ``name`` and the value."""
    cdef double d
    if type(value) is float:
        d = value
    elif isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    else:
        d = float(value)
    if not isfinite(d) or d < minimum:
        bound = "non-negative" if minimum == 0.0 else f">= {minimum!r}"
        raise ValueError(f"{name} must be finite and {bound}, got {value!r}")
    return d


cdef int64_t _as_count(object value, str name, int64_t minimum) except? -1:
    """An int (not a bool) >= minimum, or an error naming ``name`` and the value."""
    cdef int64_t n
    cdef int overflow = 0
    if type(value) is int:   # the hot path: no Python-level calls or comparisons
        n = PyLong_AsLongLongAndOverflow(value, &overflow)
        if overflow or not -MAX_COUNT <= n <= MAX_COUNT:
            raise ValueError(f"{name} is too large, got {value!r}")
    elif isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    else:
        try:
            index = operator.index(value)
        except TypeError:
            raise TypeError(f"{name} must be an integer, got {value!r}") from None
        if not -MAX_COUNT <= index <= MAX_COUNT:
            raise ValueError(f"{name} is too large, got {value!r}")
        n = index
    if n < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return n


cdef class ClockConfig:
    """The clock's configuration: an immutable value.

    Parameters
    ----------
    fixed_dt : float
        The quantum in seconds; finite and at least 1e-6.
    scale : float
        World seconds per wall second; 0 pauses.
    max_steps_per_advance : int
        The stall guard: at most this many quanta per ``advance``; at least 1.
    cap_scales_with_rate : bool
        For ``scale > 1`` the cap becomes ``max_steps_per_advance * ceil(scale)``.
    lockstep_steps : int
        Quanta per ``advance`` in lockstep mode; at least 1.
    """

    def __init__(self, *, fixed_dt=1.0 / 120.0, scale=1.0, max_steps_per_advance=8,
                 cap_scales_with_rate=False, lockstep_steps=1):
        self.fixed_dt = _as_seconds(fixed_dt, "fixed_dt", 1e-6)
        self.scale = _as_seconds(scale, "scale", 0.0)
        self.max_steps_per_advance = _as_count(max_steps_per_advance, "max_steps_per_advance", 1)
        if not isinstance(cap_scales_with_rate, bool):
            raise TypeError(f"cap_scales_with_rate must be a bool, got {cap_scales_with_rate!r}")
        self.cap_scales_with_rate = cap_scales_with_rate
        self.lockstep_steps = _as_count(lockstep_steps, "lockstep_steps", 1)

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
            "cap_scales_with_rate": self.cap_scales_with_rate,
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
