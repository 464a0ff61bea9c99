"""cvcclock.pycvc: pycvc's API over the same core; the seed's Python example runs unchanged."""

import threading

import pytest

import cvcclock.pycvc as pycvc
from cvcclock import ClockConfig, ClockFollower, Mode, WorldClock, ticks_per_step
from cvcclock.binding import WorldClockBinding, WorldClockKeys


class World:
    """The ``world`` the seed's example steps."""

    def __init__(self):
        self.steps = 0

    def step(self):
        self.steps += 1


def test_the_seed_python_example_runs_line_by_line():
    world = World()
    # From the seed's "Python (pycvc)" section, with only the import changed.
    app = pycvc.App()
    clock = app.world_clock()
    # fixed_dt, scale, max_steps, lockstep_steps, cap_scales_with_rate
    clock.set_config(0.01, 1.0, 8, 1, True)
    binding = pycvc.world_clock_binding(app, clock)  # sim.* keys
    nav = pycvc.clock_follower.for_step(clock, 0.06)
    r = binding.drive(1 / 60)
    for _ in range(nav.take(clock)):
        world.step()
    clock.set_mode_name("lockstep")                 # live | lockstep | stepping | paused | replay
    # What it did.
    assert (r.steps, r.first_tick, r.dropped) == (1, 0, 0) and r.alpha == pytest.approx(2 / 3)
    assert clock.tick() == 1 and world.steps == 0 and nav.period == 6
    assert clock.clock.config == ClockConfig(fixed_dt=0.01, scale=1.0, max_steps_per_advance=8,
                                             lockstep_steps=1, cap_scales_with_rate=True)
    assert clock.mode_name() == "lockstep" and clock.clock.mode is Mode.LOCKSTEP
    for _ in range(5):
        binding.drive(1 / 60)
    for _ in range(nav.take(clock)):
        world.step()
    assert clock.tick() == 6 and world.steps == 1
    assert app.tree["sim.tick"] == 6 and app.tree["sim.mode"] == "live"   # seeded, not rewritten


def test_the_seed_cpp_frame_loop_in_pycvc_terms():
    app = pycvc.App()
    clock = app.world_clock()
    clock.set_config(0.01, 1.0, 8, 1, True)
    binding = pycvc.world_clock_binding(app, clock)
    physics = pycvc.clock_follower.for_step(clock, 0.01)
    stepped, alphas = 0, []
    for _ in range(30):
        r = binding.drive(1 / 60)
        for _ in range(physics.take(clock)):
            stepped += 1
        alphas.append(pycvc.clock_follower(6).alpha(clock.tick(), r.alpha))
    assert stepped == clock.tick() == 50
    assert all(0.0 <= a < 1.0 for a in alphas)


def test_the_app_holds_a_tree_and_one_clock():
    app = pycvc.App()
    assert app.tree == {} and app.world_clock() is app.world_clock()
    assert isinstance(app.world_clock().clock, WorldClock)
    tree = {"sim.speed": 2.0}
    assert pycvc.App(tree).tree is tree
    with pytest.raises(TypeError, match="tree.*'sim'"):
        pycvc.App("sim")


def test_world_clock_wraps_the_core():
    clock = pycvc.world_clock(ClockConfig(fixed_dt=0.01, max_steps_per_advance=2))
    core = WorldClock(ClockConfig(fixed_dt=0.01, max_steps_per_advance=2))
    for wall_dt in (0.015, 0.05, 0.0, 0.3):
        assert clock.advance(wall_dt) == core.advance(wall_dt)
    assert clock.advance_ticks(4) == core.advance_ticks(4)
    assert clock.step_once() == core.step_once()
    assert (clock.tick(), clock.t(), clock.alpha(), clock.total_dropped(),
            clock.realized_scale()) == (core.tick, core.t, core.alpha, core.total_dropped,
                                        core.realized_scale)
    assert clock.total_dropped() > 0
    assert "tick=" in repr(clock)


def test_set_config_restarts_at_tick_zero_with_defaults():
    clock = pycvc.world_clock()
    clock.advance_ticks(5)
    clock.set_config(0.02)
    assert clock.tick() == 0 and clock.clock.config == ClockConfig(fixed_dt=0.02)
    with pytest.raises(ValueError, match="fixed_dt"):
        clock.set_config(0.0)
    assert clock.clock.config == ClockConfig(fixed_dt=0.02)


@pytest.mark.parametrize("name", ["live", "lockstep", "stepping", "paused", "replay"])
def test_set_mode_name_takes_every_mode(name):
    clock = pycvc.world_clock()
    clock.set_mode_name(name)
    assert clock.mode_name() == name


def test_set_mode_name_refuses_an_unknown_name():
    clock = pycvc.world_clock()
    with pytest.raises(ValueError, match="'warp'"):
        clock.set_mode_name("warp")
    assert clock.mode_name() == "live"


def test_seek_tick_in_replay():
    clock = pycvc.world_clock()
    with pytest.raises(ValueError, match="replay"):
        clock.seek_tick(10)
    clock.set_mode_name("replay")
    clock.seek_tick(10)
    assert clock.tick() == 10


def test_wait_for_tick_change():
    clock = pycvc.world_clock()
    assert clock.wait_for_tick_change(0, 0.0) is None
    worker = threading.Timer(0.05, clock.step_once)
    worker.start()
    assert clock.wait_for_tick_change(0, 5.0) == 1
    worker.join()


def test_clock_follower_accepts_either_clock():
    clock = pycvc.world_clock(ClockConfig(fixed_dt=0.01))
    clock.advance_ticks(3)
    for either in (clock, clock.clock):
        follower = pycvc.clock_follower.for_step(either, 0.06)
        assert isinstance(follower.follower, ClockFollower) and follower.period == 6
        clock.advance_ticks(12)
        assert follower.take(clock) == 2 and follower.take(clock.clock) == 0
    follower = pycvc.clock_follower(4, start_tick=2)
    assert follower.take(clock) == (clock.tick() // 4) and follower.alpha(9, 0.5) == 1.5 / 4
    assert "k=4" in repr(follower)


def test_clock_follower_refuses_other_clocks():
    with pytest.raises(TypeError, match="clock.*'c'"):
        pycvc.clock_follower.for_step("c", 0.06)
    with pytest.raises(TypeError, match="clock.*None"):
        pycvc.clock_follower(1).take(None)
    with pytest.raises(ValueError, match="7.2"):
        pycvc.clock_follower.for_step(pycvc.world_clock(), 0.06)


def test_world_clock_binding_binds_the_apps_tree():
    app = pycvc.App()
    clock = app.world_clock()
    binding = pycvc.world_clock_binding(app, clock)
    assert isinstance(binding, WorldClockBinding) and binding.clock is clock.clock
    assert binding.tree is app.tree and app.tree["sim.speed"] == 1.0
    app.tree["sim.mode"] = "stepping"
    app.tree["sim.step"] += 1
    binding.request_steps(2)
    assert binding.drive(1 / 60).steps == 3


def test_world_clock_binding_with_the_seeds_own_keys():
    app = pycvc.App()
    keys = pycvc.world_clock_keys.under("coast.clock")
    keys.speed = "coast.clock.scale"   # the demo's existing knob
    keys.time = "coast.clock.t"
    binding = pycvc.world_clock_binding(app, app.world_clock(), keys)
    app.tree["coast.clock.scale"] = 0.5
    binding.drive(0.04)
    assert app.world_clock().tick() == 2 and app.tree["coast.clock.t"] == 2 / 120
    assert pycvc.world_clock_keys is WorldClockKeys
    prefixed = pycvc.world_clock_binding(pycvc.App(), pycvc.world_clock(), "ui")
    assert prefixed.keys == WorldClockKeys.under("ui")


def test_world_clock_binding_refuses_what_is_not_an_app():
    with pytest.raises(TypeError, match=r"app.*\{\}"):
        pycvc.world_clock_binding({}, pycvc.world_clock())
    with pytest.raises(TypeError, match="clock"):
        pycvc.world_clock_binding(pycvc.App(), object())


def test_ticks_per_step_is_the_cores():
    assert pycvc.ticks_per_step is ticks_per_step
    assert pycvc.ticks_per_step(0.06, 0.01) == 6
