"""Reading data from CSV, Excel, Parquet, SPSS / Stata / SAS and databases into
DataFrames of strings: the import wizard's entry point.

The readers are the engine's (``engine.data.readers``, shared with job files;
CSV through ``engine.data.csv_import``); this module adds what the wizard decided
(``ImportSpec``) and reads it. Every failure is a ``DataError`` with a message.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from engine.data.csv_import import CsvFormat, read_csv_preview
from engine.data.csv_import import read_csv as engine_read_csv
from engine.data.readers import (CSV_SUFFIXES, DIALECTS, EXCEL_SUFFIXES,  # noqa: F401
                                 PARQUET_SUFFIXES, SQLITE_SUFFIXES, STATISTICAL_SUFFIXES,
                                 database_tables, excel_sheets, guess_kind, needs_password,
                                 parquet_parts, parquet_pattern, read_database, read_excel,
                                 read_parquet, read_statistical, server_url, without_password)
from engine.errors import DataError


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
    if kind in ("spss", "stata", "sas", "xport"):
        return read_statistical(location, kind, n_rows)
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
