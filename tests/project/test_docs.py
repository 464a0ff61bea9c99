"""The API pages name every public name: each name in a public module's ``__all__`` has an
autodoc directive in docs/. A plain scan of the .rst files, so it runs without Sphinx; the
docs build itself (``sphinx-build -W``) checks that each directive renders.
"""

import importlib
import importlib.util
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"

# The modules whose __all__ is the public API. The rest of cvcclock's modules are either
# re-exported by these (binding, keys, loop, threads, the scenario submodules, each wing's
# private modules) or the command line, the demo and the benchmark table (cli, demo, bench,
# pytest_plugin).
PUBLIC_MODULES = [
    "cvcclock",
    "cvcclock.checks",
    "cvcclock.pycvc",
    "cvcclock.replay",
    "cvcclock.seeding",
    "cvcclock.scenario",
    "cvcclock.batch",
    "cvcclock.gym",
    "cvcclock.netplay",
    "cvcclock.panel",
    "cvcclock.scenic",
]
# The public modules that need an optional extra, with the package it brings: where it is
# missing (the README's suite) their names are left out; the docs stage, whose extra brings
# Gymnasium, and the scenic stage, which brings Scenic, check them.
NEEDS_EXTRA = {"cvcclock.gym": "gymnasium", "cvcclock.scenic": "scenic"}


def _importable(name: str) -> bool:
    return not any((name == module or name.startswith(module + "."))
                   and importlib.util.find_spec(package) is None
                   for module, package in NEEDS_EXTRA.items())

# A top-level directive (members nested inside a class are indented, and named by it).
DIRECTIVE = re.compile(r"^\.\. (auto\w+|currentmodule|module)::\s*([\w.]+)", re.MULTILINE)
OBJECT_DIRECTIVES = {"autoclass", "autoexception", "autofunction", "autodata", "automethod",
                     "autoattribute", "autoproperty", "autodecorator"}


def documented_names(text: str) -> list[str]:
    """The full names an .rst text's autodoc directives document, in order."""
    names = []
    current = ""
    for directive, target in DIRECTIVE.findall(text):
        if directive in ("currentmodule", "module"):
            current = target
        elif directive == "automodule":
            names.append(target)
        elif directive in OBJECT_DIRECTIVES:
            names.append(f"{current}.{target}" if current else target)
    return names


def resolve(full_name: str) -> object:
    """The object a full dotted name refers to: the longest importable module prefix, then
    attributes."""
    parts = full_name.split(".")
    for split in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for attribute in parts[split:]:
            obj = getattr(obj, attribute)
        return obj
    raise ImportError(full_name)


@pytest.fixture(scope="module")
def documented() -> dict[str, object]:
    pages = sorted(DOCS.rglob("*.rst"))
    assert pages, f"no .rst pages under {DOCS}"
    names = [name for page in pages for name in documented_names(page.read_text("utf-8"))]
    return {name: resolve(name) for name in names if _importable(name)}


def test_the_scan_reads_directives_in_their_module():
    text = """
.. currentmodule:: cvcclock

.. autoclass:: WorldClock
   :members:

   .. autoattribute:: nested

.. automodule:: cvcclock.checks

.. currentmodule:: cvcclock.checks

.. autofunction:: check_seconds(value, name, minimum=0.0, maximum=math.inf)
"""
    assert documented_names(text) == ["cvcclock.WorldClock", "cvcclock.checks",
                                      "cvcclock.checks.check_seconds"]


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_every_public_name_has_an_autodoc_directive(module_name, documented):
    if not _importable(module_name):
        pytest.importorskip(NEEDS_EXTRA[module_name])
    module = importlib.import_module(module_name)
    assert module_name in documented, f"no automodule:: {module_name} in docs/"
    missing = []
    for name in module.__all__:
        obj = getattr(module, name)
        # A re-exported name counts where it is documented under another module, as the
        # same object under the same name (cvcclock.scenario.simulate_many is
        # cvcclock.batch._simulate.simulate_many).
        if not any(full.rpartition(".")[2] == name and documented_obj is obj
                   for full, documented_obj in documented.items()):
            missing.append(name)
    assert missing == [], f"{module_name}: no autodoc directive in docs/ for {missing}"


def test_the_api_pages_name_public_paths_and_short_aliases(tmp_path):
    """The API pages, rendered (a text build of docs/api with docs/conf.py, ~15 s), write types
    as users import them: ``cvcclock.WorldClock`` not ``cvcclock._core.WorldClock``, alias
    names (``Executor | None``, ``JSONValue``) not their expansions, and the compiled
    classes' property types from the stubs. Needs the docs extra (``pip install '.[docs]'``)."""
    pytest.importorskip("sphinx", reason="the docs extra renders the pages: pip install '.[docs]'")
    import shutil
    import subprocess
    import sys
    shutil.copytree(DOCS / "api", tmp_path / "src")
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "text", "-c", str(DOCS),
                           str(tmp_path / "src"), str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    pages = {page.stem: page.read_text("utf-8") for page in (tmp_path / "out").glob("*.txt")}
    text = "\n".join(pages.values())
    for wrong in (re.compile(r"cvcclock\._core\.\w"), re.compile(r"\bAny \| None"),
                  re.compile(r"TypeAliasForwardRef|<factory>|<function "),
                  re.compile(r"~cvcclock\."),   # a signature Sphinx could not parse, shown raw
                  re.compile(r"None \| bool \| int \| float \| str")):   # JSONValue expanded
        assert not wrong.search(text), wrong.search(text).group()
    assert "executor: Executor | None = None" in pages["batch"]
    assert "metadata: Mapping[str, JSONValue] | None = None" in pages["replay"]
    assert "clock: WorldClock" in pages["replay"]
    for typed in ("   tick: int\n", "   mode: Mode\n", "   config: ClockConfig\n"):
        assert typed in pages["clock"], typed
    assert "   tick: NDArray[np.int64]\n" in pages["clock_bank"]
    # The compiled methods' and classes' signatures carry the stubs' types too.
    for typed in ("class cvcclock.WorldClock(config: ClockConfig | None = None)",
                  "   advance(wall_dt: float, /) -> StepResult\n",
                  "   wait_for_tick_change(tick: SupportsIndex, timeout: float | None = None)"
                  " -> int | None\n"):
        assert typed in pages["clock"], typed
    assert ("check_count(value: object, name: str, minimum: int = 0, maximum: int = MAX_TICK)"
            " -> int") in pages["checks"]
