"""cvcclock.scenario is an application of the clock's public API: it imports no private module.

Outside its own package it may import only ``cvcclock`` (public names) and ``cvcclock.checks``;
never ``cvcclock._core`` or any other private module, by any spelling of the import.
"""

import ast
import pathlib

import pytest

import cvcclock.scenario

# cvcclock._public: the naming helper every wing calls on its public names;
PUBLIC = {"cvcclock", "cvcclock.checks", "cvcclock._public",
          "cvcclock.batch"}  # the lazy re-export of the names that moved there
SOURCES = sorted(pathlib.Path(cvcclock.scenario.__file__).parent.glob("*.py"))


def cvcclock_imports(path):
    """(line, module, names) of each import of a cvcclock module outside cvcclock.scenario."""
    package = "cvcclock.scenario"
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:      # relative: resolve against cvcclock.scenario
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{module}" if module else base
            found.append((node.lineno, module, tuple(alias.name for alias in node.names)))
    return [(line, module, names) for line, module, names in found
            if module.split(".")[0] == "cvcclock" and not module.startswith(package)]


def test_the_scan_sees_every_module():
    assert {p.name for p in SOURCES} >= {"runner.py", "simulation.py", "simulator.py",
                                         "scenarios.py"}
    assert any(cvcclock_imports(p) for p in SOURCES)        # it does find the public imports


@pytest.mark.parametrize("path", SOURCES, ids=[p.name for p in SOURCES])
def test_scenario_imports_only_the_public_api(path):
    for line, module, names in cvcclock_imports(path):
        where = f"{path.name}:{line}"
        assert module in PUBLIC, f"{where} imports {module}, not the public API"
        private = [name for name in names if name.startswith("_")]
        assert not private, f"{where} imports private {private} from {module}"
    assert "_core" not in path.read_text(), f"{path.name} names the private core"


def test_the_check_catches_private_imports(tmp_path):
    bad = tmp_path / "bad.py"
    for source in ("from cvcclock._core import WorldClock", "import cvcclock._core",
                   "from cvcclock import _core", "from .. import _core",
                   "from ..loop import FrameLoop"):
        bad.write_text(source + "\n")
        imports = cvcclock_imports(bad)
        assert imports and any(m not in PUBLIC or any(n.startswith("_") for n in names)
                               for _, m, names in imports), source
