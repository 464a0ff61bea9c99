"""Public names keep one module name wherever their code lives (numpy's ``set_module``).

A wing's ``__init__`` re-exports what its private modules define and calls
:func:`publish`, so ``repr``, pickles, results files and the API reference name the module a
user imports from (``cvcclock.replay.InputTrace``), and a later move of the code inside the
wing breaks nothing a user saved.
"""

from __future__ import annotations

from typing import Any


def publish(module: str, namespace: dict[str, Any], names: list[str]) -> None:
    """Set ``__module__`` to ``module`` on each class and function of ``names`` in ``namespace``.

    Values that are neither (constants) are left as they are, and so is what the wing did not
    define: a type alias's value (``Executor = Any``) keeps its own module.
    """
    for name in names:
        value = namespace[name]
        if not (isinstance(value, type) or callable(value) and hasattr(value, "__code__")):
            continue
        if value.__module__ == module or value.__module__.startswith(module + "."):
            value.__module__ = module
