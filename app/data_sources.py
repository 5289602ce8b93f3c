"""Reading data from CSV, Excel, Parquet and databases into DataFrames of strings (Qt-free).

CSV goes through the engine's reader; Excel through openpyxl (read-only; .xls through
xlrd); Parquet through pyarrow;
databases through SQLAlchemy URLs, or Python's sqlite3 for a SQLite file when
SQLAlchemy is not installed. Every failure is a ``DataError`` with a message.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from engine.data.csv_import import CsvFormat, read_csv_preview
from engine.data.csv_import import read_csv as engine_read_csv
from engine.errors import DataError

EXCEL_SUFFIXES = (".xlsx", ".xlsm", ".xls")
PARQUET_SUFFIXES = (".parquet", ".pq")
SQLITE_SUFFIXES = (".sqlite", ".sqlite3", ".db")
CSV_SUFFIXES = (".csv", ".tsv", ".txt", ".dat")


def guess_kind(path: str | Path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in EXCEL_SUFFIXES:
        return "excel"
    if suffix in PARQUET_SUFFIXES:
        return "parquet"
    if suffix in SQLITE_SUFFIXES:
        return "sql"
    return "csv"


def _strings(df: pd.DataFrame) -> pd.DataFrame:
    """Every value as text; missing values as ""."""
    out = df.astype(object).where(df.notna(), "")
    for c in out.columns:
        out[c] = out[c].map(_text)
    out.columns = [str(c) for c in out.columns]
    return out


def _text(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if hasattr(v, "isoformat"):
        return v.isoformat(sep=" ") if hasattr(v, "hour") else v.isoformat()
    return str(v)


# --- Excel ---------------------------------------------------------------------------------
def _is_xls(path: str | Path) -> bool:
    return Path(path).suffix.lower() == ".xls"


def _xls_sheets(path: str | Path) -> list[str]:
    try:
        import xlrd
    except ImportError:
        raise DataError("reading .xls workbooks needs the xlrd package") from None
    try:
        book = xlrd.open_workbook(str(path), on_demand=True)
    except FileNotFoundError:
        raise DataError(f"file not found: {path}") from None
    except Exception as e:  # xlrd raises its own XLRDError and others for damaged files
        raise DataError(f"{Path(path).name} cannot be read as an .xls workbook: {e}") from None
    try:
        return list(book.sheet_names())
    finally:
        book.release_resources()


def excel_sheets(path: str | Path) -> list[str]:
    if _is_xls(path):
        return _xls_sheets(path)
    try:
        import openpyxl
    except ImportError:
        raise DataError("reading Excel files needs the openpyxl package") from None
    try:
        wb = openpyxl.load_workbook(path, read_only=True)
    except FileNotFoundError:
        raise DataError(f"file not found: {path}") from None
    except Exception as e:  # openpyxl raises many types for damaged files
        raise DataError(f"{Path(path).name} cannot be read as an Excel workbook: {e}") from None
    try:
        return list(wb.sheetnames)
    finally:
        wb.close()


def _read_xls(path: str | Path, sheet: str, has_header: bool,
              n_rows: int | None) -> pd.DataFrame:
    """An .xls sheet through xlrd itself (pandas is dropping its xlrd engine): numbers
    as text, dates as ISO dates, empty cells as ""."""
    try:
        import xlrd
    except ImportError:
        raise DataError("reading .xls workbooks needs the xlrd package") from None
    try:
        book = xlrd.open_workbook(str(path), on_demand=True)
        try:
            sh = book.sheet_by_name(sheet)
        except xlrd.biffh.XLRDError:
            raise DataError(f"{Path(path).name} has no sheet '{sheet}'") from None
        last = sh.nrows if n_rows is None else min(sh.nrows, n_rows + int(has_header))
        rows = []
        for r in range(last):
            row = []
            for cell in sh.row(r):
                if cell.ctype == xlrd.XL_CELL_DATE:
                    row.append(xlrd.xldate.xldate_as_datetime(cell.value, book.datemode))
                elif cell.ctype in (xlrd.XL_CELL_EMPTY, xlrd.XL_CELL_BLANK):
                    row.append(None)
                else:
                    row.append(cell.value)
            rows.append(row)
        book.release_resources()
    except DataError:
        raise
    except Exception as e:  # xlrd raises its own errors for damaged files
        raise DataError(f"{Path(path).name}, sheet '{sheet}': {e}") from None
    width = max((len(r) for r in rows), default=0)
    rows = [r + [None] * (width - len(r)) for r in rows]
    if has_header and rows:
        header, rows = [str(v) if v is not None else f"column{i + 1}"
                        for i, v in enumerate(rows[0])], rows[1:]
    else:
        header = [f"column{i + 1}" for i in range(width)]
    return _strings(pd.DataFrame(rows, columns=header, dtype=object))


def read_excel(path: str | Path, sheet: str, has_header: bool = True,
               n_rows: int | None = None) -> pd.DataFrame:
    if _is_xls(path):
        return _read_xls(path, sheet, has_header, n_rows)
    try:
        df = pd.read_excel(path, sheet_name=sheet, header=0 if has_header else None,
                           dtype=object, nrows=n_rows, engine="openpyxl")
    except ImportError:
        raise DataError("reading Excel files needs the openpyxl package") from None
    except Exception as e:
        raise DataError(f"{Path(path).name}, sheet '{sheet}': {e}") from None
    if not has_header:
        df.columns = [f"column{i + 1}" for i in range(df.shape[1])]
    return _strings(df)


# --- Parquet -------------------------------------------------------------------------------
def parquet_parts(location: str | Path) -> list[Path]:
    """The files a Parquet location names: the file itself, or the parts a pattern such
    as ``/data/part-*.parquet`` matches in the engine's order (its ``data_source``); a
    pattern that matches no file is a DataError naming it."""
    from engine.backends import data_source
    from engine.config import DataConfig, Job
    from engine.errors import JobError
    text = str(location)
    if not any(ch in text for ch in "*?["):
        return [Path(text)]
    import glob
    if not glob.glob(text):
        raise DataError(f"no file matches the pattern {text}")
    try:
        source = data_source(Job(data=DataConfig(text)), text)
    except JobError:
        source = None  # files of several kinds
    if source is None or source.kind != "parquet":
        raise DataError(f"the pattern {text} matches files that are not Parquet "
                        f"(.parquet, .pq): read the parts by a pattern such as "
                        f"{parquet_pattern(Path(text).parent)}")
    return list(source.files)


def parquet_pattern(folder: str | Path) -> str:
    """The pattern of a folder's Parquet parts (a Spark or DuckDB output folder)."""
    return str(Path(folder) / "*.parquet")


def read_parquet(path: str | Path, n_rows: int | None = None) -> pd.DataFrame:
    """A Parquet file's rows as strings (the first ``n_rows`` read batch by batch); a
    pattern of parts (``parquet_parts``): their rows one part after the other."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise DataError("reading Parquet files needs the pyarrow package") from None
    tables, seen = [], 0
    for part in parquet_parts(path):
        try:
            f = pq.ParquetFile(part)
            if n_rows is None:
                table = f.read()
            else:
                batches = []
                for batch in f.iter_batches(batch_size=max(1, min(n_rows, 65_536))):
                    batches.append(batch)
                    if seen + sum(b.num_rows for b in batches) >= n_rows:
                        break
                table = pa.Table.from_batches(batches, schema=f.schema_arrow)
        except FileNotFoundError:
            raise DataError(f"file not found: {part}") from None
        except Exception as e:  # pyarrow raises ArrowInvalid and others for damaged files
            raise DataError(f"{Path(part).name} cannot be read as Parquet: {e}") from None
        tables.append(table)
        seen += table.num_rows
        if n_rows is not None and seen >= n_rows:
            break
    try:
        table = tables[0] if len(tables) == 1 else pa.concat_tables(tables)
    except Exception as e:  # noqa: BLE001 - parts of other columns or types
        raise DataError(f"the parts of {path} do not hold the same columns: {e}") from None
    if n_rows is not None:
        table = table.slice(0, n_rows)
    return _strings(table.to_pandas())


# --- databases ---------------------------------------------------------------------------
def _url(location: str, password: str = "") -> str:
    """The SQLAlchemy URL of a location, with ``password`` filled in (it is kept only in
    memory: locations, projects and messages never hold it)."""
    if "://" not in location:
        return f"sqlite:///{Path(location).resolve()}"
    if password:
        from sqlalchemy.engine import make_url
        return make_url(location).set(password=password).render_as_string(hide_password=False)
    return location


def without_password(location: str) -> str:
    """``location`` with any password taken out of a database URL (what is shown and
    stored: ``postgresql://ann:secret@host/db`` becomes ``postgresql://ann@host/db``)."""
    if "://" not in location or "@" not in location:
        return location
    try:
        from sqlalchemy.engine import URL, make_url
        url = make_url(location)
    except Exception:  # noqa: BLE001 - not a URL SQLAlchemy knows: cut the userinfo by hand
        scheme, rest = location.split("://", 1)
        userinfo, _, host = rest.rpartition("@")
        return f"{scheme}://{userinfo.split(':', 1)[0]}@{host}"
    if url.password is None:
        return location
    return URL.create(url.drivername, url.username, None, url.host, url.port, url.database,
                      url.query).render_as_string(hide_password=False)


def needs_password(kind: str, location: str) -> bool:
    """Whether reading ``location`` again needs a password the user is asked for: a
    database server URL with a user name (its password is never stored)."""
    if kind != "sql" or "://" not in location or location.startswith("sqlite"):
        return False
    return "@" in location.split("://", 1)[1]


DIALECTS = (("postgresql", "PostgreSQL", "postgresql+psycopg2", 5432),
            ("mysql", "MySQL / MariaDB", "mysql+pymysql", 3306),
            ("mssql", "Microsoft SQL Server", "mssql+pyodbc", 1433))


def server_url(dialect: str, host: str, port: int | None, database: str, user: str) -> str:
    """A SQLAlchemy URL for a database server, without a password."""
    from sqlalchemy.engine import URL
    driver = next((d for key, _, d, _ in DIALECTS if key == dialect), None)
    if driver is None:
        raise DataError(f"unknown database kind '{dialect}'")
    if not host.strip() or not database.strip():
        raise DataError("give the server's host and the database name")
    return URL.create(driver, username=user.strip() or None, host=host.strip(),
                      port=port or None, database=database.strip()).render_as_string(
                          hide_password=False)


def _sqlite_path(location: str) -> Path | None:
    if "://" not in location:
        return Path(location)
    if location.startswith("sqlite:///"):
        return Path(location[len("sqlite:///"):])
    return None


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def database_tables(location: str, password: str = "") -> list[str]:
    """Table names of a database (SQLAlchemy URL or SQLite file)."""
    try:
        import sqlalchemy as sa
    except ImportError:
        sa = None
    if sa is not None:
        try:
            engine = sa.create_engine(_url(location, password))
            try:
                return sorted(sa.inspect(engine).get_table_names())
            finally:
                engine.dispose()
        except Exception as e:
            raise DataError(f"cannot open database {location}: {e}") from None
    path = _sqlite_path(location)
    if path is None:
        raise DataError("database URLs other than SQLite need the SQLAlchemy package")
    if not path.exists():
        raise DataError(f"database file not found: {path}")
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as con:
            rows = con.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
    except sqlite3.DatabaseError as e:
        raise DataError(f"{path.name} is not a readable SQLite database: {e}") from None
    return sorted(r[0] for r in rows)


def read_database(location: str, table: str, n_rows: int | None = None,
                  password: str = "") -> pd.DataFrame:
    limit = f" LIMIT {int(n_rows)}" if n_rows is not None else ""
    query = f"SELECT * FROM {_quote(table)}{limit}"
    try:
        import sqlalchemy as sa
    except ImportError:
        sa = None
    try:
        if sa is not None:
            engine = sa.create_engine(_url(location, password))
            try:
                with engine.connect() as con:
                    df = pd.read_sql_query(sa.text(query), con)
            finally:
                engine.dispose()
        else:
            path = _sqlite_path(location)
            if path is None:
                raise DataError("database URLs other than SQLite need the SQLAlchemy package")
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as con:
                df = pd.read_sql_query(query, con)
    except DataError:
        raise
    except Exception as e:
        raise DataError(f"cannot read table '{table}' from {location}: {e}") from None
    return _strings(df)


# --- one entry point ---------------------------------------------------------------------
@dataclass(frozen=True)
class ImportSpec:
    """What the import wizard decided: source, format, columns, data types."""

    kind: str
    location: str
    table: str = ""
    csv_format: CsvFormat | None = None
    has_header: bool = True
    columns: tuple[str, ...] = ()  # empty: all
    data_types: tuple[tuple[str, str | None, str | None], ...] = ()  # (column, type, format)
    #: (source name, imported name) of renamed columns, applied after ``columns``
    renames: tuple[tuple[str, str], ...] = ()
    #: the database password typed in the wizard: used to read, never stored or shown
    password: str = field(default="", repr=False, compare=False)


def read_source(kind: str, location: str, table: str = "", fmt: CsvFormat | None = None,
                has_header: bool = True, n_rows: int | None = None,
                password: str = "") -> pd.DataFrame:
    """Rows of a source as strings (all of them when ``n_rows`` is None)."""
    if kind == "csv":
        if fmt is None:
            return engine_read_csv(location) if n_rows is None else \
                read_csv_preview(location, CsvFormat(), n_rows)
        if n_rows is not None:
            return read_csv_preview(location, fmt, n_rows)
        return engine_read_csv(location, fmt.delimiter, fmt.encoding, fmt.quotechar,
                               fmt.has_header)
    if kind == "excel":
        return read_excel(location, table, has_header, n_rows)
    if kind == "sql":
        return read_database(location, table, n_rows, password)
    if kind == "parquet":
        return read_parquet(location, n_rows)
    raise DataError(f"unknown kind of data source '{kind}'")


def load(spec: ImportSpec) -> pd.DataFrame:
    """The whole table the spec describes, restricted to its columns."""
    df = read_source(spec.kind, spec.location, spec.table, spec.csv_format, spec.has_header,
                     password=spec.password)
    if spec.columns:
        missing = [c for c in spec.columns if c not in df.columns]
        if missing:
            raise DataError(f"column(s) not in the data: {', '.join(missing)}")
        df = df[list(spec.columns)]
    if spec.renames:
        names = dict(spec.renames)
        unknown = [c for c in names if c not in df.columns]
        if unknown:
            raise DataError(f"renamed column(s) not in the data: {', '.join(unknown)}")
        new = [names.get(c, c) for c in df.columns]
        if len(set(new)) < len(new):
            raise DataError(f"renaming gives two columns one name: {', '.join(new)}")
        df = df.set_axis(new, axis=1)
    if df.shape[1] == 0:
        raise DataError("no columns were selected")
    return df
