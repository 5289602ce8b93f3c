"""The tables the analyses read for one transformation: records, or aggregates of them.

In memory an analysis reads the problem's table and the released table of the
transformation (``engine.output.transform``), one row per record. When a DuckDB
backend holds the records (``problem.backend``: data beyond memory), the same
analysis functions read weighted tables instead, which give the same figures:

* the frequency table the search ran on (distinct combinations of the columns the
  job reads per record, ``weights`` their records) and its release by the same
  ``transform`` (suppression and labels per distinct combination), for any
  columns it holds: class sizes, risk, quality and the quasi-identifiers'
  distributions need no further scan;
* for other columns (an insensitive attribute's distribution, a contingency table
  with it), a GROUP BY through the backend: of the input columns, or of the
  released table the backend writes (the export's own release query), so no
  record is read into Python. The first distribution asked for counts every such
  column's in the same scan (GROUPING SETS); a quasi-identifier with such a column
  is counted in input and output by one scan of the release query.

Tables are counted once per set of columns and kept.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from engine.data.table import EncodedTable

if TYPE_CHECKING:  # the released table comes from engine.output (the floor beside)
    from engine.output import ReleasedTable

#: receives (phase, fraction done or None), as a backend's progress
PhaseProgress = Callable[[str, "float | None"], None]


class AnalysisTables:
    """Input and output tables of one transformation for the analyses.

    ``input(columns)`` and ``output(columns)`` return tables holding at least
    ``columns``, row-aligned with each other whenever both hold them (quality pairs
    input and output values row by row): the problem's own table and its release
    do; counts through the backend are per table.
    """

    def __init__(self, problem, released: "ReleasedTable | None" = None):
        self.problem = problem
        self.released = released
        self.backend = getattr(problem, "backend", None)
        self._counted: dict[tuple, EncodedTable] = {}
        self._plan = None
        self._columns_counted = False
        self._lock = threading.Lock()

    @property
    def out_of_core(self) -> bool:
        """Whether the records are held by a backend (tables are weighted aggregates)."""
        return self.backend is not None

    @property
    def n_records(self) -> int:
        return self.problem.table.n_records

    def holds(self, columns: Sequence[str]) -> bool:
        """Whether the problem's own table holds ``columns`` (no scan needed)."""
        return all(c in self.problem.table for c in columns)

    def input(self, columns: Sequence[str], progress: PhaseProgress | None = None
              ) -> EncodedTable:
        """A table of the input holding ``columns`` (in memory, the input's records of
        the release, row for row: a subset job's are the subset's)."""
        if not self.out_of_core or self.holds(columns):
            if self.released is not None and not self.out_of_core:
                return self.released.input_table()
            return self.problem.table
        if len(columns) == 1 and hasattr(self.backend, "column_counts"):
            self._count_columns(progress)
        if self._pairs_apply(columns):
            return self._pairs(columns, progress)[0]
        return self._count(("input", *sorted(columns)), lambda: self.backend.frequency_table(
            list(columns), progress))

    def _count_columns(self, progress: PhaseProgress | None) -> None:
        """Every column's distribution the frequency table does not hold, counted in one
        scan the first time one is asked for (the next ones need none)."""
        with self._lock:
            if self._columns_counted:
                return
            self._columns_counted = True
        wanted = [n for n in self.problem.table.source_names
                  if n not in self.problem.table and n not in self.problem.identifying]
        for name, table in self.backend.column_counts(wanted, progress).items():
            with self._lock:
                self._counted.setdefault(("input", name), table)

    def output(self, columns: Sequence[str], progress: PhaseProgress | None = None
               ) -> EncodedTable:
        """A table of the released data of the transformation holding ``columns``."""
        if self.released is None:
            raise ValueError("no transformation to analyse: there is no output")
        if not self.out_of_core or self.holds(columns):
            return self.released.encoded()
        released = self.released
        if not any(c in released.level_of or released.is_generalized(c) for c in columns):
            return self.input(columns, progress)  # released as they are
        if self._pairs_apply(columns):
            return self._pairs(columns, progress)[1]
        return self._count(("output", *sorted(columns)), lambda: self.backend.release_counts(
            self.plan(), list(columns), progress))

    def _pairs_apply(self, columns: Sequence[str]) -> bool:
        """Whether input and output of ``columns`` come from one scan (`_pairs`): a
        quasi-identifier among columns otherwise released as they are."""
        r = self.released
        return (r is not None and hasattr(self.backend, "release_pairs")
                and any(c in r.level_of for c in columns)
                and all(c in r.level_of or not r.is_generalized(c) for c in columns))

    def _pairs(self, columns: Sequence[str], progress: PhaseProgress | None):
        """Input and output tables of ``columns`` from one scan of the release query."""
        return self._count(("pairs", *sorted(columns)), lambda: self.backend.release_pairs(
            self.plan(), sorted(columns), progress))

    def plan(self):
        """The release as the backend applies it (``ReleasedTable.plan``)."""
        if self._plan is None:
            self._plan = self.released.plan()
        return self._plan

    def _count(self, key: tuple, count: Callable[[], EncodedTable]) -> EncodedTable:
        with self._lock:
            kept = self._counted.get(key)
        if kept is None:
            kept = count()
            with self._lock:
                kept = self._counted.setdefault(key, kept)
        return kept
