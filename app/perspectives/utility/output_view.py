"""Display order of the released table's rows (sorting, class shading), no Qt.

The released table itself is the engine's (`engine.output.transform`, reached
through ``AnonymizationResult.transformed``): the output side of Analyze
utility reads its cells from that `ReleasedTable`, exactly as the export does.
"""
from __future__ import annotations

import numpy as np

from engine.data.order import value_ranks
from engine.data.datatypes import DataType
from engine.output import ReleasedTable


def sort_keys(released: ReleasedTable, name: str, output: bool,
              data_type: DataType | None = None) -> np.ndarray:
    """Per-row integer keys that sort column ``name`` of the input (or output) in
    display order (`value_order`: numbers and intervals by value; suppressed last)."""
    col = released.problem.table.column(name)
    if output and name in released.removed:
        return np.zeros(released.n_rows, dtype=np.int32)
    if output and name in released.level_of:
        labels = released.column(name).dictionary
        return value_ranks(labels, data_type)[released.column(name).codes]
    return value_ranks(col.dictionary, data_type)[col.codes]


def class_rank(released: ReleasedTable, data_types: dict[str, DataType]) -> np.ndarray:
    """Position of each class when classes are ordered by their released values
    (columns left to right, each in `value_order`), suppressed classes last."""
    keys = [released.violating.astype(np.int64)]  # in priority order
    problem = released.problem
    for j, name in enumerate(released.qis):
        h = problem.hierarchies[j]
        labels = h.labels[released.levels[j]]
        rank = value_ranks(labels, data_types.get(name))
        keys.append(rank[released.classes.gen[:, j]])
    order = np.lexsort(keys[::-1])  # lexsort's primary key is its last
    rank = np.empty(released.n_classes, dtype=np.int64)
    rank[order] = np.arange(released.n_classes)
    return rank
