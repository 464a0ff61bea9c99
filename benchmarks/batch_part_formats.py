"""A results part as JSON Lines (what batches write) against Parquet, per result, in a worker.

::

    pip install pyarrow        # not a dependency of cvcclock: this script alone needs it
    python benchmarks/batch_part_formats.py

The README's CloseCall, 600 results in chunks of 60 (a part each), 5 rounds alternated;
printed per format: the median CPU to write a part and to read it back, per result, and its
bytes per result. The Parquet rows are the most favourable case for Parquet: a schema
flattened by hand for this scenario (a trajectory step as one struct of ``object.property``
floats, the records as a list of floats), zstd-compressed. JSON Lines holds any result
(records and properties of any type, tagged values, non-finite floats) with no schema, and
its file can be appended to line by line.
"""

from __future__ import annotations

import io
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from cvcclock.batch._records import BatchKey, decode_record, encode_record, line_bytes
from cvcclock.replay import FORMAT_VERSION
from cvcclock.scenario import simulate

CHUNK = 60


def parquet_rows(chunk: list[Any]) -> list[dict[str, Any]]:
    return [{"seed": r.seed, "termination_type": r.termination_type.value, "steps": r.steps,
             "gap": [v for _, v in r.records["gap"]],
             "trajectory": [{f"{name}.{key}": x for name, props in step.items()
                             for key, x in props.items()} for step in r.trajectory],
             "actions": [{name: a[0].value for name, a in step.items()} for step in r.actions]}
            for r in chunk]


def main() -> int:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        print("this script needs pyarrow: pip install pyarrow", file=sys.stderr)
        return 2
    sys.path.insert(0, str(Path(__file__).parent))
    from batch_scaling import CloseCall

    scenario = CloseCall()
    key = BatchKey.of(scenario, {}, scenario.dt, FORMAT_VERSION)
    results = [simulate(scenario, seed=seed) for seed in range(10 * CHUNK)]

    def write_jsonl(chunk: list[Any]) -> bytes:
        return b"".join(line_bytes(encode_record(r, key)) for r in chunk)

    def read_jsonl(data: bytes) -> object:
        return [decode_record(line) for line in data.splitlines()]

    def write_parquet(chunk: list[Any]) -> bytes:
        buffer = io.BytesIO()
        pq.write_table(pa.Table.from_pylist(parquet_rows(chunk)), buffer, compression="zstd")
        return buffer.getvalue()

    def read_parquet(data: bytes) -> object:
        return pq.read_table(io.BytesIO(data)).to_pylist()

    formats = {"jsonl": (write_jsonl, read_jsonl), "parquet": (write_parquet, read_parquet)}
    samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in formats}
    for _ in range(5):
        for name, (write, read) in formats.items():
            for start in range(0, len(results), CHUNK):
                chunk = results[start:start + CHUNK]
                cpu = time.process_time()
                data = write(chunk)
                wrote = time.process_time() - cpu
                cpu = time.process_time()
                read(data)
                samples[name].append((wrote / CHUNK, (time.process_time() - cpu) / CHUNK,
                                      len(data) / CHUNK))
    for name, values in samples.items():
        write_us, read_us, size = (statistics.median(v[i] for v in values) for i in range(3))
        print(f"{name:8} write {write_us * 1e6:6.0f} µs/result  read {read_us * 1e6:6.0f} "
              f"µs/result  {size:7.0f} bytes/result")
    return 0


if __name__ == "__main__":
    sys.exit(main())
