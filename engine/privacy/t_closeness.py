"""t-closeness (Li, Li & Venkatasubramanian 2007): every class's sensitive-value
distribution is within Earth Mover's Distance t of the overall distribution.

Ground distances:

- ``equal``: all values are 1 apart; EMD = 1/2 * sum |q_i - p_i|.
- ``ordered``: values sorted; neighbours are 1/(m-1) apart;
  EMD = 1/(m-1) * sum_i |sum_{j<=i} (q_j - p_j)|.
- ``hierarchical``: the distance of two values is the level of their lowest
  common ancestor in the attribute's hierarchy divided by the hierarchy's
  height. The EMD is computed bottom-up: at every inner node, the surplus and
  deficit mass flowing up from its children is matched, at a cost of the
  node's level/height per unit; what cannot be matched moves on up.
"""
from __future__ import annotations

import numpy as np

from engine.errors import JobError
from engine.hierarchy.encoded import EncodedHierarchy
from engine.privacy.base import ModelContext
from engine.classes import Classes
from engine.privacy.distribution_kernels import (closeness_verdict, equal_emd,
                                                 hierarchical_emd, ordered_emd)
from engine.kernel.sparse_counts import SparseCounts
from engine.privacy.sensitive import ATTRIBUTE, SensitiveAttributeModel
from engine.schema import Param

DISTANCES = ("equal", "hierarchical", "ordered")


class TCloseness(SensitiveAttributeModel):
    name = "t-closeness"
    monotonic_without_suppression = True
    monotonic_with_suppression = False
    params = (ATTRIBUTE,
              Param("t", "float", 0.2, low=0, high=1, required=True, label="t",
                    help="the largest distance of a class's sensitive values from the "
                         "whole table's (0: identical, 1: anything)"),
              Param("distance", "choice", "equal", choices=DISTANCES, label="Ground distance",
                    help="equal: values all equally far apart; ordered: by their order; "
                         "hierarchical: by the sensitive attribute's hierarchy"))
    label = "t-closeness"
    summary = ("The distribution of sensitive values in every class is close (within t) "
               "to their distribution in the whole table.")

    def setup(self) -> None:
        super().setup()
        self.rank: np.ndarray | None = None  # code -> position in the value order
        self.parent_flat = self.parent_off = self.n_nodes = None
        self.mass_flat = self.node_off = None
        self.hierarchy = None  # the sensitive attribute's Hierarchy (hierarchical distance)
        self._points: tuple | None = None  # (overall, mass_flat, their point distances)

    def bind(self, ctx: ModelContext) -> None:
        super().bind(ctx)
        if self.distance == "ordered":
            order = value_order(self.dictionary, ctx.data_types.get(self.attribute))
            self.rank = np.empty(len(order), dtype=np.int64)
            self.rank[order] = np.arange(len(order))
        elif self.distance == "hierarchical":
            h = ctx.hierarchies.get(self.attribute)
            if h is None:
                raise JobError(f"t-closeness with hierarchical distance needs a hierarchy "
                               f"for the sensitive attribute '{self.attribute}'")
            self.hierarchy = h
            enc = EncodedHierarchy.build(h, self.dictionary, self.attribute)
            parents = parent_maps(enc)
            self.n_nodes = np.array([len(l) for l in enc.labels], dtype=np.int64)
            self.parent_off = np.cumsum([0] + [len(p) for p in parents[:-1]]).astype(np.int64)
            self.parent_flat = (np.concatenate(parents) if parents
                                else np.zeros(0, np.int64)).astype(np.int64)
            self.node_off = np.cumsum([0] + list(self.n_nodes[:-1])).astype(np.int64)
            self.mass_flat = np.concatenate([np.bincount(enc.maps[k], weights=self.overall,
                                                         minlength=int(self.n_nodes[k]))
                                             for k in range(enc.levels)])

    @property
    def point_emd(self) -> np.ndarray:
        """The distance of a class holding one value, per value; recomputed when the
        overall distribution is replaced (local recoding's parts take the table's)."""
        cached = self._points
        if cached is None or cached[0] is not self.overall or cached[1] is not self.mass_flat:
            m = len(self.overall)
            points = self.emd(SparseCounts(np.arange(m + 1, dtype=np.int64),
                                           np.arange(m, dtype=np.int32),
                                           np.ones(m, dtype=np.int64), m))
            self._points = cached = (self.overall, self.mass_flat, points)
        return cached[2]

    def emd(self, dist: SparseCounts) -> np.ndarray:
        """Earth Mover's Distance of each class's distribution from the overall one."""
        if self.distance == "equal":
            return equal_emd(dist.indptr, dist.value, dist.count, self.overall)
        if self.distance == "ordered":
            ranked = np.empty_like(self.overall)
            ranked[self.rank] = self.overall
            return ordered_emd(dist.indptr, dist.value, dist.count, ranked, self.rank)
        return hierarchical_emd(dist.indptr, dist.value, dist.count, self.overall,
                                self.parent_flat, self.parent_off, self.n_nodes,
                                self.mass_flat, self.node_off)

    def violating_distributions(self, dist: SparseCounts) -> np.ndarray:
        return self._verdict(dist)[0]

    def _verdict(self, dist: SparseCounts) -> tuple[np.ndarray, np.ndarray]:
        """Violating classes (no values, or a distance over t) and their floors."""
        return closeness_verdict(dist.indptr, dist.value, dist.count, self.emd(dist),
                                 self.point_emd, self.t)

    def violating_and_floor(self, classes: Classes) -> tuple[np.ndarray, np.ndarray]:
        """Violating classes, and per class the records every specialization suppresses.

        The distance is convex in the class's distribution (each ground distance's EMD
        is a weighted L1 norm of linear functions of it), so when a class at distance
        d > t splits into parts, d <= W * D + (1 - W) * t, where W is the share of its
        records in parts over t and D the largest distance of a part; a part holds
        only the class's values, so D is at most the largest distance of one of them.
        Hence at least W >= (d - t) / (D - t) of the class is suppressed in every
        specialization (counted in ``closeness_verdict`` with a margin far above the
        kernels' rounding)."""
        return self._verdict(self.distributions(classes))

    def distance_floor(self, size: int) -> float:
        """A lower bound of the distance of any class of ``size`` records: it holds at
        most ``size`` values (or, in the hierarchy, nodes of each level), so at least the
        overall mass outside the ``size`` heaviest ones must move, by at least the
        smallest ground distance. The hierarchical EMD is (1/height) times the sum over
        levels below the root of the total variation at that level. 0 if unknown."""
        def outside(mass: np.ndarray) -> float:
            return max(0.0, 1.0 - float(np.sort(mass)[::-1][:size].sum()))
        m = len(self.overall)
        if self.distance == "equal":
            return outside(self.overall)
        if self.distance == "ordered":
            return outside(self.overall) / (m - 1) if m > 1 else 0.0
        height = len(self.parent_off)
        if height == 0 or self.n_nodes[height] != 1:  # no single root: no bound used
            return 0.0
        return sum(outside(self.mass_flat[self.node_off[k]:self.node_off[k] + self.n_nodes[k]])
                   for k in range(height)) / height

    def implied_class_size(self) -> int:
        """Classes smaller than the first size whose distance floor is within t violate
        (with a margin far above the kernels' rounding)."""
        if self.overall is None or not self.overall.sum() > 0:
            return 1
        for size in range(1, len(self.overall) + 1):
            if self.distance_floor(size) <= self.t + 1e-9:
                return size
        return len(self.overall) + 1

    def describe(self) -> str:
        return f"{self.t:g}-closeness ({self.distance} distance) of '{self.attribute}'"


#: data types whose values ordered t-closeness orders as text, numbers or not
TEXT_TYPES = ("string", "text")


def value_order(dictionary: np.ndarray, data_type: str | None = None) -> np.ndarray:
    """Codes in the ordered distance's value order: values that read as finite numbers
    first, numerically (equal numbers by their text), then every other value (blank,
    ``NULL``, text) in text order; a column declared ``data_type = "string"`` (or
    ``"text"``) in text order throughout. One blank or word among numbers no longer
    turns the whole column to text order (issue 26)."""
    values = [str(v) for v in dictionary]
    as_text = str(data_type or "").lower() in TEXT_TYPES
    numbers = np.full(len(values), np.nan)
    if not as_text:
        for i, v in enumerate(values):
            try:
                x = float(v)
            except ValueError:
                continue
            if np.isfinite(x):
                numbers[i] = x
    is_number = ~np.isnan(numbers)
    keys = [(0, numbers[i], values[i]) if is_number[i] else (1, 0.0, values[i])
            for i in range(len(values))]
    return np.asarray(sorted(range(len(values)), key=keys.__getitem__), dtype=np.int64)


def parent_maps(enc: EncodedHierarchy) -> list[np.ndarray]:
    """For each level k < height, each level-k node's parent at level k+1."""
    out = []
    for k in range(enc.height):
        child, parent = enc.maps[k], enc.maps[k + 1]
        up = np.zeros(len(enc.labels[k]), dtype=np.int64)
        up[child] = parent
        out.append(up)
    # level-0 "nodes" are the data values themselves (maps[0] is the identity)
    return out
