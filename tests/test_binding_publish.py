"""WorldClockBinding.publish: a follower's own telemetry keys, written by every drive."""

from __future__ import annotations

import pytest

from cvcclock import WorldClock, WorldClockBinding


def test_a_published_key_is_written_by_every_drive_after_the_clocks_keys():
    tree: dict = {}
    clock = WorldClock()
    binding = WorldClockBinding(tree, clock)
    count = iter(range(100))
    binding.publish("sim.extra.n", lambda: next(count))
    assert "sim.extra.n" not in tree          # the next drive writes it
    binding.drive(1 / 60)
    binding.drive(1 / 60)
    assert tree["sim.extra.n"] == 1 and tree["sim.tick"] == clock.tick == 4
    assert list(tree)[-1] == "sim.extra.n"


def test_publishing_changes_no_control_and_survives_a_rebind():
    tree: dict = {}
    clock = WorldClock()
    binding = WorldClockBinding(tree, clock)
    binding.drive(0.0)
    clock.scale = 3.0                          # a change made on the clock stands
    binding.publish("sim.extra", lambda: "x")
    binding.drive(0.0)
    assert clock.scale == 3.0 and tree["sim.extra"] == "x"
    binding.keys = "host"
    binding.drive(0.0)
    assert tree["host.tick"] == clock.tick
    binding.unpublish("sim.extra")
    tree["sim.extra"] = "kept"
    binding.drive(0.0)
    assert tree["sim.extra"] == "kept"
    with pytest.raises(KeyError):
        binding.unpublish("sim.extra")


def test_a_bad_key_or_read_is_refused_and_changes_nothing():
    tree: dict = {}
    binding = WorldClockBinding(tree, WorldClock())
    with pytest.raises(TypeError, match="key"):
        binding.publish(3, lambda: 0)
    with pytest.raises(ValueError, match="non-empty"):
        binding.publish("", lambda: 0)
    with pytest.raises(TypeError, match="read"):
        binding.publish("sim.extra", 5)
    with pytest.raises(ValueError, match="tick lane"):
        binding.publish("sim.tick", lambda: 0)
    with pytest.raises(ValueError, match="speed lane"):
        binding.publish("sim.speed", lambda: 0)
    before = dict(tree)
    binding.drive(0.0)
    assert set(tree) == set(before)
