"""One driver, many readers and followers: the core under contention.

The rule (src/_core/threads.pxi): one driver thread changes a clock; any thread may read
``tick``, ``t`` and ``alpha``, take its own follower, wait for a tick change, enter
``presenting()`` and read a SimThread. On a free-threaded CPython (3.13t, 3.14t) with the
GIL off these threads really run at once; under the GIL they are ordinary threading tests,
with a short switch interval so that they interleave often.

Every round drives for a bounded number of frames and a bounded time, and every thread is
joined with a timeout. ``CVCCLOCK_STRESS_ROUNDS`` (default 2) sets how many seeded rounds
each shape runs: the free-threaded CI stage runs more.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import sysconfig
import threading
import time
import traceback
from collections.abc import Callable

import pytest

from cvcclock import ClockConfig, ClockFollower, Mode, StepResult, WorldClock
from cvcclock.threads import SimThread
from support.held_driver import driver_held_in_a_callback
from support.worlds import Spring

FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
ROUNDS = int(os.environ.get("CVCCLOCK_STRESS_ROUNDS", "2"))
WAIT = 30.0          # a deadlock guard on every join and wait, never a timing assertion
DRIVE_FOR = 0.25     # seconds of driving per round at most (fewer frames on a slow machine)


@pytest.fixture(autouse=True)
def _interleave_often():
    """Under the GIL, hand it over every 10 us rather than every 5 ms."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(before)


class Crew:
    """Threads started together beside the driver; each failure is kept, with its traceback."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.errors: list[str] = []
        self._bodies: list[Callable[[], object]] = []
        self._threads: list[threading.Thread] = []

    def add(self, body: Callable[[], object]) -> None:
        self._bodies.append(body)

    def run(self, drive: Callable[[], object]) -> None:
        """Start the crew, drive on this thread once every member runs, stop the crew and
        join it (bounded)."""
        ready = threading.Barrier(len(self._bodies) + 1)

        def member(body: Callable[[], object]) -> None:
            try:
                ready.wait(WAIT)
                body()
            except BaseException:   # noqa: BLE001 - reported by run() on the main thread
                self.errors.append(traceback.format_exc())

        self._threads = [threading.Thread(target=member, args=(body,), daemon=True)
                         for body in self._bodies]
        for thread in self._threads:
            thread.start()
        try:
            ready.wait(WAIT)
            drive()
        finally:
            self.done.set()
            for thread in self._threads:
                thread.join(WAIT)
        assert not [t for t in self._threads if t.is_alive()], "a crew thread is stuck"
        assert not self.errors, self.errors[0]


def frames_for(seed: int, count: int) -> list[float]:
    """Wall times of a live run: idle frames, frames of a few quanta, stalls the guard caps."""
    rng = random.Random(seed)
    return [rng.choice([0.0, 0.004, 0.01, 0.017, 0.033, 0.2]) for _ in range(count)]


def drive_frames(clock: WorldClock, walls: list[float], results: list[StepResult]) -> None:
    deadline = time.perf_counter() + DRIVE_FOR
    for wall in walls:
        results.append(clock.advance(wall))
        if time.perf_counter() > deadline:
            break


def check_result(r: StepResult, cap: int) -> None:
    """A StepResult's fields agree with one another and with the stall guard."""
    assert r.last_tick == r.first_tick + r.steps
    assert 0 <= r.steps <= cap and r.dropped >= 0 and 0.0 <= r.alpha < 1.0
    assert r == StepResult(r.steps, r.first_tick, r.dropped, r.alpha)


# -- one driver, and readers, followers, waiters and presenters ---------------------------------


SHAPES = [(1, 1), (2, 3), (4, 2), (8, 8)]   # (readers, followers)


@pytest.mark.parametrize("round_", range(ROUNDS))
@pytest.mark.parametrize(("readers", "followers"), SHAPES, ids=lambda n: str(n))
def test_readers_and_followers_never_see_a_torn_clock(readers, followers, round_):
    cap = 4
    clock = WorldClock(ClockConfig(fixed_dt=0.01, max_steps_per_advance=cap))
    walls = frames_for(1000 * round_ + 10 * readers + followers, 100_000)
    results: list[StepResult] = []
    crew = Crew()

    def reader() -> None:
        last_tick, last_t = -1, -1.0
        while not crew.done.is_set():
            tick, t, alpha = clock.tick, clock.t, clock.alpha
            assert tick >= last_tick and t >= last_t, (last_tick, tick, last_t, t)
            assert t == round(t / 0.01) * 0.01 and 0.0 <= alpha < 1.0
            last_tick, last_t = tick, t
            if results:
                r = results[-1]
                check_result(r, cap)
                assert r.last_tick <= clock.tick   # published after its ticks ran

    def follower(k: int) -> None:
        f = ClockFollower(k)
        total = 0
        while not crew.done.is_set():
            total += f.take(clock)
        total += f.take(clock)   # the driver has stopped: the rest
        assert total == clock.tick // k, (k, total, clock.tick)

    def due_follower(k: int) -> None:
        f = ClockFollower(k)
        dues: list[int] = []
        while not crew.done.is_set():
            dues.extend(f.take_due(clock))
        dues.extend(f.take_due(clock))
        assert dues == list(range(k, clock.tick + 1, k))

    shared = ClockFollower(3)
    shared_totals: list[int] = []

    def shared_follower() -> None:
        # Two threads on one follower: the rule says its owner takes, but two takes must
        # still never count a step twice or lose one.
        total = 0
        while not crew.done.is_set():
            total += shared.take(clock)
        shared_totals.append(total + shared.take(clock))

    def waiter() -> None:
        seen = clock.tick
        while not crew.done.is_set():
            new = clock.wait_for_tick_change(seen, 0.05)
            if new is not None:
                assert new > seen
                seen = new

    def presenter() -> None:
        while not crew.done.is_set():
            with clock.presenting():
                assert clock.tick >= 0

    for _ in range(readers):
        crew.add(reader)
    for i in range(followers):
        crew.add(lambda k=i + 1: (follower if k % 2 else due_follower)(k))
    for _ in range(2):
        crew.add(shared_follower)
    crew.add(waiter)
    crew.add(presenter)
    crew.run(lambda: drive_frames(clock, walls, results))

    assert sum(shared_totals) == clock.tick // 3
    # The readers changed nothing: the same frames on a clock nobody else touched agree.
    alone = WorldClock(ClockConfig(fixed_dt=0.01, max_steps_per_advance=cap))
    assert results == [alone.advance(wall) for wall in walls[:len(results)]]
    assert clock.state() == alone.state()


def test_a_wake_up_is_never_lost():
    """Ping-pong: the driver moves the tick just as the waiter registers, thousands of times;
    a lost wake-up would leave the waiter asleep until its (long) timeout."""
    clock = WorldClock()
    seen = [0]
    rounds = 3000
    crew = Crew()

    def waiter() -> None:
        for _ in range(rounds):
            new = clock.wait_for_tick_change(seen[0], WAIT)
            assert new is not None and new == seen[0] + 1, (seen[0], new)
            seen[0] = new

    def drive() -> None:
        for i in range(rounds):
            clock.step_once()
            deadline = time.perf_counter() + WAIT
            while seen[0] != i + 1:
                assert time.perf_counter() < deadline, "the waiter never woke"
                time.sleep(0)

    crew.add(waiter)
    crew.run(drive)
    assert clock.tick == rounds


# -- discontinuities: configure, seek_tick and restore against followers and readers -----------


BIG = 10**9      # a seek's jump: a take that mixed the new tick with the old count would count it
SMALL = 60       # quanta run in one epoch, at most


@pytest.mark.parametrize("round_", range(ROUNDS))
@pytest.mark.parametrize("threads", [1, 3, 6])
def test_a_discontinuity_is_seen_whole_by_every_reader_and_follower(threads, round_):
    clock = WorldClock(ClockConfig(fixed_dt=1e-3))
    clock.mode = Mode.REPLAY
    start = clock.state()
    rng = random.Random(round_ * 10 + threads)
    crew = Crew()

    def follower(f: ClockFollower) -> None:
        k = f.period
        while not crew.done.is_set():
            n = f.take(clock)
            # Within one epoch at most SMALL quanta run; a take that paired a new tick with
            # an old discontinuity count would count the seek's jump.
            assert n <= SMALL // k + 1, (k, n)

    def reader() -> None:
        while not crew.done.is_set():
            t = clock.t
            tick = clock.tick
            # Each t is one configuration's tick * fixed_dt: whole seconds (fixed_dt 1.0)
            # near 0 or past the seek, or under SMALL milliseconds (fixed_dt 1e-3).
            assert t <= SMALL * 1e-3 + 1e-12 or t == int(t) and (t <= SMALL or t >= BIG), t
            assert tick <= SMALL or BIG <= tick <= BIG + SMALL, tick

    def drive() -> None:
        deadline = time.perf_counter() + DRIVE_FOR
        for epoch in range(400):
            kind = epoch % 3
            if kind == 0:
                clock.configure(ClockConfig(fixed_dt=1.0))
                clock.seek_tick(BIG)
            elif kind == 1:
                clock.configure(ClockConfig(fixed_dt=1e-3))
            else:
                clock.restore(start)
            ran = 0
            while ran < SMALL - 5:
                ran += clock.advance_ticks(rng.randint(1, 5)).steps
            if time.perf_counter() > deadline:
                break

    for i in range(threads):
        made = ClockFollower.for_step(clock, (i % 3 + 1) * 1e-3)   # before the first configure
        crew.add(lambda f=made: follower(f))
        crew.add(reader)
    crew.run(drive)


# -- SimThreads under contention equal direct stepping -------------------------------------------


def pace_for(seed: int) -> Callable[[WorldClock], object]:
    rng = random.Random(seed)
    return lambda clock: clock.advance(rng.choice([0.0, 1 / 60, 1 / 30, 0.1]))


def direct_frames(periods: list[int], frames: int, seed: int) -> list[list[tuple]]:
    """What stepping each world directly on the driving thread shows after each frame."""
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    pace = pace_for(seed)
    worlds = [(Spring(), ClockFollower(k), k * 0.01) for k in periods]
    shown = [(0, w.snapshot()) for w, _, _ in worlds]
    out = []
    for _ in range(frames):
        pace(clock)
        for i, (world, follower, dt) in enumerate(worlds):
            for due in follower.take_due(clock):
                world.step(dt)
                shown[i] = (due, world.snapshot())
        out.append(list(shown))
    return out


@pytest.mark.parametrize("round_", range(ROUNDS))
@pytest.mark.parametrize(("sims", "readers"), [(1, 0), (2, 2), (4, 4)], ids=lambda n: str(n))
def test_simthreads_under_contention_equal_direct_stepping(sims, readers, round_):
    periods = [1, 2, 3, 6][:sims]
    seed = 100 * round_ + sims
    frames = 150
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    pace = pace_for(seed)
    crew = Crew()
    out: list[list[tuple]] = []
    with_sims = [SimThread(Spring(), clock, k * 0.01) for k in periods]

    def reader() -> None:
        last = [-1] * sims
        while not crew.done.is_set():
            for _ in range(50):
                for i, sim in enumerate(with_sims):
                    tick, (n, _, _) = sim.read()
                    assert tick == n * sim.period and tick >= last[i]
                    last[i] = tick
            time.sleep(1e-4)   # leave the workers a core: more readers than cores spin

    def drive() -> None:
        for _ in range(frames):
            pace(clock)
            for sim in with_sims:
                assert sim.wait_caught_up(WAIT)
            out.append([sim.read() for sim in with_sims])

    for _ in range(readers):
        crew.add(reader)
    try:
        crew.run(drive)
    finally:
        for sim in with_sims:
            sim.close()
    assert out == direct_frames(periods, frames, seed)


# -- what the rule refuses ------------------------------------------------------------------------


def test_a_second_thread_cannot_advance_while_a_callback_runs_on_the_driver():
    """Another thread's advancing call during a timer callback is refused and changes
    nothing (free-threaded builds refuse every driver call then: it would tear the queue)."""
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    with driver_held_in_a_callback(clock, WAIT) as other:
        before = (clock.tick, clock.owed, clock.frame)
        message = "another thread" if FREE_THREADED else "inside a timer callback"
        with pytest.raises(RuntimeError, match=message):
            clock.advance(0.5)
        with pytest.raises(RuntimeError, match=message):
            clock.step_once()
        if FREE_THREADED:
            for call in (other.cancel, other.pause, lambda: clock.after_ticks(1, print),
                         clock.state, lambda: clock.configure(ClockConfig())):
                with pytest.raises(RuntimeError, match="another thread is advancing or changing"):
                    call()
        assert (clock.tick, clock.owed, clock.frame) == before == (2, 1, 0)
    assert clock.tick == 3 and other.active and other.next_tick == 5


def test_the_new_driver_calls_from_another_thread_during_a_callback_are_refused():
    """While a callback runs on the driver, another thread's advance_to_next_due is refused
    on every build; on a free-threaded build pause, resume and cancel_all are too (they
    would race the driver's mode and timer queue). alpha_of is any thread's read."""
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    with driver_held_in_a_callback(clock, WAIT) as other:
        before = (clock.tick, clock.owed, clock.mode)
        message = "another thread" if FREE_THREADED else "inside a timer callback"
        with pytest.raises(RuntimeError, match=message):
            clock.advance_to_next_due()
        if FREE_THREADED:
            for call in (clock.pause, clock.resume, lambda: clock.cancel_all(print)):
                with pytest.raises(RuntimeError, match="another thread is advancing or changing"):
                    call()
        assert ClockFollower(1).alpha_of(clock) == 0.0
        assert (clock.tick, clock.owed, clock.mode) == before == (2, 1, Mode.LIVE)
    assert clock.tick == 3 and other.active


def test_calls_from_a_callback_on_the_driver_thread_are_the_drivers_own():
    clock = WorldClock(ClockConfig(fixed_dt=0.01))
    follower = ClockFollower(1)
    seen = []

    def callback(tick: int) -> None:
        later = clock.after_ticks(10, print)
        later.pause()
        later.resume()
        later.cancel()
        seen.append((tick, follower.take(clock), clock.t, clock.state().tick))

    clock.every_ticks(2, callback)
    clock.advance_ticks(4)
    assert seen == [(2, 2, 0.02, 2), (4, 2, 0.04, 4)]


# -- the GIL stays off ---------------------------------------------------------------------------


def test_importing_cvcclock_leaves_the_gil_as_the_build_has_it():
    """On a free-threaded build the core declares that it runs without the GIL, so importing
    it neither warns nor turns the GIL back on; on a GIL build the GIL is simply on."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHON_GIL"}   # no override
    code = ("import sys, cvcclock, cvcclock.threads, cvcclock.loop; "
            "print(getattr(sys, '_is_gil_enabled', lambda: True)())")
    proc = subprocess.run([sys.executable, "-W", "error", "-c", code], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(not FREE_THREADED)
    assert "GIL" not in proc.stderr
