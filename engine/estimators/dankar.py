"""Dankar et al. (2012): a decision rule over Pitman, Zayatz and SNB."""
from __future__ import annotations

import math

import numpy as np

from engine.estimators.common import _check
from engine.estimators.pitman import pitman
from engine.estimators.snb import snb
from engine.estimators.zayatz import zayatz

DANKAR_SWITCH = 0.1


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
