"""Record, replay and seek a paced Scenic run; a damaged recording is named as such."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("scenic", reason="needs the scenic extra: pip install '.[scenic]'")

import paced_programs as programs  # noqa: E402
import scenic  # noqa: E402
from paced_pacings import PACINGS  # noqa: E402
from scenic.core.simulators import DummySimulator  # noqa: E402

from cvcclock import ClockConfig, Mode, WorldClock  # noqa: E402
from cvcclock.scenic import (  # noqa: E402
    PacedSimulator,
    RecordingError,
    ScenicRecording,
    result_key,
    step_hashes,
)

STEP = programs.TIMESTEP
INPUTS = programs.PRELUDE + """
from cvcclock.scenic import operator_inputs
behavior Driven():
    while True:
        take Push(operator_inputs().get("push", 0.0) + Range(0, 0.1))
ego = new Object with behavior Driven
record operator_inputs().get("push") as seen
"""


def paced(kind="dummy"):
    return PacedSimulator(programs.simulator(kind), WorldClock(ClockConfig(fixed_dt=STEP / 2)))


def finish(run, clock):
    clock.advance_ticks(10_000)
    assert run.wait(20)
    return run.result


@pytest.fixture(scope="module")
def with_inputs():
    scenario = scenic.scenarioFromString(INPUTS)
    return scenario, scenario.generate()[0]


def record(tmp_path, scenario, scene, kind="dummy", inputs=()):
    path = tmp_path / "run.scenicrec"
    sim = paced(kind)
    with sim.start(scene, maxSteps=programs.MAX_STEPS, timestep=STEP, seed=7, record=path,
                   scenario=scenario) as run:
        for at, value in inputs:
            sim.clock.advance_ticks(at - sim.clock.tick)
            assert run.wait_caught_up(10)
            run.give("push", value)
        result = finish(run, sim.clock)
    return path, result, run


@pytest.mark.parametrize("pacing", ["live 3x", "batch", "single-step", "paused then resumed"])
@pytest.mark.parametrize("kind", programs.SIMULATORS)
def test_a_replay_under_any_pacing_equals_the_recording(tmp_path, with_inputs, kind, pacing):
    scenario, scene = with_inputs
    path, recorded, run = record(tmp_path, scenario, scene, kind, [(5, 1.5), (13, -0.5)])
    assert [(i.step, i.value) for i in run.inputs] == [(3, 1.5), (7, -0.5)]
    sim = paced(kind)
    with sim.replay(scenario, path) as replay:
        PACINGS[pacing](replay, sim.clock)
        assert replay.divergence is None
        assert result_key(replay.result) == result_key(recorded)
        assert replay.inputs == run.inputs
        with pytest.raises(RuntimeError, match="inputs from its recording"):
            replay.give("push", 1.0)
    seen = dict(recorded.records["seen"])
    assert seen[2] is None and seen[3] == 1.5 and seen[7] == -0.5


def test_the_file_holds_what_the_issue_lists(tmp_path, with_inputs):
    scenario, scene = with_inputs
    path, result, run = record(tmp_path, scenario, scene, inputs=[(4, 2.0)])
    rec = ScenicRecording.load(path)
    header = rec.header
    assert (header["fixed_dt"], header["timestep"], header["maxSteps"], header["seed"]) == \
        (STEP / 2, STEP, programs.MAX_STEPS, 7)
    assert header["scenic"].startswith("3.1")
    assert header["simulator"] == "scenic.core.simulators.DummySimulator"
    assert header["simulation"] == "scenic.core.simulators.DummySimulation"
    assert rec.scene == scenario.sceneToBytes(scene)
    assert rec.hashes == tuple(step_hashes(result)) and len(rec.hashes) == programs.MAX_STEPS + 1
    assert rec.end["steps"] == programs.MAX_STEPS
    assert rec.end["termination_type"] == "timeLimit"
    assert [(i.step, i.tick, i.name, i.value) for i in rec.inputs] == [(3, 4, "push", 2.0)]
    # Scenic's own replay data with divergence checks: it replays in plain Scenic too.
    replayed = DummySimulator(drift=0.25).simulate(scenario.sceneFromBytes(rec.scene),
                                                   maxSteps=programs.MAX_STEPS,
                                                   timestep=STEP, replay=rec.replay)
    assert len(replayed.result.trajectory) == programs.MAX_STEPS + 1


def test_a_replay_on_another_simulator_names_the_step_scenic_found_diverged(tmp_path,
                                                                           with_inputs):
    scenario, scene = with_inputs
    path, _, _ = record(tmp_path, scenario, scene)
    sim = PacedSimulator(DummySimulator(drift=0.5), WorldClock(ClockConfig(fixed_dt=STEP / 2)))
    with sim.replay(scenario, path) as replay:
        sim.clock.advance_ticks(1000)
        assert replay.wait(10)
        assert replay.divergence is not None and replay.divergence.step == 1
        assert "divergence check" in replay.divergence.message
        with pytest.raises(Exception, match="expected") as caught:
            replay.result  # noqa: B018
        assert type(caught.value).__name__ == "DivergenceError"


def test_a_replay_whose_state_differs_names_the_first_step(tmp_path, with_inputs):
    scenario, scene = with_inputs
    path, _, _ = record(tmp_path, scenario, scene)
    lines = path.read_text().splitlines()
    at = lines.index(next(line for line in lines if line.startswith("hash 5 ")))
    lines[at] = "hash 5 0123456789abcdef"
    path.write_text("\n".join(lines) + "\n")
    sim = paced()
    with sim.replay(scenario, path) as replay:
        finish(replay, sim.clock)
        assert replay.divergence.step == 5
        assert replay.divergence.recorded == "0123456789abcdef"


def test_seek_reruns_to_the_step_in_batch_and_pauses_there(tmp_path, with_inputs):
    scenario, scene = with_inputs
    path, recorded, _ = record(tmp_path, scenario, scene, inputs=[(6, 3.0)])
    sim = paced()
    with sim.replay(scenario, path) as replay:
        finish(replay, sim.clock)
        replay.seek(5)
        assert replay.steps == 5 and not replay.done
        assert sim.clock.mode is Mode.PAUSED
        sim.clock.advance_ticks(0)
        assert replay.steps == 5
        replay.seek(2)                                  # backwards too
        assert replay.steps == 2
        sim.clock.mode = Mode.LIVE
        for _ in range(200):
            if replay.done:
                break
            sim.clock.advance(1 / 60)
            assert replay.wait_caught_up(10)
        assert replay.divergence is None
        assert result_key(replay.result) == result_key(recorded)
    with pytest.raises(ValueError, match="step"):
        replay.seek(programs.MAX_STEPS + 1)


def test_seek_in_a_live_run_keeps_the_inputs_it_had_applied(with_inputs):
    scenario, scene = with_inputs
    sim = paced()
    with sim.start(scene, maxSteps=programs.MAX_STEPS, timestep=STEP, seed=7) as run:
        sim.clock.advance_ticks(4)
        assert run.wait_caught_up(10)
        run.give("push", 1.0)
        first = finish(run, sim.clock)
        run.seek(8)
        assert run.steps == 8
        sim.clock.mode = Mode.LIVE
        again = finish(run, sim.clock)
    assert result_key(first) == result_key(again)


@pytest.mark.parametrize("damage, named", [
    (lambda lines: ["not a recording"] + lines[1:], "line 1: not a cvcclock Scenic"),
    (lambda lines: ["cvcclock-scenic 9"] + lines[1:], "line 1: a recording of version '9'"),
    (lambda lines: lines[:2], "line 3: the file ends where a 'scene' line"),
    (lambda lines: lines[:2] + ["scene !!!"] + lines[3:], "line 3: the scene data is not "),
    (lambda lines: lines[:3] + ["replay " + lines[3][7:-8] + "AAAAAAAA"] + lines[4:],
     "line 4: the replay data does not match the header's sha256"),
    (lambda lines: lines[:1] + ["header {}"] + lines[2:], "line 2: the header lacks"),
    (lambda lines: lines[:1] + ["header {"] + lines[2:], "line 2: the header is not valid"),
    (lambda lines: lines[:-3] + lines[-2:], "line .*: expected the hash of step"),
    (lambda lines: lines[:-1], "the file ends where a 'end' line"),
    (lambda lines: lines + ["extra"], "unexpected text after the end record"),
    (lambda lines: lines[:-2] + ["hash 12 xyz"] + lines[-1:], "is not 16 hex digits"),
])
def test_a_damaged_recording_is_a_clear_error(tmp_path, with_inputs, damage, named):
    scenario, scene = with_inputs
    path, _, _ = record(tmp_path, scenario, scene)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(damage(lines)) + "\n")
    with pytest.raises(RecordingError, match=named):
        paced().replay(scenario, path)


def test_a_recording_of_another_scenario_is_refused(tmp_path, with_inputs):
    scenario, scene = with_inputs
    path, _, _ = record(tmp_path, scenario, scene)
    other = programs.scenario("behaviors")
    with pytest.raises(RecordingError, match="does not decode with this scenario"):
        paced().replay(other, path)
    header = json.loads(path.read_text().splitlines()[1][7:])
    assert header["maxSteps"] == programs.MAX_STEPS
