"""Individual, global and household risk (Benedetti and Franconi; sdcMicro's ``indivRisk``
and ``measure_risk``).

A record's individual risk is the probability that it is re-identified when an
intruder matches its key against the population, given the sample frequency ``fk``
of its key and the population frequency ``Fk`` estimated from the sampling weights.
With ``pk = fk / Fk`` (the key's sampling fraction), Franconi and Polettini (2004):

* ``approx``: ``fk = 1``: ``pk / (1 - pk) * log(1 / pk)``; ``fk = 2``:
  ``pk / (1 - pk) - (pk / (1 - pk))**2 * log(1 / pk)``; ``fk > 2``:
  ``pk / (fk - (1 - pk))``;
* ``exact``: as ``approx`` for ``fk <= 2``; for ``fk > 2`` the alternating series of
  sdcMicro's ``indivRisk`` (Benedetti, Capobianchi and Franconi);
* a key whose records are its whole population (``fk == Fk``): ``1 / fk``;
* without weights (a census, not a sample): ``1 / fk``.

The expected number of re-identifications is the sum of the individual risks, the
global risk that sum divided by the number of records. A household's risk is the
probability that at least one member is re-identified, ``1 - prod(1 - r_i)`` over its
members, and each member carries it; its expected re-identifications are the sum
over records.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

METHODS = ("approx", "exact")


def _approx(f: float, p: float) -> float:
    if f > 2:
        return p / (f - (1 - p))
    if f == 2:
        return (p / (1 - p)) - ((p / (1 - p)) ** 2) * math.log(1 / p)
    if f == 1:
        return (p / (1 - p)) * math.log(1 / p)
    return 0.0


def _power(x: float, y: float) -> float:
    """R's ``x^y`` (NaN and infinities where R gives them, not Python's errors)."""
    return float(np.power(np.float64(x), np.float64(y)))


def _exact(f: float, p: float) -> float:
    if f <= 2:
        return _approx(f, p)
    with np.errstate(all="ignore"):
        a = (_power(p, 1 - f) - 1) / (f - 1)
        # the series sum_{m=0}^{f-3} (-1)^(m+1) prod_{i=0}^{m} B(i), the products built
        # factor by factor in the order R multiplies them
        bb, b = 0.0, 1.0
        for m in range(int(f - 3) + 1):
            i = float(m)
            b = b * (((f - 1 - i) ** 2 / ((i + 1) * (f - 2 - i)))
                     * (_power(p, i + 2 - f) - 1) / (_power(p, i + 1 - f) - 1))
            bb = bb + (-1.0 if m % 2 == 0 else 1.0) * b
        one = _power(p / (1 - p), f)
        three = _power(-1.0, f) * float(np.log(np.float64(p)))
        return one * ((a * (1 + bb)) + three)


def individual_risk(fk: np.ndarray, Fk: np.ndarray, weighted: bool,
                    method: str = "approx") -> np.ndarray:
    """Each record's individual risk from its key's ``fk`` and ``Fk`` (``1 / fk``
    unless ``weighted``)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    fk = np.asarray(fk, dtype=float)
    if not weighted:
        return 1.0 / fk
    Fk = np.asarray(Fk, dtype=float)
    # one evaluation per distinct (fk, Fk): records of a key share it
    pairs = pd.DataFrame({"f": fk, "F": Fk})
    codes, uniques = pd.factorize(pd.MultiIndex.from_frame(pairs))
    formula = _exact if method == "exact" else _approx
    values = np.empty(len(uniques))
    for k, (f, F) in enumerate(uniques):
        if f == F:
            values[k] = 1.0 / f
            continue
        with np.errstate(all="ignore"):
            try:
                values[k] = formula(float(f), float(f) / float(F))
            except (ZeroDivisionError, ValueError, OverflowError):
                values[k] = math.nan
    return values[codes]


def household_risk(risk: np.ndarray, household: np.ndarray) -> np.ndarray:
    """Each record's household risk, ``1 - prod(1 - r)`` over its household's members
    (``household``: one integer code per record)."""
    household = np.asarray(household)
    codes, uniques = pd.factorize(household)
    safe = np.zeros(len(uniques))
    # prod(1 - r) as a product per household, in record order
    survive = pd.Series(1.0 - np.asarray(risk, dtype=float)).groupby(codes).prod()
    safe[survive.index.to_numpy()] = survive.to_numpy()
    return 1.0 - safe[codes]


def median(x: np.ndarray, counts: np.ndarray | None = None) -> float:
    """R's ``median`` of the values ``x``, each repeated ``counts`` times (default once):
    the middle value, or the mean of the two middle ones."""
    x = np.asarray(x, dtype=float)
    if counts is None or np.isnan(x).any():  # NaN as R's median without na.rm
        return float(np.median(x))
    order = np.argsort(x, kind="stable")
    xs, cs = x[order], np.asarray(counts, dtype=np.int64)[order]
    ends = np.cumsum(cs)
    n = int(ends[-1])

    def at(i: int) -> float:  # the i-th (0-based) value of the repeated, sorted values
        return float(xs[np.searchsorted(ends, i, side="right")])

    return at(n // 2) if n % 2 else (at(n // 2 - 1) + at(n // 2)) / 2


def mad(x: np.ndarray, counts: np.ndarray | None = None) -> float:
    """R's ``mad``: the median absolute deviation times 1.4826."""
    med = median(x, counts)
    return 1.4826 * median(np.abs(np.asarray(x, dtype=float) - med), counts)


def risky_by_default(risk: np.ndarray, counts: np.ndarray | None = None) -> np.ndarray:
    """sdcMicro's records "with higher risk than the main part" (``print`` of
    ``measure_risk``): risk above ``median + 3 * mad`` and above 0.1 (the median and
    MAD over records: each value ``counts`` times)."""
    risk = np.asarray(risk, dtype=float)
    if len(risk) == 0:
        return np.zeros(0, bool)
    return (risk > median(risk, counts) + 3 * mad(risk, counts)) & (risk > 0.1)


def global_threshold(risk: np.ndarray, max_global_risk: float = 0.01,
                     counts: np.ndarray | None = None) -> float | None:
    """sdcMicro's ``global_threshold`` (``measure_risk``, after mu-Argus 4.1 §2.3.4.1):
    the highest individual-risk level ``t`` such that the records above ``t``, set
    to ``t`` while the others keep theirs, give fewer than ``max_global_risk * n``
    expected re-identifications; 0 when no level does. None where sdcMicro gives NA:
    the file is already safe, no level found while the lowest risk is 0, or a risk
    that is not a number."""
    r = np.asarray(risk, dtype=float)
    if counts is not None:
        r = np.repeat(r, np.asarray(counts, dtype=np.int64))
    if len(r) == 0 or np.isnan(r).any():
        return None
    # sdcMicro's loop, in its floating-point order: the records by descending risk,
    # their sum accumulated and then the records taken off one by one
    r = np.sort(r)[::-1]
    allowed = max_global_risk * len(r)
    total = float(np.cumsum(r)[-1])
    if total < allowed:  # safe as it is: sdcMicro answers NA
        return None
    remaining = np.subtract.accumulate(np.concatenate([[total], r]))[:-1]
    changes = np.flatnonzero(r[1:] != r[:-1]) + 1        # where a lower level starts
    found = changes[remaining[changes] + r[changes] * changes < allowed]
    if len(found):
        return float(r[found[0]])
    return None if r[-1] == 0 else 0.0  # none found: 0, NA when the lowest is 0
