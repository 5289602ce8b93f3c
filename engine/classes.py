"""Equivalence classes of a transformation, derived by roll-up from cached snapshots."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from engine.kernel.jit import njit

from engine.hierarchy.encoded import EncodedHierarchy
from engine.kernel.grouping import group_columns, rollup_classes, sum_by_group


@dataclass
class Classes:
    """The equivalence classes of one transformation.

    ``rep[c]`` holds original (level-0) codes of one record of class ``c`` (stored
    attribute by attribute, ``by_column``, which roll-ups read fastest),
    ``gen[c]`` its generalized codes at ``levels``, ``counts[c]`` its size.
    ``aggregates`` holds per-class sums of per-record vectors or matrices
    (research-subset membership, sensitive-value distributions...).
    """

    levels: np.ndarray
    rep: np.ndarray
    gen: np.ndarray
    counts: np.ndarray
    aggregates: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def n_classes(self) -> int:
        return len(self.counts)

    def nbytes(self) -> int:
        return (self.rep.nbytes + self.gen.nbytes + self.counts.nbytes
                + sum(a.nbytes for a in self.aggregates.values()))


def by_column(rep: np.ndarray) -> np.ndarray:
    """``rep`` stored attribute by attribute: the transpose of a C-contiguous
    (attributes x items) array, indexed like ``rep``."""
    return np.ascontiguousarray(rep.T).T


def weigh_aggregate(values, weights: np.ndarray):
    """A per-row vector or matrix (or an object with ``weighted(weights)``) for rows
    that stand for ``weights[i]`` records each."""
    if hasattr(values, "weighted"):
        return values.weighted(weights)
    values = np.asarray(values)
    return values * weights.reshape((-1,) + (1,) * (values.ndim - 1))


def merge_aggregate(values, group_of: np.ndarray, n: int):
    """Sum per group of a vector or matrix; objects with a ``rollup(group_of, n)``
    method (sparse distributions) merge themselves."""
    if hasattr(values, "rollup"):
        return values.rollup(group_of, n)
    return sum_by_group(np.asarray(values), group_of, n)


class Classifier:
    """Computes classes for any level vector without rescanning the records.

    The records are compressed once into their distinct quasi-identifier
    combinations (the base snapshot). A transformation's classes are rolled
    up from the cached snapshot of a specialization with the fewest classes,
    so most checks group a few thousand items instead of all rows.

    With ``row_weights`` each row stands for that many records (a backend's
    frequency table): counts and row aggregates are weighted, and everything
    after the base snapshot is the same as for one row per record.

    ``qi_codes`` holds the rows' codes, rows x attributes, or as one code column per
    attribute (a list of arrays: then no rows x attributes copy is made).
    """

    def __init__(self, hierarchies: list[EncodedHierarchy], qi_codes,
                 row_aggregates: dict[str, np.ndarray] | None = None,
                 cache_budget_bytes: int = 128 * 2**20,
                 row_weights: np.ndarray | None = None):
        self.hierarchies = hierarchies
        if isinstance(qi_codes, np.ndarray):
            columns = [qi_codes[:, j] for j in range(qi_codes.shape[1])]
            self.n_rows = qi_codes.shape[0]
        else:
            columns = [np.asarray(c) for c in qi_codes]
            self.n_rows = len(columns[0]) if columns else 0
        maps = []
        pos = 0
        max_levels = max((h.levels for h in hierarchies), default=1)
        self.offsets = np.zeros((len(hierarchies), max_levels), dtype=np.int64)
        for j, h in enumerate(hierarchies):
            flat, o = h.flat_maps()
            maps.append(flat)
            self.offsets[j, :len(o)] = o + pos
            pos += len(flat)
        self.maps_flat = (np.concatenate(maps).astype(np.int32) if maps
                          else np.zeros(0, np.int32))
        self.level_sizes = [np.array([h.level_size(l) for l in range(h.levels)])
                            for h in hierarchies]
        # codes per attribute (row) and level (column), for the roll-up kernel
        self.sizes = np.ones((len(hierarchies), max_levels), dtype=np.int64)
        for j, s in enumerate(self.level_sizes):
            self.sizes[j, :len(s)] = s
        radix = np.array([len(h.maps[0]) for h in hierarchies], dtype=np.int64)
        group_of, first = group_columns(columns, radix, self.n_rows)
        n = len(first)
        self.row_to_base = group_of
        row_aggregates = row_aggregates or {}
        if row_weights is not None:
            row_weights = np.asarray(row_weights, dtype=np.int64)
            row_aggregates = {k: weigh_aggregate(v, row_weights)
                              for k, v in row_aggregates.items()}
        aggs = {k: merge_aggregate(v, group_of, n) for k, v in row_aggregates.items()}
        records = np.ones(self.n_rows, np.int64) if row_weights is None else row_weights
        rep_t = (np.stack([c[first] for c in columns]).astype(np.int32, copy=False)
                 if columns else np.zeros((0, n), np.int32))
        self.base = Classes(np.zeros(len(hierarchies), dtype=np.int64), rep_t.T,
                            np.ascontiguousarray(rep_t.T), sum_by_group(records, group_of, n),
                            aggs)
        self._cache = _SnapshotCache(len(hierarchies), cache_budget_bytes)

    def value_counts(self, j: int, n_values: int) -> np.ndarray:
        """Records per original code of attribute ``j`` (``n_values`` codes), counted
        from the base snapshot (as a bincount of the rows would)."""
        base = self.base
        return np.bincount(base.rep[:, j], weights=base.counts,
                           minlength=n_values).astype(np.int64)

    def radix(self, levels) -> np.ndarray:
        return np.array([s[l] for s, l in zip(self.level_sizes, levels)], dtype=np.int64)

    def _source(self, levels: np.ndarray) -> Classes:
        found = self._cache.best_specialization(levels)
        return found if found is not None and found.n_classes < self.base.n_classes else self.base

    def rollup(self, source: Classes, levels: np.ndarray,
               groups: bool = True) -> tuple[Classes, np.ndarray]:
        """Classes at ``levels`` from a specialization's classes, and the item->class map
        (which may be left empty without ``groups`` when the source has no aggregates)."""
        group_of, first, counts, gen, rep = rollup_classes(
            source.rep, source.counts, self.maps_flat, self.offsets, levels, self.sizes,
            groups or bool(source.aggregates))
        n = len(first)
        aggs = {k: merge_aggregate(v, group_of, n) for k, v in source.aggregates.items()}
        classes = Classes(levels.copy(), rep, gen, counts, aggs)
        return classes, group_of

    def classify(self, levels, cache: bool = True) -> Classes:
        levels = np.asarray(levels, dtype=np.int64)
        key, hit, source = self.plan(levels)
        if hit is not None:
            return hit
        classes = self.rolled_up(source, levels)
        if cache:
            self.store(key, classes)
        return classes

    # ``classify`` in three steps, for roll-ups run in other threads
    # (``engine.search.concurrent_checks``): the classes do not depend on the snapshot
    # they are rolled up from (first-appearance order of the records), only the speed does
    def plan(self, levels: np.ndarray) -> tuple[bytes, Classes | None, Classes | None]:
        """``(key, cached classes, None)`` or ``(key, None, snapshot to roll up from)``
        for ``levels`` (int64); marks what it uses as recently used."""
        key = levels.tobytes()
        hit = self._cache.get(key)
        return (key, hit, None) if hit is not None else (key, None, self._source(levels))

    def rolled_up(self, source: Classes, levels: np.ndarray) -> Classes:
        """The classes at ``levels`` rolled up from ``source``; reads only (numba kernels
        that release the GIL: safe and parallel in worker threads)."""
        return self.rollup(source, levels, groups=False)[0]

    def store(self, key: bytes, classes: Classes) -> None:
        """Cache a snapshot ``plan`` gave the key of (in the order checks are made)."""
        self._cache.put(key, classes)

    def classify_rows(self, levels) -> tuple[Classes, np.ndarray]:
        """Classes and each row's class index (for output tables)."""
        levels = np.asarray(levels, dtype=np.int64)
        classes, base_to_class = self.rollup(self.base, levels)
        return classes, base_to_class[self.row_to_base]


@njit(cache=True, nogil=True)
def _fewest_classes_below(slot_levels, used, n_classes, levels, end):
    """The used slot among the first ``end`` whose levels are all <= ``levels`` with
    the fewest classes (the lowest slot on ties), or -1."""
    best = -1
    q = slot_levels.shape[1]
    for s in range(end):
        if not used[s] or (best >= 0 and n_classes[s] >= n_classes[best]):
            continue
        ok = True
        for j in range(q):
            if slot_levels[s, j] > levels[j]:
                ok = False
                break
        if ok:
            best = s
    return best


class _SnapshotCache:
    """Least-recently-used snapshots, searchable for a specialization in one pass."""

    def __init__(self, dims: int, budget_bytes: int, capacity: int = 4096):
        self.budget = budget_bytes
        self.levels = np.zeros((capacity, dims), dtype=np.int64)
        self.n_classes = np.zeros(capacity, dtype=np.int64)
        self.stamp = np.zeros(capacity, dtype=np.int64)
        self.entries: list[Classes | None] = [None] * capacity
        self.keys: list[bytes] = [b""] * capacity
        self.slot_of: dict[bytes, int] = {}
        self.free = list(range(capacity - 1, -1, -1))
        self.used = np.zeros(capacity, dtype=bool)
        self.bytes = 0
        self.clock = 0
        self.end = 0  # slots at or past this one were never used

    def get(self, key: bytes) -> Classes | None:
        slot = self.slot_of.get(key)
        if slot is None:
            return None
        self.clock += 1
        self.stamp[slot] = self.clock
        return self.entries[slot]

    def best_specialization(self, levels: np.ndarray) -> Classes | None:
        if not self.slot_of:
            return None
        slot = _fewest_classes_below(self.levels, self.used, self.n_classes, levels, self.end)
        if slot < 0:
            return None
        self.clock += 1
        self.stamp[slot] = self.clock
        return self.entries[slot]

    def put(self, key: bytes, classes: Classes) -> None:
        size = classes.nbytes()
        if size > self.budget // 4 or key in self.slot_of:
            return
        while self.free == [] or self.bytes + size > self.budget:
            if not self.slot_of:
                return
            self._evict()
        slot = self.free.pop()
        self.end = max(self.end, slot + 1)
        self.clock += 1
        self.levels[slot] = classes.levels
        self.n_classes[slot] = classes.n_classes
        self.stamp[slot] = self.clock
        self.entries[slot] = classes
        self.keys[slot] = key
        self.used[slot] = True
        self.slot_of[key] = slot
        self.bytes += size

    def _evict(self) -> None:
        end = self.end
        slot = int(np.argmin(np.where(self.used[:end], self.stamp[:end],
                                      np.iinfo(np.int64).max)))
        old = self.entries[slot]
        self.bytes -= old.nbytes()
        self.entries[slot] = None
        self.used[slot] = False
        del self.slot_of[self.keys[slot]]
        self.free.append(slot)
