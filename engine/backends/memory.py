"""The in-memory path's reader for Parquet data (CSV goes through ``engine.data.csv_import``).

Values are turned into text by DuckDB, as the DuckDB backend turns them, so a
Parquet file gives the same values (and the same release) on either path. The
text arrives as Arrow and becomes pandas categoricals directly (no Python string
per cell: 10 M rows of Adult took 8 GB as object columns), with sorted
categories, as the CSV reader builds them.
"""
from __future__ import annotations

import pandas as pd

from engine.backends.base import DataSource


def read_parquet(source: DataSource) -> pd.DataFrame:
    """Every column as categorical text, missing values as ``""``, in file order."""
    from engine.backends.duckdb_backend import DuckDBBackend, as_text
    backend = DuckDBBackend(source)
    try:
        names = backend.columns()
        table = backend.con.sql(
            f"SELECT {', '.join(as_text(c) for c in names)} FROM {backend.scan()}"
        ).to_arrow_table()
    finally:
        backend.close()
    frame = table.to_pandas(strings_to_categorical=True)
    del table
    for name in frame.columns:
        col = frame[name]
        if not isinstance(col.dtype, pd.CategoricalDtype):
            col = col.astype(str).astype("category")
        frame[name] = col.cat.reorder_categories(sorted(col.cat.categories))
    return frame
