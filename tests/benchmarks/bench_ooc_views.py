"""Out-of-core views benchmark (not part of the test run): sorting the data table and
the analyses' scans on the app's Parquet copy.

    python tests/benchmarks/bench_ooc_views.py [--rows 10000000] [--data adult.csv]

On an Adult-like CSV (generated with ../shared/tools/datagen.py unless ``--data`` is
given) prints, as the app's workers call them (``engine.backends.browse.OutOfCoreData``):
the row count with the Parquet copy of the file's text; one sort per column and
direction (``OutOfCoreData.sort``) and a page at the end of that order; and the
insensitive columns' distributions in one scan (``DuckDBBackend.column_counts``)
from the CSV and from the copy (``lend_copy``), checked equal. Peak RSS at the end.
"""
from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from engine.backends.browse import OutOfCoreData  # noqa: E402
from engine.backends import data_source  # noqa: E402
from engine.backends.duckdb_backend import DuckDBBackend  # noqa: E402
from engine.config import DataConfig, Job  # noqa: E402
from engine.data.datatypes import IntegerType  # noqa: E402

DATAGEN = ROOT.parent / "shared" / "tools" / "datagen.py"
COUNTED = ["occupation", "workclass", "native-country", "salary-class"]


def timed(fn, *args):
    start = time.perf_counter()
    value = fn(*args)
    return value, time.perf_counter() - start


def pairs(table, name: str) -> list:
    col = table.column(name)
    return sorted(zip(col.dictionary[col.codes].tolist(), table.weights.tolist()))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--data", help="an Adult-like CSV (';') instead of a generated one")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-ooc-") as tmp:
        path = Path(args.data) if args.data else Path(tmp) / "adult.csv"
        if not args.data:
            subprocess.run([sys.executable, str(DATAGEN), "adult", "--rows", str(args.rows),
                            "--seed", "3", "--out", tmp], check=True, capture_output=True)
        job = Job(data=DataConfig(str(path), ";", "utf-8"))
        backend = DuckDBBackend(data_source(job, str(path)), "1GB")
        data = OutOfCoreData(path)
        try:
            from_csv, t = timed(lambda: backend.column_counts(COUNTED))
            print(f"column_counts of {len(COUNTED)} columns from the CSV: {t:.2f} s")
            n, t = timed(data.count_rows)
            print(f"{n:,} rows counted and copied to Parquet: {t:.1f} s")
            assert data.lend_copy(backend)
            from_copy, t = timed(lambda: backend.column_counts(COUNTED))
            print(f"column_counts of {len(COUNTED)} columns from the copy: {t:.2f} s")
            assert all(pairs(from_csv[c], c) == pairs(from_copy[c], c) for c in COUNTED)
            for name, kind, ascending in (("age", IntegerType(), True),
                                          ("age", IntegerType(), False),
                                          ("education", None, True)):
                key, t = timed(data.sort, name, ascending, kind)
                _, page = timed(data.page, n - 600, 500, key)
                print(f"sort by {name} ({'ascending' if ascending else 'descending'}): "
                      f"{t:.2f} s; a page at its end {page:.2f} s")
        finally:
            data.close()
            backend.close()
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
