"""The guide's copyable blocks work as pasted: scripts, test files and the commands it shows.

``sphinx-build -b doctest`` runs the ``>>>`` examples and the ``testcode`` blocks; this runs
the rest, the blocks a reader copies with the copy button into a file or a shell:

- every ``.. code-block:: python`` runs on its own, as a user would save and run it
  (``support.pasted``: a test module under pytest, anything else as a script), and where the
  next paragraph ends in "prints:" and a ``.. code-block:: text`` follows, prints exactly that;
- every ``.. code-block:: console`` that shows output and whose commands (the ``$`` lines) are
  all ``python -m cvcclock ...`` runs in an empty directory, exits 0, and prints what it
  shows (a line ``...`` stands for any lines, as in a doctest).
"""

from __future__ import annotations

import dataclasses
import doctest
import re
import subprocess
import sys
from pathlib import Path

import pytest

from support.ci_script import ci_commands
from support.pasted import TIMEOUT, check_ran, run_as_a_user_would

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [DOCS / "index.rst", *sorted((DOCS / "guide").glob("*.rst"))]
DIRECTIVE = re.compile(r"^(?P<indent> *)\.\. code-block:: *(?P<language>\S+) *$")


@dataclasses.dataclass(frozen=True)
class Block:
    """One ``code-block`` of a page: where it is, its language, its text."""

    page: str
    line: int               # of its directive, 1-based
    language: str
    code: str
    prints: str | None      # the output shown for it, for a python block


def code_blocks(text: str, page: str = "page") -> list[Block]:
    """Every ``.. code-block::`` of an .rst ``text``, in order, its options left out and its
    body dedented."""
    lines = text.splitlines()
    found: list[tuple[int, str, str, int]] = []     # (line, language, code, end line)
    i = 0
    while i < len(lines):
        directive = DIRECTIVE.match(lines[i])
        if not directive:
            i += 1
            continue
        indent = len(directive["indent"])
        j = i + 1
        while j < len(lines) and re.match(rf"^ {{{indent + 1},}}:\w[\w-]*:", lines[j]):
            j += 1                                   # the directive's options
        body = []
        while j < len(lines) and (not lines[j].strip() or
                                  len(lines[j]) - len(lines[j].lstrip()) > indent):
            body.append(lines[j])
            j += 1
        while body and not body[-1].strip():
            body.pop()
        while body and not body[0].strip():
            body.pop(0)
        margin = min((len(b) - len(b.lstrip()) for b in body if b.strip()), default=0)
        code = "\n".join(b[margin:] for b in body) + "\n"
        found.append((i + 1, directive["language"], code, j))
        i = j
    blocks = []
    for n, (line, language, code, end) in enumerate(found):
        prints = None
        if language == "python" and n + 1 < len(found) and found[n + 1][1] == "text":
            between = "\n".join(lines[end:found[n + 1][0] - 1]).strip()
            if between.endswith("prints:"):
                prints = found[n + 1][2]
        blocks.append(Block(page, line, language, code, prints))
    return blocks


BLOCKS = [block for page in PAGES
          for block in code_blocks(page.read_text(encoding="utf-8"), page.name)]
PYTHON = [b for b in BLOCKS if b.language == "python"]


def console_session(block: Block) -> tuple[list[str], str]:
    """A console block's commands (its ``$`` lines) and the output it shows."""
    lines = block.code.splitlines()
    commands = [line[2:] for line in lines if line.startswith("$ ")]
    shown = [line for line in lines if not line.startswith("$ ")]
    return commands, "".join(f"{line}\n" for line in shown)


CVCCLOCK = "python -m cvcclock "
RUN = [b for b in BLOCKS if b.language == "console"
       if console_session(b)[1].strip()
       and all(part.strip().startswith(CVCCLOCK)
               for command in console_session(b)[0] for part in command.split("&&"))]


def ident(block: Block) -> str:
    return f"{block.page}:{block.line}"


def test_the_scan_reads_blocks_their_options_and_what_they_print():
    text = """
Intro.

.. code-block:: python
   :caption: hello.py

   print("hello")

   print("world")

It prints:

.. code-block:: text

   hello
   world

- an item with a block:

  .. code-block:: console

     $ python -m cvcclock demo
     ...
"""
    script, output, session = code_blocks(text)
    assert (script.language, script.code) == ("python", 'print("hello")\n\nprint("world")\n')
    assert script.prints == "hello\nworld\n" and output.prints is None
    assert console_session(session) == (["python -m cvcclock demo"], "...\n")


@pytest.mark.parametrize("block", PYTHON, ids=ident)
def test_every_python_block_runs_as_pasted(block, tmp_path):
    check_ran(block.code, run_as_a_user_would(block.code, tmp_path), block.prints)


@pytest.mark.parametrize("block", RUN, ids=ident)
def test_every_cvcclock_command_shown_prints_what_it_shows(block, tmp_path):
    commands, shown = console_session(block)
    printed = ""
    for command in commands:
        # The interpreter running the tests: the one cvcclock is installed in.
        proc = subprocess.run(command.replace("python -m", f"{sys.executable} -m"), shell=True,
                              cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT)
        assert (proc.returncode, proc.stderr) == (0, ""), proc.stdout + proc.stderr
        printed += proc.stdout
    checker = doctest.OutputChecker()
    assert checker.check_output(shown, printed, doctest.ELLIPSIS), \
        checker.output_difference(doctest.Example(commands[0], shown), printed, doctest.ELLIPSIS)


START = DOCS / "guide" / "start.rst"


def test_the_docs_start_with_install_and_first_run():
    index = (DOCS / "index.rst").read_text(encoding="utf-8")
    guide = re.search(r":caption: User guide\n\n(.*?)\n\n", index, re.S)[1].split()
    assert guide[0] == "guide/start"
    start = [b for b in BLOCKS if b.page == START.name]
    assert START.read_text(encoding="utf-8").startswith("Install and first run\n")
    # A frame loop to paste into a file, run here; the demo, record and replay, run here too.
    loop = [b for b in start if b.language == "python" and "while clock.t" in b.code]
    assert len(loop) == 1 and loop[0] in PYTHON and loop[0].prints
    ci = ci_commands()
    ran = [c for b in start if b in RUN for c in console_session(b)[0]]
    assert "python -m cvcclock demo" in ran and "python -m cvcclock demo" in ci
    replay = "python -m cvcclock demo --record run.trace && python -m cvcclock replay " \
             "run.trace --pacing batch"
    assert replay in ran and replay in ci


def install_hints(text: str) -> tuple[set[str], set[str]]:
    """The extras a text installs from a checkout (``'.[a,b]'``) and from an index
    (``'cvcclock[a,b]'``)."""
    def extras(pattern: str) -> set[str]:
        return {e.strip() for group in re.findall(pattern, text) for e in group.split(",")}
    return extras(r"'\.\[([\w,-]+)\]'"), extras(r"'cvcclock\[([\w,-]+)\]'")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_install_hint_gives_the_checkout_form_too(page):
    checkout, index = install_hints(page.read_text(encoding="utf-8"))
    assert index <= checkout, f"{page.name}: pip install 'cvcclock[...]' without '.[...]' " \
                              f"for {sorted(index - checkout)}"


def test_the_pages_name_no_module_that_moved():
    gone = ["replay_trace", "demo_replay", "replay_cli", "batch_cli", "scenario.batch",
            "bench_cases", "demo_plot", "tests/test_"]
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert [name for name in gone if name in text] == [], page.name
