"""Engine benchmark (issue 2): optimal search on Adult and on 1,000,000 Adult rows.

    python tests/benchmarks/bench_engine.py [--rows 1000000] [--quick]

Each configuration runs in a fresh subprocess, reporting the first run (numba
functions loaded from the on-disk cache, or compiled when the cache is cold),
the warm run (same process, again), transformations checked and the peak
resident memory. The baseline, measured in the same run, is a naive pandas
scan: per transformation, map every column through its hierarchy and
``groupby().size()``; it is timed on a random sample of transformations and
scaled to the whole lattice. ARX 3.9.2's figures from the issue are printed
beside ours.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "occupation", "salary-class"]
ARX = {("adult", 5, 0.0, "loss"): "0.6 s (181 checked)",
       ("adult", 5, 0.04, "entropy"): "4 s (2,768 checked)",
       ("big", 100, 0.0, "loss"): "1.8 s (603,240 rows)",
       ("big", 100, 0.04, "entropy"): "4.5 s (603,240 rows)"}


def config(folder: Path, k: int, limit: float, metric: str) -> dict:
    return {"attributes": {q: {"type": "quasi-identifying",
                               "hierarchy": str(folder / f"adult_hierarchy_{q}.csv")}
                           for q in QIS},
            "privacy": [{"model": "k-anonymity", "k": k}],
            "transformation": {"suppression_limit": limit},
            "metric": {"name": metric, "monotonic": metric == "entropy"}}


def child(folder: str, k: int, limit: float, metric: str) -> None:
    sys.path.insert(0, str(ROOT))
    import engine
    from engine.data.csv_import import read_csv
    t0 = time.perf_counter()
    df = read_csv(Path(folder) / "adult.csv", delimiter=";", encoding="utf-8", header=True,
                  categorical=True)
    load = time.perf_counter() - t0
    cfg = config(Path(folder), k, limit, metric)
    t0 = time.perf_counter()
    first = engine.anonymize(df, cfg)
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    warm_result = engine.anonymize(df, cfg)
    warm = time.perf_counter() - t0
    assert warm_result.optimum.levels == first.optimum.levels
    print(json.dumps({"rows": len(df), "load_s": load, "first_s": cold, "warm_s": warm,
                      "checked": warm_result.transformations_checked,
                      "lattice": warm_result.lattice_size,
                      "levels": list(warm_result.optimum.levels.values()),
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def naive_scan_seconds(folder: Path, samples: int, seed: int = 1) -> float:
    """Naive pandas time per transformation (mean over a random sample) x lattice size."""
    import numpy as np
    import pandas as pd
    df = pd.read_csv(folder / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    maps = []
    for q in QIS:
        rows = pd.read_csv(folder / f"adult_hierarchy_{q}.csv", sep=";", header=None, dtype=str,
                           keep_default_na=False)
        maps.append([dict(zip(rows[0], rows[l])) for l in range(rows.shape[1])])
    heights = [len(m) for m in maps]
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    for _ in range(samples):
        levels = [int(rng.integers(0, h)) for h in heights]
        gen = pd.DataFrame({q: df[q].map(maps[j][levels[j]]) for j, q in enumerate(QIS)})
        sizes = gen.groupby(QIS, sort=False).size()
        _ = (sizes[sizes < 5]).sum()
    per = (time.perf_counter() - t0) / samples
    return per * int(np.prod(heights))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--quick", action="store_true", help="Adult only")
    ap.add_argument("--child", nargs=4)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), float(args.child[2]), args.child[3])
        return
    runs = [("adult", SHARED / "data" / "adult", 5, 0.0, "loss"),
            ("adult", SHARED / "data" / "adult", 5, 0.04, "entropy")]
    if not args.quick:
        big = Path(f"/tmp/anonymist-bench-adult{args.rows}")
        if not (big / "adult.csv").exists():
            subprocess.run([sys.executable, str(SHARED / "tools" / "datagen.py"), "adult",
                            "--rows", str(args.rows), "--out", str(big)], check=True)
        runs += [("big", big, 100, 0.0, "loss"), ("big", big, 100, 0.04, "entropy"),
                 ("big", big, 5, 0.0, "loss"), ("big", big, 5, 0.04, "entropy")]
    # the first run with an empty numba cache: the one-time compile cost
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, __file__, "--child", str(runs[0][1]), "5", "0.0",
                              "loss"], capture_output=True, text=True, check=True, env=env)
        cold = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"numba compile (empty cache), Adult k=5 0% loss: first run {cold['first_s']:.2f} s, "
          f"warm {cold['warm_s']:.3f} s")
    naive = {}
    print(f"{'data':>8} {'k':>4} {'supp':>5} {'metric':>8} {'rows':>9} {'load':>6} {'first':>7} "
          f"{'warm':>7} {'checked':>8} {'peak MB':>8} {'naive scan':>11} {'ratio':>7}  ARX 3.9.2")
    for name, folder, k, limit, metric in runs:
        out = subprocess.run([sys.executable, __file__, "--child", str(folder), str(k),
                              str(limit), metric], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        if folder not in naive:
            naive[folder] = naive_scan_seconds(folder, samples=40 if name == "adult" else 5)
        ratio = naive[folder] / r["warm_s"]
        print(f"{name:>8} {k:>4} {limit:>5.2f} {metric:>8} {r['rows']:>9,} {r['load_s']:>6.2f} "
              f"{r['first_s']:>7.3f} {r['warm_s']:>7.3f} {r['checked']:>8,} {r['peak_mb']:>8.0f} "
              f"{naive[folder]:>10.0f}s {ratio:>6.0f}x  {ARX.get((name, k, limit, metric), '')}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
