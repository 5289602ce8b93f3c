"""The job's ``[data]``: which reader reads it, and reading what is not delimited text.

``[data] path`` names a file, read by its kind (``engine.data.readers.guess_kind``:
CSV, Excel, Parquet, SPSS, Stata, SAS, a SQLite file); ``[data] url`` names a
database by its SQLAlchemy URL instead, with ``table`` or ``query``. CSV and Parquet
go the engine's usual ways (``engine.data.csv_import``, the backends); the other
kinds are read whole into memory by ``engine.data.readers``, the app's readers.
"""
from __future__ import annotations

from pathlib import Path

from engine.config import DataConfig, Job
from engine.data.sniff import guess_kind
from engine.errors import JobError

#: kinds read by the engine's own paths (CSV reader, backends) rather than as a DataFrame
STREAMED = ("csv", "parquet")


def check_data_config(data: DataConfig) -> None:
    """Rules across ``[data]``'s keys: a path or a url; a table or a query for a
    database; a sheet for a workbook only."""
    if data.path and data.url:
        raise JobError("[data] has both path and url: give the file (path) or the "
                       "database (url)")
    kind = "sql" if data.url else (guess_kind(data.path) if data.path else None)
    if kind == "sql":
        if bool(data.table) == bool(data.query):
            raise JobError(f"[data] {'url' if data.url else 'path'} is a database: give "
                           f"table = \"...\" or query = \"SELECT ...\" (one of them)")
    elif data.table or data.query:
        key = "table" if data.table else "query"
        raise JobError(f"[data] {key} is for a database (url = \"sqlite:///...\", or a "
                       f".sqlite / .db path); path {data.path!r} is not one")
    if data.sheet and kind != "excel":
        raise JobError(f"[data] sheet is for a workbook (.xlsx, .xls); path "
                       f"{data.path!r} is not one")


def data_kind(job: Job, path: str | Path | None = None) -> str:
    """The kind of the job's data (or of ``path``, given instead of ``[data] path``)."""
    if path is not None:
        return guess_kind(path)
    if job.data.url:
        return "sql"
    if not job.data.path:
        raise JobError("[data] path is missing: the job names no data file")
    return guess_kind(job.data.path)


def database_url(job: Job) -> str:
    """``[data] url`` with a relative SQLite file resolved against the job's folder."""
    url = job.data.url or ""
    prefix = "sqlite:///"
    if url.startswith(prefix) and url[len(prefix):] not in ("", ":memory:"):
        file = Path(url[len(prefix):])
        if not file.is_absolute():
            return prefix + str(job.resolve(str(file)))
    return url


def read_frame(job: Job, path: str | Path | None = None) -> "pandas.DataFrame":  # noqa: F821
    """The job's data (or ``path``) of a kind read as a whole (not CSV or Parquet): a
    DataFrame of strings."""
    from engine.data.readers import environment_password, read_database, read_file
    if path is None and job.data.url:
        url = database_url(job)
        return read_database(url, job.data.table or "", query=job.data.query or "",
                             password=environment_password(url))
    location = Path(path) if path is not None else job.resolve(str(job.data.path))
    return read_file(location, data_kind(job, path), sheet=job.data.sheet,
                     table=job.data.table or "", query=job.data.query or "")
