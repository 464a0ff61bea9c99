"""The panel's message rules and its application of them, without a server (no aiohttp).

Every malformed message is refused with a reason naming the field and the value, counted,
and leaves the tree, and so the clock after a drive, exactly as it was.
"""

from __future__ import annotations

import json

import pytest

from cvcclock import (
    ClockConfig,
    ClockFollower,
    Mode,
    WorldClock,
    WorldClockBinding,
    WorldClockKeys,
)
from cvcclock.panel import MAX_MESSAGE_BYTES, SPEED_MAX, SPEED_MIN, Panel
from cvcclock.panel._protocol import Command, RateLimit, Refusal, parse

GOOD = [
    ('{"op": "speed", "value": 2}', Command("speed", 2.0)),
    ('{"op": "speed", "value": 0.0625}', Command("speed", SPEED_MIN)),
    ('{"op": "speed", "value": 16}', Command("speed", SPEED_MAX)),
    ('{"op": "paused", "value": true}', Command("paused", True)),
    ('{"op": "mode", "value": "lockstep"}', Command("mode", "lockstep")),
    ('{"op": "lockstep_steps", "value": 3}', Command("lockstep_steps", 3)),
    ('{"op": "step"}', Command("step", 1)),
    ('{"op": "step", "count": 4}', Command("step", 4)),
    ('{"op": "seek", "tick": 120}', Command("seek", 120)),
]

BAD = [
    ('{"op": "speed", "value": NaN}', "NaN"),
    ('{"op": "speed", "value": Infinity}', "Infinity"),
    ('{"op": "speed", "value": -Infinity}', "-Infinity"),
    ('{"op": "speed", "value": 1e400}', "finite"),
    ('{"op": "speed", "value": "2"}', "number"),
    ('{"op": "speed", "value": true}', "number"),
    ('{"op": "speed", "value": 0}', "from"),
    ('{"op": "speed", "value": 17}', "from"),
    ('{"op": "speed", "value": 2, "extra": 1}', "unknown keys"),
    ('{"op": "speed"}', "needs"),
    ('{"op": "paused", "value": 1}', "true or false"),
    ('{"op": "mode", "value": "warp"}', "one of"),
    ('{"op": "mode", "value": "replay"}', "one of"),
    ('{"op": "mode", "value": ["live"]}', "one of"),
    ('{"op": "lockstep_steps", "value": 0}', "from 1"),
    ('{"op": "lockstep_steps", "value": 2.5}', "integer"),
    ('{"op": "lockstep_steps", "value": 1001}', "from 1"),
    ('{"op": "step", "count": 0}', "from 1"),
    ('{"op": "step", "count": -3}', "from 1"),
    ('{"op": "step", "count": 10000}', "from 1"),
    ('{"op": "step", "value": 1}', "unknown keys"),
    ('{"op": "seek", "tick": -1}', "from 0"),
    ('{"op": "seek", "tick": 1.5}', "integer"),
    ('{"op": "warp"}', "op must be"),
    ('{"value": 1}', "op must be"),
    ('{"op": 3}', "op must be"),
    ('[1, 2]', "JSON object"),
    ('"speed"', "JSON object"),
    ('{"op": "speed", "value": 2', "not JSON"),
    ('', "not JSON"),
    (b'\xff\xfe{"op": "step"}', "not JSON"),
    ('[' * 100_000 + ']' * 100_000, "bytes"),
    ('[' * 30_000 + ']' * 30_000, "not JSON"),   # under the size limit, deeper than Python
]


@pytest.mark.parametrize("text, command", GOOD)
def test_good_messages_parse_to_their_commands(text, command):
    assert parse(text) == command


@pytest.mark.parametrize("text, reason", BAD)
def test_bad_messages_are_refused_with_a_reason(text, reason):
    with pytest.raises(Refusal, match=None) as info:
        parse(text)
    assert reason in str(info.value)


def test_a_message_over_64_kib_is_refused_and_one_at_the_limit_is_read():
    pad = MAX_MESSAGE_BYTES - len('{"op": "step", "count": 1}')
    at_limit = '{"op": "step", "count": 1}' + " " * pad
    assert len(at_limit.encode()) == MAX_MESSAGE_BYTES
    assert parse(at_limit) == Command("step", 1)
    with pytest.raises(Refusal, match="65537 bytes, over the 65536-byte limit"):
        parse(at_limit + " ")


def test_the_rate_limit_allows_100_in_any_second_and_refused_ones_do_not_count():
    now = [0.0]
    rate = RateLimit(100, 1.0, clock=lambda: now[0])
    assert all(rate.allow() for _ in range(100))
    assert not rate.allow()
    now[0] = 0.999
    assert not rate.allow()
    now[0] = 1.0                       # the first hundred leave the window together
    assert all(rate.allow() for _ in range(100))
    assert not rate.allow()


def make_panel(**kwargs):
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    tree: dict = {}
    binding = WorldClockBinding(tree, clock)
    return Panel(binding, **kwargs), binding, tree, clock


def test_accepted_messages_write_the_control_keys_and_the_next_drive_applies_them():
    panel, binding, tree, clock = make_panel()
    for text in ('{"op": "speed", "value": 2.5}', '{"op": "mode", "value": "lockstep"}',
                 '{"op": "lockstep_steps", "value": 4}'):
        assert panel._receive(text, None) is None
    assert (tree["sim.speed"], tree["sim.mode"], tree["sim.lockstep_steps"]) == \
        (2.5, "lockstep", 4)
    assert (clock.scale, clock.mode) == (1.0, Mode.LIVE)   # nothing until the driver drives
    result = binding.drive(1 / 60)
    assert (clock.scale, clock.mode, result.steps, panel.accepted) == \
        (2.5, Mode.LOCKSTEP, 4, 3)


def test_a_step_runs_one_quantum_or_one_follower_step():
    panel, binding, tree, clock = make_panel()
    clock.mode = Mode.STEPPING
    panel._receive('{"op": "step"}', None)
    assert binding.drive(0.0).steps == 1
    follower = ClockFollower.for_step(clock, 0.06)
    panel, binding, tree, clock = make_panel(follower=follower)
    clock.mode = Mode.STEPPING
    panel._receive('{"op": "step", "count": 2}', None)
    assert tree["sim.step"] == 12
    assert binding.drive(0.0).steps == 12


@pytest.mark.parametrize("text, reason", BAD[:12] + [('{"op": "seek", "tick": 5}', "recording")])
def test_refused_messages_change_nothing_and_are_counted(text, reason):
    panel, binding, tree, clock = make_panel()
    twin_clock = WorldClock(ClockConfig(fixed_dt=0.01))
    twin = WorldClockBinding({}, twin_clock)
    before = dict(tree)
    got = panel._receive(text, None)
    assert reason in got
    assert (panel.refused, panel.last_refusal, panel.accepted) == (1, got, 0)
    assert tree == before
    for _ in range(5):
        assert binding.drive(1 / 60) == twin.drive(1 / 60)
    assert clock.state() == twin_clock.state()


def test_a_control_whose_lane_is_off_is_refused():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    tree: dict = {}
    keys = WorldClockKeys.under("sim")
    keys.step = None
    binding = WorldClockBinding(tree, clock, keys)
    panel = Panel(binding)
    assert "no step key" in panel._receive('{"op": "step"}', None)
    assert "sim.step" not in tree and panel.refused == 1


def test_a_step_key_the_host_spoiled_is_refused_not_raised():
    panel, binding, tree, clock = make_panel()
    tree["sim.step"] = "three"
    assert "not a counter" in panel._receive('{"op": "step"}', None)
    assert tree["sim.step"] == "three"


def test_the_rate_limit_refuses_the_101st_message_of_a_second():
    panel, binding, tree, clock = make_panel()
    rate = RateLimit(100, 1.0, clock=lambda: 0.0)
    replies = [panel._receive(json.dumps({"op": "step"}), rate) for _ in range(150)]
    assert replies[:100] == [None] * 100
    assert all("more than 100 messages" in r for r in replies[100:])
    assert tree["sim.step"] == 100 and panel.refused == 50


@pytest.mark.parametrize("kwargs, error, match", [
    ({"host": 127}, TypeError, "host"),
    ({"host": ""}, ValueError, "host"),
    ({"port": -1}, ValueError, "port"),
    ({"port": 65536}, ValueError, "port"),
    ({"port": "80"}, TypeError, "port"),
    ({"replayer": object()}, TypeError, "replayer"),
    ({"follower": object()}, TypeError, "follower"),
])
def test_bad_arguments_are_refused_naming_them(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_panel(**kwargs)


def test_the_binding_must_be_a_binding():
    with pytest.raises(TypeError, match="binding"):
        Panel({})


def test_an_unstarted_panel_says_so_and_closing_it_is_harmless():
    panel, *_ = make_panel()
    assert not panel.started and panel.clients == 0
    assert "token=" in panel.url and panel.url.startswith("http://127.0.0.1:0/")
    panel.close()
    panel.close()


def test_a_reason_quotes_a_long_value_shortened():
    with pytest.raises(Refusal) as info:
        parse(json.dumps({"op": "mode", "value": "x" * 60_000}))
    assert len(str(info.value)) < 200 and str(info.value).endswith("...")
    with pytest.raises(Refusal) as info:
        parse(json.dumps({"op": "step", **{f"k{i}": 1 for i in range(5000)}}))
    assert len(str(info.value)) < 200


class Refusing(dict):
    """A tree that takes the binding's writes but refuses the panel's speed."""

    def __setitem__(self, key, value):
        if key == "sim.speed" and value == 3.0:
            raise PermissionError("read-only")
        super().__setitem__(key, value)


def test_a_tree_that_refuses_the_write_is_a_refusal_not_a_raise():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    tree = Refusing()
    panel = Panel(WorldClockBinding(tree, clock))
    reason = panel._receive('{"op": "speed", "value": 3}', None)
    assert "the tree refused the write" in reason and "read-only" in reason
    assert tree["sim.speed"] == 1.0 and panel.refused == 1


@pytest.mark.parametrize("host, loopback", [
    ("127.0.0.1", True), ("127.3.2.1", True), ("::1", True), ("localhost", True),
    ("0.0.0.0", False), ("::", False), ("192.168.1.5", False), ("example.com", False)])
def test_only_this_machine_is_served_without_a_warning(host, loopback):
    from cvcclock.panel._panel import _is_loopback

    assert _is_loopback(host) is loopback
