"""The panel's server: aiohttp on its own asyncio loop, on a background thread.

aiohttp serves HTTP and WebSockets from one application, so the page, its assets, the
WebSocket and the POST endpoint share one set of checks (a middleware): the token, the
``Host`` header, the ``Origin``. The loop's thread reads the tree and the clock for telemetry
and writes control keys through the Panel; it never advances, seeks or fires a timer.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import json
import socket
import threading
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import TYPE_CHECKING

# Without the panel extra this module is never imported (Panel.start says how to install it);
# the ignore lets mypy check the package where aiohttp is absent, as in the README's suite.
from aiohttp import WSCloseCode, WSMsgType, web  # type: ignore[import-not-found, unused-ignore]

from cvcclock.panel._protocol import MAX_MESSAGE_BYTES, RateLimit

if TYPE_CHECKING:
    from cvcclock.panel._panel import Panel

UPDATES_PER_SECOND = 30
"""Telemetry updates pushed to each page per second."""

# The page's files, by the name a request may ask for: nothing else is ever read, so no
# request path reaches the file system (no traversal to guard against).
_ASSETS = {"panel.js": "text/javascript", "panel.css": "text/css"}

# A WebSocket frame this large is dropped by aiohttp with the connection (close code 1009);
# anything up to it is read, and refused by the schema past MAX_MESSAGE_BYTES, keeping the page.
_FRAME_LIMIT = 16 * MAX_MESSAGE_BYTES

_SEND_TIMEOUT = 1.0   # a page that does not take an update within this is dropped


def _read_asset(name: str) -> str:
    return resources.files("cvcclock.panel").joinpath("static", name).read_text("utf-8")


def _host_names(host: str, port: int) -> frozenset[str] | None:
    """The ``Host`` headers a request may carry; None for a wildcard bind (see _host_ok)."""
    if host in ("0.0.0.0", "::", ""):
        return None
    names = {host}
    if host in ("127.0.0.1", "::1", "localhost"):
        names |= {"127.0.0.1", "localhost", "[::1]"}
    return frozenset(f"[{n}]:{port}" if ":" in n and not n.startswith("[") else f"{n}:{port}"
                     for n in names)


def _host_ok(header: str | None, allowed: frozenset[str] | None, port: int) -> bool:
    """Whether a request's ``Host`` names this server (a DNS-rebinding page's names its own).

    A wildcard bind cannot list its names; it takes an IP literal (which no DNS answer can
    rebind), ``localhost``, or this machine's own names, on its port.
    """
    if not header:
        return False
    if allowed is not None:
        return header in allowed
    name, _, given_port = header.rpartition(":")
    if given_port != str(port):
        return False
    name = name.strip("[]")
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return name in {"localhost", socket.gethostname(), socket.getfqdn()}


class Server:
    """The running server: started and closed by the Panel from the host's thread."""

    def __init__(self, panel: Panel, host: str, port: int) -> None:
        self._panel = panel
        self._host = host
        self._port = port
        self._allowed: frozenset[str] | None = None
        self._token = panel._token.encode()
        self._sockets: set[web.WebSocketResponse] = set()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self.updates_sent = 0
        self._post_rate = RateLimit()   # POSTs have no page to count by: one limit for all
        self._index = _read_asset("index.html").replace("__TOKEN__", panel._token)
        self._assets = {name: _read_asset(name) for name in _ASSETS}

    @property
    def clients(self) -> int:
        return len(self._sockets)

    # -- the host's thread ------------------------------------------------------------------

    def start(self, timeout: float) -> int:
        """Bind (here, so a taken port raises here), then serve on a thread; the port."""
        family = socket.AF_INET6 if ":" in self._host else socket.AF_INET
        sock = socket.create_server((self._host, self._port), family=family)
        port: int = sock.getsockname()[1]
        self._allowed = _host_names(self._host, port)
        self._port = port
        self._thread = threading.Thread(target=self._serve, args=(sock,),
                                        name=f"cvcclock-panel:{port}", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout) or self._failure is not None:
            self.close(timeout)
            sock.close()
            why = (f"failed: {self._failure!r}" if self._failure is not None
                   else f"did not start within {timeout} s")
            raise RuntimeError(f"the panel's server {why}") from self._failure
        return port

    def close(self, timeout: float) -> None:
        loop, stop, thread = self._loop, self._stop, self._thread
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):   # the loop already closed
                loop.call_soon_threadsafe(stop.set)
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                raise RuntimeError(f"the panel's server thread did not stop within {timeout} s")

    # -- the server's thread ----------------------------------------------------------------

    def _serve(self, sock: socket.socket) -> None:
        try:
            asyncio.run(self._main(sock))
        except BaseException as error:  # noqa: BLE001 - reported to start(), never lost
            self._failure = error
            self._ready.set()

    async def _main(self, sock: socket.socket) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        app = web.Application(middlewares=[self._middleware()],
                              client_max_size=MAX_MESSAGE_BYTES)
        app.router.add_get("/", self._page)
        app.router.add_get("/static/{name}", self._asset)
        app.router.add_get("/ws", self._websocket)
        app.router.add_post("/control", self._control)
        runner = web.AppRunner(app, access_log=None, handle_signals=False,
                               shutdown_timeout=1.0)
        await runner.setup()
        try:
            await web.SockSite(runner, sock).start()
            pusher = asyncio.create_task(self._push())
            self._ready.set()
            await self._stop.wait()
            pusher.cancel()
            for ws in list(self._sockets):
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(code=WSCloseCode.GOING_AWAY,
                                                    message=b"panel closed"), _SEND_TIMEOUT)
        finally:
            await runner.cleanup()
            sock.close()

    # -- every request's checks -------------------------------------------------------------

    def _middleware(self) -> Callable[..., Awaitable[web.StreamResponse]]:
        """The checks as aiohttp's middleware (a plain function: it marks it as one)."""

        async def guard(request: web.Request,
                        handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                        ) -> web.StreamResponse:
            return await self._guard(request, handler)

        return web.middleware(guard)  # type: ignore[no-any-return, unused-ignore]

    async def _guard(self, request: web.Request,
                     handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                     ) -> web.StreamResponse:
        """403 unless the Host is ours, the token is right and, but for a plain GET, the
        Origin is ours; security headers on every answer."""
        reason = self._refusal(request)
        if reason is not None:
            response: web.StreamResponse = web.Response(status=403, text=reason + "\n")
        else:
            try:
                response = await handler(request)
            except web.HTTPException as error:   # 404, 405: answered, with the headers below
                response = web.Response(status=error.status, text=error.text)
        response.headers.update(_SECURITY_HEADERS)
        # 'self' covers ws: in current browsers; the explicit origin covers the rest.
        response.headers["Content-Security-Policy"] = _CSP.format(host=self._csp_host(request))
        return response

    def _csp_host(self, request: web.Request) -> str:
        host = request.headers.get("Host", "")
        return host if _host_ok(host, self._allowed, self._port) else "'none'"

    def _refusal(self, request: web.Request) -> str | None:
        host = request.headers.get("Host")
        if not _host_ok(host, self._allowed, self._port):
            return "forbidden: the Host header does not name this panel"
        token = request.query.get("token", "")
        if not hmac.compare_digest(token.encode(), self._token):
            return "forbidden: the panel's token is missing or wrong"
        if request.method != "GET" or request.path == "/ws":
            if request.headers.get("Origin") != f"http://{host}":
                return "forbidden: the Origin is not this panel's"
        return None

    # -- the routes ---------------------------------------------------------------------------

    async def _page(self, request: web.Request) -> web.Response:
        return web.Response(text=self._index, content_type="text/html", charset="utf-8")

    async def _asset(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in _ASSETS:
            raise web.HTTPNotFound()
        return web.Response(text=self._assets[name], content_type=_ASSETS[name],
                            charset="utf-8")

    async def _control(self, request: web.Request) -> web.Response:
        """One message by POST (scripts, curl): 200 applied, 400 refused, with the reason."""
        panel = self._panel
        try:
            body = await request.read()
        except web.HTTPRequestEntityTooLarge:
            too_large = panel._refuse(f"the message is over the {MAX_MESSAGE_BYTES}-byte "
                                      "limit")
            return web.json_response({"refused": too_large}, status=413)
        reason = panel._receive(body, self._post_rate)
        if reason is None:
            return web.json_response({"ok": True})
        return web.json_response({"refused": reason}, status=400)

    async def _websocket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=_FRAME_LIMIT, heartbeat=10.0)
        await ws.prepare(request)
        panel = self._panel
        rate = RateLimit()
        self._sockets.add(ws)
        try:
            await ws.send_str(_dumps(panel._hello()))
            await ws.send_str(_dumps(panel._telemetry()))
            async for message in ws:
                if message.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                    reason = panel._receive(message.data, rate)
                    if reason is not None:
                        await ws.send_str(_dumps({"type": "refused", "reason": reason,
                                                  "refused": panel.refused}))
                elif message.type == WSMsgType.ERROR:   # a frame over _FRAME_LIMIT, say
                    panel._refuse(f"the connection failed: {ws.exception()!r}")
        finally:
            self._sockets.discard(ws)
        return ws

    async def _push(self) -> None:
        """Every 1/UPDATES_PER_SECOND s, one telemetry update to every page."""
        period = 1.0 / UPDATES_PER_SECOND
        loop = asyncio.get_running_loop()
        due = loop.time()
        while True:
            due += period
            await asyncio.sleep(max(0.0, due - loop.time()))
            if loop.time() - due > period:   # late (a suspended machine): don't burst
                due = loop.time()
            if not self._sockets:
                continue
            try:
                text = _dumps(self._panel._telemetry())
            except Exception:  # noqa: BLE001, S112 - a tree that raises on a read: try again
                continue
            for ws in list(self._sockets):
                try:
                    await asyncio.wait_for(ws.send_str(text), _SEND_TIMEOUT)
                    self.updates_sent += 1
                except Exception:  # noqa: BLE001 - a page that went away, or stalled
                    self._sockets.discard(ws)
                    with contextlib.suppress(Exception):
                        await ws.close()


def _dumps(value: object) -> str:
    return json.dumps(value, allow_nan=False, separators=(",", ":"))


_SECURITY_HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",     # the URL holds the token
    "Cache-Control": "no-store",
    "Cross-Origin-Resource-Policy": "same-origin",
}

# Everything from this origin, nothing inline, never framed (no clickjacking).
_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self' "
        "ws://{host}; img-src 'self' data:; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'")
