"""Single-dimensional metrics over class sizes: discernibility and AECS."""
from __future__ import annotations

import numpy as np

from engine.classes import Classes
from engine.metrics.base import Loss, Metric, class_size_sensitivity


class Discernibility(Metric):
    """DM* (monotonic): sum of squared class sizes. DM (default): kept classes
    count ``|E|^2`` (times g), suppressed classes ``N * |E|`` (times s)."""

    name = "discernibility"
    label = "Discernibility"
    summary = ("Each record is penalized by the size of its class (suppressed records by the whole table).")
    has_safepub_score = True

    def upper_bound(self):
        n = float(self.ctx.n_records)
        return n * n

    def is_monotonic(self, suppression_limit: float) -> bool:
        return self.monotonic or suppression_limit == 0.0

    def evaluate(self, classes: Classes, suppressed: np.ndarray,
                 counts: np.ndarray | None = None) -> Loss:
        counts = (classes.counts if counts is None else counts).astype(float)
        if self.monotonic:
            return float((counts ** 2).sum())
        n = counts.sum()
        kept = counts[~suppressed]
        return float(self.g * (kept ** 2).sum() + self.s * n * counts[suppressed].sum())

    def safepub_score(self, classes: Classes, suppressed: np.ndarray, released: np.ndarray,
                      k: int) -> float:
        """DM with every suppressed or unsampled record costing N (SafePub,
        both variants): minus ``sum kept |E|^2 + N * suppressed``, over
        ``N * (k^2 / (k - 1) + 1)``."""
        released = released.astype(float)
        n = float(classes.counts.sum())
        kept = released[~suppressed]
        penalty = float((kept ** 2).sum()) + n * (n - float(kept.sum()))
        return -penalty / (n * class_size_sensitivity(k))


class AverageClassSize(Metric):
    """AECS: ``N / (s * kept classes + g * [any record suppressed])``."""

    name = "aecs"
    label = "Average equivalence class size"
    summary = ("The number of records per released class: larger classes lose more detail.")
    has_monotonic_variant = False
    has_safepub_score = True

    def upper_bound(self):
        return float(self.ctx.n_records)

    def evaluate(self, classes: Classes, suppressed: np.ndarray,
                 counts: np.ndarray | None = None) -> Loss:
        counts = classes.counts if counts is None else counts
        present = counts > 0
        kept = int((present & ~suppressed).sum())
        any_sup = bool((counts[suppressed] > 0).any())
        denom = self.s * kept + self.g * (1.0 if any_sup else 0.0)
        return float(counts.sum() / denom) if denom else float(counts.sum())

    def safepub_score(self, classes: Classes, suppressed: np.ndarray, released: np.ndarray,
                      k: int) -> float:
        """The number of released classes, the suppressed and unsampled records
        forming one more (SafePub; sensitivity 1)."""
        kept = int(((released > 0) & ~suppressed).sum())
        any_out = bool(released[suppressed].sum() > 0 or released.sum() < classes.counts.sum())
        return float(kept + (1 if any_out else 0))


class Ambiguity(Metric):
    """Average number of original combinations a released record could stand for:
    ``(1/N) sum_records prod_q leaves(gen_q)``, suppressed records counting the
    whole domain (Nergiz and Clifton)."""

    name = "ambiguity"
    label = "Ambiguity"
    summary = ("How many original value combinations each released record could stand for.")
    has_monotonic_variant = False

    def prepare(self) -> None:
        self.leaves = [[c.astype(float) for c in h.rows_per_label] for h in self.ctx.hierarchies]
        self.domain = np.prod([float(h.n_rows) for h in self.ctx.hierarchies])

    def evaluate(self, classes, suppressed, counts=None) -> Loss:
        counts = (classes.counts if counts is None else counts).astype(float)
        prod = np.ones(classes.n_classes)
        for j in range(self.ctx.dims):
            prod *= self.leaves[j][classes.levels[j]][classes.gen[:, j]]
        prod[suppressed] = self.domain
        n = counts.sum()
        return float((counts * prod).sum() / n) if n else 0.0


class KLDivergence(Metric):
    """Kullback-Leibler divergence between the input's distribution of
    quasi-identifier combinations and the output's maximum-entropy estimate
    (each class's mass spread uniformly over the leaf combinations it covers).

    With ``p(t)`` the input share of combination ``t`` and ``q(t) = (|c| / N) /
    cover(c)`` for ``t`` in class ``c``, ``KL = sum_t p log p - sum_c (|c| / N)
    log q_c``, so only class sizes and covers are needed.
    """

    name = "kl-divergence"
    label = "KL-divergence"
    summary = ("How far the released data's distribution is from the original's (Kullback-Leibler).")
    has_monotonic_variant = False

    def prepare(self) -> None:
        self.leaves = [[c.astype(float) for c in h.rows_per_label] for h in self.ctx.hierarchies]
        self.domain = np.prod([float(h.n_rows) for h in self.ctx.hierarchies])
        p = self.ctx.base_counts / float(self.ctx.base_counts.sum())
        self.input_term = float((p * np.log(p)).sum())

    def evaluate(self, classes, suppressed, counts=None) -> Loss:
        counts = (classes.counts if counts is None else counts).astype(float)
        n = counts.sum()
        cover = np.ones(classes.n_classes)
        for j in range(self.ctx.dims):
            cover *= self.leaves[j][classes.levels[j]][classes.gen[:, j]]
        # suppressed records form one class covering the whole domain
        kept = ~suppressed & (counts > 0)
        share = counts[kept] / n
        out = self.input_term - float((share * np.log(share / cover[kept])).sum())
        sup = counts[suppressed].sum()
        if sup > 0:
            out -= (sup / n) * np.log((sup / n) / self.domain)
        return float(out)
