"""The SyncTest session: every frame rolled back and re-simulated, its states compared."""

from __future__ import annotations

from typing import Any

from cvcclock._core import WorldClock
from cvcclock.checks import check_count, check_small_json
from cvcclock.netplay._events import DesyncError, first_difference
from cvcclock.netplay._frames import MAX_INPUT_BYTES, NULL, Frames
from cvcclock.replay import StateHash, World

__all__ = ["SyncTestSession"]


class SyncTestSession:
    """Prove a world rollback-safe: each frame is run, then the last ``check_distance``
    frames are rolled back and re-simulated with the same inputs, and every state hash of
    the re-simulation must equal the first run's.

    The host gives every player's input (``add_local_input(value, player=k)``; each holds
    until replaced), drives the clock as usual and calls ``pump()``, as with a
    :class:`P2PSession`. A world that reads anything its snapshot does not hold (a global
    counter, the wall clock, an unseeded random generator, an object it keeps across
    ``restore``) re-simulates to another state, and ``pump()`` raises
    :class:`DesyncError` naming the first frame that differs.

    Parameters
    ----------
    world : World
        The world (``step``, ``apply``, ``snapshot``, ``restore``).
    clock : WorldClock
        The clock it follows; frame 0 is its follower's first due step after now.
    players : int
        The number of players, 1 to 64; the world receives ``p0``, ``p1``, ... each frame.
    dt : float, optional
        The frame's step in seconds, a whole number of quanta; one quantum by default.
    check_distance : int
        How many frames each check rolls back and re-simulates, 1 to 64.
    state_hash : callable, optional
        ``state_hash(snapshot) -> str``; :func:`cvcclock.replay.default_state_hash` by
        default.

    Raises
    ------
    TypeError, ValueError
        For a bad argument, naming it; the clock is not touched.
    """

    def __init__(self, world: World, clock: WorldClock, *, players: int = 1,
                 dt: float | None = None, check_distance: int = 2,
                 state_hash: StateHash | None = None) -> None:
        self._frames = Frames(world, clock, players, dt, state_hash)
        self.check_distance = check_count(check_distance, "check_distance", minimum=1,
                                          maximum=64)
        self._held = [NULL] * self._frames.players
        self._inputs: dict[int, tuple[str, ...]] = {}
        self._hashes: dict[int, str] = {}
        self._checked = 0
        self._resimulated = 0
        self._frames.start()

    @property
    def frame(self) -> int:
        """The frames run so far (the next frame's number)."""
        return self._frames.frame

    @property
    def checks(self) -> int:
        """The rollbacks made and compared so far."""
        return self._checked

    @property
    def frames_resimulated(self) -> int:
        """The frames re-simulated by the checks."""
        return self._resimulated

    def add_local_input(self, value: Any, player: int = 0) -> None:
        """Set ``player``'s input for the frames run from now on, until replaced.

        Parameters
        ----------
        value : JSON value
            A small JSON value (at most 128 bytes as compact JSON); the world receives it
            decoded from JSON, exactly as a remote peer would.
        player : int
            The player, from 0.

        Raises
        ------
        TypeError, ValueError
            For a value JSON cannot hold or too long, or a player out of range; the held
            inputs are not changed.
        """
        player = check_count(player, "player", maximum=self._frames.players - 1)
        self._held[player] = check_small_json(value, "value", MAX_INPUT_BYTES)

    def pump(self) -> int:
        """Run the frames that fell due, each followed by its check.

        Returns
        -------
        int
            The frames run (re-simulations not counted).

        Raises
        ------
        DesyncError
            When a re-simulated state differs from the first run's (or a restored state
            from the saved one); the frame and both hashes are named.
        Exception
            Whatever the world raises.
        """
        ran = 0
        for _ in range(self._frames.due()):
            self._run_frame()
            self._check()
            ran += 1
        return ran

    # -- phases ----------------------------------------------------------------------------

    def _run_frame(self) -> None:
        frames = self._frames
        f = frames.frame
        inputs = self._inputs[f] = tuple(self._held)
        frames.run(f, inputs)
        self._hashes[f] = frames.hash_of(f)
        frames.frame = f + 1

    def _check(self) -> None:
        """Roll back over the last ``check_distance`` frames and re-simulate them."""
        frames = self._frames
        last = frames.frame - 1
        first = max(0, last - self.check_distance + 1)
        frames.restore(first - 1)
        restored = frames.state_hash(frames.world.snapshot())
        expected = frames.hash_of(first - 1)
        if restored != expected:
            raise DesyncError(first - 1, expected, restored, self._field(first - 1),
                              what="restored")
        for f in range(first, last + 1):
            before = frames.saved[f]
            after = frames.run(f, self._inputs[f])
            again = frames.state_hash(after)
            if again != self._hashes[f]:
                raise DesyncError(f, self._hashes[f], again, first_difference(before, after))
            self._resimulated += 1
        self._checked += 1
        keep = last - self.check_distance
        frames.forget_before(keep)
        for old in [f for f in self._inputs if f < keep]:
            del self._inputs[old]
            self._hashes.pop(old, None)

    def _field(self, frame: int) -> str | None:
        return first_difference(self._frames.saved[frame], self._frames.world.snapshot())

    def __repr__(self) -> str:
        return (f"SyncTestSession({self._frames.world!r}, players={self._frames.players}, "
                f"frame={self.frame}, check_distance={self.check_distance})")
