"""Zayatz (1991): the population's class-size distribution is taken to be the sample's."""
from __future__ import annotations

import math

import numpy as np

from engine.estimators.common import _check, _log_choose


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
