"""Frequencies of frequencies and checks shared by the population-uniqueness estimators."""
from __future__ import annotations

import numpy as np
from scipy.special import gammaln


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
