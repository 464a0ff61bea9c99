"""The exceptions of the scenario runner: rejection, termination, and bad input."""

from __future__ import annotations

__all__ = [
    "ActionRejected",
    "BehaviorError",
    "GuardViolation",
    "RejectSimulation",
    "ScenarioFailed",
    "TooManyRejections",
]


class RejectSimulation(Exception):
    """The current attempt is rejected: a ``require`` failed, or a requirement was violated.

    Raised by :func:`~cvcclock.scenario.require` and caught by the runner, which records the
    reason and resamples with a derived seed. Do not catch it in a behavior.
    """


class GuardViolation(RejectSimulation):
    """A precondition or invariant (of a behavior or a scenario) was violated.

    A rejection by default; raised to the caller instead with
    ``raise_guard_violations=True``.
    """


class Terminate(Exception):
    """Internal: raised by :func:`~cvcclock.scenario.terminate`, caught by the runner."""

    def __init__(self, reason: str | None) -> None:
        super().__init__(reason)
        self.reason = reason


class BehaviorError(TypeError):
    """A behavior, monitor or compose block yielded neither ``take(...)`` nor ``wait()``."""


class ActionRejected(ValueError):
    """The simulator rejected an action; the message names the agent, the step and the action."""


class TooManyRejections(RuntimeError):
    """Every one of ``max_iterations`` attempts was rejected.

    Attributes
    ----------
    reasons : tuple of str
        Why each attempt was rejected, in order.
    """

    def __init__(self, message: str, reasons: tuple[str, ...]) -> None:
        super().__init__(message)
        self.reasons = reasons

    def __reduce__(self) -> tuple[type[TooManyRejections], tuple[str, tuple[str, ...]]]:
        return type(self), (str(self), self.reasons)


class ScenarioFailed(RuntimeError):
    """The run failed: an exception escaped one of its time steps, so it cannot go on.

    The pump in which user code (a behavior, monitor, compose block, predicate, record,
    trace or simulator method) raised re-raises that exception unchanged. The step it
    interrupted is never run again: every later ``pump()``, and reading ``result``, raises
    this error instead, chained to the original (``__cause__``).

    Attributes
    ----------
    error : BaseException
        The exception that ended the run.
    step : int
        The time step it interrupted.
    """

    def __init__(self, message: str, error: BaseException, step: int) -> None:
        super().__init__(message)
        self.error = error
        self.step = step

    def __reduce__(self) -> tuple[type[ScenarioFailed], tuple[str, BaseException, int]]:
        return type(self), (str(self), self.error, self.step)
