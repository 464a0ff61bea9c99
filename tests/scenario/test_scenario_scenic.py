"""cvcclock runs every program of the differential suite (tests/scenic_parity) to the outcome
Scenic 3.1.1 gave when it ran the Scenic original (saved in scenic_outcomes.json by
scenic_parity/record.py), or, for a documented difference, to what Scenic's documentation
says. Needs no Scenic: the differential suite itself checks the saved outcomes are live.
"""

import pytest

from scenic_parity.cases import CASES
from scenic_parity.cases_issue import DIFFERENCES
from scenic_parity.harness import cvcclock_outcome, recorded

SAVED = recorded()


def test_every_case_has_a_saved_outcome():
    assert sorted(SAVED) == sorted(CASES)
    assert set(DIFFERENCES) == {name for name, case in CASES.items() if case.difference}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_program_runs_as_scenic_ran_it(name):
    case = CASES[name]
    want = SAVED[name] if case.difference is None else case.expected
    assert cvcclock_outcome(case) == want


@pytest.mark.parametrize("name", sorted(DIFFERENCES))
def test_each_documented_difference_differs_from_the_saved_scenic_outcome(name):
    assert CASES[name].expected != SAVED[name]
