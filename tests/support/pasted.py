"""Run a copied example as a user would paste it into a file: the README's and the docs'.

A block that defines ``test_`` functions is a test module and runs under pytest; any other
block is a script run by python. Each runs on its own in a fresh interpreter, from the
directory it is given, with nothing patched.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

TIMEOUT = 120.0     # seconds for one block; each takes well under one


def is_test_module(code: str) -> bool:
    """Whether ``code`` is a pytest module (it defines a ``test_`` function)."""
    return re.search(r"^def test_", code, re.M) is not None


def run_as_a_user_would(code: str, directory: Path) -> subprocess.CompletedProcess[str]:
    """Save ``code`` in ``directory`` and run it there: with pytest or as a script."""
    test_module = is_test_module(code)
    name = "test_example.py" if test_module else "example.py"
    (directory / name).write_text(code, encoding="utf-8")
    command = ["-m", "pytest", "-q", "-p", "no:cacheprovider", name] if test_module else [name]
    # Not the outer pytest's variables: the block's own pytest must see a clean session.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return subprocess.run([sys.executable, *command], cwd=directory, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT)


def check_ran(code: str, proc: subprocess.CompletedProcess[str], prints: str | None) -> None:
    """Assert that a block run by :func:`run_as_a_user_would` succeeded as a user expects:
    exit 0, nothing on stderr, every test of a test module passed, and exactly the output
    shown for it, if any."""
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr == ""
    if is_test_module(code):
        tests = len(re.findall(r"^def test_", code, re.M))
        assert re.search(rf"^{tests} passed\b", proc.stdout, re.M), proc.stdout
    if prints is not None:
        assert proc.stdout == prints
