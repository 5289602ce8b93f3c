"""Population-uniqueness estimators: from the class sizes of a sample and the
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
- **SNB**, slide negative binomial (Chen & Keller-McNulty 1998): population class
  sizes are ``1 + NegBin(k, p)``, sample sizes binomial thinnings of them.
  ``(k, p)`` are fitted so that the model reproduces the observed shares of
  sample classes of size one and two among the sample's classes; a sample
  unique is then a population unique with probability
  ``(1-q)^(k+1) / (1 - q + k q)``, ``q = (1-p)(1-fraction)``, and the estimate
  is ``f_1`` times that, over ``n``.
- **Dankar** et al. (2012): a decision rule over the others: Pitman for
  sampling fractions up to 10 % (Zayatz when Pitman's fit does not converge),
  Zayatz above.

Each estimator is ``f(class_sizes, sampling_fraction) -> share`` (NaN when it
has no answer, for instance when the fit fails) and is registered in
``ESTIMATORS``, which the Risk perspective and the population-uniqueness
privacy model use.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import optimize
from scipy.special import gammaln

DANKAR_SWITCH = 0.1


def frequencies_of_frequencies(class_sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct class sizes ``j`` (ascending) and the number of classes of each size."""
    sizes = np.asarray(class_sizes, dtype=np.int64)
    sizes = sizes[sizes > 0]
    j, f = np.unique(sizes, return_counts=True)
    return j, f.astype(np.float64)


def _check(class_sizes, fraction: float) -> tuple[np.ndarray, np.ndarray, int, float] | None:
    j, f = frequencies_of_frequencies(class_sizes)
    n = int((j * f).sum())
    if n == 0 or not 0.0 < fraction <= 1.0:
        return None
    return j, f, n, n / fraction


def _log_choose(a: float, b: np.ndarray | float) -> np.ndarray:
    return gammaln(a + 1) - gammaln(np.asarray(b) + 1) - gammaln(a - np.asarray(b) + 1)


def zayatz(class_sizes: np.ndarray, sampling_fraction: float) -> float:
    """Zayatz's estimate of the share of records unique in the population."""
    got = _check(class_sizes, sampling_fraction)
    if got is None:
        return math.nan
    j, f, n, big_n = got
    if j[0] != 1:
        return 0.0
    if sampling_fraction >= 1.0:
        return float(f[0]) / n
    # log h(j) up to the common factor C(N, n)
    jj = j.astype(np.float64)
    log_h = np.log(jj) + _log_choose(big_n - jj, np.full_like(jj, n - 1.0))
    log_w = np.log(f) + log_h
    top = log_w.max()
    share_unique = math.exp(log_w[0] - top) / float(np.exp(log_w - top).sum())
    return float(f[0]) * share_unique / n


def pitman_log_likelihood(theta: float, alpha: float, j: np.ndarray, f: np.ndarray,
                          n: int) -> float:
    """Log-likelihood of Pitman's sampling formula for the frequencies of frequencies."""
    k = float(f.sum())
    if alpha > 0:
        part1 = (k - 1) * math.log(alpha) + gammaln(theta / alpha + k) - gammaln(theta / alpha + 1)
    else:
        part1 = (k - 1) * math.log(theta)
    part2 = gammaln(theta + n) - gammaln(theta + 1)
    part3 = float((f * (gammaln(j - alpha) - gammaln(1 - alpha))).sum())
    return float(part1 - part2 + part3)


def pitman_fit(class_sizes: np.ndarray) -> tuple[float, float] | None:
    """Maximum-likelihood (theta, alpha) of Pitman's sampling formula, or None."""
    j, f = frequencies_of_frequencies(class_sizes)
    n = int((j * f).sum())
    k = float(f.sum())
    if n == 0 or k < 2 or k >= n:
        return None

    def negative(x):
        theta, alpha = math.exp(x[0]), 1.0 / (1.0 + math.exp(-x[1]))
        return -pitman_log_likelihood(theta, alpha, j, f, n)

    best = None
    for start in ((math.log(max(k, 1.0)), 0.0), (0.0, -2.0), (math.log(max(k, 1.0)), 2.0)):
        res = optimize.minimize(negative, np.array(start), method="Nelder-Mead",
                                options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000})
        if res.success and (best is None or res.fun < best.fun):
            best = res
    if best is None:
        return None
    theta, alpha = math.exp(best.x[0]), 1.0 / (1.0 + math.exp(-best.x[1]))
    return theta, alpha


def pitman(class_sizes: np.ndarray, sampling_fraction: float) -> float:
    """Pitman's (Hoshino's) estimate of the share of records unique in the population."""
    got = _check(class_sizes, sampling_fraction)
    if got is None:
        return math.nan
    j, f, n, big_n = got
    if j[0] != 1:
        return 0.0
    fit = pitman_fit(class_sizes)
    if fit is None:
        return math.nan
    theta, alpha = fit
    return float(min(1.0, pitman_population_uniques(theta, alpha, big_n) / big_n))


def pitman_population_uniques(theta: float, alpha: float, population: float) -> float:
    """Expected number of classes of size one in a Pitman partition of ``population``."""
    big_n = population
    log_uniques = (math.log(big_n) + gammaln(theta + 1) + gammaln(theta + alpha + big_n - 1)
                   - gammaln(theta + alpha) - gammaln(theta + big_n))
    return math.exp(log_uniques)


def _snb_shares(k: float, p: float, fraction: float) -> tuple[float, float, float]:
    """P(f=0), P(f=1), P(f=2) of a sample class under the slide negative binomial."""
    q = (1 - p) * (1 - fraction)
    a0 = p / (1 - q)
    c = (1 - p) * fraction / p
    p0 = (1 - fraction) * a0 ** k
    p1 = fraction * a0 ** k + (1 - fraction) * k * c * a0 ** (k + 1)
    p2 = fraction * k * c * a0 ** (k + 1) + 0.5 * (1 - fraction) * k * (k + 1) * c * c * a0 ** (k + 2)
    return p0, p1, p2


def snb(class_sizes: np.ndarray, sampling_fraction: float) -> float:
    """The slide-negative-binomial estimate of the share of records unique in the
    population."""
    got = _check(class_sizes, sampling_fraction)
    if got is None:
        return math.nan
    j, f, n, _ = got
    if j[0] != 1:
        return 0.0
    if sampling_fraction >= 1.0:
        return float(f[0]) / n
    k_classes = float(f.sum())
    f1 = float(f[0])
    f2 = float(f[j == 2].sum())
    target = np.array([f1 / k_classes, f2 / k_classes])

    def residual(x):
        k, p = math.exp(x[0]), 1.0 / (1.0 + math.exp(-x[1]))
        p0, p1, p2 = _snb_shares(k, p, sampling_fraction)
        seen = 1.0 - p0
        return np.array([p1 / seen, p2 / seen]) - target

    best = None
    for start in ((0.0, 0.0), (-2.0, -2.0), (2.0, 2.0), (-1.0, -4.0)):
        try:
            res = optimize.least_squares(residual, np.array(start), xtol=1e-12, ftol=1e-12)
        except (ValueError, OverflowError, ZeroDivisionError):
            continue
        if best is None or res.cost < best.cost:
            best = res
    if best is None or best.cost > 1e-10:
        return math.nan
    k, p = math.exp(best.x[0]), 1.0 / (1.0 + math.exp(-best.x[1]))
    q = (1 - p) * (1 - sampling_fraction)
    share_unique = (1 - q) ** (k + 1) / (1 - q + k * q)
    return f1 * share_unique / n


def dankar(class_sizes: np.ndarray, sampling_fraction: float) -> float:
    """Dankar et al.'s decision rule over the Pitman and Zayatz estimators."""
    if sampling_fraction <= DANKAR_SWITCH:
        value = pitman(class_sizes, sampling_fraction)
        if not math.isnan(value):
            return value
    return zayatz(class_sizes, sampling_fraction)


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
