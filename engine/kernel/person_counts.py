"""Distinct persons per class (``[data] person``), merged during roll-up.

Distinct counts do not add up: a person with rows in two items that a
generalization merges must count once in the merged class. The rows are
therefore split once, when they are grouped into the base snapshot (the
distinct quasi-identifier combinations):

- a *single* person has all their (counted) rows in one base item: whatever
  the transformation, they stay in one class, so they add up as plain counts
  (``single``: per item, each value -> the single persons holding it);
- a *spread* person has rows in several base items: each (person, value) pair
  is kept as a key (``spread``: per item, key -> rows) and the roll-up merges
  equal keys, so a class counts each once. Pairs with the same value in the same
  base items fall into the same classes at every transformation: they share one
  key that weighs as many (``key_weight``), so the keys grow with the distinct ways
  persons spread (a birthday between visits), not with the persons.

A "value" is a sensitive attribute's value (the l-diversity family counts, per
class, the persons holding each value), or one value standing for "a person"
when only persons are counted. Where persons keep their quasi-identifiers, the
spread part is small and the roll-up costs about as much as the records' own.

``PersonRows`` is the per-row aggregate the classifier is given; its first
roll-up (rows -> base items) builds the ``PersonCounts`` every later roll-up
merges.
"""
from __future__ import annotations

import numpy as np

from engine.kernel.grouping import sum_by_group
from engine.kernel.jit import njit
from engine.kernel.sparse_counts import SparseCounts


@njit(cache=True, nogil=True)
def _items_per_person(person, group_of, keep, n_persons):
    """Per person: their first item (-1: no counted row) and whether rows of theirs
    fall into another item too."""
    first = np.full(n_persons, -1, dtype=np.int64)
    spread = np.zeros(n_persons, dtype=np.bool_)
    for r in range(len(person)):
        if not keep[r]:
            continue
        p = person[r]
        g = group_of[r]
        if first[p] < 0:
            first[p] = g
        elif first[p] != g:
            spread[p] = True
    return first, spread


@njit(cache=True, nogil=True)
def _merge(s_ptr, s_value, s_count, p_ptr, p_key, key_value, key_weight, n_values):
    """Per class: the single persons' counts plus each spread key's weight once, by
    value."""
    n = len(s_ptr) - 1
    size = len(s_value) + len(p_key)
    slot = np.full(n_values, -1, dtype=np.int64)
    out_ptr = np.zeros(n + 1, dtype=np.int64)
    out_value = np.empty(size, dtype=np.int32)
    out_count = np.empty(size, dtype=np.int64)
    k = 0
    for g in range(n):
        begin = k
        for p in range(s_ptr[g], s_ptr[g + 1]):
            v = s_value[p]
            s = slot[v]
            if s >= begin:
                out_count[s] += s_count[p]
            else:
                slot[v] = k
                out_value[k] = v
                out_count[k] = s_count[p]
                k += 1
        for p in range(p_ptr[g], p_ptr[g + 1]):
            v = key_value[p_key[p]]
            w = key_weight[p_key[p]]
            s = slot[v]
            if s >= begin:
                out_count[s] += w
            else:
                slot[v] = k
                out_value[k] = v
                out_count[k] = w
                k += 1
        out_ptr[g + 1] = k
    return out_ptr, out_value[:k].copy(), out_count[:k].copy()


class PersonCounts:
    """Per item (base item or class): persons holding each value, as two parts that
    roll up separately (module docstring)."""

    __slots__ = ("single", "spread", "key_value", "key_weight", "n_values", "n_persons",
                 "unit")

    def __init__(self, single, spread: SparseCounts, key_value: np.ndarray,
                 key_weight: np.ndarray, n_values: int, n_persons: int,
                 unit: bool | None = None):
        # ``single``: a SparseCounts, or with one value (persons only) a plain count per
        # item, which rolls up as a sum
        self.single = single
        self.spread = spread
        self.key_value = key_value
        self.key_weight = key_weight  # the (person, value) pairs each key stands for
        #: every key stands for one pair (persons spread each their own way)
        self.unit = unit if unit is not None else not bool((key_weight > 1).any())
        self.n_values = int(n_values)
        self.n_persons = int(n_persons)

    @property
    def nbytes(self) -> int:
        return (self.single.nbytes + self.spread.nbytes + self.key_value.nbytes
                + self.key_weight.nbytes)

    @property
    def n_items(self) -> int:
        return len(self.spread.indptr) - 1

    def rollup(self, group_of: np.ndarray, n: int) -> "PersonCounts":
        n = int(n)
        spread = (self.spread.rollup(group_of, n) if len(self.key_value)
                  else SparseCounts(np.zeros(n + 1, np.int64), self.spread.value,
                                    self.spread.count, self.spread.n_values))
        single = (sum_by_group(self.single, np.asarray(group_of, np.int64), n)
                  if isinstance(self.single, np.ndarray) else self.single.rollup(group_of, n))
        return PersonCounts(single, spread, self.key_value, self.key_weight, self.n_values,
                            self.n_persons, self.unit)

    def _single_counts(self) -> SparseCounts:
        single = self.single
        if not isinstance(single, np.ndarray):
            return single
        present = single > 0
        indptr = np.zeros(len(single) + 1, np.int64)
        np.cumsum(present, out=indptr[1:])
        return SparseCounts(indptr, np.zeros(int(present.sum()), np.int32),
                            single[present].astype(np.int64), 1)

    def by_value(self) -> SparseCounts:
        """Per item: each value -> the distinct persons holding it (in the item). Merged
        when asked (not kept: a cached snapshot holds only what ``nbytes`` counts)."""
        single = self._single_counts()
        if not len(self.key_value):
            return single
        ptr, value, count = _merge(single.indptr, single.value, single.count,
                                   self.spread.indptr, self.spread.value, self.key_value,
                                   self.key_weight, self.n_values)
        return SparseCounts(ptr, value, count, self.n_values)

    def persons(self) -> np.ndarray:
        """Distinct persons per item (each counted once, whatever values they hold)."""
        if self.n_values == 1:  # a key per way of spreading: its persons count once
            single = (self.single if isinstance(self.single, np.ndarray)
                      else self.single.totals())
            spread = self.spread
            if self.unit:
                return single + spread.distinct()
            weights = np.zeros(len(spread.value) + 1, np.int64)
            np.cumsum(self.key_weight[spread.value], out=weights[1:])
            return single + weights[spread.indptr[1:]] - weights[spread.indptr[:-1]]
        raise ValueError("persons() of a per-value count: use the person count itself")


class PersonRows:
    """The per-row aggregate: each row's person and value (rows outside ``keep`` count
    nothing). Its roll-up into the base items is a ``PersonCounts``."""

    def __init__(self, person: np.ndarray, n_persons: int, values: np.ndarray | None = None,
                 n_values: int = 1, keep: np.ndarray | None = None):
        self.person = np.asarray(person, dtype=np.int64)
        self.n_persons = int(n_persons)
        self.values = (np.zeros(len(self.person), np.int64) if values is None
                       else np.asarray(values, dtype=np.int64))
        self.n_values = int(n_values)
        self.keep = (np.ones(len(self.person), dtype=bool) if keep is None
                     else np.asarray(keep, dtype=bool))

    def weighted(self, weights: np.ndarray) -> "PersonRows":
        """Rows standing for several records of one person and value count them once."""
        return self

    def rollup(self, group_of: np.ndarray, n: int) -> PersonCounts:
        group_of = np.asarray(group_of, dtype=np.int64)
        n = int(n)
        keep = self.keep
        first, spread = _items_per_person(self.person, group_of, keep, self.n_persons)
        # the distinct (person, value) pairs among the counted rows
        rows = np.flatnonzero(keep)
        key = self.person[rows] * self.n_values + self.values[rows]
        pairs, pair_of_row = np.unique(key, return_inverse=True)
        pair_person = pairs // self.n_values
        pair_value = (pairs % self.n_values).astype(np.int32)
        # single persons: each pair counts once in their one item
        single_pair = ~spread[pair_person]
        if self.n_values == 1:  # persons only: a count per item
            single = np.bincount(first[pair_person][single_pair], minlength=n).astype(np.int64)
        else:
            single = SparseCounts.from_codes(pair_value, self.n_values, single_pair).rollup(
                first[pair_person], n)
        # spread persons: their pairs become keys, one per value and set of base items
        spread_pair = ~single_pair
        raw_of_pair = np.cumsum(spread_pair) - 1
        spread_rows = spread_pair[pair_of_row]
        raw = raw_of_pair[pair_of_row[spread_rows]]
        key_of_raw, key_value, key_weight = _signatures(
            raw, group_of[rows][spread_rows], pair_value[spread_pair], n)
        row_keys = np.zeros(len(rows), np.int32)
        row_keys[spread_rows] = key_of_raw[raw]
        spread_counts = SparseCounts.from_codes(row_keys, max(len(key_value), 1),
                                                spread_rows).rollup(group_of[rows], n)
        return PersonCounts(single, spread_counts, key_value, key_weight, self.n_values,
                            self.n_persons)


def _signatures(raw: np.ndarray, item: np.ndarray, raw_value: np.ndarray,
                n_items: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Spread (person, value) pairs numbered ``raw`` (one entry per row: the pair and its
    base item) grouped by their value and set of base items: each pair's key, and per
    key its value and the pairs it stands for."""
    n_raw = len(raw_value)
    if n_raw == 0:
        return (np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int64))
    both = np.unique(raw.astype(np.int64) * n_items + item)  # by pair, then item
    pair, items = both // n_items, both % n_items
    bounds = np.flatnonzero(np.diff(pair)) + 1
    starts = np.concatenate(([0], bounds))
    ends = np.concatenate((bounds, [len(both)]))
    found: dict = {}
    key_of_raw = np.empty(n_raw, np.int64)
    for r, a, b in zip(pair[starts].tolist(), starts.tolist(), ends.tolist()):
        key_of_raw[r] = found.setdefault((int(raw_value[r]), items[a:b].tobytes()),
                                         len(found))
    key_value = np.empty(len(found), np.int32)
    key_value[key_of_raw] = raw_value
    return key_of_raw, key_value, np.bincount(key_of_raw, minlength=len(found)).astype(np.int64)
