"""Research subsets: rows selected by index list, row file, query, random sample or
the subset's records.

``[subset]`` holds exactly one way of selecting: ``indices = [0, 5, ...]``,
``rows = "file with one 0-based row index per line"``, ``query = "age > 30"``
(``engine.query``), ``sample = 0.1`` with ``seed`` (default 0; a random share
of the rows, drawn the same for the same seed and number of rows), or
``records = "subset.csv"``: ARX's subset file, the subset's records themselves,
each matched to one data row with the same values (``records_mask``).
"""
from __future__ import annotations

import numpy as np

from engine.config import Job
from engine.data.table import EncodedTable
from engine.errors import JobError
from engine.schema import Param, read_table

#: the keys that select rows; a ``[subset]`` table holds exactly one of them
SELECTORS = ("indices", "rows", "query", "sample", "records")
#: the ``[subset]`` table's keys, declared once (``engine.schema``)
SUBSET_PARAMS = (
    Param("rows", "path", None, label="Row file",
          help="a file with one 0-based data-row index per line"),
    Param("query", "text", None, label="Query",
          help="the rows matching a condition, e.g. age > 30 and sex = 'Male'"),
    Param("indices", "int", None, low=0, many=True, label="Row indices",
          help="0-based data-row indices"),
    Param("sample", "float", None, low=0, high=1, low_open=True, label="Random sample",
          unit="share of rows", help="a random share of the rows, drawn with seed"),
    Param("records", "path", None, label="Subset records",
          help="a CSV file of the subset's records (ARX's subset file), each matched to "
               "one data row with the same values"),
    Param("seed", "int", 0, low=0, label="Sample seed",
          help="the same seed draws the same rows (sample only)"),
)


def read_subset(d: dict) -> dict:
    """A ``[subset]`` table checked strictly (its given keys, their values checked)."""
    values = read_table(d, SUBSET_PARAMS, "[subset]")
    spec = {k: list(values[k]) if isinstance(values[k], tuple) else values[k] for k in d}
    _check_spec(spec)
    return spec


def sample_mask(n_rows: int, fraction: float, seed: int = 0) -> np.ndarray:
    """A random ``fraction`` of ``n_rows`` rows (rounded, at least one when the fraction
    is positive), the same for the same seed."""
    fraction = float(fraction)
    if not 0.0 < fraction <= 1.0:
        raise JobError(f"[subset] sample = {fraction!r} must be a share of the rows "
                       f"greater than 0 and at most 1")
    size = min(n_rows, max(1, int(round(fraction * n_rows))))
    rng = np.random.default_rng(seed)
    mask = np.zeros(n_rows, dtype=bool)
    mask[rng.choice(n_rows, size=size, replace=False)] = True
    return mask


def _check_spec(spec: dict) -> None:
    given = [k for k in SELECTORS if k in spec]
    if len(given) > 1:
        raise JobError(f"[subset] selects rows in one way only, got {', '.join(given)}")
    if not given:
        raise JobError("[subset] needs 'rows' (a file of row indices), 'query', 'sample' "
                       "(a share of rows, with 'seed'), 'indices' or 'records' (a file of the "
                       "subset's records)")
    if "seed" in spec and "sample" not in spec:
        raise JobError("[subset] seed is for a random sample (sample = share of rows)")


def subset_indices(job: Job) -> np.ndarray | None:
    """The row indices a ``[subset]`` of ``indices`` or a ``rows`` file names (unchecked
    against the data), or None for a query or a sample (they need the data) or no
    subset."""
    spec = job.subset
    if not spec:
        return None
    _check_spec(spec)
    if "indices" in spec:
        return np.asarray(spec["indices"], dtype=np.int64)
    if "rows" in spec:
        path = job.resolve(spec["rows"])
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as e:
            raise JobError(f"[subset] rows file {path} cannot be read: {e}") from None
        idx = []
        for i, line in enumerate(text.splitlines(), start=1):
            line = line.strip()
            if not line:
                continue
            try:
                idx.append(int(line))
            except ValueError:
                raise JobError(f"[subset] rows file {path} line {i}: '{line[:40]}' is not "
                               f"a row index") from None
        return np.asarray(idx, dtype=np.int64)
    return None


def resolve_subset(job: Job, table: EncodedTable) -> np.ndarray | None:
    """Boolean row mask of the job's ``[subset]``, or None when it has none."""
    spec = job.subset
    if not spec:
        return None
    if table.row_subset is not None:  # a backend's frequency table: resolved by it
        return table.row_subset
    if "records" in spec:
        return records_mask(job.resolve(spec["records"]), table, job.data.delimiter)
    idx = subset_indices(job)
    if "sample" in spec:
        return sample_mask(table.n_rows, spec["sample"], spec.get("seed", 0))
    if "query" in spec:
        from engine.query import evaluate_query
        return evaluate_query(spec["query"], table)
    check_indices(idx, table.n_rows)
    mask = np.zeros(table.n_rows, dtype=bool)
    mask[idx] = True
    return mask


def check_indices(idx: np.ndarray, n_rows: int) -> None:
    """Refuse row indices outside ``0..n_rows - 1``, naming the first."""
    bad = idx[(idx < 0) | (idx >= n_rows)]
    if len(bad):
        raise JobError(f"[subset] row index {int(bad[0])} is outside the data "
                       f"(0..{n_rows - 1})")


def subset_rows(job: Job, count_rows) -> np.ndarray | None:
    """The sorted distinct row numbers of a ``[subset]`` given by ``indices``, a
    ``rows`` file or a ``sample`` (drawn as `resolve_subset` draws it, for the number of
    rows ``count_rows()`` gives), for a backend that counts the records where they are;
    None without such a subset (a query is evaluated on the frequency table)."""
    spec = job.subset
    if not spec or "query" in spec:
        return None
    if "records" in spec:
        raise JobError("[subset] records are matched to the data in memory: set [engine] "
                       "backend = \"memory\" (or give the subset as a query or row numbers)")
    if "sample" in spec:
        n = int(count_rows())
        return np.flatnonzero(sample_mask(n, spec["sample"], spec.get("seed", 0)))
    idx = subset_indices(job)
    check_indices(idx[idx < 0], 1)
    return np.unique(idx)


def records_mask(path, table: EncodedTable, delimiter: str | None = None) -> np.ndarray:
    """The rows of ``table`` that ARX's subset file ``path`` holds: each of its records
    (by its columns, all of them columns of the data) is matched to one data row with
    the same values, the first not yet matched (ARX's ``DataSubset.create``); a record
    that matches no row left is an error naming its line."""
    from collections import defaultdict

    from engine.data.csv_import import read_csv
    from engine.errors import DataError
    try:
        records = read_csv(path, delimiter=delimiter, header=True)
    except DataError as e:
        raise JobError(f"[subset] records file: {e}") from None
    missing = [c for c in records.columns if c not in table.names]
    if missing:
        raise JobError(f"[subset] records file {path}: column(s) {', '.join(missing)} are "
                       f"not in the data")
    names = list(records.columns)
    # each subset value as the data column's code (-1: a value the data does not hold)
    codes = []
    for name in names:
        column = table.column(name)
        lookup = {str(v): i for i, v in enumerate(column.dictionary)}
        codes.append(np.array([lookup.get(v, -1) for v in records[name]], dtype=np.int64))
    wanted = np.stack(codes, axis=1) if codes else np.zeros((len(records), 0), np.int64)
    rows: dict[tuple, list[int]] = defaultdict(list)
    data = np.stack([table.column(n).codes for n in names], axis=1)
    for i in range(len(data) - 1, -1, -1):  # popped from the end: first rows first
        rows[tuple(data[i].tolist())].append(i)
    mask = np.zeros(table.n_rows, dtype=bool)
    for line, key in enumerate(wanted.tolist(), start=2):
        free = rows.get(tuple(key))
        if not free:
            shown = ", ".join(f"{n}={records[n].iloc[line - 2]!r}" for n in names[:4])
            raise JobError(f"[subset] records file {path} line {line}: no data row left "
                           f"with these values ({shown}{', ...' if len(names) > 4 else ''})")
        mask[free.pop()] = True
    return mask
