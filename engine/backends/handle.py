"""The data a project works on, wherever its rows live: one handle the app asks for
names, counts, distinct values, pages and subsets, never for where the rows are.

- ``MemoryData``: an ``EncodedTable`` read into memory (answers at once);
- ``engine.backends.browse.OutOfCoreData``: a CSV or Parquet file too big for memory,
  read by DuckDB on demand (answers that scan the file run in the app's workers).

Spark is a backend for running jobs (``[engine] backend = "spark"``), not for
browsing: the app opens no handle on it.

``engine.backends.browse.open_data(spec, engine)`` applies the engine's rule
(``[engine] backend``, and for ``"auto"`` the memory share) to an import and returns
the handle.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from engine.config import EngineConfig, Job
from engine.data.table import EncodedColumn, EncodedTable


class DataHandle:
    """What every handle answers (see the module's text). Methods that may scan the
    whole data say so: call them from a worker."""

    #: True: rows are read by queries on a file (pages, distinct values and counts may
    #: take a scan); False: the rows are in memory (``table``)
    out_of_core = False
    #: the backend the job runs on ("": the engine's choice; "duckdb": out of core)
    backend_name = ""
    #: DuckDB's memory limit ("" or None: its default)
    memory_limit: str | None = None
    #: data types detected on opening ({column: (type, format)}; empty: none)
    detected_types: dict

    @property
    def table(self) -> EncodedTable | None:
        """The rows in memory (None out of core)."""
        return None

    @property
    def names(self) -> list[str]:
        raise NotImplementedError

    @property
    def n_rows(self) -> int | None:
        """The number of records (None: not counted yet; ``count_rows``)."""
        raise NotImplementedError

    def count_rows(self) -> int:
        """The number of records (may scan)."""
        raise NotImplementedError

    def distinct_values(self, name: str) -> np.ndarray:
        """The sorted distinct values of column ``name`` (text; may scan)."""
        raise NotImplementedError

    def known_distinct_values(self, name: str) -> np.ndarray | None:
        """``distinct_values`` when it needs no scan, else None."""
        raise NotImplementedError

    def distinct_many(self, names: list[str]) -> None:
        """Make the distinct values of ``names`` known (one scan for all; may scan)."""

    def hierarchy_columns(self, names: list[str]) -> dict[str, EncodedColumn]:
        """``{name: column}`` as the hierarchy builders read them (out of core one row
        per distinct value with its records: ``distinct_many`` first)."""
        raise NotImplementedError

    def subset_mask(self, spec: dict, base_dir: Path) -> np.ndarray | None:
        """The rows a ``[subset]`` table selects (None: selected by the backend when it
        counts the records).

        Raises
        ------
        engine.errors.AnonymistError
            With the engine's message when the query, file or share is invalid.
        """
        raise NotImplementedError

    def count_subset(self, spec: dict, base_dir: Path) -> tuple[int, int]:
        """Records a ``[subset]`` table selects, and all records (may scan)."""
        raise NotImplementedError

    def job_engine(self, engine: EngineConfig) -> EngineConfig:
        """The ``[engine]`` a job over this data runs with."""
        return engine

    def lend_copy(self, backend) -> bool:
        """Let ``backend`` (the one a search ran on) read this handle's copy of the
        data, where there is one; False otherwise."""
        return False

    def describe(self, short: bool = False) -> str:
        """``10,000 rows × 15 columns`` (with where the rows are read from when not
        in memory); ``short``: without the columns."""
        raise NotImplementedError

    def close(self) -> None:
        """Release what the handle holds (queries, temporary files)."""


class MemoryData(DataHandle):
    """An ``EncodedTable`` in memory."""

    def __init__(self, table: EncodedTable):
        self._table = table
        self.detected_types = {}  # the reader's types are the import's (data_types)

    @property
    def table(self) -> EncodedTable:
        return self._table

    @property
    def names(self) -> list[str]:
        return list(self._table.names)

    @property
    def n_rows(self) -> int:
        return self._table.n_rows

    def count_rows(self) -> int:
        return self._table.n_rows

    def distinct_values(self, name: str) -> np.ndarray:
        return np.asarray([str(v) for v in self._table.column(name).dictionary], dtype=object)

    def known_distinct_values(self, name: str) -> np.ndarray:
        return self.distinct_values(name)

    def hierarchy_columns(self, names: list[str]) -> dict[str, EncodedColumn]:
        return {n: self._table.column(n) for n in names}

    def subset_mask(self, spec: dict, base_dir: Path) -> np.ndarray | None:
        from engine.subset import resolve_subset
        return resolve_subset(Job(subset=dict(spec), base_dir=base_dir), self._table)

    def count_subset(self, spec: dict, base_dir: Path) -> tuple[int, int]:
        mask = self.subset_mask(spec, base_dir)
        total = self._table.n_rows
        return (total if mask is None else int(np.count_nonzero(mask))), total

    def describe(self, short: bool = False) -> str:
        rows = f"{self._table.n_rows:,} rows"
        return rows if short else f"{rows} × {len(self._table.names):,} columns"


def out_of_core_engine(engine: EngineConfig, memory_limit: str | None) -> EngineConfig:
    """``engine`` for data read out of core: DuckDB, with the data's memory limit."""
    return replace(engine, backend="duckdb", memory_limit=memory_limit or engine.memory_limit)
