"""pytest fixtures for headless harnesses, registered through the ``pytest11`` entry point.

``world_clock`` gives each test a fresh clock, configured by the ``world_clock`` marker::

    @pytest.mark.world_clock(fixed_dt=0.01, mode="lockstep")
    def test_something(world_clock):
        world_clock.advance_ticks(world_clock.next_due_tick - world_clock.tick)

``clock_factory`` makes as many fresh clocks as a test needs, with the same keywords.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cvcclock import ClockConfig, Mode, WorldClock

ClockFactory = Callable[..., WorldClock]


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``world_clock`` marker."""
    config.addinivalue_line(
        "markers",
        "world_clock(**config): configure the world_clock fixture with ClockConfig "
        "keywords (fixed_dt, scale, max_steps_per_advance, cap_scales_with_rate, "
        "lockstep_steps) and optionally mode=",
    )


def make_clock(*, mode: Mode | str | None = None, **config: object) -> WorldClock:
    """A fresh ``WorldClock`` from ``ClockConfig`` keywords, in ``mode`` if given."""
    clock = WorldClock(ClockConfig(**config))  # type: ignore[arg-type]
    if mode is not None:
        clock.mode = mode
    return clock


@pytest.fixture
def clock_factory() -> ClockFactory:
    """Make fresh clocks: ``clock_factory(fixed_dt=0.01, mode="stepping")``."""
    return make_clock


@pytest.fixture
def world_clock(request: pytest.FixtureRequest) -> WorldClock:
    """A fresh clock per test, configured by the closest ``world_clock`` marker."""
    marker = request.node.get_closest_marker("world_clock")
    if marker is None:
        return make_clock()
    if marker.args:
        raise TypeError(f"the world_clock marker takes keywords only, got {marker.args!r}")
    return make_clock(**marker.kwargs)
