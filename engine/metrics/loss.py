"""ARX's Loss metric (Iyengar's generalization intensity over domain shares)."""
from __future__ import annotations

import numpy as np

from engine.classes import Classes
from engine.metrics.base import Metric


class LossMetric(Metric):
    """Per attribute: the sum over records of the domain share of their
    generalized value (times g), suppressed records counting
    ``share + s * (1 - share)``; normalized to [0, 1] by the minimum
    ``g * N / |hierarchy rows|`` and the maximum ``N``.
    """

    name = "loss"
    default_aggregate = "geometric-mean"

    def prepare(self) -> None:
        ctx = self.ctx
        self.shares = []
        self.generalized_sum = []
        self.minimum = np.zeros(ctx.dims)
        for j, h in enumerate(ctx.hierarchies):
            shares = [c / h.n_rows for c in h.rows_per_label]
            self.shares.append(shares)
            counts = ctx.value_counts[j]
            self.generalized_sum.append(np.array(
                [self.g * float(counts @ shares[l][h.maps[l]]) for l in range(h.levels)]))
            self.minimum[j] = self.g * ctx.n_records / h.n_rows

    def _normalize(self, x: np.ndarray) -> np.ndarray:
        n = self.ctx.n_records
        span = n - self.minimum
        out = np.where(span > 0, (x - self.minimum) / np.where(span > 0, span, 1.0), 0.0)
        return np.maximum(out, 0.0)

    def upper_bound_per_attribute(self):
        return np.ones(self.ctx.dims)

    def lower_bound_table(self):
        return [self._normalize_one(j, self.generalized_sum[j]) for j in range(self.ctx.dims)]

    def _normalize_one(self, j: int, x: np.ndarray) -> np.ndarray:
        n, m = self.ctx.n_records, self.minimum[j]
        return np.maximum((x - m) / (n - m), 0.0) if n > m else np.zeros_like(x)

    def per_attribute(self, classes: Classes, suppressed: np.ndarray,
                      counts: np.ndarray) -> np.ndarray:
        x = np.array([self.generalized_sum[j][classes.levels[j]]
                      for j in range(self.ctx.dims)], dtype=float)
        if suppressed.any():
            sup_counts = counts[suppressed].astype(float)
            for j in range(self.ctx.dims):
                share = self.shares[j][classes.levels[j]][classes.gen[suppressed, j]]
                x[j] += float(sup_counts @ (share + self.s * (1.0 - share) - self.g * share))
        return self._normalize(x)
