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
from engine.privacy.base import PERSONS_ALL, ModelContext, PrivacyModel, class_sizes
from engine.privacy.population import population_size
from engine.privacy.k_anonymity import K
from engine.schema import Param

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
    monotonic_per_person = True
    params = (Param("k", "int", K.default, low=1, required=True, label="k",
                    unit="individuals",
                    help="the fewest individuals of the population each released record "
                         "could be"),
              Param("estimator", "choice", "none", choices=ESTIMATORS, label="Estimator",
                    help="none: the table is the population and [subset] the release; "
                         "poisson / zero-truncated-poisson: estimated from [population]"),
              Param("significance", "float", 0.01, low=0, high=1, low_open=True,
                    high_open=True, label="Significance",
                    help="the accepted probability (type-I error) of a class being "
                         "smaller than k in the population"))
    label = "k-map"
    summary = ("Every released record matches at least k individuals of the population "
               "it was drawn from.")

    def setup(self) -> None:
        self.uses_subset = self.estimator == "none"
        self.effective_k: int = self.k
        self.type1_error: float = 0.0

    def bind(self, ctx: ModelContext) -> None:
        if self.estimator == "none":
            self.effective_k = self.k
            return
        size = population_size(ctx.population)
        if size is None:
            raise JobError("k-map with an estimator needs a population: add [population] "
                           "size = ... or region = ...")
        n = ctx.count_individuals(ctx.subset)
        if size < n:
            raise JobError(f"the population ({size}) is smaller than the data ({n} "
                           f"{'persons' if ctx.counts_persons else 'records'})")
        self.effective_k, self.type1_error = derived_k(
            self.k, n / size, self.significance, self.estimator == "zero-truncated-poisson")

    def violating(self, classes: Classes) -> np.ndarray:
        if self.estimator == "none":
            # the table is the population: count all its records (persons) in the class
            return class_sizes(classes, PERSONS_ALL) < self.k
        return class_sizes(classes) < self.effective_k

    def minimal_class_size(self) -> int | None:
        return self.effective_k if self.estimator != "none" else None

    def describe(self) -> str:
        if self.estimator == "none":
            return f"{self.k}-map"
        return f"{self.k}-map ({self.estimator}, as {self.effective_k}-anonymity)"
