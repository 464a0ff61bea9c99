"""The demo is the main job: it must run, print its table and report the contract held.

The command line around it answers a user: helpful help, errors that name the option, exit
status 1 only for a broken contract, whatever becomes of stdout.
"""

import io
import os
import re
import subprocess
import sys

import pytest

from cvcclock.cli import main
from cvcclock.cli._output import encode_what_stdout_can
from cvcclock.demo import contract_violations, run_all

# The bench's own tests are in test_bench_cli.py; here it is one more command of the CLI.
BENCH_TINY = ["--number", "20", "--repeat", "1", "--clocks", "100"]


def test_every_pacing_gives_the_same_trajectories():
    results = run_all()
    assert contract_violations(results) == []
    checked = [r for r in results if r.checked]
    assert len({r.hashes for r in checked}) == 1
    assert {"live 1x", "live 2x", "live 0.5x", "single-step"} <= {r.name for r in checked}


def cli(*args, **kwargs):
    """``python -m cvcclock *args`` in a subprocess, bounded in time."""
    kwargs.setdefault("capture_output", True)
    return subprocess.run([sys.executable, "-m", "cvcclock", *args], text=True, timeout=120,
                          **kwargs)


def test_python_m_cvcclock_demo_prints_the_table_and_exits_zero():
    proc = cli("demo")
    assert proc.returncode == 0, proc.stderr
    assert "determinism contract: held" in proc.stdout
    for column in ("mode", "frames", "ticks", "dropped", "realized"):
        assert column in proc.stdout


def test_version(capsys):
    import cvcclock

    try:
        main(["--version"])
    except SystemExit as exit:
        assert exit.code == 0
    assert capsys.readouterr().out.strip() == f"cvcclock {cvcclock.__version__}"


def test_no_command_prints_the_help_to_stderr_and_exits_2():
    proc = cli()
    assert proc.returncode == 2 and proc.stdout == ""
    assert "usage: cvcclock" in proc.stderr
    assert "demo" in proc.stderr and "bench" in proc.stderr


def test_help_is_plain_text_naming_the_commands_and_the_exit_statuses():
    proc = cli("--help")
    assert proc.returncode == 0, proc.stderr
    assert "`" not in proc.stdout                      # no reST markup
    assert re.search(r"demo\s+check the determinism contract", proc.stdout)
    assert re.search(r"bench\s+time the hot calls", proc.stdout)
    assert "1 the demo found the determinism contract broken" in proc.stdout


@pytest.mark.parametrize("command, says", [("demo", "every pacing mode gave identical"),
                                           ("bench", "ratio to an")])
def test_each_command_help_says_what_it_does(command, says):
    proc = cli(command, "--help")
    assert proc.returncode == 0, proc.stderr
    assert says in " ".join(proc.stdout.split()) and "`" not in proc.stdout


def run_into_a_closed_pipe(*args, code=None):
    """Run the command with stdout a pipe nobody reads any more (``| head`` after its line)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    command = ["-m", "cvcclock", *args] if code is None else ["-c", code, *args]
    try:
        return subprocess.run([sys.executable, *command], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)


@pytest.mark.parametrize("args", [["demo"], ["bench", *BENCH_TINY],
                                  ["--help"], ["demo", "--help"], ["--version"]])
def test_a_reader_that_left_early_is_not_an_error(args):
    proc = run_into_a_closed_pipe(*args)
    assert (proc.returncode, proc.stderr) == (0, "")


def test_the_demo_exits_1_for_a_broken_contract_even_when_the_reader_left():
    code = ("import sys, cvcclock.demo as demo; from cvcclock.__main__ import main; "
            "demo.contract_violations = lambda results: ['live 2x']; sys.exit(main(['demo']))")
    proc = run_into_a_closed_pipe(code=code)
    assert (proc.returncode, proc.stderr) == (1, "")


def test_a_reader_that_leaves_on_the_record_line_keeps_the_contracts_status(tmp_path):
    """The report prints nothing here, so the pipe breaks on the line --record prints."""
    code = ("import sys, cvcclock.demo as demo; from cvcclock.cli import main; "
            "demo.contract_violations = lambda results: ['live 2x']; "
            "demo.print_report = lambda results, out=None: None; "
            f"sys.exit(main(['demo', '--record', {str(tmp_path / 'run.trace')!r}]))")
    proc = run_into_a_closed_pipe(code=code)
    assert (proc.returncode, proc.stderr) == (1, "")


@pytest.mark.parametrize("args", [["demo"], ["bench", *BENCH_TINY],
                                  ["--help"], ["demo", "--help"]])
def test_an_ascii_stdout_shows_everything(args):
    proc = cli(*args, env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.isascii() and "?" not in proc.stdout


def test_the_demo_verdict_is_plain_ascii():
    proc = cli("demo", env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert proc.stdout.splitlines()[-1] == (
        "determinism contract: held - every pacing mode gave identical trajectories")


def test_a_character_stdout_cannot_encode_is_replaced_not_raised():
    stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    encode_what_stdout_can(stream)
    print("held \u2014 1\u00d7", file=stream)
    stream.flush()
    assert stream.buffer.getvalue() == b"held ? 1?\n"


# --- demo --plot: the path decides the format, before anything runs -------------------------

def test_plot_to_a_format_matplotlib_cannot_write_is_one_line_and_exit_2(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "out.txt"
    proc = cli("demo", "--plot", str(path))
    assert proc.returncode == 2
    assert proc.stdout == ""                       # found before the demo ran
    [line] = proc.stderr.splitlines()
    assert str(path) in line and ".txt" in line
    assert all(f".{ext}," in line or f".{ext} " in line for ext in ("png", "svg", "pdf"))
    assert not path.exists() and list(tmp_path.iterdir()) == []


def test_plot_without_an_extension_writes_a_png_and_names_it(tmp_path):
    pytest.importorskip("matplotlib")
    proc = cli("demo", "--plot", str(tmp_path / "noext"))
    assert proc.returncode == 0, proc.stderr
    written = tmp_path / "noext.png"
    assert proc.stdout.splitlines()[-1] == f"drew the pacing picture to {written}"
    assert list(tmp_path.iterdir()) == [written]
    assert written.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_is_exit_2_with_both_install_hints(tmp_path):
    code = ("import sys; sys.modules['matplotlib'] = None; from cvcclock.__main__ import main; "
            f"sys.exit(main(['demo', '--plot', {str(tmp_path / 'p.png')!r}]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    [line] = proc.stderr.splitlines()
    assert "pip install '.[plot]'" in line         # from a checkout
    assert "pip install 'cvcclock[plot]'" in line  # from a package index
    assert list(tmp_path.iterdir()) == []


def test_plot_target_decides_the_file_from_the_extension():
    pytest.importorskip("matplotlib")
    from cvcclock.demo import plot_target

    assert plot_target("pacing") == "pacing.png"
    assert plot_target("pacing.") == "pacing.png"
    assert plot_target("a/b.SVG") == "a/b.SVG"
    with pytest.raises(ValueError, match=r"path 'out\.txt': .* \.txt .*\.png"):
        plot_target("out.txt")
    with pytest.raises(ValueError, match="path must name a file"):
        plot_target("")
    with pytest.raises(TypeError, match=r"path must be a path \(str or os.PathLike\), got 3"):
        plot_target(3)
