"""The verifier's own population-uniqueness estimators and k-map's derived k, written
apart from ``engine.estimators`` and ``engine.privacy.k_map`` (plain numpy and scipy,
no numba) and checked against them on random class sizes
(tests/engine/test_verifier_independent.py).

The same definitions (the literature the engine follows, README "Risk"):

- Zayatz (1991): the population's class-size distribution is the sample's; a sample
  unique is a population unique with probability ``f1 h(1) / sum_j f_j h(j)``,
  ``h(j) = j C(N-j, n-1) / C(N, n)``.
- Pitman (Hoshino 2001): Pitman's sampling formula fitted by maximum likelihood
  (here by a bounded quasi-Newton search from several starts, where the engine runs
  Newton on the score equations), then Hoshino's large-population count of
  uniques ``Gamma(theta+1) / Gamma(theta+alpha) N^alpha``.
- SNB (Chen & Keller-McNulty 1998) as ARX 3.9 computes it: ARX's estimate of the
  number of population classes and its Newton iteration on its two equations from
  its starting points, transcribed in plain Python.
- Dankar et al. (2012): Pitman up to a sampling fraction of 10 %, above it the
  smaller of Zayatz and SNB.
- k-map's k' (El Emam & Dankar 2008): the smallest class size a population class of
  k individuals, sampled at the fraction, exceeds with probability at most the
  significance (Poisson, or zero-truncated Poisson).
"""
from __future__ import annotations

import math

import numpy as np

DANKAR_SWITCH = 0.1


def _histogram(class_sizes) -> tuple[np.ndarray, np.ndarray, int]:
    sizes = np.asarray(class_sizes, dtype=np.int64)
    sizes = sizes[sizes > 0]
    j, f = np.unique(sizes, return_counts=True)
    return j, f.astype(np.float64), int(sizes.sum())


def _log_choose(a, b):
    from scipy.special import gammaln
    return gammaln(a + 1.0) - gammaln(b + 1.0) - gammaln(a - b + 1.0)


def zayatz(class_sizes, fraction: float) -> float:
    j, f, n = _histogram(class_sizes)
    if n == 0 or not 0.0 < fraction <= 1.0:
        return math.nan
    if j[0] != 1:
        return 0.0
    if fraction >= 1.0:
        return float(f[0]) / n
    big_n = n / fraction
    jj = j.astype(np.float64)
    log_weight = np.log(f) + np.log(jj) + _log_choose(big_n - jj, n - 1.0)
    weight = np.exp(log_weight - log_weight.max())
    return float(f[0] * weight[0] / weight.sum()) / n


def pitman_log_likelihood(theta: float, alpha: float, j, f, n: int) -> float:
    from scipy.special import gammaln
    k = int(f.sum())
    steps = theta + alpha * np.arange(1, k, dtype=np.float64)
    if theta <= 0 or not 0.0 <= alpha < 1.0 or (steps <= 0).any():
        return -math.inf
    # log Gamma(theta + n) - log Gamma(theta + 1) as the sum of log(theta + i), i < n:
    # the difference of two gammaln loses every digit for a large theta
    if n <= 5_000_000:
        rising = float(np.log(theta + np.arange(1, n, dtype=np.float64)).sum())
    else:
        rising = float(gammaln(theta + n) - gammaln(theta + 1.0))
    return float(np.log(steps).sum() - rising
                 + (f * (gammaln(j - alpha) - gammaln(1.0 - alpha))).sum())


_ALPHA = (1e-12, 1.0 - 1e-9)


def pitman_fit(class_sizes) -> tuple[float, float] | None:
    """The maximum-likelihood (theta, alpha), theta > 0, 0 < alpha < 1, or None."""
    from scipy.optimize import minimize
    j, f, n = _histogram(class_sizes)
    k = float(f.sum())
    if n == 0 or k < 2 or k >= n:
        return None

    def loss(x):
        value = pitman_log_likelihood(math.exp(x[0]), x[1], j, f, n)
        return -value if math.isfinite(value) else 1e300

    best = None
    for start in ((math.log(k), 0.5), (0.0, 0.1), (math.log(k), 1e-6), (math.log(n), 0.9)):
        got = minimize(loss, np.array(start), method="L-BFGS-B",
                       bounds=[(-50.0, 50.0), _ALPHA],
                       options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 2000})
        if best is None or got.fun < best.fun:
            best = got
    return (math.exp(best.x[0]), float(best.x[1])) if best.fun < 1e300 else None


def pitman(class_sizes, fraction: float) -> float:
    from scipy.special import gammaln
    j, f, n = _histogram(class_sizes)
    if n == 0 or not 0.0 < fraction <= 1.0:
        return math.nan
    if j[0] != 1:
        return 0.0
    fit = pitman_fit(class_sizes)
    if fit is None:
        return math.nan
    theta, alpha = fit
    big_n = n / fraction
    log_uniques = gammaln(theta + 1.0) - gammaln(theta + alpha) + alpha * math.log(big_n)
    uniques = math.exp(log_uniques) if log_uniques < 700 else math.inf
    return uniques / big_n if 0.0 <= uniques <= big_n else math.nan


def _snb_classes(j, f, q: float) -> float:
    """ARX 3.9's number of population classes (its B takes one per distinct size)."""
    jj = j.astype(np.float64)
    with np.errstate(all="ignore"):
        s = float(((1.0 - q) ** jj * f).sum())
        d = float((jj * q * (1.0 - q) ** (jj - 1.0) * f).sum())
        a = float((jj * q * q * (1.0 - q * q) ** (jj - 1.0) * f).sum())
        b = float(((1.0 - q * q) ** jj * f - 1.0).sum())
        return float(f.sum()) + float(f[j == 1].sum()) * a / b * (s / d) ** 2


def _snb_step(a: float, b: float, q: float, k: float, c1: float, c2: float):
    """ARX's residuals (its second equation multiplies by u^(a+2)) and the Jacobian of
    the paper's equations it steps with."""
    s = 1.0 - q
    d = s * (1.0 - b)
    u = 1.0 - d
    t = 2.0 - (1.0 - a) * d
    ra, ba = (b / u) ** a, b ** a
    r1 = k * q * ra * (1.0 + a * d / u) - c1
    r2 = k * a * ba * q * q * (1.0 - b) / 2.0 * u ** (a + 2.0) * t - c2
    w = u ** (-(a + 2.0))
    g = ba * (1.0 - b) * w * t
    h = k * q * q / 2.0
    j11 = k * q * ra * (math.log(b / u) * (1.0 + a * d / u) + d / u)
    j12 = k * q * a * ra / (u * u) * (q * (u + a * d) / b - s)
    j21 = h * (g + a * g * (math.log(b) - math.log(u)) + a * ba * (1.0 - b) * w * d)
    j22 = h * a * (a * b ** (a - 1.0) * (1.0 - b) * w * t - ba * w * t
                   - (a + 2.0) * s * g / u + ba * (1.0 - b) * w * (1.0 - a) * s)
    return r1, r2, j11, j12, j21, j22


#: ARX's solver: residuals within 1e-6, 1,000 steps a try, 10,000 in all; first try
#: from (1, 1), then from fixed pseudo-random points of (0, 1)^2 (seeded as the engine's)
_SNB = (1e-6, 1000, 10_000)


def _snb_starts() -> np.ndarray:
    return np.vstack([[1.0, 1.0], np.random.default_rng(20120823).random((_SNB[2] + 1, 2))])


def snb(class_sizes, fraction: float) -> float:
    j, f, n = _histogram(class_sizes)
    if n == 0 or not 0.0 < fraction <= 1.0:
        return math.nan
    if j[0] != 1:
        return 0.0
    k = _snb_classes(j, f, fraction)
    if not math.isfinite(k):
        return math.nan
    c1, c2 = float(f[j == 1].sum()), float(f[j == 2].sum())
    accuracy, per_try, budget = _SNB
    used = 0
    for a, b in _snb_starts():
        a, b = float(a), float(b)
        steps = 0
        while True:
            used += 1
            try:
                with np.errstate(all="ignore"):
                    r1, r2, j11, j12, j21, j22 = _snb_step(a, b, fraction, k, c1, c2)
            except (ValueError, ZeroDivisionError, OverflowError):
                break
            if abs(r1) <= accuracy and abs(r2) <= accuracy:
                return k * b ** a / (n / fraction)
            det = j11 * j22 - j12 * j21
            if det == 0.0:
                break
            a, b = a - (j22 * r1 - j12 * r2) / det, b - (j11 * r2 - j21 * r1) / det
            if math.isnan(a) or math.isnan(b) or steps > per_try:
                break
            steps += 1
        if used > budget:
            break
    return math.nan


def _valid(x: float) -> bool:
    return not math.isnan(x) and x != 0.0


def dankar(class_sizes, fraction: float, zayatz_fallback: bool = True) -> float:
    j, f, n = _histogram(class_sizes)
    if n == 0 or not 0.0 < fraction <= 1.0:
        return math.nan
    if j[0] != 1:
        return 0.0
    z = zayatz(class_sizes, fraction)
    if fraction <= DANKAR_SWITCH:
        p = pitman(class_sizes, fraction)
        return p if _valid(p) else (z if zayatz_fallback else math.nan)
    s = snb(class_sizes, fraction)
    if not _valid(s):
        return z
    return z if z < s else s


ESTIMATORS = {"pitman": pitman, "zayatz": zayatz, "snb": snb, "dankar": dankar}


def population_uniqueness(class_sizes, fraction: float, estimator: str) -> float:
    return ESTIMATORS[estimator.lower()](class_sizes, fraction)


def derived_k(k: int, fraction: float, significance: float,
              truncated: bool) -> tuple[int, float]:
    """k' and its type-I error: 1 + the smallest i with P(X > i) <= significance,
    X ~ Poisson(k * fraction) (conditioned on X >= 1 when ``truncated``)."""
    from scipy.stats import poisson
    lam = k * fraction
    norm = -math.expm1(-lam) if truncated else 1.0
    i = 0
    while True:
        tail = float(poisson.sf(i, lam)) / norm if norm > 0 else 0.0
        if tail <= significance or i >= 10_000_000:
            return i + 1, tail
        i += 1
