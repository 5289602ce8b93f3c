"""The in-memory path's reader for Parquet data (CSV goes through ``engine.data.csv_import``).

Values are turned into text by DuckDB, as the DuckDB backend turns them, so a
Parquet file gives the same values (and the same release) on either path.
"""
from __future__ import annotations

import pandas as pd

from engine.backends.base import DataSource


def read_parquet(source: DataSource) -> pd.DataFrame:
    """Every column as categorical text, missing values as ``""``, in file order."""
    from engine.backends.duckdb_backend import DuckDBBackend, _as_text
    backend = DuckDBBackend(source)
    try:
        names = backend.columns()
        rel = backend.con.execute(
            f"SELECT {', '.join(_as_text(c) for c in names)} FROM {backend.scan()}")
        frame = rel.df()
    finally:
        backend.close()
    return frame.astype("category")
