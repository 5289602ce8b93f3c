"""Benchmark of the heuristic searches on high-dimensional data (issue 4).

    python3 tests/benchmarks/bench_heuristics.py                 # everything, 10 s and 60 s
    python3 tests/benchmarks/bench_heuristics.py --limit 10 --algorithms top-down,genetic

k = 5, 100% suppression limit, Loss with geometric mean; every column with a
``<name>_hierarchy_<col>.csv`` is a quasi-identifier. Each algorithm runs once
per dataset with the longest limit; the figures at shorter limits are read
from its progress stream (reports arrive about every 100 ms and the searches'
decisions never depend on the clock, so this equals a run with the shorter
limit). Loading and preparing the data is not counted, as in ARX's figures.
The machine is shared: treat the numbers as noisy.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from engine.config import AttributeConfig, Job, QUASI_IDENTIFYING, TransformationConfig  # noqa: E402
from engine.data.csv_import import read_csv  # noqa: E402
from engine.data.table import EncodedTable  # noqa: E402
from engine.hierarchy import read_hierarchy  # noqa: E402
from engine.metrics.loss import LossMetric  # noqa: E402
from engine.privacy.k_anonymity import KAnonymity  # noqa: E402
from engine.problem import Problem  # noqa: E402
from engine.search.heuristics import HEURISTICS  # noqa: E402

SHARED = ROOT.parent / "shared"
DATASETS = {
    "creditcard": SHARED / "data" / "highdim" / "creditcard_int.csv",
    "mach": SHARED / "data" / "highdim" / "mach2019_int.csv",
    "wide30": Path("/tmp/wide30/wide.csv"),
}
#: ARX 3.9.2 (issue 4): (bottom-up, top-down, genetic) loss and checked, per limit
ARX = {
    ("creditcard", 10): ((0.9639, 317), (0.6228, 833), (0.7229, 212)),
    ("creditcard", 60): ((0.6623, 19258), (0.6165, 8641), (0.5891, 4426)),
    ("mach", 10): ((0.5152, 1258), (0.5071, 870), (0.5549, 307)),
    ("mach", 60): ((0.5103, 11353), (0.5071, 5599), (0.4956, 3888)),
    ("wide30", 10): ((1.0000, 316), (0.8494, 420), (0.8867, 195)),
    ("wide30", 60): ((1.0000, 2036), (0.8494, 2525), (0.8305, 1482)),
}


def ensure_wide() -> None:
    if not DATASETS["wide30"].exists():
        subprocess.run([sys.executable, str(SHARED / "tools" / "datagen.py"), "wide",
                        "--qis", "30", "--rows", "70000", "--out", "/tmp/wide30",
                        "--seed", "1"], check=True)


def load(csv: Path):
    frame = read_csv(csv, delimiter=";")
    attrs = {}
    for col in frame.columns:
        h = csv.parent / f"{csv.stem}_hierarchy_{col}.csv"
        if h.exists():
            attrs[col] = AttributeConfig(QUASI_IDENTIFYING, read_hierarchy(h, col, delimiter=";"),
                                         str(h))
    return EncodedTable.from_dataframe(frame), attrs


def problem(table, attrs, algorithm: str, limit: float, seed: int) -> Problem:
    job = Job(attributes=attrs, privacy=[KAnonymity(5)],
              transformation=TransformationConfig(suppression_limit=1.0, algorithm=algorithm,
                                                  time_limit_s=limit, seed=seed),
              metric=LossMetric(aggregate="geometric-mean"))
    return Problem(table, job)


def run(table, attrs, algorithm: str, limits: list[float], seed: int) -> dict:
    """Best loss and checked count at each limit, from one run of the longest."""
    reports = []
    p = problem(table, attrs, algorithm, max(limits), seed)
    out = HEURISTICS[algorithm](p, progress=reports.append)
    at = {}
    for limit in limits:
        seen = [r for r in reports if r.elapsed_s <= limit]
        last = seen[-1] if seen else None
        if limit == max(limits):
            at[limit] = (out.optimum.loss if out.optimum else None, out.checked)
        else:
            at[limit] = (last.best_loss if last else None, last.checked if last else 0)
    return at


def verdict(loss, arx_best) -> str:
    """Compare with ARX's figures, which are rounded to 4 decimals."""
    if loss is None or arx_best is None:
        return ""
    if loss < arx_best - 5e-5:
        return "lower than ARX"
    return "same as ARX" if loss <= arx_best + 5e-5 else "higher than ARX"


def warm_up(table, attrs) -> tuple[float, float]:
    """Cold (first, may compile) and warm time of one check."""
    p = problem(table, attrs, "top-down", 1.0, 0)
    t = time.perf_counter()
    p.evaluate(p.lattice.top, cache=False)
    cold = time.perf_counter() - t
    t = time.perf_counter()
    p.evaluate(p.lattice.top, cache=False)
    return cold, time.perf_counter() - t


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--algorithms", default="lightning,top-down,genetic,kgen,datafly,igreedy")
    ap.add_argument("--limits", default="10,60", help="time limits in seconds")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    limits = [float(x) for x in args.limits.split(",")]
    ensure_wide()
    rows = []
    for name in args.datasets.split(","):
        t = time.perf_counter()
        table, attrs = load(DATASETS[name])
        p = problem(table, attrs, "top-down", 1.0, 0)
        print(f"# {name}: {len(attrs)} QIs, {table.n_rows} rows, lattice {p.lattice.size:.3g}, "
              f"loaded in {time.perf_counter() - t:.1f} s", flush=True)
        cold, warm = warm_up(table, attrs)
        print(f"#   one check of the top: cold {cold * 1000:.0f} ms, warm {warm * 1000:.0f} ms",
              flush=True)
        for algorithm in args.algorithms.split(","):
            at = run(table, attrs, algorithm, limits, args.seed)
            for limit in limits:
                loss, checked = at[limit]
                arx = ARX.get((name, int(limit)))
                arx_best = min(a[0] for a in arx) if arx else None
                rows.append((name, int(limit), algorithm, loss, checked, arx_best))
                print(f"{name:10s} {int(limit):3d} s {algorithm:9s} loss {loss:.6f} "
                      f"checked {checked:6d}  ARX best {arx_best}  {verdict(loss, arx_best)}",
                      flush=True)
    print("\n| data | limit | algorithm | loss | checked | ARX best of 3 | |")
    print("|---|---|---|---|---|---|---|")
    for name, limit, algorithm, loss, checked, arx_best in rows:
        print(f"| {name} | {limit} s | {algorithm} | {loss:.4f} | {checked:,} | {arx_best} | "
              f"{verdict(loss, arx_best)} |")


if __name__ == "__main__":
    main()
