"""Benchmark of the survey risk measures (engine/sdc) on Adult (not a test; ratios in one run).

    nice python3 tests/benchmarks/bench_sdc_risk.py --repeat 3 [--json out.json]

Adult (30,162 records) with a synthetic sampling weight; in one process, best of
``--repeat`` runs each (CPU seconds of the process: the wall clock on a shared
machine is noise):

* the baseline: the plain class count of the quasi-identifiers (one grouping and a
  bincount: what any risk measure costs at least);
* frequencies and individual risk (``approx`` and ``exact``) with the weight;
* SUDA2 (MSUs, scores, contributions, DIS-SUDA) on 4, 5, 6, 7 and 8 quasi-identifiers:
  the search visits every subset, so each added quasi-identifier about doubles it;
* ``measure_risk`` whole (everything ``anonymist risk`` computes) on 8;
* with ``--files N``: ``anonymist risk`` on Adult resampled to N rows, in memory and
  through DuckDB (``--backend duckdb``), each in a fresh process (wall, CPU, peak
  memory of the process), and the two per-record files compared number by number.

SUDA2's MSU counts on 8 quasi-identifiers are checked against the sample uniques:
every sample unique has at least one MSU, no other record has any.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
QIS = ["age", "education", "marital-status", "native-country", "occupation", "race", "sex",
       "workclass"]


def cpu(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--scaled", type=int, nargs="*", default=[],
                    help="also Adult resampled to these row counts (datagen.py adult)")
    ap.add_argument("--files", type=int, nargs="*", default=[],
                    help="also anonymist risk on Adult resampled to these row counts, in "
                         "memory and through DuckDB")
    ap.add_argument("--wide", type=int, nargs="*", default=[],
                    help="also datagen.py's wide table (70,000 rows) with these numbers "
                         "of quasi-identifiers")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from tests.shared_data import SHARED
    import pandas as pd

    from engine.sdc.frequencies import frequencies
    from engine.sdc.individual import individual_risk
    from engine.sdc.keys import encode_keys, group_ids
    from engine.sdc.measures import measure_risk
    from engine.sdc.suda2 import suda2

    df = pd.read_csv(SHARED / "data" / "adult" / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    rng = np.random.default_rng(1)
    df["w"] = [f"{x:.1f}" for x in rng.uniform(50, 500, len(df))]
    w = df["w"].astype(float).to_numpy()
    keys = encode_keys(df, QIS)
    rows = []

    def baseline():
        ids, size = group_ids(keys.codes)
        return np.bincount(ids, minlength=size)

    base = cpu(baseline, args.repeat)
    rows.append(("class count (baseline), 8 QIs", base))
    rows.append(("frequencies fk, Fk (weighted)", cpu(lambda: frequencies(keys, w),
                                                      args.repeat)))
    fk, Fk = frequencies(keys, w)
    for method in ("approx", "exact"):
        rows.append((f"individual risk {method}", cpu(
            lambda m=method: individual_risk(fk, Fk, True, m), args.repeat)))
    for m in range(4, 9):
        sub = encode_keys(df, QIS[:m])
        rows.append((f"SUDA2, {m} QIs", cpu(lambda s=sub: suda2(s), args.repeat)))
    result = suda2(keys)
    uniques = int((baseline()[group_ids(keys.codes)[0]] == 1).sum())
    assert int((result.score > 0).sum()) == uniques, "records with an MSU != sample uniques"
    rows.append(("measure_risk whole (weight, SUDA2, risky cells), 8 QIs",
                 cpu(lambda: measure_risk(df, QIS, weight="w"), args.repeat)))
    import subprocess
    import tempfile
    datagen = SHARED / "tools" / "datagen.py"
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.scaled:
            out = Path(tmp) / f"adult{n}"
            subprocess.run([sys.executable, str(datagen), "adult", "--rows", str(n), "--out",
                            str(out)], check=True, capture_output=True)
            big = pd.read_csv(out / "adult.csv", sep=";", dtype=str, keep_default_na=False)
            big_keys = encode_keys(big, QIS)
            rows.append((f"SUDA2, 8 QIs, Adult resampled to {n:,} rows",
                         cpu(lambda k=big_keys: suda2(k), 1)))
            rows.append((f"class count, 8 QIs, {n:,} rows",
                         cpu(lambda k=big_keys: np.bincount(group_ids(k.codes)[0]), 1)))
        for q in args.wide:
            out = Path(tmp) / f"wide{q}"
            subprocess.run([sys.executable, str(datagen), "wide", "--qis", str(q), "--rows",
                            "70000", "--out", str(out)], check=True, capture_output=True)
            wide = pd.read_csv(out / "wide.csv", sep=";", dtype=str, keep_default_na=False)
            names = [c for c in wide.columns if c.startswith("q")][:q]
            wide_keys = encode_keys(wide, names)
            rows.append((f"SUDA2, wide table, {q} QIs, 70,000 rows",
                         cpu(lambda k=wide_keys: suda2(k), 1)))
        commands = []
        for n in args.files:
            out = Path(tmp) / f"files{n}"
            subprocess.run([sys.executable, str(datagen), "adult", "--rows", str(n), "--out",
                            str(out)], check=True, capture_output=True)
            per = {}
            for backend in ("memory", "duckdb"):
                per[backend] = out / f"{backend}.csv"
                code = (f"import resource, sys, time; sys.path.insert(0, {str(ROOT)!r}); "
                        f"from engine.cli import main; t = time.perf_counter(); "
                        f"c = time.process_time(); rc = main(['risk', {str(out / 'adult.csv')!r}, "
                        f"'--quasi-identifiers', {','.join(QIS)!r}, '--delimiter', ';', "
                        f"'--backend', {backend!r}, '--per-record', {str(per[backend])!r}]); "
                        f"print(rc, time.perf_counter() - t, time.process_time() - c, "
                        f"resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)")
                line = subprocess.run([sys.executable, "-c", code], check=True,
                                      capture_output=True, text=True).stdout.split()
                commands.append((n, backend, float(line[1]), float(line[2]), float(line[3])))
            a, b = (pd.read_csv(per[k]).to_numpy(float) for k in ("memory", "duckdb"))
            gap = float(np.nanmax(np.abs(a - b))) if a.shape == b.shape else float("inf")
            commands.append((n, f"per-record files: largest difference {gap:.1e}", True, 0, 0))
    for row in commands:
        if isinstance(row[2], bool):
            print(f"{row[0]:,} rows: {row[1]}: {row[2]}")
        else:
            print(f"anonymist risk, {row[0]:,} rows, {row[1]}: wall {row[2]:.1f} s, "
                  f"CPU {row[3]:.1f} s, peak {row[4]:.0f} MB")
    print(f"Adult {len(df):,} records; CPU seconds, best of {args.repeat}")
    print(f"{'step':58s} {'CPU s':>8s} {'x baseline':>11s}")
    for name, t in rows:
        print(f"{name:58s} {t:8.3f} {t / base:11.1f}")
    print(f"SUDA2 on 8 QIs: {int(result.msu_counts.sum()):,} MSUs in {uniques:,} sample "
          f"uniques; sizes {result.msu_counts.tolist()}")
    if args.json:
        args.json.write_text(json.dumps({"rows": len(df), "repeat": args.repeat,
                                         "cpu_s": dict(rows), "baseline_s": base,
                                         "msu_counts": result.msu_counts.tolist()},
                                        indent=2))


if __name__ == "__main__":
    main()
