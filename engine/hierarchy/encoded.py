"""A hierarchy encoded against a column's dictionary: one integer map per level."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.hierarchy.model import Hierarchy


@dataclass(frozen=True)
class EncodedHierarchy:
    """Integer form of a hierarchy for one column.

    ``maps[l][code]`` is the level-``l`` label code of the data value with
    dictionary code ``code``; ``labels[l][label_code]`` is its text.
    ``rows_per_label[l][label_code]`` counts the hierarchy's rows whose
    level-``l`` label it is (ARX's domain share numerator); ``n_rows`` is
    the number of hierarchy rows.
    """

    attribute: str
    maps: tuple[np.ndarray, ...]
    labels: tuple[np.ndarray, ...]
    rows_per_label: tuple[np.ndarray, ...]
    n_rows: int

    @property
    def levels(self) -> int:
        return len(self.maps)

    @property
    def height(self) -> int:
        return len(self.maps) - 1

    def level_size(self, level: int) -> int:
        return len(self.labels[level])

    @classmethod
    def build(cls, hierarchy: Hierarchy, dictionary, attribute: str = "") -> "EncodedHierarchy":
        """Encode ``hierarchy`` for a column whose distinct values are ``dictionary``.

        Raises ``HierarchyError`` naming the values the hierarchy does not cover.
        """
        dictionary = [str(v) for v in dictionary]
        if hierarchy.arrow_columns() is not None:
            return cls._build_arrow(hierarchy, dictionary, attribute)
        row_of = {r[0]: i for i, r in enumerate(hierarchy.rows)}
        data_rows = np.fromiter((row_of.get(v, -1) for v in dictionary), dtype=np.int64,
                                count=len(dictionary))
        if len(data_rows) and data_rows.min() < 0:  # values without a row
            hierarchy.check_covers(dictionary)  # raises, naming them
        maps, labels, counts = [], [], []
        n_rows = len(hierarchy.rows)
        maps.append(np.arange(len(dictionary), dtype=np.int32))
        labels.append(np.array(dictionary, dtype=object))
        counts.append(np.ones(len(dictionary), dtype=np.int64))
        for level in range(1, hierarchy.levels):
            col = [r[level] for r in hierarchy.rows]
            codes_of: dict[str, int] = {}
            row_codes = np.fromiter((codes_of.setdefault(c, len(codes_of)) for c in col),
                                    dtype=np.int32, count=n_rows)
            maps.append(row_codes[data_rows] if len(data_rows) else np.zeros(0, np.int32))
            labels.append(np.array(list(codes_of), dtype=object))
            counts.append(np.bincount(row_codes, minlength=len(codes_of)).astype(np.int64))
        return cls(attribute or hierarchy.attribute, tuple(maps), tuple(labels),
                   tuple(counts), n_rows)

    @classmethod
    def _build_arrow(cls, hierarchy: Hierarchy, dictionary: list[str],
                     attribute: str) -> "EncodedHierarchy":
        """`build` from the hierarchy's Arrow columns: the same arrays (Arrow numbers
        a level's labels in order of first appearance too). Credit card's 24
        hierarchies: 0.12 -> 0.03 s of CPU."""
        import pyarrow.compute as pc

        from engine.data.arrow_numpy import int_scalar, string_array, to_numpy
        columns = hierarchy.arrow_columns()
        n_rows = len(hierarchy.rows)
        # the values are distinct: their dictionary is the column, in row order (arrays
        # passed as buffers: pyarrow's own conversions would load pandas)
        data_rows = pc.fill_null(pc.index_in(string_array(dictionary),
                                             value_set=columns[0].dictionary), int_scalar(-1))
        data_rows = to_numpy(data_rows).astype(np.int64)
        if len(data_rows) and data_rows.min() < 0:  # values without a row
            hierarchy.check_covers(dictionary)  # raises, naming them
        maps = [np.arange(len(dictionary), dtype=np.int32)]
        labels = [np.array(dictionary, dtype=object)]
        counts = [np.ones(len(dictionary), dtype=np.int64)]
        for level in range(1, hierarchy.levels):
            row_codes = to_numpy(columns[level].indices).astype(np.int32)
            words = columns[level].dictionary.to_pylist()
            maps.append(row_codes[data_rows] if len(data_rows) else np.zeros(0, np.int32))
            label_array = np.empty(len(words), dtype=object)
            label_array[:] = words
            labels.append(label_array)
            counts.append(np.bincount(row_codes, minlength=len(words)).astype(np.int64))
        return cls(attribute or hierarchy.attribute, tuple(maps), tuple(labels),
                   tuple(counts), n_rows)

    def flat_maps(self) -> tuple[np.ndarray, np.ndarray]:
        """All level maps concatenated, and each level's offset into that array."""
        offsets = np.zeros(self.levels, dtype=np.int64)
        pos = 0
        for l, m in enumerate(self.maps):
            offsets[l] = pos
            pos += len(m)
        return np.concatenate(self.maps).astype(np.int32), offsets
