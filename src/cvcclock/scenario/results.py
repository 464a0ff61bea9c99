"""What a run returns: a plain, comparable value."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any

from cvcclock.checks import check_count, check_seed
from cvcclock.scenario._arguments import check_instance, check_step

__all__ = ["SimulationResult", "TerminationType"]


class TerminationType(enum.StrEnum):
    """Why a simulation ended (Scenic's termination types)."""

    TIME_LIMIT = "time limit"
    """``max_steps`` or ``time_limit`` given to the runner was reached."""
    SCENARIO_COMPLETE = "scenario complete"
    """The top-level scenario stopped: compose finished or terminated, ``terminate_after``
    or a ``terminate_when`` condition."""
    TERMINATION_CONDITION = "termination condition"
    """A ``terminate_simulation_when`` condition held."""
    MONITOR = "monitor"
    """A monitor called ``terminate()``."""
    BEHAVIOR = "behavior"
    """A behavior called ``terminate()``."""


@dataclasses.dataclass(frozen=True)
class SimulationResult:
    """The accepted attempt of a run. Two results of the same run compare equal (``==``).

    Attributes
    ----------
    trajectory : tuple of dict
        Per time step, including the last: ``{object name: {property: value}}`` as read
        from the simulator, saved in the records phase (before that step's actions).
    actions : tuple of dict
        Per time step whose behaviors all ran: ``{agent name: (action, ...)}``, every agent
        with a behavior included (``()`` for a wait). One entry fewer than ``trajectory``:
        the last step ends before its actions are executed.
    records : dict
        ``record`` name -> ``((step, value), ...)``, one pair per time step.
    records_initial, records_final : dict
        ``record_initial`` values at step 0 and ``record_final`` values at the end.
    termination_type : TerminationType
        Why the run ended.
    termination_reason : str
        A human-readable account of the same, naming the scenario, agent or condition.
    seed : int
        The seed the caller gave.
    run_seed : int
        The seed of the accepted attempt: ``seed`` itself when nothing was rejected, else
        derived from ``seed`` and the attempt number. Passing it as ``seed`` replays the
        accepted attempt alone.
    rejections : int
        Rejected attempts before the accepted one.
    rejection_reasons : tuple of str
        Why each was rejected, in order.
    dt : float
        The time step in seconds.

    Raises
    ------
    TypeError
        If a field is not of the type above.
    ValueError
        If ``rejections`` is negative or not the number of reasons, or ``dt`` is not > 0.
    """

    trajectory: tuple[dict[str, Mapping[str, Any]], ...]
    actions: tuple[dict[str, tuple[Any, ...]], ...]
    records: dict[str, tuple[tuple[int, Any], ...]]
    records_initial: dict[str, Any]
    records_final: dict[str, Any]
    termination_type: TerminationType
    termination_reason: str
    seed: int
    run_seed: int
    rejections: int
    rejection_reasons: tuple[str, ...]
    dt: float

    def __post_init__(self) -> None:
        for name, kind in _FIELD_TYPES.items():
            check_instance(getattr(self, name), kind, name)
        check_seed(self.seed, "seed")
        check_seed(self.run_seed, "run_seed")
        check_count(self.rejections, "rejections")
        check_step(self.dt, "dt")
        if self.rejections != len(self.rejection_reasons):
            raise ValueError(f"rejections must be len(rejection_reasons) = "
                             f"{len(self.rejection_reasons)}, got {self.rejections!r}")

    @property
    def steps(self) -> int:
        """The time steps whose behaviors ran: ``len(actions)``."""
        return len(self.actions)


_FIELD_TYPES: dict[str, type] = {
    "trajectory": tuple, "actions": tuple, "records": dict, "records_initial": dict,
    "records_final": dict, "termination_type": TerminationType, "termination_reason": str,
    "rejection_reasons": tuple,
}
