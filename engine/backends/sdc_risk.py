"""The survey risk measures of a file too big for memory, counted by DuckDB.

Every measure of `engine.sdc` is a function of the frequency table of the
quasi-identifiers (each distinct key, its number of records and the sum of their
weights): the individual risk is one per key, SUDA2 finds MSUs only in keys of one
record, and the figures are sums over keys weighted by their counts. DuckDB counts
that table (GROUP BY) and the households (the product of ``1 - risk`` over each
household's records), then joins the per-key figures back to the records to write
the per-record file in input order, so that only the frequency table is in memory.
The figures equal the in-memory ones (``engine.sdc.measures.measure_risk``), which
tests/engine/test_sdc_risk_duckdb.py checks.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from engine.backends.base import DataSource
from engine.backends.duckdb_backend import DuckDBBackend, as_text, ident, literal
from engine.errors import DataError
from engine.io_utils import atomic_path
from engine.sdc.keys import DEFAULT_MISSING, encode_keys
from engine.sdc.measures import (DIS_FRACTION, RISKY_CELLS_DIMENSIONS, RISKY_CELLS_THRESHOLD,
                                 _ordered, check_options, household_summary, measure_keys)

_NUMBER = "TRY_CAST(trim({}) AS DOUBLE)"


def measure_risk_duckdb(path: str | Path, quasi_identifiers: Sequence[str],
                        weight: str | None = None, household: str | None = None,
                        method: str = "approx", threshold: float | None = None,
                        dis_fraction: float = DIS_FRACTION,
                        missing: Sequence[str] = DEFAULT_MISSING, suda: bool = True,
                        risky_cells_dimensions: int = RISKY_CELLS_DIMENSIONS,
                        risky_cells_threshold: int = RISKY_CELLS_THRESHOLD,
                        per_record: str | Path | None = None, delimiter: str = ";",
                        encoding: str = "utf-8", memory_limit: str | None = None) -> dict:
    """The summary of `engine.sdc.measures.measure_risk` for a CSV or Parquet file,
    counted by DuckDB; with ``per_record`` the per-record file is written too (the
    same columns, in input order)."""
    path = Path(path)
    qis = list(quasi_identifiers)
    if not qis:
        raise DataError("give at least one quasi-identifier")
    check_options(method, threshold, dis_fraction)
    kind = "parquet" if path.suffix.lower() == ".parquet" else "csv"
    backend = DuckDBBackend(DataSource(str(path), kind, (path,), delimiter, encoding),
                            memory_limit)
    try:
        return _measure(backend, qis, weight, household, method, threshold, dis_fraction,
                        missing, suda, risky_cells_dimensions, risky_cells_threshold,
                        per_record)
    finally:
        backend.close()


def _measure(backend: DuckDBBackend, qis, weight, household, method, threshold,
             dis_fraction, missing, suda, dims, cell_threshold, per_record) -> dict:
    names = backend.columns()
    for what, column in [("quasi-identifier", q) for q in qis] + [
            ("weight column", weight), ("household column", household)]:
        if column is not None and column not in names:
            raise DataError(f"{what} '{column}' is not in the data (columns: "
                            f"{', '.join(names[:20])})")
    for key, column in (("weight", weight), ("household", household)):
        if column is not None and column in qis:
            raise DataError(f"the {key} column '{column}' cannot also be a quasi-identifier")
    scan = backend.scan()
    extra = [c for c in (weight, household) if c is not None]
    numbered = (f"(SELECT row_number() OVER () AS __rn, "
                f"{', '.join(as_text(c) for c in qis + extra)} FROM {scan})")
    if weight is not None:
        _check_weights(backend, numbered, weight)
    w_sum = (f", sum({_NUMBER.format(ident(weight))}) AS __w" if weight is not None else "")
    keys_sql = ", ".join(ident(q) for q in qis)
    table = backend._run(f"SELECT {keys_sql}, count(*) AS __n{w_sum} FROM {numbered} "
                         f"GROUP BY {keys_sql}", "aggregate", None,
                         lambda r: r.df())
    if len(table) == 0:
        raise DataError(f"{backend.source.label}: the data has no records")
    keys = encode_keys(table, qis, missing)
    counts = table["__n"].to_numpy(dtype=float)
    weights = table["__w"].to_numpy(dtype=float) if weight is not None else None
    out, summary, _ = measure_keys(
        keys, counts, weights, method=method, threshold=threshold,
        dis_fraction=dis_fraction, suda=suda, risky_cells_dimensions=dims,
        risky_cells_threshold=cell_threshold)
    summary.update(quasi_identifiers=qis, weight=weight, household=household,
                   missing_values=list(missing))
    per_key = pd.DataFrame({q: table[q].astype(str) for q in qis})
    for name, values in out.items():
        per_key[name] = values
    con = backend.con
    con.register("__sdc_keys", per_key)
    join = " AND ".join(f"r.{ident(q)} = k.{ident(q)}" for q in qis)
    records = f"{numbered} r JOIN __sdc_keys k ON {join}"
    household_join, household_column = "", ""
    if household is not None:
        h = ident(household)
        empty = backend._run(f"SELECT min(__rn), count(*) FROM {numbered} WHERE trim({h}) = ''",
                             "aggregate", None)[0]
        if empty[1]:
            raise DataError(f"household column '{household}' is empty in row {empty[0]}: "
                            f"every record names its household")
        houses = backend._run(
            f"SELECT r.{h} AS __h, 1 - product(1 - k.individual_risk) AS __hr, "
            f"count(*) AS __hn FROM {records} GROUP BY r.{h}", "aggregate", None,
            lambda r: r.df())
        risk = houses["__hr"].to_numpy(dtype=float)
        n_rec = houses["__hn"].to_numpy(dtype=float)
        summary["household_risk"] = household_summary(
            np.repeat(risk, n_rec.astype(np.int64)), len(houses), int(n_rec.sum()))
        con.register("__sdc_households", houses[["__h", "__hr"]])
        household_join = f" JOIN __sdc_households hh ON r.{h} = hh.__h"
        household_column = ", hh.__hr AS household_risk"
    if per_record is not None:
        columns = ", ".join(f"k.{ident(c)}" for c in out)
        query = (f"SELECT r.__rn AS record, {columns}{household_column} FROM {records}"
                 f"{household_join} ORDER BY r.__rn")
        with atomic_path(per_record) as tmp:
            backend._run(f"COPY ({query}) TO {literal(str(tmp))} (HEADER, DELIMITER ',')",
                         "release", None)
    return _ordered(summary)


def _check_weights(backend: DuckDBBackend, numbered: str, weight: str) -> None:
    """The first row whose weight is empty, no number or not positive, as a DataError
    naming the column and the row (the in-memory check's message)."""
    x = _NUMBER.format(ident(weight))
    bad = (f"{x} IS NULL OR isnan({x}) OR isinf({x}) OR {x} <= 0")
    row = backend._run(f"SELECT __rn, {ident(weight)}, (SELECT count(*) FROM {numbered} "
                       f"WHERE {bad}) FROM {numbered} WHERE {bad} ORDER BY __rn LIMIT 1",
                       "aggregate", None)
    if not row:
        return
    rn, value, count = row[0]
    number = backend._run(f"SELECT {_NUMBER.format(literal(value))}", "aggregate", None)[0][0]
    why = ("is empty" if not str(value).strip() else
           "is not a number" if number is None or not np.isfinite(number) else
           "is not positive")
    raise DataError(f"weight column '{weight}': row {rn} value '{value}' {why}; a sampling "
                    f"weight is a positive number ({count} such row(s))")
