# mypy: disable-error-code="import-untyped, import-not-found"
# (Scenic, the scenic extra, ships no type information; this module types its own side.)
"""PacedSimulator: any Scenic simulator, its steps paced by a cvcclock clock."""

from __future__ import annotations

import functools
import os
from typing import Any

from scenic.core.simulators import Simulator

from cvcclock._core import WorldClock, ticks_per_step
from cvcclock._version import __version__
from cvcclock.checks import (
    check_count,
    check_global_seed,
    check_path,
    check_seconds,
    check_timeout,
)
from cvcclock.scenic._recording import RecordingError, ScenicRecording
from cvcclock.scenic._run import RunSpec, ScenicRun, _qualified

__all__ = ["PacedSimulator"]

# Arguments start() sets itself; passing them through **simulate_kwargs is an error.
_OWN = frozenset({"maxSteps", "timestep", "replay", "scene"})


@functools.cache
def _scenic_version() -> str:
    # Once per process: a metadata look-up scans the installed distributions (~10 ms).
    from importlib.metadata import version

    return version("scenic")


class PacedSimulator(Simulator):  # type: ignore[misc]  # Scenic has no type information
    """A Scenic ``Simulator`` whose every step waits for a due step of a cvcclock clock.

    ``createSimulation`` delegates to ``inner``, so every Scenic simulator interface works
    unchanged; ``start`` runs a simulation on a worker thread, each of its steps gated by a
    ``ClockFollower`` of ``clock``. Pacing decides when Scenic steps, never which: for the same
    scene and seed a paced run's ``SimulationResult`` equals the plain
    ``inner.simulate(scene, maxSteps=...)``'s, however the clock is driven.

    Parameters
    ----------
    inner : scenic.core.simulators.Simulator
        The simulator to pace (``DummySimulator()``, ``NewtonianSimulator()``, CARLA's, ...).
    clock : WorldClock
        The clock whose quanta pace the steps. A Scenic timestep must be a whole number of
        its quanta.
    stop_timeout : float
        The most seconds ``ScenicRun.close`` waits for a worker to end by default.

    Raises
    ------
    TypeError
        If ``inner`` is not a Scenic ``Simulator`` (or is a ``PacedSimulator``), or ``clock``
        is not a ``WorldClock``.
    ValueError
        If ``stop_timeout`` is out of range.
    """

    def __init__(self, inner: Simulator, clock: WorldClock, *,
                 stop_timeout: float = 2.0) -> None:
        if not isinstance(inner, Simulator) or isinstance(inner, PacedSimulator):
            raise TypeError(f"inner must be a Scenic Simulator (not a PacedSimulator), got "
                            f"{inner!r}")
        if not isinstance(clock, WorldClock):
            raise TypeError(f"clock must be a cvcclock.WorldClock, got {clock!r}")
        self._stop_timeout = check_timeout(stop_timeout, "stop_timeout", forever=False)
        super().__init__()
        self.inner = inner
        self.clock = clock

    def createSimulation(self, scene: Any, **kwargs: Any) -> Any:  # noqa: N802 - Scenic's name
        """Scenic's hook: the inner simulator makes the ``Simulation``."""
        return self.inner.createSimulation(scene, **kwargs)

    def destroy(self) -> None:
        """Destroy the inner simulator, then this one (Scenic refuses a second call)."""
        self.inner.destroy()
        super().destroy()

    def simulate(self, scene: Any, maxSteps: int,  # noqa: N803 - Scenic's name
                 maxIterations: int = 1, **kwargs: Any) -> Any:
        """Scenic's ``simulate``, paced: blocks until the run ends; returns the ``Simulation``.

        Some other thread must drive the clock meanwhile (a ``FrameLoop``, a binding's
        ``drive``); ``start`` is the call to use from the driving thread.
        """
        with self.start(scene, maxSteps=maxSteps, maxIterations=maxIterations,
                        **kwargs) as run:
            run.wait()
            run.result    # noqa: B018 - re-raises the simulation's error
            return run.simulation

    def start(self, scene: Any, *, maxSteps: int, timestep: float | None = None,  # noqa: N803
              seed: int | None = None, record: str | os.PathLike[str] | None = None,
              scenario: Any = None, **simulate_kwargs: Any) -> ScenicRun:
        """Start a paced simulation of ``scene`` on a worker thread.

        Returns once Scenic has begun the simulation (its ``Simulation`` exists and its
        follower is bound); the first step waits for the clock.

        Parameters
        ----------
        scene : scenic.core.scenarios.Scene
            The scene to simulate (``scenario.generate()``).
        maxSteps : int
            The most Scenic steps, >= 1.
        timestep : float or None
            Seconds per Scenic step, a whole number of the clock's quanta; None takes the
            inner simulator's default (checked when the simulation begins).
        seed : int or None
            Seeds ``random`` and ``numpy.random`` (as Scenic's ``--seed`` does) just before
            the simulation; 0 to 2**32 - 1. None leaves them as they are.
        record : str, os.PathLike or None
            Write the run to this file when it finishes (``ScenicRecording``); needs
            ``scenario``, since a ``Scene`` does not know the scenario it came from.
        scenario : scenic.core.scenarios.Scenario or None
            The scenario ``scene`` was generated from; needed by ``record``.
        **simulate_kwargs
            Passed on to Scenic's ``simulate`` (``maxIterations``, ``verbosity``,
            ``raiseGuardViolations``, ``enableDivergenceCheck``, ...).

        Returns
        -------
        ScenicRun

        Raises
        ------
        TypeError, ValueError
            For a bad argument, naming it (a timestep that is not whole quanta names both).
        RuntimeError
            If another Scenic run is active in this process.
        """
        spec = self._spec(scene, maxSteps, timestep, seed, scenario, simulate_kwargs)
        if record is not None:
            spec.record = check_path(record, "record")
            if scenario is None or not callable(getattr(scenario, "sceneToBytes", None)):
                raise ValueError("record needs scenario=, the Scenario the scene was "
                                 f"generated from (a Scene does not link to it), got "
                                 f"{scenario!r}")
        return ScenicRun(spec, self.clock, stop_timeout=self._stop_timeout)

    def replay(self, scenario: Any, path: str | os.PathLike[str],
               **simulate_kwargs: Any) -> ScenicRun:
        """Replay a recording on this simulator, paced by the clock as any run is.

        Parameters
        ----------
        scenario : scenic.core.scenarios.Scenario
            The scenario the recording was made from (its scene is decoded with it, and
            Scenic checks that it is the same).
        path : str or os.PathLike
            A file written by ``start(..., record=...)``.
        **simulate_kwargs
            Passed on to Scenic's ``simulate``.

        Returns
        -------
        ScenicRun
            ``divergence`` names the first step whose state hash differs, once it ended.

        Raises
        ------
        RecordingError
            If the file is damaged or its scene does not decode with ``scenario``.
        OSError
            If it cannot be read.
        """
        recording = ScenicRecording.load(path)
        try:
            scene = scenario.sceneFromBytes(recording.scene)
        except Exception as e:  # noqa: BLE001 - Scenic's SerializationError and kin
            raise RecordingError(f"{os.fspath(path)}: its scene does not decode with this "
                                 f"scenario ({type(e).__name__}: {e})") from e
        header = recording.header
        try:
            spec = self._spec(scene, header["maxSteps"], header["timestep"], header["seed"],
                              scenario, simulate_kwargs)
        except (TypeError, ValueError) as e:
            raise RecordingError(f"{os.fspath(path)}: its header cannot be run here: {e}") \
                from e
        spec.inputs = list(recording.inputs)
        spec.expected = recording
        return ScenicRun(spec, self.clock, stop_timeout=self._stop_timeout)

    def _spec(self, scene: Any, max_steps: Any, timestep: Any, seed: Any, scenario: Any,
              kwargs: dict[str, Any]) -> RunSpec:
        """The checked arguments of a run; raises before anything starts."""
        if not hasattr(scene, "dynamicScenario"):
            raise TypeError(f"scene must be a Scenic Scene, got {scene!r}")
        steps = check_count(max_steps, "maxSteps", minimum=1)
        if timestep is not None:
            timestep = check_seconds(timestep, "timestep")
            ticks_per_step(timestep, self.clock.fixed_dt)     # names both when not whole
        if seed is not None:
            seed = check_global_seed(seed)
        own = _OWN & kwargs.keys()
        if own:
            raise TypeError(f"start() sets {', '.join(sorted(own))} itself; pass them as its "
                            "own arguments")
        header = {"simulator": _qualified(type(self.inner)), "scenic": _scenic_version(),
                  "cvcclock": __version__}
        return RunSpec(simulate=lambda *a, **kw: Simulator.simulate(self, *a, **kw),
                       scene=scene, scenario=scenario, max_steps=steps, timestep=timestep,
                       seed=seed, kwargs=dict(kwargs), header=header)

    def __repr__(self) -> str:
        return f"PacedSimulator({self.inner!r}, tick={self.clock.tick})"
