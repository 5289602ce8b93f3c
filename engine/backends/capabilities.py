"""What each backend does: the one table every refusal is checked against, before any work.

A job (and what the command asks to write) needs features (`needed`); `check` refuses,
before a backend is opened, a Spark session started or a file written, every feature the
chosen backend does not have, naming the feature, where the job asks for it, why the
backend cannot, and which backends can. The table is shown in
docs/reference/backends.md (generated from `FEATURES` by docs/gen_reference.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.errors import JobError

BACKEND_NAMES = ("memory", "duckdb", "spark")


@dataclass(frozen=True)
class Feature:
    key: str
    label: str                  # as the table and the messages name it
    backends: tuple[str, ...]   # the backends that have it
    why: str = ""               # why the others do not


_ALL = BACKEND_NAMES
_MEMORY_DUCKDB = ("memory", "duckdb")
_RECORD_BY_RECORD = "it works on the records one by one, which only memory holds"
_NO_ROW_NUMBERS = "Spark's rows have no consecutive row numbers"

FEATURES: tuple[Feature, ...] = (
    Feature("generalization", "generalization and suppression (hierarchies, levels)", _ALL),
    Feature("subset-query", "[subset] query", _ALL),
    Feature("subset-rows", "[subset] indices, rows, records or sample", _MEMORY_DUCKDB,
            _NO_ROW_NUMBERS),
    Feature("differential-privacy", "differential privacy (SafePub)", _MEMORY_DUCKDB,
            "its sample is drawn by row number, and " + _NO_ROW_NUMBERS),
    Feature("microaggregation", "microaggregation (clustering none or hierarchy)", _ALL),
    Feature("mdav", "microaggregation with clustering = \"mdav\"", ("memory",),
            _RECORD_BY_RECORD),
    Feature("coding-rules", "coding rules on insensitive attributes", _ALL),
    Feature("local-recoding", "local recoding", ("memory",), _RECORD_BY_RECORD),
    Feature("remove-suppressed-values", "remove_suppressed_values", ("memory",),
            _RECORD_BY_RECORD),
    Feature("pseudonyms", "pseudonyms (hash, hmac-sha256, mask)", _MEMORY_DUCKDB,
            "the key would travel to Spark's executors"),
    Feature("scrub", "scrub = true (identifiers inside values)", _MEMORY_DUCKDB,
            "Spark does not scan values for identifiers"),
    Feature("mapping", "the value mapping (--mapping)", _MEMORY_DUCKDB,
            "its suppressed records are listed by row number, and " + _NO_ROW_NUMBERS),
    Feature("report", "the release report (--report)", ("memory",),
            "it reads every record of the release into memory"),
    Feature("pseudonym-table", "the pseudonym table (--pseudonym-table)", ("memory",),
            "it reads every identifier into memory"),
    Feature("csv-parquet", "released as CSV (minimal quoting, utf-8, lf) or Parquet", _ALL),
    Feature("other-targets", "released as .xlsx, other CSV options or a database table",
            ("memory",), "the backend writes CSV (minimal quoting, utf-8, lf) or Parquet"),
    Feature("data-files", "data in a CSV file, a Parquet file or a glob of Parquet files",
            _ALL),
    Feature("other-data", "data in a workbook, a statistics file or a database",
            ("memory",), "the backend reads CSV and Parquet files"),
    Feature("uri", "data and release as URIs (hdfs://, s3a://, gs://, abfs://, file://; "
            "globs, folders of parts)", ("spark",),
            "URIs are read and written by Spark's file systems"),
)
BY_KEY = {f.key: f for f in FEATURES}


def supports(backend: str, key: str) -> bool:
    return backend in BY_KEY[key].backends


def needed(job, outputs: dict[str, object] | None = None) -> list[tuple[str, str]]:
    """The features ``job`` needs beyond what every backend has, each with where the job
    (or the command) asks for it: ``[(feature key, where)]``. ``outputs`` names what the
    command writes: {"--mapping": path, "--report": path, "--pseudonym-table": path,
    "other-targets": description or None}."""
    out: list[tuple[str, str]] = []
    subset = job.subset or {}
    if subset and "query" not in subset:
        given = next((k for k in ("indices", "rows", "records", "sample") if k in subset),
                     "rows")
        out.append(("subset-rows", f"[subset] {given}"))
    if any(m.name == "differential-privacy" for m in job.privacy):
        out.append(("differential-privacy", "[[privacy]] model = \"differential-privacy\""))
    for name, a in job.attributes.items():
        if getattr(a, "transformation", None) == "microaggregation" and \
                getattr(a, "clustering", "none") == "mdav":
            out.append(("mdav", f"attribute '{name}'"))
        if getattr(a, "pseudonym", None) is not None:
            out.append(("pseudonyms", f"attribute '{name}'"))
        if getattr(a, "scrub", False):
            out.append(("scrub", f"attribute '{name}'"))
    t = job.transformation
    if getattr(t, "local_recoding", None):
        out.append(("local-recoding", "[transformation] local_recoding"))
    if getattr(t, "remove_suppressed_values", False):
        out.append(("remove-suppressed-values", "[transformation] remove_suppressed_values"))
    for option, key in (("--mapping", "mapping"), ("--report", "report"),
                        ("--pseudonym-table", "pseudonym-table")):
        if (outputs or {}).get(option) is not None:
            out.append((key, option))
    other = (outputs or {}).get("other-targets")
    if other:
        out.append(("other-targets", str(other)))
    if (outputs or {}).get("other-data"):
        out.append(("other-data", str(outputs["other-data"])))
    if (outputs or {}).get("uri"):
        out.append(("uri", str(outputs["uri"])))
    return out


def refusal(backend: str, key: str, where: str) -> str:
    """The message for a feature ``backend`` does not have."""
    f = BY_KEY[key]
    others = " or ".join(f'"{b}"' for b in f.backends)
    return (f"{where}: {f.label} is not available on the {backend} backend"
            + (f" ({f.why})" if f.why else "") + f"; set [engine] backend = {others} "
            f"(what each backend does: docs/reference/backends.md)")


def check(backend: str, job, outputs: dict[str, object] | None = None) -> None:
    """Refuse (``JobError``) the first feature ``job`` and ``outputs`` need that
    ``backend`` does not have; nothing is opened, started or written."""
    for key, where in needed(job, outputs):
        if not supports(backend, key):
            raise JobError(refusal(backend, key, where))


def markdown_table() -> str:
    """The table for docs/reference/backends.md."""
    head = "| feature | " + " | ".join(f"`{b}`" for b in BACKEND_NAMES) + " | why not |\n"
    rows = [head, "|---|" + "---|" * len(BACKEND_NAMES) + "---|\n"]
    for f in FEATURES:
        marks = " | ".join("yes" if b in f.backends else "no" for b in BACKEND_NAMES)
        label = f.label.replace("|", "\\|")
        rows.append(f"| {label} | {marks} | {f.why} |\n")
    return "".join(rows)
