"""The import contract: the layers of the package, checked on its source (an AST scan).

- the core (``src/_core``) imports nothing of the package;
- the drivers (``binding``, ``keys``, ``loop``, ``threads``, ``pycvc``) import only the core,
  ``checks`` and ``keys`` (``pycvc``, the drop-in facade, also wraps ``binding``);
- ``replay`` imports no ``scenario``, ``batch``, ``demo``, ``bench`` or ``cli``;
- ``scenario`` imports no ``batch`` (but for its lazy re-export of the moved names);
- nothing imports ``cli`` but ``cvcclock.__main__``.

- no wing imports another wing's private modules (``cvcclock.batch._simulate`` may not import
  ``cvcclock.scenario._arguments``): wings talk through each other's public names.

Every module of the package may use the private helpers ``_version``, ``_public`` and
``_extras``. Imports
inside functions count: a layer that reaches up lazily still reaches up. An AST scan, not
import-linter: the rules are few and this keeps the test dependencies as they are.
"""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest

import cvcclock

PACKAGE = pathlib.Path(cvcclock.__file__).parent
CORE_SOURCES = pathlib.Path(__file__).resolve().parents[2] / "src" / "_core"
HELPERS = {"cvcclock._version", "cvcclock._public", "cvcclock._extras"}
DRIVERS = {"binding", "keys", "loop", "threads", "pycvc"}
DRIVER_MAY_IMPORT = {"cvcclock._core", "cvcclock.checks", "cvcclock.keys"}
# The one import of a higher layer the contract allows, by (module, imported module).
LAZY_REEXPORT = ("cvcclock.scenario", "cvcclock.batch")


def module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: pathlib.Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in ``path`` of a module of the package."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.rsplit(".", node.level - 1)[0]
                module = f"{base}.{module}" if module else base
            found.append((node.lineno, module))
            # "from cvcclock import demo" imports the module cvcclock.demo
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names
                      if (PACKAGE.parent / f"{module}.{alias.name}".replace(".", "/")).is_dir()
                      or (PACKAGE.parent / (f"{module}.{alias.name}".replace(".", "/") + ".py"))
                      .is_file()]
    return [(line, m) for line, m in found if m == "cvcclock" or m.startswith("cvcclock.")]


SOURCES = sorted(PACKAGE.rglob("*.py"))
GRAPH = {module_name(p): imports_of(p) for p in SOURCES}


def within(module: str, wing: str) -> bool:
    return module == wing or module.startswith(wing + ".")


def violations(rule) -> list[str]:
    return [f"{source}:{line} imports {target}" for source, edges in GRAPH.items()
            for line, target in edges if rule(source, target)]


def test_the_scan_sees_the_whole_package_and_its_imports():
    assert {"cvcclock.binding", "cvcclock.replay._trace", "cvcclock.batch._simulate",
            "cvcclock.cli.batch", "cvcclock.scenario.runner", "cvcclock.demo._plot"} <= set(GRAPH)
    assert any(m == "cvcclock.replay._trace" for _, m in GRAPH["cvcclock.replay._recorder"])
    assert any(m == "cvcclock.batch" for _, m in GRAPH["cvcclock.scenario"])  # lazy, but seen


def test_the_core_imports_nothing_of_the_package():
    sources = sorted(CORE_SOURCES.glob("*.p*"))
    assert sources, CORE_SOURCES
    for path in sources:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            words = line.split("#")[0].split()
            assert not ({"import", "cimport"} & set(words) and any(
                w.startswith("cvcclock") for w in words)), f"{path.name}:{number}: {line}"


@pytest.mark.parametrize("driver", sorted(DRIVERS))
def test_a_driver_imports_only_the_core_checks_and_keys(driver):
    allowed = DRIVER_MAY_IMPORT | HELPERS | ({"cvcclock.binding"} if driver == "pycvc" else set())
    bad = violations(lambda s, t: s == f"cvcclock.{driver}" and t not in allowed)
    assert bad == []


def test_checks_and_keys_import_only_the_core():
    bad = violations(lambda s, t: s in {"cvcclock.checks", "cvcclock.keys"}
                     and t not in {"cvcclock._core", "cvcclock.checks"} | HELPERS)
    assert bad == []


def test_replay_imports_no_scenario_batch_demo_bench_or_cli():
    higher = ("cvcclock.scenario", "cvcclock.batch", "cvcclock.demo", "cvcclock.bench",
              "cvcclock.cli")
    bad = violations(lambda s, t: within(s, "cvcclock.replay")
                     and any(within(t, h) for h in higher))
    assert bad == []


def test_scenario_imports_no_batch_but_for_its_lazy_reexport():
    bad = violations(lambda s, t: within(s, "cvcclock.scenario") and within(t, "cvcclock.batch")
                     and (s, t) != LAZY_REEXPORT)
    assert bad == []


WINGS = ("replay", "scenario", "batch", "cli", "demo", "bench", "gym", "netplay", "panel",
         "scenic")


def wing_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in WINGS else None


def test_no_wing_imports_another_wings_private_modules():
    bad = violations(lambda s, t: wing_of(t) is not None and wing_of(t) != wing_of(s)
                     and any(part.startswith("_") for part in t.split(".")[2:]))
    assert bad == []


def test_nothing_imports_cli_but_the_entry_point():
    bad = violations(lambda s, t: within(t, "cvcclock.cli") and not within(s, "cvcclock.cli")
                     and s != "cvcclock.__main__")
    assert bad == []


def test_no_wing_imports_demo_or_bench_but_the_command_line():
    bad = violations(lambda s, t: any(within(t, w) and not within(s, w)
                                      for w in ("cvcclock.demo", "cvcclock.bench"))
                     and not within(s, "cvcclock.cli"))
    assert bad == []


@pytest.mark.parametrize("module, absent", [
    ("cvcclock", ["asyncio", "cvcclock.replay", "cvcclock.scenario", "cvcclock.batch",
                  "cvcclock.cli", "numpy"]),
    ("cvcclock.scenario", ["cvcclock.batch", "concurrent.futures", "multiprocessing",
                           "cvcclock.cli"]),
    ("cvcclock.replay", ["cvcclock.scenario", "cvcclock.batch", "cvcclock.demo"]),
    ("cvcclock.netplay", ["asyncio", "cvcclock.scenario", "cvcclock.batch", "cvcclock.demo",
                          "cvcclock.cli", "numpy"]),
])
def test_importing_a_wing_loads_nothing_above_it(module, absent):
    code = (f"import sys, {module}; "
            f"print(sorted(m for m in {absent!r} if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert (proc.stdout, proc.stderr) == ("[]\n", "")


def test_the_moved_batch_names_are_the_batch_wings_own():
    import cvcclock.batch
    import cvcclock.scenario

    for name in ("simulate_many", "read_results", "summarize", "FailedRun", "BatchSummary"):
        assert getattr(cvcclock.scenario, name) is getattr(cvcclock.batch, name)
        assert name in dir(cvcclock.scenario)
    with pytest.raises(AttributeError, match="no attribute 'simulate_manyy'"):
        cvcclock.scenario.simulate_manyy  # noqa: B018
