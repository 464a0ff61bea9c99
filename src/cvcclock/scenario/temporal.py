"""Temporal requirements as Scenic 3 has them: ``always``, ``eventually``, ``until``,
``next`` and ``implies``, nested freely, checked once per time step with Scenic's semantics.

A formula is made of the operator classes below and atoms, which are callables of no
arguments (``lambda: car.speed < 30``); ``Scope.require(formula)`` registers it. Each time
step the scope runs (first thing in its step, where Scenic updates its requirement
monitors) every atom is evaluated once and the formula is valued over the steps so far in
RV-LTL's four values, exactly as Scenic's ``rv_ltl`` monitors value it: ``TRUE``,
``PRESUMABLY_TRUE`` (``always p`` while ``p`` has held), ``PRESUMABLY_FALSE`` (``eventually p``
before ``p``; ``next p`` at the last step) and ``FALSE``. ``FALSE`` rejects the attempt at once;
a value still presumably false when the scenario stops rejects it then.

Scenic's operators are sugar over ``until``, and so are these: ``Eventually(p)`` is
``Until(true, p)``, ``Always(p)`` is ``Not(Eventually(Not(p)))`` and ``Implies(p, q)`` is
``Or(Not(p), q)``. ``Until(p, q)`` is valued at the first step where ``q`` is (presumably)
true, and-ed with ``p`` at every step before it, and presumably false while there is none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cvcclock.scenario.requirements import describe

__all__ = ["Always", "And", "Eventually", "Formula", "Implies", "Next", "Not", "Or", "Until",
           "as_formula"]

FALSE, PRESUMABLY_FALSE, PRESUMABLY_TRUE, TRUE = 1, 2, 3, 4
"""RV-LTL's four values, ordered so that ``and`` is ``min``, ``or`` is ``max`` and ``not`` is
``5 - v`` (as ``rv_ltl.B4`` orders them)."""

NAMES = {FALSE: "false", PRESUMABLY_FALSE: "presumably false",
         PRESUMABLY_TRUE: "presumably true", TRUE: "true"}


class Formula:
    """A temporal formula; build one with the operator classes (each takes formulas or
    callables of no arguments)."""

    __slots__ = ()

    def _value(self, trace: _Trace, i: int) -> int:
        raise NotImplementedError

    def atoms(self) -> list[Atom]:
        """Its atoms, in the order they are evaluated each step (each once)."""
        raise NotImplementedError


class Atom(Formula):
    """A condition: a callable of no arguments, tested for truth once per step."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[], object]) -> None:
        self.fn = fn

    def atoms(self) -> list[Atom]:
        return [self]

    def _value(self, trace: _Trace, i: int) -> int:
        return TRUE if trace.history[self][i] else FALSE

    def __repr__(self) -> str:
        return describe(self.fn)


def as_formula(value: Any, operator: str) -> Formula:
    """``value`` as a formula: itself, or a callable as an :class:`Atom`.

    Raises
    ------
    TypeError
        For anything else, naming ``operator`` (the call that was given it).
    """
    if isinstance(value, Formula):
        return value
    if callable(value):
        return Atom(value)
    raise TypeError(f"{operator}() takes a temporal formula or a callable of no arguments "
                    f"(a condition), got {value!r}")


class _Unary(Formula):
    __slots__ = ("op",)

    def __init__(self, op: Formula | Callable[[], object]) -> None:
        self.op = as_formula(op, type(self).__name__)

    def atoms(self) -> list[Atom]:
        return self.op.atoms()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.op!r})"


class _Binary(Formula):
    __slots__ = ("lhs", "rhs")

    def __init__(self, lhs: Formula | Callable[[], object],
                 rhs: Formula | Callable[[], object]) -> None:
        name = type(self).__name__
        self.lhs, self.rhs = as_formula(lhs, name), as_formula(rhs, name)

    def atoms(self) -> list[Atom]:
        return self.lhs.atoms() + self.rhs.atoms()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.lhs!r}, {self.rhs!r})"


class Not(_Unary):
    """``not p``."""

    __slots__ = ()

    def _value(self, trace: _Trace, i: int) -> int:
        return 5 - trace.value(self.op, i)


class Next(_Unary):
    """Scenic's ``next p``: ``p`` at the next step; presumably false until there is one."""

    __slots__ = ()

    def _value(self, trace: _Trace, i: int) -> int:
        return PRESUMABLY_FALSE if i + 1 > trace.last else trace.value(self.op, i + 1)


class Eventually(_Unary):
    """Scenic's ``eventually p``: ``Until(true, p)``."""

    __slots__ = ()

    def _value(self, trace: _Trace, i: int) -> int:
        for k in range(i, trace.last + 1):
            v = trace.value(self.op, k)
            if v >= PRESUMABLY_TRUE:
                return v
        return PRESUMABLY_FALSE


class Always(_Unary):
    """Scenic's ``always p``: ``Not(Eventually(Not(p)))``."""

    __slots__ = ()

    def _value(self, trace: _Trace, i: int) -> int:
        for k in range(i, trace.last + 1):
            v = trace.value(self.op, k)
            if v <= PRESUMABLY_FALSE:
                return v
        return PRESUMABLY_TRUE


class Until(_Binary):
    """Scenic's ``p until q``."""

    __slots__ = ()

    def _value(self, trace: _Trace, i: int) -> int:
        for k in range(i, trace.last + 1):
            v = trace.value(self.rhs, k)
            if v >= PRESUMABLY_TRUE:
                for j in range(i, k):
                    v = min(v, trace.value(self.lhs, j))
                return v
        return PRESUMABLY_FALSE


class Implies(_Binary):
    """Scenic's ``p implies q``: ``Or(Not(p), q)``."""

    __slots__ = ()

    def _value(self, trace: _Trace, i: int) -> int:
        return max(5 - trace.value(self.lhs, i), trace.value(self.rhs, i))


class And(_Binary):
    """``p and q``."""

    __slots__ = ()

    def _value(self, trace: _Trace, i: int) -> int:
        return min(trace.value(self.lhs, i), trace.value(self.rhs, i))


class Or(_Binary):
    """``p or q``."""

    __slots__ = ()

    def _value(self, trace: _Trace, i: int) -> int:
        return max(trace.value(self.lhs, i), trace.value(self.rhs, i))


class _Trace:
    """The atoms' values so far, and one valuation's memo (a node's value at a step)."""

    __slots__ = ("history", "last", "memo")

    def __init__(self, atoms: list[Atom]) -> None:
        self.history: dict[Atom, list[bool]] = {atom: [] for atom in atoms}
        self.last = -1
        self.memo: dict[tuple[Formula, int], int] = {}

    def value(self, node: Formula, i: int) -> int:
        key = (node, i)
        v = self.memo.get(key)
        if v is None:
            v = self.memo[key] = node._value(self, i)
        return v


class Monitor:
    """One registered temporal requirement of a scope: its formula and its last value.

    Attributes
    ----------
    formula : Formula
    last_value : int
        ``TRUE`` (3 ``PRESUMABLY_TRUE``, 2 ``PRESUMABLY_FALSE``, 1 ``FALSE``); ``TRUE`` before
        the first step, as Scenic starts it.
    """

    __slots__ = ("formula", "last_value", "_trace", "_atoms")

    def __init__(self, formula: Formula) -> None:
        self.formula = formula
        self._atoms = list(dict.fromkeys(formula.atoms()))
        self._trace = _Trace(self._atoms)
        self.last_value = TRUE

    def update(self) -> int:
        """Evaluate every atom for this step, then value the formula over the steps so far."""
        trace = self._trace
        for atom in self._atoms:
            trace.history[atom].append(bool(atom.fn()))
        trace.last += 1
        trace.memo = {}
        self.last_value = trace.value(self.formula, 0)
        return self.last_value
