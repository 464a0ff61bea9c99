"""Random streams by name: one ``numpy.random.Generator`` per (run seed, name).

A run draws its randomness from named streams rather than from one shared generator, so that
a new consumer (a new ``"wind"`` stream) never shifts the draws of the existing ones (the
``"spawn"`` stream draws what it drew before). Each stream is ``PCG64`` seeded by
``numpy.random.SeedSequence(seed, spawn_key=key(name))``, where ``key(name)`` is the sha256
of the name's UTF-8 bytes as eight 32-bit words. Python's ``hash()`` is never used: it is
salted per process, and a run must draw the same numbers in a fresh process and on another
platform. ``PCG64``'s bit stream is fixed by numpy on every platform; what a distribution
method (``normal``, ``integers``) makes of it follows numpy's own compatibility policy.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from cvcclock.checks import check_seed, check_stream_name

__all__ = ["RandomStreams", "name_key", "seed_sequence"]


def name_key(name: str) -> tuple[int, ...]:
    """The spawn key of stream ``name``: sha256 of its UTF-8 bytes as eight 32-bit words.

    Parameters
    ----------
    name : str
        The stream's name.

    Returns
    -------
    tuple of int
        Eight integers in [0, 2**32), the same on every platform and in every process.

    Raises
    ------
    TypeError, ValueError
        If ``name`` is not a str, or holds a lone surrogate (``check_stream_name``).
    """
    digest = hashlib.sha256(check_stream_name(name).encode("utf-8")).digest()
    return tuple(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 32, 4))


def seed_sequence(seed: int, name: str) -> np.random.SeedSequence:
    """The ``SeedSequence`` of stream ``name`` of the run seeded ``seed``.

    Parameters
    ----------
    seed : int
        The run's seed, a non-negative int of any size (``cvcclock.checks.check_seed``).
    name : str
        The stream's name.

    Returns
    -------
    numpy.random.SeedSequence
        ``SeedSequence(seed, spawn_key=name_key(name))``.

    Raises
    ------
    TypeError, ValueError
        If ``seed`` is not a non-negative integer, or ``name`` is not a stream's name
        (``cvcclock.checks.check_stream_name``).
    """
    return np.random.SeedSequence(check_seed(seed), spawn_key=name_key(name))


class RandomStreams:
    """The named random streams of one run.

    ``streams.get(name)`` returns the stream's generator, made on first use and the same
    object afterwards, so a stream continues where it left off. Include ``state()`` in a
    world's snapshot and hand it back to ``restore()`` for keyframes, seek and rollback.

    Parameters
    ----------
    seed : int
        The run's seed, a non-negative int of any size (``cvcclock.checks.check_seed``):
        any seed ``simulate`` gives a run (``SimulationResult.run_seed``) is one.

    Attributes
    ----------
    seed : int
        The run's seed.

    Raises
    ------
    TypeError, ValueError
        If ``seed`` is not a non-negative integer.

    Examples
    --------
    >>> from cvcclock.seeding import RandomStreams
    >>> streams = RandomStreams(7)
    >>> spawn = streams.get("spawn").integers(0, 100, 3)
    >>> wind = streams.get("wind").normal()          # a new consumer
    >>> bool((RandomStreams(7).get("spawn").integers(0, 100, 3) == spawn).all())
    True
    """

    def __init__(self, seed: int) -> None:
        self.seed = check_seed(seed)
        self._streams: dict[str, np.random.Generator] = {}

    def get(self, name: str) -> np.random.Generator:
        """The generator of stream ``name``, made on first use.

        Parameters
        ----------
        name : str
            The stream's name.

        Returns
        -------
        numpy.random.Generator
            A ``PCG64`` generator; the same object on every call with this name.

        Raises
        ------
        TypeError, ValueError
            If ``name`` is not a str, or holds a lone surrogate
            (``cvcclock.checks.check_stream_name``); nothing is made then.
        """
        # Only checked names are stored, so a str found needs no check; anything else (a
        # list cannot even be looked up) is judged by the rule before the lookup.
        stream = self._streams.get(name) if type(name) is str else None
        if stream is None:
            check_stream_name(name)
            stream = np.random.Generator(np.random.PCG64(seed_sequence(self.seed, name)))
            self._streams[name] = stream
        return stream

    @property
    def names(self) -> tuple[str, ...]:
        """The streams made so far, in the order they were first used."""
        return tuple(self._streams)

    def state(self) -> dict[str, dict[str, Any]]:
        """Every stream's position: ``{name: bit_generator.state}``, a picklable value.

        Returns
        -------
        dict
            A new dict each call; comparing two with ``==`` tells whether the streams stand
            at the same place.
        """
        return {name: dict(stream.bit_generator.state) for name, stream in self._streams.items()}

    def restore(self, state: Mapping[str, Mapping[str, Any]]) -> None:
        """Put every stream back where ``state()`` found it.

        A stream first used after that ``state()`` is forgotten: made again on its next use,
        it draws what it drew the first time.

        Parameters
        ----------
        state : mapping
            What ``state()`` returned.

        Raises
        ------
        TypeError, ValueError
            If ``state`` is not such a mapping; nothing is changed then.
        """
        if not isinstance(state, Mapping):
            raise TypeError(f"state must be what RandomStreams.state() returned, got {state!r}")
        streams = {}
        for name, position in state.items():
            check_stream_name(name, "a stream name in state")
            stream = np.random.Generator(np.random.PCG64(seed_sequence(self.seed, name)))
            stream.bit_generator.state = position
            streams[name] = stream
        self._streams = streams

    def __repr__(self) -> str:
        return f"RandomStreams(seed={self.seed}, names={list(self._streams)})"
