"""Shared fixtures: the parity suites run once against the Cython core, once against the oracle."""

from __future__ import annotations

import signal

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


def pytest_configure(config):
    """Ctrl-C as Python sets it up, whatever started the suite: a shell that runs a command in
    the background without job control starts it with SIGINT ignored, Python then installs no
    handler, and the tests of what a Ctrl-C does (and the processes they start, which inherit
    the ignored signal) would test nothing."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
