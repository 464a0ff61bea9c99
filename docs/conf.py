"""Sphinx configuration for cvcclock's documentation.

Built against the installed package (``pip install '.[docs]'``), warnings as errors:

    sphinx-build -W --keep-going -b html docs docs/_build/html
    sphinx-build -W -b doctest docs docs/_build/doctest
"""

import doctest
import importlib
import inspect

from numpydoc.docscrape import NumpyDocString

import cvcclock

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
autoclass_content = "class"

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
    description, then the type as a ``:Type:`` field."""
    doc = NumpyDocString(inspect.getdoc(cls) or "")
    found: dict[str, list[str]] = {}
    for section in ("Attributes", "Parameters"):
        for item in doc[section]:
            lines = [*item.desc, "", f":Type: {item.type}"] if item.type else list(item.desc)
            for name in item.name.split(","):
                found.setdefault(name.strip(), lines)
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


def setup(app):
    # Before numpydoc's listener (priority 500), which then renders what this one filled in.
    app.connect("autodoc-process-docstring", _fill_field_docstring, priority=400)
    app.connect("autodoc-process-signature", _protocol_signature)
