"""The ``cvcclock`` command line: ``python -m cvcclock demo``, ``bench``, ``replay`` or ``batch``.

Exit statuses: 0 success, 1 only when the demo finds the determinism contract broken, a
replay diverges or some runs of a batch failed, 2 a usage error or a file that cannot be
read or written, 130 a batch interrupted. A reader that
stops reading early (``cvcclock demo | head -1``) ends the output, not the command: the rest
is discarded and the status is the one the command would have had.
"""

import argparse
import contextlib
import io
import os
import sys
from collections.abc import Iterator

from cvcclock import __version__
from cvcclock.checks import check_count

DESCRIPTION = """\
cvcclock: one deterministic simulation clock per process, with a Cython core.
Run 'cvcclock COMMAND --help' for what a command does and its options."""

EPILOG = """\
exit status: 0 success; 1 the demo found the determinism contract broken, a replay
diverged, or some runs of a batch failed; 2 a usage error, or a file that cannot be read
or written; 130 a batch was interrupted."""

DEMO_DESCRIPTION = """\
Drive a spring (a step every 0.06 s) and a ball (a step every quantum) on a
0.01 s clock for 600 ticks: live at 1x, 2x and 0.5x, live with uneven frames,
in lockstep, in batches and one step at a time. Print a table of frames, ticks,
dropped quanta, realized speed and a hash of each trajectory, then whether
every pacing mode gave identical trajectories. Nothing sleeps: wall time is
passed explicitly, so the demo takes a fraction of a second."""

DEMO_EPILOG = """\
--record writes the trace of a scripted user's live run (speed changes and
kicks to the spring at irregular ticks) with a state hash after every step,
for 'cvcclock replay'. --plot draws pacing against the spring's trajectory
(needs matplotlib: pip install 'cvcclock[plot]').
exit status: 0 the contract held; 1 it is broken; 2 a file not written."""

BENCH_DESCRIPTION = """\
Time the hot calls (clock.advance, follower.take, clock.tick, binding.drive)
in-process with timeit and print nanoseconds per call beside the ratio to an
empty call of a C builtin method with the same calling convention. Read the
ratios: the absolute figures depend on the machine."""


def _parser() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser,
                       argparse.ArgumentParser, argparse.ArgumentParser]:
    """The command's parser, and the ``bench``, ``replay`` and ``batch`` subparsers (for
    their errors)."""
    from cvcclock.batch_cli import add_parser as add_batch
    from cvcclock.replay_cli import add_parser as add_replay

    layout = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(prog="cvcclock", description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=layout)
    parser.add_argument("--version", action="version", version=f"cvcclock {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    demo = commands.add_parser("demo", help="check the determinism contract under every "
                                            "pacing mode", description=DEMO_DESCRIPTION,
                               epilog=DEMO_EPILOG, formatter_class=layout)
    demo.add_argument("--record", metavar="PATH", help="also record a scripted run to PATH")
    demo.add_argument("--plot", metavar="PATH", help="also draw the pacing picture to PATH")
    bench = commands.add_parser("bench", help="time the hot calls against an empty call",
                                description=BENCH_DESCRIPTION, formatter_class=layout)
    bench.add_argument("--number", type=int, default=200_000, metavar="N",
                       help="calls per timing, at least 1 (default 200000)")
    bench.add_argument("--repeat", type=int, default=5, metavar="N",
                       help="timings per call, the fastest kept; at least 1 (default 5)")
    return parser, bench, add_replay(commands), add_batch(commands)


@contextlib.contextmanager
def _reader_may_leave(status: int) -> Iterator[None]:
    """Print inside the block; if the reader has gone, end quietly with exit ``status``.

    Python ignores SIGPIPE, so a closed pipe is a ``BrokenPipeError`` on a write or on the
    flush at exit. Flushing here makes it show inside the block; stdout is then pointed at
    os.devnull so the flush Python makes at exit cannot fail again (the recipe of the Python
    docs' note on SIGPIPE).
    """
    try:
        try:
            yield
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(status) from None


def _encode_what_stdout_can(stream: object) -> None:
    """Replace, rather than raise on, a character stdout's encoding lacks (an ascii locale)."""
    if isinstance(stream, io.TextIOWrapper):
        stream.reconfigure(errors="replace")


def _demo(record: str | None, plot: str | None) -> int:
    """Run the demo; its status is the verdict, even when the reader left early."""
    from cvcclock.demo import contract_violations, print_report, run_all

    results = run_all()
    status = 1 if contract_violations(results) else 0
    with _reader_may_leave(status):
        print_report(results)
    for path, make in ((record, "save_recording"), (plot, "plot_pacing")):
        if path is not None:
            status = _demo_file(path, make) or status
    return status


def _demo_file(path: str, make: str) -> int:
    """Write the recording or the picture to ``path``; 0, or 2 if it could not be written."""
    from cvcclock import demo_plot, demo_replay

    write = demo_replay.save_recording if make == "save_recording" else demo_plot.plot_pacing
    try:
        line = write(path)
    except (OSError, ImportError) as error:
        print(f"cvcclock demo: {path}: {error}", file=sys.stderr)
        return 2
    with _reader_may_leave(0):
        print(line)
    return 0


def _replay(replay: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Replay a trace; the status says matched (0), diverged (1) or unreadable (2)."""
    from cvcclock.replay_cli import replay_command

    outcome = replay_command(replay, args)
    with _reader_may_leave(outcome.status):
        print(outcome.report, end="")
    return outcome.status


def _bench(bench: argparse.ArgumentParser, number: int, repeat: int) -> int:
    """Check the counts with the package's own rule (errors name the option), then time."""
    from cvcclock.bench import run_bench

    try:
        check_count(number, "--number", minimum=1)
        check_count(repeat, "--repeat", minimum=1)
    except ValueError as error:
        bench.error(str(error))
    with _reader_may_leave(0):
        run_bench(number, repeat)
    return 0


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
        broken, a replay diverges or some runs of a batch failed, 130 when a batch is
        interrupted, 2 for no command (the help goes to stderr) or a file
        that cannot be read or written. Bad arguments exit 2, through
        ``SystemExit``, as argparse does; so does a reader that closes stdout early, with the
        status the command would have returned.
    """
    _encode_what_stdout_can(sys.stdout)
    parser, bench, replay, batch = _parser()
    with _reader_may_leave(0):     # --help and --version print, then exit 0
        args = parser.parse_args(argv)
    if args.command == "bench":
        return _bench(bench, args.number, args.repeat)
    if args.command == "demo":
        return _demo(args.record, args.plot)
    if args.command == "replay":
        return _replay(replay, args)
    if args.command == "batch":
        from cvcclock.batch_cli import run as run_batch

        return run_batch(args, batch)
    parser.print_help(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
