"""Population-uniqueness estimators (one module each): from the class sizes of a sample and the
sampling fraction, the share of the sample's records that are unique in the
population.

Notation: the sample has ``n`` records in ``K`` classes, ``f_j`` of them of
size ``j`` (the frequencies of frequencies); the population has
``N = n / fraction`` records.

- **Zayatz** (1991): the population's class-size distribution is taken to be
  the sample's (``f_j / K``); a class of population size ``j`` leaves one
  record in a simple random sample with hypergeometric probability
  ``h(j) = j C(N-j, n-1) / C(N, n)``. A sample unique is a population unique
  with probability ``P = (f_1/K) h(1) / sum_j (f_j/K) h(j)``; the estimate is
  ``f_1 P / n``.
- **Pitman** (Hoshino 2001): the population partition follows Pitman's
  sampling formula with parameters (theta, alpha), fitted to the sample by
  maximum likelihood; the expected number of population uniques is
  ``N Gamma(theta+1) Gamma(theta+alpha+N-1) / (Gamma(theta+alpha) Gamma(theta+N))``,
  and the estimate is that number divided by ``N``.
- **SNB**, slide negative binomial (Chen & Keller-McNulty 1998), as ARX 3.9 has
  it: population class sizes are ``1 + NegBin(alpha, beta)``, sample sizes
  binomial thinnings of them. ``K``, the number of population classes, is
  estimated from the sample (`snb_population_classes`); (alpha, beta) solve
  "expected number of sample classes of size one = f_1, of size two = f_2" by
  Newton-Raphson from ARX's starting points (`_snb_system`, `_snb_newton`:
  ARX's second equation and its restarts are reproduced, see there); the
  estimate is ``K beta^alpha`` population uniques over ``N``. ARX's solver
  finds no root for most data below large sampling fractions: NaN then.
- **Dankar** et al. (2012): a decision rule over the others (`dankar_rule`):
  Pitman for sampling fractions up to 10 % (Zayatz when Pitman's fit fails),
  above that the smaller of Zayatz and SNB (Zayatz when SNB fails).

Each estimator is ``f(class_sizes, sampling_fraction) -> share`` (NaN when it
has no answer, for instance when the fit fails) and is registered in
``ESTIMATORS``, which the Risk perspective and the population-uniqueness
privacy model use. This package sits below the privacy models (scipy and the
numba fits load with it: import it where used).
"""

from __future__ import annotations

import numpy as np

from engine.estimators.common import frequencies_of_frequencies
from engine.estimators.dankar import DANKAR_SWITCH, dankar, dankar_rule
from engine.estimators.pitman import (pitman, pitman_fit, pitman_log_likelihood,
                                      pitman_population_uniques)
from engine.estimators.snb import snb, snb_fit, snb_population_classes
from engine.estimators.zayatz import zayatz

__all__ = ["ESTIMATORS", "DANKAR_SWITCH", "dankar", "dankar_rule", "frequencies_of_frequencies",
           "pitman", "pitman_fit", "pitman_log_likelihood", "pitman_population_uniques",
           "population_uniqueness", "sample_uniqueness", "snb", "snb_fit",
           "snb_population_classes", "zayatz"]


ESTIMATORS = {"pitman": pitman, "zayatz": zayatz, "snb": snb, "dankar": dankar}


def population_uniqueness(class_sizes: np.ndarray, sampling_fraction: float,
                          estimator: str = "dankar") -> float:
    """The share of records unique in the population by the named estimator."""
    try:
        fn = ESTIMATORS[estimator.lower()]
    except KeyError:
        raise ValueError(f"estimator must be one of {', '.join(ESTIMATORS)}, "
                         f"got '{estimator}'") from None
    return fn(class_sizes, sampling_fraction)


def sample_uniqueness(class_sizes: np.ndarray) -> float:
    """The share of records unique in the sample."""
    sizes = np.asarray(class_sizes, dtype=np.int64)
    n = int(sizes.sum())
    return float(np.count_nonzero(sizes == 1)) / n if n else 0.0
