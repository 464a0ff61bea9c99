"""The Scenic guide's examples and the README's Scenic commands work as pasted.

They need the scenic extra, which the README's suite has not got, so the guide marks its
blocks ``.. code-block:: python3`` (tests/project/test_docs_pages.py runs the ``python``
ones) and this module runs them, in CI's scenic stage: each as a script in an empty
directory, printing exactly what the page shows after "prints:".
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("scenic", reason="needs the scenic extra: pip install '.[scenic]'")

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guide" / "scenic.rst"
README = ROOT / "README.md"
BLOCK = re.compile(r"^\.\. code-block:: (\w+)\n\n((?:   .*\n|\n)+)", re.M)


def blocks(text: str) -> list[tuple[str, str, str | None]]:
    """(language, code, what it prints) of each code block."""
    found = [(m[1], "".join(line[3:] + "\n" for line in m[2].rstrip().split("\n")),
              m.start(), m.end()) for m in BLOCK.finditer(text)]
    out = []
    for i, (language, code, _, end) in enumerate(found):
        prints = None
        if i + 1 < len(found) and found[i + 1][0] == "text" and \
                text[end:found[i + 1][2]].strip().endswith("prints:"):
            prints = found[i + 1][1]
        out.append((language, code, prints))
    return out


SCRIPTS = [(code, prints) for language, code, prints in blocks(GUIDE.read_text())
           if language == "python3"]


def test_the_guide_has_its_examples():
    assert len(SCRIPTS) == 2 and all(prints for _, prints in SCRIPTS)


@pytest.mark.parametrize("code, prints", SCRIPTS, ids=["paced run", "keys"])
def test_each_guide_example_runs_as_pasted(code, prints, tmp_path):
    (tmp_path / "example.py").write_text(code)
    proc = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == prints


def test_the_readme_commands_run(tmp_path):
    section = README.read_text().split("`cvcclock.scenic` (`pip install", 1)[1]
    commands = re.search(r"```sh\n(.*?)```", section, re.S)[1].splitlines()
    assert len(commands) == 2
    (tmp_path / "wander.scenic").write_text(
        "behavior Wander():\n    while True:\n        take Range(0, 1)\n"
        "ego = new Object with behavior Wander\n")
    outputs = []
    for command in commands:
        command = command.split("#")[0].split() + ["--steps", "12", "--timestep", "0.01"]
        proc = subprocess.run([sys.executable, *command[1:]], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        assert (proc.returncode, proc.stderr) == (0, "")
        outputs.append(proc.stdout)
    assert outputs[1] == outputs[0] + "matched: 13 step hashes checked, all equal\n"
