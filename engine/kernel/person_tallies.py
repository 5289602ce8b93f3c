"""Distinct persons counted where the records are (``[data] person`` out of core).

In memory each row's person is known and ``PersonRows.rollup`` splits the persons into
single and spread ones (``engine.kernel.person_counts``). Out of core the rows stay in
the backend: DuckDB does the same split in SQL (``engine.backends.person_sql``) and
hands over, per base item (distinct quasi-identifier combination), only

- the single pairs' counts (per value: the persons holding it there only), and
- the spread part: each key (a value and a set of base items, standing for the
  (person, value) pairs spread that way) with its value, weight and items,

so Python holds nothing per person (a *single* pair is a (person, value) pair whose
records all fall into one base item, as ``engine.kernel.person_counts`` splits them).
``PersonTally`` is that per-item aggregate; the
frequency table's rows are mapped to its items by ``item_row`` (a row of the frequency
table holding each item's combination), so the classifier rolls it up like
``PersonRows``: its first roll-up (rows -> base items) gives the ``PersonCounts`` the
in-memory path builds, array for array.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.kernel.person_counts import PersonCounts, SpreadKeys


class PersonTally:
    """The persons of each item, split and counted by the backend (module doc).

    ``single``: per item the single (person, value) pairs (one value: an int64 count per
    item), else a ``SparseCounts`` of values per item; the spread pairs' keys: per key
    its value, weight (the pairs it stands for) and items (``key_item[key_ptr[k]:
    key_ptr[k+1]]``); ``item_row``: per item a row of the frequency table with its
    combination."""

    def __init__(self, item_row: np.ndarray, single, key_ptr: np.ndarray,
                 key_item: np.ndarray, key_value: np.ndarray, key_weight: np.ndarray,
                 n_values: int, n_persons: int):
        self.item_row = np.asarray(item_row, dtype=np.int64)
        self.single = single
        self.key_ptr = np.asarray(key_ptr, dtype=np.int64)
        self.key_item = np.asarray(key_item, dtype=np.int64)
        self.key_value = np.asarray(key_value, dtype=np.int32)
        self.key_weight = np.asarray(key_weight, dtype=np.int64)
        self.n_values = int(n_values)
        self.n_persons = int(n_persons)

    @property
    def n_items(self) -> int:
        return len(self.item_row)

    def weighted(self, weights: np.ndarray) -> "PersonTally":
        """The tally counts persons, not records: the rows' weights change nothing."""
        return self

    def _keys(self, item_of: np.ndarray) -> SpreadKeys:
        """The keys with their items numbered ``item_of[item]`` (sorted within a key,
        numbered among the items holding a key, as ``PersonRows`` numbers them)."""
        n_keys = len(self.key_value)
        lengths = np.diff(self.key_ptr)
        items = item_of[self.key_item]
        order = np.lexsort((items, np.repeat(np.arange(n_keys), lengths)))
        base_items, index = np.unique(items[order], return_inverse=True)
        return SpreadKeys(self.key_ptr.copy(), index.reshape(-1).astype(np.int32),
                          self.key_value, self.key_weight, base_items.astype(np.int64))

    def counts(self) -> PersonCounts:
        """The tally as ``PersonCounts`` of its own items."""
        keys = self._keys(np.arange(self.n_items, dtype=np.int64))
        return PersonCounts(self.single, keys, keys.base_items.astype(np.int32),
                            self.n_items, self.n_values, self.n_persons)

    def rollup(self, group_of: np.ndarray, n: int) -> PersonCounts:
        """Person counts per group, where row ``r`` of the frequency table belongs to
        group ``group_of[r]`` (its items go where their row goes). Into the base items
        (one group per item) they are the arrays ``PersonRows.rollup`` builds."""
        n = int(n)
        item_of = np.asarray(group_of, dtype=np.int64)[self.item_row]
        if len(np.unique(item_of)) < self.n_items:  # items merged: counted as they merge
            return self.counts().rollup(item_of, n)
        if isinstance(self.single, np.ndarray):
            single = np.zeros(n, np.int64)
            single[item_of] = self.single
        else:  # a permutation of the items keeps each item's order of values
            single = self.single.rollup(item_of, n)
        keys = self._keys(item_of)
        return PersonCounts(single, keys, keys.base_items.astype(np.int32), n,
                            self.n_values, self.n_persons)


@dataclass
class PersonTallies:
    """What the backend counted of ``column``'s persons: how many there are, whether
    any has several records, and a ``PersonTally`` per sensitive attribute (and one,
    under ``None``, of the persons alone)."""

    column: str
    n_persons: int
    repeat: bool
    tallies: dict = field(default_factory=dict)  # attribute or None -> PersonTally

    def of(self, attribute: str | None = None) -> PersonTally:
        try:
            return self.tallies[attribute]
        except KeyError:
            raise KeyError(f"no person tally of {attribute!r}: the backend counted "
                           f"{sorted(map(str, self.tallies))}") from None
