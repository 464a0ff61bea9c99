"""The README stays true: every ```python block runs as a user would copy it.

Each block runs on its own in a fresh interpreter, from an empty directory, with nothing
patched (real sleeps included: the README's examples are kept fast): a block that defines
``test_`` functions is a test module and runs under pytest, any other block is a script run
by python. It must succeed and print nothing on stderr; where the README shows what a block
prints (a line ``prints`` and a plain block right after it), the output must be exactly that.
A block that is deliberately not runnable is marked on the line right before its fence with
``<!-- not-run: reason -->``; the reason is required.
"""

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
FENCE = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)
SHOWN_OUTPUT = re.compile(r"\n+prints\n+```\n(.*?)^```$", re.S | re.M)
NOT_RUN = re.compile(r"<!--\s*not-run\b(?::\s*(?P<reason>.*?))?\s*-->")
TIMEOUT = 120.0     # seconds for one block; each takes well under one


@dataclasses.dataclass(frozen=True)
class Block:
    """One ```python block of the README."""

    line: int                 # of its opening fence, 1-based
    code: str
    not_run: str | None       # the reason it is deliberately not run, if it is marked so
    prints: str | None        # the output the README shows for it, if any

    @property
    def is_test_module(self) -> bool:
        return re.search(r"^def test_", self.code, re.M) is not None


def python_blocks(text):
    """Every ```python block of ``text``, in order; ValueError for a not-run mark with no reason."""
    blocks = []
    for fence in FENCE.finditer(text):
        line = text.count("\n", 0, fence.start()) + 1
        before = text[:fence.start()].splitlines()[-1:] or [""]
        mark = NOT_RUN.fullmatch(before[0].strip())
        if mark and not mark["reason"]:
            raise ValueError(f"README line {line - 1}: say why the block is not run: "
                             "<!-- not-run: reason -->")
        shown = SHOWN_OUTPUT.match(text, fence.end())
        blocks.append(Block(line, fence[1], mark["reason"] if mark else None,
                            shown[1] if shown else None))
    return blocks


BLOCKS = python_blocks(README.read_text(encoding="utf-8"))


def run_as_a_user_would(block, directory):
    """Save ``block`` in ``directory`` and run it there: with pytest or as a script."""
    name = "test_example.py" if block.is_test_module else "example.py"
    (directory / name).write_text(block.code, encoding="utf-8")
    command = ["-m", "pytest", "-q", "-p", "no:cacheprovider", name] if block.is_test_module \
        else [name]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return subprocess.run([sys.executable, *command], cwd=directory, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT)


def test_the_readme_has_its_examples():
    assert len(BLOCKS) >= 8
    assert any(b.is_test_module for b in BLOCKS) and any(b.prints for b in BLOCKS)


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.not_run is None],
                         ids=lambda b: f"line{b.line}")
def test_every_python_block_runs_on_its_own(block, tmp_path):
    proc = run_as_a_user_would(block, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr == ""
    if block.is_test_module:
        tests = len(re.findall(r"^def test_", block.code, re.M))
        assert re.search(rf"^{tests} passed\b", proc.stdout, re.M), proc.stdout
    if block.prints is not None:
        assert proc.stdout == block.prints


def test_a_not_run_mark_needs_a_reason():
    code = "```python\nraise SystemExit(1)\n```\n"
    with pytest.raises(ValueError, match="line 1: say why"):
        python_blocks("<!-- not-run -->\n" + code)
    with pytest.raises(ValueError, match="line 1: say why"):
        python_blocks("<!-- not-run: -->\n" + code)
    marked, unmarked = python_blocks(f"<!-- not-run: needs a display -->\n{code}\n{code}")
    assert (marked.not_run, unmarked.not_run) == ("needs a display", None)


def test_a_shown_output_belongs_to_the_block_before_it():
    text = "```python\nprint(1)\n```\n\nprints\n\n```\n1\n```\n\n```python\npass\n```\n"
    first, second = python_blocks(text)
    assert (first.prints, second.prints) == ("1\n", None)


def test_importing_cvcclock_prints_nothing(tmp_path):
    # An editable install made without -Ceditable.verbose=false prints CMake's output here.
    proc = subprocess.run([sys.executable, "-c", "import cvcclock"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


REPOSITORY_FILE = re.compile(
    r"^https://(?:raw\.githubusercontent\.com/cvcclock/cvcclock/main"
    r"|github\.com/cvcclock/cvcclock/blob/main)/(?P<path>.+)$")


def test_every_link_works_from_the_package_index():
    # The README is the long description on the index, where a relative link is broken: each
    # link is absolute or an in-page anchor, and one into the repository names a real file.
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r'src="([^"]+)"', text)
    assert links
    root = README.parent
    for link in links:
        assert link.startswith(("https://", "http://", "#")), f"relative link {link!r}"
        into_repository = REPOSITORY_FILE.match(link)
        if into_repository:
            assert (root / into_repository["path"]).is_file(), f"{link!r}: no such file"
