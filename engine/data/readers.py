"""Every kind of data file the app and job files read, as DataFrames of strings.

One implementation for the import wizard (``engine.data.sources``) and job files
(``[data] path`` / ``url``, ``engine.project.job_file``): Excel through calamine
(openpyxl without python-calamine; .xls through xlrd), Parquet through pyarrow (one
file or a pattern of parts), SPSS / Stata / SAS through pyreadstat (value labels applied: the values a
steward sees), databases through SQLAlchemy URLs (or Python's sqlite3 for a SQLite
file when SQLAlchemy is not installed). Delimited text stays with
``engine.data.csv_import``. Every failure is a ``DataError`` naming the file.
"""
from __future__ import annotations

import glob
import os
import sqlite3
from pathlib import Path

import pandas as pd

from engine.data.sniff import (CSV_SUFFIXES, EXCEL_SUFFIXES, KINDS,  # noqa: F401
                               PARQUET_SUFFIXES, SQLITE_SUFFIXES, STATISTICAL_SUFFIXES,
                               binary_kind, describe, guess_kind)
from engine.data.files import is_glob
from engine.errors import DataError

#: the environment variable a database URL's password may come from (never the job file)
PASSWORD_VARIABLE = "ANONYMIST_DB_PASSWORD"


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


def _existing(path: str | Path) -> Path:
    path = Path(path)
    if path.is_dir():
        raise DataError(f"{path} is a folder, not a data file")
    if not path.exists():
        raise DataError(f"data file not found: {path}")
    return path


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


def _xlsx_engine() -> str:
    """calamine (Rust, about 8x faster on Adult; the same strings, a test holds them equal)
    when python-calamine is installed, else openpyxl."""
    try:
        import python_calamine  # noqa: F401
    except ImportError:
        return "openpyxl"
    return "calamine"


def read_excel(path: str | Path, sheet: str | None = None, has_header: bool = True,
               n_rows: int | None = None) -> pd.DataFrame:
    """A workbook's sheet (None or "": the first) as strings."""
    if not sheet:
        sheets = excel_sheets(_existing(path))
        if not sheets:
            raise DataError(f"{Path(path).name} has no sheets")
        sheet = sheets[0]
    if _is_xls(path):
        return _read_xls(path, sheet, has_header, n_rows)
    try:
        df = pd.read_excel(path, sheet_name=sheet, header=0 if has_header else None,
                           dtype=object, nrows=n_rows, engine=_xlsx_engine())
    except ImportError:
        raise DataError("reading Excel files needs the openpyxl package") from None
    except FileNotFoundError:
        raise DataError(f"data file not found: {path}") from None
    except ValueError as e:
        if "not found" in str(e).lower():
            raise DataError(f"{Path(path).name} has no sheet '{sheet}' (its sheets: "
                            f"{', '.join(excel_sheets(path))})") from None
        raise DataError(f"{Path(path).name}, sheet '{sheet}': {e}") from None
    except Exception as e:
        raise DataError(f"{Path(path).name}, sheet '{sheet}': {e}") from None
    if not has_header:
        df.columns = [f"column{i + 1}" for i in range(df.shape[1])]
    return _strings(df)


# --- Parquet -------------------------------------------------------------------------------
def parquet_parts(location: str | Path) -> list[Path]:
    """The files a Parquet location names: the file itself, or the parts a pattern such
    as ``/data/part-*.parquet`` matches, in name order (as the backends read them); a
    pattern that matches no file, or files other than Parquet, is a DataError."""
    text = str(location)
    if not is_glob(text):
        return [Path(text)]
    files = sorted(glob.glob(text))
    if not files:
        raise DataError(f"no file matches the pattern {text}")
    if any(Path(f).suffix.lower() not in PARQUET_SUFFIXES for f in files):
        raise DataError(f"the pattern {text} matches files that are not Parquet "
                        f"(.parquet, .pq): read the parts by a pattern such as "
                        f"{parquet_pattern(Path(text).parent)}")
    return [Path(f) for f in files]


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


# --- SPSS, Stata, SAS --------------------------------------------------------------------
_STATISTICAL_NAMES = {"spss": "an SPSS .sav", "stata": "a Stata .dta",
                      "sas": "a SAS .sas7bdat", "xport": "a SAS transport .xpt"}


def read_statistical(path: str | Path, kind: str | None = None,
                     n_rows: int | None = None) -> pd.DataFrame:
    """An SPSS, Stata or SAS file's rows as strings: value labels applied (a coded 1
    whose label is "female" reads "female"), dates as ISO dates, missing values "".

    ``kind``: "spss", "stata", "sas" or "xport" (None: by the file's suffix)."""
    path = _existing(path)
    kind = kind or guess_kind(path)
    try:
        import pyreadstat
    except ImportError:
        raise DataError(f"reading {path.name} needs the pyreadstat package "
                        f"(pip install pyreadstat)") from None
    read = {"spss": pyreadstat.read_sav, "stata": pyreadstat.read_dta,
            "sas": pyreadstat.read_sas7bdat, "xport": pyreadstat.read_xport}.get(kind)
    if read is None:
        raise DataError(f"{path.name}: '{kind}' is not a statistical file kind")
    options = {"row_limit": n_rows} if n_rows is not None else {}
    if kind in ("spss", "stata"):  # formats of SAS files live in separate catalogs
        options["apply_value_formats"] = True
    try:
        df, _ = read(str(path), **options)
    except Exception as e:  # noqa: BLE001 - pyreadstat raises ReadstatError and others
        raise DataError(f"{path.name} cannot be read as {_STATISTICAL_NAMES[kind]} file: "
                        f"{e}") from None
    return _strings(df)


# --- databases ---------------------------------------------------------------------------
def _url(location: str, password: str = "") -> str:
    """The SQLAlchemy URL of a location, with ``password`` filled in (it is kept only in
    memory: locations, projects and messages never hold it)."""
    if "://" not in location:
        return f"sqlite:///{Path(location).resolve()}"
    return with_password(location, password)


def with_password(url: str, password: str) -> str:
    """A database ``url`` with ``password`` filled in ("": as it is)."""
    if not password:
        return url
    from sqlalchemy.engine import make_url
    return make_url(url).set(password=password).render_as_string(hide_password=False)


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


def _check_sqlite_file(location: str) -> None:
    """A SQLite location that is no file is named as such (SQLAlchemy would create it)."""
    path = _sqlite_path(location)
    if path is None or str(path) in ("", ":memory:"):
        return
    if path.is_dir():
        raise DataError(f"database {path} is a folder, not a SQLite file")
    if not path.exists():
        raise DataError(f"database file not found: {path}")
    kind = binary_kind(path)
    if kind is not None and kind != "sql":
        raise DataError(f"{path.name} is not a SQLite database: it is {describe(kind)}")


def database_tables(location: str, password: str = "") -> list[str]:
    """Table names of a database (SQLAlchemy URL or SQLite file)."""
    _check_sqlite_file(location)
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
            raise DataError(f"cannot open database {without_password(location)}: "
                            f"{e}") from None
    path = _sqlite_path(location)
    if path is None:
        raise DataError("database URLs other than SQLite need the SQLAlchemy package")
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as con:
            rows = con.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
    except sqlite3.DatabaseError as e:
        raise DataError(f"{path.name} is not a readable SQLite database: {e}") from None
    return sorted(r[0] for r in rows)


def read_database(location: str, table: str = "", n_rows: int | None = None,
                  password: str = "", query: str = "") -> pd.DataFrame:
    """A table's rows, or a query's (``query`` instead of ``table``), as strings."""
    if bool(table) == bool(query):
        raise DataError(f"reading {without_password(location)} needs a table or a query "
                        f"(one of them)")
    _check_sqlite_file(location)
    if query:
        sql = query if n_rows is None else \
            f"SELECT * FROM ({query}) AS anonymist_query LIMIT {int(n_rows)}"
        what = "the query"
    else:
        limit = f" LIMIT {int(n_rows)}" if n_rows is not None else ""
        sql = f"SELECT * FROM {_quote(table)}{limit}"
        what = f"table '{table}'"
    try:
        import sqlalchemy as sa
    except ImportError:
        sa = None
    try:
        if sa is not None:
            engine = sa.create_engine(_url(location, password))
            try:
                with engine.connect() as con:
                    df = pd.read_sql_query(sa.text(sql), con)
            finally:
                engine.dispose()
        else:
            path = _sqlite_path(location)
            if path is None:
                raise DataError("database URLs other than SQLite need the SQLAlchemy package")
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as con:
                df = pd.read_sql_query(sql, con)
    except DataError:
        raise
    except Exception as e:
        message = str(e).split("\n")[0][:300]
        if table and "no such table" in message.lower():
            try:
                known = ", ".join(database_tables(location, password)) or "none"
            except DataError:
                known = "unknown"
            message += f" (its tables: {known})"
        raise DataError(f"cannot read {what} from {without_password(location)}: "
                        f"{message}") from None
    return _strings(df)


def environment_password(location: str) -> str:
    """A database server URL's password from ``$ANONYMIST_DB_PASSWORD`` (job files never
    hold one): "" when the URL needs none or the variable is unset."""
    if not needs_password("sql", location):
        return ""
    return os.environ.get(PASSWORD_VARIABLE, "")


# --- one entry point for files -------------------------------------------------------------
def read_file(path: str | Path, kind: str | None = None, sheet: str | None = None,
              table: str = "", query: str = "", n_rows: int | None = None) -> pd.DataFrame:
    """A data file other than delimited text as a DataFrame of strings: a workbook's
    ``sheet`` (None: the first), a Parquet file or pattern of parts, an SPSS / Stata /
    SAS file, or a SQLite file's ``table`` or ``query``. ``kind`` None: by the name."""
    kind = kind or guess_kind(path)
    if kind == "parquet":
        if not is_glob(str(path)):
            _existing(path)
        return read_parquet(path, n_rows)
    if kind == "excel":
        return read_excel(_existing(path), sheet, True, n_rows)
    if kind in _STATISTICAL_NAMES:
        return read_statistical(path, kind, n_rows)
    if kind == "sql":
        return read_database(str(_existing(path)), table, n_rows, query=query)
    raise DataError(f"{Path(path).name}: '{kind}' is read as delimited text "
                    f"(engine.data.csv_import), not here")
