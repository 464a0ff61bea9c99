"""The commands ``.ci/run`` runs, as the README and the docs quote them."""

from __future__ import annotations

from pathlib import Path

CI_RUN = Path(__file__).resolve().parents[2] / ".ci" / "run"


def ci_commands() -> list[str]:
    """Each line of ``.ci/run``, its continuation lines joined, stripped of the indent of the
    stage function it is in and of the ``|| exit`` that ends a ``&&`` list there (errexit does
    not see a failure on the left of ``&&``)."""
    joined, lines = "", []
    for line in CI_RUN.read_text(encoding="utf-8").splitlines():
        if line.endswith("\\"):
            joined += line[:-1].strip() + " "
            continue
        lines.append((joined + line.strip()).removesuffix(" || exit"))
        joined = ""
    return lines
