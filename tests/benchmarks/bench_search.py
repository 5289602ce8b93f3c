"""Warm optimal search, before and after a change, interleaved (issue 19, item 4).

    python3 tests/benchmarks/bench_search.py --before /tmp/old-tree --only A,B,C,E0,E4
    git archive OLD_COMMIT | tar -x -C /tmp/old-tree      # how to get an old tree

For each workload of ``bench_user.py`` (A-F, E0/E4 the 0 % / 4 % runs of E), each
source tree (``--before``, then this one) runs in its own process that prepares
the table once, anonymizes once (numba's kernels loaded) and then ``--runs`` more
times; a warm search is one such ``engine.anonymize`` on the already encoded table
(as ``bench_user.py``'s ``warm``: the problem is prepared again, the CSV is not read
again). The trees alternate per workload and round (``--rounds``), so load changes
hit both. Printed per tree: the least and the median CPU seconds (user + system of
the process during the call) and wall seconds of a warm search, the transformations
checked and the optimum's levels and loss (which must agree between the trees).
On a shared machine compare CPU seconds: the wall clock grows with the load.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def child(tree: str, name: str, runs: int) -> None:
    """In a child process whose path starts at ``tree``: time warm searches."""
    import resource
    import time

    # the tree's own modules only (this script's folder would bring this tree's)
    sys.path[:] = [tree, str(Path(tree) / "tests" / "benchmarks")] + [
        p for p in sys.path if Path(p or ".").resolve() not in (HERE, ROOT)]
    import bench_user
    import engine
    assert Path(engine.__file__).resolve().is_relative_to(Path(tree).resolve()), engine.__file__
    from engine.api import as_job, as_table

    _, _, job_dict = bench_user.workloads({name})[0]
    job = as_job(job_dict)
    table = as_table(None, job)
    engine.anonymize(table, job)

    def cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    cpus, walls = [], []
    for _ in range(runs):
        c0, t0 = cpu(), time.perf_counter()
        result = engine.anonymize(table, job)
        walls.append(time.perf_counter() - t0)
        cpus.append(cpu() - c0)
    optimum = result.optimum
    print(json.dumps({"cpu": cpus, "wall": walls, "checked": result.transformations_checked,
                      "levels": None if optimum is None else list(optimum.levels.values()),
                      "loss": None if optimum is None else optimum.loss_json()}))


def measure(tree: Path, name: str, runs: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, __file__, "--child", str(tree), "--only", name,
                          "--runs", str(runs)], capture_output=True, text=True, env=env,
                         cwd=tree, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", type=Path, help="an older source tree to compare with")
    ap.add_argument("--only", default="A,B,C,E0,E4")
    ap.add_argument("--runs", type=int, default=5, help="warm searches per process")
    ap.add_argument("--rounds", type=int, default=2, help="processes per tree and workload")
    ap.add_argument("--child")
    args = ap.parse_args()
    if args.child:
        child(args.child, args.only, args.runs)
        return
    trees = ([("before", args.before.resolve())] if args.before else []) + [("after", ROOT)]
    print(f"{'':4}{'tree':<7} {'CPU min':>8} {'CPU med':>8} {'wall min':>9} {'wall med':>9} "
          f"{'checked':>8}  optimum")
    for name in args.only.split(","):
        got = {label: {"cpu": [], "wall": []} for label, _ in trees}
        for _ in range(args.rounds):
            for label, tree in trees:
                r = measure(tree, name, args.runs)
                got[label]["cpu"] += r["cpu"]
                got[label]["wall"] += r["wall"]
                got[label].update(checked=r["checked"], levels=r["levels"], loss=r["loss"])
        for label, _ in trees:
            g = got[label]
            print(f"{name:<4}{label:<7} {min(g['cpu']):8.3f} {statistics.median(g['cpu']):8.3f} "
                  f"{min(g['wall']):9.3f} {statistics.median(g['wall']):9.3f} "
                  f"{g['checked']:8,}  {g['levels']} {g['loss']}", flush=True)


if __name__ == "__main__":
    main()
