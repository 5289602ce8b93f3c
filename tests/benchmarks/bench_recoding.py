"""Local recoding and microaggregation benchmark (issue 15), not a timed test.

    python tests/benchmarks/bench_recoding.py [--only NAME] [--iterations 100] [--gs 0.05]

Local recoding, Adult (30,162 records), Loss (geometric mean, gs 0.5 for the
global search), optimal search, then ARX's iterative local recoding
(``local_recoding = { iterations, gs_factor, adaption_factor = 0.05 }``):

- 5-anonymity and 100-anonymity, 9 quasi-identifiers;
- 0.2-closeness (hierarchical distance) on occupation + 5-anonymity, the other
  8 attributes quasi-identifying;

each at 4 % and 100 % suppression limits. Reported: the information loss of the
global optimum and after local recoding (the job's metric over per-record
levels), records suppressed before and after, the search's and the recoding's
time, and whether the released table passes ``engine.verify`` (an independent
pandas recount).

Microaggregation: age microaggregated (arithmetic mean), the other 8
attributes generalized by their hierarchies, 5-anonymity, 100 % suppression
limit, Loss with the rank aggregate: the released age's mean, median, min and
max over the released records, its squared error, the optimum's levels and loss.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
ADULT = ROOT.parent / "shared" / "data" / "adult"
QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "occupation", "salary-class"]


def job(k: int, limit: float, closeness: bool = False, micro: bool = False,
        recoding: dict | None = None) -> dict:
    attributes = {}
    for q in QIS:
        attributes[q] = {"type": "quasi-identifying",
                         "hierarchy": str(ADULT / f"adult_hierarchy_{q}.csv")}
    privacy = [{"model": "k-anonymity", "k": k}]
    if closeness:
        attributes["occupation"] = {"type": "sensitive",
                                    "hierarchy": str(ADULT / "adult_hierarchy_occupation.csv")}
        privacy.append({"model": "t-closeness", "attribute": "occupation", "t": 0.2,
                        "distance": "hierarchical"})
    metric = {"name": "loss", "gs_factor": 0.5}
    if micro:
        attributes["age"] = {"type": "quasi-identifying", "transformation": "microaggregation",
                             "function": "arithmetic-mean"}
        metric["aggregate"] = "rank"
    transformation = {"suppression_limit": limit, "algorithm": "optimal"}
    if recoding:
        transformation["local_recoding"] = recoding
    return {"data": {"path": str(ADULT / "adult.csv"), "delimiter": ";"},
            "attributes": attributes, "privacy": privacy,
            "transformation": transformation, "metric": metric}


def run_local(name: str, config: dict) -> dict:
    import engine
    from engine.api import as_job
    from engine.verify import verify_frame
    start = time.perf_counter()
    result = engine.anonymize(None, config)
    total = time.perf_counter() - start
    lr = result.local_recoding
    frame = result.output
    report = verify_frame(frame.astype(str), as_job(config))
    return {"name": name, "levels": result.optimum.levels,
            "loss_global": lr.loss_before, "loss_local": lr.loss_after,
            "suppressed_global": lr.suppressed_before, "suppressed_local": lr.suppressed_after,
            "iterations": len(lr.steps), "time_search_s": round(total - lr.elapsed_s, 2),
            "time_recoding_s": round(lr.elapsed_s, 2), "verify_ok": report.ok,
            "verify_suppressed": report.suppressed_records,
            "classes": report.classes, "min_class_size": report.min_class_size}


def run_micro() -> dict:
    import engine
    from engine.api import as_job
    from engine.verify import verify_frame
    config = job(5, 1.0, micro=True)
    start = time.perf_counter()
    result = engine.anonymize(None, config)
    elapsed = time.perf_counter() - start
    report = verify_frame(result.output.astype(str), as_job(config))
    stats = result.to_dict()["microaggregation"]["age"]
    return {"name": "microaggregation age mean, k=5, 100%, rank",
            "levels": result.optimum.levels,
            "loss": list(result.optimum.information_loss),
            "loss_percent": result.optimum.information_loss_percent,
            "suppressed": result.optimum.suppressed_records, "time_s": round(elapsed, 2),
            "verify_ok": report.ok, **stats}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", help="run the configurations whose name contains this")
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--gs", type=float, default=0.05)
    ap.add_argument("--adaption", type=float, default=0.05)
    args = ap.parse_args()
    recoding = {"iterations": args.iterations, "gs_factor": args.gs,
                "adaption_factor": args.adaption}
    configs = {}
    for limit in (0.04, 1.0):
        pct = f"{limit:.0%}"
        configs[f"5-anonymity {pct}"] = job(5, limit, recoding=recoding)
        configs[f"100-anonymity {pct}"] = job(100, limit, recoding=recoding)
        configs[f"0.2-closeness+5-anon {pct}"] = job(5, limit, closeness=True,
                                                    recoding=recoding)
    for name, config in configs.items():
        if args.only and args.only not in name:
            continue
        print(json.dumps(run_local(name, config)), flush=True)
    if not args.only or args.only in "microaggregation":
        print(json.dumps(run_micro()), flush=True)


if __name__ == "__main__":
    main()
