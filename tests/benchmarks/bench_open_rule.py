"""How the app opens a large file with no setting (not a test): the default rule
(``engine.backends.browse.out_of_core_backend`` with ``EngineConfig()``) and the time to
its first page.

    nice python tests/benchmarks/bench_open_rule.py /tmp/adult10m/adult.csv

Prints the file's size, whether the rule opens it out of core, and the seconds until
the first 100 rows are at hand: out of core, opening (columns and first rows read by
DuckDB) and the first page; in memory, reading the whole file (``--in-memory`` forces
that for a comparison). Peak RSS at the end.
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("csv", type=Path)
    p.add_argument("--in-memory", action="store_true")
    args = p.parse_args()
    from engine.backends.browse import OutOfCoreData, out_of_core_backend
    from engine.config import EngineConfig
    start = time.perf_counter()
    out = out_of_core_backend(args.csv, EngineConfig()) and not args.in_memory
    if out:
        data = OutOfCoreData(args.csv)
        page = data.page(0, 100)
        data.close()
    else:
        from engine.data.csv_import import read_csv_encoded
        table = read_csv_encoded(args.csv, delimiter=";")
        page = table.n_rows
    took = time.perf_counter() - start
    print(f"{args.csv}: {args.csv.stat().st_size / 2**20:,.0f} MB, "
          f"{'out of core' if out else 'in memory'}, first page in {took:.1f} s "
          f"({len(page) if out else page} rows at hand), peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")


if __name__ == "__main__":
    main()
