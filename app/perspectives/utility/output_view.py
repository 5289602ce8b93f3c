"""The released table of one transformation, read on demand from the engine's arrays.

``engine.output.transform`` builds the whole output as a DataFrame of strings, a
copy of every cell (hundreds of MB for a million rows). The view needs one
screenful at a time, so `OutputView` keeps references to the input codes, the
hierarchy maps and the classifier's row -> distinct-combination map, plus the
small per-class arrays of the transformation, and answers cells as asked:

    row's class      = base_to_class[row_to_base[row]]
    row's QI label   = labels[level][maps[level][codes[row]]], or ``*`` if its class
                       violates the privacy models (suppressed)

Nothing here imports Qt. `OutputTable` gives the analysis functions an
`EncodedTable` over the output whose columns are built one at a time when asked.
"""
from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from engine.analysis.statistics import value_order
from engine.data.datatypes import DataType
from engine.data.table import EncodedColumn, EncodedTable
from engine.output import withheld_rows

SUPPRESSED = "*"


def compact_codes(codes: np.ndarray, n_values: int) -> np.ndarray:
    """``codes`` in the smallest unsigned type that holds ``n_values`` codes."""
    dtype = np.uint8 if n_values <= 2**8 else np.uint16 if n_values <= 2**16 else np.int32
    return codes.astype(dtype, copy=False)


def resolve_levels(result, levels) -> tuple[int, ...] | None:
    """A level tuple in quasi-identifier order (the optimum's when ``levels`` is None)."""
    qis = result.problem.qis
    if levels is None:
        if result.optimum is None:
            return None
        levels = result.optimum.levels
    if isinstance(levels, dict):
        levels = [levels[q] for q in qis]
    levels = tuple(int(x) for x in levels)
    if len(levels) != len(qis):
        raise ValueError(f"expected {len(qis)} levels (one per quasi-identifier), "
                         f"got {len(levels)}")
    return levels


class OutputView:
    """Cells, classes and suppression of the output of ``levels``, without copying rows.

    Parameters
    ----------
    result
        An `engine.AnonymizationResult`.
    levels
        Generalization level per quasi-identifier (sequence in ``problem.qis`` order
        or dict); None for the optimum.
    data_types
        Data types by attribute, to order released values (numbers, intervals).
    """

    def __init__(self, result, levels: Sequence[int] | dict | None = None,
                 data_types: dict[str, DataType] | None = None):
        problem = result.problem
        self.problem = problem
        self.data_types = dict(data_types or {})
        self.table: EncodedTable = problem.table
        self.levels = resolve_levels(result, levels)
        if self.levels is None:
            raise ValueError("no transformation meets the privacy models: no output")
        classifier = problem.classifier
        # rolling up the distinct combinations touches no cache: safe beside a search
        self.classes, self._base_to_class = classifier.rollup(
            classifier.base, np.asarray(self.levels, dtype=np.int64))
        self.violating = np.asarray(problem.violating(self.classes), dtype=bool)
        self.withheld: np.ndarray | None = withheld_rows(problem)  # outside a DP sample
        self._row_to_base = classifier.row_to_base  # the engine's array, not a copy
        self.names: list[str] = problem.table.names
        self.qis: list[str] = list(problem.qis)
        self.identifying = set(problem.identifying)
        self.level_of = dict(zip(self.qis, self.levels))
        self._maps = {}
        self._labels = {}
        for j, name in enumerate(self.qis):
            h = problem.hierarchies[j]
            self._maps[name] = h.maps[self.levels[j]]
            self._labels[name] = h.labels[self.levels[j]]
        self._class_rank: np.ndarray | None = None

    # --- sizes -------------------------------------------------------------------------
    @property
    def n_rows(self) -> int:
        return self.table.n_rows

    @property
    def n_classes(self) -> int:
        return int(self.classes.n_classes)

    @property
    def suppressed_records(self) -> int:
        return int(self.classes.counts[self.violating].sum())

    @property
    def released_classes(self) -> int:
        return int((~self.violating).sum())

    # --- per row ------------------------------------------------------------------------
    def row_class(self, rows) -> np.ndarray | int:
        """Equivalence class of row(s) ``rows`` (an int or an index array)."""
        return self._base_to_class[self._row_to_base[rows]]

    def row_classes(self) -> np.ndarray:
        """Every row's class (allocates one array of n rows)."""
        return self._base_to_class[self._row_to_base]

    @property
    def any_suppressed(self) -> bool:
        return bool(self.violating.any()) or self.withheld is not None

    def is_suppressed(self, row: int) -> bool:
        return bool(self.violating[self._base_to_class[self._row_to_base[row]]]) or (
            self.withheld is not None and bool(self.withheld[row]))

    def rows_suppressed(self, rows) -> np.ndarray:
        """Whether each of ``rows`` (an index array) is released suppressed."""
        sup = self.violating[self.row_class(rows)]
        return sup if self.withheld is None else sup | self.withheld[rows]

    def suppressed_rows(self) -> np.ndarray:
        """Boolean mask of suppressed rows (allocates one array of n rows)."""
        sup = self.violating[self._base_to_class][self._row_to_base]
        return sup if self.withheld is None else sup | self.withheld

    def value(self, name: str, row: int) -> str:
        """The released cell of column ``name`` in data row ``row``."""
        if name in self.identifying:
            return SUPPRESSED
        col = self.table.column(name)
        maps = self._maps.get(name)
        if maps is None:
            return str(col.dictionary[col.codes[row]])
        if self.is_suppressed(row):
            return SUPPRESSED
        return str(self._labels[name][maps[col.codes[row]]])

    def values(self, name: str, rows) -> np.ndarray:
        """Released cells of ``rows`` (an index array) as an object array."""
        rows = np.asarray(rows)
        if name in self.identifying:
            return np.full(len(rows), SUPPRESSED, dtype=object)
        col = self.table.column(name)
        if name not in self._maps:
            return col.dictionary[col.codes[rows]]
        out = self._labels[name][self._maps[name][col.codes[rows]]]
        sup = self.rows_suppressed(rows)
        if sup.any():
            out = out.copy()
            out[sup] = SUPPRESSED
        return out

    def is_generalized(self, name: str) -> bool:
        return name in self.identifying or self.level_of.get(name, 0) > 0

    # --- ordering -----------------------------------------------------------------------
    def sort_keys(self, name: str, output: bool,
                  data_type: DataType | None = None) -> np.ndarray:
        """Per-row integer keys that sort column ``name`` of the input (or output) in
        display order (`value_order`: numbers and intervals by value; ``*`` last)."""
        col = self.table.column(name)
        if output and name in self.identifying:
            return np.zeros(self.n_rows, dtype=np.int32)
        if output and name in self._maps:
            labels = self._labels[name]
            rank = value_ranks(labels, data_type)
            per_code = rank[self._maps[name]]
            keys = per_code[col.codes]
            if self.any_suppressed:
                keys = np.where(self.suppressed_rows(), len(labels), keys)
            return keys
        return value_ranks(col.dictionary, data_type)[col.codes]

    def class_rank(self) -> np.ndarray:
        """Position of each class when classes are ordered by their released values
        (columns left to right, each in `value_order`), suppressed classes last."""
        if self._class_rank is None:
            keys = [self.violating.astype(np.int64)]  # in priority order
            for j, name in enumerate(self.qis):
                rank = value_ranks(self._labels[name], self.data_types.get(name))
                keys.append(rank[self.classes.gen[:, j]])
            order = np.lexsort(keys[::-1])  # lexsort's primary key is its last
            rank = np.empty(self.n_classes, dtype=np.int64)
            rank[order] = np.arange(self.n_classes)
            self._class_rank = rank
        return self._class_rank


def value_ranks(values: np.ndarray, data_type: DataType | None) -> np.ndarray:
    """Each value's position in `value_order` (display order)."""
    order = value_order(values, data_type)
    rank = np.empty(len(values), dtype=np.int32)
    rank[order] = np.arange(len(values), dtype=np.int32)
    return rank


class OutputTable(EncodedTable):
    """The output as an `EncodedTable` for the analysis functions.

    A column is built when first asked for (one small-typed code array per column)
    and kept; columns the transformation leaves unchanged are the input's own.
    """

    def __init__(self, view: OutputView):  # noqa: D107 - no EncodedTable.__init__: lazy
        self.view = view
        self.n_rows = view.n_rows
        self._built: dict[str, EncodedColumn] = {}
        self._lock = threading.Lock()

    @property
    def names(self) -> list[str]:
        return list(self.view.names)

    def __contains__(self, name: str) -> bool:
        return name in self.view.table

    def suppressed_rows(self) -> np.ndarray:
        """Boolean mask of suppressed rows (built on each call: one byte a row)."""
        return self.view.suppressed_rows()

    def column(self, name: str) -> EncodedColumn:
        v = self.view
        col = v.table.column(name)  # raises the engine's error for unknown names
        if name not in v.identifying and name not in v._maps:
            return col
        with self._lock:
            built = self._built.get(name)
        if built is not None:
            return built
        if name in v.identifying:
            built = EncodedColumn(name, np.zeros(self.n_rows, np.uint8),
                                  np.array([SUPPRESSED], dtype=object))
        else:
            labels = v._labels[name]
            dictionary = labels
            star = np.flatnonzero(labels == SUPPRESSED)
            if len(star):
                star_code = int(star[0])
            else:
                star_code = len(labels)
                dictionary = np.append(labels, SUPPRESSED).astype(object)
            codes = compact_codes(v._maps[name], len(dictionary))[col.codes]
            if v.any_suppressed:
                codes[self.suppressed_rows()] = star_code
            built = EncodedColumn(name, codes, dictionary)
        with self._lock:
            self._built[name] = built
        return built

    def to_dataframe(self, rows=None):
        import pandas as pd
        return pd.DataFrame({n: self.column(n).values(rows) for n in self.names})
