"""Record, replay, seek and roll back a world that follows the clock.

A world is stepped by an :class:`InputFollower`, which owns its step loop: each time the host
calls ``pump()`` it takes the steps that fell due (``ClockFollower.take_due``) and, before
each step due at tick ``d``, applies every input stamped before ``d`` that it has not yet
applied. An input given while ``clock.tick == T`` is stamped ``T``, so it reaches the world
just before the world's first step due at a tick greater than ``T``: in the recording and in
every replay, under any pacing, and whenever the host gives it or pumps. The host never
applies an input itself, so it cannot apply one at the wrong step.

- :class:`Recorder` records the inputs a user gives (``give``), keeps a keyframe (the
  world's snapshot and ``clock.state()``) every N steps and, optionally, a state hash every K
  steps, and rolls the world back for an input that arrives late (``give_late``: a network
  peer's input stamped in the past). ``trace()`` is the :class:`InputTrace` to save.
- :class:`Replayer` plays a trace back, checking the recorded hashes
  (:class:`DivergenceError` names the first tick whose state differs), and seeks
  (``seek(tick)``) from the nearest keyframe, keeping the user's transport (speed, mode,
  lockstep steps) unless told otherwise.
- ``follow(world, dt)`` on either adds a follower at another rate that applies the same
  inputs at its own steps.

The default state hash, :func:`default_state_hash`, is blake2b (16 bytes) of the snapshot's
pickle (protocol 4, without the memo, so that equal states hash equal whichever of their
parts are shared objects): it is stable across processes and platforms for snapshots built
of tuples, lists, dicts, numbers, str, bytes and numpy arrays; not for sets (their order
follows the salted ``hash()``) or objects whose pickle is not canonical. Pass ``state_hash``
for anything else.
"""

from __future__ import annotations

from cvcclock._public import publish
from cvcclock.replay._follower import InputFollower, Keyframe, StateHash, World, default_state_hash
from cvcclock.replay._recorder import Recorder
from cvcclock.replay._replayer import Divergence, DivergenceError, Replayer
from cvcclock.replay._trace import (
    FORMAT_VERSION,
    Input,
    InputTrace,
    JSONValue,
    TraceFormatError,
    TraceHeader,
)

__all__ = ["Divergence", "DivergenceError", "FORMAT_VERSION", "Input", "InputFollower",
           "InputTrace", "JSONValue", "Keyframe", "Recorder", "Replayer", "StateHash",
           "TraceFormatError", "TraceHeader", "World", "default_state_hash"]

publish(__name__, globals(), __all__)
