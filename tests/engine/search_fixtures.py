"""Small synthetic problems for heuristic-search tests (no files needed)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from engine.config import AttributeConfig, Job, QUASI_IDENTIFYING, TransformationConfig
from engine.data.table import EncodedTable
from engine.hierarchy.model import Hierarchy
from engine.metrics.loss import LossMetric
from engine.privacy.k_anonymity import KAnonymity
from engine.problem import Problem


def interval_hierarchy(values, levels: int, name: str) -> Hierarchy:
    """Level ``l`` groups integers into blocks of ``2**l``; the last level is ``*``."""
    rows = []
    for v in sorted(set(int(x) for x in values)):
        row = [str(v)]
        for level in range(1, levels - 1):
            lo = v // 2 ** level * 2 ** level
            row.append(f"{lo}-{lo + 2 ** level - 1}")
        row.append("*")
        rows.append(row)
    return Hierarchy.from_rows(rows, name)


def synthetic_problem(n_qis: int = 4, rows: int = 400, levels: int = 4, k: int = 5,
                      suppression_limit: float = 0.0, seed: int = 1,
                      **transformation) -> Problem:
    """``n_qis`` correlated integer QIs with ``levels``-level interval hierarchies."""
    rng = np.random.default_rng(seed)
    latent = rng.integers(0, 4, rows)
    data = {}
    for j in range(n_qis):
        span = 2 ** (levels - 1)
        data[f"q{j}"] = (latent * span // 4 + rng.integers(0, span // 2 + 1, rows)) % span
    df = pd.DataFrame({c: v.astype(str) for c, v in data.items()})
    attrs = {c: AttributeConfig(QUASI_IDENTIFYING, interval_hierarchy(v, levels, c))
             for c, v in data.items()}
    job = Job(attributes=attrs, privacy=[KAnonymity(k)],
              transformation=TransformationConfig(suppression_limit=suppression_limit,
                                                  **transformation),
              metric=LossMetric())
    return Problem(EncodedTable.from_dataframe(df), job)


def set_transformation(problem, **changes) -> None:
    """Change the problem's job's ``[transformation]`` (a Job does not change: the
    problem gets a changed copy)."""
    from dataclasses import replace
    problem.job = replace(problem.job, transformation=replace(problem.job.transformation,
                                                              **changes))
