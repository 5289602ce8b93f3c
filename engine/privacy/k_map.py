"""k-map: every released record is indistinguishable from at least k individuals of
the population (Sweeney; El Emam & Dankar 2008).

- ``estimator = "none"``: the population is the whole table and the released
  data are the research subset; a class needs k records in the table.
- ``estimator = "poisson"`` or ``"zero-truncated-poisson"``: the population
  is only known by its size (``[population]``). A population class of k
  individuals yields a sample class whose size is modelled as Poisson with
  mean lambda = k * sampling fraction (zero-truncated: conditioned on being
  seen at all). The model becomes k'-anonymity on the released data, k' the
  smallest size a class of fewer than k individuals reaches with probability
  at most ``significance`` (the type-I error).
"""
from __future__ import annotations

import math

import numpy as np

from engine.classes import Classes
from engine.errors import JobError
from engine.privacy.base import ModelContext, PrivacyModel
from engine.privacy.population import population_size

ESTIMATORS = ("none", "poisson", "zero-truncated-poisson")


def derived_k(k: int, sampling_fraction: float, significance: float,
              truncated: bool) -> tuple[int, float]:
    """The class size k' to enforce in the sample and its type-I error."""
    lam = k * sampling_fraction
    p0 = math.exp(-lam)
    term = p0  # P(X = i), from i = 0
    cumulative = 0.0 if truncated else p0
    norm = (1.0 - p0) if truncated else 1.0
    i = 0
    while 1.0 - cumulative / norm > significance and i < 10_000_000:
        i += 1
        term *= lam / i
        cumulative += term
    return i + 1, 1.0 - cumulative / norm


class KMap(PrivacyModel):
    name = "k-map"
    monotonic_without_suppression = True
    monotonic_with_suppression = True

    def __init__(self, k: int, estimator: str = "none", significance: float = 0.01):
        k = int(k)
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        estimator = str(estimator).lower()
        if estimator not in ESTIMATORS:
            raise ValueError(f"estimator must be one of {', '.join(ESTIMATORS)}, "
                             f"got '{estimator}'")
        significance = float(significance)
        if not 0.0 < significance < 1.0:
            raise ValueError(f"significance must lie in (0, 1), got {significance}")
        self.k = k
        self.estimator = estimator
        self.significance = significance
        self.uses_subset = estimator == "none"
        self.effective_k: int = k
        self.type1_error: float = 0.0

    @classmethod
    def from_dict(cls, d: dict) -> "KMap":
        return cls(d["k"], d.get("estimator", "none"), d.get("significance", 0.01))

    def bind(self, ctx: ModelContext) -> None:
        if self.estimator == "none":
            self.effective_k = self.k
            return
        size = population_size(ctx.population)
        if size is None:
            raise JobError("k-map with an estimator needs a population: add [population] "
                           "size = ... or region = ...")
        n = ctx.table.count_records(ctx.subset)
        if size < n:
            raise JobError(f"the population ({size}) is smaller than the data ({n} records)")
        self.effective_k, self.type1_error = derived_k(
            self.k, n / size, self.significance, self.estimator == "zero-truncated-poisson")

    def violating(self, classes: Classes) -> np.ndarray:
        if self.estimator == "none":
            # the table is the population: count all its records in the class
            return classes.counts < self.k
        return classes.aggregates.get("subset", classes.counts) < self.effective_k

    def minimal_class_size(self) -> int | None:
        return self.effective_k if self.estimator != "none" else None

    def to_dict(self) -> dict:
        return {"model": self.name, "k": self.k, "estimator": self.estimator,
                "significance": self.significance}

    def describe(self) -> str:
        if self.estimator == "none":
            return f"{self.k}-map"
        return f"{self.k}-map ({self.estimator}, as {self.effective_k}-anonymity)"
