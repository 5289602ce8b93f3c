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
privacy model use.
"""
from __future__ import annotations

import functools
import math

import numpy as np
from numba import njit
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
    if not 0.0 <= alpha < 1.0:
        return -math.inf  # outside the model's parameter space
    k = int(f.sum())
    # log prod_{i<k} (theta + i alpha), summed term by term: stable as alpha -> 0
    terms = theta + alpha * np.arange(1, k, dtype=np.float64)
    part1 = float(np.log(terms).sum()) if np.all(terms > 0) else -math.inf
    part2 = gammaln(theta + n) - gammaln(theta + 1)
    part3 = float((f * (gammaln(j - alpha) - gammaln(1 - alpha))).sum())
    return float(part1 - part2 + part3)


def _pitman_start(j: np.ndarray, f: np.ndarray, n: float) -> tuple[float, float]:
    """ARX's (Hoshino's moment-based) first guess of (theta, alpha)."""
    u = float(f.sum())
    c1 = float(f[j == 1].sum())
    c2 = float(f[j == 2].sum()) or 1.0  # ARX overestimates when there is no pair
    c = c1 * (c1 - 1.0) / c2
    with np.errstate(all="ignore"):
        theta = ((n * u * c) - c1 * (n - 1.0) * (2.0 * u + c)) / ((2.0 * c1 * u + c1 * c) - n * c)
        alpha = (theta * (c1 - n) + (n - 1.0) * c1) / (n * u)
    return float(theta), float(alpha)


@njit(cache=True, nogil=True, error_model="numpy")
def _pitman_derivatives(theta, alpha, j, f, n):
    """Gradient and Hessian of the Pitman log-likelihood, summed term by term (stable
    for any alpha, also alpha <= 0 and theta/alpha huge)."""
    u = 0.0
    for c in range(len(f)):
        u += f[c]
    g_t = 0.0
    g_a = 0.0
    h_tt = 0.0
    h_ta = 0.0
    h_aa = 0.0
    for i in range(1, int(u)):          # log prod_{i<u} (theta + i alpha)
        d = 1.0 / (theta + i * alpha)
        g_t += d
        g_a += i * d
        h_tt -= d * d
        h_ta -= i * d * d
        h_aa -= i * i * d * d
    for i in range(1, int(n)):          # - log prod_{i<n} (theta + i)
        d = 1.0 / (theta + i)
        g_t -= d
        h_tt += d * d
    top = 0
    for c in range(len(j)):
        if j[c] > top:
            top = j[c]
    s1 = np.zeros(top + 1)               # s1[m] = sum_{k<m} 1/(k - alpha)
    s2 = np.zeros(top + 1)
    for k in range(1, top):
        d = 1.0 / (k - alpha)
        s1[k + 1] = s1[k] + d
        s2[k + 1] = s2[k] + d * d
    for c in range(len(j)):             # + sum_j f_j log prod_{k<j} (k - alpha)
        g_a -= f[c] * s1[j[c]]
        h_aa -= f[c] * s2[j[c]]
    return g_t, g_a, h_tt, h_ta, h_aa


def pitman_score(theta: float, alpha: float, j: np.ndarray, f: np.ndarray,
                 n: float) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and Hessian of `pitman_log_likelihood` in (theta, alpha)."""
    g_t, g_a, h_tt, h_ta, h_aa = _pitman_derivatives(
        float(theta), float(alpha), np.asarray(j, dtype=np.int64),
        np.asarray(f, dtype=np.float64), float(n))
    return (np.array([g_t, g_a]), np.array([[h_tt, h_ta], [h_ta, h_aa]]))


def _pitman_newton(theta: float, alpha: float, j, f, n, iterations: int = 60
                   ) -> tuple[float, float] | None:
    """Newton-Raphson on the score equations from (theta, alpha); None when it leaves
    theta >= 0, breaks down or does not converge (as ARX's solver gives up)."""
    for _ in range(iterations):
        if not (math.isfinite(theta) and math.isfinite(alpha)) or alpha == 0.0:
            return None
        with np.errstate(all="ignore"):
            g, h = pitman_score(theta, alpha, j, f, n)
        if not np.all(np.isfinite(g)) or not np.all(np.isfinite(h)):
            return None
        if abs(g[0]) <= 1e-9 and abs(g[1]) <= 1e-9:
            return theta, alpha
        det = h[0, 0] * h[1, 1] - h[0, 1] * h[1, 0]
        if det == 0.0 or not math.isfinite(det):
            return None
        d_theta = (h[1, 1] * g[0] - h[0, 1] * g[1]) / det
        d_alpha = (h[0, 0] * g[1] - h[1, 0] * g[0]) / det
        theta, alpha = theta - d_theta, alpha - d_alpha
        if theta < 0:
            return None  # ARX constrains theta >= 0
        if abs(d_theta) <= 1e-13 * max(1.0, abs(theta)) and abs(d_alpha) <= 1e-15:
            return theta, alpha
    return None


@njit(cache=True, nogil=True, error_model="numpy")
def _pitman_loglik(theta, alpha, j, f, n):
    """`pitman_log_likelihood` term by term (numba)."""
    u = 0.0
    for c in range(len(f)):
        u += f[c]
    total = 0.0
    for i in range(1, int(u)):
        x = theta + i * alpha
        if x <= 0.0:
            return -np.inf
        total += np.log(x)
    total -= math.lgamma(theta + n) - math.lgamma(theta + 1.0)
    base = math.lgamma(1.0 - alpha)
    for c in range(len(j)):
        total += f[c] * (math.lgamma(j[c] - alpha) - base)
    return total


_ALPHA_LOW, _ALPHA_HIGH = 1e-12, 1.0 - 1e-9


@njit(cache=True, nogil=True, error_model="numpy")
def _pitman_ascent(theta, alpha, j, f, n):
    """Maximize the likelihood over theta > 0, alpha in [1e-12, 1 - 1e-9]: Newton steps
    damped (Levenberg-Marquardt) until they raise the likelihood, projected onto the
    bounds. Returns (theta, alpha, converged)."""
    best = _pitman_loglik(theta, alpha, j, f, n)
    lam = 1e-3
    for _ in range(500):
        g_t, g_a, h_tt, h_ta, h_aa = _pitman_derivatives(theta, alpha, j, f, n)
        # scale-free damping: work in (log theta, alpha)
        gt = g_t * theta
        htt = h_tt * theta * theta + g_t * theta
        hta = h_ta * theta
        moved = False
        for _try in range(60):
            a11 = -htt + lam * max(abs(htt), 1.0)
            a22 = -h_aa + lam * max(abs(h_aa), 1.0)
            a12 = -hta
            det = a11 * a22 - a12 * a12
            if det <= 0.0 or not np.isfinite(det):
                lam *= 10.0
                continue
            if (alpha <= _ALPHA_LOW and g_a < 0.0) or (alpha >= _ALPHA_HIGH and g_a > 0.0):
                d_lt = gt / a11  # alpha held at its bound: theta alone
                d_a = 0.0
            else:
                d_lt = (a22 * gt - a12 * g_a) / det
                d_a = (a11 * g_a - a12 * gt) / det
            if d_lt > 5.0:
                d_lt = 5.0
            elif d_lt < -5.0:
                d_lt = -5.0
            new_t = theta * np.exp(d_lt)
            new_a = min(max(alpha + d_a, _ALPHA_LOW), _ALPHA_HIGH)
            value = _pitman_loglik(new_t, new_a, j, f, n)
            if value >= best:
                small = abs(d_lt) < 1e-12 and abs(new_a - alpha) < 1e-14
                theta, alpha, best = new_t, new_a, value
                lam = max(lam / 10.0, 1e-12)
                moved = True
                if small:
                    return theta, alpha, True
                break
            lam *= 10.0
        if not moved:
            return theta, alpha, True  # no step raises the likelihood: a maximum
    return theta, alpha, False


@njit(cache=True, nogil=True, error_model="numpy")
def _pitman_boundary(theta, j, f, n):
    """The best theta with alpha at its lower bound (Ewens' model), by Newton in
    log theta; returns (theta, d loglik / d alpha there)."""
    alpha = _ALPHA_LOW
    for _ in range(100):
        g_t, g_a, h_tt, h_ta, h_aa = _pitman_derivatives(theta, alpha, j, f, n)
        gt = g_t * theta
        htt = h_tt * theta * theta + gt
        if not np.isfinite(gt) or not np.isfinite(htt):
            return np.nan, np.nan
        step = gt / -htt if htt < 0.0 else np.sign(gt)
        step = min(max(step, -2.0), 2.0)
        theta *= np.exp(step)
        if abs(step) < 1e-13:
            break
    g_t, g_a, h_tt, h_ta, h_aa = _pitman_derivatives(theta, alpha, j, f, n)
    return theta, g_a


def _pitman_maximize(j: np.ndarray, f: np.ndarray, n: int) -> tuple[float, float] | None:
    """The maximum-likelihood (theta, alpha) over theta > 0, 0 < alpha < 1, for data the
    Newton iteration from the first guess does not converge on. Most such data peak
    at alpha -> 0 (Ewens' model): that is tried first, and kept when the likelihood
    falls towards larger alpha there."""
    k = float(f.sum())
    jj, ff = np.asarray(j, dtype=np.int64), np.asarray(f, dtype=np.float64)
    theta, slope = _pitman_boundary(k, jj, ff, float(n))
    if math.isfinite(theta) and theta > 0 and slope <= 0:
        return float(theta), _ALPHA_LOW
    best, best_value = None, -math.inf
    for start in ((k, 0.5), (1.0, 0.1)):
        theta, alpha, _ = _pitman_ascent(start[0], start[1], jj, ff, float(n))
        value = _pitman_loglik(theta, alpha, jj, ff, float(n))
        if math.isfinite(value) and value > best_value:
            best, best_value = (float(theta), float(alpha)), value
    return best


@functools.lru_cache(maxsize=4096)
def _pitman_fit_cached(key: bytes, m: int) -> tuple[float, float] | None:
    hist = np.frombuffer(key, dtype=np.int64).reshape(2, m)
    j, f = hist[0], hist[1].astype(np.float64)
    n = int((j * f).sum())
    k = float(f.sum())
    if n == 0 or k < 2 or k >= n:
        return None
    fit = _pitman_newton(*_pitman_start(j, f, float(n)), j, f, float(n))
    if fit is not None and 0.0 < fit[1] < 1.0:
        return fit
    # no proper root from the first guess: maximize, then polish to the score's root
    # when that stays a proper Pitman model
    fit = _pitman_maximize(j, f, n)
    if fit is not None:
        polished = _pitman_newton(*fit, j, f, float(n))
        if polished is not None and 0.0 < polished[1] < 1.0:
            return polished
    return fit


def pitman_fit(class_sizes: np.ndarray) -> tuple[float, float] | None:
    """Maximum-likelihood (theta, alpha) of Pitman's sampling formula, or None.

    As ARX: Newton-Raphson on the score equations from Hoshino's moment-based
    first guess, keeping theta >= 0. Where that does not converge to a proper
    model (0 < alpha < 1), the likelihood is maximized over theta > 0,
    0 < alpha < 1 directly (ARX retries Newton from random starts instead, which
    cannot be reproduced; it may also accept roots with alpha <= 0). The fit
    depends on the class sizes only through their frequencies of frequencies, and
    is cached by them.
    """
    j, f = frequencies_of_frequencies(class_sizes)
    key = np.stack([j.astype(np.int64), f.astype(np.int64)]).tobytes()
    return _pitman_fit_cached(key, len(j))


def pitman(class_sizes: np.ndarray, sampling_fraction: float) -> float:
    """Pitman's (Hoshino's) estimate of the share of records unique in the population:
    ``Gamma(theta+1) / Gamma(theta+alpha) N^alpha`` population uniques (Hoshino's
    large-population form, which ARX uses) over ``N``; NaN when the fit fails or the
    estimate leaves [0, N]."""
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
    if alpha == 0.0:
        return math.nan
    with np.errstate(all="ignore"):
        log_uniques = gammaln(theta + 1.0) - gammaln(theta + alpha) + alpha * math.log(big_n)
        uniques = math.exp(log_uniques) if log_uniques < 700 else math.inf
    if not 0.0 <= uniques <= big_n:
        return math.nan
    return uniques / big_n


def pitman_population_uniques(theta: float, alpha: float, population: float) -> float:
    """Expected number of classes of size one in a Pitman partition of ``population``
    (exact; `pitman` uses its large-population form)."""
    big_n = population
    log_uniques = (math.log(big_n) + gammaln(theta + 1) + gammaln(theta + alpha + big_n - 1)
                   - gammaln(theta + alpha) - gammaln(theta + big_n))
    return math.exp(log_uniques)


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


def _valid(value):
    """ARX's test of an estimate: a number other than 0."""
    return ~np.isnan(value) & (value != 0)


def dankar_rule(sampling_fraction, pitman, zayatz, snb, zayatz_fallback: bool = True):
    """Dankar et al.'s decision rule over the three estimates (scalars or arrays
    aligned with ``sampling_fraction``), as ARX applies it:

    - sampling fraction up to 10 %: Pitman's estimate; where it is NaN or 0, Zayatz's
      (or NaN without ``zayatz_fallback``);
    - above 10 %: the smaller of Zayatz's and the SNB estimate; Zayatz's where SNB is
      NaN or 0 (and SNB's where Zayatz's is NaN).

    Callers handle samples without uniques (every estimate 0) themselves."""
    fraction = np.asarray(sampling_fraction, dtype=np.float64)
    p, z, s = (np.asarray(v, dtype=np.float64) for v in (pitman, zayatz, snb))
    low = np.where(_valid(p), p, z if zayatz_fallback else np.nan)
    with np.errstate(invalid="ignore"):
        high = np.where(_valid(s), np.where(z < s, z, s), z)
    out = np.where(fraction <= DANKAR_SWITCH, low, high)
    return float(out) if out.ndim == 0 else out


def dankar(class_sizes: np.ndarray, sampling_fraction: float,
           zayatz_fallback: bool = True) -> float:
    """Dankar et al.'s decision rule (`dankar_rule`) on these class sizes: 0 without
    sample uniques.

    Without ``zayatz_fallback`` a failed Pitman fit gives NaN, as in ARX's
    population-uniqueness privacy model (its Risk perspective falls back)."""
    got = _check(class_sizes, sampling_fraction)
    if got is None:
        return math.nan
    if got[0][0] != 1:
        return 0.0
    if sampling_fraction <= DANKAR_SWITCH:
        p, s = pitman(class_sizes, sampling_fraction), math.nan
    else:
        p, s = math.nan, snb(class_sizes, sampling_fraction)
    return dankar_rule(sampling_fraction, p, zayatz(class_sizes, sampling_fraction), s,
                       zayatz_fallback)


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
