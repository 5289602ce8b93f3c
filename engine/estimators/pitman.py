"""Pitman's sampling formula (Hoshino 2001), fitted by maximum likelihood."""
from __future__ import annotations

import functools
import math

import numpy as np
from engine.kernel.jit import njit
from scipy.special import gammaln

from engine.estimators.common import _check, frequencies_of_frequencies


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
    # numpy floats: a zero denominator gives inf or nan (no start: the fit maximizes
    # instead), not ZeroDivisionError (found by tests/engine/test_verifier_independent.py)
    u = np.float64(f.sum())
    c1 = np.float64(f[j == 1].sum())
    c2 = np.float64(f[j == 2].sum()) or np.float64(1.0)  # ARX overestimates without a pair
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
