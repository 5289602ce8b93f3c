"""Independent verification of an exported table against a job's models.

Nothing here uses the engine's search, problem or classifier: the exported file
is read with plain pandas, chunk by chunk, and its equivalence classes are
recounted from the released values (``engine.privacy.output_checks``), so a bug
in the search or the roll-up cannot hide a privacy violation. Memory grows with
the number of classes (times the distinct values of sensitive attributes), not
with the number of rows. A large CSV file is read by Arrow in blocks instead and
its identical rows grouped on integer codes first (``engine.data.csv_distinct``):
the same counts, so the same report, in a fraction of the time.

How a file is read:

- each quasi-identifier's generalization level is inferred from its labels (the
  lowest level of the job's hierarchy holding every value; a column holding
  nothing but ``*`` is at the lowest level whose labels include ``*``);
- rows whose quasi-identifiers are all ``*`` are suppressed records, unless ``*``
  is a label of every quasi-identifier's level (the top of ARX-style hierarchies):
  then they are read as one equivalence class, or, if that class violates a
  model, as suppressed records (both are the same released table);
- with a research subset (``[subset]``, for the models that use it) only the
  subset's records are released and count for the suppression limit; the subset
  is resolved on the input data as the engine does;
- under differential privacy only SafePub's random sample is released, and the
  records left out of it are written suppressed: classes are checked without the
  sample, and the suppression limit does not apply (the model suppresses freely).

A release written as several files (Spark's folder of part files, a glob) is read
by DuckDB file after file in name order (`verify_parts`), streamed in batches into
the same count: DuckDB only parses the files, the recount is this module's.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine.config import IDENTIFYING, QUASI_IDENTIFYING, Job
from engine.data import csv_arrow
from engine.data.files import is_glob
from engine.errors import DataError
from engine.markers import suppression_marker
from engine.privacy.output_checks import (CHECKS, SUPPRESSED, CountAccumulator,
                                          ReleasedCounts, sensitive_attribute)

if TYPE_CHECKING:
    import pandas as pd

CHUNK_ROWS = 250_000
#: CSV files this big or bigger are read by Arrow and counted on codes (verify_file),
#: from the size the engine's input reader turns to Arrow
FAST_BYTES = csv_arrow.MIN_BYTES


@dataclass
class VerifyReport:
    ok: bool
    records: int
    suppressed_records: int
    classes: int
    min_class_size: int
    levels: dict[str, int | None] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"ok": self.ok, "records": self.records,
                "suppressed_records": self.suppressed_records, "classes": self.classes,
                "min_class_size": self.min_class_size, "levels": self.levels,
                "violations": self.violations}


# --- what the job says ----------------------------------------------------------------
def _qis(job: Job) -> list[str]:
    return [n for n, a in job.attributes.items() if a.type == QUASI_IDENTIFYING]


def _sensitive(job: Job) -> list[str]:
    return list(dict.fromkeys(a for m in job.privacy if (a := sensitive_attribute(m))))


def _subset_models(job: Job) -> bool:
    """Whether the job's research subset is what is released (a model uses it; the
    differential-privacy sample is not known to a verifier)."""
    return bool(job.subset) and any(getattr(m, "uses_subset", False)
                                    and not getattr(m, "suppresses_freely", False)
                                    for m in job.privacy)


def _marker(job: Job) -> str:
    """The string suppressed quasi-identifiers are written as."""
    return suppression_marker(job)


def _limit_applies(job: Job) -> bool:
    return not any(getattr(m, "suppresses_freely", False) for m in job.privacy)


class SubsetRows:
    """The research subset as row numbers of the input (and of the exported file,
    which keeps the input's rows in order)."""

    def __init__(self, job: Job):
        from engine.subset import subset_indices
        idx = subset_indices(job)
        if idx is None:  # a query: evaluated on the input data, as the engine does
            from engine.data.table import EncodedTable
            from engine.project.job_file import load_data
            from engine.subset import resolve_subset
            mask = resolve_subset(job, EncodedTable.from_dataframe(load_data(job)))
            idx = np.flatnonzero(mask)
            self.n_input = len(mask)
        else:
            self.n_input = None
        self.indices = np.unique(np.asarray(idx, dtype=np.int64))

    def mask(self, start: int, stop: int) -> np.ndarray:
        lo, hi = np.searchsorted(self.indices, [start, stop])
        out = np.zeros(stop - start, dtype=bool)
        out[self.indices[lo:hi] - start] = True
        return out


# --- levels -------------------------------------------------------------------------------
def _level(values: set[str], hierarchy, marker: str = SUPPRESSED,
           marker_is_label: bool = False) -> int | None:
    """The lowest level whose labels hold every value (None: none does); for a column
    of the suppression marker alone, the lowest level with that label. With
    ``marker_is_label`` (the marker stands in records that are not suppressed, as a
    hierarchy that hides rare values with ``*`` below its top writes it) the level's
    labels must hold the marker too."""
    if hierarchy is None:
        return None
    real = values - {marker}
    if marker_is_label:
        real = real | {marker}
    for level in range(hierarchy.levels):
        labels = set(hierarchy.level_labels(level))
        if (real <= labels) if real else (marker in labels):
            return level
    return None


# --- counting -----------------------------------------------------------------------------
def count_released(chunks: Iterable[tuple], qis: list[str],
                   sensitive: list[str], job: Job) -> tuple[CountAccumulator, list[str]]:
    """Add every chunk (string columns, research-subset mask or None, optionally the
    records each row stands for) to one
    accumulator: the single place a released table's classes are recounted (another
    reader, e.g. a database, can feed it its own chunks). Returns it with the problems
    met putting back values the export removed."""
    acc = CountAccumulator(qis, sensitive, _marker(job))
    acc.track_suppressed = bool(_removed_values(job))
    for chunk, mask, *weights in chunks:
        if isinstance(chunk, dict):  # a reader's distinct rows (column arrays), weighted
            acc.add_distinct(chunk, *weights, in_subset=mask)
        else:
            acc.add(chunk, mask, *weights)
    return acc, restore_removed(acc, job)


def _pseudonymized(job: Job) -> dict:
    """Identifying attributes released as pseudonyms: name -> their specification."""
    return {n: a.pseudonym for n, a in job.attributes.items()
            if a.type == IDENTIFYING and getattr(a, "pseudonym", None) is not None}


def judge(acc: CountAccumulator, job: Job, columns: list[str], has_subset: bool,
          subset_outside: int = 0, not_pseudonyms: frozenset = frozenset()) -> VerifyReport:
    """Check the counted table against the job's models and suppression limit."""
    qis = _qis(job)
    violations = []
    for n, a in job.attributes.items():
        if a.type == IDENTIFYING and n in columns:
            spec = getattr(a, "pseudonym", None)
            if spec is None:
                violations.append(f"identifying attribute '{n}' is present in the output")
            elif n in not_pseudonyms:
                violations.append(f"identifying attribute '{n}' holds values that are not "
                                  f"{spec.method} pseudonyms")
    missing = [q for q in qis if q not in columns] + [
        a for a in _sensitive(job) if a not in columns]
    if missing:
        violations.append(f"column(s) of the job missing from the output: {', '.join(missing)}")
        return VerifyReport(False, acc.rows, 0, 0, 0, {}, violations)
    if subset_outside:
        violations.append(f"the research subset names {subset_outside} row(s) beyond the "
                          f"{acc.rows} rows of the output")
    from engine.transform.checks import check_column, column_kind, local_recoding
    marker = acc.marker
    levels: dict[str, int | None] = {}
    star_label = []
    special = [q for q in qis if column_kind(job, q) != "generalized" or local_recoding(job)]
    for q in qis:
        if q in special:  # microaggregated, coded or locally recoded: checked below
            levels[q] = None
            star_label.append(False)
            continue
        h = job.attributes[q].hierarchy
        lvl = _level(acc.values[q], h, marker,
                     marker_is_label=acc.star_counts[q] > acc.all_star_rows)
        levels[q] = lvl
        if h is not None and lvl is None:
            violations.append(f"column '{q}' holds values that are not labels of one "
                              f"hierarchy level (not a global recoding)")
        is_label = lvl is not None and marker in h.level_labels(lvl)
        star_label.append(is_label or (
            h is not None and _level(acc.values[q], h, marker, marker_is_label=True)
            is not None))  # the all-marker rows may be labels of a level that has it
        if not is_label and acc.star_counts[q] > acc.all_star_rows:
            violations.append(f"column '{q}' holds '{marker}' in "
                              f"{acc.star_counts[q] - acc.all_star_rows} record(s) that are "
                              f"not suppressed")
    context = {"hierarchies": {n: a.hierarchy for n, a in job.attributes.items()
                               if a.hierarchy is not None},
               "population_size": _population(job), "columns": tuple(columns)}
    ambiguous = bool(qis) and all(star_label)
    counts, n_sup, found = _judge_counts(acc, job, has_subset, context, suppressed=not ambiguous)
    if ambiguous and found:  # the all-* rows may as well be suppressed records
        alt = _judge_counts(acc, job, has_subset, context, suppressed=True)
        if not alt[2]:
            counts, n_sup, found = alt
    for q in special:  # the columns' own rules first, then the models
        values = acc.values[q] - ({marker} if acc.star_counts[q] <= acc.all_star_rows
                                  else set())
        violations += check_column(job, q, qis, values, counts.population, marker) or []
    violations += found
    sizes = list(counts.sizes.values())
    return VerifyReport(not violations, acc.rows, n_sup, len(sizes),
                        min(sizes) if sizes else 0, levels, violations)


def _population(job: Job) -> int | None:
    from engine.privacy.population import population_size
    return population_size(job.population)


def _judge_counts(acc: CountAccumulator, job: Job, has_subset: bool, context: dict,
                  suppressed: bool) -> tuple[ReleasedCounts, int, list[str]]:
    counts = acc.counts(suppressed_class=suppressed, has_subset=has_subset, **context)
    found = []
    n_sup = 0
    if suppressed:
        n_sup = acc.all_star_subset_rows if has_subset else acc.all_star_rows
    if _limit_applies(job):
        n = counts.n_records
        limit = job.transformation.suppression_limit
        allowed = int(math.floor(limit * n + 1e-9))
        if n_sup > allowed:
            found.append(f"{n_sup} records are suppressed, more than the limit "
                         f"{limit:g} x {n} = {allowed}")
    for model in job.privacy:
        check = CHECKS.get(model.name)
        if check is None:
            found.append(f"no independent check is available for model '{model.name}'")
        else:
            found.extend(check(model, counts))
    return counts, n_sup, found


# --- values removed from suppressed records -------------------------------------------------
def _removed_values(job: Job) -> list[str]:
    """Sensitive attributes whose overall distribution a model needs although the
    export blanked the suppressed records' values (``remove_suppressed_values``)."""
    if not getattr(job.transformation, "remove_suppressed_values", False):
        return []
    return sorted({m.attribute for m in job.privacy
                   if m.name in ("t-closeness", "delta-disclosure", "beta-likeness")})


def restore_removed(acc: CountAccumulator, job: Job) -> list[str]:
    """Put the suppressed records' removed sensitive values back into the overall
    distributions, from the job's input data (same rows, same order), reading only
    those columns in chunks. Returns the problems found (none: restored)."""
    needs = [a for a in _removed_values(job) if a in acc.sensitive]
    rows = np.concatenate(acc.suppressed_rows) if acc.suppressed_rows else np.zeros(0, int)
    if not needs or not len(rows):
        return []
    import pandas as pd
    if not job.data.path:
        return [f"suppressed records' values of {', '.join(needs)} were removed and the job "
                f"names no input data to restore the overall distribution"]
    path = job.resolve(job.data.path)
    fix: dict[str, dict[str, int]] = {a: {} for a in needs}
    start = 0
    try:
        reader = pd.read_csv(path, sep=job.data.delimiter, encoding=job.data.encoding,
                             dtype=str, keep_default_na=False, na_filter=False,
                             usecols=needs, chunksize=CHUNK_ROWS)
        with reader:
            for chunk in reader:
                stop = start + len(chunk)
                lo, hi = np.searchsorted(rows, [start, stop])
                picked = chunk.iloc[rows[lo:hi] - start]
                for a in needs:
                    for v, n in picked[a].value_counts().items():
                        fix[a][str(v)] = fix[a].get(str(v), 0) + int(n)
                start = stop
    except (OSError, ValueError, UnicodeDecodeError, pd.errors.ParserError) as e:
        return [f"cannot read the input data {path} to restore removed values: "
                f"{str(e)[:200]}"]
    if start != acc.rows:
        return [f"the input data has {start} rows, the output {acc.rows}: cannot restore "
                f"the suppressed records' removed values"]
    acc.overall_fix = fix
    return []


# --- entry points ---------------------------------------------------------------------------
def verify_frame(frame: pd.DataFrame, job: Job, subset_mask=None) -> VerifyReport:
    """Check a released table held in memory (values as strings) against ``job``;
    ``subset_mask`` (or the job's [subset], resolved on its input data) marks the
    research subset."""
    frame = frame.astype(str)
    has_subset = _subset_models(job)
    mask = None
    if has_subset:
        mask = (np.asarray(subset_mask, dtype=bool) if subset_mask is not None
                else SubsetRows(job).mask(0, len(frame)))
    qis = [q for q in _qis(job) if q in frame.columns]
    sensitive = [a for a in _sensitive(job) if a in frame.columns]
    acc, problems = count_released([(frame, mask)], qis, sensitive, job)
    from engine.pseudonyms import looks_pseudonymized
    bad = frozenset(n for n, spec in _pseudonymized(job).items()
                    if n in frame.columns and not looks_pseudonymized(frame[n], spec))
    report = judge(acc, job, list(frame.columns), has_subset, not_pseudonyms=bad)
    if problems:
        report.violations[:0] = problems
        report.ok = False
    return report


def _read_chunks(path: Path, delimiter: str, columns: list[str], encoding: str,
                 chunk_rows: int) -> Iterator[pd.DataFrame]:
    import pandas as pd
    reader = pd.read_csv(path, sep=delimiter, dtype=str, keep_default_na=False,
                         na_filter=False, usecols=columns, encoding=encoding, engine="c",
                         chunksize=chunk_rows)
    with reader:
        yield from reader


def _header(path: Path, delimiter: str, encoding: str | None = None) -> tuple[list[str], str]:
    import pandas as pd
    for tried in ([encoding] if encoding else ["utf-8-sig", "cp1252"]):
        try:
            cols = pd.read_csv(path, sep=delimiter, nrows=0, encoding=tried, dtype=str)
            return [str(c) for c in cols.columns], tried
        except UnicodeDecodeError:
            continue
        except pd.errors.EmptyDataError:
            raise DataError(f"{path} is empty") from None
        except LookupError:
            raise DataError(f"unknown encoding '{tried}'") from None
        except (pd.errors.ParserError, ValueError) as e:
            raise DataError(f"{path} cannot be read as CSV: {str(e)[:200]}") from None
    raise DataError(f"{path} is not {encoding or 'UTF-8 or cp1252'} text (give --encoding)")


def verify_file(path: str | Path, job: Job, delimiter: str | None = None,
                chunk_rows: int = CHUNK_ROWS, encoding: str | None = None,
                fast: bool | None = None, block_bytes: int | None = None) -> VerifyReport:
    """Check an exported CSV against ``job``, reading it in chunks of ``chunk_rows``
    (``encoding`` None: UTF-8, else cp1252). A file of `FAST_BYTES` or more, or any
    file while pandas is not loaded (``fast`` None, `csv_arrow.use_arrow`; True: any
    file, False: none) is read by Arrow in blocks of ``block_bytes``
    and grouped on integer codes (`engine.data.csv_distinct`) where Arrow reads it as
    pandas does: the same report. A plain file (its header a plain record, the whole
    file text in the encoding pandas would read it in) is read that way without
    loading pandas at all."""
    path = Path(path)
    delimiter = delimiter or job.data.delimiter or ";"
    if fast is None:
        fast = path.is_file() and (path.stat().st_size >= FAST_BYTES
                                   or csv_arrow.use_arrow(path.stat().st_size))
    fast = fast and not _removed_values(job)  # those need the suppressed rows' numbers
    plain = _plain_header(path, delimiter, encoding) if fast else None
    if plain is not None:
        report = _verify_stream(plain[0], job, None, _coded(path, delimiter, *plain,
                                                            block_bytes))
        if report is not None:
            return report
        fast = False  # Arrow refused the file: pandas reads it, as below
    columns, encoding = _header(path, delimiter, encoding)
    _one_column(path, columns, delimiter, job)

    def read(present):
        import pandas as pd
        start = 0
        try:
            for chunk in _read_chunks(path, delimiter, present, encoding, chunk_rows):
                start += len(chunk)
                yield chunk
        except pd.errors.ParserError as e:
            raise DataError(f"{path} cannot be read as CSV near row {start + 1}: "
                            f"{str(e)[:200]}") from None
        except UnicodeDecodeError:
            raise DataError(f"{path} is not {encoding} text after row {start}") from None

    coded = _coded(path, delimiter, columns, encoding, block_bytes) if fast else None
    return _verify_stream(columns, job, read, coded)


def _coded(path: Path, delimiter: str, columns: list[str], encoding: str,
           block_bytes: int | None):
    """`_verify_stream`'s ``coded``: the file's distinct rows by Arrow (or None)."""
    from engine.data import csv_distinct

    def coded(counted, subset_mask, pseudonyms, looks_pseudonymized):
        return csv_distinct.count_csv(
            path, delimiter, encoding, columns, counted, subset_mask, pseudonyms,
            looks_pseudonymized, block_bytes or csv_distinct.BLOCK_BYTES)
    return coded


#: bytes decoded at once when checking that a whole file is text
_DECODE_CHUNK = 1 << 24
#: codecs in which every ASCII byte is its own character, whatever came before
_ASCII_COMPATIBLE = frozenset({"utf-8", "utf-8-sig", "ascii", "iso8859-1", "iso8859-15",
                               "cp1252"})


def _plain_header(path: Path, delimiter: str,
                  encoding: str | None) -> tuple[list[str], str] | None:
    """The header and encoding `_header` (pandas) finds, for a file where they are
    certain without pandas: every byte of the file decodes in the encoding (given, or
    UTF-8 with or without a byte order mark: what pandas tries first), and the header
    is a plain record (no quote character, no byte order mark left, at least two
    names, none empty, none twice). None: ask pandas."""
    import codecs
    codec = encoding or "utf-8-sig"
    try:
        decoder = codecs.getincrementaldecoder(codec)()
        # ASCII bytes are text in these (a chunk checked at memory speed, unless a
        # character begun in the chunk before is pending)
        ascii_text = codecs.lookup(codec).name in _ASCII_COMPATIBLE
        with open(path, "rb") as f:
            while chunk := f.read(_DECODE_CHUNK):
                if not (ascii_text and chunk.isascii() and not decoder.getstate()[0]):
                    decoder.decode(chunk)
        decoder.decode(b"", final=True)
    except (LookupError, UnicodeDecodeError, OSError):
        return None
    names = csv_arrow.first_record(path, delimiter, '"', codec)
    if (not names or len(names) < 2 or len(set(names)) != len(names)
            or any(not n or '"' in n or "\ufeff" in n for n in names)):
        return None
    with open(path, encoding=codec, newline="") as f:
        for line in f:
            if line.strip("\r\n"):
                if '"' in line:  # the first record: no quoting to interpret
                    return None
                break
    return names, codec


def _one_column(path, columns: list[str], delimiter: str, job: Job) -> None:
    """Refuse a file read as one column when the job names several (wrong delimiter)."""
    if len(columns) == 1 and len(_qis(job) + _sensitive(job)) > 1:
        guess = next((d for d in (";", ",", "\t", "|") if d != delimiter and d in columns[0]),
                     None)
        hint = f"; is the delimiter '{guess}'? (give --delimiter)" if guess else ""
        raise DataError(f"{path} has one column when read with delimiter "
                        f"'{delimiter}'{hint}")


def _verify_stream(columns: list[str], job: Job, read, coded=None) -> VerifyReport:
    """Count the chunks ``read(present columns)`` yields (string columns, the file's
    rows in order) and judge them: the one place a file-backed release is checked.
    ``coded(counted columns, subset mask or None, pseudonyms, looks_pseudonymized)``,
    if given, is tried first: the file's distinct rows with their records
    (`engine.data.csv_distinct.CodedRows`), or None to read the chunks. With ``read``
    None the report is None when ``coded`` declines the file."""
    qis = _qis(job)
    wanted = set(qis + _sensitive(job))
    pseudonyms = {n: spec for n, spec in _pseudonymized(job).items() if n in columns}
    present = [c for c in columns if c in wanted | set(pseudonyms)]
    bad_pseudonyms: set[str] = set()
    has_subset = _subset_models(job)
    subset = SubsetRows(job) if has_subset else None

    def chunks():
        start = 0
        for chunk in read(present):
            stop = start + len(chunk)
            if pseudonyms:
                from engine.pseudonyms import looks_pseudonymized
                bad_pseudonyms.update(n for n, spec in pseudonyms.items()
                                      if not looks_pseudonymized(chunk[n], spec))
            yield chunk, (subset.mask(start, stop) if subset else None)
            start = stop

    counted_qis = [q for q in qis if q in present]
    counted_sensitive = [a for a in _sensitive(job) if a in present]
    source = chunks() if read is not None else None
    if coded is not None:
        from engine.pseudonyms import looks_pseudonymized
        got = coded(list(dict.fromkeys(counted_qis + counted_sensitive)),
                    subset.mask if subset else None, pseudonyms, looks_pseudonymized)
        if got is not None:
            bad_pseudonyms.update(got.bad_pseudonyms)
            source = [(got.columns, got.in_subset, got.weights)]
    if source is None:
        return None  # no reader given but the coded one, and it declined the file
    acc, problems = count_released(source, counted_qis, counted_sensitive, job)
    outside = int((subset.indices >= acc.rows).sum()) if subset is not None else 0
    report = judge(acc, job, columns, has_subset, outside, frozenset(bad_pseudonyms))
    if problems:
        report.violations[:0] = problems
        report.ok = False
    return report


def verify_parquet(path: str | Path, job: Job, chunk_rows: int = CHUNK_ROWS) -> VerifyReport:
    """Check an exported Parquet file against ``job``, reading ``chunk_rows`` rows at a
    time (a release of hundreds of millions of rows is never held whole); a folder of
    part files or a glob goes to `verify_parts`."""
    import pyarrow.parquet as pq
    path = Path(path)
    if path.is_dir() or is_glob(str(path)):
        return verify_parts(path, job, chunk_rows=chunk_rows)
    try:
        columns = [str(c) for c in pq.ParquetFile(path).schema_arrow.names]
    except Exception as e:
        raise DataError(f"{path} cannot be read as Parquet: {str(e)[:200]}") from None

    def read(present):
        for batch in pq.ParquetFile(path).iter_batches(batch_size=chunk_rows, columns=present):
            yield batch.to_pandas().astype(object).fillna("").astype(str)

    return _verify_stream(columns, job, read)


# --- a release in several files (Spark's part files, a glob) --------------------------------
def release_parts(path: str | Path) -> tuple[list[Path], str]:
    """The files of a release written as several: a folder of part files (Spark's
    ``part-00000-*.csv`` / ``.parquet``, or any ``*.csv`` / ``*.parquet`` files) or a
    glob, in name order (the records' order), and their format ("csv" | "parquet")."""
    import glob as globbing
    path = Path(path)
    if path.is_dir():
        files = [p for p in path.iterdir() if p.is_file() and not p.name.startswith((".", "_"))]
        parts = [p for p in files if p.name.startswith("part-")]
        files = parts or files
    elif is_glob(str(path)):
        files = [Path(f) for f in globbing.glob(str(path)) if Path(f).is_file()]
        if not files:
            raise DataError(f"{path} matches no file")
    else:
        raise DataError(f"{path} is neither a folder of part files nor a glob")
    kinds = {_kind(p) for p in files}
    kinds.discard(None)
    if not kinds:
        where = "the folder " if path.is_dir() else ""
        raise DataError(f"{where}{path} holds no .csv or .parquet file")
    if len(kinds) > 1:
        raise DataError(f"{path} holds both CSV and Parquet files: give one kind")
    kind = kinds.pop()
    return sorted((p for p in files if _kind(p) == kind), key=lambda p: p.name), kind


def _kind(path: Path) -> str | None:
    suffix = path.suffix.lower()
    return "parquet" if suffix in (".parquet", ".pq") else "csv" if suffix == ".csv" else None


def verify_parts(path: str | Path, job: Job, delimiter: str | None = None,
                 chunk_rows: int = CHUNK_ROWS) -> VerifyReport:
    """Check a release written as several files (a folder of Spark part files, CSV with
    a header each or Parquet, or a glob) against ``job``: DuckDB reads the files one
    after the other in name order, every column as text, and streams them in batches
    of ``chunk_rows`` rows into the same count as a single file's (memory grows with the
    classes, not the rows). CSV parts are UTF-8 with the job's delimiter (or
    ``delimiter``) and must all have the first part's header."""
    import duckdb
    files, kind = release_parts(path)
    delimiter = delimiter or job.data.delimiter or ";"
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = true")

    def scan(f: Path) -> str:
        name = "'" + str(f).replace("'", "''") + "'"
        if kind == "parquet":
            return f"read_parquet({name})"
        sep = "'" + delimiter.replace("'", "''") + "'"
        return (f"read_csv({name}, delim={sep}, quote='\"', escape='\"', header=true, "
                f"all_varchar=true, strict_mode=true, encoding='utf-8')")

    def header(f: Path) -> list[str]:
        if f.stat().st_size == 0:
            return []
        try:
            return [str(r[0]) for r in con.execute(f"DESCRIBE SELECT * FROM {scan(f)}")
                    .fetchall()]
        except duckdb.Error as e:
            raise DataError(f"{f} cannot be read as {kind.upper()}: "
                            f"{str(e).splitlines()[0][:200]}") from None

    try:
        columns = next((h for h in map(header, files) if h), None)
        if columns is None:
            raise DataError(f"{path}: every part file is empty")
        if kind == "csv":
            _one_column(path, columns, delimiter, job)

        def read(present):
            quoted = ['"' + c.replace('"', '""') + '"' for c in present]
            cols = ", ".join(f"coalesce(CAST({c} AS VARCHAR), '') AS {c}" for c in quoted)
            for f in files:
                got = header(f)
                if not got:
                    continue
                if got != columns:
                    raise DataError(f"{f} has the columns {', '.join(got)}, not those of "
                                    f"{files[0].name}: {', '.join(columns)}")
                try:
                    reader = con.sql(f"SELECT {cols or '1 AS __row'} FROM {scan(f)}"
                                     ).to_arrow_reader(chunk_rows)
                    for batch in reader:
                        chunk = batch.to_pandas()
                        yield chunk[present] if present else chunk.iloc[:, :0]
                except duckdb.Error as e:
                    raise DataError(f"{f} cannot be read as {kind.upper()}: "
                                    f"{str(e).splitlines()[0][:200]}") from None

        return _verify_stream(columns, job, read)
    finally:
        con.close()


# --- identifiers in the released columns (engine/identifiers, issue 25) ---------------------
def identifier_violations(source, job: Job, delimiter: str | None = None,
                          encoding: str | None = None, chunk_rows: int = CHUNK_ROWS
                          ) -> list[str]:
    """The scan the release ran before it was written, run again on the released file
    (a CSV, Parquet or xlsx path, or a DataFrame): one violation per column and kind of
    identifier found (``engine.identifiers.released``)."""
    from engine.identifiers import released as scan
    if not isinstance(source, (str, Path)):
        chunks = scan.frame_chunks([source])
    elif Path(source).suffix.lower() in (".parquet", ".pq"):
        import pyarrow.parquet as pq
        chunks = scan.arrow_chunks(pq.ParquetFile(source).iter_batches(batch_size=chunk_rows))
    elif Path(source).suffix.lower() == ".xlsx":
        from engine.export.targets import file_target, read_table
        chunks = scan.frame_chunks([read_table(file_target(Path(source), None))])
    else:
        chunks = scan.csv_chunks(Path(source), delimiter or job.data.delimiter or ";",
                                 encoding or "utf-8")
    return [f"identifiers in a released column: {f.message()}"
            for f in scan.scan_chunks(chunks, job)]
