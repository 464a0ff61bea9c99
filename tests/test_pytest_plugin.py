"""The pytest plugin: fixtures a headless harness gets by installing cvcclock."""

import pytest

pytest_plugins = ["pytester"]


def test_world_clock_fixture_is_fresh_and_default(world_clock):
    assert (world_clock.tick, world_clock.fixed_dt, world_clock.mode) == (0, 1 / 120, "live")


@pytest.mark.world_clock(fixed_dt=0.01, mode="stepping", max_steps_per_advance=3)
def test_world_clock_marker_configures_it(world_clock):
    assert world_clock.config.fixed_dt == 0.01
    assert world_clock.config.max_steps_per_advance == 3
    assert world_clock.mode == "stepping"


def test_clock_factory_makes_independent_clocks(clock_factory):
    a, b = clock_factory(fixed_dt=0.01), clock_factory(fixed_dt=0.02, mode="lockstep")
    a.advance_ticks(5)
    assert (a.tick, b.tick, b.mode) == (5, 0, "lockstep")


def test_plugin_loads_through_the_entry_point(pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.world_clock(fixed_dt=0.01)
        def test_jump_to_next_event(world_clock):
            fired = []
            world_clock.after(2.5, fired.append)
            world_clock.advance_ticks(world_clock.next_due_tick - world_clock.tick)
            assert fired == [250] and world_clock.t == 2.5

        def test_isolated(world_clock):
            assert world_clock.tick == 0 and world_clock.next_due_tick is None
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--strict-markers")
    result.assert_outcomes(passed=2)


def test_bad_marker_values_are_reported(pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.world_clock(fixed_dt=0.0)
        def test_bad(world_clock):
            pass
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fixed_dt must be finite*0.0*"])
