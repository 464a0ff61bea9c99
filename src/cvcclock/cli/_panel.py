"""``--panel``, ``--port`` and ``--host``: what every command that can serve the transport
panel shares (``demo``, ``replay``, and the Scenic command's ``--panel``).

:func:`add_options` adds the options to a command's parser; :func:`serve` runs the command's
simulation with its panel (``cvcclock.panel.serve``) until Ctrl-C, and turns what can go
wrong before it starts (aiohttp missing, the port taken, a bad port) into exit status 2.
:func:`demo_live` and :func:`demo_replay` are the demo's worlds for ``demo --panel`` and
``replay TRACE --panel``.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable
from typing import Any

from cvcclock._extras import install_hint

__all__ = ["add_options", "demo_live", "demo_replay", "refuse_replay_options",
           "refuse_without_panel", "serve", "serve_trace"]

_KICK_EVERY = 300   # the live demo kicks its spring every 3 world seconds, so it keeps moving


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
    if importlib.util.find_spec("aiohttp") is None:   # found before anything starts
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


def refuse_replay_options(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """``replay --panel`` replays the whole trace live: ``--to`` and ``--speed`` are usage
    errors, found before the trace is read."""
    if args.to is not None or args.speed is not None:
        parser.error("--panel replays the whole trace live, scrubbed from the page: --to "
                     "and --speed do not apply")


def serve_trace(args: argparse.Namespace, parser: argparse.ArgumentParser, trace: Any) -> int:
    """``cvcclock replay TRACE --panel``: ``trace`` (read and checked by the replay command)
    replayed live, scrubbed from the page.

    Returns
    -------
    int
        As :func:`serve`; 2 also for a trace that is not the demo's.
    """
    refuse_replay_options(args, parser)
    try:
        return serve("replay", args, parser,
                     lambda **where: demo_replay(trace, **where))
    except ValueError as error:    # not the demo's trace
        print(f"cvcclock replay: {args.trace}: {error}", file=sys.stderr)
        return 2


def _demo_clock() -> Any:
    from cvcclock import ClockConfig, WorldClock
    from cvcclock.demo import FIXED_DT

    return WorldClock(ClockConfig(fixed_dt=FIXED_DT, cap_scales_with_rate=True,
                                  lockstep_steps=3))


def demo_live(*, host: str, port: int) -> object:
    """``cvcclock demo --panel``: the demo's spring and ball, live, with a panel.

    The spring steps every 0.06 s (the step button runs one of its steps, 6 quanta), the ball
    every quantum; the spring is kicked every 3 world seconds so it keeps moving.
    """
    from cvcclock import ClockFollower, StepResult, WorldClockBinding
    from cvcclock.demo import FIXED_DT, SPRING_DT, Ball, Spring
    from cvcclock.panel import serve as serve_panel

    clock = _demo_clock()
    binding = WorldClockBinding({}, clock)
    spring, ball = Spring(), Ball()
    spring_steps = ClockFollower.for_step(clock, SPRING_DT)
    ball_steps = ClockFollower.for_step(clock, FIXED_DT)

    def on_frame(frame: int, result: StepResult) -> None:
        for due in spring_steps.take_due(clock):
            if due % _KICK_EVERY == 0:
                spring.apply("kick", 1.0)
            spring.step(SPRING_DT)
        for _ in range(ball_steps.take(clock)):
            ball.step(FIXED_DT)

    return serve_panel(binding, on_frame=on_frame, follower=spring_steps, host=host, port=port)


def demo_replay(trace: Any, *, host: str, port: int) -> object:
    """``cvcclock replay TRACE --panel``: a demo trace replayed live, scrubbed from the page.

    It pauses at the recording's end; the page's scrub bar seeks anywhere in it.

    Raises
    ------
    ValueError
        If the trace is not one of the demo's (``cvcclock demo --record``).
    """
    from cvcclock import StepResult, WorldClockBinding
    from cvcclock.demo import WORLD, Spring
    from cvcclock.panel import serve as serve_panel
    from cvcclock.replay import Replayer

    if trace.header.metadata.get("world") != WORLD:
        raise ValueError(f"the trace's world is {trace.header.metadata.get('world')!r}; the "
                         f"panel replays the demo's ({WORLD!r}, from 'cvcclock demo --record')")
    clock = _demo_clock()
    binding = WorldClockBinding({}, clock)
    replayer = Replayer(Spring(), clock, trace, on_divergence="collect")
    paused_key = binding.keys.paused
    ended = [False]

    def on_frame(frame: int, result: StepResult) -> None:
        replayer.pump()   # the panel's seeks are applied in here, on this thread
        done = replayer.done
        if done and not ended[0] and paused_key:   # the end: pause, as a player does
            binding.tree[paused_key] = True
        ended[0] = done

    return serve_panel(binding, on_frame=on_frame, replayer=replayer, host=host, port=port)
