"""The state-tree binding: keys, seeding, edge-triggered controls, steps, telemetry, bad input."""

import math
import re
import sys
from collections import UserDict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cvcclock
from cvcclock import ClockConfig, ClockFollower, Mode, StepResult, WorldClock
from cvcclock import binding as binding_module
from cvcclock import keys as keys_module
from cvcclock.binding import IgnoredControl, TreeWriteError, WorldClockBinding, WorldClockKeys
from cvcclock.checks import MAX_TICK

CONTROLS = ("speed", "paused", "mode", "lockstep_steps", "step")
TELEMETRY = ("time", "tick", "fixed_dt", "realized_speed", "dropped")


def make(tree=None, keys="sim", **config):
    """A tree, a 0.01 s clock and a binding of the two."""
    tree = {} if tree is None else tree
    clock = WorldClock(ClockConfig(fixed_dt=0.01, **config))
    return tree, clock, WorldClockBinding(tree, clock, keys)


# -- the key table -------------------------------------------------------------------------


def test_under_gives_the_sim_table():
    keys = WorldClockKeys.under("sim")
    assert [getattr(keys, n) for n in CONTROLS + TELEMETRY] == [
        f"sim.{n}" for n in CONTROLS + TELEMETRY]
    assert WorldClockKeys.under() == keys
    assert WorldClockKeys.under("").speed == "speed"
    assert WorldClockKeys.under("coast.clock").dropped == "coast.clock.dropped"


def test_keys_are_plain_mutable_attributes_as_the_seed_shows():
    keys = WorldClockKeys.under("coast.clock")
    keys.speed = "coast.clock.scale"
    keys.time = "coast.clock.t"
    tree = {"coast.clock.scale": 2.0}
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    binding = WorldClockBinding(tree, clock, keys)
    binding.drive(0.04)
    assert clock.scale == 2.0 and clock.tick == 8
    assert tree["coast.clock.t"] == clock.t
    assert "coast.clock.speed" not in tree and "coast.clock.time" not in tree


def test_for_scene_puts_the_rest_beside_the_speed_key():
    keys = WorldClockKeys.for_scene(speed="clk.sim.speed", paused="clk.pause",
                                    time="clk.now", tick="clk.frame_tick")
    assert (keys.speed, keys.paused, keys.time, keys.tick) == (
        "clk.sim.speed", "clk.pause", "clk.now", "clk.frame_tick")
    assert (keys.mode, keys.lockstep_steps, keys.step) == (
        "clk.sim.mode", "clk.sim.lockstep_steps", "clk.sim.step")
    assert (keys.fixed_dt, keys.realized_speed, keys.dropped) == (
        "clk.sim.fixed_dt", "clk.sim.realized_speed", "clk.sim.dropped")
    bare = WorldClockKeys.for_scene(speed="speed", paused=None, time="t", tick="")
    assert (bare.mode, bare.paused, bare.tick) == ("mode", None, "")


HELD = {"speed": 3.0, "paused": True, "mode": "lockstep", "lockstep_steps": 4, "step": 7}


@pytest.mark.parametrize("off", ["", None])
@pytest.mark.parametrize("lane", CONTROLS + TELEMETRY)
def test_an_empty_key_turns_its_lane_off(lane, off):
    keys = WorldClockKeys.under("sim")
    setattr(keys, lane, off)
    tree = {}
    _, clock, binding = make(tree, keys)
    assert "sim." + lane not in tree                          # never seeded or written
    # The lane's usual key now holds a value the binding would act on if it read it.
    values = [HELD.get(lane, "host"), 8 if lane == "step" else "host"]
    for value in values:
        tree["sim." + lane] = value
        binding.drive(0.02)
    assert tree["sim." + lane] == values[-1]
    assert clock.scale == 1.0 and clock.mode is Mode.LIVE     # never read
    assert clock.lockstep_steps == 1 and clock.tick == 4
    assert binding.ignored == 0


def test_one_telemetry_lane_alone_is_published():
    tree, clock, binding = make(keys=WorldClockKeys(tick="t"))
    assert tree == {"t": 0}
    binding.drive(0.03)
    assert tree == {"t": 3}


def test_all_lanes_off_writes_nothing():
    tree, clock, binding = make(keys=WorldClockKeys())
    assert binding.drive(0.05).steps == 5 and tree == {}


@pytest.mark.parametrize("keys, error, words", [
    (42, TypeError, ["keys", "42"]),
    (["sim"], TypeError, ["keys", "['sim']"]),
    (WorldClockKeys(speed=3), TypeError, ["speed", "3"]),
    (WorldClockKeys(tick=b"sim.tick"), TypeError, ["tick", "b'sim.tick'"]),
    (WorldClockKeys(speed="x", time="x"), ValueError, ["speed", "time", "'x'"]),
])
def test_bad_keys_are_refused(keys, error, words):
    tree = {}
    with pytest.raises(error) as info:
        WorldClockBinding(tree, WorldClock(), keys)
    assert all(w in str(info.value) for w in words)
    assert tree == {}


def test_bad_table_arguments_are_refused():
    with pytest.raises(TypeError, match="prefix.*3"):
        WorldClockKeys.under(3)
    with pytest.raises(TypeError, match="speed.*None"):
        WorldClockKeys.for_scene(speed=None, paused="p", time="t", tick="k")
    with pytest.raises(ValueError, match="speed"):
        WorldClockKeys.for_scene(speed="", paused="p", time="t", tick="k")
    with pytest.raises(TypeError, match="paused.*1"):
        WorldClockKeys.for_scene(speed="a.speed", paused=1, time="t", tick="k")


def test_the_table_is_copied_and_rebinding_takes_a_new_one():
    keys = WorldClockKeys.under("sim")
    tree, clock, binding = make(keys=keys)
    keys.speed = "elsewhere"                 # does not reach the binding
    tree["elsewhere"] = 4.0
    binding.drive(0.01)
    assert clock.scale == 1.0 and binding.keys.speed == "sim.speed"
    binding.keys = keys                      # rebinding does; a held value is a first value
    assert tree["elsewhere"] == 4.0
    binding.drive(0.01)
    assert clock.scale == 4.0
    binding.keys = "ui"                      # a prefix serves too
    assert tree["ui.speed"] == 4.0 and tree["ui.tick"] == clock.tick


# -- construction --------------------------------------------------------------------------


@pytest.mark.parametrize("tree", ["notamapping", None, [("sim.speed", 1.0)], frozenset()])
def test_the_tree_must_be_a_mutable_mapping(tree):
    with pytest.raises(TypeError, match="tree must be a mutable mapping"):
        WorldClockBinding(tree, WorldClock())


def test_the_clock_must_be_a_world_clock():
    with pytest.raises(TypeError, match="clock.*'tick'"):
        WorldClockBinding({}, "tick")


def test_any_mutable_mapping_serves():
    tree = UserDict()
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    binding = WorldClockBinding(tree, clock)
    tree["sim.speed"] = 2.0
    binding.drive(0.04)
    assert clock.tick == 8 and tree["sim.tick"] == 8


def test_unset_controls_are_seeded_from_the_clock_and_telemetry_is_published():
    clock = WorldClock(ClockConfig(fixed_dt=0.01, scale=2.0, lockstep_steps=3))
    clock.mode = "lockstep"
    clock.advance(0.0)
    tree = {}
    WorldClockBinding(tree, clock)
    assert tree == {"sim.speed": 2.0, "sim.paused": False, "sim.mode": "lockstep",
                    "sim.lockstep_steps": 3, "sim.step": 0, "sim.time": 0.03, "sim.tick": 3,
                    "sim.fixed_dt": 0.01, "sim.realized_speed": 0.0, "sim.dropped": 0}


def test_a_paused_clock_seeds_paused_true_and_unpausing_resumes_it():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    clock.mode = "paused"
    tree = {}
    binding = WorldClockBinding(tree, clock)
    assert tree["sim.paused"] is True and tree["sim.mode"] == "live"   # the paused lane holds it
    assert binding.drive(0.02).steps == 0 and clock.mode is Mode.PAUSED
    tree["sim.paused"] = False
    binding.drive(0.02)
    assert clock.mode is Mode.LIVE and clock.tick == 2 and binding.ignored == 0


def test_a_paused_clock_without_a_paused_lane_seeds_the_mode_key_paused():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    clock.mode = "paused"
    keys = WorldClockKeys.under("sim")
    keys.paused = None
    tree = {}
    binding = WorldClockBinding(tree, clock, keys)
    assert tree["sim.mode"] == "paused"
    tree["sim.mode"] = "live"            # the mode key carries the pause, and lifts it
    binding.drive(0.02)
    assert clock.mode is Mode.LIVE and clock.tick == 2


def test_a_paused_key_reseeded_during_speed_zero_does_not_keep_the_clock_paused():
    tree, clock, binding = make()
    tree["sim.speed"] = 0
    binding.drive(0.0)
    assert clock.mode is Mode.PAUSED
    del tree["sim.paused"]
    binding.drive(0.0)
    assert tree["sim.paused"] is False   # speed 0 is not a paused control
    tree["sim.speed"] = 1.0
    binding.drive(0.02)
    assert clock.mode is Mode.LIVE and clock.tick == 2


def test_a_mode_key_reseeded_while_paused_does_not_keep_the_clock_paused():
    tree, clock, binding = make()
    tree["sim.mode"] = "lockstep"
    tree["sim.paused"] = True
    binding.drive(0.0)
    del tree["sim.mode"]
    binding.drive(0.0)
    assert tree["sim.mode"] == "lockstep" and clock.mode is Mode.PAUSED
    tree["sim.paused"] = False
    binding.drive(0.0)
    assert clock.mode is Mode.LOCKSTEP


def test_seeding_applies_nothing_and_keeps_the_hosts_values():
    tree = {"sim.speed": 0.5, "sim.lockstep_steps": 4}
    _, clock, binding = make(tree)
    assert tree["sim.speed"] == 0.5 and clock.scale == 1.0   # held, not yet applied
    binding.drive(0.04)
    assert clock.scale == 0.5 and clock.lockstep_steps == 4 and clock.tick == 2


def test_a_key_that_goes_missing_is_seeded_again():
    tree, clock, binding = make()
    tree["sim.speed"] = 2.0
    binding.drive(0.0)
    clock.scale = 3.0
    del tree["sim.speed"], tree["sim.step"]
    binding.drive(0.0)
    assert tree["sim.speed"] == 3.0 and tree["sim.step"] == 0 and clock.scale == 3.0
    tree["sim.step"] = 1
    assert binding.drive(0.0).steps == 1


# -- edge-triggered controls ---------------------------------------------------------------


def test_a_direct_mode_change_stands_until_the_mode_key_changes():
    tree, clock, binding = make()
    clock.mode = "stepping"
    tree["sim.speed"] = 2.0              # another key changing leaves the mode alone
    for _ in range(3):
        binding.drive(0.05)
    assert clock.mode is Mode.STEPPING and clock.tick == 0 and clock.scale == 2.0
    tree["sim.mode"] = "lockstep"
    binding.drive(0.05)
    assert clock.mode is Mode.LOCKSTEP and clock.tick == 1


def test_a_direct_scale_change_stands_until_the_speed_key_changes():
    tree, clock, binding = make()
    clock.scale = 3.0
    tree["sim.speed"] = 1.0              # the same value: no change
    binding.drive(0.01)
    assert clock.scale == 3.0 and clock.tick == 3
    tree["sim.speed"] = 0.5
    binding.drive(0.04)
    assert clock.scale == 0.5 and clock.tick == 5


def test_a_direct_lockstep_steps_change_stands_until_its_key_changes():
    tree, clock, binding = make()
    tree["sim.mode"] = "lockstep"
    clock.lockstep_steps = 5
    assert binding.drive(0.0).steps == 5
    tree["sim.lockstep_steps"] = 2
    assert binding.drive(0.0).steps == 2


def test_an_equal_value_of_another_type_is_no_change():
    tree, clock, binding = make()
    clock.scale = 3.0
    tree["sim.speed"] = 1                # == 1.0, the seeded value
    tree["sim.paused"] = 0               # == False
    binding.drive(0.0)
    assert clock.scale == 3.0 and clock.mode is Mode.LIVE


@pytest.mark.parametrize("mode", list(Mode))
def test_the_mode_key_accepts_every_mode_name(mode):
    tree, clock, binding = make()
    tree["sim.mode"] = mode.value
    binding.drive(0.0)
    assert clock.mode is mode
    assert binding.ignored == 0


@pytest.mark.parametrize("name, mode", [(" Lockstep", Mode.LOCKSTEP), ("PAUSED", Mode.PAUSED),
                                        (Mode.REPLAY, Mode.REPLAY)])
def test_mode_names_are_read_leniently(name, mode):
    tree, clock, binding = make()
    tree["sim.mode"] = name
    binding.drive(0.0)
    assert clock.mode is mode


@pytest.mark.parametrize("mode", ["live", "lockstep"])
def test_paused_wins_over_live_and_lockstep_without_rewriting_the_mode(mode):
    tree, clock, binding = make()
    tree["sim.mode"] = mode
    binding.drive(0.015)
    tick = clock.tick
    tree["sim.paused"] = True
    for _ in range(4):
        assert binding.drive(0.05).steps == 0
    assert clock.tick == tick and clock.mode is Mode.PAUSED and tree["sim.mode"] == mode
    tree["sim.paused"] = False
    binding.drive(0.01)
    assert clock.mode is Mode(mode) and clock.tick == tick + 1


def test_pause_keeps_the_bank_and_freezes_alpha():
    tree, clock, binding = make()
    binding.drive(0.015)
    alpha = clock.alpha
    tree["sim.paused"] = "true"
    assert binding.drive(0.5).alpha == alpha
    tree["sim.paused"] = "0"
    assert binding.drive(0.005).steps == 1


@pytest.mark.parametrize("mode", ["stepping", "replay"])
def test_paused_leaves_stepping_and_replay_alone(mode):
    tree, clock, binding = make()
    tree["sim.mode"] = mode
    tree["sim.paused"] = True
    binding.drive(0.05)
    assert clock.mode is Mode(mode)
    if mode == "replay":
        clock.seek_tick(40)             # a paused replay can still seek
        assert clock.tick == 40


@pytest.mark.parametrize("value, paused", [
    (True, True), (1, True), ("1", True), ("true", True), ("TRUE", True), (" True ", True),
    (False, False), (0, False), ("0", False), ("false", False), ("False", False)])
def test_paused_reads_bools(value, paused):
    tree, clock, binding = make()
    tree["sim.paused"] = not paused     # a change, whatever the value
    binding.drive(0.0)
    tree["sim.paused"] = value
    binding.drive(0.0)
    assert (clock.mode is Mode.PAUSED) is paused and binding.ignored == 0


@pytest.mark.parametrize("mode", ["live", "lockstep"])
def test_speed_zero_pauses(mode):
    tree, clock, binding = make()
    tree["sim.mode"] = mode
    binding.drive(0.01)
    tree["sim.speed"] = 0
    for _ in range(3):
        assert binding.drive(0.05).steps == 0
    assert clock.scale == 0.0 and clock.mode is Mode.PAUSED and tree["sim.mode"] == mode
    tree["sim.speed"] = 2.0
    binding.drive(0.01)
    assert clock.mode is Mode(mode) and clock.scale == 2.0


@pytest.mark.parametrize("paused_from", [Mode.LIVE, Mode.LOCKSTEP])
def test_a_clock_paused_before_binding_resumes_the_mode_it_was_paused_from(paused_from):
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    clock.mode = paused_from
    clock.pause()
    tree = {}
    binding = WorldClockBinding(tree, clock)
    assert tree["sim.paused"] is True and tree["sim.mode"] == paused_from.value
    assert binding.drive(0.05).steps == 0 and clock.mode is Mode.PAUSED
    tree["sim.paused"] = False
    binding.drive(0.05)
    assert clock.mode is paused_from


@pytest.mark.parametrize("paused_from", [Mode.STEPPING, Mode.REPLAY])
def test_a_clock_paused_from_an_inspecting_mode_is_bound_as_paused(paused_from):
    # The paused lane pauses only live and lockstep, so it cannot carry this pause.
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    clock.mode = paused_from
    clock.pause()
    tree = {}
    binding = WorldClockBinding(tree, clock)
    assert tree["sim.paused"] is False and tree["sim.mode"] == "paused"
    binding.drive(0.05)
    assert clock.mode is Mode.PAUSED and clock.tick == 0


def test_unpausing_while_speed_is_zero_stays_paused():
    tree, clock, binding = make()
    tree["sim.paused"] = True
    tree["sim.speed"] = 0.0
    binding.drive(0.0)
    tree["sim.paused"] = False
    binding.drive(0.05)
    assert clock.mode is Mode.PAUSED and clock.tick == 0


# -- single steps --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", list(Mode))
def test_each_step_increment_runs_one_quantum_after_the_advance_in_any_mode(mode):
    tree, clock, binding = make()
    tree["sim.mode"] = mode.value
    binding.drive(0.0)
    tick = clock.tick
    advance_steps = {Mode.LIVE: 3, Mode.LOCKSTEP: 1}.get(mode, 0)
    tree["sim.step"] += 2
    binding.request_steps(1)
    ticks = []
    clock.every_ticks(1, ticks.append)
    r = binding.drive(0.03)
    assert r == StepResult(advance_steps + 3, tick, 0, clock.alpha)
    assert ticks == list(range(tick + 1, tick + advance_steps + 4))
    assert binding.drive(0.0).steps == (mode is Mode.LOCKSTEP)   # nothing left queued


def test_request_steps_accumulates_until_the_next_drive():
    tree, clock, binding = make()
    tree["sim.mode"] = "stepping"
    binding.request_steps(2)
    binding.request_steps(0)
    binding.request_steps(3)
    assert clock.tick == 0
    assert binding.drive(1.0).steps == 5
    assert binding.drive(1.0).steps == 0


def test_a_counter_that_goes_backwards_resynchronises_and_runs_nothing():
    tree, clock, binding = make()
    tree["sim.mode"] = "stepping"
    tree["sim.step"] = 5
    assert binding.drive(0.0).steps == 5
    tree["sim.step"] = 2
    assert binding.drive(0.0).steps == 0
    tree["sim.step"] = 3
    assert binding.drive(0.0).steps == 1
    assert binding.ignored == 0


def test_a_held_step_counter_is_a_first_value_and_runs_nothing():
    tree, clock, binding = make({"sim.step": 41, "sim.mode": "stepping"})
    assert binding.drive(0.0).steps == 0
    tree["sim.step"] = 42
    assert binding.drive(0.0).steps == 1


def test_step_counters_read_integers_leniently():
    tree, clock, binding = make({"sim.mode": "stepping"})
    for value, steps in [("2", 2), (3.0, 1), (" 6 ", 3)]:
        tree["sim.step"] = value
        assert binding.drive(0.0).steps == steps
    tree["sim.step"] = "abc"              # ignored; the counter stays at 6
    assert binding.drive(0.0).steps == 0
    tree["sim.step"] = 8
    assert binding.drive(0.0).steps == 2
    assert binding.ignored == 1


def test_the_frame_result_covers_the_advance_and_the_steps():
    tree, clock, binding = make(max_steps_per_advance=2)
    clock.advance_ticks(7)
    tree["sim.step"] = 2             # two increments of the seeded 0
    r = binding.drive(0.055)         # 5.5 quanta: 2 run, 3 dropped, then 2 single steps
    assert (r.steps, r.first_tick, r.dropped) == (4, 7, 3)
    assert r.alpha == pytest.approx(0.5) and r.alpha == clock.alpha
    assert r.last_tick == clock.tick == 11


def test_a_frame_without_single_steps_returns_the_advance_result():
    tree, clock, binding = make()
    clock.advance_ticks(3)
    r = binding.drive(0.025)
    assert (r.steps, r.first_tick, r.dropped) == (2, 3, 0)


# -- ignored control values ----------------------------------------------------------------


BAD_VALUES = [
    ("speed", "fast", "not a number"),
    # speed and lockstep_steps go through the clock's setters: the reason is theirs.
    ("speed", -1, "scale must be finite and non-negative and <= 1000000.0, got -1"),
    ("speed", math.nan, "scale must be finite and non-negative and <= 1000000.0, got nan"),
    ("speed", math.inf, "scale must be finite"),
    ("speed", "nan", "scale must be finite"),
    ("speed", 1e300, "scale must be finite and non-negative and <= 1000000.0, got 1e+300"),
    ("speed", "1e7", "<= 1000000.0, got 10000000.0"),
    ("speed", False, "scale must be a real number, got False"),
    ("speed", None, "scale must be a real number, got None"),
    ("speed", [2.0], "scale must be a real number, got [2.0]"),
    ("mode", "warp", "not a mode"),
    ("mode", 1, "not a mode"),
    ("mode", None, "not a mode"),
    ("paused", "maybe", "not a bool"),
    ("paused", 2, "paused must be <= 1, got 2"),
    ("paused", -1, "paused must be >= 0, got -1"),
    ("paused", None, "paused must be a bool, got None"),
    ("paused", 1.0, "paused must be a bool, got 1.0"),
    ("lockstep_steps", 0, "lockstep_steps must be >= 1, got 0"),
    ("lockstep_steps", -3, "lockstep_steps must be >= 1, got -3"),
    ("lockstep_steps", 2**61, f"lockstep_steps must be <= 4294967296, got {2**61}"),
    ("lockstep_steps", 1.5, "lockstep_steps must be an integer, got 1.5"),
    ("lockstep_steps", "many", "lockstep_steps must be an integer, got 'many'"),
    ("lockstep_steps", 2**70, "must be <= 4294967296"),
    ("step", "next", "step must be an integer, got 'next'"),
    ("step", 1.5, "step must be an integer, got 1.5"),
    ("step", math.inf, "step must be an integer, got inf"),
    ("step", True, "step must be an integer, got True"),
    # 10**400 anywhere is a ValueError naming the lane, never a bare OverflowError.
    ("speed", 10**400, "scale must be finite, got 1000"),
    ("speed", "1e400", "scale must be finite"),
    ("paused", 10**400, "paused must be <= 1, got 1000"),
    ("lockstep_steps", 10**400, "lockstep_steps must be <= 4294967296, got 1000"),
    ("lockstep_steps", 1e300, "lockstep_steps must be <= 4294967296, got 1000"),
    ("step", 10**400, f"step must be <= {2**62}, got 1000"),
    ("step", str(10**400), f"step must be <= {2**62}, got 1000"),
]


@pytest.mark.parametrize("lane, value, why", BAD_VALUES)
def test_a_bad_control_value_is_ignored_and_counted_once(lane, value, why):
    tree, clock, binding = make()
    tree["sim.mode"] = "lockstep"
    binding.drive(0.0)
    before = (clock.scale, clock.mode, clock.lockstep_steps)
    tree["sim." + lane] = value
    results = [binding.drive(0.01) for _ in range(3)]      # never raised into a frame
    assert [r.steps for r in results] == [1, 1, 1]
    assert (clock.scale, clock.mode, clock.lockstep_steps) == before
    assert binding.ignored == 1
    key, seen, reason = binding.last_ignored
    assert key == "sim." + lane and why in reason
    assert seen is value
    assert isinstance(binding.last_ignored, IgnoredControl)


def test_a_step_increment_past_the_tick_bound_is_ignored_not_raised_into_a_frame():
    tree, clock, binding = make()
    clock.mode = "replay"
    clock.seek_tick(2**62 - 10)
    tree["sim.mode"] = "stepping"
    tree["sim.step"] = 11                     # would take the tick past 2**62
    binding.drive(0.0)
    assert clock.tick == 2**62 - 10 and binding.ignored == 1
    key, value, reason = binding.last_ignored
    assert key == "sim.step" and value == 11 and f"past MAX_TICK ({MAX_TICK})" in reason
    tree["sim.step"] = 10                     # the counter kept its last good value, 0
    assert binding.drive(0.0).steps == 10 and clock.tick == 2**62
    with pytest.raises(ValueError, match=re.escape(f"n would take the tick past MAX_TICK "
                                                   f"({MAX_TICK}), got 1")):
        binding.request_steps(1)              # a direct call may raise; a frame never does


def test_steps_the_frames_advance_leaves_no_room_for_are_ignored_not_raised():
    tree, clock, binding = make()
    clock.mode = "replay"
    clock.seek_tick(2**62 - 3)
    clock.mode = "live"
    binding.request_steps(2)                  # fits now; the frame's advance takes 2 first
    result = binding.drive(0.02)
    assert result.steps == 2 and clock.tick == 2**62 - 1
    assert binding.ignored == 1 and f"past MAX_TICK ({MAX_TICK})" in binding.last_ignored.reason


def test_each_change_to_a_bad_value_counts_and_good_values_still_apply():
    tree, clock, binding = make()
    assert binding.last_ignored is None
    for value in ["fast", "faster", -1, 2.0, "fast"]:
        tree["sim.speed"] = value
        binding.drive(0.0)
    assert binding.ignored == 4 and binding.last_ignored.value == "fast"
    assert clock.scale == 2.0


def test_a_nan_speed_counts_once_even_as_fresh_objects():
    class FreshFloats(UserDict):
        def __getitem__(self, key):     # a tree handing out a new object per read
            value = super().__getitem__(key)
            return float(value) if isinstance(value, float) else value

    tree = FreshFloats()
    _, clock, binding = make(tree)
    tree["sim.speed"] = math.nan
    for _ in range(3):
        binding.drive(0.01)
    assert binding.ignored == 1


def test_an_object_whose_equality_raises_is_ignored_not_raised():
    class Odd:
        def __eq__(self, other):
            raise RuntimeError("no comparing me")

        __hash__ = object.__hash__

    tree, clock, binding = make()
    tree["sim.mode"] = Odd()
    binding.drive(0.0)
    tree["sim.mode"] = Odd()
    binding.drive(0.0)
    assert binding.ignored == 2 and clock.mode is Mode.LIVE


# -- telemetry -----------------------------------------------------------------------------


def test_telemetry_after_frames_at_twice_speed_with_a_cap_that_drops():
    tree, clock, binding = make(max_steps_per_advance=4)
    tree["sim.speed"] = 2
    for _ in range(30):
        binding.drive(1 / 30)      # 6.67 quanta asked per frame, 4 run
    assert clock.total_dropped > 0
    assert tree["sim.tick"] == clock.tick == 120
    assert tree["sim.time"] == clock.t == pytest.approx(1.2)
    assert tree["sim.fixed_dt"] == 0.01
    assert tree["sim.dropped"] == clock.total_dropped == 80   # 200 quanta asked, 120 run
    assert tree["sim.realized_speed"] == pytest.approx(1.2)    # 4 quanta per 1/30 s
    assert [type(tree["sim." + n]) for n in TELEMETRY] == [float, int, float, float, int]


def test_telemetry_is_written_every_drive_over_host_writes():
    tree, clock, binding = make()
    tree["sim.tick"] = "stale"
    binding.drive(0.0)
    assert tree["sim.tick"] == 0


# -- the drive's wall time -----------------------------------------------------------------


def test_drive_measures_wall_time_between_drives(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(binding_module, "perf_counter", lambda: now[0])
    tree, clock, binding = make()
    assert binding.drive().steps == 0          # the first measured drive counts 0
    now[0] += 0.05
    assert binding.drive().steps == 5
    now[0] += 0.03
    assert binding.drive().steps == 3
    binding.drive(0.02)                        # an explicit frame restarts the measuring
    now[0] += 1.0
    assert binding.drive().steps == 0
    now[0] += 0.01
    assert binding.drive().steps == 1


@pytest.mark.parametrize("wall_dt, error", [
    (-0.01, ValueError), (math.nan, ValueError), (math.inf, ValueError),
    ("0.1", TypeError), (True, TypeError), ([0.1], TypeError)])
def test_a_bad_wall_dt_is_refused_and_changes_nothing(wall_dt, error):
    tree, clock, binding = make()
    binding.request_steps(2)
    tree["sim.speed"] = 3.0
    tree["sim.step"] = 4
    with pytest.raises(error, match=f"wall_dt.*{wall_dt!r}".replace("[", r"\[")):
        binding.drive(wall_dt)
    assert clock.scale == 1.0 and clock.tick == 0 and tree["sim.tick"] == 0
    assert binding.drive(0.01).steps == 3 + 2 + 4


def test_an_integer_wall_dt_serves():
    tree, clock, binding = make(max_steps_per_advance=1000)
    assert binding.drive(1).steps == 100


@pytest.mark.parametrize("n, error", [(-1, ValueError), (1.5, TypeError), (True, TypeError),
                                      ("2", TypeError), (2**63, ValueError)])
def test_bad_request_steps_is_refused_and_changes_nothing(n, error):
    tree, clock, binding = make()
    binding.request_steps(1)
    with pytest.raises(error, match=f"n.*{n!r}"):
        binding.request_steps(n)
    tree["sim.mode"] = "stepping"
    assert binding.drive(0.0).steps == 1


def test_a_raising_timer_keeps_the_clock_owing_and_nothing_is_lost():
    tree, clock, binding = make()
    tree["sim.mode"] = "stepping"

    def boom(tick):
        raise KeyError(tick)

    clock.after_ticks(2, boom)
    binding.request_steps(3)
    with pytest.raises(KeyError):
        binding.drive(0.0)
    assert (clock.tick, clock.owed, binding.queued_steps) == (2, 1, 1)
    r = binding.drive(0.0)                       # the interrupted step runs, in stepping mode
    assert (r.first_tick, r.steps, clock.owed, binding.queued_steps) == (2, 1, 0, 0)
    assert binding.drive(0.0).steps == 0         # and only once


def test_steps_a_raising_timer_interrupted_run_once_in_live_mode_too():
    tree, clock, binding = make()
    clock.after_ticks(2, lambda tick: 1 / 0)
    binding.request_steps(5)
    with pytest.raises(ZeroDivisionError):
        binding.drive(0.0)
    r = binding.drive(0.0)            # a live advance would run the owed too: not twice
    assert (r.first_tick, r.steps, clock.tick, clock.owed) == (2, 3, 5, 0)


# -- determinism ---------------------------------------------------------------------------


def reference_trajectory(n_steps):
    """A spring stepped directly, every 6 quanta of 0.01 s, ``n_steps`` times."""
    x, v, out = 1.0, 0.0, []
    for _ in range(n_steps):
        v -= 4.0 * x * 0.06
        x += v * 0.06
        out.append((x, v))
    return out


def paced_trajectory(n_steps, controls, frame):
    """The same spring driven through a binding whose tree says ``controls``.

    ``frame(tree, binding)`` runs before each drive, as a UI would.
    """
    tree, clock, binding = make(dict(controls), max_steps_per_advance=100)
    spring = ClockFollower.for_step(clock, 0.06)
    x, v, out = 1.0, 0.0, []
    for _ in range(100_000):
        frame(tree, binding)
        binding.drive(1 / 60)
        for _ in range(spring.take(clock)):
            v -= 4.0 * x * 0.06
            x += v * 0.06
            out.append((x, v))
        if len(out) >= n_steps:
            return out[:n_steps]
    raise AssertionError("the pacing never ran enough steps")


def nothing(tree, binding):
    pass


def bump_step(tree, binding):
    tree["sim.step"] += 1 + tree["sim.tick"] % 3


def request_some(tree, binding):
    binding.request_steps(1 + binding.clock.frame % 4)


def change_speed(tree, binding):
    tree["sim.speed"] = (0.5, 1.0, 3.0, 0.0)[binding.clock.frame // 20 % 4]


PACINGS = {
    "live 1x": ({"sim.speed": 1.0}, nothing),
    "live 2x": ({"sim.speed": 2}, nothing),
    "live 0.5x": ({"sim.speed": "0.5"}, nothing),
    "lockstep": ({"sim.mode": "lockstep", "sim.lockstep_steps": 3}, nothing),
    "stepping by sim.step": ({"sim.mode": "stepping", "sim.step": 0}, bump_step),
    "paused, requested steps": ({"sim.paused": True}, request_some),
    "speed changing": ({}, change_speed),
}


def test_the_trajectory_is_the_same_under_every_pacing_from_the_tree():
    expected = reference_trajectory(60)
    runs = {name: paced_trajectory(60, controls, frame)
            for name, (controls, frame) in PACINGS.items()}
    for name, run in runs.items():
        assert run == expected, name


# -- the package ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["WorldClockKeys", "WorldClockBinding"])
def test_the_package_exports_the_binding(name):
    assert getattr(cvcclock, name) is getattr(binding_module, name)


def test_drive_inside_presenting_applies_nothing():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    tree = {}
    binding = WorldClockBinding(tree, clock)
    tree["sim.speed"] = 2.0
    with clock.presenting():
        with pytest.raises(RuntimeError, match="presenting"):
            binding.drive(1 / 60)
    assert (clock.scale, clock.tick, binding.ignored) == (1.0, 0, 0)
    binding.drive(0.02)  # the change is still pending, and applies on the next frame
    assert (clock.scale, clock.tick) == (2.0, 4)


# -- a tree that fails mid-frame -----------------------------------------------------------


class TreeBroke(Exception):
    """What a failing host tree raises."""


class FlakyTree(UserDict):
    """A host tree that raises once, at one operation on one key, when armed.

    Its ``get`` asks ``__contains__`` then ``__getitem__``, so both are on a drive's path.
    """

    def __init__(self):
        self.armed = None    # (operation, key), cleared when it fires
        self.fired = 0
        super().__init__()

    def _maybe_fail(self, operation, key):
        if self.armed == (operation, key):
            self.armed = None
            self.fired += 1
            raise TreeBroke(f"{operation} {key}")

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __contains__(self, key):
        self._maybe_fail("contains", key)
        return super().__contains__(key)

    def __getitem__(self, key):
        self._maybe_fail("getitem", key)
        return super().__getitem__(key)

    def __setitem__(self, key, value):
        self._maybe_fail("setitem", key)
        super().__setitem__(key, value)


HOST_FRAMES = {
    1: {"sim.speed": 2.0, "sim.step": 1},
    2: {"sim.paused": True, "sim.step": 3},                  # paused, yet the steps run
    3: {"sim.paused": False, "sim.mode": "lockstep", "sim.lockstep_steps": 3},
    4: {"sim.speed": "fast", "sim.lockstep_steps": 0},      # both ignored
    5: {"sim.speed": 0, "sim.step": 4},                      # speed 0 pauses lockstep too
    6: {"sim.speed": 1.5, "sim.mode": "live", "sim.paused": "true"},
    7: {"sim.paused": 0, "sim.step": 6},
    9: {"sim.step": 2, "sim.speed": 3.0},                    # after frame 8's reseeding
    10: {"sim.mode": "stepping", "sim.step": 5},
}
SEED_FRAME = 8             # the host deletes every control key: the drive seeds them again
FRAMES = 12


def host_frame(tree, binding, frame):
    """What the host does before frame ``frame``'s drive, the same in every run."""
    tree.update(HOST_FRAMES.get(frame, {}))
    if frame in (3, 7):
        binding.request_steps(2)
    if frame == SEED_FRAME:
        for name in CONTROLS:
            del tree["sim." + name]


def state(tree, clock, binding):
    return (clock.tick, clock.mode, clock.scale, clock.lockstep_steps, clock.alpha,
            binding.queued_steps, binding.ignored, binding.last_ignored, dict(tree.data))


def run_frames(fail_at=None, point=None):
    """Drive FRAMES frames; at frame ``fail_at`` the tree fails at ``point`` (op, key).

    A read failure must change nothing, so the frame is driven again; a write failure must
    not lose the frame, so its result is the error's. Returns what each frame left.
    """
    tree = FlakyTree()
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    binding = WorldClockBinding(tree, clock)
    out = []
    for frame in range(FRAMES):
        host_frame(tree, binding, frame)
        if frame == fail_at:
            tree.armed = point
        before = state(tree, clock, binding)
        try:
            result = binding.drive(1 / 60)
        except TreeBroke:
            assert point[0] != "setitem"
            assert state(tree, clock, binding) == before   # a failed read changed nothing
            result = binding.drive(1 / 60)
        except TreeWriteError as exc:
            assert point[0] == "setitem" and exc.failures[0][0] == point[1]
            assert isinstance(exc.__cause__, TreeBroke) and len(exc.failures) == 1
            result = exc.result
        assert tree.armed is None, "the failure point was never reached"
        out.append((result, clock.tick, binding.queued_steps, clock.mode, clock.scale,
                    clock.lockstep_steps, binding.ignored))
    binding.drive(0.0)      # a clean frame rewrites whatever a failure left unwritten
    out.append(state(tree, clock, binding))
    return out, tree.fired


READ_POINTS = [(op, "sim." + name) for name in CONTROLS for op in ("contains", "getitem")]
TELEMETRY_POINTS = [("setitem", "sim." + name) for name in TELEMETRY]
SEED_POINTS = [("setitem", "sim." + name) for name in CONTROLS]


# Every read and write of every frame; frame 8's missing keys are asked about, never got.
FAILURES = [(point, frame) for point in READ_POINTS + TELEMETRY_POINTS for frame in range(FRAMES)
            if not (point[0] == "getitem" and frame == SEED_FRAME)]


@pytest.mark.parametrize("point, fail_at", FAILURES,
                         ids=[f"{op} {key} frame {frame}" for (op, key), frame in FAILURES])
def test_a_tree_failing_mid_frame_loses_nothing_and_does_nothing_twice(point, fail_at):
    clean, _ = run_frames()
    assert clean[SEED_FRAME + 1][0].steps > 0 and clean[-1][6] == 2   # the script does work
    failing, fired = run_frames(fail_at, point)
    assert fired == 1
    assert failing == clean


@pytest.mark.parametrize("point", SEED_POINTS, ids=" ".join)
def test_a_tree_refusing_a_seed_loses_nothing_and_the_key_is_seeded_again(point):
    clean, _ = run_frames()
    failing, fired = run_frames(SEED_FRAME, point)
    assert fired == 1
    assert failing == clean


def test_a_failed_read_keeps_the_measured_wall_time(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(binding_module, "perf_counter", lambda: now[0])
    tree = FlakyTree()
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    binding = WorldClockBinding(tree, clock)
    binding.drive()
    now[0] += 0.05
    tree.armed = ("getitem", "sim.step")
    with pytest.raises(TreeBroke):
        binding.drive()
    now[0] += 0.02
    assert binding.drive().steps == 7 and clock.tick == 7   # the 0.05 s was not lost


def test_a_tree_write_error_says_what_was_refused_and_carries_the_frame():
    tree = FlakyTree()
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    binding = WorldClockBinding(tree, clock)
    tree.armed = ("setitem", "sim.tick")
    with pytest.raises(TreeWriteError) as info:
        binding.drive(0.03)
    assert info.value.result == StepResult(3, 0, 0, clock.alpha)
    assert "'sim.tick'" in str(info.value) and "TreeBroke('setitem sim.tick')" in str(info.value)
    assert tree["sim.time"] == clock.t and tree["sim.tick"] == 0   # the others were written
    assert isinstance(info.value, RuntimeError)
    binding.drive(0.0)
    assert tree["sim.tick"] == 3


def test_a_tree_failing_while_binding_changes_nothing_or_raises_a_write_error():
    tree = FlakyTree()
    tree.armed = ("getitem", "sim.speed")   # empty tree: contains says no, so use a held key
    tree.data["sim.speed"] = 2.0
    with pytest.raises(TreeBroke):
        WorldClockBinding(tree, WorldClock())
    assert tree.data == {"sim.speed": 2.0}                       # nothing written
    binding = WorldClockBinding(tree, WorldClock())
    tree.armed = ("contains", "ui.mode")
    with pytest.raises(TreeBroke):
        binding.keys = "ui"
    assert binding.keys.mode == "sim.mode" and "ui.speed" not in tree.data   # the old table
    tree.armed = ("setitem", "ui.mode")
    with pytest.raises(TreeWriteError) as info:
        binding.keys = "ui"
    assert info.value.result is None and binding.keys.mode == "ui.mode"
    assert "ui.mode" not in tree.data and tree.data["ui.speed"] == 1.0
    binding.drive(0.0)
    assert tree.data["ui.mode"] == "live"                        # seeded again
    tree.armed = ("setitem", "x.time")
    with pytest.raises(TreeWriteError, match="x.time"):
        WorldClockBinding(tree, WorldClock(), "x")


# -- the lane table ------------------------------------------------------------------------


def test_the_lane_tables_follow_the_key_table():
    assert tuple(lane.name for lane in binding_module._CONTROLS) == WorldClockKeys.CONTROLS
    assert tuple(name for name, _ in binding_module._TELEMETRY) == WorldClockKeys.TELEMETRY


def test_the_key_table_lives_in_its_own_module():
    assert cvcclock.WorldClockKeys is binding_module.WorldClockKeys is keys_module.WorldClockKeys
    assert WorldClockKeys.__module__ == "cvcclock.keys"


@pytest.mark.parametrize("value, paused", [(np.True_, True), (np.False_, False),
                                           (np.int64(1), True), (np.int8(0), False)])
def test_paused_takes_numpy_bools_and_integers(value, paused):
    tree, clock, binding = make()
    tree["sim.paused"] = not paused
    binding.drive(0.0)
    tree["sim.paused"] = value
    binding.drive(0.0)
    assert (clock.mode is Mode.PAUSED) is paused and binding.ignored == 0


def test_integer_lanes_take_numpy_integers():
    tree, clock, binding = make({"sim.mode": "lockstep"})
    tree["sim.lockstep_steps"] = np.int64(3)
    tree["sim.step"] = np.uint16(2)
    assert binding.drive(0.0).steps == 3 + 2 and binding.ignored == 0
    binding.request_steps(np.int32(4))
    assert binding.queued_steps == 4


# -- the compiled frame: a dict tree's quiet frames ----------------------------------------


class LaneByLane(UserDict):
    """A tree that is not a plain dict, so every frame takes the lane-by-lane path."""


VALUES = {"speed": [1.0, float("1.0"), 2, "0.5", 0, -1, math.nan, "fast", 3.0, 1e6],
          "paused": [False, True, "true", 0, 1, "maybe", np.bool_(True)],
          "mode": ["live", "lockstep", "stepping", "replay", "paused", "warp", " LIVE "],
          "lockstep_steps": [1, 3, "2", 2.0, 0, 1.5],
          "step": [0, 1, 3, 2, "4", 7.0]}

# What a host does between frames: (operation, lane or choice, argument).
drive_op = st.tuples(st.just("drive"), st.sampled_from(["1/60", "0", "1/30", "measured", "bad",
                                                        "bad type", "int", "wide", "1e10"]),
                     st.just(0))
host_ops = st.lists(st.one_of(
    st.tuples(st.just("write"), st.sampled_from(CONTROLS), st.integers(0, 8)),
    st.tuples(st.just("delete"), st.sampled_from(CONTROLS + TELEMETRY), st.just(0)),
    st.tuples(st.just("overwrite"), st.sampled_from(TELEMETRY), st.just(0)),
    st.tuples(st.just("request"), st.just(""), st.integers(0, 3)),
    st.tuples(st.just("scale"), st.just(""), st.integers(0, 3)),
    st.tuples(st.just("rebind"), st.sampled_from(["sim", "off", "one", "telemetry"]),
              st.just(0)),
    *[drive_op] * 4,                 # a host drives more often than it does anything else
), max_size=40)

TABLES = {"sim": "sim",
          "off": WorldClockKeys(),
          "one": WorldClockKeys(speed="sim.speed", tick="sim.tick"),
          "telemetry": WorldClockKeys(time="sim.time", dropped="sim.dropped")}


def run_host(tree, ops, now):
    """Run the host's ``ops`` on ``tree``; what each drive returned and left."""
    clock = WorldClock(ClockConfig(fixed_dt=0.01, lockstep_steps=2))
    binding = WorldClockBinding(tree, clock)
    seen = []
    for op, name, arg in ops:
        key = getattr(binding.keys, name) if name in CONTROLS + TELEMETRY else None
        if op == "write" and key:
            values = VALUES[name]
            tree[key] = values[arg % len(values)]
        elif op == "delete" and key and key in tree:
            del tree[key]
        elif op == "overwrite" and key:
            tree[key] = "stale"
        elif op == "request":
            binding.request_steps(arg)
        elif op == "scale":
            clock.scale = (0.5, 1.0, 2.0, 4.0)[arg]      # a change made on the clock itself
        elif op == "rebind":
            binding.keys = TABLES[name]
        elif op == "drive":
            now[0] += 0.021
            wall = {"1/60": 1 / 60, "0": 0.0, "1/30": 1 / 30, "measured": None,
                    "bad": -1.0, "bad type": "0.1", "int": 1,
                    "wide": 1e301, "1e10": 1e10}[name]     # too wide, or at speed 1e6
            try:
                result = binding.drive(wall)
            except (TypeError, ValueError) as error:
                result = str(error)
            seen.append((result, clock.state(), binding.ignored, binding.last_ignored,
                         binding.queued_steps, dict(tree)))
    return seen


@settings(max_examples=300, deadline=None)
@given(ops=st.one_of(host_ops, st.tuples(host_ops, st.lists(drive_op, max_size=30)).map(
    lambda both: both[0] + both[1])))         # and runs of frames with nothing asked
def test_a_dict_tree_frame_does_what_the_lane_by_lane_frame_does(ops):
    """The compiled frame (a plain dict) and the general one (any other mapping) give the
    same results, clock states, counts and tree contents, whatever the host does."""
    now = [100.0]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(binding_module, "perf_counter", lambda: now[0])
        fast = run_host({}, ops, now)
        now[0] = 100.0
        general = run_host(LaneByLane(), ops, now)
    assert fast == general


def python_calls_in(fn, *args):
    """The Python functions ``fn(*args)`` runs, by name (C calls are not counted)."""
    names = []

    def profile(frame, event, arg):
        if event == "call":
            names.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        fn(*args)
    finally:
        sys.setprofile(None)
    return names


def test_a_quiet_frame_on_a_dict_tree_is_the_drive_and_its_generated_setter_alone():
    """Issue 22: the lanes are compiled at bind time, so a frame that changes no control runs
    no Python function but ``drive`` and the setter generated for the telemetry lanes (the
    lane-by-lane frame ran five more: the frame time, the reads, the run, the writes)."""
    tree, clock, binding = make()
    binding.drive(1 / 60)                       # the first frame applies what it first saw
    assert python_calls_in(binding.drive, 1 / 60) == ["drive", "publish"]
    tree["sim.speed"] = float("1.0")           # equal, another object: still no change
    assert python_calls_in(binding.drive, 1 / 60) == ["drive", "publish"]
    assert tree["sim.tick"] == clock.tick and tree["sim.time"] == clock.t
    tree["sim.speed"] = 2.0                     # a change goes lane by lane, once
    assert "_apply_speed" in python_calls_in(binding.drive, 1 / 60)
    assert python_calls_in(binding.drive, 1 / 60) == ["drive", "publish"]
    assert clock.scale == 2.0


def test_the_generated_setter_writes_every_telemetry_lane_of_the_table():
    tree, clock, binding = make(keys=WorldClockKeys(tick="a.tick", dropped="a.dropped"))
    binding.drive(0.05)
    tree["a.tick"] = "stale"
    binding.drive(0.0)
    assert tree == {"a.tick": 5, "a.dropped": 0}
    tree, clock, binding = make(keys=WorldClockKeys(speed="s"))
    binding.drive(0.05)
    assert tree == {"s": 1.0} and clock.tick == 5


@pytest.mark.parametrize("tree_type", [dict, LaneByLane])
def test_a_quiet_frame_inside_presenting_or_a_callback_is_refused_as_any_frame(tree_type):
    tree, clock, binding = make(tree_type())
    binding.drive(0.0)
    binding.drive()                                   # measuring from here
    mark = binding._wall_mark
    with clock.presenting():
        with pytest.raises(RuntimeError, match=r"^drive\(\) cannot advance the clock inside "
                                               r"presenting\(\) or a timer callback; nothing "
                                               "was applied$"):
            binding.drive(1 / 60)
        with pytest.raises(RuntimeError, match="^drive.. cannot advance"):
            binding.drive()
    assert (clock.tick, binding._wall_mark, tree["sim.tick"]) == (0, mark, 0)
    refused = []

    def drive_from_a_callback(tick):
        with pytest.raises(RuntimeError, match="^drive.. cannot advance") as error:
            binding.drive(1 / 60)
        refused.append(str(error.value))

    clock.after_ticks(1, drive_from_a_callback)
    binding.drive(0.01)
    assert len(refused) == 1 and clock.tick == 1 and tree["sim.tick"] == 1


@pytest.mark.parametrize("error", [RuntimeError, ZeroDivisionError])
def test_a_timer_raising_in_a_quiet_frame_does_what_it_does_lane_by_lane(error):
    def run(tree):
        tree, clock, binding = make(tree)
        binding.drive(0.0)

        def boom(tick):
            raise error("boom")

        clock.after_ticks(2, boom)
        with pytest.raises(error, match="boom"):
            binding.drive(0.05)
        after = (clock.tick, clock.owed, dict(tree), binding.queued_steps)
        binding.drive(0.0)
        return after, (clock.tick, clock.owed, dict(tree))

    assert run({}) == run(LaneByLane())


@pytest.mark.parametrize("bad", [-1.0, math.nan, "0.1", True, 2])
def test_a_refused_wall_dt_on_a_quiet_frame_keeps_the_measured_wall_time(bad, monkeypatch):
    now = [100.0]
    monkeypatch.setattr(binding_module, "perf_counter", lambda: now[0])

    def run(tree):
        tree, clock, binding = make(tree)
        binding.drive(0.0)
        binding.drive()                      # measuring from here
        now[0] += 0.03
        try:
            binding.drive(bad)               # refused (an int is taken: 2 s, capped)
        except (TypeError, ValueError) as error:
            refused = str(error)
        else:
            refused = None
        now[0] += 0.02
        return refused, binding.drive().steps, clock.tick, dict(tree)

    assert run({}) == run(LaneByLane())


# -- a frame the clock's advance would refuse changes nothing ------------------------------


def snapshot(clock, binding, tree):
    return (clock.state(), binding.ignored, binding.last_ignored, binding.queued_steps,
            binding._wall_mark, dict(tree))


@pytest.mark.parametrize("tree_type", [dict, LaneByLane])
@pytest.mark.parametrize("paused, controls, wall_dt", [
    (False, {"sim.speed": 3.0, "sim.step": 2}, 1e301),       # too wide at any scale
    (False, {"sim.speed": 1e6}, 1e10),                       # too wide at the new speed only
    (True, {"sim.speed": 1e6, "sim.paused": False}, 1e10),   # ...resuming a paused clock
    (True, {"sim.paused": False, "sim.step": 3, "sim.lockstep_steps": 4}, 1e301),
])
def test_a_frame_too_wide_at_its_controls_is_refused_and_changes_nothing(
        tree_type, paused, controls, wall_dt):
    tree, clock, binding = make(tree_type(), lockstep_steps=2)
    tree["sim.paused"] = paused
    binding.drive(0.0)
    binding.request_steps(1)
    tree.update(controls)
    before = snapshot(clock, binding, tree)
    with pytest.raises(ValueError, match=re.escape(f"wall_dt={wall_dt!r} at scale")):
        binding.drive(wall_dt)
    assert snapshot(clock, binding, tree) == before
    assert clock.paused is paused and clock.scale == 1.0
    binding.drive(0.01)                     # and the next frame applies them as it would have
    assert clock.scale == controls.get("sim.speed", 1.0)


@pytest.mark.parametrize("tree_type", [dict, LaneByLane])
@pytest.mark.parametrize("controls, wall_dt", [
    ({"sim.mode": "lockstep", "sim.lockstep_steps": 5, "sim.speed": 2.0}, 0.0),
    ({"sim.speed": 2.0, "sim.lockstep_steps": 5}, 0.02),   # 4 quanta live, 3 to MAX_TICK
])
def test_a_frame_past_max_tick_at_its_controls_is_refused_and_changes_nothing(
        tree_type, controls, wall_dt):
    tree, clock, binding = make(tree_type())
    clock.advance_ticks(MAX_TICK - 3)
    binding.drive(0.0)
    tree.update(controls)
    before = snapshot(clock, binding, tree)
    with pytest.raises(ValueError, match=f"wall_dt={wall_dt}: .* past MAX_TICK"):
        binding.drive(wall_dt)
    assert snapshot(clock, binding, tree) == before
    assert (clock.mode, clock.scale, clock.lockstep_steps) == (Mode.LIVE, 1.0, 1)


@pytest.mark.parametrize("wall_dt", [1e301, 1e300])
def test_a_quiet_frame_too_wide_keeps_the_measured_wall_time_as_lane_by_lane(
        wall_dt, monkeypatch):
    now = [100.0]
    monkeypatch.setattr(binding_module, "perf_counter", lambda: now[0])

    def run(tree):
        tree, clock, binding = make(tree)
        binding.drive(0.0)
        binding.drive()                      # measuring from here
        now[0] += 0.03
        before = snapshot(clock, binding, tree)
        with pytest.raises(ValueError) as error:
            binding.drive(wall_dt)
        assert snapshot(clock, binding, tree) == before
        now[0] += 0.02
        return str(error.value), binding.drive().steps, clock.tick, dict(tree)

    fast = run({})
    assert fast == run(LaneByLane())
    assert fast[1] == 5                      # the 0.05 s since the last measured drive
