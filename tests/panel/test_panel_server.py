"""The panel's server over real sockets on 127.0.0.1 (aiohttp's client): who gets in, what a
message may do, and seeks applied on the driver's thread. Every test closes its panel."""

from __future__ import annotations

import asyncio
import json
import socket
import warnings

import pytest

aiohttp = pytest.importorskip("aiohttp")

from cvcclock import ClockConfig, Mode, WorldClock, WorldClockBinding  # noqa: E402
from cvcclock.demo import Spring  # noqa: E402
from cvcclock.panel import Panel  # noqa: E402
from cvcclock.panel._server import _host_ok  # noqa: E402
from cvcclock.replay import Replayer  # noqa: E402
from support.panels import demo_clock, demo_trace, origin, straight_run, ws_url  # noqa: E402

TIMEOUT = aiohttp.ClientTimeout(total=10)


@pytest.fixture
def served():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    tree: dict = {}
    binding = WorldClockBinding(tree, clock)
    panel = Panel(binding).start()
    try:
        yield panel, binding, tree, clock
    finally:
        panel.close()
    assert not panel.started


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 20))


def base(panel):
    return origin(panel)


async def get(url, **headers):
    async with aiohttp.ClientSession(timeout=TIMEOUT) as session, \
            session.get(url, headers=headers, allow_redirects=False) as response:
        return response.status, await response.text()


async def post(url, body, **headers):
    async with aiohttp.ClientSession(timeout=TIMEOUT) as session, \
            session.post(url, data=body, headers=headers) as response:
        return response.status, await response.text()


def test_the_page_and_its_assets_are_served_with_the_token(served):
    panel, *_ = served
    status, text = run(get(panel.url))
    assert status == 200 and "cvcclock transport panel" in text
    token = panel.url.partition("token=")[2]
    assert f"static/panel.js?token={token}" in text
    status, js = run(get(f"{base(panel)}/static/panel.js?token={token}"))
    assert status == 200 and "new WebSocket" in js


@pytest.mark.parametrize("path", ["/", "/static/panel.js", "/static/panel.css", "/ws",
                                  "/nothing"])
@pytest.mark.parametrize("token", [None, "", "wrong", "x" * 43])
def test_every_path_without_the_right_token_gets_403_and_changes_nothing(served, path, token):
    panel, binding, tree, clock = served
    before, state = dict(tree), clock.state()
    query = "" if token is None else f"?token={token}"
    status, text = run(get(f"{base(panel)}{path}{query}"))
    assert status == 403 and "token" in text
    status, _ = run(post(f"{base(panel)}/control{query}", '{"op": "speed", "value": 2}',
                         Origin=base(panel)))
    assert status == 403
    assert tree == before and clock.state() == state and panel.accepted == 0


@pytest.mark.parametrize("host", ["evil.example:{port}", "127.0.0.1:1", "localhost.evil:{port}",
                                  "127.0.0.1.nip.io:{port}"])
def test_a_host_header_naming_another_site_gets_403_dns_rebinding(served, host):
    panel, binding, tree, clock = served
    status, text = run(get(panel.url, Host=host.format(port=panel.port)))
    assert status == 403 and "Host" in text
    status, _ = run(post(panel.url.replace("/?", "/control?"), '{"op": "paused", "value": true}',
                         Host=host.format(port=panel.port), Origin=f"http://{host}"))
    assert status == 403 and tree["sim.paused"] is False


def test_localhost_names_the_panel_too(served):
    panel, *_ = served
    status, _ = run(get(panel.url, Host=f"localhost:{panel.port}"))
    assert status == 200


def test_a_wildcard_bind_takes_ip_literals_and_own_names_only():
    assert _host_ok("192.168.1.5:8000", None, 8000)
    assert _host_ok("[::1]:8000", None, 8000)
    assert _host_ok("localhost:8000", None, 8000)
    assert not _host_ok("evil.example:8000", None, 8000)
    assert not _host_ok("192.168.1.5:8001", None, 8000)
    assert not _host_ok(None, None, 8000)


@pytest.mark.parametrize("given", [None, "http://evil.example", "null",
                                   "http://127.0.0.1:1", "https://127.0.0.1:{port}"])
def test_a_websocket_from_another_origin_is_refused(served, given):
    panel, binding, tree, clock = served

    async def attempt():
        headers = {} if given is None else {"Origin": given.format(port=panel.port)}
        async with aiohttp.ClientSession(timeout=TIMEOUT) as session:
            with pytest.raises(aiohttp.WSServerHandshakeError) as info:
                await session.ws_connect(ws_url(panel), headers=headers)
            return info.value.status

    assert run(attempt()) == 403
    assert panel.clients == 0


def test_a_post_from_another_origin_is_refused(served):
    panel, binding, tree, clock = served
    url = panel.url.replace("/?", "/control?")
    for headers in ({}, {"Origin": "http://evil.example"}):
        status, _ = run(post(url, '{"op": "paused", "value": true}', **headers))
        assert status == 403
    status, text = run(post(url, '{"op": "paused", "value": true}', Origin=base(panel)))
    assert status == 200 and json.loads(text) == {"ok": True} and tree["sim.paused"] is True


def test_a_post_is_checked_like_a_message(served):
    panel, binding, tree, clock = served
    url = panel.url.replace("/?", "/control?")
    status, text = run(post(url, '{"op": "speed", "value": NaN}', Origin=base(panel)))
    assert status == 400 and "NaN" in json.loads(text)["refused"]
    status, text = run(post(url, "x" * 70_000, Origin=base(panel)))
    assert status == 413
    assert panel.refused == 2 and tree["sim.speed"] == 1.0


@pytest.mark.parametrize("path", ["/static/../_panel.py", "/static/..%2f_panel.py",
                                  "/static/%2e%2e/_server.py", "/static/index.html",
                                  "/static//etc/passwd", "/../../etc/passwd",
                                  "/static/panel.js/../../_panel.py", "/static/PANEL.JS"])
def test_no_path_reaches_a_file_but_the_pages_own(served, path):
    panel, *_ = served
    token = panel.url.partition("token=")[2]
    status, text = run(get(f"{base(panel)}{path}?token={token}"))
    assert status in (403, 404)
    assert "import" not in text and "root:" not in text


def test_malformed_messages_are_counted_answered_and_change_nothing(served):
    panel, binding, tree, clock = served
    twin_clock = WorldClock(ClockConfig(fixed_dt=0.01))
    twin = WorldClockBinding({}, twin_clock)
    bad = ['{"op": "speed", "value": NaN}', '{"op": "speed", "value": 1e999}',
           '{"op": "speed", "value": 2, "x": 1}', '{"op": "mode", "value": "warp"}',
           '{"op": "lockstep_steps", "value": -4}', '{"op": "seek", "tick": 3}', "garbage",
           "[]", '{"op": "paused", "value": "yes"}', "x" * 65_537]

    async def session():
        async with aiohttp.ClientSession(timeout=TIMEOUT) as s, \
                s.ws_connect(ws_url(panel), origin=base(panel)) as ws:
            replies = []
            for text in bad:
                await ws.send_str(text)
            await ws.send_bytes(b"\xff\x00")
            while len(replies) < len(bad) + 1:
                message = json.loads((await ws.receive(timeout=10)).data)
                if message["type"] == "refused":
                    replies.append(message["reason"])
            await ws.send_str('{"op": "paused", "value": true}')   # the page still works
            while True:
                message = json.loads((await ws.receive(timeout=10)).data)
                if message["type"] == "telemetry" and message["controls"]["paused"]:
                    return replies, message

    replies, telemetry = run(session())
    assert len(replies) == len(bad) + 1 and "65537 bytes" in replies[-2]
    assert telemetry["refused"] == panel.refused == len(bad) + 1
    assert panel.accepted == 1
    tree["sim.paused"] = False          # undo the one good message; the rest left no trace
    for _ in range(5):
        assert binding.drive(1 / 60) == twin.drive(1 / 60)
    assert clock.state() == twin_clock.state()


def test_more_than_100_messages_a_second_are_refused(served):
    panel, binding, tree, clock = served

    async def flood():
        async with aiohttp.ClientSession(timeout=TIMEOUT) as s, \
                s.ws_connect(ws_url(panel), origin=base(panel)) as ws:
            for _ in range(300):
                await ws.send_str('{"op": "step"}')
            await asyncio.sleep(1.1)   # out of the flood's second: refused as not JSON only
            await ws.send_str("end")   # its reply says all before it were read
            while True:
                message = json.loads((await ws.receive(timeout=10)).data)
                if message["type"] == "refused" and "not JSON" in message["reason"]:
                    return

    run(flood())
    # However fast the machine, the 300 land within a few seconds: at most 100 per second.
    assert panel.accepted + panel.refused == 301
    assert panel.refused >= 301 - 100 * 4
    assert tree["sim.step"] == panel.accepted


def test_close_is_bounded_and_drops_the_pages(served):
    panel, *_ = served

    async def connected_then_closed():
        async with aiohttp.ClientSession(timeout=TIMEOUT) as s, \
                s.ws_connect(ws_url(panel), origin=base(panel)) as ws:
            await ws.receive(timeout=10)
            assert panel.clients == 1
            closing = asyncio.get_running_loop().run_in_executor(None, panel.close)
            while not ws.closed:   # reading, the client answers the server's close
                message = await ws.receive(timeout=10)
                if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                    break
            await closing
            return ws.close_code

    assert run(connected_then_closed()) == 1001
    assert not panel.started
    with socket.socket() as probe:   # nothing listens there any more
        assert probe.connect_ex(("127.0.0.1", panel.port)) != 0


def test_a_taken_port_raises_and_leaves_nothing_running(served):
    panel, binding, *_ = served
    other = Panel(binding, port=panel.port)
    with pytest.raises(OSError):
        other.start()
    assert not other.started
    with pytest.raises(RuntimeError, match="already started"):
        panel.start()


def test_another_host_only_when_asked_and_with_a_warning(capsys):
    binding = WorldClockBinding({}, WorldClock(ClockConfig(fixed_dt=0.01)))
    panel = Panel(binding, host="192.0.2.1")   # TEST-NET: never this machine's, bind fails
    with warnings.catch_warnings(record=True) as caught, pytest.raises(OSError):
        warnings.simplefilter("always")
        panel.start()
    assert any("not loopback" in str(w.message) for w in caught)
    assert "not loopback" in capsys.readouterr().err
    assert not panel.started


# -- seeks asked from a page, applied on the driver's thread inside pump -----------------------

PACINGS = {
    "live 1x": (Mode.LIVE, 1.0, lambda c: c.advance(1 / 60)),
    "live 2x": (Mode.LIVE, 2.0, lambda c: c.advance(1 / 60)),
    "live 0.5x": (Mode.LIVE, 0.5, lambda c: c.advance(1 / 60)),
    "lockstep": (Mode.LOCKSTEP, 1.0, lambda c: c.advance(1 / 60)),
    "batch": (Mode.LIVE, 1.0, lambda c: c.advance_ticks(37)),
    "single-step": (Mode.STEPPING, 1.0, lambda c: c.step_once()),
}


@pytest.mark.parametrize("pacing", PACINGS)
@pytest.mark.parametrize("target", [0, 95, 240, 600])
def test_a_seek_from_the_page_gives_the_straight_runs_world_under_every_pacing(pacing, target):
    mode, scale, frame = PACINGS[pacing]
    clock = demo_clock()
    clock.mode, clock.scale = mode, scale
    binding = WorldClockBinding({}, clock)
    replayer = Replayer(Spring(), clock, demo_trace())
    with Panel(binding, replayer=replayer) as panel:
        while clock.tick < 400:        # play past the target (or short of it), then scrub
            binding.drive(1 / 60)
            frame(clock)
            replayer.pump()
        assert panel._receive(json.dumps({"op": "seek", "tick": target}), None) is None
        assert clock.tick >= 400       # queued, not applied: the server thread never seeks
        replayer.pump()                # the host's loop, unchanged: the seek happens here
        assert clock.tick == target and clock.mode is mode
        assert replayer.follower.world.snapshot() == straight_run(target)
    assert "pump" not in vars(replayer)   # closed: the replayer is as it was


def test_a_seek_through_the_websocket_waits_for_the_drivers_pump():
    clock = demo_clock()
    binding = WorldClockBinding({}, clock)
    replayer = Replayer(Spring(), clock, demo_trace())
    clock.advance_ticks(500)
    replayer.pump()
    with Panel(binding, replayer=replayer) as panel:
        async def seek():
            async with aiohttp.ClientSession(timeout=TIMEOUT) as s, \
                    s.ws_connect(ws_url(panel), origin=base(panel)) as ws:
                hello = json.loads((await ws.receive(timeout=10)).data)
                await ws.send_str('{"op": "seek", "tick": 123}')
                while True:
                    message = json.loads((await ws.receive(timeout=10)).data)
                    if message["type"] == "telemetry" and message["seeking"]:
                        return hello
        hello = run(seek())
        assert hello["recording"]["start"] == 0 and hello["recording"]["end"] == 600
        assert [tick for tick, _ in hello["recording"]["inputs"]] == \
            [entry.tick for entry in demo_trace().inputs]
        assert clock.tick == 500
        replayer.pump()
        assert clock.tick == 123
        assert replayer.follower.world.snapshot() == straight_run(123)
        assert panel._receive('{"op": "seek", "tick": 601}', None).startswith("tick must be")


def test_a_frame_too_large_to_read_drops_that_page_is_counted_and_the_panel_serves_on(served):
    panel, binding, tree, clock = served

    async def huge():
        async with aiohttp.ClientSession(timeout=TIMEOUT) as s:
            async with s.ws_connect(ws_url(panel), origin=base(panel)) as ws:
                await ws.send_str('{"op": "step", "count": 1}' + " " * (2 * 1024 * 1024))
                while (await ws.receive(timeout=10)).type not in (
                        aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED,
                        aiohttp.WSMsgType.CLOSING):
                    pass
                code = ws.close_code
            async with s.ws_connect(ws_url(panel), origin=base(panel)) as ws:
                await ws.send_str('{"op": "step"}')
                while json.loads((await ws.receive(timeout=10)).data).get("accepted") != 1:
                    pass
            return code

    assert run(huge()) == 1009   # "message too big"
    assert panel.refused == 1 and tree["sim.step"] == 1
