"""The exceptions of the scenario runner: rejection, termination, and bad input."""

from __future__ import annotations

__all__ = [
    "ActionRejected",
    "BehaviorError",
    "GuardViolation",
    "InvariantViolation",
    "PreconditionViolation",
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

    Never raised itself: one of its two subclasses is. A rejection by default; raised to the
    caller instead with ``raise_guard_violations=True``. Like any exception it passes up
    through the behaviors that delegated with ``do``, so a parent can catch it
    (``except PreconditionViolation:``) and do something else.
    """


class PreconditionViolation(GuardViolation):
    """A precondition was false when its behavior or scenario started."""


class InvariantViolation(GuardViolation):
    """An invariant was false when its behavior or scenario started or was resumed."""


class Terminate(BaseException):
    """Internal: raised by ``terminate`` and ``terminate_simulation``, caught by the runner.

    A BaseException, so a behavior's ``except Exception:`` cannot swallow it.

    Attributes
    ----------
    reason : str or None
        What the caller said.
    simulation : bool
        True for ``terminate_simulation()``: the whole simulation ends, not one scenario.
    origin : str or None
        Set by the compose block it passes out of first, for the reason.
    """

    def __init__(self, reason: str | None, simulation: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.simulation = simulation
        self.origin: str | None = None


class BehaviorError(TypeError):
    """A behavior, monitor or compose block yielded or delegated to something it may not.

    For example a yield that is neither ``take(...)``, ``wait()``, ``do(...)`` nor
    ``interrupt(...)``, or a behavior with invariants delegating with a plain ``yield from``.
    """


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
