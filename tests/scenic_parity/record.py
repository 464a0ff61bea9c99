"""Save Scenic's outcome of every case: ``python tests/scenic_parity/record.py`` (needs Scenic).

The saved outcomes are what tests/test_scenario_scenic.py holds cvcclock to where Scenic is
not installed, and what the differential suite checks Scenic still gives.
"""

import json
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scenic_parity.cases import CASES  # noqa: E402
from scenic_parity.harness import RECORDED, scenic_outcome  # noqa: E402


def main() -> None:
    warnings.simplefilter("ignore")
    outcomes = {name: scenic_outcome(case) for name, case in sorted(CASES.items())}
    lines = (f"{json.dumps(name)}: {json.dumps(outcome, sort_keys=True)}"
             for name, outcome in outcomes.items())
    RECORDED.write_text("{\n" + ",\n".join(lines) + "\n}\n")     # one case a line
    print(f"{len(outcomes)} outcomes saved to {RECORDED}")


if __name__ == "__main__":
    main()
