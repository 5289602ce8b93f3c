"""The files of ``anonymist risk``: the per-record CSV and the summary JSON, written
atomically (docs/reference/risk-command.md)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from engine.io_utils import atomic_path, atomic_write_text

#: the per-record file's delimiter: a plain comma-separated file
PER_RECORD_DELIMITER = ","


def _clean(value):
    """JSON without NaN or infinities (null instead), numpy scalars as numbers."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    return value


def summary_json(summary: dict) -> str:
    """The summary as JSON text."""
    return json.dumps(_clean(summary), indent=2, allow_nan=False) + "\n"


def write_summary(summary: dict, path: Path) -> None:
    atomic_write_text(Path(path), summary_json(summary))


def write_per_record(per_record: pd.DataFrame, path: Path) -> None:
    """One row per record, in input order; numbers in full precision. Written by
    DuckDB's CSV writer, as the out-of-core path writes it (the same bytes; five
    times faster than pandas' for a million records)."""
    import duckdb
    con = duckdb.connect()
    try:
        con.execute("SET enable_progress_bar = false")
        con.register("__per_record", per_record)
        with atomic_path(path) as tmp:
            con.execute(f"COPY (SELECT * FROM __per_record) TO '{_quoted(tmp)}' "
                        f"(HEADER, DELIMITER '{PER_RECORD_DELIMITER}')")
    finally:
        con.close()


def _quoted(path: Path) -> str:
    return str(path).replace("'", "''")
