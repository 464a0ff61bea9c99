"""The state-tree key table: which tree key each of a binding's lanes reads or writes.

``WorldClockKeys`` names the keys; ``WorldClockBinding`` (in ``cvcclock.binding``) gives each
lane its behaviour. Keys are flat mapping keys: ``"sim.speed"`` is one key of the mapping,
not a path into nested mappings.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from cvcclock.checks import check_str

__all__ = ["WorldClockKeys"]


@dataclasses.dataclass(slots=True)
class WorldClockKeys:
    """The tree keys a ``WorldClockBinding`` reads and writes, one attribute per lane.

    Each attribute is a plain, mutable key (``keys.speed = "coast.clock.scale"``). An empty
    string or ``None`` turns that lane off: the binding never seeds, reads or writes it.
    ``WorldClockKeys()`` has every lane off; ``WorldClockKeys.under("sim")`` is the usual table.

    Attributes
    ----------
    speed : str or None
        Control: world seconds per wall second; 0 pauses.
    paused : str or None
        Control: a bool (``True``/``False``, ``numpy.bool_``, the integers 1/0,
        ``"1"``/``"0"``, ``"true"``/``"false"``).
    mode : str or None
        Control: a mode name, ``live``, ``lockstep``, ``paused``, ``stepping`` or ``replay``.
    lockstep_steps : str or None
        Control: quanta per frame in lockstep; an integer of at least 1.
    step : str or None
        Control: a request counter; each increment runs one quantum.
    time : str or None
        Telemetry: world seconds (float).
    tick : str or None
        Telemetry: the tick (int).
    fixed_dt : str or None
        Telemetry: the quantum in seconds (float).
    realized_speed : str or None
        Telemetry: world seconds run per wall second (float).
    dropped : str or None
        Telemetry: quanta the stall guard dropped since ``configure`` (int).

    Notes
    -----
    A binding copies the table when it is made (or when ``binding.keys`` is assigned), so
    changing a table afterwards does not reach a binding already using it.
    """

    speed: str | None = None
    paused: str | None = None
    mode: str | None = None
    lockstep_steps: str | None = None
    step: str | None = None
    time: str | None = None
    tick: str | None = None
    fixed_dt: str | None = None
    realized_speed: str | None = None
    dropped: str | None = None

    #: The control lanes, in the order a drive reads them.
    CONTROLS: ClassVar[tuple[str, ...]] = ("speed", "paused", "mode", "lockstep_steps", "step")
    #: The telemetry lanes, in the order a drive writes them.
    TELEMETRY: ClassVar[tuple[str, ...]] = ("time", "tick", "fixed_dt", "realized_speed",
                                            "dropped")

    @classmethod
    def under(cls, prefix: str = "sim") -> WorldClockKeys:
        """The full table with every key under ``prefix``.

        Parameters
        ----------
        prefix : str
            The keys' common prefix: ``"sim"`` gives ``sim.speed``, ``sim.tick``, ...; ``""``
            gives the bare names.

        Returns
        -------
        WorldClockKeys

        Raises
        ------
        TypeError
            If ``prefix`` is not a str.
        """
        check_str(prefix, "prefix")
        return cls(**{name: f"{prefix}.{name}" if prefix else name
                      for name in cls.CONTROLS + cls.TELEMETRY})

    @classmethod
    def for_scene(cls, *, speed: str, paused: str | None, time: str | None,
                  tick: str | None) -> WorldClockKeys:
        """A table for a host with its own keys for speed, paused, time and tick.

        The other lanes go beside the speed key: ``speed="clk.sim.speed"`` puts ``mode`` at
        ``clk.sim.mode``, ``step`` at ``clk.sim.step``, and so on.

        Parameters
        ----------
        speed : str
            The host's speed key; it must be a non-empty str, since the rest sit beside it.
        paused, time, tick : str or None
            The host's keys for those lanes; ``None`` or ``""`` turns a lane off.

        Returns
        -------
        WorldClockKeys

        Raises
        ------
        TypeError
            If a key is not a str (or None, for all but ``speed``).
        ValueError
            If ``speed`` is empty.
        """
        if not check_str(speed, "speed"):
            raise ValueError("speed must be a non-empty key: the other keys go beside it")
        own = {"speed": speed, "paused": paused, "time": time, "tick": tick}
        for name, key in own.items():
            _check_key(name, key)
        keys = cls.under(speed.rpartition(".")[0])
        for name, key in own.items():
            setattr(keys, name, key)
        return keys

    @classmethod
    def resolve(cls, keys: str | WorldClockKeys | None) -> WorldClockKeys:
        """A checked copy of the table ``keys`` names, as a binding takes it.

        Parameters
        ----------
        keys : str or WorldClockKeys or None
            A prefix for ``under`` (``None`` is ``"sim"``), or a table to check and copy.

        Returns
        -------
        WorldClockKeys
            A new table; changing it does not change ``keys``.

        Raises
        ------
        TypeError
            If ``keys`` is none of those, or one of its keys is neither a str nor None.
        ValueError
            If two lanes share a key.
        """
        if keys is None:
            return cls.under("sim")
        if isinstance(keys, str):
            return cls.under(keys)
        if not isinstance(keys, WorldClockKeys):
            raise TypeError(f"keys must be a prefix str, a WorldClockKeys or None, got {keys!r}")
        used: dict[str, str] = {}
        for name in keys.CONTROLS + keys.TELEMETRY:
            key = getattr(keys, name)
            _check_key(name, key)
            if key:
                if key in used:
                    raise ValueError(f"keys {used[key]} and {name} are both {key!r}")
                used[key] = name
        return dataclasses.replace(keys)


def _check_key(name: str, key: object) -> None:
    check_str(key, f"key {name}", optional=True)
