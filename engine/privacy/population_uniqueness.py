"""Population uniqueness: the estimated share of released records that are unique in
the population is at most ``threshold``.

The estimators (Pitman, Zayatz, SNB, Dankar's rule) live in
``engine.analysis.risk_estimators``; the population is the job's
``[population]`` (a size or a region preset), the sampling fraction the
released records over the population size.
"""
from __future__ import annotations

import math

import numpy as np

from engine.errors import JobError
from engine.privacy.base import ModelContext
from engine.privacy.population import population_size
from engine.privacy.risk_based import RiskBasedModel

#: the estimators of ``engine.analysis.risk_estimators`` (imported when used: the
#: analysis package imports the search, which imports the models)
ESTIMATOR_NAMES = ("pitman", "zayatz", "snb", "dankar")


class PopulationUniqueness(RiskBasedModel):
    name = "population-uniqueness"
    monotonic_without_suppression = True
    monotonic_with_suppression = False

    def __init__(self, threshold: float, estimator: str = "dankar"):
        threshold = float(threshold)
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must lie between 0 and 1, got {threshold}")
        estimator = str(estimator).lower()
        if estimator not in ESTIMATOR_NAMES:
            raise ValueError(f"estimator must be one of {', '.join(ESTIMATOR_NAMES)}, "
                             f"got '{estimator}'")
        self.threshold = threshold
        self.estimator = estimator
        self.population: int | None = None
        if estimator == "dankar":
            # the rule switches estimators, which breaks monotonicity
            self.monotonic_without_suppression = False

    @classmethod
    def from_dict(cls, d: dict) -> "PopulationUniqueness":
        return cls(d["threshold"], d.get("estimator", "dankar"))

    def bind(self, ctx: ModelContext) -> None:
        self.population = population_size(ctx.population)
        if self.population is None:
            raise JobError("population-uniqueness needs a population: add [population] "
                           "size = ... or region = ...")
        n = int(ctx.subset.sum()) if ctx.subset is not None else ctx.n_rows
        if self.population < n:
            raise JobError(f"the population ({self.population}) is smaller than the data "
                           f"({n} records)")
        self._n = n

    def uniqueness(self, sizes: np.ndarray) -> float:
        from engine.analysis.risk_estimators import population_uniqueness
        # the sampling fraction is fixed by the data set, whatever is suppressed
        return population_uniqueness(sizes, self._n / self.population, self.estimator)

    def fulfilled(self, sizes: np.ndarray) -> bool:
        if len(sizes) == 0 or sizes[0] > 1 and np.min(sizes) > 1:
            return True  # no sample uniques, no population uniques
        value = self.uniqueness(sizes)
        return not math.isnan(value) and value <= self.threshold

    def to_dict(self) -> dict:
        return {"model": self.name, "threshold": self.threshold, "estimator": self.estimator}

    def describe(self) -> str:
        return f"({self.threshold:g})-population-uniqueness ({self.estimator})"
