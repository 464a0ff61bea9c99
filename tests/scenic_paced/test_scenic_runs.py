"""A paced Scenic run's edges: bad arguments, one run at a time, stopping, errors,
keeping up, the plugins' own pacing, operator inputs and Scenic's stuck-step warning."""

from __future__ import annotations

import os
import signal
import threading
import time
import warnings

import pytest

pytest.importorskip("scenic", reason="needs the scenic extra: pip install '.[scenic]'")

import paced_programs as programs  # noqa: E402
import paced_worlds as worlds  # noqa: E402
import scenic  # noqa: E402
import scenic.core.dynamics as dynamics  # noqa: E402
from scenic.core.simulators import DummySimulator  # noqa: E402

from cvcclock import ClockConfig, WorldClock  # noqa: E402
from cvcclock.scenic import PacedSimulator, operator_inputs, result_key  # noqa: E402

STEP = programs.TIMESTEP


def clock():
    return WorldClock(ClockConfig(fixed_dt=STEP / 2))


def paced(inner=None, the_clock=None):
    return PacedSimulator(inner or DummySimulator(drift=0.25), the_clock or clock())


def start(sim, name="behaviors", **kwargs):
    kwargs.setdefault("maxSteps", programs.MAX_STEPS)
    kwargs.setdefault("timestep", STEP)
    kwargs.setdefault("seed", programs.RUN_SEED)
    return sim.start(programs.scene(name), **kwargs)


# -- arguments -------------------------------------------------------------------------------


def test_bad_arguments_are_named_and_start_nothing():
    with pytest.raises(TypeError, match="inner must be a Scenic Simulator"):
        PacedSimulator(object(), clock())
    with pytest.raises(TypeError, match="clock must be a cvcclock.WorldClock"):
        PacedSimulator(DummySimulator(), 0.01)
    sim = paced()
    with pytest.raises(ValueError, match="0.013.*0.005|0.005.*0.013|quanta"):
        start(sim, timestep=0.013)
    with pytest.raises(ValueError, match="maxSteps"):
        start(sim, maxSteps=0)
    with pytest.raises(ValueError, match="seed"):
        start(sim, seed=2**32)
    with pytest.raises(TypeError, match="seed"):
        start(sim, seed=1.5)
    with pytest.raises(ValueError, match="record needs scenario="):
        start(sim, record="x.rec")
    with pytest.raises(TypeError, match="scene must be a Scenic Scene"):
        sim.start("scene", maxSteps=3)
    with pytest.raises(TypeError, match="replay"):
        start(sim, replay=b"")
    assert sim.clock.tick == 0
    with start(sim) as run:      # nothing was left claimed
        run.clock.advance_ticks(1000)
        assert run.wait(10)


def test_the_simulators_default_timestep_is_checked_when_the_simulation_begins():
    # Newtonian's default step is 0.1 s: 3.33 quanta of a 0.03 s clock.
    from scenic.simulators.newtonian import NewtonianSimulator

    sim = PacedSimulator(NewtonianSimulator(render=False), WorldClock(ClockConfig(
        fixed_dt=0.03)))
    with pytest.raises(ValueError, match="quanta"):
        start(sim, timestep=None)
    ok = PacedSimulator(NewtonianSimulator(render=False), WorldClock(ClockConfig(
        fixed_dt=0.05)))
    with start(ok, timestep=None) as run:
        assert run.period == 2
        ok.clock.advance_ticks(100)
        assert run.wait(10) and run.steps == programs.MAX_STEPS


def test_a_second_concurrent_run_is_a_runtime_error():
    first, second = paced(), paced()
    with start(first) as run:
        with pytest.raises(RuntimeError, match="one simulation at a time"):
            start(second)
        # Nor can plain Scenic (its own assertion, then its clean-up's AttributeError),
        # and the paced run, waiting at its gate meanwhile, goes on unharmed.
        assert run.wait_caught_up(10)
        with pytest.raises((AssertionError, AttributeError)):
            programs.plain_run("dummy", programs.scene("behaviors"))
        assert not run.done
        first.clock.advance_ticks(1000)
        assert run.wait(10)
        assert result_key(run.result) == result_key(programs.plain_run(
            "dummy", programs.scene("behaviors")).result)
    with start(second) as run:          # closing the first frees the process's slot
        second.clock.advance_ticks(1000)
        assert run.wait(10)


# -- stopping ---------------------------------------------------------------------------------


def test_ctrl_c_stops_a_waiting_run_within_half_a_second():
    sim = paced()
    sent = []
    timer = threading.Timer(0.2, lambda: (sent.append(time.monotonic()),
                                          os.kill(os.getpid(), signal.SIGINT)))
    with pytest.raises(KeyboardInterrupt):
        with start(sim, maxSteps=10_000) as run:
            sim.clock.advance_ticks(10)    # a few steps, then it waits for the clock
            timer.start()
            run.wait()
    stopped = time.monotonic() - sent[0]
    assert stopped < 0.5
    assert run.done and run.stopped and run.steps == 5
    with pytest.raises(RuntimeError, match="stopped at step 5"):
        run.result  # noqa: B018


def test_close_is_bounded_when_a_step_does_not_return():
    inner, entered, release = worlds.blocked()
    sim = paced(inner)
    run = start(sim)
    sim.clock.advance_ticks(2)
    assert entered.wait(10)
    began = time.monotonic()
    with pytest.warns(RuntimeWarning, match="did not stop within 0.2 s"):
        run.close(timeout=0.2)
    assert time.monotonic() - began < 1.0
    with pytest.raises(RuntimeError, match="another paced Scenic run"):
        start(paced())            # the stuck worker still holds Scenic
    release.set()
    run.close()                   # once the step returns, it runs no further step
    assert run.done and run.stopped and run.steps == 1
    with start(paced()) as again:
        again.clock.advance_ticks(1000)
        assert again.wait(10)


def test_the_simulations_error_is_the_result_with_its_traceback():
    scenario = scenic.scenarioFromString(programs.PRELUDE + """
behavior Fail():
    take Push(1)
    x = 1 / 0
ego = new Object with behavior Fail
""")
    sim = paced()
    with sim.start(scenario.generate()[0], maxSteps=5, timestep=STEP) as run:
        sim.clock.advance_ticks(100)
        assert run.wait(10)
        with pytest.raises(ZeroDivisionError) as caught:
            run.result  # noqa: B018
    assert "Fail" in "".join(str(f.name) for f in caught.traceback) or caught.traceback


# -- keeping up, and the plugins' own pacing -----------------------------------------------


def test_a_simulator_that_cannot_keep_up_shows_in_realized_speed_and_dropped():
    # Each 10 ms step takes 40 ms of wall time: at 1x the clock realizes a quarter of it.
    sim = paced(worlds.slow(0.04))
    with start(sim, maxSteps=40) as run:
        run.play(fps=60.0)
    assert sim.clock.realized_scale < 0.6
    assert sim.clock.total_dropped > 0
    assert run.result.terminationType.name == "timeLimit"


def test_metadrives_real_time_switch_is_turned_off_for_the_run():
    inner = worlds.HookedSimulator()
    sim = paced(inner)
    with start(sim) as run:
        sim.clock.advance_ticks(1000)
        assert run.wait(10)
    assert inner.simulations[0].saw_real_time == [False] * programs.MAX_STEPS


def test_newtonian_draws_inside_presenting_and_does_not_sleep(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    import pygame
    from scenic.simulators.newtonian import NewtonianSimulator

    sim = PacedSimulator(NewtonianSimulator(render=True), clock())
    drawn, slept = [], []
    update = pygame.display.update
    real_sleep = time.sleep

    def spy_update(*args):
        drawn.append(sim.clock.can_advance)
        return update(*args)

    def spy_sleep(seconds):
        if threading.current_thread().name == "cvcclock.scenic run":
            slept.append(seconds)
        return real_sleep(seconds)

    monkeypatch.setattr(pygame.display, "update", spy_update)
    monkeypatch.setattr(time, "sleep", spy_sleep)
    with start(sim, timestep=0.5) as run:     # Newtonian would sleep 0.5 s a step
        sim.clock.advance_ticks(10_000)
        assert run.wait(30)
    assert run.result is not None
    assert len(drawn) >= programs.MAX_STEPS and not any(drawn)
    assert slept == []


# -- inputs, SIGALRM --------------------------------------------------------------------------


INPUT_PROGRAM = programs.PRELUDE + """
from cvcclock.scenic import operator_inputs
behavior Driven():
    while True:
        take Push(operator_inputs().get("push", 0.0) + Range(0, 0.1))
ego = new Object with behavior Driven
record operator_inputs().get("push") as seen
"""


def test_operator_inputs_reach_the_program_at_the_step_after_their_tick():
    scenario = scenic.scenarioFromString(INPUT_PROGRAM)
    scene = scenario.generate()[0]
    sim = paced()
    with sim.start(scene, maxSteps=8, timestep=STEP, seed=1) as run:
        sim.clock.advance_ticks(6)       # steps 1-3 due; step 4 falls due at tick 8
        assert run.wait_caught_up(10)
        run.give("push", 2.5)            # stamped tick 6: seen from gate 4 on
        sim.clock.advance_ticks(100)
        assert run.wait(10)
    seen = dict(run.result.records["seen"])
    assert [seen[t] for t in range(9)] == [None] * 4 + [2.5] * 5
    assert [(i.step, i.tick, i.name, i.value) for i in run.inputs] == [(4, 6, "push", 2.5)]
    assert operator_inputs() == {}
    with pytest.raises(TypeError, match="value must be JSON"):
        run.give("push", object())
    with pytest.raises(RuntimeError, match="has ended"):
        run.give("push", 1.0)


def test_scenics_stuck_step_warning_comes_from_the_run_not_sigalrm(monkeypatch):
    scenario = scenic.scenarioFromString("""
import time
behavior Stuck():
    wait
    time.sleep(0.6)
    wait
ego = new Object with behavior Stuck
""")
    monkeypatch.setattr(dynamics, "stuckBehaviorWarningTimeout", 0.2)
    handler = signal.getsignal(signal.SIGALRM)
    sim = paced()
    with sim.start(scenario.generate()[0], maxSteps=3, timestep=STEP) as run:
        assert dynamics.stuckBehaviorWarningTimeout == 0     # no SIGALRM on the worker
        sim.clock.advance_ticks(100)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert run.wait(10)
    assert any("has run for more than 0.2 s" in str(w.message) for w in caught)
    assert run.result.terminationType.name == "timeLimit"
    assert dynamics.stuckBehaviorWarningTimeout == 0.2     # put back
    assert signal.getsignal(signal.SIGALRM) == handler


def test_simulate_is_paced_too_when_another_thread_drives():
    sim = paced()
    scene = programs.scene("records")
    finished = threading.Event()

    def drive():
        while not finished.wait(0.001):
            sim.clock.advance_ticks(1)

    driver = threading.Thread(target=drive)
    driver.start()
    try:
        simulation = sim.simulate(scene, maxSteps=programs.MAX_STEPS, timestep=STEP)
    finally:
        finished.set()
        driver.join()
    assert simulation.currentTime == programs.MAX_STEPS
    assert sim.clock.tick >= programs.MAX_STEPS * 2
