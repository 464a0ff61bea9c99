"""The pycvc-shaped API over the same core: ``import cvcclock.pycvc as pycvc``.

Code written against pycvc's ``world_clock`` runs unchanged::

    import cvcclock.pycvc as pycvc
    app = pycvc.App()
    clock = app.world_clock()
    clock.set_config(0.01, 1.0, 8, 1, True)
    binding = pycvc.world_clock_binding(app, clock)
    nav = pycvc.clock_follower.for_step(clock, 0.06)
    r = binding.drive(1 / 60)

Each class is a thin wrapper: ``world_clock.clock`` is the ``cvcclock.WorldClock`` underneath
and ``clock_follower.follower`` the ``cvcclock.ClockFollower``, so the two APIs mix freely.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, MutableMapping
from typing import Any, SupportsIndex

from cvcclock._core import ClockConfig, ClockFollower, StepResult, WorldClock, ticks_per_step
from cvcclock.binding import WorldClockBinding
from cvcclock.checks import check_bool
from cvcclock.keys import WorldClockKeys

__all__ = ["App", "clock_follower", "ticks_per_step", "world_clock", "world_clock_binding",
           "world_clock_keys"]

#: pycvc's name for ``cvcclock.WorldClockKeys``: ``world_clock_keys.under("coast.clock")``.
world_clock_keys = WorldClockKeys


@contextlib.contextmanager
def _named(core_name: str, name: str) -> Iterator[None]:
    """Re-raise the core's TypeError or ValueError about ``core_name`` as one about ``name``,
    the argument the pycvc caller passed: the rule stays the core's, the name is pycvc's."""
    try:
        yield
    except (TypeError, ValueError) as exc:
        message, renamed = re.subn(rf"^{core_name}\b", name, str(exc))
        if not renamed:
            raise
        raise type(exc)(message) from None


class world_clock:  # noqa: N801 - pycvc's name
    """pycvc's ``world_clock``: a ``cvcclock.WorldClock`` behind pycvc's method names.

    Parameters
    ----------
    config : ClockConfig, optional
        The configuration; ``ClockConfig()`` when omitted.

    Attributes
    ----------
    clock : WorldClock
        The clock underneath, for code using the cvcclock API.
    """

    __slots__ = ("clock",)

    def __init__(self, config: ClockConfig | None = None) -> None:
        self.clock = WorldClock(config)

    def set_config(self, fixed_dt: float, scale: float = 1.0, max_steps: SupportsIndex = 8,
                   lockstep_steps: SupportsIndex = 1,
                   cap_scales_with_rate: bool = False) -> None:
        """Replace the configuration and restart at tick 0 (``WorldClock.configure``).

        Parameters
        ----------
        fixed_dt : float
            The quantum in seconds.
        scale : float
            World seconds per wall second; 0 pauses.
        max_steps : int
            The stall guard, ``max_steps_per_advance``.
        lockstep_steps : int
            Quanta per ``advance`` in lockstep.
        cap_scales_with_rate : bool
            For scale > 1 the cap becomes ``max_steps * ceil(scale)``; ``numpy.bool_`` too.

        Raises
        ------
        TypeError, ValueError
            If an argument is bad, naming it as here (``max_steps``); nothing changes.
        """
        cap = check_bool(cap_scales_with_rate, "cap_scales_with_rate")
        with _named("max_steps_per_advance", "max_steps"):
            config = ClockConfig(fixed_dt=fixed_dt, scale=scale, max_steps_per_advance=max_steps,
                                 lockstep_steps=lockstep_steps, cap_scales_with_rate=cap)
        self.clock.configure(config)

    def set_mode_name(self, name: str) -> None:
        """Set the mode by name: ``live``, ``lockstep``, ``stepping``, ``paused`` or ``replay``.

        Raises
        ------
        TypeError, ValueError
            If ``name`` is not a str (or ``Mode``) or names no mode; nothing changes.
        """
        with _named("mode", "name"):
            self.clock.mode = name

    def mode_name(self) -> str:
        """The current mode's name."""
        return self.clock.mode.value

    def tick(self) -> int:
        """The authoritative integer world time, in quanta."""
        return self.clock.tick

    def t(self) -> float:
        """World seconds: ``tick() * fixed_dt``."""
        return self.clock.t

    def alpha(self) -> float:
        """The clock's alpha: the fraction of a quantum banked (see ``WorldClock.alpha``)."""
        return self.clock.alpha

    def total_dropped(self) -> int:
        """Quanta the stall guard dropped since the last configuration."""
        return self.clock.total_dropped

    def realized_scale(self) -> float:
        """World seconds run per wall second over the last window of at least 0.5 s."""
        return self.clock.realized_scale

    def advance(self, wall_dt: float) -> StepResult:
        """Advance by ``wall_dt`` wall seconds, as the mode says (``WorldClock.advance``)."""
        return self.clock.advance(wall_dt)

    def advance_ticks(self, n: SupportsIndex) -> StepResult:
        """Run exactly ``n`` quanta now, in any mode, with no cap."""
        return self.clock.advance_ticks(n)

    def step_once(self) -> StepResult:
        """Run exactly one quantum, in any mode."""
        return self.clock.step_once()

    def seek_tick(self, n: SupportsIndex) -> None:
        """Position the clock at tick ``n``; replay mode only."""
        self.clock.seek_tick(n)

    def wait_for_tick_change(self, tick: SupportsIndex,
                             timeout: float | None = None) -> int | None:
        """Block until the tick differs from ``tick``; the new tick, or None on timeout."""
        return self.clock.wait_for_tick_change(tick, timeout)

    def __repr__(self) -> str:
        return f"pycvc.world_clock(tick={self.clock.tick}, mode={self.clock.mode.value!r})"


def _core_clock(clock: object) -> WorldClock:
    """The ``WorldClock`` under a pycvc ``world_clock``, or the ``WorldClock`` itself."""
    if isinstance(clock, world_clock):
        return clock.clock
    if isinstance(clock, WorldClock):
        return clock
    raise TypeError(f"clock must be a pycvc.world_clock or a cvcclock.WorldClock, got {clock!r}")


class clock_follower:  # noqa: N801 - pycvc's name
    """pycvc's ``clock_follower``: a simulation stepping every ``k`` quanta of a clock.

    Parameters
    ----------
    k : int
        The period in quanta; at least 1.
    start_tick : int
        The follower owes the steps due after this tick.

    Attributes
    ----------
    follower : ClockFollower
        The follower underneath, for code using the cvcclock API.
    """

    __slots__ = ("follower",)

    def __init__(self, k: SupportsIndex, start_tick: SupportsIndex = 0) -> None:
        self.follower = ClockFollower(k, start_tick)

    @staticmethod
    def for_step(clock: world_clock | WorldClock, dt: float) -> clock_follower:
        """A follower stepping every ``dt`` seconds (whole quanta), from the clock's tick.

        Parameters
        ----------
        clock : world_clock or WorldClock
            The clock it follows.
        dt : float
            Its step in seconds; ``ticks_per_step(dt, fixed_dt)`` quanta.

        Returns
        -------
        clock_follower
        """
        follower = clock_follower.__new__(clock_follower)
        follower.follower = ClockFollower.for_step(_core_clock(clock), dt)
        return follower

    @property
    def period(self) -> int:
        """The period in quanta."""
        return self.follower.period

    def take(self, clock: world_clock | WorldClock) -> int:
        """The number of steps that fell due since the last take (see ``ClockFollower.take``)."""
        return self.follower.take(_core_clock(clock))

    def alpha(self, tick: SupportsIndex, clock_alpha: float) -> float:
        """The fraction into this follower's own step: ``((tick % k) + clock_alpha) / k``."""
        return self.follower.alpha(tick, clock_alpha)

    def __repr__(self) -> str:
        follower = self.follower
        return f"pycvc.clock_follower(k={follower.period}, last_tick={follower.last_tick})"


class App:
    """pycvc's ``App``: a state tree and the process's one clock.

    Parameters
    ----------
    tree : MutableMapping, optional
        The state tree; a new ``dict`` when omitted.

    Attributes
    ----------
    tree : MutableMapping
        The state tree that bindings made with this app read and write.
    """

    __slots__ = ("_clock", "tree")

    def __init__(self, tree: MutableMapping[str, Any] | None = None) -> None:
        if tree is not None and not isinstance(tree, MutableMapping):
            raise TypeError(f"tree must be a mutable mapping, got {tree!r}")
        self.tree: MutableMapping[str, Any] = {} if tree is None else tree
        self._clock = world_clock()

    def world_clock(self) -> world_clock:
        """The app's clock: the same ``world_clock`` on every call."""
        return self._clock


class world_clock_binding(WorldClockBinding):  # noqa: N801 - pycvc's name
    """pycvc's ``world_clock_binding``: a ``WorldClockBinding`` on an app's state tree.

    Parameters
    ----------
    app : App
        The app whose ``tree`` holds the keys.
    clock : world_clock or WorldClock
        The clock to drive; ``binding.clock`` is the ``WorldClock`` underneath.
    keys : str or WorldClockKeys or None
        A prefix, a key table, or None for the ``sim.*`` keys.

    Notes
    -----
    ``drive``, ``request_steps``, ``ignored`` and the rules are ``WorldClockBinding``'s.
    """

    __slots__ = ()

    def __init__(self, app: App, clock: world_clock | WorldClock,
                 keys: str | WorldClockKeys | None = None) -> None:
        if not isinstance(app, App):
            raise TypeError(f"app must be a pycvc.App, got {app!r}")
        super().__init__(app.tree, _core_clock(clock), keys)
