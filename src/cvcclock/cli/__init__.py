"""The ``cvcclock`` command line: ``python -m cvcclock demo``, ``bench``, ``replay``, ``batch``
or ``netplay-demo`` or ``scenic``.

One module per command (:mod:`.demo`, :mod:`.bench`, :mod:`.replay`, :mod:`.batch`,
:mod:`.netplay_demo`, :mod:`.scenic`), each with
``add_parser(commands)`` and ``run(args, parser) -> int``; :func:`main` builds the parser from
them and dispatches. Nothing in the package imports this wing; ``cvcclock.__main__`` calls
:func:`main`.

Exit statuses mean one thing each: 0 success; 1 only when the contract is broken (the demo
finds pacings that disagree, a replay diverges, some runs of a batch failed); 2 a usage error
or a file that cannot be read or written; 3 a replay found nothing different but could not
verify everything (a digest the trace should hold is missing); 130 interrupted (Ctrl-C; 143
for a batch terminated by SIGTERM). A reader that stops reading early
(``cvcclock demo | head -1``) ends the output, not the command: the rest is discarded and the
status is the one the command would have had.
"""

from __future__ import annotations

import argparse
import sys

from cvcclock import __version__
from cvcclock.cli import batch, bench, demo, netplay_demo, replay, scenic
from cvcclock.cli._output import encode_what_stdout_can, reader_may_leave

__all__ = ["main"]

DESCRIPTION = """\
cvcclock: one deterministic simulation clock per process, with a Cython core.
Run 'cvcclock COMMAND --help' for what a command does and its options."""

EPILOG = """\
exit status: 0 success; 1 the demo found the determinism contract broken, a replay
diverged, or some runs of a batch failed; 2 a usage error, or input that cannot be read
or written (or a batch's scenario its workers cannot load, Dask missing); 3 a
replay unverified (nothing differs, a digest is missing); 130 interrupted
(Ctrl-C); 143 a batch terminated (SIGTERM)."""

COMMANDS = {"demo": demo, "bench": bench, "replay": replay, "batch": batch,
            "netplay-demo": netplay_demo, "scenic": scenic}


def _parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The command's parser, and each command's subparser (for its errors)."""
    parser = argparse.ArgumentParser(prog="cvcclock", description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"cvcclock {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    return parser, {name: module.add_parser(commands) for name, module in COMMANDS.items()}


def main(argv: list[str] | None = None) -> int:
    """Run the ``cvcclock`` command.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    int
        The exit status: 0 on success, 1 only when the demo finds the determinism contract
        broken, a replay diverges or some runs of a batch failed, 130 when a command is
        interrupted (143 for a batch terminated by SIGTERM), 2 for no command (the help
        goes to stderr) or input that cannot be read or written. Bad arguments exit 2, through
        ``SystemExit``, as argparse does; so does a reader that closes stdout early, with the
        status the command would have returned.
    """
    encode_what_stdout_can(sys.stdout)
    parser, subparsers = _parser()
    with reader_may_leave(0):     # --help and --version print, then exit 0
        args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        status: int = COMMANDS[args.command].run(args, subparsers[args.command])
    except KeyboardInterrupt:       # a command that does not handle it itself (bench, demo)
        print(f"cvcclock {args.command}: interrupted", file=sys.stderr)
        return 130
    return status
