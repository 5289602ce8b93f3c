"""Where records are counted and released: in memory, DuckDB or Apache Spark.

``open_source(job)`` names the data (a CSV file, a Parquet file or a glob of
Parquet files), ``choose_backend`` applies ``[engine] backend`` ("auto" takes
DuckDB for files larger than ``memory_share`` of the machine's memory), and a
backend (``engine.backends.base.Backend``) delivers the frequency table the
search runs on and writes the release. The in-memory path is today's:
records are read into an ``EncodedTable`` and compressed by the classifier.
"""
from __future__ import annotations

from pathlib import Path

from engine.backends import capabilities
from engine.backends.base import Backend, DataSource, PhaseProgress, ReleasePlan
from engine.backends.locations import is_uri, uri_kind
from engine.config import INSENSITIVE, QUASI_IDENTIFYING, Job
from engine.data.files import file_kind, matching_files
from engine.errors import DataError, JobError

BACKENDS = ("auto", "memory", "duckdb", "spark")
#: bytes of memory the in-memory path needs per byte of CSV (measured on Adult:
#: categorical reading, encoding and the classifier's row arrays) and per cell of
#: Parquet (rows x columns from its metadata: compressed sizes say little)
MEMORY_PER_CSV_BYTE = 4.5
MEMORY_PER_PARQUET_CELL = 90.0

__all__ = ["Backend", "DataSource", "PhaseProgress", "ReleasePlan", "BACKENDS",
           "data_source", "needed_columns", "count_records", "choose_backend", "open_backend"]


def data_source(job: Job, path: str | Path | None = None) -> DataSource:
    """The job's data (or ``path``): a CSV file, a Parquet file or a glob of them, or a
    URI Spark reads itself (``hdfs://``, ``s3a://``, ``file://``...: a file, a glob or a
    folder of parts; never looked at on this machine)."""
    raw = path if path is not None else job.data.path
    if not raw:
        raise JobError("[data] path is missing: the job names no data file")
    if is_uri(raw):
        return DataSource(str(raw), uri_kind(str(raw)) or "parts", (),
                          job.data.delimiter or ";", job.data.encoding or "utf-8")
    resolved = Path(raw) if path is not None else job.resolve(str(raw))
    text = str(resolved)
    files = matching_files(text)
    if not files:
        raise JobError(f"[data] path '{raw}' matches no file")
    kinds = {file_kind(f) for f in files}
    if len(kinds) > 1 or (len(files) > 1 and kinds != {"parquet"}):
        raise JobError(f"[data] path '{raw}': a glob must match Parquet files only")
    return DataSource(text, kinds.pop(), files, job.data.delimiter or ";",
                      job.data.encoding or "utf-8")


def needed_columns(job: Job) -> list[str]:
    """Columns the job reads record by record: quasi-identifiers, the models' sensitive
    attributes, the metric's responses, the columns a subset query names, and the person
    column (``[data] person``: the frequency table then holds a row per combination and
    person, from which the classes' distinct persons are counted)."""
    names = [n for n, a in job.attributes.items() if a.type == QUASI_IDENTIFYING]
    check_supported(job)
    for model in job.privacy:
        attribute = getattr(model, "attribute", None)
        if attribute:
            names.append(attribute)
    names.extend(getattr(job.metric, "responses", []) or [])
    from engine.transform.coding import RULES  # coded by value: their values are needed
    names.extend(n for n, a in job.attributes.items() if a.type == INSENSITIVE
                 and getattr(a, "transformation", None) in RULES and a.transformation != "identity")
    if job.subset and "query" in job.subset:
        from engine.query import query_columns
        names.extend(query_columns(job.subset["query"]))
    if job.person is not None:
        names.append(job.person)
    return list(dict.fromkeys(names))


def count_records(backend: Backend, job: Job, progress: PhaseProgress | None = None):
    """The job's frequency table counted by ``backend``: the columns it reads per record
    and, for a research subset of row numbers (``indices``, a ``rows`` file, a
    ``sample``), each combination's records in and outside the subset apart."""
    from engine.subset import check_indices, subset_rows
    columns = needed_columns(job)
    capabilities.check(backend.name, job)  # prepare checked it already: kept for callers
    counted: list[int] = []

    def count_rows() -> int:
        if not counted:
            counted.append(backend.count_rows())
        return counted[0]
    rows = subset_rows(job, count_rows)
    dp = next((m for m in job.privacy if m.name == "differential-privacy"), None)
    bits = None
    if dp is not None:  # SafePub's sample, drawn as in memory for the number of records
        if job.subset and "query" in job.subset:
            raise JobError("differential privacy within a [subset] query is drawn in memory "
                           "only (the sample is per record, the query per combination): give "
                           "the subset as row indices, or set [engine] backend = \"memory\"")
        if rows is not None:
            check_indices(rows, count_rows())
        from engine.privacy.differential_privacy import sample_bits
        bits = sample_bits(count_rows(), dp.beta, dp.seed, rows)
    counted_persons = (job.person is not None and not job.subset and bits is None
                       and hasattr(backend, "person_tallies"))
    if counted_persons:  # persons counted by the backend: no row per person here
        columns = [c for c in columns if c != job.person]
    table = backend.frequency_table(columns, progress, rows, bits)
    if rows is not None:
        check_indices(rows, table.n_records)
    table.sample_bits = bits
    if counted_persons:
        table.person_tallies = backend.person_tallies(
            job.person, grouped_qis(job, table.names), sensitive_attributes(job), table,
            progress)
    return table


def grouped_qis(job: Job, names: list[str]) -> list[str]:
    """The quasi-identifiers the classifier groups the records by (``Problem.qis``:
    in the table's order, microaggregated ones without clustering left out)."""
    from engine.transform.microaggregation import is_aggregated_only
    return [n for n in names if n in job.attributes
            and job.attributes[n].type == QUASI_IDENTIFYING and not is_aggregated_only(job, n)]


def sensitive_attributes(job: Job) -> list[str]:
    """The attributes whose values the job's models count per person (l-diversity,
    t-closeness, ...: ``engine.privacy.sensitive``)."""
    from engine.privacy.sensitive import SensitiveAttributeModel
    return list(dict.fromkeys(m.attribute for m in job.privacy
                              if isinstance(m, SensitiveAttributeModel) and m.attribute))


def check_supported(job: Job, backend: str = "duckdb") -> None:
    """Refuse, before any counting, what an out-of-core backend does not release (the
    table of ``engine.backends.capabilities``: mdav, local recoding,
    remove_suppressed_values...)."""
    capabilities.check(backend, job)


def _total_memory() -> int:
    import os
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def estimated_memory(source: DataSource) -> float:
    """Bytes the in-memory path would take for the source."""
    if source.kind == "parquet":
        import pyarrow.parquet as pq
        cells = 0
        for f in source.files:
            try:
                meta = pq.ParquetFile(f).metadata
            except Exception:  # unreadable: the reader will say why
                continue
            cells += meta.num_rows * meta.num_columns
        return cells * MEMORY_PER_PARQUET_CELL
    return source.size_bytes * MEMORY_PER_CSV_BYTE


def choose_backend(job: Job, source: DataSource | None) -> str:
    """The backend ``[engine] backend`` names; "auto": memory unless the data is a file
    the in-memory path would need more than ``memory_share`` of the memory for (then
    DuckDB), Spark for a URI."""
    engine = job.engine
    if engine.backend not in BACKENDS:
        raise JobError(f"[engine] backend = '{engine.backend}' is not one of "
                       f"{', '.join(BACKENDS)}")
    if engine.backend != "auto":
        return engine.backend
    if source is not None and not source.files:  # a URI: only Spark reads it
        return "spark"
    if source is None:
        return "memory"
    if estimated_memory(source) > engine.memory_share * _total_memory():
        return "duckdb"
    return "memory"


def open_backend(name: str, job: Job, source: DataSource) -> Backend:
    """A backend over ``source`` (not the in-memory one, which reads the records)."""
    engine = job.engine
    if not source.files and name != "spark":
        capabilities.check(name, job, {"uri": source.path})
    for f in source.files:
        if f.is_dir():
            raise DataError(f"{f} is a folder, not a data file")
        if not f.is_file():
            raise DataError(f"data file not found: {f}")
    if name == "duckdb":
        try:
            from engine.backends.duckdb_backend import DuckDBBackend
        except ImportError:
            raise JobError("[engine] backend = \"duckdb\" needs the duckdb package "
                           "(pip install duckdb)") from None
        return DuckDBBackend(source, engine.memory_limit)
    if name == "spark":
        try:
            from engine.backends.spark_backend import SparkBackend
        except ImportError:
            raise JobError("[engine] backend = \"spark\" needs PySpark and Java 17 "
                           "(pip install 'anonymist[spark]')") from None
        return SparkBackend(source, engine.spark_master, engine.memory_limit)
    raise JobError(f"no backend '{name}' to open")
