"""The panel in a real browser: Debian's Chromium, headless, driven by Playwright, against a
live simulation at 60 fps on a driver thread (``support.panels.LiveRun``).

Each test clicks, drags or types as a user does and then waits (bounded) for the driver to
show the effect; the frame log says within how many frames it came.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("aiohttp")
sync_api = pytest.importorskip("playwright.sync_api")

from cvcclock import Mode  # noqa: E402
from support.panels import WAIT, LiveRun, origin, straight_run, ws_url  # noqa: E402

CHROMIUM = os.environ.get("CVCCLOCK_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)
LAUNCH_MS = 120_000


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start. The bound
        # is loose: a first launch reads some 250 MB of Chromium from disk (10.5 s measured on
        # an idle machine after dropping the page cache; over 30 s once while CI built wheels).
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                              args=["--no-sandbox"], timeout=LAUNCH_MS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    context.set_default_timeout(WAIT * 1000)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def live():
    with LiveRun() as run:
        yield run


@pytest.fixture
def replay():
    with LiveRun(replay=True) as run:
        yield run


def open_panel(page, run):
    page.goto(run.panel.url)
    page.wait_for_function("() => window.cvcclockPanel && window.cvcclockPanel.updates > 2")


def readout(page, name):
    return page.locator(f"#r-{name}").inner_text()


def pause(page, run):
    page.locator("#play").click()
    run.wait(lambda: run.clock.mode is Mode.PAUSED, "paused")
    run.wait_frames(3)


def test_clicking_pause_pauses_the_clock_within_two_frames_and_the_tick_stops(page, live):
    open_panel(page, live)
    live.wait(lambda: live.clock.tick > 30, "the clock running")
    page.locator("#play").click()
    live.wait(lambda: live.clock.mode is Mode.PAUSED, "paused")
    live.wait_frames(10)
    frames = list(live.frames)
    written = next(i for i, f in enumerate(frames) if f.paused_key is True)
    applied = next(i for i, f in enumerate(frames) if f.mode is Mode.PAUSED)
    # The key was written during frame `written` (or just before the drive after it); the
    # next drive applies it: at most two frames later the clock is paused.
    assert applied - written <= 2, frames[written - 1:applied + 1]
    ticks = {f.tick for f in frames[applied:]}
    assert len(ticks) == 1 and all(f.steps == 0 for f in frames[applied:])
    assert page.locator("#play").inner_text() == "Play"
    stopped = ticks.pop()
    page.locator("#play").click()
    live.wait(lambda: live.clock.mode is Mode.LIVE and live.clock.tick > stopped + 10,
              "running again")


def test_the_slider_to_2x_sets_the_scale_to_2(page, live):
    open_panel(page, live)
    page.locator("#speed-slider").fill("1")        # log2 scale: 2**1
    live.wait(lambda: live.clock.scale == 2.0, "scale 2.0")
    page.locator("#speed-slider").fill("-4")
    live.wait(lambda: live.clock.scale == 1 / 16, "scale 1/16")
    page.locator("#speed-exact").fill("1.37")
    page.locator("#speed-exact").press("Enter")
    live.wait(lambda: live.clock.scale == 1.37, "scale 1.37 from the exact entry")
    assert live.tree["sim.speed"] == 1.37
    page.wait_for_function("() => document.getElementById('r-scale').textContent === '1.37x'")


def test_step_runs_exactly_one_follower_step_of_six_quanta(page, live):
    open_panel(page, live)
    pause(page, live)
    before = live.clock.tick
    page.locator("#step").click()
    live.wait(lambda: live.clock.tick == before + 6, "six quanta")
    live.wait_frames(10)
    assert live.clock.tick == before + 6 and live.clock.mode is Mode.PAUSED
    page.keyboard.press(".")
    live.wait(lambda: live.clock.tick == before + 12, "six more from the . key")
    live.wait_frames(10)
    assert live.clock.tick == before + 12
    assert page.locator("#r-period").inner_text() == "6 quanta"


def test_step_runs_one_quantum_without_a_follower(browser):
    with LiveRun() as run:
        # The same run with the panel told of no follower: a step is one quantum.
        run.panel.close()
        from cvcclock.panel import Panel
        run.panel = Panel(run.binding).start()
        context = browser.new_context()
        try:
            page = context.new_page()
            page.set_default_timeout(WAIT * 1000)
            open_panel(page, run)
            pause(page, run)
            before = run.clock.tick
            page.locator("#step").click()
            run.wait(lambda: run.clock.tick == before + 1, "one quantum")
            run.wait_frames(10)
            assert run.clock.tick == before + 1
        finally:
            context.close()


def test_lockstep_mode_runs_the_steps_asked_each_frame(page, live):
    open_panel(page, live)
    page.locator("#mode").select_option("lockstep")
    live.wait(lambda: live.clock.mode is Mode.LOCKSTEP, "lockstep")
    page.locator("#lockstep-steps").fill("5")
    page.locator("#lockstep-steps").press("Enter")
    live.wait(lambda: live.clock.lockstep_steps == 5, "lockstep_steps 5")
    live.wait_frames(12)
    tail = live.frames[-10:]
    assert all(f.mode is Mode.LOCKSTEP and f.steps == 5 for f in tail), tail
    assert all(b.tick - a.tick == 5 for a, b in zip(tail, tail[1:], strict=False))
    page.locator("#mode").select_option("live")
    live.wait(lambda: live.clock.mode is Mode.LIVE, "live again")


def test_the_keyboard_pauses_steps_and_changes_speed(page, live):
    open_panel(page, live)
    page.keyboard.press("ArrowUp")
    live.wait(lambda: live.clock.scale == 2.0, "Up doubles")
    page.wait_for_function("() => window.cvcclockPanel.last.controls.speed === 2")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    live.wait(lambda: live.clock.scale == 0.5, "Down twice halves twice")
    page.keyboard.press(" ")
    live.wait(lambda: live.clock.mode is Mode.PAUSED, "Space pauses")
    page.wait_for_function("() => window.cvcclockPanel.last.controls.paused === true")
    page.keyboard.press(" ")
    live.wait(lambda: live.clock.mode is Mode.LIVE, "Space resumes")


def test_the_readouts_match_the_tree_within_one_update(page, live):
    open_panel(page, live)
    for _ in range(5):
        # Live: what the page shows is its latest update, and that update's tick is one the
        # tree held after a recent frame (the update is at most 1/30 s old when it is sent).
        shown, latest = page.evaluate("() => [document.getElementById('r-tick').textContent,"
                                      " window.cvcclockPanel.last.tick]")
        recent = {f.tick for f in live.frames[-60:]}
        assert int(shown) == latest and latest in recent, (shown, latest, sorted(recent))
    pause(page, live)
    page.wait_for_function(f"() => window.cvcclockPanel.last.tick === {live.tree['sim.tick']}")
    assert int(readout(page, "tick")) == live.tree["sim.tick"]
    assert readout(page, "t") == f"{live.tree['sim.time']:.3f}"
    assert readout(page, "mode") == "paused"
    assert int(readout(page, "dropped")) == live.tree["sim.dropped"]
    assert int(readout(page, "rate")) >= 1


def test_scrubbing_to_a_tick_gives_the_straight_runs_world(page, replay):
    open_panel(page, replay)
    page.wait_for_selector("#scrub:not([hidden])")
    pause(page, replay)
    for target in (240, 95, 420):
        page.locator("#scrub-slider").fill(str(target))
        replay.wait(lambda t=target: replay.clock.tick == t, f"the seek to {target}")
        replay.wait_frames(2)
        assert replay.clock.tick == target and replay.clock.mode is Mode.PAUSED
        assert replay.spring.snapshot() == straight_run(target)
    assert replay.replayer.divergences == []
    # Play continues from there.
    page.locator("#play").click()
    replay.wait(lambda: replay.clock.tick > 450, "playing on from the seek")
    assert replay.replayer.divergences == []


def _seek_keeps_the_speed() -> bool:
    """Whether ``Replayer.seek`` keeps the transport settings (issue 25, item 3)."""
    from cvcclock.demo import Spring
    from cvcclock.replay import Replayer
    from support.panels import demo_clock, demo_trace

    clock = demo_clock()
    replayer = Replayer(Spring(), clock, demo_trace())
    clock.advance_ticks(200)
    replayer.pump()
    clock.scale = 3.0
    clock.mode = Mode.REPLAY
    replayer.seek(12)
    return clock.scale == 3.0


@pytest.mark.xfail(not _seek_keeps_the_speed(), strict=True,
                   reason="Replayer.seek restores the keyframe's scale; issue 25 item 3 makes "
                          "it keep the transport settings (another branch)")
def test_scrubbing_keeps_the_speed_chosen_before(page, replay):
    open_panel(page, replay)
    page.wait_for_selector("#scrub:not([hidden])")
    page.locator("#speed-slider").fill("1")
    replay.wait(lambda: replay.clock.scale == 2.0, "2x")
    replay.wait(lambda: replay.clock.tick > 150, "some playing")
    page.locator("#scrub-slider").fill("60")
    replay.wait(lambda: any(f.tick < 100 for f in replay.frames[-3:]), "the seek back")
    replay.wait_frames(30)
    assert replay.clock.scale == 2.0 and replay.tree["sim.speed"] == 2.0
    assert replay.clock.mode is Mode.LIVE
    steps = [f.steps for f in replay.frames[-20:]]
    assert sum(steps) >= 20 * 3, steps   # 2x at 60 fps on a 0.01 s clock: 3.33 a frame


def test_a_page_without_the_token_gets_403_and_changes_nothing(page, live):
    before = dict((k, v) for k, v in live.tree.items() if k in
                  ("sim.speed", "sim.paused", "sim.mode", "sim.lockstep_steps", "sim.step"))
    for url in (live.panel.url.partition("?")[0], live.panel.url[:-3] + "abc"):
        response = page.goto(url)
        assert response.status == 403
        assert "cvcclock transport panel" not in page.content()
        page.keyboard.press(" ")
        page.keyboard.press("ArrowUp")
    live.wait_frames(5)
    assert {k: live.tree[k] for k in before} == before
    assert live.clock.mode is Mode.LIVE and live.clock.scale == 1.0
    assert live.panel.clients == 0 and live.panel.accepted == 0


class _Evil(BaseHTTPRequestHandler):
    """A page on another origin that knows the panel's URL, token and all."""

    target = ""

    def do_GET(self):  # noqa: N802 - http.server's name
        body = f"""<!doctype html><title>evil</title><script>
          const ws = new WebSocket({json.dumps(self.target)});
          ws.onopen = () => {{ document.title = "open";
                              ws.send('{{"op": "paused", "value": true}}'); }};
          ws.onerror = () => {{ document.title = "refused"; }};
        </script>""".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_websocket_from_another_origin_is_refused(page, live):
    _Evil.target = ws_url(live.panel)
    evil = ThreadingHTTPServer(("127.0.0.1", 0), _Evil)
    thread = threading.Thread(target=evil.serve_forever, daemon=True)
    thread.start()
    try:
        page.goto(f"http://127.0.0.1:{evil.server_address[1]}/")
        page.wait_for_function("() => document.title !== 'evil'")
        assert page.title() == "refused"
    finally:
        evil.shutdown()
        evil.server_close()
        thread.join(WAIT)
    live.wait_frames(5)
    assert live.tree["sim.paused"] is False and live.clock.mode is Mode.LIVE
    assert live.panel.accepted == 0


def test_malformed_messages_are_counted_on_the_page_and_change_nothing(page, live):
    import aiohttp

    open_panel(page, live)
    pause(page, live)
    tick, scale = live.clock.tick, live.clock.scale

    async def send_garbage():
        async with aiohttp.ClientSession() as session, \
                session.ws_connect(ws_url(live.panel), origin=origin(live.panel)) as ws:
            for text in ('{"op": "speed", "value": NaN}', '{"op": "step", "count": -1}',
                         '{"op": "paused", "value": false, "evil": 1}'):
                await ws.send_str(text)
            for _ in range(3):
                while json.loads((await ws.receive(timeout=WAIT)).data)["type"] != "refused":
                    pass

    # Playwright's sync API runs an event loop on this thread: the client gets a thread.
    sender = threading.Thread(target=asyncio.run, args=(asyncio.wait_for(send_garbage(),
                                                                         2 * WAIT),))
    sender.start()
    sender.join(3 * WAIT)
    assert not sender.is_alive()
    page.wait_for_function("() => document.getElementById('r-refused').textContent === '3'")
    assert "unknown keys" in page.locator("#r-last-refusal").inner_text()
    live.wait_frames(5)
    assert (live.clock.tick, live.clock.scale, live.clock.mode) == (tick, scale, Mode.PAUSED)
