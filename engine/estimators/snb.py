"""The slide negative binomial estimator (Chen & Keller-McNulty 1998) as ARX 3.9 has it."""
from __future__ import annotations

import functools
import math

import numpy as np
from engine.kernel.jit import njit

from engine.estimators.common import _check, frequencies_of_frequencies


def snb_population_classes(j: np.ndarray, f: np.ndarray, fraction: float) -> float:
    """ARX's estimate of the number ``K`` of non-empty classes in the population, from
    the frequencies of frequencies ``f_j`` at sampling fraction ``q``: with
    ``S(x) = sum_j (1-x)^j f_j`` and ``D(x) = sum_j j x (1-x)^(j-1) f_j`` (Shlosser's
    ratio is ``S(q) / D(q)``),

        K = u + f_1 * A / B * (S(q) / D(q))^2,
        A = D(q^2) q,   B = sum_j ((1-q^2)^j f_j - 1)

    (``u`` classes in the sample). ``B`` takes one from each distinct class size's
    term rather than weighting it by ``f_j``: that is how ARX 3.9 computes it."""
    jj = np.asarray(j, dtype=np.float64)
    ff = np.asarray(f, dtype=np.float64)
    q = float(fraction)
    q2 = q * q
    with np.errstate(all="ignore"):
        a = float((jj * q2 * (1.0 - q2) ** (jj - 1.0) * ff).sum())
        b = float((((1.0 - q) ** jj) * ff * (1.0 + q) ** jj - 1.0).sum())
        s = float((((1.0 - q) ** jj) * ff).sum())
        d = float((jj * q * (1.0 - q) ** (jj - 1.0) * ff).sum())
        f1 = float(ff[jj == 1].sum())
        return float(ff.sum()) + f1 * (a / b) * (s / d) * (s / d)


@njit(cache=True, nogil=True, error_model="numpy")
def _snb_system(a, b, q, k, c1, c2):
    """ARX's SNB equations in (alpha, beta) and the Jacobian it steps with.

    With ``d = (1-q)(1-beta)`` and ``u = 1 - d``, Chen & Keller-McNulty's expected
    numbers of sample classes of size one and two among ``k`` population classes are

        E1 = k q (beta/u)^alpha (1 + alpha d / u)
        E2 = k q^2/2 alpha beta^alpha (1-beta) u^-(alpha+2) (2 - (1-alpha) d).

    ARX solves E1 = c1 and E2' = c2 where E2' *multiplies* by u^(alpha+2) instead of
    dividing, but steps with the Jacobian of the paper's (E1, E2). Returns the two
    residuals of ARX's system and that Jacobian."""
    s = 1.0 - q
    d = s * (1.0 - b)
    u = 1.0 - d
    t = 2.0 - (1.0 - a) * d
    r = b / u
    ra = r ** a
    ba = b ** a
    e1 = k * q * ra * (1.0 + a * d / u) - c1
    e2 = k * a * ba * q * q * (1.0 - b) / 2.0 * u ** (a + 2.0) * t - c2
    j11 = k * q * ra * (math.log(r) * (1.0 + a * d / u) + d / u)
    j12 = k * q * a * ra / (u * u) * (q * (u + a * d) / b - s)
    h = k * q * q / 2.0
    w = u ** (-(a + 2.0))
    g = ba * (1.0 - b) * w * t                     # E2 = h alpha g
    j21 = h * (g + a * g * (math.log(b) - math.log(u)) + a * ba * (1.0 - b) * w * d)
    j22 = h * a * (a * b ** (a - 1.0) * (1.0 - b) * w * t - ba * w * t
                   - (a + 2.0) * s * g / u + ba * (1.0 - b) * w * (1.0 - a) * s)
    return e1, e2, j11, j12, j21, j22


@njit(cache=True, nogil=True, error_model="numpy")
def _snb_newton(q, k, c1, c2, starts, per_try, budget, accuracy):
    """Newton-Raphson on `_snb_system` from each start in turn, as ARX's solver: a try
    ends when an iterate is NaN or after ``per_try`` steps; the first point where both
    residuals are at most ``accuracy`` wins; ``budget`` bounds the steps of all tries.
    Returns (alpha, beta), NaN when no try converged."""
    used = 0
    for i in range(starts.shape[0]):
        a = starts[i, 0]
        b = starts[i, 1]
        steps = 0
        while True:
            used += 1
            e1, e2, j11, j12, j21, j22 = _snb_system(a, b, q, k, c1, c2)
            if abs(e1) <= accuracy and abs(e2) <= accuracy:
                return a, b
            inv = 1.0 / (j11 * j22 - j12 * j21)
            a, b = a - (j22 * e1 - j12 * e2) * inv, b - (j11 * e2 - j21 * e1) * inv
            if math.isnan(a) or math.isnan(b) or steps > per_try:
                break
            steps += 1
        if used > budget:
            break
    return np.nan, np.nan


#: ARX's solver settings (ARXSolverConfiguration): residuals within 1e-6, 1,000 steps a
#: try, 10,000 in all
SNB_ACCURACY, SNB_STEPS_PER_TRY, SNB_STEPS = 1e-6, 1000, 10_000
#: ARX's first try starts at (1, 1), where the Jacobian is singular; the others start
#: at uniform random points of (0, 1)^2 (Java's Math.random; here a fixed sequence)
_SNB_STARTS = np.vstack([[1.0, 1.0],
                         np.random.default_rng(20120823).random((SNB_STEPS + 1, 2))])


@functools.lru_cache(maxsize=4096)
def _snb_fit_cached(key: bytes, m: int, fraction: float) -> tuple[float, float, float]:
    hist = np.frombuffer(key, dtype=np.int64).reshape(2, m)
    j, f = hist[0], hist[1].astype(np.float64)
    k = snb_population_classes(j, f, fraction)
    c1 = float(f[j == 1].sum())
    c2 = float(f[j == 2].sum())
    if not math.isfinite(k):
        return k, math.nan, math.nan
    alpha, beta = _snb_newton(float(fraction), k, c1, c2, _SNB_STARTS,
                              SNB_STEPS_PER_TRY, SNB_STEPS, SNB_ACCURACY)
    return k, float(alpha), float(beta)


def snb_fit(class_sizes: np.ndarray, sampling_fraction: float) -> tuple[float, float, float]:
    """ARX's SNB fit: (K, alpha, beta), alpha and beta NaN when the solver finds no
    root. Cached by frequencies of frequencies and fraction."""
    j, f = frequencies_of_frequencies(class_sizes)
    key = np.stack([j.astype(np.int64), f.astype(np.int64)]).tobytes()
    return _snb_fit_cached(key, len(j), float(sampling_fraction))


def snb(class_sizes: np.ndarray, sampling_fraction: float) -> float:
    """The slide-negative-binomial estimate of the share of records unique in the
    population, as ARX computes it: ``K beta^alpha / N`` (the expected number of
    population classes of size one over the population), NaN when ARX's solver finds
    no root; 0 without sample uniques. Not clipped to [0, 1] (nor is ARX's)."""
    got = _check(class_sizes, sampling_fraction)
    if got is None:
        return math.nan
    j, f, n, big_n = got
    if j[0] != 1:
        return 0.0
    k, alpha, beta = snb_fit(class_sizes, sampling_fraction)
    with np.errstate(all="ignore"):
        uniques = k * beta ** alpha
    return float(uniques) / big_n
