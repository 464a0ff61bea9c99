"""``--panel``, ``--port`` and ``--host``: what every command that can serve the transport
panel shares (``demo``, ``replay``, and the Scenic command's ``--panel``).

:func:`add_options` adds the options to a command's parser; :func:`serve` runs the command's
simulation with its panel (:mod:`cvcclock.panel`) until Ctrl-C, and turns what can go wrong
before it starts (aiohttp missing, the port taken, a bad port) into exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from cvcclock._extras import install_hint

__all__ = ["add_options", "refuse_without_panel", "serve", "serve_trace"]


def add_options(parser: argparse.ArgumentParser, what: str) -> None:
    """Add ``--panel``, ``--port P`` and ``--host H`` to ``parser``; ``what`` the panel does."""
    group = parser.add_argument_group("transport panel (needs the panel extra: "
                                      f"{install_hint('panel')})")
    group.add_argument("--panel", action="store_true",
                       help=f"{what}, with a transport panel in the browser: prints its URL "
                            "(with its token) and runs until Ctrl-C")
    group.add_argument("--port", type=int, metavar="P",
                       help="the panel's port (default: a free one)")
    group.add_argument("--host", metavar="H",
                       help="the panel's address (default 127.0.0.1); another host makes "
                            "the panel reachable from the network, with a warning")


def serve(command: str, args: argparse.Namespace, parser: argparse.ArgumentParser,
          start: Callable[..., object]) -> int:
    """Run ``start(host=..., port=...)`` (a :mod:`cvcclock.panel` runner) for ``command``.

    Returns
    -------
    int
        0 when stopped (Ctrl-C, or the run's end); 2 if aiohttp is missing or the address
        cannot be bound (the reason on stderr). A bad ``--port`` is a usage error (exit 2).
    """
    port = 0 if args.port is None else args.port
    if not 0 <= port <= 65535:
        parser.error(f"--port must be from 0 to 65535, got {port}")
    try:
        import aiohttp  # noqa: F401 - found before anything starts
    except ImportError:
        print(f"cvcclock {command}: --panel needs aiohttp: {install_hint('panel')}",
              file=sys.stderr)
        return 2
    try:
        start(host=args.host or "127.0.0.1", port=port)
    except OSError as error:
        print(f"cvcclock {command}: --panel: cannot serve on {args.host or '127.0.0.1'} port "
              f"{port}: {error.strerror or error}", file=sys.stderr)
        return 2
    return 0


def refuse_without_panel(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """``--port`` and ``--host`` mean nothing without ``--panel``: a usage error."""
    for option in ("port", "host"):
        if getattr(args, option) is not None and not args.panel:
            parser.error(f"--{option} applies to --panel only")


def serve_trace(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``cvcclock replay TRACE --panel``: the trace replayed live, scrubbed from the page.

    Returns
    -------
    int
        As :func:`serve`; 2 also for a trace that cannot be read or is not the demo's.
    """
    from cvcclock.panel import serve_replay
    from cvcclock.replay import InputTrace, TraceFormatError

    if args.to is not None or args.speed is not None:
        parser.error("--panel replays the whole trace live, scrubbed from the page: --to "
                     "and --speed do not apply")
    try:
        trace = InputTrace.load(args.trace)
    except TraceFormatError as error:
        print(f"cvcclock replay: unreadable trace: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"cvcclock replay: cannot read {args.trace}: {error.strerror}", file=sys.stderr)
        return 2
    try:
        return serve("replay", args, parser,
                     lambda **where: serve_replay(trace, **where))
    except ValueError as error:    # not the demo's trace
        print(f"cvcclock replay: {args.trace}: {error}", file=sys.stderr)
        return 2
