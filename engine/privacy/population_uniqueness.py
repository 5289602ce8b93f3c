"""Population uniqueness: the estimated share of released records that are unique in
the population is at most ``threshold``.

The estimators (Pitman, Zayatz, SNB, Dankar's rule) live in
``engine.estimators``; the population is the job's
``[population]`` (a size or a region preset). As in ARX 3.9:

- the estimate is made on the released records: the sampling fraction is the
  number of released records over the population size, so it shrinks as
  classes are suppressed;
- the table fulfils the model when the estimate is positive and at most the
  threshold, or when it has no sample uniques at all; an estimator that fails
  (NaN, or 0 with sample uniques left) does not fulfil it, and Dankar's rule
  (``engine.estimators.dankar_rule``: Pitman up to a 10 % sampling fraction, the
  smaller of Zayatz and SNB above) does not fall back to Zayatz when Pitman's
  fit fails;
- only Zayatz's estimate is taken to be monotonic under generalization (ARX
  declares the others non-monotonic); none is monotonic with suppression.
"""
from __future__ import annotations


import numpy as np

from engine.errors import JobError
from engine.privacy.base import ModelContext
from engine.privacy.population import population_size
from engine.privacy.risk_based import RiskBasedModel
from engine.schema import Param

#: the estimators of ``engine.estimators`` (imported when used: they load scipy)
ESTIMATOR_NAMES = ("pitman", "zayatz", "snb", "dankar")


class PopulationUniqueness(RiskBasedModel):
    name = "population-uniqueness"
    monotonic_without_suppression = True
    monotonic_with_suppression = False
    params = (Param("threshold", "float", 0.01, low=0, high=1, required=True,
                    label="Highest share of population uniques",
                    help="the largest estimated share of released records that are unique "
                         "in the whole population"),
              Param("estimator", "choice", "dankar", choices=ESTIMATOR_NAMES,
                    label="Estimator",
                    help="how population uniques are estimated from the sample: Pitman, "
                         "Zayatz, SNB, or Dankar's rule choosing among them"))
    label = "Population uniqueness"
    summary = ("Few released records are estimated to be unique in the population "
               "(needs the population's size: [population]).")

    def setup(self) -> None:
        self.population: int | None = None
        # as ARX: only Zayatz's estimate is monotonic under generalization
        self.monotonic_without_suppression = self.estimator == "zayatz"

    def bind(self, ctx: ModelContext) -> None:
        self.population = population_size(ctx.population)
        if self.population is None:
            raise JobError("population-uniqueness needs a population: add [population] "
                           "size = ... or region = ...")
        n = ctx.count_individuals(ctx.subset)
        if self.population < n:
            raise JobError(f"the population ({self.population}) is smaller than the data "
                           f"({n} {'persons' if ctx.counts_persons else 'records'})")
        self._n = n

    def uniqueness(self, sizes: np.ndarray) -> float:
        """The estimated share of population uniques among released classes of these
        sizes (their records are the sample)."""
        from engine import estimators as re
        fraction = float(np.sum(sizes)) / self.population
        if self.estimator == "dankar":
            return re.dankar(sizes, fraction, zayatz_fallback=False)
        return re.population_uniqueness(sizes, fraction, self.estimator)

    def fulfilled(self, sizes: np.ndarray) -> bool:
        if len(sizes) == 0 or not np.any(sizes == 1):
            return True  # nothing released, or no sample uniques
        value = self.uniqueness(sizes)
        return 0.0 < value <= self.threshold  # False for NaN

    def describe(self) -> str:
        return f"({self.threshold:g})-population-uniqueness ({self.estimator})"
