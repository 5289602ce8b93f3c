"""Cell suppression on Adult beside the optimal search that precedes it (issue 28: "cell
suppression on Adult within the time the optimal search takes"), measured in the same
run, and sdcMicro-style cell suppression alone on raw keys (no hierarchies) of fewer
quasi-identifiers.

    PYTHONPATH=. python tests/benchmarks/bench_cell_suppression.py

Prints: the search's time, the cell suppression's time (the greedy kernel on the
violating keys plus the final wildcard recount), their ratio, cells and records.
"""
from __future__ import annotations

import time

import numpy as np

from engine.api import anonymize
from engine.project.job_file import job_from_dict
from engine.transform import cell_suppression
from tests.shared_data import SHARED

ADULT = SHARED / "data" / "adult"
QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
       "workclass", "occupation"]


def job(qis, hierarchies=True, limit=0.05, k=5):
    attrs = {q: {"type": "quasi-identifying",
                 **({"hierarchy": str(ADULT / f"adult_hierarchy_{q}.csv")} if hierarchies
                    else {})} for q in qis}
    return job_from_dict({"data": {"path": str(ADULT / "adult.csv"), "delimiter": ";"},
                          "attributes": attrs, "privacy": [{"model": "k-anonymity", "k": k}],
                          "transformation": {"suppression_limit": limit,
                                             "suppression": "cells"}})


def cells_time(result) -> tuple[float, dict]:
    problem = result.problem
    levels = tuple(result.optimum.levels[q] for q in problem.qis)
    classes, _ = problem.classifier.rollup(problem.classifier.base,
                                           np.asarray(levels, dtype=np.int64))
    cell_suppression._CACHE.clear()
    start = time.perf_counter()
    cell_suppression.class_cells(problem, levels, classes)
    spent = time.perf_counter() - start
    return spent, cell_suppression.cell_figures(result.transformed())


def main() -> None:
    # warm the kernels once (compilation is not what is measured)
    warm = anonymize(None, job(QIS[:3], hierarchies=False, limit=1.0))
    cells_time(warm)
    for label, j in (("Adult, 8 QIs with hierarchies, k=5, limit 5%", job(QIS)),
                     ("Adult, 4 QIs without hierarchies, k=5, limit 100%",
                      job(QIS[:4], hierarchies=False, limit=1.0))):
        start = time.perf_counter()
        result = anonymize(None, j)
        search = time.perf_counter() - start
        spent, figures = cells_time(result)
        print(f"{label}: search {search:.2f} s, cell suppression {spent:.3f} s "
              f"(ratio {spent / search:.3f}); cells {figures['cells_suppressed']}, "
              f"records {figures['records_with_suppressed_cells']}")


if __name__ == "__main__":
    main()
