"""Anonymist as a user measures it (issue 19): process start, first run ever, whole
process, warm search and peak memory, for workloads A-F, with a naive baseline.

    python3 tests/benchmarks/bench_user.py            # A-F (E and F generate 603k / 3M rows once)
    python3 tests/benchmarks/bench_user.py --only A,B,C,D

Workloads (Adult; the E/F tables are Adult-like rows from ../shared/tools/datagen.py):
A 9 QIs, k=5, 0 %, Loss; B 9 QIs, k=5, 4 %, entropy; C 8 QIs + occupation sensitive,
recursive-(4,3)-diversity and k=5, 4 %; D the same with 0.2-closeness (hierarchical
distance) and k=5; E 603,240 rows, k=100, 0 % and 4 % Loss; F 3,000,000 rows, k=5, 4 %.

Per workload: ``process`` is the whole command (``python -m engine.cli anonymize JOB
--output OUT``, writing the released table) in a fresh process with numba's cache
warm, ``peak MB`` its peak resident memory (wait4's ru_maxrss); ``warm`` is a second
``engine.anonymize`` in one process (the search as ARX's figures count it); ``naive``
is a pandas scan (map every QI through its hierarchy, groupby, count) timed on a
random sample of transformations and scaled to the lattice, measured in this run.
Start-up: CPU and wall time of ``anonymist --help`` and of ``import engine`` /
``import engine.api`` (``python -X importtime`` totals). First run ever: workload A
as a whole process with an empty numba cache (``NUMBA_CACHE_DIR`` a new folder),
then after ``python -m engine.warmup`` filled that cache, then again. The machine
is shared: read the figures as noisy.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_engine import naive_scan_seconds  # noqa: E402
from tests.shared_data import SHARED  # noqa: E402

ADULT = SHARED / "data" / "adult"
QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "occupation", "salary-class"]
K5 = {"model": "k-anonymity", "k": 5}
SENSITIVE = "occupation"


def _rows_folder(rows: int) -> Path:
    folder = Path(f"/tmp/anonymist-bench-adult{rows}")
    if not (folder / "adult.csv").exists():
        subprocess.run([sys.executable, str(SHARED / "tools" / "datagen.py"), "adult",
                        "--rows", str(rows), "--out", str(folder)], check=True)
    return folder


def workloads(only: set[str]) -> list[tuple[str, str, dict]]:
    """(name, data folder, job as a dict with absolute hierarchy paths)."""
    def job(folder, privacy, limit, metric, sensitive=False):
        qis = [q for q in QIS if not (sensitive and q == SENSITIVE)]
        attributes = {q: {"type": "quasi-identifying",
                          "hierarchy": str(Path(folder) / f"adult_hierarchy_{q}.csv")}
                      for q in qis}
        if sensitive:
            attributes[SENSITIVE] = {"type": "sensitive", "hierarchy": str(
                Path(folder) / f"adult_hierarchy_{SENSITIVE}.csv")}
        return {"data": {"path": str(Path(folder) / "adult.csv"), "delimiter": ";"},
                "attributes": attributes, "privacy": privacy,
                "transformation": {"suppression_limit": limit},
                "metric": {"name": metric}}

    out = []
    recursive = {"model": "recursive-cl-diversity", "attribute": SENSITIVE, "c": 4, "l": 3}
    closeness = {"model": "t-closeness", "attribute": SENSITIVE, "t": 0.2,
                 "distance": "hierarchical"}
    plan = [("A", None, [K5], 0.0, "loss", False), ("B", None, [K5], 0.04, "entropy", False),
            ("C", None, [K5, recursive], 0.04, "loss", True),
            ("D", None, [K5, closeness], 0.04, "loss", True),
            ("E0", 603_240, [{"model": "k-anonymity", "k": 100}], 0.0, "loss", False),
            ("E4", 603_240, [{"model": "k-anonymity", "k": 100}], 0.04, "loss", False),
            ("F", 3_000_000, [K5], 0.04, "loss", False)]
    for name, rows, privacy, limit, metric, sensitive in plan:
        if name[0] not in only and name not in only:
            continue
        folder = ADULT if rows is None else _rows_folder(rows)
        out.append((name, str(folder), job(folder, privacy, limit, metric, sensitive)))
    return out


def write_job(folder: Path, job: dict) -> Path:
    import tomli_w
    path = folder / "job.toml"
    path.write_bytes(tomli_w.dumps(job).encode())
    return path


def run_process(argv: list[str], env: dict | None = None, cwd: Path = ROOT,
                ok: tuple[int, ...] = (0, 3)) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system, ``wait4``) and peak RSS (MB) of one
    child process run in ``cwd``; an exit code outside ``ok`` raises with its stderr."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=env, cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) not in ok:
        raise RuntimeError(f"{' '.join(argv)} in {cwd} failed:\n{err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def env_with(**extra) -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT), **extra)


def cli(job: Path, out: Path, env: dict | None = None) -> tuple[float, float, float]:
    return run_process([sys.executable, "-m", "engine.cli", "anonymize", str(job), "--output",
                        str(out), "--quiet"], env or env_with())


def child_warm(job_json: str) -> None:
    """In a child: anonymize twice, print the second (warm) run's seconds."""
    import engine
    from engine.api import as_job, as_table
    job = as_job(json.loads(job_json))
    table = as_table(None, job)
    engine.anonymize(table, job)
    t0 = time.perf_counter()
    result = engine.anonymize(table, job)
    print(json.dumps({"warm_s": time.perf_counter() - t0,
                      "checked": result.transformations_checked,
                      "levels": None if result.optimum is None else result.optimum.levels}))


def importtime(statement: str) -> float:
    """Seconds the imports of ``statement`` took (``-X importtime``'s top-level sum)."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", statement],
                         capture_output=True, text=True, env=env_with(), cwd=ROOT, check=True)
    total = 0
    for line in out.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\S.*)$", line)
        if m and not m.group(2).startswith(" "):
            total += int(m.group(1))
    return total / 1e6


def start_up() -> None:
    print("start-up (wall / CPU seconds; import: -X importtime sum)")
    for label, argv in [("anonymist --help", ["-m", "app.launcher", "--help"]),
                        ("anonymist verify --help", ["-m", "app.launcher", "verify", "--help"]),
                        ("python -c pass", ["-c", "pass"])]:
        wall, cpu, rss = run_process([sys.executable, *argv], env_with())
        print(f"  {label:<28} {wall:6.2f} s wall {cpu:6.2f} s CPU {rss:6.0f} MB")
    for statement in ("import engine", "import engine.api", "import engine.cli"):
        print(f"  {statement:<28} {importtime(statement):6.2f} s importing")


def first_run_ever(folder: Path, job: Path) -> None:
    print("first run ever, workload A as a whole process (wall / CPU seconds)")
    with tempfile.TemporaryDirectory(prefix="anonymist-numba-") as cache:
        env = env_with(NUMBA_CACHE_DIR=cache)
        wall, cpu, _ = cli(job, folder / "out.csv", env)
        print(f"  empty numba cache            {wall:6.2f} s wall {cpu:6.2f} s CPU")
    with tempfile.TemporaryDirectory(prefix="anonymist-numba-") as cache:
        env = env_with(NUMBA_CACHE_DIR=cache)
        wall, cpu, _ = run_process([sys.executable, "-m", "engine.warmup"], env)
        print(f"  python -m engine.warmup      {wall:6.2f} s wall {cpu:6.2f} s CPU")
        wall, cpu, _ = cli(job, folder / "out.csv", env)
        print(f"  first run after the warm-up  {wall:6.2f} s wall {cpu:6.2f} s CPU")
        wall, cpu, _ = cli(job, folder / "out.csv", env)
        print(f"  next run (cache warm)        {wall:6.2f} s wall {cpu:6.2f} s CPU")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="A,B,C,D,E,F")
    ap.add_argument("--child")
    args = ap.parse_args()
    if args.child:
        child_warm(args.child)
        return
    only = set(args.only.split(","))
    start_up()
    runs = workloads(only)
    with tempfile.TemporaryDirectory(prefix="anonymist-bench-") as tmp:
        tmp = Path(tmp)
        if "A" in only:
            first_run_ever(tmp, write_job(tmp, runs[0][2]))
        print(f"{'':4}{'rows':>10} {'process':>9} {'CPU':>7} {'peak MB':>8} {'warm':>8} "
              f"{'checked':>8} {'naive':>9}")
        naive: dict[str, float] = {}
        for name, folder, job in runs:
            job_path = write_job(tmp, job)
            cli(job_path, tmp / "out.csv")  # numba's cache for this workload's kernels
            wall, cpu, rss = cli(job_path, tmp / "out.csv")
            out = subprocess.run([sys.executable, __file__, "--child", json.dumps(job)],
                                 capture_output=True, text=True, check=True, env=env_with())
            r = json.loads(out.stdout.strip().splitlines()[-1])
            k_only = all(m["model"] == "k-anonymity" for m in job["privacy"])
            if k_only and folder not in naive:
                naive[folder] = naive_scan_seconds(Path(folder),
                                                   samples=20 if folder == str(ADULT) else 3)
            rows = sum(1 for _ in open(Path(folder) / "adult.csv", "rb")) - 1
            shown = f"{naive[folder]:8.0f}s" if k_only else f"{'-':>9}"
            print(f"{name:<4}{rows:>10,} {wall:8.2f}s {cpu:6.2f}s {rss:8.0f} "
                  f"{r['warm_s']:7.3f}s {r['checked']:>8,} {shown}", flush=True)


if __name__ == "__main__":
    main()
