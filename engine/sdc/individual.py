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


def mad(x: np.ndarray) -> float:
    """R's ``mad``: the median absolute deviation times 1.4826."""
    med = float(np.median(x))
    return 1.4826 * float(np.median(np.abs(x - med)))


def risky_by_default(risk: np.ndarray) -> np.ndarray:
    """sdcMicro's records "with higher risk than the main part" (``print`` of
    ``measure_risk``): risk above ``median + 3 * mad`` and above 0.1."""
    risk = np.asarray(risk, dtype=float)
    if len(risk) == 0:
        return np.zeros(0, bool)
    return (risk > float(np.median(risk)) + 3 * mad(risk)) & (risk > 0.1)
