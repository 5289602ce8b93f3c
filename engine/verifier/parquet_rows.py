"""The verifier's own count of a released Parquet file's distinct rows, on every core.

A release of hundreds of millions of rows read record by record into pandas keeps one
core busy for minutes. Here each row group is read and grouped by Arrow (its reader and
its hash grouping run in C++ without the GIL) in a pool of threads, one row group per
thread at a time, and the partial tables of distinct rows (with their records and first
row) are merged as they come: memory holds a few row groups and the distinct rows, never
the file. The result is what ``CountAccumulator.add_distinct`` takes: each counted
column's strings, the records of each distinct row, in order of first appearance, the
same counts as the row-by-row reading (``engine.verify.verify_parquet``'s fallback),
which reads any file this declines.

Only Arrow is used (no DuckDB, nothing of the engine's search path): a column is read as
the strings the fallback reads only when it is a string column (a missing value is
"", as ``fillna("")`` gives); any other column type declines the file.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from engine.data.arrow_numpy import to_numpy

#: merge the partial tables once this many have arrived (bounds memory by distinct rows)
MERGE_EVERY = 8
_ROW = "__verify_first_row"
_COUNT = "__verify_records"


@dataclass
class DistinctRows:
    columns: dict[str, np.ndarray]
    weights: np.ndarray
    rows: int
    bad_pseudonyms: set[str] = field(default_factory=set)
    in_subset: np.ndarray | None = None  # a release holds no subset flag
    #: what the identifier scan needs (as `csv_rows.PieceRows`): per counted column its
    #: values and each distinct row's code, each distinct row's first row, and the
    #: findings of the other scanned columns, row group by row group
    labels: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    first_rows: np.ndarray | None = None
    findings: dict[tuple[str, str], list[int]] = field(default_factory=dict)


def _string(t) -> bool:
    import pyarrow as pa
    if pa.types.is_dictionary(t):
        t = t.value_type
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def count_parquet(path: str | Path | list, counted: list[str], pseudonyms: dict,
                  looks_pseudonymized: Callable, threads: int | None = None,
                  scanned: list[str] = (), scan: Callable | None = None,
                  names: list[str] | None = None) -> DistinctRows | None:
    """``path``'s distinct rows over ``counted`` (a Parquet file, or a list of them read
    as one table in that order, each with the columns ``names``), the ``pseudonyms``
    columns (name -> spec) checked value by value with ``looks_pseudonymized``; None
    when a column is not text (the row-by-row reading then decides) or nothing is
    counted. The ``scanned`` columns that are not counted are scanned for identifiers
    row group by row group in the threads: ``scan(column, values, codes)`` gives a row
    group's findings (each column as the identifier scan of a file reads it: cast to
    text, dictionary-encoded); the counted ones are scanned on the distinct rows
    (`csv_rows.identifier_findings`)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    if not counted:
        return None
    files = [Path(p) for p in path] if isinstance(path, (list, tuple)) else [Path(path)]
    read = list(dict.fromkeys(counted + list(pseudonyms)))
    tasks = []  # (file, row group) in the table's order
    sizes = []
    extra: list[str] = []
    for k, file in enumerate(files):
        meta = pq.ParquetFile(file)
        schema = meta.schema_arrow
        if names is not None and [str(n) for n in schema.names] != list(names):
            return None  # the caller's reading says which file differs
        if any(schema.get_field_index(c) < 0 or not _string(schema.field(c).type)
               for c in read):
            return None
        if k == 0 and scan is not None:
            extra = [c for c in scanned if c not in read and schema.get_field_index(c) >= 0]
        for i in range(meta.metadata.num_row_groups):
            tasks.append((k, i))
            sizes.append(meta.metadata.row_group(i).num_rows)
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    local = threading.local()  # each thread its own readers

    def one(task: int):
        k, i = tasks[task]
        if getattr(local, "k", None) != k:  # one open file per thread
            local.k, local.file = k, pq.ParquetFile(files[k])
        t = local.file.read_row_group(i, columns=read + extra, use_threads=False)
        i = task
        found = []
        for c in extra:  # as `engine.identifiers.released.arrow_chunks` reads a column
            col = t.column(c).combine_chunks()
            if not hasattr(col, "dictionary") or col.null_count:  # a missing value: ""
                col = pc.dictionary_encode(pc.fill_null(pc.cast(col, pa.string()), ""))
            found += scan(c, np.asarray(col.dictionary.to_pylist(), dtype=object),
                          to_numpy(col.indices))
        bad = set()
        for c in pseudonyms:
            values = pc.unique(pc.fill_null(t.column(c).cast(pa.string()), "")).to_pylist()
            if not looks_pseudonymized(values, pseudonyms[c]):
                bad.add(c)
        cols = {c: pc.fill_null(t.column(c).cast(pa.string()), "") for c in counted}
        cols[_ROW] = pa.array(np.arange(starts[i], starts[i + 1], dtype=np.int64))
        part = pa.table(cols)
        return _group(part, counted, first=True), bad, found, int(starts[i])

    bad_pseudonyms: set[str] = set()
    findings: dict[tuple[str, str], list[int]] = {}

    def found_in(found, start) -> None:
        for one in found:  # row groups come in file order: the first one's row is first
            key = (one.column, one.kind)
            if key in findings:
                findings[key][0] += one.count
            else:
                findings[key] = [one.count, one.first_row + start]
    parts = []
    workers = threads or max(1, os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="verify-parquet") as pool:
        window = 2 * workers  # row groups in flight: memory stays a few row groups
        pending = []
        for i in range(len(tasks)):
            pending.append(pool.submit(one, i))
            if len(pending) >= window:
                part, bad, found, start = pending.pop(0).result()
                parts.append(part)
                bad_pseudonyms |= bad
                found_in(found, start)
                if len(parts) >= MERGE_EVERY:
                    parts = [_merge(parts, counted)]
        for future in pending:
            part, bad, found, start = future.result()
            parts.append(part)
            bad_pseudonyms |= bad
            found_in(found, start)
    if not parts:
        return None
    merged = _merge(parts, counted).sort_by(_ROW)
    columns = {c: merged.column(c).to_numpy(zero_copy_only=False).astype(object)
               for c in counted}
    weights = merged.column(_COUNT).to_numpy().astype(np.int64)
    labels = {}
    if scan is not None:
        for c in counted:
            coded = pc.dictionary_encode(merged.column(c).combine_chunks())
            labels[c] = (np.asarray(coded.dictionary.to_pylist(), dtype=object),
                         to_numpy(coded.indices))
    return DistinctRows(columns, weights, int(starts[-1]), bad_pseudonyms, None, labels,
                        merged.column(_ROW).to_numpy().astype(np.int64), findings)


def _group(table, counted: list[str], first: bool):
    """Distinct rows of ``table`` with their records and first row."""
    if first:
        out = table.group_by(counted, use_threads=False).aggregate(
            [([], "count_all"), (_ROW, "min")])
        return out.rename_columns([_COUNT if n == "count_all" else
                                   _ROW if n == f"{_ROW}_min" else n
                                   for n in out.column_names])
    out = table.group_by(counted, use_threads=False).aggregate(
        [(_COUNT, "sum"), (_ROW, "min")])
    return out.rename_columns([_COUNT if n == f"{_COUNT}_sum" else _ROW if n == f"{_ROW}_min"
                               else n for n in out.column_names])


def _merge(parts: list, counted: list[str]):
    import pyarrow as pa
    return _group(pa.concat_tables(parts), counted, first=False)
