"""The differential suite: each program runs under Scenic 3.1.1's DummySimulator and, as its
cvcclock equivalent, under cvcclock's DummySimulator; the outcomes (per-step actions,
trajectory, termination type, records, rejected attempts) must be equal, except for the
documented differences, where cvcclock does what Scenic's documentation says.

Needs Scenic (``pip install 'cvcclock[scenic-parity]'``); skipped without it. Scenic's live
outcome must also still be the one saved in scenic_outcomes.json, which
tests/test_scenario_scenic.py holds cvcclock to where Scenic is not installed.
"""

import importlib.metadata
import warnings

import pytest

from .cases import CASES
from .harness import cvcclock_outcome, recorded, scenic_outcome

SCENIC = "3.1.1"

pytest.importorskip("scenic", reason=f"the differential suite runs Scenic {SCENIC}: "
                                     f"pip install 'cvcclock[scenic-parity]'")
if importlib.metadata.version("scenic") != SCENIC:
    pytest.skip(f"the saved outcomes are Scenic {SCENIC}'s, and Scenic "
                f"{importlib.metadata.version('scenic')} is installed", allow_module_level=True)


@pytest.fixture(scope="module")
def saved():
    return recorded()


def test_every_case_has_a_saved_outcome(saved):
    assert sorted(saved) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_cvcclock_does_what_scenic_does(name, saved):
    case = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # Scenic's own deprecation and geometry warnings
        scenic = scenic_outcome(case)
    assert scenic == saved[name], "Scenic no longer gives the saved outcome"
    if case.difference is None:
        assert cvcclock_outcome(case) == scenic
    else:
        assert case.expected != scenic, "a documented difference that is none"
        assert cvcclock_outcome(case) == case.expected, case.difference
