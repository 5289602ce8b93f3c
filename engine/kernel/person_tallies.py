"""Distinct persons counted where the records are (``[data] person`` out of core).

In memory each row's person is known and ``PersonRows.rollup`` splits the persons into
single and spread ones (``engine.kernel.person_counts``). Out of core the rows stay in
the backend: DuckDB does the same split in SQL (``engine.backends.person_sql``) and
hands over, per base item (distinct quasi-identifier combination), only

- the single persons' counts (per value: the persons holding it there), and
- the spread part: each key (a value and a set of base items, standing for the
  (person, value) pairs spread that way) with its value and weight, and per item the
  keys present there with their records,

so Python holds nothing per person. ``PersonTally`` is that per-item aggregate; the
frequency table's rows are mapped to its items by ``item_row`` (a row of the frequency
table holding each item's combination), so the classifier rolls it up like
``PersonRows``: its first roll-up (rows -> base items) gives the ``PersonCounts`` the
in-memory path builds, array for array.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.kernel.person_counts import PersonCounts
from engine.kernel.sparse_counts import SparseCounts


class PersonTally:
    """The persons of each base item, split and counted by the backend (module doc).

    ``single``: per item the single persons (one value: an int64 count per item), else
    a ``SparseCounts`` of values per item; ``spread``: a ``SparseCounts`` of keys per
    item (their records), ``key_value``/``key_weight`` per key; ``item_row``: per item
    a row of the frequency table with its combination."""

    def __init__(self, item_row: np.ndarray, single, spread: SparseCounts,
                 key_value: np.ndarray, key_weight: np.ndarray, n_values: int,
                 n_persons: int):
        self.item_row = np.asarray(item_row, dtype=np.int64)
        self.single = single
        self.spread = spread
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

    def counts(self) -> PersonCounts:
        """The tally as ``PersonCounts`` of its own items."""
        return PersonCounts(self.single, self.spread, self.key_value, self.key_weight,
                            self.n_values, self.n_persons)

    def rollup(self, group_of: np.ndarray, n: int) -> PersonCounts:
        """Person counts per group, where row ``r`` of the frequency table belongs to
        group ``group_of[r]`` (its items go where their row goes)."""
        group_of = np.asarray(group_of, dtype=np.int64)
        return self.counts().rollup(group_of[self.item_row], int(n))


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
