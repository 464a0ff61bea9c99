"""Writes the compatibility fixtures in tests/compat/data with the package as installed.

Run once, with cvcclock as it was before the package moved into wings (commit a26e96a):
``python tests/compat/make_fixtures.py``. The files it wrote are committed; test_compat.py
checks that today's package loads each and that it compares equal to what the same calls
give now. Running it again with today's package rewrites them in today's form.
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import cvcclock
from cvcclock.scenario import FailedRun, simulate_many

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compat_world import SEEDS, CompatCar, recorder_run, state_and_step  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"


def main() -> None:
    DATA.mkdir(exist_ok=True)
    state, step = state_and_step()
    (DATA / "clock_state.pickle").write_bytes(pickle.dumps(state, protocol=4))
    (DATA / "step_result.pickle").write_bytes(pickle.dumps(step, protocol=4))
    trace = recorder_run().trace()
    trace.save(DATA / "spring.trace")
    results = DATA / "batch.jsonl"
    results.unlink(missing_ok=True)
    runs = list(simulate_many(CompatCar(), SEEDS, workers=1, out=results))
    assert any(isinstance(r, FailedRun) for r in runs), "the fixture keeps a failed run too"
    print(f"wrote {DATA} with cvcclock {cvcclock.__version__}")


if __name__ == "__main__":
    main()
