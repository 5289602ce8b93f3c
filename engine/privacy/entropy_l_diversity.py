"""Entropy l-diversity: the entropy of every class's sensitive values is at least log(l).

The entropy is estimated either as the plug-in Shannon entropy or with
Grassberger's bias-corrected estimator (Grassberger 2003, "Entropy estimates
from insufficient samplings"). As in ARX, both have the form
H = f(N) - 1/N * sum_i n_i f(n_i), N the class size and n_i the counts of its
values: f = ln for Shannon, f = G for Grassberger, with
G(n) = psi(n) + 1/2 (-1)^n (psi((n+1)/2) - psi(n/2)). G also replaces the
leading ln N (ARX's "logarithm substitute"). G is constant on {2m, 2m+1}:
G(2m) = G(2m+1) = psi(m + 1/2) + ln 2 (G(1) = -gamma - ln 2 < 0), so an odd
class size counts as the even size below it.

Whatever the estimator, a class must hold at least ceil(l) distinct sensitive
values (as in ARX: its ``minSize``). The plug-in Shannon estimate implies this,
but Grassberger's bias correction can lift a class of fewer values above log l.
"""
from __future__ import annotations

import math

import numpy as np

from engine.privacy.distribution_kernels import segment_sum, shannon_entropy
from engine.kernel.sparse_counts import SparseCounts
from engine.privacy.sensitive import ATTRIBUTE, SensitiveAttributeModel
from engine.schema import Param

ESTIMATORS = ("shannon", "grassberger")


def grassberger_g(n: np.ndarray) -> np.ndarray:
    """Grassberger's G(n) for counts n >= 1: psi(floor(n/2) + 1/2) + ln 2 for n >= 2,
    -gamma - ln 2 for n = 1 (equal to psi(n) + 1/2 (-1)^n (psi((n+1)/2) - psi(n/2)))."""
    from scipy.special import digamma  # scipy loads slowly: only where used

    n = np.asarray(n, dtype=np.float64)
    half = np.floor(n / 2)
    return np.where(n < 2, digamma(0.5), digamma(half + 0.5)) + math.log(2)


def grassberger_entropy(dist: SparseCounts) -> np.ndarray:
    """Grassberger's entropy estimate (natural log) of each class."""
    counts = dist.count.astype(np.float64)
    n = segment_sum(counts, dist.indptr)
    terms = segment_sum(counts * grassberger_g(counts), dist.indptr)
    safe = np.where(n > 0, n, 1.0)
    return np.where(n > 0, grassberger_g(safe) - terms / safe, 0.0)


class EntropyLDiversity(SensitiveAttributeModel):
    name = "entropy-l-diversity"
    monotonic_without_suppression = True
    monotonic_with_suppression = False
    params = (ATTRIBUTE,
              Param("l", "float", 2.0, low=1, required=True, label="l",
                    help="every class's entropy of sensitive values is at least log(l)"),
              Param("estimator", "choice", "shannon", choices=ESTIMATORS, label="Estimator",
                    help="shannon: plug-in entropy; grassberger: bias-corrected estimate"))
    label = "Entropy l-diversity"
    summary = ("The sensitive values of every class are spread out: their entropy is at "
               "least that of l equally frequent values.")

    def entropy(self, dist: SparseCounts) -> np.ndarray:
        if self.estimator == "shannon":
            return shannon_entropy(dist.indptr, dist.count)
        return grassberger_entropy(dist)

    def violating_distributions(self, dist: SparseCounts) -> np.ndarray:
        # a tiny tolerance keeps classes of exactly l equally frequent values diverse
        return ((dist.distinct() < math.ceil(self.l))
                | (self.entropy(dist) < math.log(self.l) - 1e-12))

    def minimal_class_size(self) -> int:
        return int(math.ceil(self.l))

    def describe(self) -> str:
        return f"{self.estimator}-entropy-{self.l:g}-diversity of '{self.attribute}'"
