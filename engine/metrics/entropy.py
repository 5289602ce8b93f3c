"""Non-uniform entropy (monotonic and not) and normalized entropy."""
from __future__ import annotations

import numpy as np

from engine.classes import Classes
from engine.kernel.reduce import segment_sums, selected_value_counts
from engine.metrics.base import Metric, class_size_sensitivity


def _xlogx_ratio(c: np.ndarray, total: np.ndarray) -> float:
    """-sum c * log2(c / total), skipping empty counts."""
    mask = c > 0
    return float(-(c[mask] * np.log2(c[mask] / total[mask])).sum())


class NonUniformEntropy(Metric):
    """Per attribute at level L: ``-sum_v c(v) log2(c(v) / c(gen_L(v))) * g`` over all
    records; the non-monotonic variant adds ``s`` times the entropy of the
    suppressed records' generalized values."""

    name = "entropy"
    label = "Non-uniform entropy"
    summary = ("The information lost about each original value when it is replaced by its generalization.")
    default_aggregate = "sum"
    has_safepub_score = True

    def prepare(self) -> None:
        self.generalized = []
        for j, h in enumerate(self.ctx.hierarchies):
            c = self.ctx.value_counts[j].astype(float)
            per_level = []
            for l in range(h.levels):
                group_total = np.bincount(h.maps[l], weights=c, minlength=h.level_size(l))
                per_level.append(self.g * _xlogx_ratio(c, group_total[h.maps[l]]))
            self.generalized.append(np.array(per_level))
        depth = max((h.levels for h in self.ctx.hierarchies), default=1)
        self.level_sizes = np.ones((self.ctx.dims, depth), dtype=np.int64)
        for j, h in enumerate(self.ctx.hierarchies):
            self.level_sizes[j, :h.levels] = [h.level_size(l) for l in range(h.levels)]
        # the generalization part per attribute and level (padded), indexed by levels
        self.generalized_table = np.zeros((self.ctx.dims, depth))
        for j, g in enumerate(self.generalized):
            self.generalized_table[j, :len(g)] = g
        self.dims_index = np.arange(self.ctx.dims)
        # the code of the single root value at each level, if the hierarchy has one
        # (a value generalized to the root counts as suppressed in SafePub's score)
        self.root_code = []
        for h in self.ctx.hierarchies:
            top = h.labels[h.height]
            codes = []
            for l in range(h.levels):
                hit = np.flatnonzero(h.labels[l] == top[0]) if len(top) == 1 else []
                codes.append(int(hit[0]) if len(hit) else -1)
            self.root_code.append(codes)

    def lower_bound_table(self):
        return self.generalized

    def upper_bound_per_attribute(self):
        """Every record told apart from all others: ``N log2 N`` per attribute, for the
        generalization part and, in the non-monotonic variant, the suppression part."""
        n = float(self.ctx.n_records)
        per = n * np.log2(n) if n > 1 else 0.0
        return np.full(self.ctx.dims, per * (self.g + (0.0 if self.monotonic else self.s)))

    def suppressed_entropy(self, classes: Classes, suppressed: np.ndarray,
                           counts: np.ndarray) -> np.ndarray:
        """Per attribute, ``-sum_v c(v) log2(c(v) / S)`` over the generalized values
        ``v`` of the suppressed records (``c(v)`` of them, ``S`` in all)."""
        # all attributes' value counts in one vector, the sums as numpy's (same floats)
        per_value, starts, total = selected_value_counts(classes.gen, suppressed, counts,
                                                         self.level_sizes, classes.levels)
        if total == 0:
            return np.zeros(self.ctx.dims)
        return -segment_sums(per_value * np.log2(per_value / total), starts)

    def per_attribute(self, classes: Classes, suppressed: np.ndarray,
                      counts: np.ndarray) -> np.ndarray:
        x = self.generalized_table[self.dims_index, np.asarray(classes.levels, np.int64)]
        if not self.monotonic:
            x = x + self.s * self.suppressed_entropy(classes, suppressed, counts)
        return x


    def safepub_score(self, classes: Classes, suppressed: np.ndarray, released: np.ndarray,
                      k: int) -> float:
        """Per attribute, the discernibility of the released values (SafePub; ARX's
        score for both variants): every record whose value is kept and is
        not the hierarchy's root adds the number of records sharing its value, every
        other record (suppressed, generalized to the root, or left out of the sample)
        adds N. Minus the sum, over ``N * attributes`` and ``k^2 / (k - 1) + 1``."""
        released = released.astype(float)
        n = float(classes.counts.sum())
        outside = n - float(released.sum())
        total = 0.0
        for j, h in enumerate(self.ctx.hierarchies):
            level = int(classes.levels[j])
            keep = ~suppressed & (classes.gen[:, j] != self.root_code[j][level])
            per_value = np.bincount(classes.gen[keep, j], weights=released[keep],
                                    minlength=h.level_size(level))
            total += float((per_value ** 2).sum()) + n * (float(released[~keep].sum()) + outside)
        total /= n * max(self.ctx.dims, 1)
        return -total / class_size_sensitivity(k)


class NormalizedEntropy(NonUniformEntropy):
    """Non-monotonic non-uniform entropy divided per attribute by its upper bound
    ``-sum_v c(v) log2(c(v) / N)`` (everything generalized to one value)."""

    name = "normalized-entropy"
    label = "Normalized non-uniform entropy"
    summary = ("Non-uniform entropy divided by the entropy of the original data.")
    default_aggregate = "arithmetic-mean"
    has_monotonic_variant = False
    has_safepub_score = False

    def safepub_score(self, classes, suppressed, released, k):
        return Metric.safepub_score(self, classes, suppressed, released, k)

    def prepare(self) -> None:
        super().prepare()
        n = float(self.ctx.n_records)
        self.upper = np.array([
            max(_xlogx_ratio(c.astype(float), np.full(len(c), n)), 1e-300)
            for c in self.ctx.value_counts])

    def lower_bound_table(self):
        return [g / u for g, u in zip(self.generalized, self.upper)]

    def upper_bound_per_attribute(self):
        return None

    def per_attribute(self, classes, suppressed, counts):
        x = self.generalized_table[self.dims_index, np.asarray(classes.levels, np.int64)]
        x = x + self.s * self.suppressed_entropy(classes, suppressed, counts)
        return x / self.upper
