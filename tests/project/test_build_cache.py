"""The core's build is cached between installs from one checkout.

pyproject.toml keeps the build directory (``build-dir = "build/{wheel_tag}"``), and
CMakeLists.txt keeps what pip's build isolation would otherwise throw away each time (the objects,
outside CMakeFiles/; a regenerated but identical ``_core.c``), so a second ``pip install`` of
the checkout, with another extra, does not compile the core again. Measured on 2 cores, in a fresh
venv and checkout, the pip cache warm: ``pip install '.[test]'`` 46 s (the dependencies and one
compile), then ``pip install '.[plot]'`` 6 s; before, 50 s then 20 s (a second compile).

Two isolated builds, fetching the build requirements from the package index (about 30 s):
hence the ``network`` marker. It needs a C compiler, which scripts/prove_wheel.sh keeps out of
reach on purpose, so it skips there.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The lines ninja prints when it compiles the core: "Compiling object ..." with CMake's short
# object paths, "Building C object ..." with its default ones.
COMPILING = re.compile(r"(Compiling|Building C) object")


def _compiler() -> str | None:
    return shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc") \
        or shutil.which("clang")


@pytest.mark.network
@pytest.mark.skipif(_compiler() is None, reason="needs a C compiler")
def test_a_second_install_does_not_compile_the_core_again(tmp_path):
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    for name in ("pyproject.toml", "CMakeLists.txt", "README.md", "LICENSE", "CHANGELOG.md"):
        shutil.copy2(ROOT / name, checkout / name)
    shutil.copytree(ROOT / "src", checkout / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.c"))

    def build() -> str:
        # Each call gets a new isolated build environment, as each `pip install` does.
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w",
             str(tmp_path / "wheels"), str(checkout)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
        assert proc.returncode == 0, proc.stdout[-4000:]
        return proc.stdout

    first = build()
    assert COMPILING.search(first), first[-4000:]
    second = build()
    assert (checkout / "build").is_dir()
    assert not COMPILING.search(second), second[-4000:]
