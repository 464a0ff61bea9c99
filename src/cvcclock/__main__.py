"""The ``cvcclock`` command line: ``python -m cvcclock demo``."""

import argparse
import sys

from cvcclock import __version__


def main(argv: list[str] | None = None) -> int:
    """Run the ``cvcclock`` command.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    int
        The exit status: 0 on success, 1 when the demo finds the determinism contract broken.
    """
    parser = argparse.ArgumentParser(prog="cvcclock", description=__doc__)
    parser.add_argument("--version", action="version", version=f"cvcclock {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    commands.add_parser("demo", help="run one simulation under every pacing mode and check "
                                     "that the trajectories are identical")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from cvcclock.demo import run_demo
        return 0 if run_demo() else 1
    parser.error(f"unknown command {args.command!r}")   # unreachable: argparse checks choices


if __name__ == "__main__":
    sys.exit(main())
