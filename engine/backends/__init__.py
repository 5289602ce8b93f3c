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

from engine.backends.base import Backend, DataSource, PhaseProgress, ReleasePlan
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
    """The job's data (or ``path``): a CSV file, a Parquet file or a glob of them."""
    raw = path if path is not None else job.data.path
    if not raw:
        raise JobError("[data] path is missing: the job names no data file")
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
    if job.subset and "query" not in job.subset and not backend.subset_by_row_number:
        raise JobError(f"the {backend.name} backend selects a [subset] by a query only "
                       f"(its rows have no consecutive numbers): give the subset as a "
                       f"query, or set [engine] backend = \"duckdb\" or \"memory\"")
    keyed = [n for n, a in job.attributes.items() if getattr(a, "pseudonym", None) is not None]
    if keyed and not backend.releases_pseudonyms:
        raise JobError(f"attribute '{keyed[0]}': the {backend.name} backend does not release "
                       f"pseudonyms (the key would travel to its executors): set [engine] "
                       f"backend = \"duckdb\" or \"memory\"")
    scrubbed = [n for n, a in job.attributes.items() if getattr(a, "scrub", False)]
    if scrubbed and not hasattr(backend, "scan_identifiers"):
        raise JobError(f"attribute '{scrubbed[0]}': the {backend.name} backend does not "
                       f"scrub identifiers: set [engine] backend = \"duckdb\" or "
                       f"\"memory\"")
    counted: list[int] = []

    def count_rows() -> int:
        if not counted:
            counted.append(backend.count_rows())
        return counted[0]
    rows = subset_rows(job, count_rows)
    dp = next((m for m in job.privacy if m.name == "differential-privacy"), None)
    bits = None
    if dp is not None:  # SafePub's sample, drawn as in memory for the number of records
        if not backend.subset_by_row_number:
            raise JobError(f"differential privacy samples records by their row numbers, "
                           f"which the {backend.name} backend does not have: set [engine] "
                           f"backend = \"duckdb\" or \"memory\"")
        if job.subset and "query" in job.subset:
            raise JobError("differential privacy within a [subset] query is drawn in memory "
                           "only (the sample is per record, the query per combination): give "
                           "the subset as row indices, or set [engine] backend = \"memory\"")
        if rows is not None:
            check_indices(rows, count_rows())
        from engine.privacy.differential_privacy import sample_bits
        bits = sample_bits(count_rows(), dp.beta, dp.seed, rows)
    table = backend.frequency_table(columns, progress, rows, bits)
    if rows is not None:
        check_indices(rows, table.n_records)
    table.sample_bits = bits
    return table


def check_supported(job: Job) -> None:
    """Refuse, before any counting, what the DuckDB and Spark releases do not build:
    they release each record's generalized values (or the marker), coding rules and
    microaggregates (by value and by class: ``ReleasePlan``), other columns as they
    are."""
    memory = "; set [engine] backend = \"memory\""
    for name, a in job.attributes.items():
        if getattr(a, "transformation", None) == "microaggregation" and \
                getattr(a, "clustering", "none") == "mdav":
            raise JobError(f"attribute '{name}': clustering = \"mdav\" clusters the records "
                           f"one by one, in memory only{memory}")
    t = job.transformation
    if getattr(t, "local_recoding", None):
        raise JobError(f"local recoding is released in memory only (it recodes the "
                       f"records of each class one by one){memory}")
    if getattr(t, "remove_suppressed_values", False):
        raise JobError(f"remove_suppressed_values is released in memory only{memory}")


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
    the in-memory path would need more than ``memory_share`` of the memory for."""
    engine = job.engine
    if engine.backend not in BACKENDS:
        raise JobError(f"[engine] backend = '{engine.backend}' is not one of "
                       f"{', '.join(BACKENDS)}")
    if engine.backend != "auto":
        return engine.backend
    if source is None:
        return "memory"
    if estimated_memory(source) > engine.memory_share * _total_memory():
        return "duckdb"
    return "memory"


def open_backend(name: str, job: Job, source: DataSource) -> Backend:
    """A backend over ``source`` (not the in-memory one, which reads the records)."""
    engine = job.engine
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
