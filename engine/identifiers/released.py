"""The scan of a released file (``anonymist verify``): every column but those whose
identifiers the job keeps (``identifiers = "keep"``) or releases as pseudonyms,
chunk by chunk, each chunk's distinct values once. The job's identifying values are
read from its input data when the file is there (a released file holds none of them);
a row's own record number is not looked for (the released file has no record
numbers to compare with).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from engine.identifiers import IdentifyingValues
from engine.identifiers.scan import Finding, scan_column


def scanned(columns: Iterable[str], job) -> list[str]:
    """The released file's columns the scan reads."""
    attrs = job.attributes
    return [c for c in columns if not (
        c in attrs and (getattr(attrs[c], "identifiers", "refuse") == "keep"
                        or getattr(attrs[c], "pseudonym", None) is not None))]


def _csv_batches(path: Path, delimiter: str, encoding: str, columns=None):
    """A CSV file's record batches, every column dictionary-encoded text (Arrow, in
    blocks: no pandas, memory bounded by a block)."""
    import pyarrow.csv as pacsv

    from engine.data.csv_arrow import arrow_encoding, parse_options, text_columns
    names = columns or pacsv.open_csv(
        path, read_options=pacsv.ReadOptions(encoding=arrow_encoding(encoding) or "utf8",
                                             block_size=1 << 16),
        parse_options=parse_options(delimiter, '"', True)).schema.names
    reader = pacsv.open_csv(
        path, read_options=pacsv.ReadOptions(encoding=arrow_encoding(encoding) or "utf8",
                                             block_size=1 << 22),
        parse_options=parse_options(delimiter, '"', True),
        convert_options=text_columns(list(names), include=columns is not None))
    yield from reader


def arrow_chunks(batches) -> Iterator[tuple[int, dict]]:
    """Record batches of dictionary-encoded text as (rows, {column: (distinct values,
    codes)}); a missing value is "" (as the verifier's count reads it; its code was
    a null, which no numpy view holds)."""
    from engine.data.arrow_numpy import to_numpy
    for batch in batches:
        out = {}
        for name, col in zip(batch.schema.names, batch.columns):
            if not hasattr(col, "dictionary") or col.null_count:
                import pyarrow.compute as pc
                col = pc.dictionary_encode(pc.fill_null(pc.cast(col, "string"), ""))
            out[str(name)] = (np.asarray(col.dictionary.to_pylist(), dtype=object),
                              to_numpy(col.indices))
        yield batch.num_rows, out


def frame_chunks(frames) -> Iterator[tuple[int, dict]]:
    """DataFrames as (rows, {column: (distinct values, codes)})."""
    import pandas as pd
    for frame in frames:
        out = {}
        for name in frame.columns:
            codes, uniques = pd.factorize(frame[name].astype(str), sort=False)
            out[str(name)] = (np.asarray(uniques, dtype=object), codes)
        yield len(frame), out


def csv_chunks(path: Path, delimiter: str, encoding: str) -> Iterator[tuple[int, dict]]:
    return arrow_chunks(_csv_batches(Path(path), delimiter, encoding))


def input_identifying_values(job) -> IdentifyingValues | None:
    """The identifying attributes' values (and the person column's) read from the job's
    input data, or None when the job names no readable data file."""
    names = [n for n, a in job.attributes.items() if a.type == "identifying"]
    person = getattr(job, "person", None)
    if person and person not in names:
        names.append(person)
    path = job.resolve(job.data.path) if getattr(job.data, "path", None) else None
    if not names or path is None or not Path(path).is_file():
        return None
    values: dict[str, set] = {n: set() for n in names}
    try:
        if Path(path).suffix.lower() in (".parquet", ".pq"):
            import pyarrow.parquet as pq
            batches = pq.ParquetFile(path).iter_batches(columns=names)
        else:
            batches = _csv_batches(Path(path), job.data.delimiter or ";",
                                   job.data.encoding or "utf-8", names)
        for _, columns in arrow_chunks(batches):
            for name, (distinct, _) in columns.items():
                values[name].update(str(v) for v in distinct)
    except (OSError, ValueError, KeyError):  # Arrow's errors are ValueErrors too
        return None  # the input cannot be read: the patterns and names are still looked for
    # no own record number is looked for in a released file: the numbers are not kept
    return IdentifyingValues.build(values, hold_numbers=False)


def scan_chunks(chunks: Iterable[tuple[int, dict]], job) -> list[Finding]:
    """The identifiers in chunks of a released table, in order (`csv_chunks`,
    `frame_chunks`, `arrow_chunks`)."""
    values = input_identifying_values(job)
    total: dict[tuple[str, str], list] = {}
    start = 0
    for rows, columns in chunks:
        for name in scanned(columns, job):
            distinct, codes = columns[name]
            for f in scan_column(name, distinct, codes, values):
                key = (f.column, f.kind)
                if key in total:
                    total[key][0] += f.count
                else:
                    total[key] = [f.count, f.first_row + start]
        start += rows
    return sorted((Finding(c, k, n, first) for (c, k), (n, first) in total.items()),
                  key=lambda f: (f.column, f.first_row))
