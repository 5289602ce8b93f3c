"""The verifier's checks of sdcMicro's perturbative methods on insensitive attributes
(``transformation = "pram" | "noise" | "rank-swapping" | "shuffling"``), from the
released column and the job's input column, row by row (the release keeps the input's
rows in order). Written apart from ``engine.transform.perturbation``: nothing is
redrawn (the seed is not needed, nor known); what the method guarantees is checked:

- ``pram``: every released value is one of the input's values of that attribute
  (within the record's stratum of input values, with ``strata``); missing values stay
  missing;
- ``noise``: the differences are tested against the distribution the method states,
  given the input: ``additive``: ``d = x' - x ~ N(0, s^2)`` with ``s = noise/100 sd(x)``;
  ``correlated``: ``d ~ N(0, noise/100 Cov(x))`` jointly (the sum of
  ``d' (c Cov)^-1 d`` is chi-square with n p degrees of freedom); ``correlated2``:
  ``(x' - sqrt(1 - delta^2) x) / delta ~ N((1 - sqrt(1 - delta^2)) / delta mean(x),
  sd(x)^2)``. Each test is two-sided on the mean (normal) and on the scale
  (chi-square), at a false-alarm rate of `ALPHA` per attribute (split evenly between
  its tests): a correct release fails with probability at most 1e-6 per attribute;
  a wrong noise size (e.g. 10% instead of 150%) fails with certainty at these sizes;
- ``rank-swapping``: the released values are a permutation of the input's (equal
  multisets) and each record's value comes from a rank at most ``swap_percent``
  percent of the (non-missing) records away (ties: the nearest ranks of equal values);
- ``shuffling``: the released values are a permutation of the input's (within each
  stratum with ``strata``).
"""
from __future__ import annotations

import math

import numpy as np

#: the false-alarm rate of the noise tests, per attribute
ALPHA = 1e-6
MISSING = ("", "NULL")
METHODS = ("pram", "noise", "rank-swapping", "shuffling")


def perturbed_attributes(job) -> list[str]:
    return [n for n, a in job.attributes.items()
            if getattr(a, "transformation", None) in METHODS and a.type == "insensitive"]


def _strata(a) -> tuple[str, ...]:
    s = getattr(a, "strata", None)
    return () if s is None else (s,) if isinstance(s, str) else tuple(s)


def columns_needed(job) -> list[str]:
    """The input columns the checks read (the attributes and their strata)."""
    out = []
    for n in perturbed_attributes(job):
        out += [n, *_strata(job.attributes[n])]
    return list(dict.fromkeys(out))


def _numbers(values) -> np.ndarray | None:
    out = np.full(len(values), np.nan)
    for i, v in enumerate(values):
        s = str(v).strip()
        if s in MISSING:
            continue
        try:
            out[i] = float(s)
        except ValueError:
            return None
    return out


def check(released, original, job) -> list[str]:
    """Violations of the perturbed columns: ``released`` and ``original`` are
    DataFrames of strings (the release's and the input's rows, in the same order)."""
    names = perturbed_attributes(job)
    if not names:
        return []
    if len(released) != len(original):
        return [f"the release has {len(released)} rows, the input {len(original)}: the "
                f"perturbed attributes cannot be compared row by row"]
    found = []
    correlated = []
    for n in names:
        a = job.attributes[n]
        if n not in released.columns:
            found.append(f"perturbed attribute '{n}' is missing from the output")
            continue
        y = released[n].astype(str).to_numpy(dtype=object)
        x = original[n].astype(str).to_numpy(dtype=object)
        groups = _groups(original, _strata(a))
        method = a.transformation
        if method == "pram":
            found += _pram(n, x, y, groups)
        elif method == "shuffling":
            found += _permutation(n, x, y, groups)
        elif method == "rank-swapping":
            found += _rank_swap(n, x, y, a)
        elif (a.noise_method or "additive") == "correlated":
            correlated.append(n)
        else:
            found += _noise(n, x, y, a)
    if correlated:
        found += _correlated(correlated, original, released, job)
    return found


def _groups(frame, strata: tuple[str, ...]) -> np.ndarray:
    if not strata:
        return np.zeros(len(frame), dtype=np.int64)
    keys = frame[list(strata)].astype(str).agg("\x1f".join, axis=1).to_numpy(dtype=object)
    return np.unique(keys, return_inverse=True)[1]


def _pram(n, x, y, groups) -> list[str]:
    found = []
    missing_x = np.array([v.strip() in MISSING for v in x])
    if (y[missing_x] != x[missing_x]).any():
        found.append(f"column '{n}' (pram): a missing value was changed")
    for g in np.unique(groups):
        at = (groups == g) & ~missing_x
        domain = set(x[at])
        outside = sorted(set(y[at]) - domain)
        if outside:
            found.append(f"column '{n}' (pram) holds values outside the input's values"
                         f"{' of the stratum' if groups.max() > 0 else ''}: {outside[:3]}")
    return found


def _permutation(n, x, y, groups) -> list[str]:
    for g in np.unique(groups):
        at = groups == g
        if sorted(x[at]) != sorted(y[at]):
            return [f"column '{n}' is not a permutation of the input's values"
                    f"{' within its strata' if groups.max() > 0 else ''}"]
    return []


def _rank_swap(n, x, y, a) -> list[str]:
    if sorted(x) != sorted(y):
        return [f"column '{n}' (rank-swapping) is not a permutation of the input's values"]
    xs, ys = _numbers(x), _numbers(y)
    if xs is None or ys is None:
        return [f"column '{n}' (rank-swapping) holds values that are not numbers"]
    ok = ~np.isnan(xs)
    if (np.isnan(ys) != ~ok).any():
        return [f"column '{n}' (rank-swapping): missing values moved"]
    percent = a.swap_percent if a.swap_percent is not None else 5.0
    count = int(ok.sum())
    window = int(math.floor(percent * count / 100.0))
    srt = np.sort(xs[ok])
    lo_x = np.searchsorted(srt, xs[ok], side="left")
    hi_x = np.searchsorted(srt, xs[ok], side="right") - 1
    lo_y = np.searchsorted(srt, ys[ok], side="left")
    hi_y = np.searchsorted(srt, ys[ok], side="right") - 1
    gap = np.maximum(0, np.maximum(lo_y - hi_x, lo_x - hi_y))
    far = int((gap > window).sum())
    if far:
        return [f"column '{n}' (rank-swapping): {far} record(s) hold a value more than "
                f"{window} ranks ({percent:g}% of {count}) from their own"]
    return []


def _two_sided_normal(z: float, alpha: float) -> bool:
    """Whether |z| exceeds the two-sided normal quantile at ``alpha``."""
    from scipy.stats import norm
    return abs(z) > norm.isf(alpha / 2)


def _chi2_outside(stat: float, df: int, alpha: float) -> bool:
    from scipy.stats import chi2
    return stat < chi2.ppf(alpha / 2, df) or stat > chi2.isf(alpha / 2, df)


def _noise(n, x, y, a) -> list[str]:
    xs, ys = _numbers(x), _numbers(y)
    if xs is None:
        return [f"column '{n}' (noise): the input holds values that are not numbers"]
    if ys is None:
        return [f"column '{n}' (noise) holds values that are not numbers"]
    ok = ~np.isnan(xs)
    if (np.isnan(ys) != ~ok).any():
        return [f"column '{n}' (noise): missing values are not where the input's are"]
    count = int(ok.sum())
    if count < 2:
        return []
    sd = float(np.std(xs[ok], ddof=1))
    method = a.noise_method or "additive"
    if method == "additive":
        noise = a.noise if a.noise is not None else 150.0
        scale = noise / 100.0 * sd
        d = ys[ok] - xs[ok]
        mean, what = 0.0, f"N(0, ({noise:g}% of sd {sd:.6g})^2)"
    else:
        delta = a.delta if a.delta is not None else 0.1
        d1 = math.sqrt(1.0 - delta * delta)
        d = (ys[ok] - d1 * xs[ok]) / delta
        scale = sd
        mean = (1.0 - d1) / delta * float(np.mean(xs[ok]))
        what = f"correlated2 with delta {delta:g}"
    if scale == 0:
        return [] if np.allclose(d, mean) else [
            f"column '{n}' (noise): the input is constant but the values changed"]
    z = (float(np.mean(d)) - mean) / (scale / math.sqrt(count))
    stat = float(np.sum((d - mean) ** 2)) / scale ** 2
    found = []
    if _two_sided_normal(z, ALPHA / 2):
        found.append(f"column '{n}' (noise): the differences' mean is {z:.1f} standard "
                     f"errors from that of {what} (false-alarm rate {ALPHA / 2:g})")
    if _chi2_outside(stat, count, ALPHA / 2):
        found.append(f"column '{n}' (noise): the differences' spread does not fit {what}: "
                     f"their variance is {stat / count:.4g} times the stated one "
                     f"(chi-square test, false-alarm rate {ALPHA / 2:g})")
    return found


def _correlated(names, original, released, job) -> list[str]:
    xs = [_numbers(original[n].astype(str).to_numpy(dtype=object)) for n in names]
    ys = [_numbers(released[n].astype(str).to_numpy(dtype=object)) for n in names]
    if any(v is None for v in xs + ys):
        return [f"columns {', '.join(names)} (correlated noise) hold values that are not "
                f"numbers"]
    x, y = np.column_stack(xs), np.column_stack(ys)
    if (np.isnan(x) != np.isnan(y)).any():
        return [f"columns {', '.join(names)} (correlated noise): missing values are not "
                f"where the input's are"]
    a = job.attributes[names[0]]
    noise = a.noise if a.noise is not None else 150.0
    complete = ~np.isnan(x).any(axis=1)
    if complete.sum() <= len(names):
        return []
    cov = np.atleast_2d(np.cov(x[complete], rowvar=False)) * (noise / 100.0)
    d = (y - x)[complete]
    try:
        inv = np.linalg.inv(cov)
    except np.linalg.LinAlgError:
        return [f"columns {', '.join(names)} (correlated noise): the input's covariance is "
                f"singular; the noise cannot be checked"]
    stat = float(np.einsum("ij,jk,ik->", d, inv, d))
    df = d.shape[0] * d.shape[1]
    found = []
    if _chi2_outside(stat, df, ALPHA / 2):
        found.append(f"columns {', '.join(names)} (correlated noise): the differences do not "
                     f"fit N(0, {noise:g}% of the input's covariance): their Mahalanobis "
                     f"sum is {stat / df:.4g} times its expectation (chi-square test, "
                     f"false-alarm rate {ALPHA / 2:g})")
    for j, n in enumerate(names):
        z = float(np.mean(d[:, j])) / math.sqrt(cov[j, j] / len(d)) if cov[j, j] > 0 else 0
        if _two_sided_normal(z, ALPHA / (2 * len(names))):
            found.append(f"column '{n}' (correlated noise): the differences' mean is "
                         f"{z:.1f} standard errors from 0")
    return found


def read_input(job, columns: list[str]):
    """The job's input columns as strings (any data kind the verifier reads:
    ``engine.verifier.source``), or a message why not."""
    import pandas as pd

    from engine.errors import AnonymistError
    from engine.verifier import source
    if not (getattr(job.data, "path", None) or getattr(job.data, "url", None)):
        return None, "the job names no input data to check the perturbed attributes against"
    try:
        chunks = list(source.read_input(job, columns))
    except AnonymistError as e:
        return None, f"cannot read the input data to check the perturbed attributes: {e}"
    frame = pd.concat(chunks, ignore_index=True) if chunks else pd.DataFrame(columns=columns)
    return frame, None
