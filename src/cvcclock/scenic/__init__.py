# mypy: disable-error-code="import-untyped, import-not-found"
# (Scenic, the scenic extra, ships no type information; this module types its own side.)
"""Real Scenic programs paced, recorded and replayed on a cvcclock clock.

``PacedSimulator(inner, clock)`` wraps any Scenic simulator; ``start`` runs a simulation whose
every step waits for a due step of the clock, so pause, single-step, speed, lockstep and
batch mean the same for a ``.scenic`` program as for any follower, and a paced run's
``SimulationResult`` equals a plain one for the same scene and seed. Needs the extra
(Scenic 3.1): ``pip install '.[scenic]'`` in a checkout, ``pip install 'cvcclock[scenic]'``
from an index.
"""

from __future__ import annotations

try:
    import scenic  # noqa: F401 - the extra's one dependency, checked once here
except ImportError as e:   # pragma: no cover - the README's suite runs without it
    from cvcclock._extras import install_hint

    raise ImportError(f"cvcclock.scenic needs Scenic: {install_hint('scenic')}") from e

from cvcclock._public import publish
from cvcclock.scenic._canon import (
    canonical,
    result_key,
    state_hash,
    step_hashes,
    trajectory_hash,
)
from cvcclock.scenic._recording import OperatorInput, RecordingError, ScenicRecording
from cvcclock.scenic._run import Divergence, ScenicRun, operator_inputs
from cvcclock.scenic._simulator import PacedSimulator

__all__ = ["Divergence", "OperatorInput", "PacedSimulator", "RecordingError",
           "ScenicRecording", "ScenicRun", "canonical", "operator_inputs", "result_key",
           "state_hash", "step_hashes", "trajectory_hash"]

publish(__name__, globals(), __all__)
