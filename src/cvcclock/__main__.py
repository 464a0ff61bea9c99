"""The ``cvcclock`` command line: ``python -m cvcclock demo``, ``bench`` or ``batch``."""

import argparse
import sys

from cvcclock import __version__, batch_cli


def _at_least_one(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {text}")
    return value


def main(argv: list[str] | None = None) -> int:
    """Run the ``cvcclock`` command.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    int
        The exit status: 0 on success, 1 when the demo finds the determinism contract broken
        or some runs of a batch failed (130 when a batch is interrupted).
        Bad arguments exit 2, through ``SystemExit``, as argparse does.
    """
    parser = argparse.ArgumentParser(prog="cvcclock", description=__doc__)
    parser.add_argument("--version", action="version", version=f"cvcclock {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    commands.add_parser("demo", help="run one simulation under every pacing mode and check "
                                     "that the trajectories are identical")
    bench = commands.add_parser("bench", help="time the hot calls in-process, in ns per call "
                                              "and as a ratio to an empty builtin call")
    bench.add_argument("--number", type=_at_least_one, default=200_000,
                       help="calls per timing (default 200000)")
    bench.add_argument("--repeat", type=_at_least_one, default=5,
                       help="timings per call, the fastest kept (default 5)")
    batch = batch_cli.add_parser(commands)
    args = parser.parse_args(argv)
    if args.command == "batch":
        return batch_cli.run(args, batch)
    if args.command == "bench":
        from cvcclock.bench import run_bench
        run_bench(args.number, args.repeat)
        return 0
    from cvcclock.demo import run_demo   # argparse allows no other command
    return 0 if run_demo() else 1


if __name__ == "__main__":
    sys.exit(main())
