"""What a user waits for around the release besides the search: the release report and
the Excel export, as whole ``anonymist anonymize`` commands, for this source tree and
a baseline tree measured in the same run (interleaved, round by round).

    python3 tests/benchmarks/bench_release_docs.py --before 1c06f72          # a git revision
    python3 tests/benchmarks/bench_release_docs.py --before /tmp/before --rounds 3
    python3 tests/benchmarks/bench_release_docs.py --only report            # this tree only

(``--before REV`` extracts the revision with ``git archive`` into a temporary folder;
a folder is used as it is.) Workload: Adult (30,162 rows, workload A of bench_user.py:
9 QIs, k=5, 0 %, Loss) and an Adult-like table of 300,000 rows
(``../shared/tools/datagen.py``, generated once into /tmp).

Commands, each in a fresh process with that tree's numba cache warmed by one discarded
run, CPU seconds (user + system, ``wait4``) and wall seconds:

- ``csv``: ``anonymize JOB --output OUT.csv --quiet`` (the command without documents);
- ``report``: the same with ``--report R.pdf``: its extra cost is the report's;
- ``xlsx``: ``anonymize JOB --output OUT.xlsx --quiet``: its extra over ``csv`` is the
  Excel export's (the 300k-row table too);
- ``verify``: ``verify OUT.xlsx JOB`` of the file this tree wrote, run by each tree;
- ``app report`` (``--only`` ``app``): the report as the app's File > Export report
  writes it (no file target: the tables are hashed as CSV), ``export_report`` timed
  in one process after the search (CPU seconds of that call alone), Adult and 300k.

Equality: the report JSONs of both trees are compared (without creation time, search
time and output file name) and the Excel files' worksheet XML byte for byte. The load
average (1 min) is printed with each line: the machine is shared, compare CPU seconds.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from bench_user import _rows_folder, run_process, workloads, write_job  # noqa: E402


def run(tree: Path, argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of ``python -m engine.cli ARGV`` run from ``tree``."""
    wall, cpu, _ = run_process([sys.executable, "-m", "engine.cli", *argv],
                               dict(os.environ, PYTHONPATH=str(tree)), tree, ok=(0,))
    return wall, cpu


APP_REPORT = r'''
import json, sys, time
import engine.api as api
from engine.release_docs.pdf import export_report
import fpdf  # imported by the app before (not counted)
result = api.anonymize(None, api.as_job(sys.argv[1]))
t0 = time.process_time()
export_report(result, sys.argv[2])
print(json.dumps({"cpu": time.process_time() - t0}))
'''


def app_report(tree: Path, job: Path, pdf: Path) -> float:
    """CPU seconds of ``export_report`` without targets, in a process run from ``tree``."""
    out = subprocess.run([sys.executable, "-c", APP_REPORT, str(job), str(pdf)], cwd=tree,
                         env=dict(os.environ, PYTHONPATH=str(tree)), capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])["cpu"]


def baseline(spec: str, tmp: Path) -> Path:
    """The baseline tree: a folder, or a git revision extracted with git archive."""
    if Path(spec).is_dir():
        return Path(spec)
    folder = tmp / "before"
    folder.mkdir()
    archive = subprocess.run(["git", "archive", spec], cwd=ROOT, capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def median(values: list[float]) -> float:
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def report_json(path: Path) -> dict:
    d = json.loads(path.read_text())
    d.pop("created")
    d["transformation"].pop("elapsed_s")
    for key in ("target", "file"):
        d["output"].pop(key)
    return d


def sheet(path: Path) -> bytes:
    return zipfile.ZipFile(path).read("xl/worksheets/sheet1.xml")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", help="baseline: a git revision or a source folder")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="report,xlsx,xlsx300k,app")
    args = ap.parse_args()
    only = set(args.only.split(","))
    with tempfile.TemporaryDirectory(prefix="anonymist-docs-") as tmp:
        tmp = Path(tmp)
        trees = {"after": ROOT}
        if args.before:
            trees = {"before": baseline(args.before, tmp), "after": ROOT}
        job_a = workloads({"A"})[0][2]
        jobs = {"adult": write_job(tmp, job_a)}
        if "xlsx300k" in only or "app" in only:
            big = _rows_folder(300_000)
            job_big = json.loads(json.dumps(job_a).replace(
                str(Path(job_a["data"]["path"]).parent), str(big)))
            (tmp / "big").mkdir()
            jobs["300k"] = write_job(tmp / "big", job_big)
        plan = []  # (label, argv of the command given a tree's output folder)
        for data, job in jobs.items():
            if data == "adult" or "xlsx300k" in only:
                plan.append((f"{data} csv", lambda o, job=job: [
                    "anonymize", str(job), "--quiet", "--output", str(o / "out.csv")]))
            if data == "adult" and "report" in only:
                plan.append((f"{data} report", lambda o, job=job: [
                    "anonymize", str(job), "--quiet", "--output", str(o / "out.csv"),
                    "--report", str(o / "r.pdf")]))
            if (data == "adult" and "xlsx" in only) or (data == "300k" and "xlsx300k" in only):
                plan.append((f"{data} xlsx", lambda o, job=job, data=data: [
                    "anonymize", str(job), "--quiet", "--output", str(o / f"{data}.xlsx")]))
                # every tree verifies the file this tree wrote
                plan.append((f"{data} verify", lambda o, job=job, data=data: [
                    "verify", str(outs["after"] / f"{data}.xlsx"), str(job)]))
        outs = {t: tmp / f"out-{t}" for t in trees}
        for o in outs.values():
            o.mkdir()
        for t, tree in trees.items():  # each tree's numba cache
            run(tree, plan[0][1](outs[t]))
        print(f"{'command':<16}{'tree':<8}{'CPU s (median; all)':<34}{'wall s (median)':<17}load",
              flush=True)
        cpu: dict[tuple[str, str], float] = {}
        for label, argv in plan:
            runs: dict[str, list] = {t: [] for t in trees}
            for _ in range(args.rounds):
                for t, tree in trees.items():
                    runs[t].append(run(tree, argv(outs[t])))
            for t in trees:
                cpus = sorted(r[1] for r in runs[t])
                cpu[label, t] = median(cpus)
                print(f"{label:<16}{t:<8}{median(cpus):6.2f} ({' '.join(f'{c:.2f}' for c in cpus)})"
                      f"{'':<{max(0, 26 - 7 * len(cpus))}}{median([r[0] for r in runs[t]]):8.2f}"
                      f"{'':9}{os.getloadavg()[0]:.1f}", flush=True)
            if "before" in trees and label.endswith("report"):
                same = report_json(outs["before"] / "r.json") == report_json(outs["after"] / "r.json")
                print(f"  report JSON identical: {same}", flush=True)
            if "before" in trees and label.endswith("xlsx"):
                data = label.split()[0]
                same = sheet(outs["before"] / f"{data}.xlsx") == sheet(outs["after"] / f"{data}.xlsx")
                print(f"  worksheet XML identical: {same}", flush=True)
        if "app" in only:
            for data, job in jobs.items():
                times: dict[str, list] = {t: [] for t in trees}
                for _ in range(args.rounds):
                    for t, tree in trees.items():
                        times[t].append(app_report(tree, job, outs[t] / "app.pdf"))
                for t in trees:
                    cpus = sorted(times[t])
                    print(f"{data + ' app':<16}{t:<8}{median(cpus):6.2f} "
                          f"({' '.join(f'{c:.2f}' for c in cpus)})  export_report, no target"
                          f"{'':8}{os.getloadavg()[0]:.1f}", flush=True)
        print("extra CPU over the csv command (median):")
        for data in jobs:
            for what in ("report", "xlsx"):
                if (f"{data} {what}", "after") not in cpu:
                    continue
                parts = [f"{t} {cpu[f'{data} {what}', t] - cpu[f'{data} csv', t]:.2f} s"
                         for t in trees]
                ratio = ""
                if "before" in trees:
                    extra = {t: cpu[f"{data} {what}", t] - cpu[f"{data} csv", t] for t in trees}
                    ratio = (f"  ratio after/before {extra['after'] / extra['before']:.2f}"
                             if extra["before"] > 0 else "")
                print(f"  {data} {what:<7} {', '.join(parts)}{ratio}", flush=True)


if __name__ == "__main__":
    main()
