"""The package type-checks under mypy --strict, against the hand-written stubs of the core."""

import subprocess
import sys


def test_package_is_strictly_typed(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "-p", "cvcclock"],
        capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
