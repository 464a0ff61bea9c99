"""The README's Gymnasium example, which the README's own suite cannot run without the gym
extra: run here, as tests/project/test_readme.py runs the others (a fresh interpreter, the
code as pasted), and its output is the one its comment shows."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("gymnasium")

from support.pasted import run_as_a_user_would  # noqa: E402

README = Path(__file__).resolve().parents[2] / "README.md"


def gym_block() -> str:
    text = README.read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]
    [block] = [b for b in blocks if "cvcclock.gym" in b]
    return block


def test_the_readmes_gymnasium_example_runs_and_prints_what_it_says(tmp_path):
    block = gym_block()
    proc = run_as_a_user_would(block, tmp_path)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout == "{'tick': 0, 't': 0.0} {'tick': 1, 't': 0.02}\n"
    assert "# {'tick': 0, 't': 0.0} {'tick': 1, 't': 0.02}" in block
