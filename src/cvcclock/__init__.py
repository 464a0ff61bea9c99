"""cvcclock: one deterministic simulation clock per process.

One driver advances the clock in whole fixed quanta; every simulation follows it at its own
whole-quantum rate. A run is a function of its initial state, its seed and its input trace
stamped by tick, never of the wall clock.
"""

from cvcclock._core import (
    BankFollower,
    ClockBank,
    ClockConfig,
    ClockFollower,
    ClockState,
    Mode,
    Presentation,
    StepResult,
    Timer,
    TimerState,
    WorldClock,
    ticks_per_step,
)
from cvcclock._public import publish
from cvcclock._version import __version__
from cvcclock.binding import IgnoredControl, TreeWriteError, WorldClockBinding
from cvcclock.keys import WorldClockKeys
from cvcclock.loop import FrameDriver, FrameLoop, PacingStats
from cvcclock.threads import SimThread, SimWorld

__all__ = [
    "BankFollower",
    "ClockBank",
    "ClockConfig",
    "ClockFollower",
    "ClockState",
    "Mode",
    "Presentation",
    "StepResult",
    "Timer",
    "TimerState",
    "WorldClock",
    "ticks_per_step",
    "IgnoredControl",
    "TreeWriteError",
    "WorldClockBinding",
    "WorldClockKeys",
    "FrameDriver",
    "FrameLoop",
    "PacingStats",
    "SimThread",
    "SimWorld",
    "__version__",
]

# The core names its compiled classes cvcclock.X itself (src/_core/_core.pyx); Mode is a Python
# class, published here as the wings publish theirs.
publish(__name__, globals(), ["Mode"])
