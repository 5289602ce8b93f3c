"""Precision (Sweeney): generalization height relative to the hierarchy's height."""
from __future__ import annotations

import numpy as np

from engine.classes import Classes
from engine.metrics.base import Metric


class PrecisionMetric(Metric):
    """Monotonic: ``level / height * g`` per attribute. Default (non-monotonic):
    ``(N_kept * level / height * g + N_suppressed * s) / N``."""

    name = "precision"
    label = "Precision"
    summary = ("How far up its hierarchy each value is generalized, relative to the hierarchy's height.")
    default_aggregate = "arithmetic-mean"
    has_safepub_score = True

    def prepare(self) -> None:
        self.ratio = [np.array([l / h.height if h.height else 0.0 for l in range(h.levels)])
                      for h in self.ctx.hierarchies]

    def upper_bound_per_attribute(self):
        return np.full(self.ctx.dims, self.g if self.monotonic else max(self.g, self.s))

    def lower_bound_table(self):
        if self.monotonic:
            return [self.g * r for r in self.ratio]
        # suppression can replace a generalized value by s; at most the limit's share of records
        lim = self.ctx.suppression_limit
        return [self.g * r + lim * np.minimum(0.0, self.s - self.g * r) for r in self.ratio]

    def per_attribute(self, classes: Classes, suppressed: np.ndarray,
                      counts: np.ndarray) -> np.ndarray:
        gen = np.array([self.g * self.ratio[j][classes.levels[j]]
                        for j in range(self.ctx.dims)])
        if self.monotonic:
            return gen
        n = float(counts.sum())
        n_sup = float(counts[suppressed].sum())
        return ((n - n_sup) * gen + n_sup * self.s) / n if n else gen

    def safepub_score(self, classes: Classes, suppressed: np.ndarray, released: np.ndarray,
                      k: int) -> float:
        """Minus, averaged over attributes, ``N_kept * level / height + N_suppressed``
        (unsampled records count as suppressed), over ``k - 1`` (SafePub)."""
        kept = float(released[~suppressed].sum())
        sup = float(classes.counts.sum()) - kept
        per = [kept * float(self.ratio[j][int(classes.levels[j])]) + sup
               for j in range(self.ctx.dims)]
        total = sum(per) / max(self.ctx.dims, 1)
        return -total / (k - 1.0) if k > 1 else -total


class HeightMetric(Metric):
    """Sum of generalization levels."""

    name = "height"
    label = "Height"
    summary = ("The sum of the generalization levels chosen for the quasi-identifiers.")
    default_aggregate = "sum"
    floored = False

    def is_monotonic(self, suppression_limit: float) -> bool:
        return True

    def lower_bound_table(self):
        return [np.arange(h.levels, dtype=float) for h in self.ctx.hierarchies]

    def upper_bound_per_attribute(self):
        return np.array([float(h.height) for h in self.ctx.hierarchies])

    def per_attribute(self, classes, suppressed, counts):
        return np.asarray(classes.levels, dtype=float)
