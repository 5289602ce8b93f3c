"""Distinct persons per class (``[data] person``), counted at each check.

Distinct counts do not add up: a person with rows in two items that a
generalization merges must count once in the merged class. The rows are
therefore split once, when they are grouped into the base snapshot (the
distinct quasi-identifier combinations):

- a *single* (person, value) pair has all its (counted) rows in one base item:
  whatever the transformation, it stays in one class, so single pairs add up as
  plain counts (``single``: per item, each value -> the single pairs holding it),
  rolled up with the snapshots;
- a *spread* pair has rows in several base items. Pairs with the same value in the
  same base items fall into the same classes at every transformation: they share
  one *key* that weighs as many (``SpreadKeys``), so the keys grow with the distinct
  ways persons spread (a birthday between visits), not with the persons. The keys
  never change; a snapshot keeps only the class of each key *entry* (a key's base
  item: one flat gather per roll-up). Every entry's pairs are added up per item with
  the single pairs (``counted``: sums that roll up), and a check takes off the
  entries whose key already has an entry in their class (compared within the key:
  no per-class key lists), so a class counts each key once.

A "value" is a sensitive attribute's value (the l-diversity family counts, per
class, the persons holding each value), or one value standing for "a person"
when only persons are counted (k-anonymity, risks). Where persons keep their
quasi-identifiers, there are few keys and counting costs next to nothing; at
worst (every person's rows in other combinations) a check costs a pass over the
keys' entries, as many as the spread persons' rows.

``PersonRows`` is the per-row aggregate the classifier is given; its first
roll-up (rows -> base items) builds the ``PersonCounts`` every later roll-up
carries on (out of core the backend splits the pairs in SQL:
``engine.kernel.person_tallies``).
"""
from __future__ import annotations

import numpy as np

from engine.kernel.grouping import sum_by_group
from engine.kernel.jit import njit
from engine.kernel.sparse_counts import SparseCounts


@njit(cache=True, nogil=True)
def _items_per_pair(pair_of_row, item, n_pairs):
    """Per (person, value) pair: the base item of its first row and whether rows of it
    fall into another item too."""
    first = np.full(n_pairs, -1, dtype=np.int64)
    spread = np.zeros(n_pairs, dtype=np.bool_)
    for r in range(len(pair_of_row)):
        p = pair_of_row[r]
        g = item[r]
        if first[p] < 0:
            first[p] = g
        elif first[p] != g:
            spread[p] = True
    return first, spread


@njit(cache=True, nogil=True, inline="always")
def _mix(z):
    """splitmix64's finalizer (uint64 in, uint64 out)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True)
def _group_pairs(ptr, items, values):
    """Pairs ``r`` (value ``values[r]``, sorted base items ``items[ptr[r]:ptr[r+1]]``)
    grouped by value and items, in a hash table that compares them: each key's first
    pair (keys in order of their first pair) and each pair's key."""
    n = len(ptr) - 1
    size = 2
    while size < 2 * n:
        size *= 2
    mask = np.uint64(size - 1)
    table = np.full(size, -1, dtype=np.int64)
    key_hash = np.empty(n, dtype=np.uint64)
    rep = np.empty(n, dtype=np.int64)
    key_of = np.empty(n, dtype=np.int64)
    n_keys = 0
    for r in range(n):
        a, b = ptr[r], ptr[r + 1]
        h = _mix(np.uint64(values[r]) + np.uint64(0x9E3779B97F4A7C15))
        h = _mix(h ^ np.uint64(b - a))
        for p in range(a, b):
            h = _mix(h ^ np.uint64(items[p]))
        s = h & mask
        while True:
            k = table[s]
            if k < 0:  # a new key
                table[s] = n_keys
                key_hash[n_keys] = h
                rep[n_keys] = r
                key_of[r] = n_keys
                n_keys += 1
                break
            if key_hash[k] == h:
                q = rep[k]
                same = values[q] == values[r] and ptr[q + 1] - ptr[q] == b - a
                if same:
                    d = ptr[q] - a
                    for p in range(a, b):
                        if items[p + d] != items[p]:
                            same = False
                            break
                if same:
                    key_of[r] = k
                    break
            s = (s + np.uint64(1)) & mask
    return rep[:n_keys].copy(), key_of


@njit(cache=True, nogil=True)
def _gather(cls, group_of):
    """Each key entry's class after a roll-up (``group_of``: source item -> class)."""
    out = np.empty(len(cls), dtype=np.int32)
    for p in range(len(cls)):
        out[p] = group_of[cls[p]]
    return out


#: a key of at most this many entries finds an entry's class among its earlier entries'
#: by comparing (longer keys mark the classes they were met in)
SHORT_KEY = 8


@njit(cache=True, nogil=True)
def _repeats(ptr, weight, cls, n):
    """Per class: the pairs of the keys' entries there that another entry of their key
    before them is in too (what adding every entry's pairs counts twice). Comparisons
    within each key, read in order; a class is written only for a repeat."""
    out = np.zeros(n, dtype=np.int64)
    mark = np.full(0, -1, dtype=np.int64)
    for k in range(len(ptr) - 1):
        a, b = ptr[k], ptr[k + 1]
        w = weight[k]
        if b - a == 2:
            if cls[a + 1] == cls[a]:
                out[cls[a]] += w
        elif b - a == 3:
            c0, c1, c2 = cls[a], cls[a + 1], cls[a + 2]
            if c1 == c0:
                out[c1] += w
            if c2 == c0 or c2 == c1:
                out[c2] += w
        elif b - a <= SHORT_KEY:
            for p in range(a + 1, b):
                c = cls[p]
                for q in range(a, p):
                    if cls[q] == c:
                        out[c] += w
                        break
        else:
            if len(mark) == 0:
                mark = np.full(n, -1, dtype=np.int64)
            for p in range(a, b):
                c = cls[p]
                if mark[c] == k:
                    out[c] += w
                mark[c] = k
    return out


@njit(cache=True, nogil=True)
def _take_pairs(indptr, value, count, ptr, key_value, key_weight, cls, n, every):
    """``count`` (per item, the values ``value[indptr[g]:indptr[g+1]]``) less each key's
    pairs at its entries that another entry of the key before them is in too (or, with
    ``every``, at all its entries)."""
    out = count.copy()
    mark = np.full(0, -1, dtype=np.int64)
    for k in range(len(ptr) - 1):
        a, b = ptr[k], ptr[k + 1]
        w = key_weight[k]
        v = key_value[k]
        long = b - a > SHORT_KEY
        if long and len(mark) == 0:
            mark = np.full(n, -1, dtype=np.int64)
        for p in range(a, b):
            c = cls[p]
            take = every
            if long:
                take = take or mark[c] == k
                mark[c] = k
            elif not take:
                for q in range(a, p):
                    if cls[q] == c:
                        take = True
                        break
            if take:
                for j in range(indptr[c], indptr[c + 1]):
                    if value[j] == v:
                        out[j] -= w
                        break
    return out


class SpreadKeys:
    """The spread persons' (person, value) pairs grouped by value and set of base items:
    per key its value, the pairs it stands for (``weight``) and its base items (CSR:
    ``item[ptr[k]:ptr[k+1]]``, numbered among ``base_items``, the base items holding a
    key). Built once by the first roll-up; shared by every snapshot."""

    __slots__ = ("ptr", "item", "value", "weight", "base_items")

    def __init__(self, ptr: np.ndarray, item: np.ndarray, value: np.ndarray,
                 weight: np.ndarray, base_items: np.ndarray):
        self.ptr = ptr
        self.item = item
        self.value = value
        self.weight = weight
        self.base_items = base_items

    def __len__(self) -> int:
        return len(self.value)


class PersonCounts:
    """Per item (base item or class): persons holding each value, as two parts (module
    docstring): the single pairs' counts and every key entry's pairs added up per item
    (``counted``: sums that roll up), and the class of each key entry. A check takes off
    the entries whose key already has an entry in their class.

    Built at the base items from the single counts and the keys (``where``: per keyed
    base item, ``keys.base_items``, its item: ``PersonRows.rollup`` or, out of core,
    ``engine.kernel.person_tallies``); the keys are then ordered by their number of
    entries (the loops over them run alike key after key)."""

    __slots__ = ("counted", "keys", "cls", "n_items", "n_values", "n_persons")

    def __init__(self, single, keys: SpreadKeys, where: np.ndarray, n_items: int,
                 n_values: int, n_persons: int):
        keys = _by_length(keys)
        cls = np.asarray(where, dtype=np.int32)[keys.item]
        n_items = int(n_items)
        lengths = np.diff(keys.ptr)
        if int(n_values) == 1:  # ``single``: a count per item
            counted = np.asarray(single, dtype=np.int64) + _entry_pairs(keys, cls, n_items)
        else:  # ``single``: a SparseCounts of values per item
            counted = _with_pairs(single, cls.astype(np.int64), np.repeat(keys.value, lengths),
                                  np.repeat(keys.weight, lengths), int(n_values))
        self._set(counted, keys, cls, n_items, n_values, n_persons)

    def _set(self, counted, keys: SpreadKeys, cls: np.ndarray, n_items: int,
             n_values: int, n_persons: int) -> None:
        #: per item, the single pairs and the pairs of every key entry there: with one
        #: value (persons only) a count per item, else a ``SparseCounts`` of values
        self.counted = counted
        self.keys = keys
        self.cls = cls  # per key entry (``keys.item``): its item here
        self.n_items = int(n_items)
        self.n_values = int(n_values)
        self.n_persons = int(n_persons)

    @property
    def single(self):
        """The single pairs per item: with one value a count per item, else a
        ``SparseCounts`` of values (worked out when asked)."""
        if self.n_values == 1:
            return self.counted - _entry_pairs(self.keys, self.cls, self.n_items)
        c, keys = self.counted, self.keys
        count = _take_pairs(c.indptr, c.value, c.count, keys.ptr, keys.value, keys.weight,
                            self.cls, self.n_items, True)
        present = count > 0
        item = np.repeat(np.arange(self.n_items, dtype=np.int64), np.diff(c.indptr))
        indptr = np.zeros(self.n_items + 1, np.int64)
        np.cumsum(np.bincount(item[present], minlength=self.n_items), out=indptr[1:])
        return SparseCounts(indptr, c.value[present], count[present], self.n_values)

    @property
    def where(self) -> np.ndarray:
        """Per keyed base item (``keys.base_items``): its item here."""
        out = np.zeros(len(self.keys.base_items), np.int32)
        out[self.keys.item] = self.cls
        return out

    @property
    def key_value(self) -> np.ndarray:
        return self.keys.value

    @property
    def key_weight(self) -> np.ndarray:
        return self.keys.weight

    @property
    def nbytes(self) -> int:
        """What a snapshot holds of its own (the keys are shared)."""
        return self.counted.nbytes + self.cls.nbytes

    def rollup(self, group_of: np.ndarray, n: int) -> "PersonCounts":
        n = int(n)
        group_of = np.asarray(group_of, np.int64)
        counted = (sum_by_group(self.counted, group_of, n) if self.n_values == 1
                   else self.counted.rollup(group_of, n))
        cls = _gather(self.cls, group_of) if len(self.cls) else self.cls
        out = object.__new__(PersonCounts)
        out._set(counted, self.keys, cls, n, self.n_values, self.n_persons)
        return out

    def by_value(self) -> SparseCounts:
        """Per item: each value -> the distinct persons holding it (in the item)."""
        if self.n_values == 1:
            persons = self.persons()
            present = persons > 0
            indptr = np.zeros(len(persons) + 1, np.int64)
            np.cumsum(present, out=indptr[1:])
            return SparseCounts(indptr, np.zeros(int(present.sum()), np.int32),
                                persons[present].astype(np.int64), 1)
        c, keys = self.counted, self.keys
        if not len(keys):
            return c
        # a key's pairs count once in a class however many of its entries are there
        # (never down to nothing: its first entry there stays)
        count = _take_pairs(c.indptr, c.value, c.count, keys.ptr, keys.value, keys.weight,
                            self.cls, self.n_items, False)
        return SparseCounts(c.indptr, c.value, count, self.n_values)

    def persons(self) -> np.ndarray:
        """Distinct persons per item (each counted once, whatever values they hold)."""
        if self.n_values != 1:
            raise ValueError("persons() of a per-value count: use the person count itself")
        keys = self.keys
        if not len(keys):
            return self.counted
        return self.counted - _repeats(keys.ptr, keys.weight, self.cls, self.n_items)


def _entry_pairs(keys: SpreadKeys, cls: np.ndarray, n_items: int) -> np.ndarray:
    """Per item: the pairs of the key entries there (each entry its key's weight)."""
    return sum_by_group(np.repeat(keys.weight, np.diff(keys.ptr)), cls.astype(np.int64),
                        n_items)


def _with_pairs(single: SparseCounts, item: np.ndarray, value: np.ndarray,
                weight: np.ndarray, n_values: int) -> SparseCounts:
    """``single`` with ``weight`` more pairs of ``value`` in each ``item`` (after the
    item's own values, in their order)."""
    n_items = single.n_items
    s_item = np.repeat(np.arange(n_items, dtype=np.int64), np.diff(single.indptr))
    all_item = np.concatenate((s_item, item))
    order = np.argsort(all_item, kind="stable")
    indptr = np.zeros(n_items + 1, np.int64)
    np.cumsum(np.bincount(all_item, minlength=n_items), out=indptr[1:])
    merged = SparseCounts(indptr, np.concatenate((single.value, value.astype(np.int32)))[order],
                          np.concatenate((single.count, weight.astype(np.int64)))[order],
                          n_values)
    return merged.rollup(np.arange(n_items, dtype=np.int64), n_items)


def _by_length(keys: SpreadKeys) -> SpreadKeys:
    """The keys ordered by their number of entries (stably)."""
    lengths = np.diff(keys.ptr)
    if len(lengths) < 2 or bool((lengths[1:] >= lengths[:-1]).all()):
        return keys
    order = np.argsort(lengths, kind="stable")
    ptr = np.zeros(len(order) + 1, np.int64)
    np.cumsum(lengths[order], out=ptr[1:])
    entries = np.repeat(keys.ptr[:-1][order] - ptr[:-1], lengths[order]) + np.arange(ptr[-1])
    return SpreadKeys(ptr, keys.item[entries], keys.value[order], keys.weight[order],
                      keys.base_items)


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
        n = int(n)
        rows = np.flatnonzero(self.keep)
        item = np.asarray(group_of, dtype=np.int64)[rows]
        # the distinct (person, value) pairs among the counted rows
        pairs, pair_of_row = np.unique(self.person[rows] * self.n_values + self.values[rows],
                                       return_inverse=True)
        pair_of_row = pair_of_row.reshape(-1)
        first, spread = _items_per_pair(pair_of_row, item, len(pairs))
        pair_value = (pairs % self.n_values).astype(np.int32)
        # single pairs (all their rows in one base item): each counts once in that item
        single_pair = ~spread
        if self.n_values == 1:  # persons only: a count per item
            single = np.bincount(first[single_pair], minlength=n).astype(np.int64)
        else:
            single = SparseCounts.from_codes(pair_value, self.n_values, single_pair).rollup(
                first, n)
        # spread pairs become keys, one per value and set of base items
        raw_of_pair = np.cumsum(spread) - 1
        spread_rows = spread[pair_of_row]
        keys = _spread_keys(raw_of_pair[pair_of_row[spread_rows]], item[spread_rows],
                            pair_value[spread], n)
        return PersonCounts(single, keys, keys.base_items.astype(np.int32), n, self.n_values,
                            self.n_persons)


def _spread_keys(raw: np.ndarray, item: np.ndarray, raw_value: np.ndarray,
                 n_items: int) -> SpreadKeys:
    """Spread (person, value) pairs numbered ``raw`` (one entry per row: the pair and its
    base item; every pair has one) grouped by their value and set of base items, keys
    in order of their first pair."""
    if len(raw_value) == 0:
        return SpreadKeys(np.zeros(1, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int32),
                          np.zeros(0, np.int64), np.zeros(0, np.int64))
    both = np.unique(raw.astype(np.int64) * n_items + item)  # by pair, then item
    pair, items = both // n_items, both % n_items
    ptr_raw = np.append(np.flatnonzero(np.r_[True, pair[1:] != pair[:-1]]), len(both))
    rep, key_of_raw = _group_pairs(ptr_raw, items, raw_value)
    lengths = ptr_raw[rep + 1] - ptr_raw[rep]
    ptr = np.zeros(len(rep) + 1, np.int64)
    np.cumsum(lengths, out=ptr[1:])
    key_items = items[np.repeat(ptr_raw[rep] - ptr[:-1], lengths) + np.arange(ptr[-1])]
    base_items, item_index = np.unique(key_items, return_inverse=True)
    return SpreadKeys(ptr, item_index.reshape(-1).astype(np.int32),
                      raw_value[rep].astype(np.int32),
                      np.bincount(key_of_raw, minlength=len(rep)).astype(np.int64),
                      base_items)
