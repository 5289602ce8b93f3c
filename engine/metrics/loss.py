"""ARX's Loss metric (Iyengar's generalization intensity over domain shares)."""
from __future__ import annotations

import numpy as np
from engine.kernel.jit import njit

from engine.classes import Classes
from engine.metrics.base import Metric


@njit(cache=True, nogil=True)
def _suppression_extra(gen, counts, suppressed, levels, extra_flat, offsets):
    """Per attribute: what suppressing the flagged classes adds to the generalized sum
    (``extra_flat``: per value and level, what one suppressed record of it adds)."""
    q = gen.shape[1]
    out = np.zeros(q)
    base = np.empty(q, dtype=np.int64)
    for j in range(q):
        base[j] = offsets[j, levels[j]]
    for c in range(gen.shape[0]):
        if suppressed[c]:
            n = float(counts[c])
            for j in range(q):
                out[j] += n * extra_flat[base[j] + gen[c, j]]
    return out


def suppression_extra_per_record(shares: np.ndarray, g: float, s: float) -> np.ndarray:
    """What suppressing one record of a value with domain share ``shares`` adds to its
    attribute's generalized sum: ``share + s * (1 - share) - g * share`` (evaluated in
    this order, as the kernel evaluated it per record before)."""
    return shares + s * (1.0 - shares) - g * shares


class LossMetric(Metric):
    """Per attribute: the sum over records of the domain share of their
    generalized value (times g), suppressed records counting
    ``share + s * (1 - share)``; normalized to [0, 1] by the minimum
    ``g * N / |hierarchy rows|`` and the maximum ``N``.
    """

    name = "loss"
    label = "Loss"
    summary = ("How much of each attribute's hierarchy the released values cover (ARX's loss), averaged over records.")
    default_aggregate = "geometric-mean"
    has_safepub_score = True
    handles_microaggregation = True

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
        # per attribute and level (padded): the generalized sums, indexed by levels
        depth = max((len(g) for g in self.generalized_sum), default=1)
        self.generalized_table = np.zeros((ctx.dims, depth))
        for j, g in enumerate(self.generalized_sum):
            self.generalized_table[j, :len(g)] = g
        self.dims_index = np.arange(ctx.dims)
        span = ctx.n_records - self.minimum
        self.span_positive = span > 0
        self.safe_span = np.where(self.span_positive, span, 1.0)
        flat = [s for per_level in self.shares for s in per_level]
        self.shares_flat = np.concatenate(flat) if flat else np.zeros(0)
        self.extra_flat = suppression_extra_per_record(self.shares_flat, self.g, self.s)
        max_levels = max((len(p) for p in self.shares), default=1)
        self.share_offsets = np.zeros((ctx.dims, max_levels), dtype=np.int64)
        pos = 0
        for j, per_level in enumerate(self.shares):
            for l, s in enumerate(per_level):
                self.share_offsets[j, l] = pos
                pos += len(s)

    def _normalize(self, x: np.ndarray) -> np.ndarray:
        out = np.where(self.span_positive, (x - self.minimum) / self.safe_span, 0.0)
        return np.maximum(out, 0.0, out=out)

    def upper_bound_per_attribute(self):
        return np.ones(len(self.ctx.weights))

    def _micro(self, classes: Classes, suppressed: np.ndarray | None,
               counts: np.ndarray) -> list[np.ndarray]:
        """Per microaggregated attribute, each class's loss (ARX: its records times its
        distinct values over the attribute's distinct values; suppressed records as
        for generalized attributes)."""
        out = []
        for key, n_values in self.ctx.microaggregated:
            share = counts * classes.aggregates[key].distinct() / float(n_values)
            if suppressed is not None and suppressed.any():
                sup = (counts if self.s == 1.0 else share + self.s * (counts - share))
                share = np.where(suppressed, sup, share * self.g)
            else:
                share = share * self.g
            out.append(share)
        return out

    def lower_bound_table(self):
        return [self._normalize_one(j, self.generalized_sum[j]) for j in range(self.ctx.dims)]

    def _normalize_one(self, j: int, x: np.ndarray) -> np.ndarray:
        n, m = self.ctx.n_records, self.minimum[j]
        return np.maximum((x - m) / (n - m), 0.0) if n > m else np.zeros_like(x)

    def per_attribute(self, classes: Classes, suppressed: np.ndarray,
                      counts: np.ndarray) -> np.ndarray:
        levels = np.asarray(classes.levels, dtype=np.int64)
        x = self.generalized_table[self.dims_index, levels]
        if suppressed.any():
            x += _suppression_extra(classes.gen, counts, suppressed, levels, self.extra_flat,
                                    self.share_offsets)
        x = self._normalize(x)
        if self.ctx.microaggregated:
            n = float(self.ctx.n_records)
            extra = [max(float(m.sum()) / n, 0.0) if n else 0.0
                     for m in self._micro(classes, suppressed, counts)]
            x = np.concatenate([x, extra])
        return x

    def class_losses(self, classes: Classes, counts: np.ndarray) -> np.ndarray:
        """Per attribute the class's records times its value's domain share (not
        normalized), aggregated as the metric aggregates."""
        q = len(classes.levels)
        per = np.zeros((classes.n_classes, q))
        for j in range(q):
            shares = np.asarray(self.shares[j][int(classes.levels[j])], dtype=float)
            per[:, j] = counts * shares[classes.gen[:, j]]
        if self.ctx.microaggregated:
            micro = self._micro(classes, None, counts)
            per = np.concatenate([per, np.stack(micro, axis=1) / self.g
                                  if self.g > 0 else np.stack(micro, axis=1)], axis=1)
        return self.aggregate_many(per)

    def safepub_score(self, classes: Classes, suppressed: np.ndarray, released: np.ndarray,
                      k: int) -> float:
        """Minus the summed per-record loss (domain share of the generalized value per
        attribute, 1 for a suppressed or unsampled record) over the number of
        attributes and ``k - 1`` (SafePub)."""
        released = released.astype(float)
        outside = float(classes.counts.sum() - released.sum())
        total = 0.0
        for j in range(self.ctx.dims):
            share = self.shares[j][int(classes.levels[j])][classes.gen[:, j]]
            total += float(np.where(suppressed, released, released * share).sum()) + outside
        total /= max(self.ctx.dims, 1)
        return -total / (k - 1.0) if k > 1 else -total
