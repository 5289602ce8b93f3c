"""The job's input data as the verifier reads it, with its own reader: the research
subset resolved on it, and the population each released class stands for.

A subset job (a model counts the research subset) releases the subset's records
only, in input order (docs/reference/verify.md). The verifier resolves the subset on
the input itself: ``indices``, a ``rows`` file (read here), ``sample`` (``seed``'s
generator draws ``round(share x rows)`` distinct rows, at least one: the job file's
definition of a sample) or ``query`` (the subset query language, ``engine.query``,
evaluated on each chunk of the input: the one definition of the job file's
language). The input's quasi-identifiers, generalized to the levels read off the
release, give each class's records in the subset and in the whole table (the
population δ-presence, k-map without an estimator and the journalist's
profitability compare with).

The input is read in chunks of plain pandas strings: memory grows with the classes
(and the subset's row numbers), not with the input's rows.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from engine.errors import DataError, JobError

CHUNK_ROWS = 250_000


def input_path(job) -> Path:
    if not job.data.path:
        raise DataError("the job names no input data ([data] path): a research subset "
                        "cannot be resolved")
    return job.resolve(job.data.path)


def _whole_input(job):
    """The job's data of a kind read whole (Excel, Parquet, SPSS / Stata / SAS, a
    database) as strings, by the data room's readers (``engine.data.readers``: the
    parsing is shared, as for CSV), or None for delimited text."""
    from engine.data import readers
    url = getattr(job.data, "url", None)
    if url:
        prefix = "sqlite:///"
        rest = url[len(prefix):] if url.startswith(prefix) else ""
        if rest not in ("", ":memory:") and not Path(rest).is_absolute():
            url = prefix + str(job.resolve(rest))  # relative to the job's folder
        return readers.read_database(url, getattr(job.data, "table", None) or "",
                                     query=getattr(job.data, "query", None) or "",
                                     password=readers.environment_password(url))
    kind = readers.guess_kind(str(job.data.path)) if job.data.path else "csv"
    if kind == "csv":
        return None
    return readers.read_file(job.resolve(str(job.data.path)), kind,
                             sheet=getattr(job.data, "sheet", None),
                             table=getattr(job.data, "table", None) or "",
                             query=getattr(job.data, "query", None) or "")


def _whole_input_kind(job) -> bool:
    from engine.data.sniff import guess_kind
    return guess_kind(str(job.data.path)) != "csv"


def read_input(job, columns: list[str], chunk_rows: int = CHUNK_ROWS
               ) -> Iterator:
    """The input's ``columns`` (header names stripped, as the engine reads them) as
    DataFrame chunks of strings, in order (a file of another kind than CSV, or a
    database, read whole)."""
    import pandas as pd
    whole = None if not (job.data.path or getattr(job.data, "url", None)) else \
        _whole_input(job)
    if whole is not None:
        whole.columns = [str(c).strip() for c in whole.columns]
        missing = [c for c in columns if c not in whole.columns]
        if missing:
            raise DataError(f"the input data has no column {', '.join(missing)}")
        yield whole[columns].astype(str)
        return
    path = input_path(job)
    sep, encoding = job.data.delimiter, job.data.encoding
    start = 0
    try:
        header = pd.read_csv(path, sep=sep, encoding=encoding, nrows=0, dtype=str)
        names = [str(c).strip() for c in header.columns]
        missing = [c for c in columns if c not in names]
        if missing:
            raise DataError(f"the input data {path} has no column {', '.join(missing)}")
        wanted = sorted({names.index(c) for c in columns})
        reader = pd.read_csv(path, sep=sep, encoding=encoding, dtype=str,
                             keep_default_na=False, na_filter=False, usecols=wanted,
                             chunksize=chunk_rows)
        with reader:
            for chunk in reader:
                chunk.columns = [names[i] for i in wanted]
                start += len(chunk)
                yield chunk
    except (OSError, UnicodeDecodeError, ValueError, pd.errors.ParserError) as e:
        if isinstance(e, DataError):
            raise
        raise DataError(f"cannot read the input data {path} near row {start + 1}: "
                        f"{str(e)[:200]}") from None


class InputSubset:
    """The research subset of the job's input, resolved by the verifier."""

    def __init__(self, job):
        self.job = job
        self.spec = dict(job.subset or {})
        given = [k for k in ("indices", "rows", "query", "sample", "records")
                 if k in self.spec]
        if len(given) != 1:
            raise JobError("[subset] selects rows in exactly one way: indices, rows, query, "
                           "sample or records")
        self.how = given[0]
        self.indices: np.ndarray | None = None
        if self.how == "indices":
            self.indices = np.unique(np.asarray(self.spec["indices"], dtype=np.int64))
        elif self.how == "rows":
            self.indices = np.unique(self._rows_file(job.resolve(self.spec["rows"])))
        self._sample: np.ndarray | None = None
        self._records: dict | None = None  # records: values -> how many are still unmatched
        self._record_columns: list[str] = []
        if self.how == "records":
            self._read_records(job.resolve(self.spec["records"]), job.data.delimiter)

    def _read_records(self, path: Path, delimiter: str) -> None:
        """ARX's subset file: the subset's records themselves (columns of the data)."""
        import pandas as pd
        try:
            records = pd.read_csv(path, sep=delimiter, dtype=str, keep_default_na=False,
                                  na_filter=False)
        except (OSError, UnicodeDecodeError, ValueError, pd.errors.ParserError) as e:
            raise JobError(f"[subset] records file {path} cannot be read: "
                           f"{str(e)[:200]}") from None
        self._record_columns = [str(c).strip() for c in records.columns]
        self._records = {}
        for key in records.itertuples(index=False, name=None):
            self._records[key] = self._records.get(key, 0) + 1

    @staticmethod
    def _rows_file(path: Path) -> np.ndarray:
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as e:
            raise JobError(f"[subset] rows file {path} cannot be read: {e}") from None
        out = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                out.append(int(line.strip()))
            except ValueError:
                raise JobError(f"[subset] rows file {path} line {number}: "
                               f"'{line.strip()[:40]}' is not a row index") from None
        return np.asarray(out, dtype=np.int64)

    def columns(self) -> list[str]:
        """The input columns the subset needs (a query's)."""
        if self.how == "records":
            return list(self._record_columns)
        if self.how != "query":
            return []
        from engine.query import query_columns
        return query_columns(self.spec["query"])

    def start(self, n_input: int) -> None:
        """Prepare for an input of ``n_input`` rows (a sample is drawn for it)."""
        if self.how == "sample":
            share = float(self.spec["sample"])
            size = min(n_input, max(1, int(round(share * n_input))))
            rng = np.random.default_rng(int(self.spec.get("seed", 0)))
            self._sample = np.sort(rng.choice(n_input, size=size, replace=False))

    def outside(self, n_input: int) -> int:
        """Row numbers the subset names beyond the input's rows."""
        if self.indices is None:
            return 0
        return int(((self.indices < 0) | (self.indices >= n_input)).sum())

    def mask(self, chunk, start: int) -> np.ndarray:
        """The subset's rows among the input chunk beginning at row ``start``."""
        stop = start + len(chunk)
        if self.how == "query":
            from engine.data.table import EncodedTable
            from engine.query import evaluate_query
            table = EncodedTable.from_dataframe(chunk[self.columns()])
            return np.asarray(evaluate_query(self.spec["query"], table), dtype=bool)
        if self.how == "records":  # each record matches the first data row left with its
            out = np.zeros(stop - start, dtype=bool)  # values (ARX's DataSubset.create)
            left = self._records
            for i, key in enumerate(chunk[self._record_columns].itertuples(index=False,
                                                                           name=None)):
                if left.get(key, 0) > 0:
                    left[key] -= 1
                    out[i] = True
            return out
        rows = self._sample if self.how == "sample" else self.indices
        lo, hi = np.searchsorted(rows, [start, stop])
        out = np.zeros(stop - start, dtype=bool)
        out[rows[lo:hi] - start] = True
        return out


def count_rows(job) -> int:
    """The input's rows (a sample is drawn for their number)."""
    import pandas as pd
    if getattr(job.data, "url", None) or (job.data.path and _whole_input_kind(job)):
        return sum(len(c) for c in read_input(job, []))
    path = input_path(job)
    try:
        reader = pd.read_csv(path, sep=job.data.delimiter, encoding=job.data.encoding,
                             dtype=str, keep_default_na=False, na_filter=False,
                             usecols=[0], chunksize=CHUNK_ROWS)
        with reader:
            return sum(len(c) for c in reader)
    except (OSError, UnicodeDecodeError, ValueError, pd.errors.ParserError) as e:
        raise DataError(f"cannot read the input data {path}: {str(e)[:200]}") from None


def subset_chunks(job, subset: InputSubset | None, columns: list[str],
                  chunk_rows: int = CHUNK_ROWS, data=None):
    """The input's ``columns`` chunk by chunk with each chunk's first row number and its
    research-subset mask (None without a subset); ``data``: the input held in memory (a
    DataFrame) instead of the job's data file."""
    wanted = list(dict.fromkeys(columns + (subset.columns() if subset else [])))
    if data is not None:
        missing = [c for c in wanted if c not in data.columns]
        if missing:
            raise DataError(f"the input data has no column {', '.join(missing)}")
        chunks = [data[wanted].astype(str)]
        n_input = len(data)
    else:
        chunks = read_input(job, wanted, chunk_rows)
        n_input = None
    if subset is not None:
        subset.start((n_input if n_input is not None else count_rows(job))
                     if subset.how == "sample" else 0)
    start = 0
    for chunk in chunks:
        yield chunk, start, (subset.mask(chunk, start) if subset is not None else None)
        start += len(chunk)


class InputClasses:
    """The input's records per class at the release's levels: in the whole table (the
    population) and in the research subset."""

    def __init__(self):
        self.population: dict[tuple, int] = {}
        self.in_subset: dict[tuple, int] = {}
        self.rows = 0
        self.subset_rows = 0
        self.unknown: dict[str, set] = {}


def input_classes(job, subset: InputSubset, qis: list[str], maps: dict[str, dict],
                  chunk_rows: int = CHUNK_ROWS, data=None,
                  person: str | None = None) -> InputClasses:
    """Count the input's classes: each quasi-identifier's value mapped by ``maps[q]``
    (value -> released label at the release's level); with ``person`` (the job's
    ``[data] person``) a class's population and subset are its distinct persons."""
    out = InputClasses()
    pairs = []
    columns = list(qis) + ([person] if person else [])
    for chunk, _, mask in subset_chunks(job, subset, columns, chunk_rows, data):
        out.rows += len(chunk)
        out.subset_rows += int(mask.sum())
        labels = {}
        for q in qis:
            mapped = chunk[q].map(maps[q])
            bad = mapped.isna().to_numpy()
            if bad.any():
                out.unknown.setdefault(q, set()).update(chunk[q][bad].unique().tolist()[:3])
                mapped = mapped.fillna("\x1eunknown")
            labels[q] = mapped
        import pandas as pd
        frame = pd.DataFrame(labels)
        frame["\x1esubset"] = mask
        if person:
            frame["\x1eperson"] = chunk[person].to_numpy()
            pairs.append(frame.drop_duplicates())
            continue
        grouped = frame.groupby(list(qis), sort=False, observed=True)["\x1esubset"]
        for key, n, s in zip(grouped.size().index, grouped.size().tolist(),
                             grouped.sum().tolist()):
            key = key if isinstance(key, tuple) else (key,)
            out.population[key] = out.population.get(key, 0) + int(n)
            out.in_subset[key] = out.in_subset.get(key, 0) + int(s)
    if person and pairs:
        import pandas as pd
        rows = pd.concat(pairs, ignore_index=True).drop_duplicates()
        every = rows.drop(columns="\x1esubset").drop_duplicates()
        for key, n in every.groupby(list(qis), sort=False).size().items():
            key = key if isinstance(key, tuple) else (key,)
            out.population[key] = int(n)
        inside = rows[rows["\x1esubset"].astype(bool)].drop(columns="\x1esubset")
        for key, n in inside.drop_duplicates().groupby(list(qis), sort=False).size().items():
            key = key if isinstance(key, tuple) else (key,)
            out.in_subset[key] = int(n)
    out.outside = subset.outside(out.rows)
    return out


class PersonStream:
    """Each released row's person, read from the input in order: a release's rows are
    the input's (a subset job's, the subset's), suppressed ones included."""

    def __init__(self, job, person: str, subset=None, data=None,
                 chunk_rows: int = CHUNK_ROWS):
        self.person = person
        self._chunks = subset_chunks(job, subset, [person], chunk_rows, data)
        self._buffer = np.empty(0, dtype=object)
        self.empty_rows = 0  # input rows naming no person

    def _more(self) -> bool:
        try:
            chunk, _, mask = next(self._chunks)
        except StopIteration:
            return False
        values = chunk[self.person].to_numpy(dtype=object)
        if mask is not None:
            values = values[mask]
        self.empty_rows += int(sum(1 for v in values if not str(v).strip()))
        self._buffer = np.concatenate([self._buffer, values])
        return True

    def take(self, n: int) -> np.ndarray:
        """The persons of the next ``n`` released rows (fewer: the input ran out)."""
        while len(self._buffer) < n and self._more():
            pass
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def rest(self) -> int:
        """Input rows (of the subset) no released row took."""
        left = len(self._buffer)
        self._buffer = np.empty(0, dtype=object)
        while self._more():
            left += len(self._buffer)
            self._buffer = np.empty(0, dtype=object)
        return left
