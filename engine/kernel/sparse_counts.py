"""Per-class frequency distributions of a sensitive attribute, stored sparsely.

A dense class x value matrix is wasteful for attributes with hundreds of
values (the CUP data's RAMNTALL has 814): most classes hold a few of them.
``SparseCounts`` keeps, class by class, only the values present (CSR layout:
``indptr``, ``value``, ``count``). It merges itself during the classifier's
roll-up (``rollup(group_of, n)``), so the distribution of a class is the sum
of its parts' distributions, never recounted from records.
"""
from __future__ import annotations

import numpy as np
from engine.kernel.jit import njit


@njit(cache=True, nogil=True)
def _rollup(indptr, value, count, group_of, n, m):
    n_items = len(indptr) - 1
    pairs = len(value)
    start = np.zeros(n + 1, dtype=np.int64)
    for i in range(n_items):
        start[group_of[i] + 1] += indptr[i + 1] - indptr[i]
    for g in range(n):
        start[g + 1] += start[g]
    pos = start[:-1].copy()
    order = np.empty(pairs, dtype=np.int64)
    for i in range(n_items):
        g = group_of[i]
        for p in range(indptr[i], indptr[i + 1]):
            order[pos[g]] = p
            pos[g] += 1
    slot = np.full(m, -1, dtype=np.int64)
    out_value = np.empty(pairs, dtype=np.int32)
    out_count = np.empty(pairs, dtype=np.int64)
    out_ptr = np.zeros(n + 1, dtype=np.int64)
    k = 0
    for g in range(n):
        begin = k
        for t in range(start[g], start[g + 1]):
            p = order[t]
            v = value[p]
            s = slot[v]
            if s >= begin:
                out_count[s] += count[p]
            else:
                slot[v] = k
                out_value[k] = v
                out_count[k] = count[p]
                k += 1
        out_ptr[g + 1] = k
    return out_ptr, out_value[:k].copy(), out_count[:k].copy()


@njit(cache=True, nogil=True)
def _rollup_small(indptr, value, count, group_of, n, m):
    """``_rollup`` when the groups x values table is small: counts add up in it in one
    pass over the items; each group's values keep their order of first appearance
    (as ``_rollup``'s), so the results are the same arrays."""
    n_items = len(indptr) - 1
    pairs = len(value)
    table = np.full(n * m, -1, dtype=np.int64)
    first_group = np.empty(pairs, dtype=np.int64)
    first_value = np.empty(pairs, dtype=np.int32)
    n_first = 0
    out_ptr = np.zeros(n + 1, dtype=np.int64)
    for i in range(n_items):
        g = group_of[i]
        base = g * m
        for p in range(indptr[i], indptr[i + 1]):
            v = value[p]
            if table[base + v] < 0:
                table[base + v] = count[p]
                first_group[n_first] = g
                first_value[n_first] = v
                n_first += 1
                out_ptr[g + 1] += 1
            else:
                table[base + v] += count[p]
    for g in range(n):
        out_ptr[g + 1] += out_ptr[g]
    pos = out_ptr[:-1].copy()
    out_value = np.empty(n_first, dtype=np.int32)
    out_count = np.empty(n_first, dtype=np.int64)
    for f in range(n_first):
        g = first_group[f]
        k = pos[g]
        pos[g] += 1
        v = first_value[f]
        out_value[k] = v
        out_count[k] = table[g * m + v]
    return out_ptr, out_value, out_count


#: ``rollup`` adds up in a dense groups x values table when it has at most this many
#: cells per (item, value) pair
SMALL_TABLE_CELLS_PER_PAIR = 4


@njit(cache=True, nogil=True)
def _dense(indptr, value, count, m):
    n = len(indptr) - 1
    out = np.zeros((n, m), dtype=np.int64)
    for g in range(n):
        for p in range(indptr[g], indptr[g + 1]):
            out[g, value[p]] += count[p]
    return out


class SparseCounts:
    """Counts of values per item (record, distinct record or class), CSR layout."""

    __slots__ = ("indptr", "value", "count", "n_values")

    def __init__(self, indptr: np.ndarray, value: np.ndarray, count: np.ndarray,
                 n_values: int):
        self.indptr = indptr
        self.value = value
        self.count = count
        self.n_values = int(n_values)

    @classmethod
    def from_codes(cls, codes: np.ndarray, n_values: int,
                   rows: np.ndarray | None = None) -> "SparseCounts":
        """One count per record; records outside the boolean mask ``rows`` count nothing."""
        codes = np.asarray(codes)
        keep = np.ones(len(codes), dtype=bool) if rows is None else np.asarray(rows, bool)
        indptr = np.zeros(len(codes) + 1, dtype=np.int64)
        np.cumsum(keep, out=indptr[1:])
        return cls(indptr, codes[keep].astype(np.int32), np.ones(int(keep.sum()), np.int64),
                   n_values)

    def weighted(self, weights: np.ndarray) -> "SparseCounts":
        """Each item's counts times its weight (items standing for several records)."""
        per_pair = np.repeat(np.asarray(weights, dtype=np.int64), np.diff(self.indptr))
        return SparseCounts(self.indptr, self.value, self.count * per_pair, self.n_values)

    @property
    def n_items(self) -> int:
        return len(self.indptr) - 1

    @property
    def nbytes(self) -> int:
        return self.indptr.nbytes + self.value.nbytes + self.count.nbytes

    def rollup(self, group_of: np.ndarray, n: int) -> "SparseCounts":
        """Counts per group, where item ``i`` belongs to group ``group_of[i]``."""
        n = int(n)
        small = n * self.n_values <= SMALL_TABLE_CELLS_PER_PAIR * max(len(self.value), 1)
        ptr, value, count = (_rollup_small if small else _rollup)(
            self.indptr, self.value, self.count, np.asarray(group_of, dtype=np.int64), n,
            self.n_values)
        return SparseCounts(ptr, value, count, self.n_values)

    def totals(self) -> np.ndarray:
        """Sum of counts per item."""
        cs = np.zeros(len(self.count) + 1, dtype=np.int64)
        np.cumsum(self.count, out=cs[1:])
        return cs[self.indptr[1:]] - cs[self.indptr[:-1]]

    def distinct(self) -> np.ndarray:
        """Number of distinct values per item."""
        return np.diff(self.indptr)

    def dense(self) -> np.ndarray:
        """Item x value count matrix."""
        return _dense(self.indptr, self.value, self.count, self.n_values)
