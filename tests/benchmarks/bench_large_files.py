"""Large files as a user measures them (issue 19 item 3): workloads E and F as whole
``anonymist anonymize`` processes, and the phases of one anonymize run, for this
source tree and optionally an earlier one, interleaved in one run.

    python3 tests/benchmarks/bench_large_files.py                      # E0, E4, F
    python3 tests/benchmarks/bench_large_files.py --before /tmp/before --rounds 2
    python3 tests/benchmarks/bench_large_files.py --before /tmp/before --only F --verify

(``/tmp/before``: an earlier tree, e.g. ``git archive fcc5038 | tar -x -C /tmp/before``.)
With ``--before`` a tree of 3bb7877 (the code issue 19's side-by-side run with ARX
measured) and ``--arx``, each workload also prints an estimate of this tree's
whole-process ratio to ARX: the issue's measured ratio times the median CPU of this
tree over that of 3bb7877, both measured in this run (ARX itself is not installed here).
Workloads are bench_user.py's (E: 603,240 Adult-like rows, k=100, 0 % / 4 %; F:
3,000,000 rows, k=5, 4 %; the tables are generated once by ../shared/tools/datagen.py).

``process``: ``python -m engine.cli anonymize JOB --output OUT --quiet`` in a fresh
process (numba's cache of that tree warmed by one discarded run): wall seconds, CPU
seconds (user + system from ``wait4``, all threads) and peak RSS; the trees alternate
run by run and the released files are compared byte for byte. ``phases`` (with
``--phases``, F): the same steps in one process, CPU seconds each: import, read the
CSV, encode, prepare the problem, search, build the released table, write the CSV.
``--verify``: ``python -m engine.cli verify OUT JOB`` of this tree's release, run by
each tree in turn: CPU seconds, peak RSS, and whether the reports are identical.
The machine is shared: compare CPU seconds, measured in the same minutes.
"""
from __future__ import annotations

import argparse
import filecmp
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from bench_user import run_process, workloads, write_job  # noqa: E402

PHASES = r'''
import json, resource, sys, time
from pathlib import Path
def clock():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return time.perf_counter(), r.ru_utime + r.ru_stime
marks, t0 = [], clock()
def mark(name):
    global t0
    t = clock(); marks.append((name, t[1] - t0[1])); t0 = t
import engine.api as api
from engine.data.csv_import import read_csv
from engine.data.table import EncodedTable
from engine.problem import Problem
from engine.export import targets
mark("import")
job = api.as_job(sys.argv[1])
frame = read_csv(job.resolve(job.data.path), delimiter=job.data.delimiter,
                 encoding=job.data.encoding, header=True, categorical=True)
mark("read")
table = EncodedTable.from_dataframe(frame); del frame
mark("encode")
problem = Problem(table, job)
mark("prepare")
result = api.anonymize_prepared(problem)
mark("search")
if hasattr(targets, "write_released"):  # the encoded writer
    released = result.transformed(); mark("release")
    targets.write_released(released, targets.file_target(sys.argv[2]))
else:  # the DataFrame of the whole table, written by pandas
    frame = result.output; mark("release")
    targets.write_table(frame, targets.file_target(sys.argv[2]))
mark("write")
print(json.dumps({"cpu": {n: round(c, 2) for n, c in marks},
                  "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))
'''


#: issue 19's whole-process ratios (Anonymist at 3bb7877 / ARX 3.9.2, measured side by side)
ISSUE_RATIOS = {"A": 1.53, "B": 0.90, "C": 1.11, "D": 0.88, "E0": 1.38, "E4": 0.82, "F": 1.55}


def median(values: list[float]) -> float:
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def anonymize(tree: Path, job: Path, out: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak MB of the command, run from ``tree`` (``-m``
    imports from the working folder first)."""
    return run_process([sys.executable, "-m", "engine.cli", "anonymize", str(job), "--output",
                        str(out), "--quiet"], dict(os.environ, PYTHONPATH=str(tree)), tree,
                       ok=(0,))


def verify(tree: Path, job: Path, out: Path) -> tuple[float, float, float, bytes]:
    """``anonymist verify OUT JOB`` run from ``tree``: wall, CPU, peak MB, its report."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "engine.cli", "verify", str(out), str(job)],
                            cwd=tree, env=dict(os.environ, PYTHONPATH=str(tree)),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    report = proc.stdout.read()
    proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise RuntimeError(f"verify in {tree} failed")
    return (time.perf_counter() - t0, usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss / 1024, report)


def phases(tree: Path, job: Path, out: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", PHASES, str(job), str(out)], cwd=tree,
                          env=dict(os.environ, PYTHONPATH=str(tree)), capture_output=True,
                          text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", type=Path, help="an earlier source tree to compare with")
    ap.add_argument("--only", default="E0,E4,F")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--phases", action="store_true", help="also time F's phases")
    ap.add_argument("--arx", action="store_true",
                    help="with --before a tree of 3bb7877: estimate the ratio to ARX")
    ap.add_argument("--verify", action="store_true",
                    help="also time `anonymist verify` of this tree's release, each tree")
    args = ap.parse_args()
    trees = {"after": ROOT} if args.before is None else {"before": args.before, "after": ROOT}
    only = set(args.only.split(","))
    with tempfile.TemporaryDirectory(prefix="anonymist-large-") as tmp:
        tmp = Path(tmp)
        for name, _, job in [w for w in workloads(only | {n[0] for n in only})
                             if w[0] in only]:
            job_path = write_job(tmp, job)
            outs = {t: tmp / f"{name}-{t}.csv" for t in trees}
            runs: dict[str, list] = {t: [] for t in trees}
            for t, tree in trees.items():
                anonymize(tree, job_path, outs[t])  # this tree's numba cache
            for _ in range(args.rounds):
                for t, tree in trees.items():
                    runs[t].append(anonymize(tree, job_path, outs[t]))
            same = all(filecmp.cmp(outs[t], outs["after"], shallow=False) for t in trees)
            for t in trees:
                cpu = " ".join(f"{r[1]:.2f}" for r in sorted(runs[t], key=lambda r: r[1]))
                wall = " ".join(f"{r[0]:.1f}" for r in sorted(runs[t]))
                rss = max(r[2] for r in runs[t])
                print(f"{name:3} {t:7} CPU {cpu} s  wall {wall} s  peak {rss:.0f} MB  "
                      f"(load {os.getloadavg()[0]:.1f}; releases identical: {same})",
                      flush=True)
            if args.arx and "before" in runs and name in ISSUE_RATIOS:
                cpu = {t: median([r[1] for r in runs[t]]) for t in runs}
                print(f"{name:3} estimated whole-process ratio to ARX: "
                      f"{ISSUE_RATIOS[name]:.2f} x {cpu['after']:.2f} / {cpu['before']:.2f} = "
                      f"{ISSUE_RATIOS[name] * cpu['after'] / cpu['before']:.2f}", flush=True)
            if args.verify:
                checks: dict[str, list] = {t: [] for t in trees}
                for _ in range(args.rounds):
                    for t, tree in trees.items():
                        checks[t].append(verify(tree, job_path, outs["after"]))
                same = len({r[3] for runs_ in checks.values() for r in runs_}) == 1
                for t in trees:
                    cpu = " ".join(f"{r[1]:.2f}" for r in sorted(checks[t], key=lambda r: r[1]))
                    rss = max(r[2] for r in checks[t])
                    print(f"{name:3} {t:7} verify CPU {cpu} s  peak {rss:.0f} MB  "
                          f"(load {os.getloadavg()[0]:.1f}; reports identical: {same})",
                          flush=True)
            if args.phases and name == "F":
                for t, tree in trees.items():
                    print(f"F   {t:7} phases {json.dumps(phases(tree, job_path, outs[t]))}",
                          flush=True)


if __name__ == "__main__":
    main()
