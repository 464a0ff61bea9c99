"""The panel guide's Python blocks run as pasted (they need the panel extra, so the README's
suite, whose test_docs_pages runs the other pages' ``python`` blocks, cannot run them)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("aiohttp")

from support.pasted import check_ran, run_as_a_user_would  # noqa: E402

PAGE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "panel.rst"


def python_blocks(text: str) -> list[str]:
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        if lines[i].strip() == ".. code-block:: python3":
            body, i = [], i + 1
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith("   ")):
                body.append(lines[i][3:])
                i += 1
            blocks.append("\n".join(body).strip() + "\n")
        else:
            i += 1
    return blocks


BLOCKS = python_blocks(PAGE.read_text(encoding="utf-8"))


def test_the_page_has_its_blocks():
    assert len(BLOCKS) == 2 and all("Panel(" in block for block in BLOCKS)


@pytest.mark.parametrize("code", BLOCKS, ids=["own loop", "replay"])
def test_each_block_runs_as_pasted(code, tmp_path):
    done = run_as_a_user_would(code, tmp_path)
    check_ran(code, done, None)
    assert done.stdout.startswith("http://127.0.0.1:")
