"""The Panel: one binding's transport page, served on a background thread.

The page is a view of the binding's state tree. A control the page sends is checked
(``_protocol``), then written into the tree's control keys under ``Panel.lock``; the host's
next ``drive()`` applies it on the driver's thread. A seek is queued, and applied on the
driver's thread inside the replayer's next ``pump()``. The server thread reads the tree and
the clock's counters for telemetry and never calls ``advance``, ``seek`` or a timer.
"""

from __future__ import annotations

import ipaddress
import math
import secrets
import threading
import warnings
from time import monotonic
from types import TracebackType
from typing import Any, Protocol

from cvcclock import Mode, WorldClockBinding, WorldClockKeys
from cvcclock._extras import install_hint
from cvcclock.checks import check_count, check_str, check_timeout
from cvcclock.panel._protocol import (
    MAX_LOCKSTEP_STEPS,
    MAX_MESSAGE_BYTES,
    MAX_MESSAGES_PER_SECOND,
    MAX_STEPS,
    MODES,
    SPEED_MAX,
    SPEED_MIN,
    Command,
    RateLimit,
    Refusal,
    parse,
)
from cvcclock.replay import Replayer

__all__ = ["LOOPBACK", "Panel", "StepFollower"]

LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})
"""The loopback names: served without a warning (so is any address in 127.0.0.0/8)."""

# How often the driver's thread republishes the recording's keyframes for the scrub bar
# (inside pump, so never more than once a frame): the list changes only every N world steps.
_KEYFRAME_REFRESH = 0.25

_MAX_MARKS = 5000   # inputs marked on the scrub bar at most; a longer trace is thinned


class StepFollower(Protocol):
    """What ``Panel(follower=...)`` takes: anything with ``period``, its step in quanta
    (``ClockFollower``, ``InputFollower``)."""

    @property
    def period(self) -> int:
        """The follower's step in quanta."""


def _jsonable(value: object) -> object:
    """A tree value as JSON the page can read: NaN and infinities (not JSON) become None, an
    odd object its str."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    try:
        number = float(value)  # type: ignore[arg-type]  # numpy scalars
    except (TypeError, ValueError):
        return str(value)[:200]
    return number if math.isfinite(number) else None


class Panel:
    """A transport page in the browser for one binding: pause, step, speed, mode, scrub.

    The page (``url``) shows the clock's telemetry, pushed over a WebSocket at 30 updates a
    second, and writes the binding's control keys (speed, paused, mode, lockstep_steps,
    step) when its controls are used; the host's next ``binding.drive()`` applies them, as
    it applies any other writer's. Nothing changes in the host's loop.

    Parameters
    ----------
    binding : WorldClockBinding
        The binding whose tree the page views and whose control keys it writes. A control
        whose lane is off in ``binding.keys`` is refused.
    host : str
        The address to listen on: loopback (``"127.0.0.1"``) by default. Another host is
        served only when passed explicitly, and ``start`` warns (``RuntimeWarning`` and
        stderr) that the page is then reachable from the network, the token being its one
        guard.
    port : int
        The port; 0 (the default) picks a free one.
    replayer : Replayer or None
        A replay to scrub: the page shows a bar over its trace with the keyframes kept and
        the inputs marked, and dragging it seeks. The seek is applied on the driver's thread
        inside the replayer's next ``pump()``: while started, the panel wraps this
        replayer's ``pump`` (an attribute of the instance, removed by ``close``). The clock
        is put in replay mode for the seek and back in its mode after it.
    follower : object with ``period``, or None
        Makes the step button run one step of this follower (``period`` quanta) instead of
        one quantum. With a ``replayer`` and no ``follower``, the replayer's world's.

    Attributes
    ----------
    binding : WorldClockBinding
        As given.
    lock : threading.Lock
        Held while the panel writes the tree or queues a seek. A host whose tree is not
        thread-safe (a plain ``dict`` is) holds it around its own ``drive()``.
    refused : int
        Messages refused (malformed, out of range, too large, too many): never raised, the
        clock unchanged. Shown on the page.
    last_refusal : str or None
        Why the last one was refused.
    accepted : int
        Messages applied.

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If ``host`` is empty or ``port`` is out of range.

    Notes
    -----
    Security: every request needs the panel's token (in ``url``; 256 random bits, compared
    in constant time) or gets 403; the ``Host`` header must name the address served (no DNS
    rebinding) and the WebSocket's and POSTs' ``Origin`` must be the panel's own. Every
    message is checked against its schema (``cvcclock.panel`` lists the limits) before it
    touches anything.
    """

    def __init__(self, binding: WorldClockBinding, *, host: str = "127.0.0.1", port: int = 0,
                 replayer: Replayer | None = None, follower: StepFollower | None = None
                 ) -> None:
        if not isinstance(binding, WorldClockBinding):
            raise TypeError(f"binding must be a cvcclock.WorldClockBinding, got {binding!r}")
        host = check_str(host, "host")
        if not host:
            raise ValueError("host must name an address, got ''")
        port = check_count(port, "port", maximum=65535)
        if replayer is not None and not isinstance(replayer, Replayer):
            raise TypeError(f"replayer must be a cvcclock.replay.Replayer, got {replayer!r}")
        if follower is None and replayer is not None:
            follower = replayer.follower
        period = 1 if follower is None else getattr(follower, "period", None)
        if isinstance(period, bool) or not isinstance(period, int) or period < 1:
            raise TypeError(f"follower must have a period (its step in quanta, an integer of "
                            f"at least 1), got {follower!r}")
        self.binding = binding
        self.lock = threading.Lock()
        self.refused = 0
        self.last_refusal: str | None = None
        self.accepted = 0
        self._host = host
        self._port = port
        self._replayer = replayer
        self._period = period
        self._token = secrets.token_urlsafe(32)
        self._seek: int | None = None
        self._keyframes: tuple[int, ...] = ()
        self._keyframes_at = -math.inf
        self._done = False
        self._server: Any = None
        if replayer is not None:
            self._publish_keyframes(replayer)

    # -- the public face -------------------------------------------------------------------

    @property
    def host(self) -> str:
        """The address served."""
        return self._host

    @property
    def port(self) -> int:
        """The port served: the one bound once started (``port=0`` picks it), else as given."""
        return self._port

    @property
    def url(self) -> str:
        """The page's address, with its token: open it in a browser. Treat it as a secret."""
        name = f"[{self._host}]" if ":" in self._host else self._host
        return f"http://{name}:{self._port}/?token={self._token}"

    @property
    def started(self) -> bool:
        """Whether the page is being served."""
        return self._server is not None

    @property
    def clients(self) -> int:
        """Pages connected now."""
        return 0 if self._server is None else self._server.clients

    @property
    def updates_sent(self) -> int:
        """Telemetry updates sent, over every page."""
        return 0 if self._server is None else self._server.updates_sent

    def start(self, timeout: float = 10.0) -> Panel:
        """Serve the page on a background thread; return the panel once it listens.

        Parameters
        ----------
        timeout : float
            Seconds to wait for the server to listen.

        Returns
        -------
        Panel
            This panel, for ``with Panel(...).start() as panel`` and chaining.

        Raises
        ------
        RuntimeError
            If already started, or the server did not come up within ``timeout``.
        OSError
            If the address cannot be bound (the port is taken); nothing is left running.
        ImportError
            If aiohttp (the ``panel`` extra) is missing.
        """
        timeout = check_timeout(timeout, "timeout", forever=False)
        if self._server is not None:
            raise RuntimeError("the panel is already started")
        try:   # aiohttp: only a started panel needs it
            from cvcclock.panel._server import Server
        except ImportError as error:
            raise ImportError(f"the panel's server needs aiohttp: {install_hint('panel')}"
                              ) from error

        if not _is_loopback(self._host):
            _warn_exposed(self._host)
        server = Server(self, self._host, self._port)
        self._port = server.start(timeout)
        self._server = server
        if self._replayer is not None:
            self._wrap_pump(self._replayer)
        return self

    def close(self, timeout: float = 5.0) -> None:
        """Stop serving: close every page's connection and the server thread, within
        ``timeout`` seconds. A seek not yet applied is dropped. Closing twice is harmless.

        Raises
        ------
        RuntimeError
            If the server thread did not stop within ``timeout`` (it is a daemon thread, so
            it does not keep the interpreter alive).
        """
        timeout = check_timeout(timeout, "timeout", forever=False)
        server, self._server = self._server, None
        if self._replayer is not None:
            self._replayer.__dict__.pop("pump", None)
        with self.lock:
            self._seek = None
        if server is not None:
            server.close(timeout)

    def __enter__(self) -> Panel:
        if self._server is None:
            self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        where = f"serving http://{self._host}:{self._port}/" if self.started else "not started"
        return (f"<Panel {where}, {self.clients} pages, {self.accepted} accepted, "
                f"{self.refused} refused>")

    # -- messages (the server thread) -------------------------------------------------------

    def _receive(self, text: str | bytes, rate: RateLimit | None) -> str | None:
        """Check and apply one message; None when applied, else why it was refused (counted).
        Never raises: a message cannot break the server or a frame."""
        try:
            if rate is not None and not rate.allow():
                raise Refusal(f"more than {MAX_MESSAGES_PER_SECOND} messages in one second")
            self._apply(parse(text))
        except Refusal as refusal:
            return self._refuse(str(refusal))
        except Exception as error:  # noqa: BLE001 - the host's tree refused the write
            return self._refuse(f"the tree refused the write: {repr(error)[:200]}")
        self.accepted += 1
        return None

    def _refuse(self, reason: str) -> str:
        with self.lock:
            self.refused += 1
            self.last_refusal = reason
        return reason

    def _apply(self, command: Command) -> None:
        """Write the command's control key, or queue its seek, under the lock."""
        if command.op == "seek":
            self._queue_seek(command.value)
            return
        keys = self.binding.keys
        key = getattr(keys, command.op)
        if not key:
            raise Refusal(f"the binding has no {command.op} key (its lane is off)")
        tree = self.binding.tree
        with self.lock:
            if command.op == "step":
                tree[key] = self._step_counter(tree.get(key, 0)) + command.value * self._period
            else:
                tree[key] = command.value

    def _step_counter(self, value: object) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise Refusal(f"the tree's step key holds {repr(value)[:60]}, not a counter")
        return value

    def _queue_seek(self, tick: int) -> None:
        replayer = self._replayer
        if replayer is None:
            raise Refusal("there is no recording to seek in (the panel has no replayer)")
        start, end = replayer.trace.header.start_tick, replayer.trace.end_tick
        if not start <= tick <= end:
            raise Refusal(f"tick must be from {start} to {end}, the recording, got {tick!r}")
        with self.lock:
            self._seek = tick   # the latest wins: a drag asks for many, the last one counts

    # -- what the page is sent (the server thread) ------------------------------------------

    def _hello(self) -> dict[str, Any]:
        """What a page needs once: the limits, the step, the recording's extent and inputs."""
        clock = self.binding.clock
        hello: dict[str, Any] = {
            "type": "hello", "fixed_dt": clock.fixed_dt, "period": self._period,
            "limits": {"speed": [SPEED_MIN, SPEED_MAX], "lockstep_steps": MAX_LOCKSTEP_STEPS,
                       "steps": MAX_STEPS, "modes": list(MODES),
                       "bytes": MAX_MESSAGE_BYTES, "rate": MAX_MESSAGES_PER_SECOND},
            "lanes": [name for name in WorldClockKeys.CONTROLS
                      if getattr(self.binding.keys, name)],
            "recording": None,
        }
        if self._replayer is not None:
            trace = self._replayer.trace
            inputs = trace.inputs
            stride = max(1, math.ceil(len(inputs) / _MAX_MARKS))
            hello["recording"] = {
                "start": trace.header.start_tick, "end": trace.end_tick,
                "inputs": [[entry.tick, entry.name] for entry in inputs[::stride]],
            }
        return hello

    def _telemetry(self) -> dict[str, Any]:
        """One update: the tree's telemetry and controls, the clock's counters."""
        binding = self.binding
        clock = binding.clock
        keys = binding.keys
        tree = binding.tree

        def lane(name: str, fallback: Any) -> object:
            key = getattr(keys, name)
            return _jsonable(tree.get(key, fallback) if key else fallback)

        update: dict[str, Any] = {
            "type": "telemetry", "wall": monotonic(),
            "tick": lane("tick", clock.tick), "t": lane("time", clock.t),
            "realized": lane("realized_speed", clock.realized_scale),
            "dropped": lane("dropped", clock.total_dropped),
            "owed": clock.owed, "mode": clock.mode.value, "scale": clock.scale,
            "frame": clock.frame, "lockstep_steps": clock.lockstep_steps,
            "controls": {name: lane(name, None) for name in WorldClockKeys.CONTROLS},
            "refused": self.refused, "last_refusal": self.last_refusal,
            "accepted": self.accepted, "ignored": binding.ignored,
        }
        if self._replayer is not None:
            update["keyframes"] = list(self._keyframes)
            update["done"] = self._done
            update["seeking"] = self._seek is not None
        return update

    # -- the driver's thread: seeks inside pump ---------------------------------------------

    def _wrap_pump(self, replayer: Replayer) -> None:
        pump = type(replayer).pump

        def pump_applying_seeks() -> int:
            ran = self._apply_seek(replayer)
            ran += pump(replayer)
            now = monotonic()
            if now - self._keyframes_at >= _KEYFRAME_REFRESH:
                self._keyframes_at = now
                self._publish_keyframes(replayer)
            return ran

        pump_applying_seeks.__doc__ = pump.__doc__
        replayer.pump = pump_applying_seeks  # type: ignore[method-assign]

    def _apply_seek(self, replayer: Replayer) -> int:
        """The queued seek, on the driver's thread; the world steps it ran."""
        with self.lock:
            target, self._seek = self._seek, None
        if target is None:
            return 0
        clock = self.binding.clock
        mode = clock.mode
        clock.mode = Mode.REPLAY    # seek needs replay mode; the user's mode comes back after
        try:
            ran = replayer.seek(target)
        except ValueError as error:   # e.g. the clock's timers differ from a keyframe's
            self._refuse(f"seek to tick {target}: {error}")
            return 0
        finally:
            if clock.mode is not mode:
                clock.mode = mode
        self._publish_keyframes(replayer)
        return ran

    def _publish_keyframes(self, replayer: Replayer) -> None:
        # A fresh tuple each time: the server thread reads whichever one is current.
        self._keyframes = tuple(frame.tick for frame in replayer.follower.keyframes)
        self._done = replayer.done


def _is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only: a loopback name or address (127.0.0.0/8, ::1)."""
    if host in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _warn_exposed(host: str) -> None:
    """The page is reachable from the network: say so, on stderr and as a warning."""
    import sys

    message = (f"cvcclock.panel: serving on {host!r}, not loopback: any machine that can reach "
               f"this address and learns the URL's token can drive the clock")
    print(message, file=sys.stderr)
    warnings.warn(message, RuntimeWarning, stacklevel=3)
