"""``python -m cvcclock bench``: what the hot calls cost on this machine, beside the peers.

:mod:`._cases` holds every row as a case (a statement, what it is read against); :mod:`._table`
times them in interleaved rounds and prints the table (:func:`run_bench`). ``benchmarks/``
times the same cases with pytest-benchmark.
"""

from cvcclock._public import publish
from cvcclock.bench._table import (
    GOALS,
    Goal,
    Prepared,
    Skipped,
    machine,
    prepare,
    print_table,
    run_bench,
    run_rounds,
    summarise,
)

__all__ = ["GOALS", "Goal", "Prepared", "Skipped", "machine", "prepare", "print_table",
           "run_bench", "run_rounds", "summarise"]

publish(__name__, globals(), __all__)
