"""The README stays true: every ```python block runs as a user would copy it, and the tour
says what the tree and CI are.

Each block runs on its own in a fresh interpreter, from an empty directory, with nothing
patched (real sleeps included: the README's examples are kept fast): a block that defines
``test_`` functions is a test module and runs under pytest, any other block is a script run
by python (``support.pasted``). It must succeed and print nothing on stderr; where the README
shows what a block prints (a line ``prints`` and a plain block right after it), the output
must be exactly that. A block that is deliberately not runnable is marked on the line right
before its fence with ``<!-- not-run: reason -->``; the reason is required.
"""

import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest

from support.ci_script import ci_commands
from support.pasted import TIMEOUT, check_ran, is_test_module, run_as_a_user_would

README = Path(__file__).resolve().parents[2] / "README.md"
FENCE = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)
SHOWN_OUTPUT = re.compile(r"\n+prints\n+```\n(.*?)^```$", re.S | re.M)
NOT_RUN = re.compile(r"<!--\s*not-run\b(?::\s*(?P<reason>.*?))?\s*-->")


@dataclasses.dataclass(frozen=True)
class Block:
    """One ```python block of the README."""

    line: int                 # of its opening fence, 1-based
    code: str
    not_run: str | None       # the reason it is deliberately not run, if it is marked so
    prints: str | None        # the output the README shows for it, if any

    @property
    def is_test_module(self) -> bool:
        return is_test_module(self.code)


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


def test_the_readme_has_its_examples():
    # One per wing at least: the clock (a frame loop, timers), the binding, replay, a scenario.
    assert len(BLOCKS) >= 5
    assert any(b.prints for b in BLOCKS)


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.not_run is None],
                         ids=lambda b: f"line{b.line}")
def test_every_python_block_runs_on_its_own(block, tmp_path):
    check_ran(block.code, run_as_a_user_would(block.code, tmp_path), block.prints)


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


# -- the tour ------------------------------------------------------------------------------

ROOT = README.parent
TEXT = README.read_text(encoding="utf-8")


def sh_lines(text):
    """The commands of every ```sh block of a Markdown text, comments stripped."""
    blocks = re.findall(r"^```sh\n(.*?)^```$", text, re.S | re.M)
    return [line.split("  #")[0].strip() for block in blocks for line in block.splitlines()
            if line.strip()]


def test_the_readme_is_a_tour():
    # The rest lives in docs/, where its examples run as doctests or in tests/project.
    assert TEXT.count("\n") <= 350


def test_the_readme_installs_once_with_the_extras_from_a_checkout_and_from_an_index():
    commands = sh_lines(TEXT)
    assert commands[:2] == ["python -m venv .venv && . .venv/bin/activate",
                            "pip install '.[test,plot,dask]'"]
    assert "`pip install 'cvcclock[plot,dask]'`" in TEXT


def test_the_readme_test_command_is_the_one_ci_runs():
    ci = ci_commands()
    tests = [c for c in sh_lines(TEXT) if c.endswith("pytest")]
    assert tests == ["pip install '.[test]' && pytest"]
    assert tests[0] in ci
    assert "python -m cvcclock demo" in sh_lines(TEXT) and "python -m cvcclock demo" in ci


def layout_entries(text):
    """The Layout section's tree: {(indent, entry): its description with its continuation
    lines}. An entry indented under ``src/cvcclock/`` is a path inside the package."""
    section = text.split("\n## Layout\n", 1)[1]
    tree = re.search(r"^```\n(.*?)^```$", section, re.S | re.M)[1]
    entries: dict[tuple[int, str], str] = {}
    key = None
    for line in tree.splitlines():
        head = re.match(r"^( *)(\S.*?)(?: {2,}(.*))?$", line)
        if len(head[1]) >= 20:                 # a continuation of the entry above
            entries[key] += " " + head[2]
        else:
            key = (len(head[1]), head[2])
            entries[key] = head[3] or ""
    return entries


def test_the_layout_describes_the_tree_as_it_is():
    entries = layout_entries(TEXT)
    by_name = {name: described for (indent, name), described in entries.items()}
    whole = " ".join(f"{name} {described}" for name, described in by_name.items())
    package = ROOT / "src" / "cvcclock"
    for path in sorted(package.iterdir()):
        if path.is_dir() and (path / "__init__.py").is_file():
            # Each wing, and each module in it, named in the wing's entry.
            assert f"{path.name}/" in by_name, f"the layout lacks the wing {path.name}/"
            for module in sorted(path.glob("*.py")):
                if module.stem != "__init__":
                    assert re.search(rf"(?<![\w.]){module.stem}\b", by_name[f"{path.name}/"]), \
                        f"the layout's {path.name}/ does not name {module.stem}"
        elif path.is_file() and path.name != "__pycache__":
            assert path.name in whole, f"the layout lacks src/cvcclock/{path.name}"
    for (indent, name) in entries:
        # Every path the tree names exists: nothing it describes is gone.
        for part in name.split(", "):
            assert ((package if indent else ROOT) / part).exists(), f"no such path: {part!r}"
    core = by_name["src/_core/"]
    for source in sorted((ROOT / "src" / "_core").iterdir()):
        named = {".pxi": source.stem, ".h": source.name}.get(source.suffix)
        if named:
            assert re.search(rf"\b{re.escape(named)}\b", core), \
                f"the layout's src/_core/ does not name {source.name}"
