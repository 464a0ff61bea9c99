"""The transport panel: pause, step, speed and scrub a running simulation from a browser.

:class:`Panel` serves a page for one ``WorldClockBinding`` on a background thread (aiohttp,
the ``panel`` extra). The page is a view of the binding's state tree: its controls write the
control keys (speed, paused, mode, lockstep_steps, step) and the host's next ``drive()``
applies them; telemetry is pushed 30 times a second over a WebSocket. Given a ``Replayer``,
the page scrubs the recording, each seek applied on the driver's thread inside the next
``replayer.pump()``. :func:`serve` runs a binding in real time with its panel (the commands'
``--panel``).

Loopback only unless another host is passed; every request needs the URL's token; ``Host``
and ``Origin`` are checked; every message is checked against its schema, and one that fails
is refused and counted (``Panel.refused``), never raised, the clock unchanged.
"""

from cvcclock._public import publish
from cvcclock.panel._panel import LOOPBACK, Panel, StepFollower
from cvcclock.panel._protocol import (
    MAX_LOCKSTEP_STEPS,
    MAX_MESSAGE_BYTES,
    MAX_MESSAGES_PER_SECOND,
    MAX_STEPS,
    MODES,
    SPEED_MAX,
    SPEED_MIN,
)
from cvcclock.panel._run import serve

__all__ = ["LOOPBACK", "MAX_LOCKSTEP_STEPS", "MAX_MESSAGES_PER_SECOND", "MAX_MESSAGE_BYTES",
           "MAX_STEPS", "MODES", "SPEED_MAX", "SPEED_MIN", "Panel", "StepFollower", "serve"]

publish(__name__, globals(), __all__)
