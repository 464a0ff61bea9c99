"""The package type-checks under mypy --strict against the core's stubs, and the stubs'
docstrings are the compiled module's own (what ``help()`` shows), so an editor shows the same
text as the API reference. ``python scripts/stub_docstrings.py`` writes them from the module."""

import ast
import inspect
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import WrapperDescriptorType
from typing import Any

import cvcclock._core

# The stubs installed beside the compiled module (as mypy and editors read them).
STUB = Path(cvcclock._core.__file__).with_name("_core.pyi")

# CPython's own text for a slot wrapper (``__init__``: "Initialize self.  See help(...)",
# ``__eq__``: "Return self==value.", ...), which Cython leaves on ``__init__``, ``__bool__``
# and the comparisons whatever their source says: it is no docstring of the core's.
_SLOT_DOCS = {(name, value.__doc__) for kind in (object, int, list, dict, type)
              for name, value in vars(kind).items() if isinstance(value, WrapperDescriptorType)}


def stub_definitions(tree: ast.Module) -> Iterator[tuple[str, ast.ClassDef | ast.FunctionDef]]:
    """Every class, method, property and function of the stub, with its dotted name."""
    def walk(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, Any]]:
        for node in body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef):
                yield prefix + node.name, node
                if isinstance(node, ast.ClassDef):
                    yield from walk(node.body, f"{prefix}{node.name}.")
    return walk(tree.body, "")


def runtime_docstring(name: str, node: ast.ClassDef | ast.FunctionDef) -> str | None:
    """The docstring ``node`` must carry: its runtime object's, as ``inspect.getdoc`` gives it.

    A property's setter carries none (the getter holds the property's text); every overload
    of a method carries the method's; a slot wrapper's generic CPython text counts as none.
    """
    if any(isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter")
           for d in getattr(node, "decorator_list", ())):
        return None
    obj: Any = cvcclock._core
    for part in name.split("."):
        obj = getattr(obj, part)
    if isinstance(obj, WrapperDescriptorType) and (obj.__name__, obj.__doc__) in _SLOT_DOCS:
        return None
    return inspect.getdoc(obj)


def docstring_mismatches(source: str) -> list[tuple[str, str | None, str | None]]:
    """(name, the stub's docstring, the runtime's) wherever the two differ."""
    return [(name, ast.get_docstring(node), want)
            for name, node in stub_definitions(ast.parse(source))
            if ast.get_docstring(node) != (want := runtime_docstring(name, node))]


def test_package_is_strictly_typed(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "-p", "cvcclock"],
        capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_stub_docstrings_are_the_runtimes():
    wrong = docstring_mismatches(STUB.read_text())
    assert not wrong, (
        f"{len(wrong)} docstrings in {STUB} are not the compiled module's "
        "(python scripts/stub_docstrings.py rewrites src/cvcclock/_core.pyi; reinstall):\n"
        + "\n".join(f"{name}:\n  stub:    {got!r}\n  runtime: {want!r}"
                    for name, got, want in wrong))


def test_the_docstring_check_sees_every_kind_of_definition():
    names = dict(stub_definitions(ast.parse(STUB.read_text())))
    # A class, a method, a property, a function, an overload, a setter, a generic slot.
    assert {"WorldClock", "WorldClock.advance", "WorldClock.tick", "ticks_per_step",
            "WorldClock.every", "WorldClock.scale", "ClockConfig.__init__"} <= names.keys()
    assert runtime_docstring("WorldClock.tick", names["WorldClock.tick"]) == (
        "The authoritative integer world time, in quanta.")
    assert runtime_docstring("ClockConfig.__init__", names["ClockConfig.__init__"]) is None
    # A stub docstring that is not the runtime's is found.
    changed = STUB.read_text().replace('"""Stop it for good;', '"""Stop it, for good;', 1)
    assert [name for name, *_ in docstring_mismatches(changed)] == ["Timer.cancel"]


def test_publishing_a_wing_leaves_the_types_its_aliases_name_alone():
    import typing

    import cvcclock.batch
    # cvcclock.batch.Executor is typing.Any: publishing the wing must not rename typing.Any.
    assert cvcclock.batch.Executor is typing.Any and typing.Any.__module__ == "typing"
    assert cvcclock.batch.FailedRun.__module__ == "cvcclock.batch"
