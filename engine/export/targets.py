"""Export targets of a released table: CSV (delimiter, quoting, encoding, line ending),
Excel (.xlsx), Parquet, and a new table in a database (SQLAlchemy).

`write_table` writes any target in batches, reporting ``progress(rows_written,
total_rows)`` and polling ``cancel()`` between batches; a cancelled or failed export
leaves nothing behind (files are written beside the target and renamed over it at
the end; a database table is filled under a staging name and renamed at the end).
`read_table` reads a target back as strings, for round trips and ``verify``.

Every value is written as text, exactly as the released table holds it; in CSV, a
cell a spreadsheet would run as a formula is quoted, refused or kept as
``CsvOptions.formula_cells`` says (``engine.formulas``), and `write_table` /
`write_released` return what was done (None for other formats).
"""
from __future__ import annotations

import csv
import os
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import Cancelled, DataError

if TYPE_CHECKING:
    import pandas as pd

ExportProgress = Callable[[int, int], None]
CancelCheck = Callable[[], bool]

QUOTING = {"minimal": csv.QUOTE_MINIMAL, "all": csv.QUOTE_ALL,
           "nonnumeric": csv.QUOTE_NONNUMERIC, "none": csv.QUOTE_NONE}
LINE_ENDINGS = {"lf": "\n", "crlf": "\r\n"}
FILE_FORMATS = {".csv": "csv", ".tsv": "csv", ".txt": "csv", ".xlsx": "xlsx",
                ".parquet": "parquet"}
BATCH_ROWS = 10_000


@dataclass(frozen=True)
class CsvOptions:
    delimiter: str = ";"
    quoting: str = "minimal"        # minimal | all | nonnumeric | none
    quotechar: str = '"'
    encoding: str = "utf-8"
    line_ending: str = "lf"         # lf | crlf
    #: cells a spreadsheet would run as formulas: quote | refuse | keep
    #: (engine.formulas.FORMULA_CELLS)
    formula_cells: str = "quote"

    def __post_init__(self):
        if len(self.delimiter) != 1:
            raise DataError(f"CSV delimiter must be one character, not {self.delimiter!r}")
        if self.quoting not in QUOTING:
            raise DataError(f"CSV quoting {self.quoting!r}: choose {' | '.join(QUOTING)}")
        if self.line_ending not in LINE_ENDINGS:
            raise DataError(f"CSV line ending {self.line_ending!r}: choose lf | crlf")
        try:
            "".encode(self.encoding)
        except LookupError:
            raise DataError(f"unknown encoding {self.encoding!r}") from None
        from engine.formulas import FORMULA_CELLS
        FORMULA_CELLS.check(self.formula_cells, "CSV")


@dataclass(frozen=True)
class FileTarget:
    path: Path
    format: str                      # csv | xlsx | parquet
    csv: CsvOptions = field(default_factory=CsvOptions)
    batch_rows: int = BATCH_ROWS

    def describe(self) -> str:
        return str(self.path)


@dataclass(frozen=True)
class DatabaseTarget:
    url: str
    table: str
    replace: bool = False
    batch_rows: int = BATCH_ROWS

    def describe(self) -> str:
        return f"{safe_url(self.url)} table {self.table}"


def file_target(path: str | Path, csv_options: CsvOptions | None = None,
                batch_rows: int = BATCH_ROWS) -> FileTarget:
    """The file target its extension names (.csv/.tsv/.txt, .xlsx, .parquet)."""
    path = Path(path)
    fmt = FILE_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise DataError(f"{path}: unknown output format '{path.suffix}' "
                        f"(use {', '.join(FILE_FORMATS)}, or a database URL)")
    return FileTarget(path, fmt, csv_options or CsvOptions(), batch_rows)


def safe_url(url: str) -> str:
    """A database URL with its password hidden, for messages."""
    try:
        from sqlalchemy.engine import make_url
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "<database URL>"


def write_table(frame: pd.DataFrame, target: FileTarget | DatabaseTarget,
                progress: ExportProgress | None = None,
                cancel: CancelCheck | None = None) -> dict | None:
    """Write ``frame`` (the released table) to ``target``; for CSV return what was done
    with formula cells (``FormulaCells.to_dict``), else None.

    Raises ``DataError`` with the target named when it cannot be written and
    ``Cancelled`` when ``cancel()`` returned True (nothing is left behind)."""
    frame = frame.astype(str)
    report = progress or (lambda done, total: None)
    stop = cancel or (lambda: False)
    if isinstance(target, DatabaseTarget):
        return _write_database(frame, target, report, stop)
    cells = None
    if target.format == "csv":
        from engine.formulas import FormulaCells
        cells = FormulaCells(target.csv.formula_cells, str(target.path))
        frame = frame.copy()
        for name in frame.columns:
            frame[name] = cells.frame_column(str(name), frame[name])
    writer = {"csv": _write_csv, "xlsx": _write_xlsx, "parquet": _write_parquet}[target.format]
    _atomic(target.path, lambda tmp: writer(frame, tmp, target, report, stop))
    return None if cells is None else cells.to_dict()


def write_released(released, target: FileTarget | DatabaseTarget,
                   progress: ExportProgress | None = None,
                   cancel: CancelCheck | None = None) -> dict | None:
    """Write a released table (``engine.output.ReleasedTable``) to ``target``, as
    `write_table` writes its DataFrame. CSV in a stateless encoding (utf-8, cp1252,
    latin-1, ascii) is written from the encoded columns, vectorized and chunk by chunk
    (``engine.data.csv_encoded``: the same bytes, no DataFrame of the whole table);
    Excel from the encoded columns too (``engine.export.xlsx``)."""
    from engine.data import csv_encoded
    released.check_identifiers()  # identifiers in a column released as it is: refused
    report = progress or (lambda done, total: None)
    stop = cancel or (lambda: False)
    if isinstance(target, FileTarget) and target.format == "xlsx":
        return _atomic(target.path, lambda tmp: _write_encoded_xlsx(
            released.names, released.n_rows, released.csv_column, tmp, target, report, stop))
    if not (isinstance(target, FileTarget) and target.format == "csv"
            and csv_encoded.supports(target.csv.encoding, len(released.names))):
        return write_table(released.frame, target, progress, cancel)
    from engine.formulas import FormulaCells
    cells = FormulaCells(target.csv.formula_cells, str(target.path))
    _atomic(target.path, lambda tmp: _write_encoded_csv(released, tmp, target, report, stop,
                                                        cells))
    return cells.to_dict()


def _write_encoded_csv(released, tmp: Path, target: FileTarget, report, stop,
                       cells) -> None:
    import numpy as np

    from engine.data.csv_encoded import CHUNK_ROWS, write_encoded_csv
    o = target.csv

    def column(name):  # each column's labels as written (formula cells: ``cells``)
        codes, labels = released.csv_column(name)
        if isinstance(codes, tuple):  # (every row's item, each item's code)
            rows, items = codes
            per_item = np.bincount(rows, minlength=len(items))
            per_label = np.bincount(items, weights=per_item, minlength=len(labels))
        else:
            per_label = np.bincount(codes, minlength=len(labels))
        return codes, np.asarray(cells.labels(name, labels, per_label), dtype=object)
    # the default batch is pandas' (small, for its per-row cost); Arrow joins larger chunks
    rows = CHUNK_ROWS if target.batch_rows == BATCH_ROWS else target.batch_rows
    with _csv_errors(target), open(tmp, "wb") as f:
        done = write_encoded_csv(
            f, released.names, released.n_rows, column,
            delimiter=o.delimiter, quoting=QUOTING[o.quoting], quotechar=o.quotechar,
            encoding=o.encoding, lineterminator=LINE_ENDINGS[o.line_ending],
            chunk_rows=rows, report=report, stop=stop)
        if not done:
            raise Cancelled("export cancelled")
        f.flush()
        os.fsync(f.fileno())


@contextmanager
def _csv_errors(target: FileTarget):
    """A value the encoding or the quoting cannot write is a DataError naming the file."""
    try:
        yield
    except UnicodeEncodeError as e:
        value = e.object[e.start:e.end]
        raise DataError(f"{target.path}: {value!r} cannot be written in "
                        f"{target.csv.encoding} (choose utf-8)") from None
    except csv.Error as e:
        raise DataError(f"{target.path}: {e} (a value holds the delimiter, quote or a line "
                        f"break: choose a quoting other than 'none')") from None


def _batches(n: int, size: int = BATCH_ROWS):
    for start in range(0, n, size):
        yield start, min(n, start + size)
    if n == 0:
        yield 0, 0


def _atomic(path: Path, write: Callable[[Path], None]) -> None:
    """Write through ``engine.io_utils.atomic_path``: beside the target, ordinary
    permissions, renamed over it at the end, removed on failure or cancel."""
    from engine.io_utils import atomic_path, check_output_folder
    if Path(path).is_dir():
        raise DataError(f"{path} is a folder: give a file name")
    check_output_folder("export to", Path(path), DataError)  # never created silently
    with atomic_path(path) as tmp:
        write(tmp)


def _write_csv(frame, tmp: Path, target: FileTarget, report, stop) -> None:
    o = target.csv
    with _csv_errors(target), open(tmp, "w", encoding=o.encoding, newline="") as f:
        for start, end in _batches(len(frame), target.batch_rows):
            frame.iloc[start:end].to_csv(
                f, sep=o.delimiter, index=False, header=start == 0,
                quoting=QUOTING[o.quoting], quotechar=o.quotechar,
                lineterminator=LINE_ENDINGS[o.line_ending])
            report(end, len(frame))
            if stop():
                raise Cancelled("export cancelled")
        f.flush()
        os.fsync(f.fileno())


def _write_xlsx(frame, tmp: Path, target: FileTarget, report, stop) -> None:
    """A DataFrame of strings as Excel: each column encoded, then `_write_encoded_xlsx`."""
    import pandas as pd

    def column(name):
        codes, labels = pd.factorize(frame[name], sort=False)
        return codes, [str(v) for v in labels]
    _write_encoded_xlsx(list(frame.columns), len(frame), column, tmp, target, report, stop)


def _write_encoded_xlsx(names, n_rows: int, column, tmp: Path, target: FileTarget, report,
                        stop) -> None:
    """One sheet ``anonymized`` of text cells (``engine.export.xlsx``), in chunks with
    progress; cancelled: ``Cancelled`` (the caller removes the file)."""
    from engine.export.xlsx import CHUNK_ROWS, write_encoded_xlsx
    from engine.data.csv_encoded import as_text

    def text_column(name):
        codes, labels = column(name)
        return codes, [str(t) for t in as_text(labels)]
    rows = CHUNK_ROWS if target.batch_rows == BATCH_ROWS else target.batch_rows
    if not write_encoded_xlsx(tmp, names, n_rows, text_column, where=str(target.path),
                              chunk_rows=rows, report=report, stop=stop):
        raise Cancelled("export cancelled")


def _write_parquet(frame, tmp: Path, target: FileTarget, report, stop) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    schema = pa.schema([(str(c), pa.string()) for c in frame.columns])
    with pq.ParquetWriter(tmp, schema) as writer:
        for start, end in _batches(len(frame), target.batch_rows):
            writer.write_table(pa.Table.from_pandas(frame.iloc[start:end], schema=schema,
                                                    preserve_index=False))
            report(end, len(frame))
            if stop():
                raise Cancelled("export cancelled")


def _write_database(frame, target: DatabaseTarget, report, stop) -> None:
    sa = _sqlalchemy()
    where = target.describe()
    if not target.table.strip():
        raise DataError("give the database table name to create")
    staging = f"{target.table}__anonymist_new"
    try:
        engine = sa.create_engine(target.url)
    except Exception as e:
        raise DataError(f"database URL {safe_url(target.url)}: {e}") from None
    try:
        with engine.connect() as conn:
            names = set(sa.inspect(conn).get_table_names())
        if target.table in names and not target.replace:
            raise DataError(f"{where} exists already: choose another table name, or allow "
                            f"replacing it (--replace-table)")
        meta = sa.MetaData()
        table = sa.Table(staging, meta, *[sa.Column(str(c), sa.Text) for c in frame.columns])
        columns = [str(c) for c in frame.columns]
        with engine.begin() as conn:
            table.drop(conn, checkfirst=True)
            table.create(conn)
        try:
            values = frame.to_numpy(dtype=object)
            for start, end in _batches(len(frame), target.batch_rows):
                if end > start:
                    with engine.begin() as conn:
                        conn.execute(table.insert(),
                                     [dict(zip(columns, row)) for row in values[start:end]])
                report(end, len(frame))
                if stop():
                    raise Cancelled("export cancelled")
            with engine.begin() as conn:
                prep = engine.dialect.identifier_preparer
                if target.table in names:
                    conn.execute(sa.text(f"DROP TABLE {prep.quote(target.table)}"))
                conn.execute(sa.text(f"ALTER TABLE {prep.quote(staging)} "
                                     f"RENAME TO {prep.quote(target.table)}"))
        except BaseException:
            with engine.begin() as conn:
                table.drop(conn, checkfirst=True)
            raise
    except sa.exc.SQLAlchemyError as e:
        detail = getattr(e, "orig", None) or e
        raise DataError(f"{where}: {type(detail).__name__}: {detail}") from None
    finally:
        engine.dispose()


def _sqlalchemy():
    try:
        import sqlalchemy
        import sqlalchemy.exc  # noqa: F401
    except ImportError:
        raise DataError("writing to a database needs the SQLAlchemy package") from None
    return sqlalchemy


def read_table(target: FileTarget | DatabaseTarget) -> pd.DataFrame:
    """Read a written target back: every value a string, missing values ``""``."""
    import pandas as pd
    if isinstance(target, DatabaseTarget):
        sa = _sqlalchemy()
        engine = sa.create_engine(target.url)
        try:
            with engine.connect() as conn:
                frame = pd.read_sql_table(target.table, conn)
        finally:
            engine.dispose()
    elif target.format == "csv":
        o = target.csv
        frame = pd.read_csv(target.path, sep=o.delimiter, quotechar=o.quotechar,
                            encoding=o.encoding, dtype=str, keep_default_na=False,
                            quoting=QUOTING[o.quoting] if o.quoting == "none" else 0)
        if o.formula_cells == "quote":  # the released values, not the quoted cells
            from engine.formulas import unquoted
            for name in frame.columns:
                marked = frame[name].str.startswith("'")
                if marked.any():
                    frame.loc[marked, name] = frame.loc[marked, name].map(unquoted)
    elif target.format == "xlsx":
        frame = _read_xlsx(target.path)
    else:
        frame = pd.read_parquet(target.path)
    return frame.astype(object).where(frame.notna(), "").astype(str)


def _read_xlsx(path: Path) -> pd.DataFrame:
    """A file Anonymist wrote is read vectorized (``engine.export.xlsx.read_own_xlsx``),
    any other by openpyxl."""
    from engine.export.xlsx import read_own_xlsx
    own = read_own_xlsx(path)
    if own is not None:
        return own
    import pandas as pd
    from openpyxl import load_workbook
    wb = load_workbook(path, read_only=True, data_only=True)
    try:
        rows = wb.worksheets[0].iter_rows(values_only=True)
        header = next(rows, ())
        data = [["" if v is None else str(v) for v in r] for r in rows]
    finally:
        wb.close()
    return pd.DataFrame(data, columns=[str(c) for c in header], dtype=object)
