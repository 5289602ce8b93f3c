"""Browsing data too big for memory: pages, orders, distinct values and released pages,
served by DuckDB queries (called from the app's workers).

When a CSV file, a Parquet file or a glob of Parquet files would take more than a
few seconds to load (`slow_to_load`: 128 MB of CSV, 30 M Parquet cells) or is larger
than the engine's ``auto`` rule allows in memory (``engine.backends.choose_backend``:
``[engine] memory_share`` of the machine's memory), the document holds an
``OutOfCoreData`` instead of an ``EncodedTable``.
Everything the GUI needs of the records is a query on the file:

- ``names`` (the columns), ``n_rows`` (known at once for Parquet; for CSV counted
  by ``count_rows()``, in a worker, whose scan also copies the file's text to a
  Parquet file that later queries read instead of the CSV);
- ``page(start, count)``: rows ``start ..`` in file order, every value as text
  (missing as ``""``, as the in-memory reader and the backend see them); the first
  ``HEAD_ROWS`` are read on opening and served from memory;
- ``distinct(column)``: its distinct values with their record counts, sorted by
  value (the dictionary the in-memory reader would build); ``distinct_values``;
- ``sample(n)``: the first ``n`` rows, for type detection;
- ``frequency_table(columns)``: the engine's weighted table of the columns;
- ``query(sql)``: any aggregate, ``{data}`` standing for the rows as text;
- ``released_page(plan, start, count)``: rows of the release of a
  ``engine.output.release_plan`` as the backend writes them;
- ``sort(column, ascending, data_type)``: the records' order by a column, written
  once by DuckDB, that ``page(start, count, order)`` then reads
  (``engine.backends.browse_order``).

This is the only place outside the backends' own modules that writes SQL for the
app: the app asks for pages, orders and counts, never for a query.

Each query runs on its own DuckDB cursor (thread-safe, several may run at once);
``cancel()`` interrupts the running ones. Results are cached where they are small
(counts, distinct values).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from engine.backends import (MEMORY_PER_PARQUET_CELL, DataSource, choose_backend, data_source,
                             estimated_memory)
from engine.backends.base import PhaseProgress, ReleasePlan
from engine.backends.browse_order import SortedRows
from engine.backends.handle import DataHandle, MemoryData, out_of_core_engine
from engine.config import DataConfig, EngineConfig, Job
from engine.data.datatypes import declared_types
from engine.data.files import is_glob
from engine.data.table import EncodedColumn, EncodedTable
from engine.errors import DataError

#: copy a CSV file's text to Parquet while counting its rows (pages deep in the file,
#: distinct values and counts then read the copy)
PAGES_COPY = True
#: rows read on opening: the first page, and the values that give the data types of a
#: file opened without the import wizard
HEAD_ROWS = 1000
#: DuckDB's memory limit for the views' queries when the settings give none
VIEW_MEMORY_LIMIT = "1GB"
#: the app opens a CSV file larger than this out of core (measured: a 10 M-row, 824 MB
#: CSV took 26 s to load in memory, ~3 s per 100 MB; out of core its first page shows in
#: about 2 s), and a Parquet file of more cells (rows x columns) than this
LOAD_CSV_BYTES = 128 * 2**20
LOAD_PARQUET_CELLS = 30_000_000
#: file suffixes the out-of-core path reads
SUFFIXES = (".csv", ".tsv", ".txt", ".parquet", ".pq")


def out_of_core_backend(path: str | Path, engine: EngineConfig, delimiter: str = ";",
                        encoding: str = "utf-8") -> bool:
    """Whether the engine's rule sends ``path`` to DuckDB: ``backend = "duckdb"``, or
    ``"auto"`` and the in-memory path would need more than ``memory_share`` of the
    memory (a glob of Parquet files always goes out of core: the app reads one table)."""
    text = str(path)
    if Path(text).suffix.lower() not in SUFFIXES and not is_glob(text):
        return False
    if engine.backend == "duckdb" or is_glob(text):
        return True
    if engine.backend != "auto":
        return False
    job = Job(data=DataConfig(text, delimiter, encoding), engine=engine)
    try:
        source = data_source(job, text)
        return slow_to_load(source) or choose_backend(job, source) == "duckdb"
    except Exception:  # noqa: BLE001 - unreadable: the in-memory reader says why
        return False


def slow_to_load(source: DataSource) -> bool:
    """Whether reading ``source`` into memory would keep the app busy for more than a
    few seconds (CSV beyond `LOAD_CSV_BYTES`, Parquet beyond `LOAD_PARQUET_CELLS`):
    the app then opens it out of core, its first page shown at once, whatever memory
    the machine has."""
    if source.kind == "parquet":
        return estimated_memory(source) > LOAD_PARQUET_CELLS * MEMORY_PER_PARQUET_CELL
    return source.size_bytes > LOAD_CSV_BYTES


class OutOfCoreData(SortedRows, DataHandle):
    """A data source read by DuckDB on demand (see the module's text): the out-of-core
    ``DataHandle``."""

    out_of_core = True
    backend_name = "duckdb"

    def __init__(self, path: str | Path, delimiter: str = ";", encoding: str = "utf-8",
                 memory_limit: str | None = None):
        from engine.backends.duckdb_backend import DuckDBBackend
        job = Job(data=DataConfig(str(path), delimiter, encoding))
        self.source: DataSource = data_source(job, str(path))
        for f in self.source.files:
            if not f.is_file():
                raise DataError(f"data file not found: {f}")
        self.path = str(path)
        self.memory_limit = memory_limit
        # the views' queries are small; the CSV copy streams: a modest limit keeps the
        # app's footprint down when none is configured
        self.backend = DuckDBBackend(self.source, memory_limit or VIEW_MEMORY_LIMIT)
        self._lock = threading.RLock()      # the backend's own connection
        self._cursors: set = set()
        #: guards ``_cursors`` and ``_closed``; notified when a query ends
        self._queries = threading.Condition()
        self._closed = False
        self._copy_failed = False  # the CSV copy could not be made: scan the CSV
        self._names = self.backend.columns()
        if not self._names:
            raise DataError(f"{self.source.label} has no columns")
        self._n_rows: int | None = self._parquet_rows()
        self._count_lock = threading.Lock()  # one count (and CSV copy) at a time
        self._pages: Path | None = None    # the Parquet copy of a CSV file's text
        self.backend.text_copy = self.text_copy  # its frequency tables read the copy too
        #: the first rows, read on opening: the first page shows at once even while
        #: other queries keep DuckDB busy
        self._head = self.query(f"SELECT * FROM {{data}} LIMIT {HEAD_ROWS}")
        self._distinct: dict[str, pd.DataFrame] = {}
        self._release = None               # a second backend for released pages
        #: data types detected from the first rows ({column: (type, format)})
        self.detected_types: dict = {}
        self._release_plan_id = None
        self._init_orders()

    # --- what it is -------------------------------------------------------------------
    @property
    def kind(self) -> str:
        return self.source.kind

    @property
    def label(self) -> str:
        return self.source.label

    @property
    def names(self) -> list[str]:
        return list(self._names)

    def __contains__(self, name: str) -> bool:
        return name in self._names

    @property
    def n_rows(self) -> int | None:
        """The number of records, None until counted (``count_rows``)."""
        return self._n_rows

    @property
    def size_bytes(self) -> int:
        return self.source.size_bytes

    def describe(self, short: bool = False) -> str:
        """``Out of core (DuckDB) · 10,000,000 rows × 15 columns`` (rows: "counting rows…"
        until counted); ``short``: without the columns."""
        rows = "counting rows…" if self.n_rows is None else f"{self.n_rows:,} rows"
        return f"Out of core (DuckDB) · {rows}" + ("" if short else
                                                    f" × {len(self.names):,} columns")

    def estimated_memory(self) -> float:
        """Bytes the in-memory path would need for this data."""
        return estimated_memory(self.source)

    def _parquet_rows(self) -> int | None:
        if self.source.kind != "parquet":
            return None
        import pyarrow.parquet as pq
        try:
            return sum(pq.ParquetFile(f).metadata.num_rows for f in self.source.files)
        except Exception:  # noqa: BLE001 - counted by a scan instead
            return None

    # --- queries ------------------------------------------------------------------------
    def _cursor(self):
        with self._queries:
            if self._closed:
                raise DataError(f"{self.label}: the data was closed")
            cur = self.backend.cursor()
            self._cursors.add(cur)
        return cur

    def _done(self, cur) -> None:
        try:
            cur.close()
        except Exception:  # noqa: BLE001 - interrupted or already closed
            pass
        with self._queries:
            self._cursors.discard(cur)
            self._queries.notify_all()

    def _text_scan(self) -> str:
        """A subquery of every column as text (missing as ''): the Parquet copy of a CSV
        file once ``count_rows`` made it, else the file itself."""
        from engine.backends.duckdb_backend import as_text, literal
        if self._pages is not None:
            return f"read_parquet({literal(str(self._pages))})"
        return (f"(SELECT {', '.join(as_text(c) for c in self._names)} "
                f"FROM {self.backend.scan()})")

    def persons_per_class(self, columns: list[str], person: str) -> np.ndarray:
        """Per combination of ``columns``, the distinct values of ``person`` (``[data]
        person``: Analyze risk of the input per person), counted by DuckDB: no person
        is held in memory. The order of the combinations is DuckDB's."""
        from engine.backends.duckdb_backend import ident
        keys = ", ".join(ident(c) for c in columns)
        frame = self.query(f"SELECT count(DISTINCT {ident(person)}) AS n FROM {{data}} "
                           f"GROUP BY {keys}")
        return frame["n"].to_numpy(np.int64)

    def query(self, sql: str) -> pd.DataFrame:
        """Run ``sql`` where ``{data}`` stands for the records (every column as text, in
        file order) and return the result, e.g.
        ``query("SELECT sex, count(*) AS n FROM {data} GROUP BY sex")``."""
        cur = self._cursor()
        try:
            return cur.execute(sql.replace("{data}", self._text_scan())).df()
        except Exception as e:  # noqa: BLE001 - duckdb.Error and interrupts
            raise DataError(f"{self.label}: {str(e).splitlines()[0]}") from None
        finally:
            self._done(cur)

    def count_rows(self) -> int:
        """The number of records (cached). A CSV file is scanned once into a Parquet copy
        of its text in DuckDB's temporary folder (``PAGES_COPY``): the scan counts the
        rows, and pages deep in the file, distinct values and counts then read the copy
        (a page at row 10 M: 0.2 s instead of a 10 s scan)."""
        with self._count_lock:
            if self._n_rows is None:
                if self.kind == "csv" and PAGES_COPY and not self._copy_failed:
                    try:
                        self._copy_pages()
                    except DataError as e:
                        if self._closed or "interrupt" in str(e).lower():
                            raise
                        self._copy_failed = True  # e.g. no room: count and scan the CSV
                if self._n_rows is None:
                    n = self._scalar(f"SELECT count(*) FROM {self.backend.scan()}")
                    self._n_rows = int(n)
        return self._n_rows

    def _scalar(self, sql: str):
        cur = self._cursor()
        try:
            return cur.execute(sql).fetchone()[0]
        except Exception as e:  # noqa: BLE001
            raise DataError(f"{self.label}: {str(e).splitlines()[0]}") from None
        finally:
            self._done(cur)

    def _copy_pages(self) -> None:
        import pyarrow.parquet as pq

        from engine.backends.duckdb_backend import literal
        target = self.backend.temp_dir / "pages.parquet"
        partial = target.with_suffix(".partial")
        cur = self._cursor()
        try:
            cur.execute(f"COPY (SELECT * FROM {self._text_scan()}) TO "
                        f"{literal(str(partial))} (FORMAT parquet, ROW_GROUP_SIZE 100000)")
        except Exception as e:  # noqa: BLE001
            raise DataError(f"{self.label}: {str(e).splitlines()[0]}") from None
        finally:
            self._done(cur)
        partial.replace(target)
        self._n_rows = int(pq.ParquetFile(target).metadata.num_rows)
        self._pages = target

    def text_copy(self) -> Path | None:
        """The Parquet copy of a CSV file's text once ``count_rows`` has made it (None
        before, for Parquet input, and once closed): the records as every query here
        reads them (text, missing as ''), in file order."""
        return None if self._closed else self._pages

    def lend_copy(self, backend) -> bool:
        """Let ``backend`` (a DuckDB backend of the same data: the one a search ran on,
        which the analyses and the export query) read ``text_copy`` instead of the
        file once it exists (``DuckDBBackend.text_copy``); False when it reads other
        data or cannot."""
        if not hasattr(backend, "text_copy") or self.kind != "csv" or \
                not self.same_records(backend):
            return False
        backend.text_copy = self.text_copy
        return True

    def same_records(self, backend) -> bool:
        """Whether ``backend`` reads these records (the same files, format, delimiter
        and encoding): its record numbers are this data's."""
        other = getattr(backend, "source", None)
        return other is not None and _identity(other) == _identity(self.source)

    def page(self, start: int, count: int, order: tuple[str, bool] | None = None
             ) -> pd.DataFrame:
        """Rows ``start .. start + count - 1`` in file order, every value as text; in
        ``order`` (a ``sort`` made earlier): its rows at those positions, with each
        record's row number in the file (0-based) in column ``row_column``."""
        start, count = max(0, int(start)), max(0, int(count))
        if order is not None:
            return self._sorted_page(order, start, count)
        head = self._head
        if start + count <= len(head) or len(head) < HEAD_ROWS:  # within the first rows
            return head.iloc[start:start + count].reset_index(drop=True)
        return self.query(f"SELECT * FROM {{data}} LIMIT {count} OFFSET {start}")

    def sample(self, n: int = HEAD_ROWS) -> pd.DataFrame:
        """The first ``n`` rows (for type detection and previews)."""
        return self.page(0, n)

    def distinct(self, column: str) -> pd.DataFrame:
        """``column``'s distinct values (``value``, text) with their records (``count``),
        sorted by value as the in-memory reader sorts its dictionary (cached)."""
        if column not in self._names:
            raise DataError(f"{self.label} has no column '{column}'")
        self._wait_for_copy()
        if column not in self._distinct:
            from engine.backends.duckdb_backend import ident
            c = ident(column)
            frame = self.query(f"SELECT {c} AS value, count(*) AS count FROM {{data}} "
                               f"GROUP BY {c}")
            values = frame["value"].astype(str).to_numpy(dtype=object)
            order = np.argsort(values, kind="stable")  # Python's string order
            self._distinct[column] = pd.DataFrame(
                {"value": values[order],
                 "count": frame["count"].to_numpy(dtype=np.int64)[order]})
        return self._distinct[column]

    def distinct_many(self, columns: list[str]) -> None:
        """Count the distinct values of several columns in one scan (``GROUPING SETS``);
        ``distinct``/``known_distinct`` then answer them without a query."""
        from engine.backends.duckdb_backend import ident
        todo = [c for c in dict.fromkeys(columns) if c not in self._distinct]
        for c in todo:
            if c not in self._names:
                raise DataError(f"{self.label} has no column '{c}'")
        self._wait_for_copy()
        if len(todo) < 2 or self.kind == "parquet" or self._pages is not None:
            # Parquet is read column by column: one query per column reads less
            for c in todo:
                self.distinct(c)
            return
        cols = ", ".join(ident(c) for c in todo)
        sets = ", ".join(f"({ident(c)})" for c in todo)
        flags = ", ".join(f"GROUPING({ident(c)}) AS __g{j}" for j, c in enumerate(todo))
        frame = self.query(f"SELECT {cols}, {flags}, count(*) AS count FROM {{data}} "
                           f"GROUP BY GROUPING SETS ({sets})")
        for j, c in enumerate(todo):
            part = frame[frame[f"__g{j}"] == 0]  # GROUPING() is 0 where c is grouped
            values = part[c].astype(str).to_numpy(dtype=object)
            order = np.argsort(values, kind="stable")
            self._distinct[c] = pd.DataFrame(
                {"value": values[order],
                 "count": part["count"].to_numpy(dtype=np.int64)[order]})

    def _wait_for_copy(self) -> None:
        """A CSV file's distinct values are counted on its Parquet copy (a scan of the
        CSV beside the copy's would compete with it for DuckDB's threads)."""
        if self.kind == "csv" and PAGES_COPY and not self._copy_failed:
            self.count_rows()

    def distinct_values(self, column: str) -> np.ndarray:
        """The sorted distinct values of ``column`` (object array of text)."""
        return self.distinct(column)["value"].to_numpy(dtype=object)

    def known_distinct(self, column: str) -> pd.DataFrame | None:
        """``distinct(column)`` if it was computed already, else None (no query)."""
        return self._distinct.get(column)

    def known_distinct_values(self, column: str) -> np.ndarray | None:
        known = self.known_distinct(column)
        return None if known is None else known["value"].to_numpy(dtype=object)

    def hierarchy_columns(self, names: list[str]) -> dict[str, EncodedColumn]:
        return {n: distinct_column(n, self.distinct(n)) for n in names}

    def subset_mask(self, spec: dict, base_dir: Path) -> None:
        return None  # the backend selects the rows when it counts them

    def count_subset(self, spec: dict, base_dir: Path) -> tuple[int, int]:
        """Records a ``[subset]`` selects, and all records (a query on the frequency
        table of its columns; row numbers and samples as the backend draws them,
        ``engine.subset.subset_rows``).

        Raises
        ------
        AnonymistError
            Naming the file and value when a row file is unreadable or an index is
            outside the data.
        """
        from engine.subset import check_indices, subset_rows
        if "query" in spec:
            return self.query_count(spec["query"])
        total = self.count_rows()
        rows = subset_rows(Job(subset=dict(spec), base_dir=base_dir), lambda: total)
        check_indices(rows, total)
        return len(rows), total

    def job_engine(self, engine: EngineConfig) -> EngineConfig:
        return out_of_core_engine(engine, self.memory_limit)

    def query_count(self, query: str) -> tuple[int, int]:
        """Records a research-subset ``query`` (``engine.query``) selects, and all records:
        the query runs on the frequency table of its columns, as the engine runs it."""
        from engine.query import evaluate_query, query_columns
        table = self.frequency_table(query_columns(query))
        mask = evaluate_query(query, table)
        return int(table.weights[mask].sum()), table.n_records

    def frequency_table(self, columns: list[str],
                        progress: PhaseProgress | None = None) -> EncodedTable:
        """The engine's weighted frequency table of ``columns`` (the backend's)."""
        with self._lock:
            return self.backend.frequency_table(list(columns), progress)

    def released_page(self, plan: ReleasePlan, start: int, count: int) -> pd.DataFrame:
        """Rows ``start ..`` of the release ``plan`` describes (as the backend writes it:
        ``engine.output.release_plan(problem, levels)``), every value as text."""
        from engine.backends.duckdb_backend import DuckDBBackend
        with self._lock:
            if self._release is None:
                self._release = DuckDBBackend(self.source, self.memory_limit)
                self._release.text_copy = self.text_copy
            return self._release.rows(start, count, plan)

    # --- lifetime -----------------------------------------------------------------------
    def cancel(self) -> None:
        """Interrupt the running queries (they raise DataError)."""
        with self._queries:
            cursors = list(self._cursors)
        for cur in cursors:
            try:
                cur.interrupt()
            except Exception:  # noqa: BLE001 - ended meanwhile
                pass
        try:
            self.backend.interrupt()  # a frequency table being counted
        except Exception:  # noqa: BLE001
            pass

    def close(self, wait_s: float = 10.0) -> None:
        """Refuse new queries, interrupt the running ones, wait for them (up to
        ``wait_s``) and release DuckDB and its temporary folder (the CSV copy)."""
        with self._queries:
            self._closed = True
        self.cancel()
        with self._queries:
            self._queries.wait_for(lambda: not self._cursors, timeout=wait_s)
        with self._lock:  # a frequency table or released page ends first
            for backend in (self._release, self.backend):
                if backend is None:
                    continue
                try:
                    backend.close()
                except Exception:  # noqa: BLE001 - still busy: released at exit
                    pass
            self._release = None


def _identity(source: DataSource) -> tuple:
    """What makes two sources the same records: files, format, delimiter, encoding."""
    return (source.kind, [f.resolve() for f in source.files], source.delimiter,
            (source.encoding or "utf-8").lower())


def open_out_of_core(spec, memory_limit: str | None = None) -> OutOfCoreData:
    """``OutOfCoreData`` for an import's ``engine.data.sources.ImportSpec`` (CSV or
    Parquet). Out of core every column is read as the file has it: what the records
    would need rewriting for (columns left out or renamed, no header row, a quote
    character other than '"') is refused with the reason."""
    fmt = spec.csv_format
    why = ("is too big for memory and is read out of core, where every column is kept "
           "as the file has it")
    label = Path(str(spec.location)).name
    if spec.columns or spec.renames:
        raise DataError(f"{label} {why}: include every column under its own name in the "
                        f"import wizard (or raise the memory share in the settings)")
    if fmt is not None and (not fmt.has_header or not spec.has_header):
        raise DataError(f"{label} {why}: its first row must name the columns")
    if fmt is not None and fmt.quotechar not in ('"', ""):
        raise DataError(f"{label} {why}: values must be quoted with '\"', not "
                        f"{fmt.quotechar!r}")
    data = OutOfCoreData(spec.location, fmt.delimiter if fmt else ";",
                         fmt.encoding if fmt else "utf-8", memory_limit)
    if not spec.data_types:  # opened without the wizard: types from the first rows
        data.detected_types = declared_types(data.sample(HEAD_ROWS))
    return data


@dataclass(frozen=True)
class CountedColumn(EncodedColumn):
    """A column out of core as the hierarchy builders see it: one row per distinct
    value (``codes`` 0..n-1) and each value's records (``value_counts``) from DuckDB."""

    counts: np.ndarray = None

    def value_counts(self) -> np.ndarray:
        return np.asarray(self.counts, dtype=np.int64)


def distinct_column(name: str, distinct: pd.DataFrame) -> CountedColumn:
    """``OutOfCoreData.distinct(name)`` as a ``CountedColumn``."""
    values = distinct["value"].to_numpy(dtype=object)
    return CountedColumn(name, np.arange(len(values), dtype=np.int32), values,
                         distinct["count"].to_numpy(dtype=np.int64))


def open_data(spec, engine: EngineConfig) -> DataHandle:
    """The handle on an import (``engine.data.sources.ImportSpec``): a CSV or Parquet
    file that the engine's rule sends to DuckDB (``[engine] backend``, or ``"auto"``
    and more than the memory share) is opened out of core (nothing read but its
    columns and first rows), anything else read into memory."""
    from engine.data.sources import load
    fmt = spec.csv_format
    if spec.kind in ("csv", "parquet") and out_of_core_backend(
            spec.location, engine, fmt.delimiter if fmt else ";",
            fmt.encoding if fmt else "utf-8"):
        return open_out_of_core(spec, engine.memory_limit)
    return MemoryData(EncodedTable.from_dataframe(load(spec)))
