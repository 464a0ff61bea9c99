"""Sphinx configuration for cvcclock's documentation.

Built against the installed package (``pip install '.[docs]'``), warnings as errors:

    sphinx-build -W --keep-going -b html docs docs/_build/html
    sphinx-build -W -b doctest docs docs/_build/doctest
"""

import ast
import doctest
import importlib
import inspect
from dataclasses import MISSING, fields, is_dataclass
from pathlib import Path

import sphinx.util.inspect
from numpydoc.docscrape import NumpyDocString
from sphinx.domains.python import PyAttribute

import cvcclock
import cvcclock._core

project = "cvcclock"
author = "cvcclock developers"
copyright = "cvcclock developers"
release = cvcclock.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "numpydoc",
    "sphinx_copybutton",
]

# The copy button copies what to paste: without the ">>> "/"... " of a doctest or the "$ " of
# a shell line, and without the output lines that follow them. A block with no prompt (a
# script to save as a file) is copied whole. The pattern is a JavaScript regexp.
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True

exclude_patterns = ["_build"]

# No intersphinx: CI has no network beyond the package index.
html_theme = "furo"
html_title = f"cvcclock {release}"
html_static_path: list[str] = []

# autodoc: members in source order where autodoc can read the source (the Python layer),
# alphabetical for the compiled core. The core's classes carry embedded signatures, so
# inspect.signature sees the real parameters.
autodoc_default_options = {
    "members": True,
    "member-order": "bysource",
}
autodoc_typehints = "signature"
# cvcclock.scenic stands on Scenic, which the docs extra does not install: autodoc reads the
# wing against a stand-in (its API page documents cvcclock's names only).
autodoc_mock_imports = ["scenic"]
# Defaults as the source writes them (``state_hash=default_state_hash``): a repr such as
# "<function ...>" is no Python, and Sphinx would then print the whole signature as raw text,
# its "~cvcclock.replay.World" prefixes and all.
autodoc_preserve_defaults = True
autoclass_content = "class"
# The package's type aliases by name, not by what they expand to (annotations are strings:
# every module has ``from __future__ import annotations``). Each is documented on its page.
# "~": the page shows the short name, linked to the documented alias.
autodoc_type_aliases = {
    "JSONValue": "~cvcclock.replay.JSONValue",
    "StateHash": "~cvcclock.replay.StateHash",
    "BatchResult": "~cvcclock.batch.BatchResult",
    "Executor": "~cvcclock.batch.Executor",
    "ProgressCallback": "~cvcclock.batch.ProgressCallback",
}
# Sphinx 9 evaluates an alias inside a union (``Executor | None``, sphinx-doc/sphinx#14004)
# but then writes the union's members by repr, "TypeAliasForwardRef('...')"; its name is what
# the signature should say.
sphinx.util.inspect.TypeAliasForwardRef.__repr__ = lambda self: self.name

# numpydoc renders the Parameters/Attributes sections; the members are documented by
# autodoc below each class, so numpydoc does not add its own member tables.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# The guide's examples, and the examples in the docstrings the API pages include, run as
# doctests; each page starts from a clean namespace. Exception messages are compared too
# (Sphinx's default flags ignore them): an example that shows an error shows the user's.
doctest_default_flags = doctest.ELLIPSIS | doctest.DONT_ACCEPT_TRUE_FOR_1


def _field_descriptions(cls: type) -> dict[str, list[str]]:
    """What a class docstring says of each field (Attributes, then Parameters): the
    description. (The type is the header's, from the stubs: see ``_CoreAttribute``.)"""
    doc = NumpyDocString(inspect.getdoc(cls) or "")
    found: dict[str, list[str]] = {}
    for section in ("Attributes", "Parameters"):
        for item in doc[section]:
            for name in item.name.split(","):
                found.setdefault(name.strip(), list(item.desc))
    return found


def _fill_field_docstring(app, what, name, obj, options, lines):
    """Give a field that has no docstring of its own the class docstring's description.

    The core's value types (ClockConfig, StepResult, ClockState, ...) describe their fields
    once, in the class docstring; their properties are C getsets with no docstring. Without
    this, autodoc would list them bare. A module constant whose only docstring is its
    type's (``__version__``, a str) gets none; the page says what it is.
    """
    if what == "data" and "\n".join(lines).strip() == (inspect.getdoc(type(obj)) or "").strip():
        lines[:] = []
        return
    if what not in ("attribute", "property") or any(line.strip() for line in lines):
        return
    owner_name, _, field = name.rpartition(".")
    module_name, _, class_name = owner_name.rpartition(".")
    owner = getattr(importlib.import_module(module_name), class_name, None)
    if isinstance(owner, type):
        lines[:] = _field_descriptions(owner).get(field, [])


def _protocol_signature(app, what, name, obj, options, signature, return_annotation):
    """A Protocol (World, Simulator, SimWorld, FrameDriver) is implemented, not
    constructed: show no ``(*args, **kwargs)`` for it."""
    if what == "class" and getattr(obj, "_is_protocol", False):
        return "", return_annotation
    return None


def _dataclass_factories(app, what, name, obj, options, signature, return_annotation):
    """A dataclass field made by a factory shows as ``field=<factory>``, which is no Python:
    Sphinx would print the whole signature as raw text. Show the call that makes it."""
    if what != "class" or "<factory>" not in (signature or "") or not is_dataclass(obj):
        return None
    for item in fields(obj):
        if item.init and item.default_factory is not MISSING:
            made = getattr(item.default_factory, "__qualname__", "...")
            signature = signature.replace("<factory>", f"{made}()", 1)
    return signature, return_annotation


def _stub_attribute_types() -> dict[str, str]:
    """``{"WorldClock.tick": "int", ...}``: each compiled class's property and attribute types,
    read from the stubs installed beside the core (the ones mypy checks with stubtest)."""
    tree = ast.parse(Path(cvcclock._core.__file__).with_name("_core.pyi").read_text())
    types: dict[str, str] = {}
    for cls in (node for node in tree.body if isinstance(node, ast.ClassDef)):
        for node in cls.body:
            if isinstance(node, ast.FunctionDef) and node.returns is not None and any(
                    isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list):
                types[f"{cls.name}.{node.name}"] = ast.unparse(node.returns)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                kind = node.annotation   # ClassVar[X] documents as X
                if isinstance(kind, ast.Subscript) and ast.unparse(kind.value) == "ClassVar":
                    kind = kind.slice
                types[f"{cls.name}.{node.target.id}"] = ast.unparse(kind)
    return types


_STUB_TYPES = _stub_attribute_types()


def _stub_functions() -> dict[str, list[ast.FunctionDef]]:
    """``{"WorldClock.advance": [def], "ticks_per_step": [def], ...}`` from the installed stubs:
    every def of each name (several for an overload)."""
    tree = ast.parse(Path(cvcclock._core.__file__).with_name("_core.pyi").read_text())
    found: dict[str, list[ast.FunctionDef]] = {}
    for node in tree.body:
        scope = node.body if isinstance(node, ast.ClassDef) else [node]
        prefix = f"{node.name}." if isinstance(node, ast.ClassDef) else ""
        for item in scope:
            if isinstance(item, ast.FunctionDef):
                found.setdefault(prefix + item.name, []).append(item)
    return found


_STUB_FUNCTIONS = _stub_functions()


def _resolve(dotted: str) -> object:
    """The object a dotted name names: its longest importable module, then attributes."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for part in parts[split:]:
            found = getattr(found, part, None)
        return found
    return None


def _core_signature(app, what, name, obj, options, signature, return_annotation):
    """A compiled function's signature with the stubs' types.

    Cython embeds the parameters and defaults but no types; the stubs (checked against the
    module by stubtest) have them. An overloaded method keeps the embedded signature: one
    line cannot say which callback goes with which ``catch_up``; its docstring does.
    """
    owner_name, _, short = name.rpartition(".")
    owner = _resolve(owner_name) if what == "method" else None
    if what == "class" and getattr(cvcclock._core, short, None) is obj:
        key = f"{short}.__init__"
    elif isinstance(owner, type) and getattr(cvcclock._core, owner.__name__, None) is owner:
        key = f"{owner.__name__}.{short}"
    elif what == "function" and getattr(cvcclock._core, short, None) is obj:
        key = short
    else:
        return None
    defs = _STUB_FUNCTIONS.get(key, [])
    if len(defs) != 1 or not signature:
        return None
    stub = defs[0].args
    annotations = {arg.arg: arg.annotation
                   for arg in [*stub.posonlyargs, *stub.args, *stub.kwonlyargs,
                               *filter(None, [stub.vararg, stub.kwarg])] if arg.annotation}
    # The parameters and defaults as given (embedded, or written in the directive, such as
    # ``maximum=MAX_TICK``), each with the stub's annotation.
    try:
        shown = ast.parse(f"def _{signature}: pass").body[0].args
    except SyntaxError:
        return None
    for arg in [*shown.posonlyargs, *shown.args, *shown.kwonlyargs,
                *filter(None, [shown.vararg, shown.kwarg])]:
        arg.annotation = annotations.get(arg.arg)
    returns = defs[0].returns
    return (f"({ast.unparse(shown)})",
            "" if what == "class" or returns is None else ast.unparse(returns))


class _CoreAttribute(PyAttribute):
    """An attribute of a compiled class, typed from the stubs.

    A Cython property is a C getset with no annotations autodoc could read, so the page would
    show no type; the stubs say it, and stubtest keeps them true to the module.
    """

    def handle_signature(self, sig, signode):
        class_name, _, field = sig.strip().rpartition(".")   # autodoc writes "Class.field"
        module = importlib.import_module(self.options.get("module")
                                         or self.env.ref_context.get("py:module") or "builtins")
        owner = getattr(module, class_name or self.env.ref_context.get("py:class") or "", None)
        if (not self.options.get("type") and isinstance(owner, type)
                and getattr(cvcclock._core, owner.__name__, None) is owner):
            found = _STUB_TYPES.get(f"{owner.__name__}.{field}")
            if found:
                self.options["type"] = found
        return super().handle_signature(sig, signode)


def setup(app):
    app.add_directive_to_domain("py", "attribute", _CoreAttribute, override=True)
    # Before numpydoc's listener (priority 500), which then renders what this one filled in.
    app.connect("autodoc-process-docstring", _fill_field_docstring, priority=400)
    app.connect("autodoc-process-signature", _protocol_signature)
    app.connect("autodoc-process-signature", _dataclass_factories)
    # Before numpydoc's (priority 500), which would answer first with the untyped signature.
    app.connect("autodoc-process-signature", _core_signature, priority=400)
