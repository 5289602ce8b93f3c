"""Classification accuracy (Iyengar 2002; ARX's "Classification accuracy").

A released record is expected to be classified by the majority value of its
response attribute among the records that share its features. Each record
whose response is not that majority is penalized, every record of a class
without a single majority (a tie) is penalized, and suppressed records are
penalized too. The penalties follow ARX's use of the gs factor:
``suppressed = gs``, ``non-majority = g``, ``no majority = s`` (g, s the
generalization and suppression weights), and the loss is their sum divided by
``max(gs, g, s) * N``: 0 when every record is classified by its own class, up
to 1 per response attribute.

The features of a record are its quasi-identifiers. A response attribute that
is not a quasi-identifier is counted per equivalence class. When the response
is itself a quasi-identifier, the classes that agree on every other
quasi-identifier are pooled and its generalized value is the response; a
generalized response also costs in proportion to how much it was coarsened:
with ``f = 1 - (distinct values at its level - 1) / (distinct original values - 1)``
a misclassified record costs ``g (1 - f) + max f`` (``s (1 - f) + max f``
without a majority), and at ``f = 1`` (everything generalized to one value)
every record costs ``max``.

SafePub's score (``safepub_score``) counts, per response attribute, the
records carrying the majority value of their class (of their pooled classes
for a quasi-identifier response, times ``1 - level / height``), divided by
``k`` times the number of response attributes.
"""
from __future__ import annotations

import numpy as np

from engine.classes import Classes
from engine.errors import JobError
from engine.kernel.grouping import group_rows
from engine.schema import Param
from engine.metrics.base import Loss, Metric


def response_key(attribute: str) -> str:
    return f"response:{attribute}"


def majorities(group: np.ndarray, value: np.ndarray, count: np.ndarray, n_groups: int):
    """Per group: the number of records, the frequency of its most frequent value and
    whether that value is the only one that frequent (a majority exists).

    ``group``, ``value`` and ``count`` list (group, value, records) triples; a pair may
    appear several times."""
    total = np.bincount(group, weights=count, minlength=n_groups)
    top1 = np.zeros(n_groups)
    unique = np.zeros(n_groups, dtype=bool)
    keep = count > 0
    if not keep.any():
        return total, top1, unique
    group, value, count = group[keep], value[keep].astype(np.int64), count[keep]
    width = int(value.max()) + 1
    pairs, inverse = np.unique(group.astype(np.int64) * width + value, return_inverse=True)
    freq = np.bincount(inverse.ravel(), weights=count)
    owner = pairs // width
    order = np.lexsort((-freq, owner))
    owner, freq = owner[order], freq[order]
    start = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    top1[owner[start]] = freq[start]
    second = start + 1
    has_second = second < len(owner)
    has_second[has_second] = owner[second[has_second]] == owner[start[has_second]]
    tie = np.zeros(len(start), dtype=bool)
    tie[has_second] = freq[second[has_second]] == freq[start[has_second]]
    unique[owner[start]] = ~tie
    return total, top1, unique


class ClassificationMetric(Metric):
    """ARX's classification accuracy for one or more ``response`` attributes."""

    name = "classification"
    has_monotonic_variant = False
    has_safepub_score = True

    extra_params = (Param("response", "attribute", None, required=True, many=True,
                          label="Response attribute",
                          help="the attribute a classifier trained on the output would "
                               "predict (or a list of them)"),)
    label = "Classification accuracy"
    summary = ("How well the released data still predict a response attribute (records "
               "not of their class's majority count as lost).")

    def setup(self) -> None:
        super().setup()
        names = [self.response] if isinstance(self.response, str) else list(self.response)
        self.responses = list(dict.fromkeys(names))
        self.penalty_suppressed = self.gs_factor
        self.penalty_minority = self.g
        self.penalty_no_majority = self.s
        self.penalty_max = max(self.gs_factor, self.g, self.s)
        self.qi_index: dict[str, int] = {}

    def is_monotonic(self, suppression_limit: float) -> bool:
        return False

    def attach(self, table, qis: list[str], rows: np.ndarray | None) -> dict:
        from engine.kernel.sparse_counts import SparseCounts

        aggregates = {}
        self.qi_index = {}
        for name in self.responses:
            if name not in table:
                raise JobError(f"[metric] classification: response attribute '{name}' is not "
                               f"a column of the data (columns: {', '.join(table.names)})")
            if name in qis:
                self.qi_index[name] = qis.index(name)
                continue
            column = table.column(name)
            aggregates[response_key(name)] = SparseCounts.from_codes(
                column.codes, len(column.dictionary), rows)
        return aggregates

    def prepare(self) -> None:
        # f per level of each quasi-identifier response: 0 for original values, 1 when
        # all are generalized to one (distinct values counted over the hierarchy's rows)
        self.coarsening = {}
        for name, j in self.qi_index.items():
            h = self.ctx.hierarchies[j]
            distinct = [h.n_rows] + [len(h.rows_per_label[l]) for l in range(1, h.levels)]
            self.coarsening[name] = np.array(
                [0.0 if distinct[0] <= 1 else 1.0 - (d - 1) / (distinct[0] - 1)
                 for d in distinct])

    def upper_bound(self):
        return float(len(self.responses))

    # --- per-response class statistics ------------------------------------------------
    def _triples(self, name: str, classes: Classes, kept: np.ndarray, counts: np.ndarray):
        """(group, response value, records) for the kept classes, and the number of
        groups: a group is a class, or for a quasi-identifier response the kept
        classes agreeing on the other quasi-identifiers."""
        idx = np.flatnonzero(kept)
        if name in self.qi_index:
            j = self.qi_index[name]
            others = np.delete(classes.gen[idx], j, axis=1)
            radix = np.delete(np.array([h.level_size(int(l)) for h, l in
                                        zip(self.ctx.hierarchies, classes.levels)]), j)
            group, first = group_rows(np.ascontiguousarray(others, dtype=np.int32), radix)
            return (np.asarray(group, np.int64), classes.gen[idx, j],
                    counts[idx].astype(float), len(first))
        dist = classes.aggregates[response_key(name)]
        sizes = np.diff(dist.indptr)[idx]
        starts = dist.indptr[idx]
        pos = np.repeat(starts - np.r_[0, np.cumsum(sizes)[:-1]], sizes) + np.arange(sizes.sum())
        group = np.repeat(np.arange(len(idx), dtype=np.int64), sizes)
        return group, dist.value[pos], dist.count[pos].astype(float), len(idx)

    def evaluate(self, classes: Classes, suppressed: np.ndarray,
                 counts: np.ndarray | None = None) -> Loss:
        counts = classes.counts if counts is None else counts
        n = float(counts.sum())
        if n == 0:
            return 0.0
        kept = ~suppressed & (counts > 0)
        n_suppressed = float(counts[suppressed].sum())
        penalty = 0.0
        for name in self.responses:
            penalty += n_suppressed * self.penalty_suppressed
            group, value, count, n_groups = self._triples(name, classes, kept, counts)
            total, top1, unique = majorities(group, value, count, n_groups)
            f = 0.0
            if name in self.qi_index:
                f = float(self.coarsening[name][int(classes.levels[self.qi_index[name]])])
            if f == 1.0:
                penalty += float(total.sum()) * self.penalty_max
                continue
            minority = self.penalty_minority * (1 - f) + self.penalty_max * f
            no_majority = self.penalty_no_majority * (1 - f) + self.penalty_max * f
            penalty += float(np.where(unique, (total - top1) * minority,
                                      total * no_majority).sum())
        return penalty / (self.penalty_max * n)

    def safepub_score(self, classes: Classes, suppressed: np.ndarray, released: np.ndarray,
                      k: int) -> float:
        kept = ~suppressed & (released > 0)
        score = 0.0
        for name in self.responses:
            group, value, count, n_groups = self._triples(name, classes, kept, released)
            _, top1, _ = majorities(group, value, count, n_groups)
            scale = 1.0
            if name in self.qi_index:
                j = self.qi_index[name]
                height = self.ctx.hierarchies[j].height
                scale = 1.0 - int(classes.levels[j]) / height if height else 1.0
            score += float(top1.sum()) * scale
        return score / (k * len(self.responses))
