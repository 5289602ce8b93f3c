"""The records out of core in the order of a column (a click on the data table's header).

``SortedRows.sort(column, ascending, data_type)`` has DuckDB write the records' row
numbers in that order once, to a Parquet file in its temporary folder (only the
column and the row numbers are sorted: 10 M rows in about 7 s, where sorting every
column took 45-65 s); ``page(start, count, order)`` then reads that file's row
numbers at those positions and the records at those numbers, by their position
in the Parquet file holding them (``file_row_number``: a CSV file's Parquet copy,
or the Parquet input itself, each part's rows after the parts before it).

The order is the in-memory tables': ``value_ranks`` of the column's distinct values
for its data type (``display_type``: the declared one, else the values' best; numbers and dates by value, intervals by their bounds, then text,
``*``, missing), descending its reverse, records of equal value in file order. A
column of more than ``SORT_RANKS_MAX`` distinct values is ordered by DuckDB alone
(numbers by value, then text, ``*``, missing).
"""
from __future__ import annotations

import itertools
from pathlib import Path

import pandas as pd

from engine.errors import DataError

#: orders kept at once (the one shown and the one before it)
SORTED_KEEP = 2
#: above this many distinct values a column is ordered by DuckDB alone, not by
#: ``value_ranks`` of its distinct values in Python
SORT_RANKS_MAX = 1_000_000


class SortedRows:
    """Orders of the records of an ``engine.backends.browse.OutOfCoreData`` (its base class)."""

    def _init_orders(self) -> None:
        #: each order's file of row numbers ({(column, ascending): Parquet file})
        self._sorted: dict[tuple[str, bool], Path] = {}
        self._sort_cursor = None  # the sort being written (interrupted by a new one)
        self._sort_files = itertools.count()
        #: the column of a sorted page holding each record's row number (0-based)
        self.row_column = "__row"
        while self.row_column in self._names:
            self.row_column = "_" + self.row_column

    def _numbered(self, columns: list[str]) -> str:
        """A subquery of ``columns`` as text with each record's row number (``__row``,
        0-based, as the backend numbers the records), read from Parquet by position."""
        from engine.backends.duckdb_backend import as_text, ident, literal
        if self._pages is not None:  # a CSV file's copy: already text
            files, offsets, text = [self._pages], [0], False
        elif self.kind == "parquet":
            import pyarrow.parquet as pq
            files = list(self.source.files)
            sizes = [pq.ParquetFile(f).metadata.num_rows for f in files]
            offsets = list(itertools.accumulate([0, *sizes[:-1]]))
            text = True
        else:
            raise DataError(f"{self.label}: sorting reads the Parquet copy of the file, "
                            f"which could not be made (is the temporary folder full?)")
        names = ", ".join(literal(str(f)) for f in files)
        cols = ", ".join(as_text(c) if text else ident(c) for c in columns)
        if {"file_row_number", "filename"} & set(self._names):
            # DuckDB's position columns would clash with the data's: numbered by a scan
            return (f"(SELECT {cols}, row_number() OVER () - 1 AS __row FROM read_parquet("
                    f"[{names}]))")
        start = ("0" if len(files) == 1 else "CASE filename " + " ".join(
            f"WHEN {literal(str(f))} THEN {o}" for f, o in zip(files, offsets)) + " END")
        return (f"(SELECT {cols}, file_row_number + {start} AS __row FROM read_parquet("
                f"[{names}], file_row_number = true, filename = true))")

    def sort(self, column: str, ascending: bool = True, data_type=None) -> tuple[str, bool]:
        """Write the order of the records by ``column`` (see the module's text) and
        return the ``order`` that ``page`` reads them in. A CSV file is sorted once its
        Parquet copy is made (``count_rows`` waits for it). ``cancel_sort`` interrupts
        it (DataError)."""
        from engine.backends.duckdb_backend import ident, literal
        if column not in self._names:
            raise DataError(f"{self.label} has no column '{column}'")
        key = (column, bool(ascending))
        if key in self._sorted:
            return key
        self._wait_for_copy()
        c = ident(column)
        desc = "" if ascending else " DESC"
        ranks = None
        source = f"{self._numbered([column])} d"
        if self.known_distinct(column) is not None or self._scalar(
                f"SELECT approx_count_distinct({c}) FROM {self._text_scan()}"
        ) <= SORT_RANKS_MAX:
            from engine.data.order import display_type, value_ranks
            values = self.distinct(column)["value"].to_numpy(dtype=object)
            ranks = pd.DataFrame({"value": values.astype(str), "rank": value_ranks(
                values, display_type(values, data_type))})
            source += f" LEFT JOIN __ranks r ON d.{c} = r.value"
            by = f"r.rank{desc}"
        else:  # too many values for Python: numbers by value, then text, '*', missing
            by = (f"(CASE d.{c} WHEN '' THEN 3 WHEN '*' THEN 2 ELSE CASE WHEN "
                  f"TRY_CAST(d.{c} AS DOUBLE) IS NULL THEN 1 ELSE 0 END END){desc}, "
                  f"TRY_CAST(d.{c} AS DOUBLE){desc}, d.{c}{desc}")
        target = self.backend.temp_dir / f"order-{next(self._sort_files)}.parquet"
        cur = self._cursor()
        self._sort_cursor = cur
        try:
            if ranks is not None:
                cur.register("__ranks", ranks)
            cur.execute(f"COPY (SELECT d.__row FROM {source} ORDER BY {by}, d.__row) TO "
                        f"{literal(str(target))} (FORMAT parquet, ROW_GROUP_SIZE 100000)")
        except Exception as e:  # noqa: BLE001 - duckdb.Error and interrupts
            target.unlink(missing_ok=True)
            raise DataError(f"{self.label}: {str(e).splitlines()[0]}") from None
        finally:
            self._sort_cursor = None
            self._done(cur)
        self._sorted[key] = target
        while len(self._sorted) > SORTED_KEEP:
            old = next(iter(self._sorted))
            self._sorted.pop(old).unlink(missing_ok=True)
        return key

    def _sorted_page(self, order: tuple[str, bool], start: int, count: int) -> pd.DataFrame:
        """Rows ``start ..`` of ``order``: every column as text, and each record's row
        number in ``row_column``."""
        from engine.backends.duckdb_backend import ident, literal
        path = self._sorted.get(order)
        if path is None:
            raise DataError(f"{self.label}: the order by {order[0]} is gone")
        cur = self._cursor()
        try:
            rows = cur.execute(f"SELECT __row FROM read_parquet({literal(str(path))}) "
                               f"LIMIT {int(count)} OFFSET {int(start)}").df()["__row"]
            cur.register("__want", pd.DataFrame({"r": rows.to_numpy(), "i": range(len(rows))}))
            cols = ", ".join(f"n.{ident(c)}" for c in self._names)
            return cur.execute(
                f"SELECT {cols}, n.__row AS {ident(self.row_column)} FROM "
                f"{self._numbered(self._names)} n JOIN __want w ON n.__row = w.r "
                f"ORDER BY w.i").df()
        except Exception as e:  # noqa: BLE001 - duckdb.Error and interrupts
            raise DataError(f"{self.label}: {str(e).splitlines()[0]}") from None
        finally:
            self._done(cur)

    def cancel_sort(self) -> None:
        """Interrupt the sort being written, if any (it raises DataError)."""
        cur = self._sort_cursor
        if cur is not None:
            try:
                cur.interrupt()
            except Exception:  # noqa: BLE001 - ended meanwhile
                pass
