"""Shared fixtures: the parity suites run once against the Cython core, once against the oracle."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import cvcclock
import oracle

CORE = SimpleNamespace(
    name="core",
    Clock=cvcclock.WorldClock,
    Config=cvcclock.ClockConfig,
    Follower=cvcclock.ClockFollower,
    ticks_per_step=cvcclock.ticks_per_step,
)
ORACLE = SimpleNamespace(
    name="oracle",
    Clock=oracle.ModelClock,
    Config=oracle.ModelConfig,
    Follower=oracle.ModelFollower,
    ticks_per_step=oracle.model_ticks_per_step,
)


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
