"""The archives: the sdist holds what a build needs and nothing else; the wheel holds the
compiled module, the stubs and py.typed, and no Cython or C sources.

scripts/prove_wheel.sh passes the archives it built (CVCCLOCK_SDIST, CVCCLOCK_WHEEL); run
on its own, the test builds them from this checkout with ``python -m build``, in isolation,
which fetches the build requirements from the package index and takes about 30 s: hence the
``network`` marker, deselected by default (``pytest -m network tests/project/test_dist.py``
runs it).
"""

import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def archives(tmp_path_factory):
    """(sdist path, wheel path)."""
    if "CVCCLOCK_SDIST" in os.environ:
        return Path(os.environ["CVCCLOCK_SDIST"]), Path(os.environ["CVCCLOCK_WHEEL"])
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                   check=True, capture_output=True, timeout=900)
    return next(out.glob("*.tar.gz")), next(out.glob("*.whl"))


@pytest.mark.network
def test_sdist_holds_what_a_build_needs_and_nothing_else(archives):
    with tarfile.open(archives[0]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    needed = {"pyproject.toml", "CMakeLists.txt", "README.md", "LICENSE", "CHANGELOG.md",
              "src/_core/_core.pyx", "src/_core/clock.pxi", "src/_core/config.pxi",
              "src/_core/follower.pxi", "src/_core/result.pxi", "src/_core/timers.pxi",
              "src/_core/checks.pxi", "src/_core/presentation.pxi", "src/_core/state.pxi",
              "src/_core/timer_queue.pxi", "src/_core/clock_bank.pxi",
              "src/_core/clock_bank_kernel.h", "src/_core/banking.h",
              "src/cvcclock/__init__.py",
              "src/cvcclock/_core.pyi", "src/cvcclock/py.typed", "src/cvcclock/_version.py"}
    assert needed <= names
    unwanted = [n for n in names if n.startswith(("tests/", "benchmarks/", ".ci/", ".github/",
                                                  "scripts/", "build/"))
                or n.endswith((".c", ".so", ".pyc"))]
    assert unwanted == []


@pytest.mark.network
def test_wheel_holds_the_module_stubs_and_no_sources(archives):
    with zipfile.ZipFile(archives[1]) as wheel:
        names = wheel.namelist()
    package = [n for n in names if n.startswith("cvcclock/")]
    assert any(n.startswith("cvcclock/_core.") and n.endswith((".so", ".pyd")) for n in package)
    assert {"cvcclock/_core.pyi", "cvcclock/py.typed", "cvcclock/__init__.py"} <= set(package)
    sources = [n for n in names if n.endswith((".pyx", ".pxd", ".pxi", ".c", ".h", ".cpp"))]
    assert sources == []
    assert all(n.startswith(("cvcclock/", "cvcclock-")) for n in names)


@pytest.mark.parametrize("options, selected", [([], False), (["-m", "network"], True)])
def test_the_default_run_is_offline_and_network_tests_run_when_asked(options, selected):
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         *options, "tests/project/test_dist.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    archive_tests = [line for line in proc.stdout.splitlines()
                     if line.startswith(("tests/project/test_dist.py::test_sdist_",
                                         "tests/project/test_dist.py::test_wheel_"))]
    assert len(archive_tests) == (2 if selected else 0), proc.stdout
