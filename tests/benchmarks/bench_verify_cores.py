"""`anonymist verify` of a large CSV release on one core and on every core, old code
against new, in turn (not a test).

    nice python3 tests/benchmarks/bench_verify_cores.py --rows 10000000 --ref 985201d

Generates Adult-like rows with ../shared/tools/datagen.py (once, into --dir), anonymizes
them with DuckDB (bench_bigdata's job: eight quasi-identifiers, salary-class sensitive,
k = 5, 4 %), then runs the whole command ``verify RELEASE.csv JOB`` --repeat times,
each time: the old code (--ref, checked out with ``git worktree`` into a temporary
folder, removed afterwards) and this checkout, each pinned to one core (``taskset -c
0``) and then given every core, one run after the other so the machine's load falls
on all alike. Each run is its own process under /usr/bin/time -v: wall, CPU (user +
sys), peak resident memory; the load average before each run is kept. The printed
reports of old and new code must be equal (the same verdict, counts and messages).
Medians are printed as a table; --json keeps every run.

On a loaded machine a second core may not show: Linux gives each session (autogroup)
a fair share of the cores whatever its threads. ``--gil`` measures instead whether the
pieces' parsing and grouping let the GIL go: on one core, a worker thread reads
pieces while the main thread runs a Python loop; the loop gets CPU only while the
worker does not hold the GIL (a control worker whose C calls hold it shows the
difference).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_bigdata import DATAGEN, job_text  # noqa: E402


def measured(code: Path, cores: str, args: list[str]) -> dict:
    """``python -m app.launcher ARGS`` of the checkout ``code`` on ``cores`` (taskset)."""
    env = dict(os.environ, PYTHONPATH=str(code))
    load = os.getloadavg()[0]
    p = subprocess.run(["taskset", "-c", cores, "/usr/bin/time", "-v", sys.executable,
                        "-m", "app.launcher", *args], capture_output=True, text=True,
                       env=env, cwd=str(code))

    def field(name: str) -> str:
        m = re.search(rf"{re.escape(name)}: (.+)", p.stderr)
        return m.group(1).strip() if m else "0"
    wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")
    seconds = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall)))
    report = p.stdout[:p.stdout.rfind("}") + 1]
    return {"wall_s": seconds,
            "cpu_s": float(field("User time (seconds)")) + float(field("System time (seconds)")),
            "peak_mb": int(field("Maximum resident set size (kbytes)")) / 1024,
            "load": load, "exit": p.returncode, "report": report}


def gil_share(release: Path, pieces: int = 12) -> None:
    """The ``--gil`` measurement, in this process pinned to one core."""
    import threading
    import time

    sys.path.insert(0, str(ROOT))
    from engine.verifier import csv_rows
    from engine.verify import looks_pseudonymized
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    with open(release, encoding="utf-8") as f:
        columns = f.readline().rstrip("\r\n").split(";")
    reading = csv_rows._Reading(release, ";", "utf8", columns, columns, {},
                                looks_pseudonymized, (), None, csv_rows.PIECE_BYTES, 1)
    cuts = csv_rows.boundaries(release, csv_rows.PIECE_BYTES, False)
    data = open(release, "rb").read(256 << 20)

    def worker_and_loop(work) -> tuple[float, float]:
        done = {}

        def run():
            t = time.thread_time()
            work()
            done["cpu"] = time.thread_time() - t
        thread = threading.Thread(target=run)
        t = time.thread_time()
        thread.start()
        while "cpu" not in done:
            pass
        loop = time.thread_time() - t
        thread.join()
        return done["cpu"], loop

    def read_pieces():
        for i in range(min(pieces, len(cuts) - 1)):
            reading.piece(i, cuts, False)

    def hold_the_gil():
        for _ in range(12):
            data.count(b"\x00")  # about 60 ms a call, the GIL held
    for name, work in (("pieces parsed and grouped", read_pieces),
                       ("control: C calls holding the GIL", hold_the_gil)):
        worker, loop = worker_and_loop(work)
        print(f"one core, {name}: worker {worker:.2f} s of CPU, the main thread's "
              f"Python loop {loop:.2f} s meanwhile ({loop / worker:.2f} x)", flush=True)


def prepared(folder: Path, rows: int) -> tuple[Path, Path]:
    """The release and its job in ``folder`` (made once)."""
    folder.mkdir(parents=True, exist_ok=True)
    data, job, release = folder / "adult.csv", folder / "job.toml", folder / "release.csv"
    if not data.exists():
        subprocess.run([sys.executable, str(DATAGEN), "adult", "--rows", str(rows),
                        "--out", str(folder)], check=True)
    job.write_text(job_text(folder, str(data), 5, "duckdb", 0.04))
    if not release.exists():
        subprocess.run([sys.executable, "-m", "app.launcher", "anonymize", str(job),
                        "--output", str(release), "--quiet"], check=True, cwd=str(ROOT),
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    return release, job


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/anonymist-verify-cores"))
    ap.add_argument("--ref", default=None, help="the old code's commit (default: none)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--gil", action="store_true", help="only the GIL measurement")
    a = ap.parse_args()
    release, job = prepared(a.dir, a.rows)
    if a.gil:
        gil_share(release)
        return
    every = ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))
    codes = {"new": ROOT}
    with tempfile.TemporaryDirectory(prefix="verify-ref-") as tmp:
        if a.ref:
            old = Path(tmp) / "old"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old),
                            a.ref], check=True, capture_output=True)
            codes = {"old": old, "new": ROOT}
        runs = []
        try:
            for i in range(a.repeat):
                for name, code in codes.items():
                    for cores in ("0", every):
                        r = measured(code, cores, ["verify", str(release), str(job)])
                        r.update(code=name, cores=len(cores.split(",")), repeat=i)
                        runs.append(r)
                        print(f"{name} cores={r['cores']} wall {r['wall_s']:.2f} s cpu "
                              f"{r['cpu_s']:.2f} s peak {r['peak_mb']:.0f} MB load "
                              f"{r['load']:.2f} exit {r['exit']}", flush=True)
        finally:
            if a.ref:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                                str(Path(tmp) / "old")], capture_output=True)
    reports = {r["report"] for r in runs}
    print(f"\nreports of every run equal: {len(reports) == 1}")
    print(f"{'code':5} {'cores':>5} {'wall s':>7} {'CPU s':>7} {'CPU/wall':>8} "
          f"{'peak MB':>8} {'load':>5}")
    for name in codes:
        for n in (1, len(every.split(","))):
            sel = [r for r in runs if r["code"] == name and r["cores"] == n]
            med = {k: statistics.median(r[k] for r in sel)
                   for k in ("wall_s", "cpu_s", "peak_mb", "load")}
            print(f"{name:5} {n:>5} {med['wall_s']:>7.2f} {med['cpu_s']:>7.2f} "
                  f"{med['cpu_s'] / med['wall_s']:>8.2f} {med['peak_mb']:>8.0f} "
                  f"{med['load']:>5.2f}")
    if a.json:
        a.json.write_text(json.dumps([{k: v for k, v in r.items() if k != "report"}
                                      for r in runs], indent=1))


if __name__ == "__main__":
    main()
