#!/usr/bin/env bash
# CI stage: the package on a free-threaded CPython 3.13t with the GIL off.
#
# Uses the free-threaded interpreter given as its argument (GitHub Actions' setup-python
# provides one), else builds or reuses one (scripts/build_freethreaded_python.sh); installs the
# package into a fresh virtual environment of it, checks that importing it keeps the GIL
# off, then runs the whole suite with PYTHON_GIL=0 (the stress tests of
# tests/core/test_free_threading.py for more rounds than by default) and the free-threading
# benchmark once as a plain test. About 5 minutes on 2 cores with the interpreter cached.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${1:-$(bash scripts/build_freethreaded_python.sh)}
"$python" -c 'import sys, sysconfig; sys.exit(not sysconfig.get_config_var("Py_GIL_DISABLED"))' \
    || { echo "$python is not a free-threaded build" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$python" -m venv "$work/venv"
. "$work/venv/bin/activate"
python -m pip install --quiet --upgrade pip
# Wheels where they exist for the free-threaded ABI (the newest matplotlib has none and
# would need a download to build), else from source; two pins where a build needs Rust.
pip install --quiet --prefer-binary -c scripts/freethreaded-constraints.txt '.[test]' \
    'pytest-benchmark>=4'

python -W error -c 'import sys, cvcclock; assert not sys._is_gil_enabled(), "the GIL is on"'

export PYTHON_GIL=0   # other extensions the tests import (matplotlib's) would turn it on
CVCCLOCK_STRESS_ROUNDS=8 timeout 1200 pytest -p no:cacheprovider -q
timeout 600 pytest -p no:cacheprovider -q benchmarks/test_bench_free_threading.py \
    --benchmark-disable
