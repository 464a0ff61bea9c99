"""The determinism contract on real Scenic: a paced run equals the plain run, under every
pacing, on the DummySimulator and on the Newtonian simulator headless."""

from __future__ import annotations

import pytest

pytest.importorskip("scenic", reason="needs the scenic extra: pip install '.[scenic]'")

import paced_programs as programs  # noqa: E402
from paced_pacings import PACINGS  # noqa: E402

from cvcclock import ClockConfig, WorldClock  # noqa: E402
from cvcclock.scenic import PacedSimulator, result_key  # noqa: E402

FIXED_DT = programs.TIMESTEP / 2     # two quanta per Scenic step

_plain: dict[tuple[str, str], tuple] = {}


def plain(name: str, kind: str):
    """The program's scene and its plain run's result (once per process)."""
    if (name, kind) not in _plain:
        scene = programs.scene(name)
        _plain[name, kind] = scene, programs.plain_run(kind, scene).result
    return _plain[name, kind]


def paced_result(name: str, kind: str, pacing: str):
    scene, _ = plain(name, kind)
    clock = WorldClock(ClockConfig(fixed_dt=FIXED_DT))
    paced = PacedSimulator(programs.simulator(kind), clock)
    with paced.start(scene, maxSteps=programs.MAX_STEPS, timestep=programs.TIMESTEP,
                     seed=programs.RUN_SEED) as run:
        PACINGS[pacing](run, clock)
        assert run.done and run.steps == len(run.result.trajectory) - 1
        return run.result


@pytest.mark.parametrize("pacing", list(PACINGS))
@pytest.mark.parametrize("kind", programs.SIMULATORS)
@pytest.mark.parametrize("name", list(programs.PROGRAMS))
def test_a_paced_run_equals_the_plain_run(name, kind, pacing):
    _, expected = plain(name, kind)
    got = paced_result(name, kind, pacing)
    assert result_key(got) == result_key(expected)
    # And in Scenic's own terms, where its types compare.
    assert got.trajectory == expected.trajectory
    assert got.records == expected.records
    assert (got.terminationType, got.terminationReason) == \
        (expected.terminationType, expected.terminationReason)
    assert len(got.actions) == len(expected.actions)


def test_the_seed_decides_the_run_so_the_comparison_can_fail():
    # The programs draw in their behaviors: another seed gives another result, so the
    # equalities above are not true of any two runs.
    scene, expected = plain("behaviors", "dummy")
    other = programs.plain_run("dummy", scene, seed=programs.RUN_SEED + 1).result
    assert result_key(other) != result_key(expected)
