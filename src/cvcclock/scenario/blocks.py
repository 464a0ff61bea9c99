"""How the runner resumes behaviors, monitors and compose blocks: one way for all three.

Each running behavior, monitor or compose block is a tree of *blocks* the runner resumes
once per time step until one yields an action (``resume`` returns the :class:`Take`) or the
whole finishes (it returns :class:`Finished`). A :class:`GenBlock` runs one generator; what
the generator yields besides an action becomes a child block, resumed at once, in the same
step: ``do`` of a sub-behavior (a :class:`GenBlock` of its own), of sub-scenarios
(:class:`ScenariosBlock`, which steps their scopes), with a limit (:class:`LimitBlock`), or
an ``interrupt`` (:class:`InterruptBlock`). When a child finishes, its parent's invariants
are checked at that instant, then the parent goes on with the child's result; an exception
from a child is thrown into the parent at its ``yield from``, as Python would.

Invariants are checked where Scenic's compiler puts the checks: when a generator is resumed
after yielding an action, and when a child it ran with ``do`` returns; a violation is
raised into the generator at that point.
"""

from __future__ import annotations

from collections.abc import Callable
from types import GeneratorType
from typing import TYPE_CHECKING, Any, Protocol

from cvcclock.scenario._arguments import steps_for
from cvcclock.scenario.behaviors import WAIT, Take, body_of, delegation, guards_of
from cvcclock.scenario.control import ABORT, Choose, Do, Interrupt, Request
from cvcclock.scenario.errors import BehaviorError, InvariantViolation, RejectSimulation

if TYPE_CHECKING:
    from cvcclock.scenario.scopes import Scope
    from cvcclock.scenario.simulation import Simulation

__all__ = ["Block", "Context", "Finished", "GenBlock"]

HANDLER_REENTRIES = 1000
"""A handler that ends without an action while its condition still holds is entered again
in the same step; past this many times in one step it is an endless loop: an error."""


class Owner(Protocol):
    """Whose invariants apply to a block's code: a behavior's guards or a scope."""

    @property
    def has_invariants(self) -> bool: ...

    def check_invariants(self) -> None: ...


class Finished:
    """What ``resume`` returns when a block has finished: its result."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class Block:
    """Something resumed once per time step until it yields an action or finishes."""

    __slots__ = ()
    direct: Any = None
    """A generator the runner may resume directly (see :class:`GenBlock`); None here."""

    def went_on(self, item: Any) -> Take | Finished:
        """After a fast-path resumption of ``direct``: only a :class:`GenBlock` has one."""
        raise NotImplementedError

    def resume(self) -> Take | Finished:
        """Run until an action (a :class:`Take`) is yielded or the block finishes."""
        raise NotImplementedError

    def close(self, reason: str) -> None:
        """Abandon the block before it finishes: close generators, stop scenarios."""
        raise NotImplementedError


class Context:
    """What a tree of blocks runs for: the behavior of an agent, a monitor or a compose block.

    Attributes
    ----------
    sim : Simulation
        The attempt.
    scope : Scope
        The scope the blocks run in: a compose block's own, the agent's or monitor's.
    kind : str
        ``"behavior"``, ``"monitor"`` or ``"compose"``.
    label : str
        How messages name it, e.g. ``"the behavior 'drive' of agent 'car'"``.
    """

    __slots__ = ("sim", "scope", "kind", "label")

    def __init__(self, sim: Simulation, scope: Scope, kind: str, label: str) -> None:
        self.sim, self.scope, self.kind, self.label = sim, scope, kind, label

    def start(self, fn: Callable[..., Any], args: tuple[Any, ...],
              owner: Owner | None = None) -> GenBlock:
        """Call ``fn(*args)`` and start it (a behavior's guards are checked now, as Scenic
        starts an agent's behavior with its scenario); wrap the generator it makes in a
        :class:`GenBlock` owned by ``owner``, by default the generator's guards."""
        gen = fn(*args)
        if not isinstance(gen, GeneratorType):
            if not hasattr(gen, "__next__"):
                raise BehaviorError(f"{self.label} returned {gen!r} at step {self.sim.step}, "
                                    f"not a generator; a {self.kind} is a generator function "
                                    f"(it must yield)")
            gen = _generator(gen)
        if owner is None:
            owner = guards_of(gen)
            if owner is not None:
                owner.start()
        return GenBlock(self, gen, owner)

    def child(self, item: Any, owner: Owner | None) -> Block:
        """The block for a request a generator yielded (``do`` or ``interrupt``).

        Raises
        ------
        BehaviorError
            If ``item`` is not a request, or not one this kind of block may make.
        """
        if type(item) is Do:
            return self._do(item)
        if type(item) is Interrupt:
            return InterruptBlock(self, item, owner)
        if type(item) is Choose:
            return ChooseBlock(self, item)
        raise self.refuse(item)

    def refuse(self, item: Any) -> BehaviorError:
        """The error for a yield this kind of block may not make."""
        return BehaviorError(f"{self.label} yielded {item!r} at step {self.sim.step}; "
                             f"{_YIELDS[self.kind]}")

    def _do(self, item: Do) -> Block:
        block: Block
        if item.scenarios:
            if self.kind != "compose":
                raise BehaviorError(f"{self.label} did scenarios at step {self.sim.step}; "
                                    f"only a compose block runs sub-scenarios")
            block = ScenariosBlock(self, item.subs)
        elif item.subs:
            block = GenBlock(self, item.subs[0], guards_of(item.subs[0]))
        else:
            block = _WaitBlock()
        steps = item.steps
        if item.seconds is not None:
            steps = steps_for(item.seconds, self.sim.dt, "seconds")
        if steps is None and item.until is None:
            return block
        return LimitBlock(self, block, steps, item.until)


_YIELDS = {
    "behavior": "a behavior yields take(*actions), wait(), do(...) or interrupt(...)",
    "monitor": "monitors yield wait(), do(...) or interrupt(...)",
    "compose": "compose blocks yield wait(), do(...) or interrupt(...)",
}


def _generator(iterator: Any) -> Any:
    """A generator over an iterator that is not one (it has no ``send``)."""
    return (yield from iterator)


class GenBlock(Block):
    """One generator, and the child block of the request it is waiting on, if any.

    ``owner`` holds the invariants of the generator's own code: its guards for a behavior,
    the enclosing behavior's for an interrupt's body or handler, the scope for a compose
    block.

    Attributes
    ----------
    direct : generator or None
        The generator, when the next step may resume it with a bare ``next(direct, block)``
        (the runner's per-agent fast path): a behavior with no guards, no child running and
        nothing to check. What that yields goes to :meth:`went_on` unless it is an action
        taken outside any plain delegation (``direct.gi_yieldfrom`` is None); ``block``
        itself back means the generator finished.
    """

    __slots__ = ("ctx", "gen", "body", "owner", "check", "child", "acts", "direct")

    def __init__(self, ctx: Context, gen: Any, owner: Owner | None) -> None:
        self.ctx, self.gen, self.owner = ctx, gen, owner
        self.body = body_of(gen)            # whose gi_yieldfrom shows a plain delegation
        self.check: Owner | None = None     # whose invariants to check on the next resume
        self.child: Block | None = None
        self.acts = ctx.kind == "behavior"  # only behaviors take actions
        self.direct = gen if self.acts and owner is None else None

    def _sync(self) -> None:
        """Whether the next step may take the fast path (see ``direct``)."""
        plain = self.acts and self.owner is None and self.child is None and self.check is None
        self.direct = self.gen if plain else None

    def went_on(self, item: Any) -> Take | Finished:
        """Go on after a fast-path ``next(direct, self)`` gave ``item``: what :meth:`resume`
        would have returned."""
        try:
            if item is self:
                return Finished(None)
            if type(item) is Take:          # an action, from inside a plain delegation
                self.check = delegation(self.gen, self.owner)
                return item
            return self._yielded(item)
        finally:
            self._sync()

    def resume(self) -> Take | Finished:
        try:
            return self._step()
        finally:
            self._sync()

    def _step(self) -> Take | Finished:
        if self.child is None and self.check is None:
            # The common step: resumed after an action with nothing to check or run first.
            try:
                item = next(self.gen)
            except StopIteration as stop:
                return Finished(stop.value)
            if type(item) is Take and (self.acts or not item.actions):
                if self.body.gi_yieldfrom is not None:
                    self.check = delegation(self.gen, self.owner)
                elif self.owner is not None:
                    self.check = self.owner
                return item
            return self._yielded(item)
        return self._resume()

    def _resume(self) -> Take | Finished:
        """The general step: a child to resume, or invariants to check, first."""
        send: Any = None
        throw: BaseException | None = None
        if self.child is not None:
            taken, send, throw = self._resume_child()
            if taken is not None:
                return taken
        elif self.check is not None:
            throw = _violation(self.check)
        return self._run(send, throw)

    def _yielded(self, item: Any) -> Take | Finished:
        """The fast path's generator yielded a request, or an action it may not take."""
        if type(item) is Take:
            raise self.ctx.refuse(item)
        self.child = self.ctx.child(item, self.owner)   # runs now, in this step
        taken, send, throw = self._resume_child()
        if taken is not None:
            return taken
        return self._run(send, throw)

    def _run(self, send: Any, throw: BaseException | None) -> Take | Finished:
        """Send or throw into the generator, running the children of what it yields, until
        an action is taken or it finishes."""
        while True:
            try:
                item = self.gen.send(send) if throw is None else self.gen.throw(throw)
            except StopIteration as stop:
                return Finished(stop.value)
            if type(item) is Take:
                if item.actions and not self.acts:
                    raise self.ctx.refuse(item)
                inner = self.body.gi_yieldfrom
                self.check = self.owner if inner is None else delegation(self.gen, self.owner)
                return item
            self.child = self.ctx.child(item, self.owner)   # runs now, in this step
            taken, send, throw = self._resume_child()
            if taken is not None:
                return taken

    def _resume_child(self) -> tuple[Take | None, Any, BaseException | None]:
        """Resume the child: its action, or what to send or throw into the generator (its
        result and any violation of the invariants now that it is done, or its exception)."""
        child = self.child
        try:
            result = child.resume()  # type: ignore[union-attr]
        except BaseException as e:       # passes up, into this generator
            self.child = None
            return None, None, e
        if type(result) is Take:
            return result, None, None
        self.child = None
        if type(child) is InterruptBlock:
            # Scenic compiles a try/interrupt statement with no check after it (a do has
            # one): the statement checked them after its last action already.
            return None, result.value, None  # type: ignore[union-attr]
        return None, result.value, _violation(self.owner)    # type: ignore[union-attr]

    def close(self, reason: str) -> None:
        child, self.child = self.child, None
        self.direct = None
        if child is not None:
            child.close(reason)
        self.gen.close()


def _violation(owner: Owner | None) -> InvariantViolation | None:
    """The violation of ``owner``'s invariants, to raise into a generator, or None."""
    if owner is not None and owner.has_invariants:
        try:
            owner.check_invariants()
        except InvariantViolation as e:
            return e
    return None


class _WaitBlock(Block):
    """``do()`` with nothing to run: waits until its limit ends it."""

    __slots__ = ()

    def resume(self) -> Take | Finished:
        return WAIT

    def close(self, reason: str) -> None:
        pass


class LimitBlock(Block):
    """``do(..., steps=/seconds=/until=)``: the child, stopped when the limit is reached.

    The limit is checked each time the block is resumed, before the child runs, from the
    step it started in: a limit already reached, or a condition already true, runs nothing.
    It is Scenic's ``do ... for``/``until``; unlike Scenic's implementation, the parent's
    invariants are not checked meanwhile (it is inside a sub-behavior, the reference says).
    """

    __slots__ = ("ctx", "child", "start", "steps", "until")

    def __init__(self, ctx: Context, child: Block, steps: int | None,
                 until: Callable[[], object] | None) -> None:
        self.ctx, self.child, self.steps, self.until = ctx, child, steps, until
        self.start = ctx.sim.step

    def resume(self) -> Take | Finished:
        if self.steps is not None and self.ctx.sim.step - self.start >= self.steps:
            self.close(f"its do() reached its limit of {self.steps} steps")
            return Finished(ABORT)
        if self.until is not None and self.until():
            self.close("the until condition of its do() held")
            return Finished(ABORT)
        return self.child.resume()

    def close(self, reason: str) -> None:
        self.child.close(reason)


class ScenariosBlock(Block):
    """``do(A(), B())`` in a compose block: starts the scopes, then steps them each step.

    They are set up, started and stepped first when the block is first resumed, in the
    parent's step; the block finishes, and the parent goes on, in the step the last of them
    stops, including a step in which they stopped after their last resumption (a behavior
    or a monitor terminated them).
    """

    __slots__ = ("ctx", "scenarios", "scopes")

    def __init__(self, ctx: Context, scenarios: tuple[Any, ...]) -> None:
        self.ctx, self.scenarios = ctx, scenarios
        self.scopes: list[Scope] | None = None

    def resume(self) -> Take | Finished:
        scopes = self.scopes
        if scopes is None:
            scopes = self.scopes = []
            try:
                for scenario in self.scenarios:
                    scopes.append(self.ctx.scope.start_child(scenario))
            except BaseException:       # the do() fails as a whole: none of them runs on
                self.close("a scenario started with it failed to start")
                raise
        for scope in scopes:
            if scope.running:
                scope.step()
        scopes[:] = [scope for scope in scopes if scope.running]
        return WAIT if scopes else Finished(None)

    def close(self, reason: str) -> None:
        for scope in self.scopes or ():
            if scope.running:
                scope.stop(reason)


class ChooseBlock(Block):
    """``do_choose``/``do_shuffle``: picks an enabled sub-behavior, runs it to its end, and,
    for a shuffle, picks the next in the same step, as Scenic's scheduler does."""

    __slots__ = ("ctx", "left", "shuffle", "current")

    def __init__(self, ctx: Context, item: Choose) -> None:
        self.ctx, self.shuffle = ctx, item.shuffle
        self.left = list(zip(item.subs, item.weights, strict=True))
        self.current: GenBlock | None = None

    def resume(self) -> Take | Finished:
        while True:
            if self.current is None:
                if not self.left:
                    return Finished(None)
                sub = self._pick()
                self.current = GenBlock(self.ctx, sub, guards_of(sub))
            result = self.current.resume()
            if type(result) is Take:
                return result
            self.current = None
            if not self.shuffle:
                return result

    def _pick(self) -> Any:
        """Take one enabled sub-behavior out of those left (a choose drops the rest)."""
        enabled = [i for i, (sub, _) in enumerate(self.left)
                   if (guards := guards_of(sub)) is None or guards.enabled()]
        if not enabled:
            what = "do_shuffle" if self.shuffle else "do_choose"
            raise RejectSimulation(f"{self.ctx.label}: deadlock in {what}() at step "
                                   f"{self.ctx.sim.step}: none of its sub-behaviors is enabled")
        if len(enabled) == 1:
            index = enabled[0]
        else:
            weights = [self.left[i][1] for i in enabled]
            index = self.ctx.sim.rng.choices(enabled, weights)[0]
        sub = self.left.pop(index)[0]
        if not self.shuffle:
            self._drop()
        return sub

    def _drop(self) -> None:
        left, self.left = self.left, []
        for sub, _ in left:
            sub.close()         # never started: nothing of it runs

    def close(self, reason: str) -> None:
        current, self.current = self.current, None
        if current is not None:
            current.close(reason)
        self._drop()


def _run(request: Request) -> Any:
    """A body or handler that is a request runs it; like a block of code, it returns None."""
    yield from request


class _Handler:
    __slots__ = ("condition", "make", "block")

    def __init__(self, condition: Callable[[], object], make: Callable[[], Any]) -> None:
        self.condition, self.make = condition, make
        self.block: Block | Finished | None = None


class InterruptBlock(Block):
    """Scenic's ``try``/``interrupt when``, with the semantics of its ``runTryInterrupt``.

    On each resumption after an action: the owner's invariants; then, highest priority
    first, the first handler whose condition holds or that is in progress runs instead of
    the body. A handler that finishes with None hands back, in the same step; any other
    result ends the statement with that value, as does the body returning.
    """

    __slots__ = ("ctx", "owner", "make_body", "body", "handlers", "yielded")

    def __init__(self, ctx: Context, item: Interrupt, owner: Owner | None) -> None:
        self.ctx, self.owner, self.make_body = ctx, owner, item.body
        self.body: Block | Finished | None = None
        self.handlers = [_Handler(c, h) for c, h in item.handlers]
        self.yielded = False

    def resume(self) -> Take | Finished:
        if self.yielded:
            self.yielded = False
            violation = _violation(self.owner)
            if violation is not None:
                self.close("an invariant was violated")
                raise violation
        reentries = 0
        try:
            while True:
                handler = next((h for h in self.handlers
                                if h.condition() or h.block is not None), None)
                if handler is None:
                    if self.body is None:
                        self.body = self._block(self.make_body())
                    block = self.body
                elif handler.block is None:
                    block = handler.block = self._block(handler.make())
                else:
                    block = handler.block
                result = block.resume() if isinstance(block, Block) else block
                if isinstance(result, Take):
                    self.yielded = True
                    return result
                value = result.value
                if handler is None or value is not None:
                    self.close("its interrupt statement ended")
                    return Finished(value)
                handler.block = None
                reentries += 1
                if reentries > HANDLER_REENTRIES:
                    raise BehaviorError(
                        f"{self.ctx.label}: an interrupt handler finished {HANDLER_REENTRIES} "
                        f"times in step {self.ctx.sim.step} without taking an action while "
                        f"its condition held; it would never end")
        except BaseException:
            self.close("an exception passed out of its interrupt statement")
            raise

    def _block(self, made: Any) -> Block | Finished:
        """The block of what a body or handler made: a generator, a request (``do``), or a
        plain function's result, which is finished at once."""
        if isinstance(made, Request):
            made = _run(made)
        if not isinstance(made, GeneratorType):
            return Finished(made)
        own = guards_of(made)
        return GenBlock(self.ctx, made, own if own is not None else self.owner)

    def close(self, reason: str) -> None:
        blocks = [self.body] + [h.block for h in self.handlers]
        self.body = None
        for h in self.handlers:
            h.block = None
        for block in blocks:
            if isinstance(block, Block):
                block.close(reason)
