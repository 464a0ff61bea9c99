"""Batches: seeded runs of a scenario on a process pool or a Dask cluster, nothing lost.

:func:`simulate_many` runs ``simulate(scenario, seed=seed, **options)`` for every seed, in
chunks on the executor, and yields the results in seed order, ``==`` to serial runs; a run
that raises becomes a :class:`FailedRun`; with ``out=`` every result is appended to a JSON
Lines results file as it completes, and the same call again resumes. :func:`read_results`
reads such a file back, :func:`repair_results` moves its damaged lines aside;
:func:`summarize` counts and describes a batch.

The wing stands on :mod:`cvcclock.scenario`, which knows nothing of it (``from
cvcclock.scenario import simulate_many`` still works: a lazy re-export of this module's
names).
"""

from cvcclock._public import publish
from cvcclock.batch._file import Repair, read_results, repair_results
from cvcclock.batch._progress import ProgressCallback
from cvcclock.batch._records import BatchResult, FailedRun, KeptResult
from cvcclock.batch._simulate import TARGET_CHUNK_SECONDS, Executor, refused, simulate_many
from cvcclock.batch._summary import BatchSummary, Statistic, summarize

__all__ = ["TARGET_CHUNK_SECONDS", "BatchResult", "BatchSummary", "Executor", "FailedRun",
           "KeptResult", "ProgressCallback", "Repair", "Statistic", "read_results", "refused",
           "repair_results", "simulate_many", "summarize"]

publish(__name__, globals(), __all__)
