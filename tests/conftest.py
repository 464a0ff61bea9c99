"""Shared fixtures: the parity suites run once against the Cython core, once against the oracle."""

from __future__ import annotations

import pytest

from support.implementations import CORE, ORACLE


@pytest.fixture(params=[CORE, ORACLE], ids=lambda impl: impl.name)
def impl(request):
    """One implementation of the clock's semantics: the core or the oracle."""
    return request.param


@pytest.fixture
def make_clock(impl):
    """Build a clock of the implementation under test from config keywords."""

    def make(**config):
        return impl.Clock(impl.Config(**config))

    return make
