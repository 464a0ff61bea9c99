"""Every case of the differential suite, by name."""

from __future__ import annotations

from . import cases_dynamics, cases_issue, cases_modular, cases_semantics

CASES = {case.name: case
         for case in cases_dynamics.CASES + cases_modular.CASES + cases_issue.CASES
         + cases_semantics.CASES}
