"""The timer queue under load: many timers, random pauses, cancels and widths, against the
oracle (which finds the next timer by a plain minimum over all of them)."""

import random

import pytest

from support.implementations import CORE, ORACLE


def drive(impl, seed, n_timers=200, steps=250):
    rng = random.Random(seed)
    clock = impl.Clock(impl.Config(fixed_dt=0.01))
    log, timers = [], []
    for i in range(n_timers):
        period = rng.choice([1, 2, 3, 5, 7, 10, 50])
        catch_up = rng.choice(["each", "coalesce"])
        if rng.random() < 0.2:
            timers.append(clock.after_ticks(rng.randint(1, 300),
                                            lambda tick, i=i: log.append((i, tick))))
        else:
            timers.append(clock.every_ticks(
                period, lambda tick, *count, i=i: log.append((i, tick, *count)),
                catch_up=catch_up))
    for _ in range(steps):
        op = rng.random()
        timer = rng.choice(timers)
        if op < 0.1:
            timer.pause()
        elif op < 0.2:
            timer.resume()
        elif op < 0.23:
            timer.cancel()
        else:
            clock.advance_ticks(rng.choice([0, 1, 1, 2, 5, 17]))
        log.append(("next", clock.next_due_tick))
    return log, [(t.active, t.paused, t.next_tick, t.fired) for t in timers]


@pytest.mark.parametrize("seed", range(4))
def test_the_queue_fires_what_the_oracle_fires(seed):
    assert drive(CORE, seed) == drive(ORACLE, seed)
