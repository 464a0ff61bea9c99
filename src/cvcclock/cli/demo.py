"""``cvcclock demo [--record PATH] [--plot PATH]``: the determinism contract under every pacing.

Exit status: 0 the contract held; 1 it is broken; 2 a file could not be written, or --plot
names a format matplotlib cannot write, or matplotlib is missing (both found before the demo
runs); 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cvcclock._extras import install_hint
from cvcclock.cli import _panel
from cvcclock.cli._output import reader_may_leave

__all__ = ["add_parser", "run"]

DESCRIPTION = """\
Drive a spring (a step every 0.06 s) and a ball (a step every quantum) on a
0.01 s clock for 600 ticks: live at 1x, 2x and 0.5x, live with uneven frames,
in lockstep, in batches and one step at a time. Print a table of frames, ticks,
dropped quanta, realized speed and a hash of each trajectory, then whether
every pacing mode gave identical trajectories. Nothing sleeps: wall time is
passed explicitly, so the demo takes a fraction of a second."""

EPILOG = f"""\
--record writes the trace of a scripted user's live run (speed changes and
kicks to the spring at irregular ticks) with a state hash after every step,
for 'cvcclock replay'. --plot draws pacing against the spring's trajectory,
in the format PATH's extension names (with none, a PNG at PATH.png); it needs
matplotlib: {install_hint('plot')}.
exit status: 0 the contract held; 1 it is broken; 2 a file not written or an
unusable --plot; 130 interrupted."""


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``demo`` command to an ``add_subparsers()`` object; return its parser."""
    demo: argparse.ArgumentParser = commands.add_parser(
        "demo", help="check the determinism contract under every pacing mode",
        description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    demo.add_argument("--record", metavar="PATH", help="also record a scripted run to PATH")
    demo.add_argument("--plot", metavar="PATH", help="also draw the pacing picture to PATH")
    _panel.add_options(demo, "instead, run the spring and the ball live")
    return demo


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the demo; its status is the verdict, even when the reader left early."""
    from cvcclock.demo import contract_violations, plot_target, print_report, run_all

    _panel.refuse_without_panel(args, parser)
    if args.panel:
        if args.record is not None or args.plot is not None:
            parser.error("--panel runs the demo live: --record and --plot do not apply")
        return _panel.serve("demo", args, parser, _panel.demo_live)
    if args.plot is not None:
        try:   # a usage error: found before the demo runs or anything is drawn
            plot_target(args.plot)
        except (ValueError, ImportError) as error:
            print(f"cvcclock demo: --plot: {error}", file=sys.stderr)
            return 2
    results = run_all()
    status = 1 if contract_violations(results) else 0
    with reader_may_leave(status):
        print_report(results)
    for path, make in ((args.record, "save_recording"), (args.plot, "plot_pacing")):
        if path is not None:
            status = _demo_file(path, make, status)
    return status


def _demo_file(path: str, make: str, status: int) -> int:
    """Write the recording or the picture to ``path``; the status so far, or 2 if it could not
    be written (a reader that leaves early keeps the status so far)."""
    from cvcclock.demo import plot_pacing, save_recording

    write = save_recording if make == "save_recording" else plot_pacing
    try:
        line = write(path)
    except (OSError, ImportError) as error:
        print(f"cvcclock demo: {path}: {error}", file=sys.stderr)
        return 2
    with reader_may_leave(status):
        print(line)
    return status
