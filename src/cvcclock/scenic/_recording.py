"""The file ``PacedSimulator.start(..., record=PATH)`` writes: one text file per run.

Line-oriented, so damage is named by line::

    cvcclock-scenic 1
    header {"fixed_dt": ..., "timestep": ..., "maxSteps": ..., "seed": ..., ...}
    scene <base64 of Scenario.sceneToBytes(scene)>
    replay <base64 of Simulation.getReplay(), run with enableDivergenceCheck=True>
    input <step> <tick> <name as JSON> <value as JSON>     (zero or more)
    hash <step> <16 hex digits>                  (one per time step: state and actions)
    end {"steps": ..., "termination_type": ..., "termination_reason": ..., "trajectory": ...}

The header carries the sha256 of the scene and replay bytes, so a flipped or cut blob is
named too. An input line says at which Scenic step the run applied it (``give`` stamps it
with the clock's tick; the step is the first whose gate opened after that tick).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hashlib
import json
import os
import tempfile
from typing import Any

from cvcclock.checks import check_path

__all__ = ["FORMAT", "VERSION", "OperatorInput", "RecordingError", "ScenicRecording"]

FORMAT = "cvcclock-scenic"
VERSION = 1
_HEADER_FIELDS = ("fixed_dt", "timestep", "maxSteps", "seed", "scenic", "simulator",
                  "simulation", "cvcclock", "scene_sha256", "replay_sha256")
_END_FIELDS = ("steps", "termination_type", "termination_reason", "trajectory")


class RecordingError(ValueError):
    """A recording file that cannot be read: the message names the file, the line and why."""


@dataclasses.dataclass(frozen=True)
class OperatorInput:
    """An input given to a run with ``ScenicRun.give``.

    Attributes
    ----------
    step : int
        The Scenic step from which the program sees it (``operator_inputs()``).
    tick : int
        The clock's tick when it was given.
    name : str
        Its name.
    value : object
        Its value (JSON: None, bool, int, float, str, lists and str-keyed dicts of them).
    """

    step: int
    tick: int
    name: str
    value: Any


@dataclasses.dataclass(frozen=True)
class ScenicRecording:
    """A recorded Scenic run, as read from (or written to) its file.

    Attributes
    ----------
    header : dict
        ``fixed_dt``, ``timestep``, ``maxSteps``, ``seed``, the Scenic and cvcclock versions,
        the simulator's and simulation's classes (``module.Class``).
    scene : bytes
        ``Scenario.sceneToBytes(scene)``.
    replay : bytes
        Scenic's replay data, with divergence-check data.
    inputs : tuple of OperatorInput
        The operator inputs, in the order given.
    hashes : tuple of str
        ``step_hashes(result)``: index ``i`` is Scenic's time step ``i``, its state
        (``currentState()``) and the actions taken in it.
    end : dict
        ``steps``, ``termination_type``, ``termination_reason`` and ``trajectory`` (the
        result's ``trajectory_hash``).
    """

    header: dict[str, Any]
    scene: bytes
    replay: bytes
    inputs: tuple[OperatorInput, ...]
    hashes: tuple[str, ...]
    end: dict[str, Any]

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write the file at ``path`` whole: a reader never sees half of it.

        Parameters
        ----------
        path : str or os.PathLike

        Raises
        ------
        OSError
            If it cannot be written.
        """
        target = check_path(path, "path")
        header = dict(self.header, scene_sha256=_sha(self.scene),
                      replay_sha256=_sha(self.replay))
        lines = [f"{FORMAT} {VERSION}", "header " + json.dumps(header, sort_keys=True),
                 "scene " + base64.b64encode(self.scene).decode(),
                 "replay " + base64.b64encode(self.replay).decode()]
        lines += [f"input {i.step} {i.tick} {json.dumps(i.name)} {json.dumps(i.value)}"
                  for i in self.inputs]
        lines += [f"hash {step} {h}" for step, h in enumerate(self.hashes)]
        lines.append("end " + json.dumps(self.end, sort_keys=True))
        folder = os.path.dirname(os.path.abspath(target))
        fd, temporary = tempfile.mkstemp(prefix=".scenic-", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write("\n".join(lines) + "\n")
            os.replace(temporary, target)
        except BaseException:
            os.unlink(temporary)
            raise

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> ScenicRecording:
        """Read a recording.

        Parameters
        ----------
        path : str or os.PathLike

        Returns
        -------
        ScenicRecording

        Raises
        ------
        RecordingError
            If the file is not a recording, is of another version, or is damaged: the
            message names the line and what is wrong with it.
        OSError
            If it cannot be read.
        """
        name = check_path(path, "path")
        with open(name, encoding="utf-8", errors="replace") as f:
            text = f.read()
        return _Parser(name, text).parse()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class _Parser:
    """Reads a recording's lines in their fixed order, naming the line of any damage."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.number = 0

    def fail(self, why: str) -> RecordingError:
        return RecordingError(f"{self.path}, line {self.number}: {why}")

    def next(self, kind: str) -> str:
        self.number += 1
        if self.number > len(self.lines):
            raise self.fail(f"the file ends where a {kind!r} line should be (cut short?)")
        word, _, rest = self.lines[self.number - 1].partition(" ")
        if word != kind:
            raise self.fail(f"expected a {kind!r} line, found {word[:40]!r}")
        return rest

    def peek(self) -> str:
        line = self.lines[self.number] if self.number < len(self.lines) else ""
        return line.partition(" ")[0]

    def json_object(self, text: str, fields: tuple[str, ...], what: str) -> dict[str, Any]:
        try:
            value = json.loads(text)
        except ValueError as e:
            raise self.fail(f"the {what} is not valid JSON ({e})") from None
        if not isinstance(value, dict):
            raise self.fail(f"the {what} is not a JSON object")
        missing = [f for f in fields if f not in value]
        if missing:
            raise self.fail(f"the {what} lacks {', '.join(missing)}")
        return value

    def blob(self, kind: str, digest: str) -> bytes:
        text = self.next(kind)
        try:
            data = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise self.fail(f"the {kind} data is not valid base64") from None
        if _sha(data) != digest:
            raise self.fail(f"the {kind} data does not match the header's sha256 (damaged)")
        return data

    def parse(self) -> ScenicRecording:
        self.number = 1
        first = self.lines[0] if self.lines else ""
        magic, _, version = first.partition(" ")
        if magic != FORMAT:
            raise self.fail(f"not a cvcclock Scenic recording (it starts {first[:40]!r})")
        if version != str(VERSION):
            raise self.fail(f"a recording of version {version!r}; this cvcclock reads "
                            f"version {VERSION}")
        header = self.json_object(self.next("header"), _HEADER_FIELDS, "header")
        scene = self.blob("scene", header["scene_sha256"])
        replay = self.blob("replay", header["replay_sha256"])
        inputs = []
        while self.peek() == "input":
            inputs.append(self.operator_input(self.next("input")))
        hashes: list[str] = []
        while self.peek() == "hash":
            hashes.append(self.state_hash(self.next("hash"), len(hashes)))
        end = self.json_object(self.next("end"), _END_FIELDS, "end record")
        if self.number != len(self.lines):
            self.number += 1
            raise self.fail("unexpected text after the end record")
        if end["steps"] != len(hashes) - 1:
            raise self.fail(f"the end record says {end['steps']!r} steps but the file holds "
                            f"{len(hashes)} state hashes (steps + 1 expected)")
        return ScenicRecording(header, scene, replay, tuple(inputs), tuple(hashes), end)

    def operator_input(self, text: str) -> OperatorInput:
        step, tick, rest = (text.split(" ", 2) + ["", ""])[:3]
        try:
            decoder = json.JSONDecoder()
            name, at = decoder.raw_decode(rest)
            value = json.loads(rest[at:])
            return OperatorInput(int(step), int(tick), str(name), value)
        except ValueError:
            raise self.fail("an input line must be 'input STEP TICK NAME VALUE' "
                            "(integers, then JSON)") from None

    def state_hash(self, text: str, expected: int) -> str:
        step, _, digest = text.partition(" ")
        if step != str(expected):
            raise self.fail(f"expected the hash of step {expected}, found step {step[:20]!r}")
        if len(digest) != 16 or any(c not in "0123456789abcdef" for c in digest):
            raise self.fail(f"the hash of step {step} is not 16 hex digits")
        return digest
