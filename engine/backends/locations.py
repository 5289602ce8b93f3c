"""Where data and releases live: a local path, or a URI that Spark reads and writes itself.

A URI (``hdfs://``, ``s3a://``, ``gs://``, ``abfs://``, ``file://``, ...) is never turned
into a ``Path`` (which would fold ``//``) nor checked on the driver's disk: the Spark
backend hands it to Spark, whose file systems (Hadoop's) know its scheme. A local path
keeps every driver-side check (exists, is a file, is not an input)."""
from __future__ import annotations

import re
from pathlib import Path

_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")
#: the schemes named in messages and documentation (any ``scheme://`` is passed on)
KNOWN_SCHEMES = ("hdfs", "s3a", "gs", "abfs", "abfss", "wasbs", "viewfs", "file")
#: data suffixes (of a file, a glob or a folder of parts) and the kind they name
_KINDS = {".parquet": "parquet", ".parq": "parquet", ".pq": "parquet",
          ".csv": "csv", ".tsv": "csv", ".txt": "csv"}


def is_uri(location: str | Path | None) -> bool:
    """Whether ``location`` is a URI (``scheme://...``) rather than a local path. A
    ``Path`` never is: building one from a URI has already folded its ``//``."""
    return isinstance(location, str) and bool(_URI.match(location))


def uri_kind(uri: str) -> str | None:
    """"parquet" or "csv" by the suffix of the URI's last part (a file, a glob such as
    ``.../part-*.parquet`` or a folder of parts named ``out.parquet``), else None."""
    last = uri.rstrip("/").rsplit("/", 1)[-1]
    return _KINDS.get(Path(last.replace("*", "x").replace("?", "x")).suffix.lower())


def path_or_uri(text: str) -> Path | str:
    """The command line's reading of a data or output argument: a URI stays text."""
    return text if is_uri(text) else Path(text)
