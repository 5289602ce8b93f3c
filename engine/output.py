"""The released table of a transformation: the one place that says what is released.

``transform(problem, levels)`` is the only way to the released data: the export
(CLI, Python API, the app's File > Export), Analyze utility's output table and
analyses, Analyze risk's output side and Explore's inspection all read the
`ReleasedTable` it returns. It is lazy and safe to use from a worker thread:
building it rolls the distinct quasi-identifier combinations up to ``levels``
(without touching the classifier's snapshot cache) and decides which classes are
suppressed; cells, columns, the DataFrame and the CSV are produced when asked:

    row's class      = base_to_class[row_to_base[row]]
    row's QI label   = labels[level][maps[level][codes[row]]], or the suppression
                       marker if its class violates the privacy models (or the row is
                       withheld: outside a differential-privacy sample)

A job whose models count a research subset (δ-presence, k-map without an
estimator, the journalist's profitability) releases the subset's records only, in
input order (`released_rows`; ARX's behaviour: the research subset is what is
published): the table's rows are those records, and ``input_rows`` maps them back
to the input's rows. Records outside the subset are the population the models
compare with; they are never written.

Identifying attributes are not released (they are not columns of the table),
unless the job pseudonymizes them (`pseudonym_column`);
quasi-identifiers are replaced by their hierarchy labels at ``levels``; other
columns are released unchanged, except those the job's transformation methods
change (microaggregation, coding rules, ``remove_suppressed_values``: see
``engine.transform.release.finish_columns``), which are built whole when first
read. ``transform_recoded`` gives a local recoding's table the same way (every
distinct record at its own levels).
"""
from __future__ import annotations

import io
import threading
from typing import TYPE_CHECKING

import numpy as np

from engine.classes import Classes
from engine.data.table import EncodedColumn, EncodedTable
from engine.errors import DataError
from engine.markers import SUPPRESSED, suppression_marker
from engine.privacy.differential_privacy import dp_model
from engine.problem import Problem
from engine.pseudonyms import pseudonymize
from engine.transform.cell_suppression import cells_mode, class_cells
from engine.transform.release import finish_columns, finished_names

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SUPPRESSED", "ReleasedTable", "transform", "transform_recoded", "withheld_rows",
           "released_rows", "pseudonym_column", "compact_codes"]


def withheld_rows(problem: Problem) -> np.ndarray | None:
    """Rows that are not released at all: under differential privacy those outside
    SafePub's sample (its guarantee holds for the sample alone); else None."""
    if dp_model(problem) is None:
        return None
    return ~np.asarray(problem.model_context.subset, dtype=bool)


def released_rows(problem: Problem) -> np.ndarray | None:
    """The input rows a release holds: for a job whose models count a research subset,
    the subset's rows in input order (only they are released); else None (every row).
    A differential-privacy sample is released as every row, those outside it
    suppressed (`withheld_rows`)."""
    subset = problem.model_context.subset
    if not problem.uses_subset or subset is None or dp_model(problem) is not None:
        return None
    return np.flatnonzero(np.asarray(subset, dtype=bool))


def pseudonym_column(problem: Problem, name: str) -> np.ndarray | None:
    """The released column of an identifying attribute the job pseudonymizes
    (engine/pseudonyms.py; the key is read now and kept nowhere), else None: removed."""
    spec = getattr(problem.job.attributes.get(name), "pseudonym", None)
    if spec is None:
        return None
    col = problem.table.column(name)
    return pseudonymize(col.dictionary, spec, problem.job.base_dir, name)[col.codes]


def compact_codes(codes: np.ndarray, n_values: int) -> np.ndarray:
    """``codes`` in the smallest unsigned type that holds ``n_values`` codes."""
    dtype = np.uint8 if n_values <= 2**8 else np.uint16 if n_values <= 2**16 else np.int32
    return codes.astype(dtype, copy=False)


def transform(problem: Problem, levels) -> "ReleasedTable":
    """The released table of ``levels`` (a sequence in ``problem.qis`` order or a dict
    by attribute): quasi-identifiers generalized to their hierarchy labels, records in
    violating classes suppressed (their quasi-identifiers replaced by the suppression
    marker), identifying attributes dropped (or pseudonymized), other columns unchanged.

    Under differential privacy only the random sample is released: records outside
    it are suppressed too (SafePub's guarantee holds for the sample alone)."""
    levels = _level_tuple(problem, levels)
    classifier = problem.classifier
    # rolling the distinct combinations up touches no cache: safe beside a search
    classes, base_to_class = classifier.rollup(classifier.base,
                                               np.asarray(levels, dtype=np.int64))
    violating = np.asarray(problem.violating(classes), dtype=bool)
    if cells_mode(problem.job):  # sdcMicro's local suppression: cells, not records
        cells = class_cells(problem, levels, classes)
        none = np.zeros(len(violating), dtype=bool)
        return ReleasedTable(problem, levels, classes, base_to_class, none,
                             none[base_to_class], withheld_rows(problem),
                             base_cells=cells[base_to_class])
    return ReleasedTable(problem, levels, classes, base_to_class, violating,
                         violating[base_to_class], withheld_rows(problem),
                         rows=released_rows(problem))


def transform_recoded(problem: Problem, recoding, levels=None) -> "ReleasedTable":
    """The released table of a local recoding (engine/search/local_recoding.py):
    every distinct record at its own levels, suppressed records' quasi-identifiers
    replaced by the suppression string. Its classes are the records with equal
    released labels (suppressed records form one flagged class). ``levels``: the
    global transformation the recoding started from (for display)."""
    from engine.search.local_recoding import _Labels, combined_classes
    classes, group, _, sup_class = combined_classes(problem, _Labels(problem),
                                                    recoding.levels, recoding.suppressed)
    if levels is None:
        levels = np.asarray(recoding.levels).min(axis=0) if len(recoding.levels) else \
            np.zeros(len(problem.qis), dtype=np.int64)
    return ReleasedTable(problem, _level_tuple(problem, levels), classes, group,
                         np.asarray(sup_class, dtype=bool),
                         np.asarray(recoding.suppressed, dtype=bool), None,
                         np.asarray(recoding.levels))


def _level_tuple(problem: Problem, levels) -> tuple[int, ...]:
    qis = list(problem.qis)
    if isinstance(levels, dict):
        missing = [q for q in qis if q not in levels]
        if missing:
            raise ValueError(f"no level for quasi-identifier(s) {', '.join(missing)}")
        levels = [levels[q] for q in qis]
    levels = tuple(int(x) for x in levels)
    if len(levels) != len(qis):
        raise ValueError(f"expected {len(qis)} levels (one per quasi-identifier), "
                         f"got {len(levels)}")
    return levels


class ReleasedTable:
    """The released table of one transformation, read on demand from the engine's arrays.

    Built by `transform` (or `transform_recoded`). Nothing is copied per row until
    asked: ``value``/``values`` answer cells, ``column`` builds one encoded column,
    ``frame`` the whole DataFrame (``engine.export.targets.write_released`` writes it, in chunks).

    The row -> class map and the suppression are kept per distinct quasi-identifier
    combination (the classifier's base items), so a row costs nothing until read.
    """

    def __init__(self, problem: Problem, levels: tuple[int, ...], classes: Classes,
                 base_to_class: np.ndarray, violating: np.ndarray,
                 base_suppressed: np.ndarray, withheld: np.ndarray | None = None,
                 base_levels: np.ndarray | None = None, rows: np.ndarray | None = None,
                 base_cells: np.ndarray | None = None):
        qis = list(problem.qis)
        self.problem = problem
        self.levels: tuple[int, ...] = levels
        self.qis: list[str] = qis
        self.level_of: dict[str, int] = dict(zip(qis, levels))
        attrs = problem.job.attributes
        #: identifying attributes released as pseudonyms
        self.pseudonymized = frozenset(
            n for n in problem.identifying
            if getattr(attrs.get(n), "pseudonym", None) is not None)
        #: identifying attributes not released at all
        self.removed = frozenset(problem.identifying) - self.pseudonymized
        self.input_names: list[str] = problem.table.names
        #: the released columns, in the data's order (removed attributes left out)
        self.names: list[str] = [n for n in self.input_names if n not in self.removed]
        self.marker: str = suppression_marker(problem.job)
        self._table: EncodedTable = problem.table
        self.classes: Classes = classes
        self._base_to_class = base_to_class
        #: per class: suppressed (its records' quasi-identifiers are the marker)
        self.violating = violating
        self._base_suppressed = base_suppressed
        #: rows that are not released at all (outside a differential-privacy sample)
        self.withheld: np.ndarray | None = withheld
        #: a local recoding's levels per base item (None: one global transformation)
        self.base_levels = base_levels
        #: the input rows released, in order (None: every row); a frequency table's
        #: release (a backend's) is written by the backend, which selects them itself
        self.subset_release = rows is not None
        self.input_rows: np.ndarray | None = (
            None if rows is None or problem.table.weights is not None
            else np.asarray(rows, dtype=np.int64))
        #: cell suppression (``suppression = "cells"``): per base item, which
        #: quasi-identifier cells are the marker (None: records are suppressed whole)
        self.base_cells = base_cells
        self._row_to_base = problem.classifier.row_to_base  # the engine's array
        self._finished_names = finished_names(problem, self.names) | self.pseudonymized
        self._finished: dict[str, np.ndarray] = {}
        self._maps, self._labels = {}, {}
        for j, name in enumerate(qis):
            h = problem.hierarchies[j]
            self._maps[name] = h.maps[levels[j]]
            self._labels[name] = h.labels[levels[j]]
        self._lock = threading.Lock()
        self._input_table: EncodedTable | None = None
        self._suppressed: np.ndarray | None = None
        self._columns: dict[str, EncodedColumn] = {}
        self._frame: pd.DataFrame | None = None
        self._findings: list | None = None

    # --- sizes ------------------------------------------------------------------------
    @property
    def n_rows(self) -> int:
        """Rows of the release (the research subset's, for a subset job)."""
        return self._table.n_rows if self.input_rows is None else len(self.input_rows)

    def _in(self, rows=None):
        """Release rows (an int, index array, slice, or None: all) as input rows."""
        if self.input_rows is None:
            return rows
        return self.input_rows if rows is None else self.input_rows[rows]

    def _out(self, array: np.ndarray) -> np.ndarray:
        """A per-input-row array restricted to the released rows."""
        return array if self.input_rows is None else array[self.input_rows]

    def input_table(self) -> EncodedTable:
        """The input's records of this release, row for row (the research subset's,
        for a subset job): what the analyses compare the release with."""
        if self.input_rows is None:
            return self._table
        with self._lock:
            if self._input_table is None:
                rows = self.input_rows
                self._input_table = EncodedTable(
                    [EncodedColumn(c.name, c.codes[rows], c.dictionary)
                     for c in (self._table.column(n) for n in self.input_names)])
            return self._input_table

    @property
    def n_classes(self) -> int:
        return int(self.classes.n_classes)

    @property
    def released_classes(self) -> int:
        """Classes released with their quasi-identifiers (not suppressed, not empty)."""
        counts = self.problem.record_counts(self.classes)
        return int(((~self.violating) & (counts > 0)).sum())

    @property
    def suppressed_records(self) -> int:
        """Records suppressed by the privacy models, counted as the evaluation of the
        transformation counts them (research-subset records when a model has one)."""
        return int(self.problem.record_counts(self.classes)[self.violating].sum())

    def class_statistics(self) -> dict:
        counts = self.problem.record_counts(self.classes)
        kept = counts[~self.violating]
        kept = kept[kept > 0]
        if self.base_cells is not None and len(kept):
            # cell suppression: a record's class is every record it matches with its
            # suppressed cells as wildcards (sdcMicro's frequency)
            from engine.transform.cell_suppression import released_frequencies
            kept = released_frequencies(self)
        return {"classes": int(len(kept)),
                "min_class_size": int(kept.min()) if len(kept) else 0,
                "max_class_size": int(kept.max()) if len(kept) else 0,
                "average_class_size": float(kept.mean()) if len(kept) else 0.0,
                "suppressed_records": self.suppressed_records}

    # --- rows ---------------------------------------------------------------------------
    def row_class(self, rows) -> np.ndarray | int:
        """Equivalence class of row(s) ``rows`` (an int or an index array)."""
        return self._base_to_class[self._row_to_base[self._in(rows)]]

    def row_classes(self) -> np.ndarray:
        """Every row's class (allocates one array of n rows)."""
        return self._out(self._base_to_class[self._row_to_base])

    @property
    def local_recoding(self) -> bool:
        return self.base_levels is not None

    @property
    def any_suppressed(self) -> bool:
        return bool(self._base_suppressed.any()) or self.withheld is not None

    @property
    def suppressed_rows(self) -> np.ndarray:
        """Boolean mask of the rows written suppressed (built once, one byte a row)."""
        return self._out(self._suppressed_input)

    @property
    def _suppressed_input(self) -> np.ndarray:
        """`suppressed_rows` over every input row (released or not)."""
        if self._suppressed is None:
            sup = self._base_suppressed[self._row_to_base]
            if self.withheld is not None:
                sup = sup | self.withheld
            sup.flags.writeable = False
            with self._lock:
                if self._suppressed is None:
                    self._suppressed = sup
        return self._suppressed

    def is_suppressed(self, row: int) -> bool:
        row = self._in(row)
        return bool(self._base_suppressed[self._row_to_base[row]]) or (
            self.withheld is not None and bool(self.withheld[row]))

    # --- cells --------------------------------------------------------------------------
    def _released(self, name: str) -> None:
        if name in self.removed:
            raise DataError(f"'{name}' is an identifying attribute: it is not released")
        self._table.column(name)  # the engine's message for an unknown column

    def is_generalized(self, name: str) -> bool:
        """Whether the column's released values differ from the input's by design: a
        level above 0 (for any record, under local recoding), an aggregate or a rule."""
        if name in self.level_of and self.base_levels is not None:
            return bool(self.base_levels[:, self.qis.index(name)].max() > 0)
        micro = any(m.attribute == name for m in self.problem.micro)
        rule = getattr(self.problem.job.attributes.get(name), "transformation",
                       "generalization") not in ("generalization", "identity")
        return self.level_of.get(name, 0) > 0 or micro or (rule and name in self.names)

    def value(self, name: str, row: int) -> str:
        """The released cell of column ``name`` in release row ``row``."""
        self._released(name)
        row = self._in(row)
        if name in self._finished_names:
            return str(self._finished_column(name)[row])
        col = self._table.column(name)
        maps = self._maps.get(name)
        if maps is None:
            return str(col.dictionary[col.codes[row]])
        if self._base_suppressed[self._row_to_base[row]] or (
                self.withheld is not None and self.withheld[row]) or \
                self._cell_suppressed(name, np.array([row]))[0]:
            return self.marker
        if self.base_levels is not None:
            return str(self._recoded_labels(name, np.array([row]))[0])
        return str(self._labels[name][maps[col.codes[row]]])

    def values(self, name: str, rows=None) -> np.ndarray:
        """Released cells of ``rows`` (an index array or slice; None: all) as objects."""
        self._released(name)
        rows = self._in(rows)
        if name in self._finished_names:
            full = self._finished_column(name)
            return full if rows is None else full[rows]
        return self._values(name, rows)

    def _values(self, name: str, rows=None) -> np.ndarray:
        """Generalized (or input) cells of input ``rows`` (None: all) before the
        transformation methods' finish."""
        col = self._table.column(name)
        codes = col.codes if rows is None else col.codes[rows]
        if name not in self._maps:
            return col.dictionary[codes]
        if self.base_levels is not None:
            every = np.arange(self._table.n_rows)
            out = self._recoded_labels(name, every if rows is None else every[rows])
        else:
            out = self._labels[name][self._maps[name][codes]]
        if self.any_suppressed:
            sup = self._suppressed_input if rows is None else self._suppressed_input[rows]
            if sup.any():
                out = out.copy()
                out[sup] = self.marker
        if self.base_cells is not None:
            every = np.arange(self._table.n_rows)
            sup = self._cell_suppressed(name, every if rows is None else every[rows])
            if sup.any():
                out = out.copy()
                out[sup] = self.marker
        return out

    def _cell_suppressed(self, name: str, rows: np.ndarray) -> np.ndarray:
        """Rows among ``rows`` whose cell of quasi-identifier ``name`` is suppressed
        (cell suppression; all False otherwise)."""
        if self.base_cells is None or name not in self.level_of:
            return np.zeros(len(rows), dtype=bool)
        return self.base_cells[self._row_to_base[rows], self.qis.index(name)]

    def _recoded_labels(self, name: str, rows: np.ndarray) -> np.ndarray:
        """A local recoding's labels of ``rows``: each at its own record's levels."""
        j = self.qis.index(name)
        h = self.problem.hierarchies[j]
        codes = self._table.column(name).codes[rows]
        row_levels = self.base_levels[self._row_to_base[rows], j]
        out = np.empty(len(rows), dtype=object)
        for level in np.unique(row_levels):
            at = row_levels == level
            out[at] = h.labels[level][h.maps[level][codes[at]]]
        return out

    def _finished_column(self, name: str) -> np.ndarray:
        """A column the transformation methods change, built whole once."""
        with self._lock:
            built = self._finished.get(name)
        if built is not None:
            return built
        if name in self.pseudonymized:
            built = np.asarray(pseudonym_column(self.problem, name), dtype=object)
        else:
            done = finish_columns(self.problem, {name: self._values(name)},
                                  self._base_to_class[self._row_to_base],
                                  self._suppressed_input)
            built = np.asarray(done[name], dtype=object)
        built.flags.writeable = False
        with self._lock:
            return self._finished.setdefault(name, built)

    def column(self, name: str) -> EncodedColumn:
        """Column ``name`` of the released table, encoded (built once; columns the
        transformation leaves unchanged are the input's own)."""
        self._released(name)
        col = self._table.column(name)
        if name not in self._maps and name not in self._finished_names \
                and self.input_rows is None:
            return col
        with self._lock:
            built = self._columns.get(name)
        if built is not None:
            return built
        if name not in self._maps and name not in self._finished_names:
            built = EncodedColumn(name, col.codes[self.input_rows], col.dictionary)
            with self._lock:
                return self._columns.setdefault(name, built)
        if name in self._finished_names or self.base_levels is not None:
            import pandas as pd
            codes, uniques = pd.factorize(pd.Series(self.values(name), dtype=object),
                                          sort=False)
            built = EncodedColumn(name, codes.astype(np.int32),
                                  np.asarray(uniques, dtype=object))
            with self._lock:
                return self._columns.setdefault(name, built)
        labels = self._labels[name]
        star_code = self._star_code(name)
        dictionary = labels if star_code < len(labels) else \
            np.append(labels, self.marker).astype(object)
        codes = compact_codes(self._maps[name], len(dictionary))[self._out(col.codes)]
        if self.any_suppressed:
            codes[self.suppressed_rows] = star_code
        if self.base_cells is not None:
            codes[self._out(self.base_cells[self._row_to_base,
                                            self.qis.index(name)])] = star_code
        built = EncodedColumn(name, codes, dictionary)
        with self._lock:
            self._columns.setdefault(name, built)
            return self._columns[name]

    def csv_column(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Column ``name`` as every row's code and each code's text as the CSV writers
        write it (``engine.data.csv_encoded``): the encoded column's own labels, or
        for a column built whole (pseudonyms, aggregates, rules, local recoding) its
        cells' text, encoded."""
        from engine.data.csv_encoded import as_text, factorize_text
        if name in self._finished_names or (name in self._maps and self.base_levels is not None):
            return factorize_text(as_text(self.values(name)))
        if name in self._maps and self.withheld is None:
            # a generalized quasi-identifier is its record's distinct combination's
            # (row_to_base): written per combination, then per row
            labels, star = self._labels[name], self._star_code(name)
            dictionary = labels if star < len(labels) else np.append(labels, self.marker)
            base_codes = self.problem.classifier.base.rep[:, self.qis.index(name)]
            codes = compact_codes(self._maps[name], len(dictionary))[base_codes]
            codes[self._base_suppressed] = star
            if self.base_cells is not None:
                codes[self.base_cells[:, self.qis.index(name)]] = star
            return (self._out(self._row_to_base), codes), as_text(dictionary)
        col = self.column(name)
        return col.codes, as_text(col.dictionary)

    def _star_code(self, name: str) -> int:
        """The code of the suppression marker among ``name``'s labels (one past them
        when no label is the marker)."""
        labels = self._labels[name]
        star = np.flatnonzero(labels == self.marker)
        return int(star[0]) if len(star) else len(labels)

    def encoded(self) -> "ReleasedColumns":
        """The released table as an `EncodedTable` (for the analysis functions)."""
        return ReleasedColumns(self)

    def plan(self):
        """This release as a per-record mapping (``engine.backends.ReleasePlan``) for a
        DuckDB or Spark backend to apply where the records are: the labels, suppressed
        classes, marker and columns of this table, coding rules on insensitive
        attributes by value and microaggregated attributes by class (from this table's
        own columns, so the values are the in-memory release's), pseudonyms by their
        specification (the backend reads the key). Removed values, MDAV clusters, a
        local recoding and a DP sample are released in memory only."""
        from engine.backends.base import ReleasePlan
        from engine.transform.coding import RULES, code_values
        problem, qis = self.problem, self.qis
        attrs = problem.job.attributes
        micro = {m.attribute: m for m in problem.micro}
        coded = {n for n in self._finished_names if n not in micro and n in attrs
                 and attrs[n].transformation in RULES and n not in self.pseudonymized
                 and not problem.job.transformation.remove_suppressed_values}
        from engine.transform.identifiers import identifying_values, scrubbed_names
        sources = problem.table.source_names
        scrub = {n for n in scrubbed_names(problem.job) if n in sources and n not in coded
                 and n not in micro and not problem.job.transformation.remove_suppressed_values}
        special = sorted(n for n in self._finished_names if n not in coded
                         and n not in self.pseudonymized and n not in scrub
                         and (n not in micro or micro[n].clustering == "mdav"))
        sample = problem.table.sample_bits if self.withheld is not None else None
        if special or (self.withheld is not None and sample is None) or \
                self.base_levels is not None or self.base_cells is not None:
            what = ", ".join(special) or (
                "a local recoding" if self.base_levels is not None else
                "cell suppression" if self.base_cells is not None
                else "a differential-privacy sample")
            raise DataError(f"the release of {what} is built in memory only: run the job "
                            f"with [engine] backend = \"memory\"")
        recoded = []
        for name in sorted(coded, key=self.names.index):
            if attrs[name].transformation == "identity":
                continue
            values = problem.table.column(name).dictionary
            recoded.append((name, values, code_values(values, attrs[name], name, self.marker)))
        aggregated = []
        if micro:
            kept = np.flatnonzero(~self.suppressed_rows)
            classes, first = np.unique(self.row_classes()[kept], return_index=True)
            for name in sorted(set(micro) & set(self.names), key=self.names.index):
                labels = np.asarray(self.values(name), dtype=object)[kept[first]]
                aggregated.append((name, np.asarray(self.classes.gen[classes],
                                                    dtype=np.int64).reshape(-1, len(qis)),
                                   labels))
        return ReleasePlan(
            tuple(n for n in problem.table.source_names if n not in self.removed),
            tuple(qis),
            tuple(problem.table.column(q).dictionary for q in qis),
            tuple(self._labels[q][self._maps[q]] for q in qis),
            tuple(np.asarray(self._maps[q], dtype=np.int64) for q in qis),
            tuple(int(problem.hierarchies[j].level_size(self.levels[j]))
                  for j in range(len(qis))),
            np.asarray(self.classes.gen[self.violating], dtype=np.int64).reshape(
                -1, len(qis)),
            self.marker, tuple(recoded), tuple(aggregated),
            tuple((n, attrs[n].pseudonym, problem.job.base_dir)
                  for n in problem.table.source_names if n in self.pseudonymized), sample,
            self._scrub_plan(sorted(scrub, key=sources.index), identifying_values),
            **self._subset_plan())

    def _scrub_plan(self, names: list[str], identifying_values) -> tuple:
        """(column, identifying values, own-number columns) per scrubbed column."""
        if not names:
            return ()
        values = identifying_values(self.problem)
        return tuple((n, values, values.number_columns) for n in names)

    # --- identifiers in the columns released as they are (engine/transform/identifiers) --
    def identifier_findings(self) -> list:
        """The direct identifiers (``engine.identifiers.scan.Finding``) in the columns
        released as they are and neither scrubbed nor kept; found once, kept. A
        backend's frequency table is scanned where the records are."""
        with self._lock:
            found = self._findings
        if found is None:
            from engine.transform.identifiers import find_in_release
            found = find_in_release(self)
            with self._lock:
                self._findings = found
        return found

    def check_identifiers(self) -> None:
        """Refuse the release (``IdentifiersFound``) when a column released as it is
        holds identifiers: the writers call it before they write anything."""
        found = self.identifier_findings()
        if found:
            from engine.transform.identifiers import IdentifiersFound
            raise IdentifiersFound(found)

    def identifier_report(self) -> dict:
        """What was done about identifiers: replacements per scrubbed column and kind,
        kept columns with their reasons, and the columns scanned."""
        from engine.transform.identifiers import release_report
        return release_report(self)

    def _subset_plan(self) -> dict:
        """A subset job's research subset for a backend's release (`ReleasePlan`): its
        row numbers, or for a query the query columns' values its records have."""
        if not self.subset_release:
            return {}
        problem = self.problem
        spec = problem.job.subset
        if "query" in spec:
            from engine.backends.base import SUBSET_SEPARATOR
            from engine.query import query_columns
            columns = tuple(query_columns(spec["query"]))
            mask = np.asarray(problem.model_context.subset, dtype=bool)
            values = [np.asarray(problem.table.column(c).values(), dtype=object)[mask]
                      for c in columns]
            keys = sorted({SUBSET_SEPARATOR.join(map(str, t)) for t in zip(*values)})
            return {"subset_columns": columns, "subset_keys": tuple(keys)}
        from engine.subset import subset_rows
        return {"subset_rows": subset_rows(problem.job, problem.backend.count_rows)}

    def suppressed_input_rows(self) -> np.ndarray:
        """The input row numbers of the records written suppressed."""
        rows = np.flatnonzero(self.suppressed_rows)
        return rows if self.input_rows is None else self.input_rows[rows]

    # --- whole table --------------------------------------------------------------------
    @property
    def frame(self) -> pd.DataFrame:
        """The released table as a DataFrame of strings (built once: a copy of every
        cell; prefer ``values``/``column`` for large data)."""
        self._rows_held()
        if self._frame is None:
            import pandas as pd
            frame = pd.DataFrame({n: self.values(n) for n in self.names})
            with self._lock:
                if self._frame is None:
                    self._frame = frame
        return self._frame

    @property
    def weights(self) -> np.ndarray | None:
        """Records per row when the table released is a backend's frequency table."""
        return self._table.weights

    def _rows_held(self) -> None:
        """Refuse to list rows of a frequency table's release: its rows are distinct
        records with counts; the backend holding the records writes them."""
        if self._table.weights is not None:
            backend = getattr(self.problem.backend, "name", "a")
            raise DataError(f"the records are held by the {backend} backend: the released "
                            f"rows are written by it (AnonymizationResult.write_output)")

    def chunks(self, rows: int = 100_000):
        """The released table as DataFrames of at most ``rows`` rows, in order."""
        self._rows_held()
        import pandas as pd
        n = self.n_rows
        for start in range(0, max(n, 1), rows):
            part = slice(start, min(n, start + rows))
            yield pd.DataFrame({c: self.values(c, part) for c in self.names})

    def to_csv_text(self, delimiter: str = ";") -> str:
        buf = io.StringIO()
        for i, chunk in enumerate(self.chunks()):
            chunk.to_csv(buf, sep=delimiter, index=False, header=i == 0)
        return buf.getvalue()


class ReleasedColumns(EncodedTable):
    """A `ReleasedTable` as an `EncodedTable`: the analyses read the output as they
    read the input. Columns are built when first asked for. A release of a frequency
    table (a backend's) is weighted as that table is: its rows stand for their records."""

    def __init__(self, released: ReleasedTable):  # noqa: D107 - lazy, no EncodedTable init
        self.released = released
        self.n_rows = released.n_rows
        self.weights = released.weights

    @property
    def names(self) -> list[str]:
        return list(self.released.names)

    def __contains__(self, name: str) -> bool:
        return name in self.released.names

    def column(self, name: str) -> EncodedColumn:
        return self.released.column(name)

    def suppressed_rows(self) -> np.ndarray:
        return self.released.suppressed_rows

    def to_dataframe(self, rows=None) -> pd.DataFrame:
        import pandas as pd
        return pd.DataFrame({n: self.column(n).values(rows) for n in self.names})


def release_plan(problem: Problem, levels):
    """The release of ``levels`` as a per-record mapping (``engine.backends.ReleasePlan``)
    for a DuckDB or Spark backend to apply where the records are (`ReleasedTable.plan`)."""
    return transform(problem, levels).plan()
