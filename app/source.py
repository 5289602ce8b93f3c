"""Where the project's data came from: shown to the user and kept in project files (the
location never with a database password)."""
from __future__ import annotations

from dataclasses import dataclass

from engine.data.sources import without_password


@dataclass(frozen=True)
class DataSource:
    """Where the data came from (shown to the user and stored in the project)."""

    kind: str = "csv"  # csv | excel | sql | parquet | project
    location: str = ""  # file path or database URL (never with its password)
    table: str = ""  # sheet or database table
    delimiter: str = ";"
    quotechar: str = '"'
    encoding: str = "utf-8"
    has_header: bool = True
    #: columns imported, in order (empty: all as in the source), and renamed ones
    #: (source name, imported name): a project re-reads its source the same way
    columns: tuple = ()
    renames: tuple = ()
    #: "duckdb": the data is too big for memory and read out of core (``engine.backends.browse``),
    #: with DuckDB's ``memory_limit`` ("" its default); "": in memory
    backend: str = ""
    memory_limit: str = ""

    def __post_init__(self):
        object.__setattr__(self, "location", without_password(self.location))

    def to_dict(self) -> dict:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, d: dict) -> "DataSource":
        known = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        known["columns"] = tuple(str(c) for c in known.get("columns", ()))
        known["renames"] = tuple((str(a), str(b)) for a, b in known.get("renames", ()))
        return cls(**known)
