"""``cvcclock demo --panel`` and ``cvcclock replay TRACE --panel`` as a user runs them: in a
subprocess, the URL read from stdout, the page driven over its WebSocket, Ctrl-C to stop."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
import time

import pytest

aiohttp = pytest.importorskip("aiohttp")

STARTUP = 30.0   # a cold interpreter on a loaded machine


def command(*args, **kwargs):
    return subprocess.Popen([sys.executable, "-m", "cvcclock", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


def url_of(process):
    deadline = time.monotonic() + STARTUP
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if line.startswith("cvcclock panel: http://"):
            return line.split(": ", 1)[1].strip()
        if not line and process.poll() is not None:
            break
    raise AssertionError(f"no URL printed: {process.stderr.read()}")


def stop(process):
    """Ctrl-C; the status and the rest of the output."""
    process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=STARTUP)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise
    return process.returncode, out, err


async def talk(url, messages, until):
    """Send ``messages``; return the first message ``until`` accepts (and the hello)."""
    host = url.split("/")[2]
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=20)) as session, \
            session.ws_connect(url.replace("http://", "ws://").replace("/?", "/ws?"),
                               origin=f"http://{host}") as ws:
        hello = json.loads((await ws.receive(timeout=10)).data)
        for message in messages:
            await ws.send_str(json.dumps(message))
        while True:
            message = json.loads((await ws.receive(timeout=10)).data)
            if until(message):
                return hello, message


def test_demo_panel_serves_the_live_demo_and_stops_on_ctrl_c():
    process = command("demo", "--panel")
    try:
        url = url_of(process)
        assert url.startswith("http://127.0.0.1:") and "token=" in url
        hello, update = asyncio.run(talk(
            url, [{"op": "speed", "value": 0.5}, {"op": "paused", "value": True}],
            lambda m: m["type"] == "telemetry" and m["mode"] == "paused" and m["scale"] == 0.5))
        assert hello["period"] == 6 and hello["recording"] is None   # the spring's step
    finally:
        status, out, err = stop(process)
    assert status == 0, err
    assert "cvcclock panel: stopped" in out


def test_replay_panel_scrubs_a_recorded_trace(tmp_path):
    trace = tmp_path / "run.trace"
    subprocess.run([sys.executable, "-m", "cvcclock", "demo", "--record", str(trace)],
                   check=True, capture_output=True, timeout=120)
    process = command("replay", str(trace), "--panel")
    try:
        url = url_of(process)
        hello, update = asyncio.run(talk(
            url, [{"op": "paused", "value": True}, {"op": "seek", "tick": 300}],
            lambda m: m["type"] == "telemetry" and m["tick"] == 300 and not m["seeking"]))
        assert hello["recording"]["start"] == 0 and hello["recording"]["end"] == 600
        assert len(hello["recording"]["inputs"]) == 8
        assert update["mode"] == "paused" and 0 in update["keyframes"]
    finally:
        status, out, err = stop(process)
    assert status == 0, err


@pytest.mark.parametrize("args, message", [
    (["demo", "--port", "8000"], "--port applies to --panel only"),
    (["demo", "--host", "0.0.0.0"], "--host applies to --panel only"),
    (["demo", "--panel", "--port", "70000"], "--port must be from 0 to 65535"),
    (["demo", "--panel", "--record", "x.trace"], "--record and --plot do not apply"),
    (["replay", "missing.trace", "--panel", "--to", "5"], "--to and --speed do not apply"),
    (["replay", "missing.trace", "--panel"], "cannot read missing.trace"),
])
def test_wrong_panel_arguments_exit_2_naming_them(args, message, tmp_path):
    done = subprocess.run([sys.executable, "-m", "cvcclock", *args], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr


def test_a_taken_port_exits_2():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        done = subprocess.run([sys.executable, "-m", "cvcclock", "demo", "--panel", "--port",
                               str(taken.getsockname()[1])], capture_output=True, text=True,
                              timeout=120)
    assert done.returncode == 2 and "cannot serve on 127.0.0.1 port" in done.stderr


def test_without_aiohttp_the_command_says_how_to_install_it():
    code = ("import sys; sys.modules['aiohttp'] = None; from cvcclock.cli import main; "
            "sys.exit(main(['demo', '--panel']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "cvcclock[panel]" in done.stderr
