"""DuckDB backend: counts and releases CSV or Parquet data out of core.

DuckDB scans the file in parallel, spilling to a temporary folder beyond its
``memory_limit``; Python only ever holds the frequency table. The release is
one ``COPY (SELECT ...) TO`` of a single-table query, which DuckDB guarantees
keeps the input order: each quasi-identifier's value becomes its dictionary
code by a cast to an ENUM of the values, its label and generalized code are
looked up in constant lists (one entry per value), and a record is suppressed
when its class key is among the suppressed classes' keys (a vectorized Python
function: a binary search of the sorted keys per batch, no join).
"""
from __future__ import annotations

import os
import shutil
import tempfile
import threading
import weakref
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from engine.backends.temp_folders import TEMP_PREFIX, sweep_stale_folders
from engine.backends.base import (Backend, DataSource, PhaseProgress, ReleasePlan,
                                  frequency_columns, labels_without_formulas)
from engine.backends import identifier_scan
from engine.backends.identifier_scan import (ScrubTally, forget_scrub_functions,
                                             scrub_functions)
from engine.data.table import EncodedColumn, EncodedTable
from engine.errors import DataError

_ENCODINGS = {"utf-8": "utf-8", "utf8": "utf-8", "utf-8-sig": "utf-8", "latin-1": "latin-1",
              "latin1": "latin-1", "iso-8859-1": "latin-1", "utf-16": "utf-16"}


def ident(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def literal(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def as_text(name: str) -> str:
    """A column as the in-memory reader sees it: text, missing as ''."""
    return f"coalesce(CAST({ident(name)} AS VARCHAR), '') AS {ident(name)}"


class _Poller:
    """Reports ``con.query_progress()`` every 100 ms while a query runs."""

    def __init__(self, con, phase: str, progress: PhaseProgress | None):
        self.con, self.phase, self.progress = con, phase, progress
        self.stop = threading.Event()
        self.thread = None

    def __enter__(self):
        if self.progress is not None:
            self.progress(self.phase, 0.0)
            self.thread = threading.Thread(target=self._run, daemon=True)
            self.thread.start()
        return self

    def _run(self):
        while not self.stop.wait(0.1):
            try:
                p = self.con.query_progress()
            except Exception:  # the query ended between two polls
                return
            if p is not None and p >= 0:
                self.progress(self.phase, min(float(p) / 100.0, 1.0))

    def __exit__(self, *exc):
        self.stop.set()
        if self.thread is not None:
            self.thread.join()
            if exc[0] is None:
                self.progress(self.phase, 1.0)


#: DuckDB's memory limit when the job sets none: a share of the machine's memory, at most
#: ``DEFAULT_LIMIT_CAP`` (measured: 200 M rows counted and released in the same time
#: within 3 GB as with DuckDB's own default of 80 % of RAM, which peaked at 5.2-5.9 GB)
DEFAULT_LIMIT_SHARE = 0.25
DEFAULT_LIMIT_CAP = 3 * 2**30
DEFAULT_LIMIT_FLOOR = 512 * 2**20


def default_memory_limit() -> str:
    """min(3 GB, 25 % of RAM), at least 512 MB, as DuckDB's memory_limit text."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 8 * 2**30
    limit = max(DEFAULT_LIMIT_FLOOR, min(DEFAULT_LIMIT_CAP, int(total * DEFAULT_LIMIT_SHARE)))
    return f"{limit // 2**20}MiB"


class DuckDBBackend(Backend):
    """Frequency tables and releases computed by an embedded DuckDB."""

    name = "duckdb"

    def __init__(self, source: DataSource, memory_limit: str | None = None,
                 threads: int | None = None):
        super().__init__(source)
        import duckdb
        self._duckdb = duckdb
        self.con = duckdb.connect()
        sweep_stale_folders()
        self._tmp = tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-")
        # the spill folder goes with the backend, or at exit if it is never closed
        self._cleanup = weakref.finalize(self, _release, self.con, self._tmp)
        self.con.execute(f"SET temp_directory = {literal(self._tmp)}").fetchall()
        self.con.execute("SET preserve_insertion_order = true").fetchall()
        # memory DuckDB frees goes back to the system (its allocator's background threads
        # purge it within seconds; without them a count's peak stays held for the rest of
        # the run: at 10 M rows and 3.3 M persons 880 MB held after the count against 470)
        try:
            self.con.execute("SET allocator_background_threads = true").fetchall()
        except duckdb.Error:  # a DuckDB without the setting
            pass
        # query_progress() reports only with the progress bar on; DuckDB must not print it
        self.con.execute("SET enable_progress_bar = true").fetchall()
        self.con.execute("SET enable_progress_bar_print = false").fetchall()
        memory_limit = memory_limit or default_memory_limit()
        if memory_limit:
            try:
                self.con.execute(f"SET memory_limit = {literal(memory_limit)}").fetchall()
            except duckdb.Error as e:
                raise DataError(f"[engine] memory_limit = '{memory_limit}' is not a memory "
                                f"size DuckDB understands (e.g. '8GB'): {e}") from None
        if threads:
            self.con.execute(f"SET threads = {int(threads)}").fetchall()
        self._columns = None
        self._settings = (memory_limit, threads)
        #: replacements in scrubbed columns, counted while a release is written
        self.scrub_tally = ScrubTally()
        #: a function giving a Parquet copy of the records' text (the same records in
        #: the same order, every column VARCHAR, missing as ''), None while there is
        #: none: scans read it instead of the source (the app's copy of a CSV file,
        #: ``engine.backends.browse.OutOfCoreData``; every query reads columns as
        #: ``coalesce(CAST(c AS VARCHAR), '')``, so its results are the same)
        self.text_copy: Callable[[], Path | None] | None = None
        #: one call at a time on the connection (DuckDB refuses concurrent calls on it):
        #: a query and its fetch, or a release query's types and variables and its run
        self._lock = threading.RLock()

    @property
    def temp_dir(self) -> Path:
        """The backend's own temporary folder (DuckDB's spill folder), removed on close:
        files written there (a CSV file's Parquet copy, a sort's order) go with it."""
        return Path(self._tmp)

    def cursor(self):
        """A cursor of its own on the connection (a query that need not wait for the
        others: pages, counts); close it when done, ``interrupt()`` it to stop it."""
        return self.con.cursor()

    def interrupt(self) -> None:
        """Interrupt what runs on the connection itself (a frequency table being counted)."""
        self.con.interrupt()

    # --- reading ------------------------------------------------------------------
    def scan(self) -> str:
        """The FROM clause reading the whole source, every column as text (from the
        ``text_copy`` when there is one: a CSV file's text read again costs 12 s per
        10 M rows, its Parquet copy a fraction of it)."""
        copy = self.text_copy() if self.text_copy is not None else None
        if copy is not None:
            return f"read_parquet({literal(str(copy))})"
        s = self.source
        if s.kind == "parquet":
            files = ", ".join(literal(str(f)) for f in s.files)
            return f"read_parquet([{files}])"
        enc = _ENCODINGS.get((s.encoding or "utf-8").lower())
        if enc is None:
            raise DataError(f"{s.label}: encoding '{s.encoding}' cannot be read out of core "
                            f"(DuckDB reads utf-8, latin-1 and utf-16); convert the file or "
                            f"use [engine] backend = \"memory\"")
        return (f"read_csv({literal(str(s.files[0]))}, delim={literal(s.delimiter)}, "
                f"quote='\"', escape='\"', header=true, all_varchar=true, "
                f"encoding={literal(enc)}, strict_mode=true)")

    def _run(self, sql: str, phase: str, progress: PhaseProgress | None,
             fetch=lambda result: result.fetchall()):
        """``fetch`` of the result of ``sql``, the connection held for both."""
        try:
            with self._lock:
                with _Poller(self.con, phase, progress):
                    result = self.con.execute(sql)
                return fetch(result)
        except self._duckdb.Error as e:
            raise DataError(f"{self.source.label}: {str(e).splitlines()[0]}") from None

    def twin(self) -> "DuckDBBackend":
        """Another backend on the same data with its own connection (pages of a release
        that must not wait for this one's aggregates); close it when done."""
        twin = DuckDBBackend(self.source, *self._settings)
        twin.text_copy = self.text_copy
        return twin

    def rows(self, start: int, count: int, plan: ReleasePlan | None = None) -> pd.DataFrame:
        """Records ``start .. start + count - 1`` in input order (released by ``plan`` if
        given, as `write_release` writes them), every column as text, missing as ''."""
        page = f"LIMIT {max(0, int(count))} OFFSET {max(0, int(start))}"
        if plan is None:  # no types or variables of the connection: a cursor of its own,
            # so a page does not wait for an aggregate running on the connection
            sql = f"SELECT {', '.join(as_text(c) for c in self.columns())} FROM {self.scan()}"
            cur = self.con.cursor()
            try:
                return cur.execute(f"SELECT * FROM ({sql}) {page}").df()
            except self._duckdb.Error as e:
                raise DataError(f"{self.source.label}: {str(e).splitlines()[0]}") from None
            finally:
                cur.close()
        with self._lock:
            sql = self.release_query(plan, empty_as_null=False)
            return self._run(f"SELECT * FROM ({sql}) {page}", "read", None, _frame)

    def columns(self) -> list[str]:
        if self._columns is None:
            rows = self._run(f"DESCRIBE SELECT * FROM {self.scan()}", "read", None)
            self._columns = [str(r[0]) for r in rows]
        return list(self._columns)

    def count_rows(self) -> int:
        return int(self._run(f"SELECT count(*) FROM {self.scan()}", "aggregate", None)[0][0])

    def frequency_table(self, columns: list[str], progress: PhaseProgress | None = None,
                        subset: np.ndarray | None = None,
                        sample: bytes | None = None) -> EncodedTable:
        names = self.columns()
        missing = [c for c in columns if c not in names]
        if missing:
            raise DataError(f"{self.source.label} has no column '{missing[0]}' "
                            f"(columns: {', '.join(names)})")
        columns = [c for c in names if c in set(columns)]  # the data's order
        inner = ", ".join([as_text(c) for c in columns] + ["row_number() OVER () AS __rn"])
        keys = [ident(c) for c in columns]
        source = f"(SELECT {inner} FROM {self.scan()})"
        if subset is not None:  # the row numbers' records apart: a mark join, counted
            keys.append("__in")
            source = (f"(SELECT *, __rn - 1 IN (SELECT i FROM __subset_rows) AS __in "
                      f"FROM {source})")
        if sample is not None:  # a differential-privacy sample: a bit per record
            keys.append("__dp")
            source = f"(SELECT *, {self._sample_test(sample, '__rn - 1')} AS __dp FROM {source})"
        cols = ", ".join(keys)
        sql = (f"SELECT {cols + ', ' if cols else ''}count(*) AS __w, min(__rn) AS __first "
               f"FROM {source} {'GROUP BY ' + cols if cols else ''}")
        with self._lock:  # the registered row numbers and the table are the connection's
            if subset is not None:
                self.con.register("__subset_rows", pd.DataFrame(
                    {"i": np.asarray(subset, dtype=np.int64)}))
            try:
                self._run(f"CREATE OR REPLACE TEMP TABLE __freq AS {sql}", "aggregate",
                          progress)
            finally:
                if subset is not None:
                    self.con.unregister("__subset_rows")
            try:
                dictionaries, result = self._coded("__freq", columns, keys[len(columns):])
            finally:
                self._run("DROP TABLE IF EXISTS __freq", "aggregate", None)
        weights = np.asarray(result["__w"], dtype=np.int64)
        if not columns:
            return frequency_columns({}, weights, names)
        table = EncodedTable([EncodedColumn(c, np.asarray(result[c], dtype=np.int32),
                                            dictionaries[c]) for c in columns],
                             weights, names)
        if subset is not None:
            table.row_subset = np.asarray(result["__in"], dtype=bool)
        if sample is not None:
            table.row_sample = np.asarray(result["__dp"], dtype=bool)
        return table

    def person_tallies(self, person: str, qis: list[str], values: list[str],
                       table: EncodedTable, progress: PhaseProgress | None = None):
        """The persons of column ``person`` counted in SQL for ``table`` (a frequency
        table counted without it): ``engine.backends.person_sql``."""
        from engine.backends.person_sql import person_tallies
        return person_tallies(self, person, qis, values, table, progress)

    def _coded(self, table: str, columns: list[str], flags: list[str]):
        """A grouped ``table``'s rows (in order of ``__first``) as each column's code in
        its dictionary, with ``flags`` and ``__w``, and the dictionaries: the distinct
        values sorted as Python sorts text (by code point: DuckDB's binary order of
        UTF-8). Counted by DuckDB, so Python never holds a value per row (a person
        column has a row per person), only each column's distinct values once; the codes
        are joined from a table of each column's numbered values (a window ordering the
        rows per column took half as much memory again: 1.34 GB against 0.95 GB at 3.3
        M persons under a 1 GB limit)."""
        dictionaries, joins, codes = {}, [], []
        try:
            for j, c in enumerate(columns):
                self._run(f"CREATE OR REPLACE TEMP TABLE __dict{j} AS SELECT v, "
                          f"CAST(row_number() OVER (ORDER BY v) - 1 AS INTEGER) AS code "
                          f"FROM (SELECT DISTINCT {ident(c)} AS v FROM {table})",
                          "aggregate", None)
                got = self._run(f"SELECT v FROM __dict{j} ORDER BY code", "aggregate",
                                None, _numpy)["v"]
                dictionaries[c] = np.asarray(got, dtype=object)
                joins.append(f"JOIN __dict{j} ON __f.{ident(c)} = __dict{j}.v")
                codes.append(f"__dict{j}.code AS {ident(c)}")
            select = codes + [f"__f.{f}" for f in flags] + ["__f.__w"]
            result = self._run(f"SELECT {', '.join(select)} FROM {table} AS __f "
                               f"{' '.join(joins)} ORDER BY __f.__first", "aggregate", None,
                               _numpy)
        finally:
            for j in range(len(columns)):
                self._run(f"DROP TABLE IF EXISTS __dict{j}", "aggregate", None)
        return dictionaries, result

    def _sample_test(self, bits: bytes, row: str) -> str:
        """SQL: whether record ``row`` (0-based) is in the sample ``bits`` (a BIT string
        held in a variable: one bit a record, looked up by position)."""
        if len(bits) * 8 >= 2**31:
            raise DataError("a differential-privacy sample of more than 2^31 records is "
                            "drawn in memory only: use [engine] backend = \"memory\"")
        with self._lock:
            self.con.execute("SET VARIABLE __dpbits = CAST(CAST(? AS BLOB) AS BIT)",
                             [bits]).fetchall()
        return f"(get_bit(getvariable('__dpbits'), CAST({row} AS INTEGER)) = 1)"

    def column_counts(self, columns: list[str],
                      progress: PhaseProgress | None = None) -> dict[str, EncodedTable]:
        """Each column's distinct values with their record counts (a weighted table of
        that column), every column counted in one scan (GROUPING SETS)."""
        names = self.columns()
        columns = [c for c in names if c in set(columns)]
        if not columns:
            return {}
        cols = ", ".join(ident(c) for c in columns)
        flags = ", ".join(f"grouping({ident(c)}) AS __g{j}" for j, c in enumerate(columns))
        sets = ", ".join(f"({ident(c)})" for c in columns)
        sql = (f"SELECT {cols}, count(*) AS __w, {flags} FROM (SELECT "
               f"{', '.join(as_text(c) for c in columns)} FROM {self.scan()}) "
               f"GROUP BY GROUPING SETS ({sets})")
        result = self._run(sql, "aggregate", progress, _numpy)
        out = {}
        for j, c in enumerate(columns):
            mine = np.asarray(result[f"__g{j}"]) == 0
            out[c] = frequency_columns({c: np.asarray(result[c], dtype=object)[mine]},
                                       np.asarray(result["__w"], dtype=np.int64)[mine], names)
        return out

    def distinct_chunks(self, name: str):
        """A column's distinct values as text, in chunks (never all at once)."""
        return identifier_scan.distinct_chunks(self, name)

    def scrub_counts(self, columns: list[str]) -> dict | None:
        """Replacements per kind in scrubbed ``columns``, counted while a release of
        every record was written with them (None before: `scan_identifiers` counts)."""
        return self.scrub_tally.counted(columns)

    def scan_identifiers(self, scanned: list[str], scrubbed: list[str], values) -> dict:
        """Identifiers in the released columns, streamed (``identifier_scan.scan``);
        ``values``: the job's identifying values."""
        return identifier_scan.scan(self, scanned, scrubbed, [], values)

    # --- release ------------------------------------------------------------------
    def write_release(self, plan: ReleasePlan, path: Path, fmt: str, delimiter: str = ";",
                      progress: PhaseProgress | None = None,
                      formula_cells: str = "keep") -> dict | None:
        path = Path(path)
        parquet = fmt == "parquet"
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        options = ("FORMAT parquet" if parquet else
                   f"FORMAT csv, HEADER true, DELIMITER {literal(delimiter)}, QUOTE '\"', "
                   f"ESCAPE '\"'")
        done = None
        try:
            with self._lock:  # the query's types and variables are the connection's
                sql = self.release_query(plan, empty_as_null=not parquet)
                self._check_pseudonyms(plan)
                if not parquet:
                    sql, done = self._formula_cells(sql, plan, formula_cells, path)
                scrubbed = [name for name, _, _ in plan.scrubbed]
                whole = plan.subset_rows is None and plan.subset_keys is None
                if scrubbed:  # each row's replacements counted as it is scrubbed
                    self.scrub_tally.start(scrubbed)
                written = False
                try:
                    self._run(f"COPY ({sql}) TO {literal(str(tmp))} ({options})",
                              "release", progress)
                    written = True
                finally:
                    if scrubbed:
                        self.scrub_tally.stop(keep=written and whole)
            os.replace(tmp, path)
        finally:
            self._forget_pseudonyms(plan)
            forget_scrub_functions(self, plan)
            if tmp.exists():
                tmp.unlink()
        return done

    def _formula_cells(self, sql: str, plan: ReleasePlan, policy: str, path: Path
                       ) -> tuple[str, dict]:
        """The release query with its formula cells treated as the in-memory CSV export
        treats them (``engine.formulas``: the same test in SQL), counted in one more
        scan of the query first, of the columns whose cells are not all known labels
        (`labels_without_formulas`; none: no scan). Scrubbed columns are scrubbed in that
        scan only where they may hold a formula (``release_query``'s ``formula_probe``:
        the same counts, the identifiers of the other rows looked for once, when the
        release is written)."""
        from engine.formulas import FormulaCells, sql_is_formula, sql_quoted
        cells = FormulaCells(policy, str(path))
        columns = list(plan.columns)
        # a column whose cells are all drawn from known labels none of which is a formula
        # holds no formula cell: only the others are scanned (none, no scan)
        scanned = [c for c in columns if not labels_without_formulas(plan, c)]
        counts = dict.fromkeys(columns, 0)
        if scanned:
            probe = (self.release_query(plan, empty_as_null=True, formula_probe=True)
                     if plan.scrubbed else sql)
            counts.update(zip(scanned, self._run("SELECT " + ", ".join(
                f"count(*) FILTER (WHERE {sql_is_formula(ident(c))})" for c in scanned)
                + f" FROM ({probe})", "release", None)[0]))
        for c, n in counts.items():
            if n:  # a stand-in formula label shown by n cells: counted, or refused
                cells.labels(c, ["="], [int(n)])
        if not cells.neutralised:
            return sql, cells.to_dict()
        select = ", ".join(f"{sql_quoted(ident(c))} AS {ident(c)}" for c in columns)
        return f"SELECT {select} FROM ({sql})", cells.to_dict()

    def _pseudonym_functions(self, plan: ReleasePlan) -> dict[str, str]:
        """Register a vectorized function per pseudonymized column (the key, read now,
        lives in its closure only: never in SQL text, never on disk) and return the
        SQL calling each."""
        import pyarrow as pa

        from engine.pseudonyms import hmac_digests, load_key, mask_values
        def vectorized(make):  # DuckDB passes one Arrow array per call
            def udf(array):
                return pa.array(list(make(array.to_pylist())), type=pa.string())
            return udf

        calls = {}
        for i, (name, spec, base_dir) in enumerate(plan.pseudonyms):
            if spec.method == "mask":
                udf = vectorized(lambda v, s=spec: mask_values(v, s.keep, s.mask_char))
            else:
                key = load_key(spec, base_dir, name)
                udf = vectorized(lambda v, k=key, n=spec.length: hmac_digests(v, k, n))
            fn = f"__pseudo{i}"
            self._forget(fn)
            self.con.create_function(fn, udf, ["VARCHAR"], "VARCHAR", type="arrow")
            calls[name] = f"{fn}({ident(name)})"
        return calls

    def _check_pseudonyms(self, plan: ReleasePlan) -> None:
        """Refuse, before writing, keyed pseudonyms two distinct values would share (as
        the in-memory release does): their distinct values counted against their
        distinct pseudonyms, in one more scan."""
        from engine.pseudonyms import shared_pseudonym
        for i, (name, spec, _) in enumerate(plan.pseudonyms):
            if spec.method == "mask":
                continue
            sql = (f"SELECT count(*) - count(DISTINCT __p) FROM (SELECT __pseudo{i}(v) AS __p "
                   f"FROM (SELECT DISTINCT coalesce(CAST({ident(name)} AS VARCHAR), '') AS v "
                   f"FROM {self.scan()}) WHERE v <> '')")
            if self._run(sql, "release", None)[0][0]:
                raise DataError(f"attribute '{name}': {shared_pseudonym(spec.length)}")

    def _forget_pseudonyms(self, plan: ReleasePlan) -> None:
        with self._lock:
            for i in range(len(plan.pseudonyms)):
                self._forget(f"__pseudo{i}")

    def _forget(self, fn: str) -> None:
        try:
            self.con.remove_function(fn)
        except Exception:  # not registered
            pass

    def release_counts(self, plan: ReleasePlan, columns: list[str],
                       progress: PhaseProgress | None = None) -> EncodedTable:
        missing = [c for c in columns if c not in plan.columns]
        if missing:
            raise DataError(f"'{missing[0]}' is not a released column (released: "
                            f"{', '.join(plan.columns)})")
        cols = ", ".join(ident(c) for c in columns)
        with self._lock:
            sql = self.release_query(plan, empty_as_null=False)
            result = self._run(f"SELECT {cols}, count(*) AS __w FROM ({sql}) GROUP BY {cols}",
                               "aggregate", progress, _numpy)
        return frequency_columns({c: result[c] for c in columns},
                                 np.asarray(result["__w"], dtype=np.int64), list(plan.columns))

    def suppressed_rows(self, plan: ReleasePlan) -> np.ndarray:
        with self._lock:  # the query's types and variables are the connection's
            sql = self.release_query(plan, empty_as_null=False, suppressed_rows=True)
            result = self._run(sql, "release", None, _numpy)
        return np.asarray(result["__row"], dtype=np.int64)

    def release_pairs(self, plan: ReleasePlan, columns: list[str],
                      progress: PhaseProgress | None = None
                      ) -> tuple[EncodedTable, EncodedTable]:
        """The input's and the release's tables of ``columns`` (quasi-identifiers and
        columns released as they are) counted in one scan of the release query: per
        distinct input combination and suppression its records; the two tables are
        row-aligned (the released labels of each row's input values)."""
        qi_index = {q: j for j, q in enumerate(plan.qis)}
        select = [f"__c{qi_index[c]} AS {ident(c)}" if c in qi_index else ident(c)
                  for c in columns] + ["__s"]
        with self._lock:
            sql = self.release_query(plan, empty_as_null=False, outer=select)
            result = self._run(f"SELECT *, count(*) AS __w FROM ({sql}) GROUP BY ALL",
                               "aggregate", progress, _numpy)
        weights = np.asarray(result["__w"], dtype=np.int64)
        suppressed = np.asarray(result["__s"], dtype=bool)
        before, after = {}, {}
        for c in columns:
            if c in qi_index:
                j, codes = qi_index[c], np.asarray(result[c], dtype=np.int64)
                before[c] = np.asarray(plan.values[j], dtype=object)[codes]
                after[c] = np.where(suppressed, plan.marker,
                                    np.asarray(plan.labels[j], dtype=object)[codes])
            else:
                before[c] = after[c] = np.asarray(result[c], dtype=object)
        names = list(plan.columns)
        return (frequency_columns(before, weights, names),
                frequency_columns(after, weights, names))

    def release_query(self, plan: ReleasePlan, empty_as_null: bool,
                      suppressed_rows: bool = False, outer: list[str] | None = None,
                      formula_probe: bool = False) -> str:
        """SELECT writing the released table in input order (single-table query);
        ``outer`` replaces its select list (``__c{j}``: quasi-identifier ``j``'s input
        code, ``__s``: the record is suppressed, other columns by name).
        ``formula_probe``: for counting formula cells only, a scrubbed column is scrubbed
        only where its text begins like a formula (``engine.formulas.sql_starts_formula``:
        the others cannot become one), else ''."""
        qi_index = {q: j for j, q in enumerate(plan.qis)}
        for j in range(len(plan.qis)):
            self._enum(f"__v{j}", [str(v) for v in plan.values[j]])
            self._variable(f"__lab{j}", [str(x) for x in plan.labels[j]], "VARCHAR")
            self._variable(f"__gen{j}", [int(x) for x in plan.gen[j]], "BIGINT")
        strides = plan.key_strides()
        if strides is None:
            raise DataError("the quasi-identifiers' generalized values do not fit a 62-bit "
                            "key for the out-of-core release: use [engine] backend = "
                            "\"memory\"")
        gens = [f"getvariable('__gen{j}')[__c{j} + 1]" for j in range(len(plan.qis))]
        key = " + ".join(f"{g} * {int(s)}" for g, s in zip(gens, strides)) or "0"
        sup = self._membership(plan.suppressed_keys())
        recoded = {name: i for i, (name, _, _) in enumerate(plan.recoded)}
        for i, (_, values, coded) in enumerate(plan.recoded):
            self._enum(f"__rv{i}", [str(v) for v in values])
            self._variable(f"__rl{i}", [str(x) for x in coded], "VARCHAR")
        aggregated = {name: self._lookup(f"__agg{i}", plan.class_keys(gen), labels)
                      for i, (name, gen, labels) in enumerate(plan.aggregated)}
        pseudonyms = {} if suppressed_rows else self._pseudonym_functions(plan)
        scrubs, scrub_inputs = ({}, {}) if suppressed_rows else scrub_functions(self, plan)
        numbered = suppressed_rows or plan.sample is not None or \
            plan.subset_rows is not None
        inner = ["row_number() OVER () - 1 AS __row"] if numbered else []
        where = self._subset_filter(plan, inner)
        if plan.sample is not None:  # records outside the sample are written suppressed
            sup = f"({sup} OR NOT {self._sample_test(plan.sample, '__row')})"
        for c in self.columns():
            if c in qi_index:
                j = qi_index[c]
                inner.append(f"enum_code(CAST(coalesce(CAST({ident(c)} AS VARCHAR), '') "
                             f"AS __v{j})) AS __c{j}")
            elif c in recoded:
                i = recoded[c]
                inner.append(f"enum_code(CAST(coalesce(CAST({ident(c)} AS VARCHAR), '') "
                             f"AS __rv{i})) AS __r{i}")
            elif c in plan.columns and c not in aggregated:
                inner.append(as_text(c))
        for extra in scrub_inputs.values():  # the rows' own identifying numbers
            inner.extend(extra)
        wrap = (lambda e: f"nullif({e}, '')") if empty_as_null else (lambda e: e)
        outer = list(outer or [])
        for c in plan.columns if not outer else ():
            if c in aggregated:  # the class's aggregate (a QI's value takes no part)
                outer.append(wrap(f"CASE WHEN __s THEN {literal(plan.marker)} ELSE "
                                  f"{aggregated[c]} END") + f" AS {ident(c)}")
            elif c in recoded:
                outer.append(wrap(f"getvariable('__rl{recoded[c]}')[__r{recoded[c]} + 1]")
                             + f" AS {ident(c)}")
            elif c in pseudonyms:
                outer.append(wrap(pseudonyms[c]) + f" AS {ident(c)}")
            elif c in scrubs and formula_probe:
                from engine.formulas import sql_starts_formula
                outer.append(wrap(f"CASE WHEN {sql_starts_formula(ident(c))} THEN "
                                  f"{scrubs[c]} ELSE '' END") + f" AS {ident(c)}")
            elif c in scrubs:
                outer.append(wrap(scrubs[c]) + f" AS {ident(c)}")
            elif c in qi_index:
                j = qi_index[c]
                outer.append(wrap(f"CASE WHEN __s THEN {literal(plan.marker)} ELSE "
                                  f"getvariable('__lab{j}')[__c{j} + 1] END") + f" AS {ident(c)}")
            else:
                outer.append(wrap(ident(c)) + f" AS {ident(c)}")
        records = f"(SELECT * FROM (SELECT {', '.join(inner) or '1 AS __none'} FROM " \
                  f"{self.scan()}){where})"
        if suppressed_rows:  # their row numbers, in order, instead of the records
            return (f"SELECT __row FROM (SELECT __row, {sup} AS __s FROM (SELECT *, {key} AS "
                    f"__k FROM {records})) WHERE __s ORDER BY __row")
        return (f"SELECT {', '.join(outer)} FROM (SELECT *, {sup} AS __s FROM "
                f"(SELECT *, {key} AS __k FROM {records}))")

    def _subset_filter(self, plan: ReleasePlan, inner: list[str]) -> str:
        """The WHERE clause keeping a subset job's research subset (`ReleasePlan`), adding
        what it tests to ``inner``; "" for a release of every record. The registered
        rows or keys are the connection's (callers hold its lock)."""
        if plan.subset_rows is not None:
            self.con.register("__release_rows", pd.DataFrame(
                {"i": np.asarray(plan.subset_rows, dtype=np.int64)}))
            return " WHERE __row IN (SELECT i FROM __release_rows)"
        if plan.subset_keys is None:
            return ""
        from engine.backends.base import SUBSET_SEPARATOR
        self.con.register("__release_keys", pd.DataFrame(
            {"k": pd.Series(list(plan.subset_keys), dtype=object)}))
        parts = [f"coalesce(CAST({ident(c)} AS VARCHAR), '')" for c in plan.subset_columns]
        inner.append(f"concat_ws({literal(SUBSET_SEPARATOR)}, {', '.join(parts)}) AS __subset")
        return " WHERE __subset IN (SELECT k FROM __release_keys)"

    def _membership(self, keys: np.ndarray) -> str:
        """A SQL condition on ``__k``: whether it is one of ``keys`` (suppressed classes),
        by a vectorized function: a binary search of the sorted keys per batch of
        records (no join, which would lose the order; constant lists looked up per
        record cost DuckDB a copy of the list per batch)."""
        import pyarrow as pa
        keys = np.unique(np.asarray(keys, dtype=np.int64))
        if len(keys) == 0:
            return "false"

        def udf(batch):
            k = np.asarray(batch.to_numpy(zero_copy_only=False), dtype=np.int64)
            return pa.array(keys[np.minimum(np.searchsorted(keys, k), len(keys) - 1)] == k)

        self._forget("__suppressed")
        self.con.create_function("__suppressed", udf, ["BIGINT"], "BOOLEAN", type="arrow")
        return "__suppressed(__k)"

    def _lookup(self, name: str, keys: np.ndarray, labels) -> str:
        """A SQL expression: the label of class key ``__k`` among ``keys`` ('' for
        another key): a vectorized function (a binary search of the sorted keys per batch
        of records; constant lists looked up per record cost DuckDB a copy per batch)."""
        import pyarrow as pa
        import pyarrow.compute as pc
        keys = np.asarray(keys, dtype=np.int64)
        if len(keys) == 0:
            return "''"
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
        texts = pa.array([str(x) for x in np.asarray(labels, dtype=object)[order]],
                         type=pa.string())

        def udf(batch):
            k = np.asarray(batch.to_numpy(zero_copy_only=False), dtype=np.int64)
            at = np.minimum(np.searchsorted(keys, k), len(keys) - 1)
            return pc.if_else(pa.array(keys[at] == k), texts.take(pa.array(at)), "")

        self._forget(name)
        self.con.create_function(name, udf, ["BIGINT"], "VARCHAR", type="arrow")
        return f"{name}(__k)"

    def _enum(self, name: str, values: list[str]) -> None:
        with self._lock:
            self._enum_locked(name, values)

    def _enum_locked(self, name: str, values: list[str]) -> None:
        frame = pd.DataFrame({"i": np.arange(len(values)), "v": pd.Series(values, dtype=object)})
        self.con.register("__values", frame)
        try:
            self.con.execute(f"DROP TYPE IF EXISTS {name}").fetchall()
            self.con.execute(f"CREATE TYPE {name} AS ENUM "
                             f"(SELECT v FROM __values ORDER BY i)").fetchall()
        finally:
            self.con.unregister("__values")
        got = self.con.execute(f"SELECT enum_range(NULL::{name})").fetchall()[0][0]
        if list(got) != values:  # codes must be the dictionary's
            raise DataError(f"DuckDB reordered the values of {name}")

    def _variable(self, name: str, values: list, sql_type: str) -> None:
        with self._lock:
            self._variable_locked(name, values, sql_type)

    def _variable_locked(self, name: str, values: list, sql_type: str) -> None:
        frame = pd.DataFrame({"i": np.arange(len(values)), "v": pd.Series(values, dtype=object)})
        self.con.register("__values", frame)
        try:
            self.con.execute(f"SET VARIABLE {name} = (SELECT coalesce(list(CAST(v AS {sql_type}) "
                             f"ORDER BY i), []) FROM __values)").fetchall()
        finally:
            self.con.unregister("__values")

    # --- released files (verify) -------------------------------------------------
    def class_sizes(self, columns: list[str]) -> pd.DataFrame:
        """Records per distinct combination of ``columns`` (the source read as text)."""
        cols = ", ".join(ident(c) for c in columns)
        inner = ", ".join(as_text(c) for c in columns)
        sql = (f"SELECT {cols}, count(*) AS __w FROM (SELECT {inner} FROM {self.scan()}) "
               f"GROUP BY {cols} ORDER BY {cols}")
        return self._run(sql, "count", None, _frame)

    def close(self) -> None:
        self._cleanup()


def _numpy(result):
    return result.fetchnumpy()


def _frame(result) -> pd.DataFrame:
    return result.df()


def _release(con, folder: str) -> None:
    """Close a connection and remove its spill folder."""
    try:
        con.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
