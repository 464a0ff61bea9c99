"""The demo: a spring and a ball on one clock under every pacing mode, recorded and replayed.

- :mod:`._spring`: the worlds (:class:`Spring`, :class:`Ball`) and the determinism check
  run under every pacing (:func:`run_all`, :func:`contract_violations`, :func:`run_demo`);
- :mod:`._recording`: a scripted user's live run, recorded as a trace
  (:func:`record_demo`, :func:`save_recording`) and replayed under any pacing
  (:func:`replay_demo`);
- :mod:`._plot`: the pacing picture (:func:`plot_pacing` writes it, :func:`pacing_figure`
  returns it as a matplotlib Figure, :func:`plot_target` names the file a path gives; needs
  matplotlib, the ``plot`` extra).

``python -m cvcclock demo`` runs it; :mod:`cvcclock.cli.demo` is the command.
"""

from cvcclock._public import publish
from cvcclock.demo._plot import MISSING_MATPLOTLIB, pacing_figure, plot_pacing, plot_target
from cvcclock.demo._recording import (
    PACINGS,
    SCRIPT,
    SEED,
    SPRING_DT,
    WORLD,
    DemoRecording,
    DemoReplay,
    FrameStats,
    record_demo,
    replay_demo,
    save_recording,
    trajectory_hash,
)
from cvcclock.demo._spring import (
    FIXED_DT,
    FRAME,
    TICKS,
    Ball,
    ModeResult,
    Pacing,
    Spring,
    State,
    contract_violations,
    pacings,
    print_report,
    run_all,
    run_demo,
    run_pacing,
)

__all__ = ["FIXED_DT", "FRAME", "MISSING_MATPLOTLIB", "PACINGS", "SCRIPT", "SEED", "SPRING_DT",
           "TICKS", "WORLD", "Ball", "DemoRecording", "DemoReplay", "FrameStats", "ModeResult",
           "Pacing", "Spring", "State", "contract_violations", "pacing_figure", "pacings",
           "plot_pacing", "plot_target", "print_report", "record_demo", "replay_demo",
           "run_all", "run_demo", "run_pacing", "save_recording", "trajectory_hash"]

publish(__name__, globals(), __all__)
