"""Direct identifiers in the released columns (engine/identifiers): which columns are
scanned, the job's identifying values they are searched for, scrubbing.

    [attributes."notes"]
    type = "insensitive"
    scrub = true                 # replace each identifier found by its kind: [PHONE]
    # or
    identifiers = "keep"         # release them as they are ...
    reason = "public registry"   # ... for this reason (printed in the report)

``engine.output.ReleasedTable`` scrubs (``finish_columns``) and scans
(``identifier_findings``) through these functions, so every path to the released
table (command line, app, API, the DuckDB release) has the same columns.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from engine.config import IDENTIFYING, INSENSITIVE, QUASI_IDENTIFYING, SENSITIVE
from engine.errors import AnonymistError, JobError
from engine.identifiers import IdentifyingValues
from engine.identifiers.scan import Finding, OwnNumbers, scrub_column


class IdentifiersFound(AnonymistError):
    """Identifiers were found in columns released as they are: nothing is written."""

    def __init__(self, findings: list[Finding]):
        self.findings = list(findings)
        super().__init__(refusal_message(self.findings))


def refusal_message(findings: list[Finding]) -> str:
    columns = list(dict.fromkeys(f.column for f in findings))
    lines = [f"identifiers found in {len(columns)} released column(s), nothing written:"]
    lines += [f"  {f.message()}" for f in findings]
    first = columns[0]
    lines.append(
        f"either mark the column identifying ([attributes.\"{first}\"] type = "
        f"\"identifying\": dropped), scrub it (scrub = true: each identifier replaced by "
        f"its kind, e.g. [PHONE]), or keep them (identifiers = \"keep\" with reason = "
        f"\"...\", printed in the report)")
    return "\n".join(lines)


def check_identifier_keys(cfg, where: str) -> None:
    """The combination of an attribute's ``scrub``, ``identifiers`` and ``reason``."""
    if cfg.scrub and cfg.type not in (SENSITIVE, INSENSITIVE):
        what = ("it is dropped from the release" if cfg.type == IDENTIFYING else
                "a quasi-identifier is generalized, and scrubbing it would change its "
                "classes")
        raise JobError(f"{where} scrub = true applies to sensitive and insensitive "
                       f"attributes, not to a {cfg.type} one ({what})")
    if cfg.identifiers == "keep":
        if cfg.scrub:
            raise JobError(f"{where} scrub = true and identifiers = \"keep\" contradict "
                           f"each other: choose one")
        if not (cfg.reason or "").strip():
            raise JobError(f"{where} identifiers = \"keep\" needs a reason = \"...\" (why "
                           f"the identifiers found in it may be released; the report "
                           f"prints it)")
    elif cfg.reason is not None:
        raise JobError(f"{where} reason only applies to identifiers = \"keep\"")


def check_job_keys(job) -> None:
    """`check_identifier_keys` for every attribute of a job (built by the app or the
    API rather than read from a file)."""
    for name, a in job.attributes.items():
        check_identifier_keys(a, f"[attributes.\"{name}\"]")


def scrubbed_names(job) -> list[str]:
    return [n for n, a in job.attributes.items() if getattr(a, "scrub", False)]


def kept(job) -> dict[str, str]:
    """Columns whose identifiers are kept, with their reasons."""
    return {n: a.reason for n, a in job.attributes.items()
            if getattr(a, "identifiers", "refuse") == "keep"}


def identifying_names(job, source_names) -> list[str]:
    """The columns whose values identify: identifying attributes and the person column."""
    names = [n for n in source_names if n in job.attributes
             and job.attributes[n].type == IDENTIFYING]
    person = getattr(job, "person", None)
    if person and person in source_names and person not in names:
        names.append(person)
    return names


def identifying_values(problem) -> IdentifyingValues:
    """The job's identifying values (built once per problem, from the table in memory).
    Out of core their numbers are not held (a number is looked for in its own row only,
    where the backend reads it: ``engine.backends.identifier_scan``)."""
    cached = getattr(problem, "_identifying_values", None)
    if cached is None:
        table = problem.table
        names = identifying_names(problem.job, table.source_names)
        backend = problem.backend
        columns = {}
        if hasattr(backend, "distinct_chunks"):  # streamed: never all values at once
            columns = {n: (lambda n=n: backend.distinct_chunks(n)) for n in names
                       if n not in table.names}
        elif backend is not None and hasattr(backend, "column_counts"):
            counted = backend.column_counts([n for n in names if n not in table.names])
            columns = {n: (lambda d=t.column(n).dictionary: [d]) for n, t in counted.items()}
        columns.update({n: (lambda d=table.column(n).dictionary: [d]) for n in names
                        if n in table.names})
        cached = IdentifyingValues.build_streamed(columns, hold_numbers=backend is None)
        problem._identifying_values = cached
    return cached


def own_numbers(problem, values: IdentifyingValues) -> OwnNumbers | None:
    cols = [problem.table.column(n) for n in values.number_columns
            if n in problem.table.names]
    if not cols or problem.table.weights is not None:
        return None
    return OwnNumbers([(c.codes, c.dictionary) for c in cols])


def scanned_columns(released) -> list[str]:
    """The columns of a released table released as they are and not scrubbed nor kept:
    sensitive and insensitive attributes without a rule, quasi-identifiers at level 0."""
    job = released.problem.job
    skip = set(scrubbed_names(job)) | set(kept(job)) | set(released.pseudonymized)
    return [n for n in released_names(released)
            if n not in skip and not released.is_generalized(n)]


def released_names(released) -> list[str]:
    """The released columns: a backend's frequency table holds only the columns the
    search reads, the backend releases every column of the source but the removed."""
    if released.problem.backend is None:
        return list(released.names)
    return [n for n in released.problem.table.source_names if n not in released.removed]


def scrub_values(problem, name: str, values: np.ndarray) -> tuple[np.ndarray, Counter]:
    """A column's released values scrubbed (kept per problem: the same for every
    transformation), and the replacements per kind."""
    cache = problem.__dict__.setdefault("_scrubbed", {})
    if name not in cache:
        a = problem.job.attributes[name]
        check_identifier_keys(a, f"[attributes.\"{name}\"]")
        index: dict[str, int] = {}  # each distinct value once (a hash, no sort)
        codes = np.fromiter((index.setdefault(str(v), len(index)) for v in values),
                            dtype=np.int64, count=len(values))
        uniques = np.empty(len(index), dtype=object)
        uniques[:] = list(index)
        ids = identifying_values(problem)
        out, counts = scrub_column(uniques, codes, ids, own_numbers(problem, ids))
        out.flags.writeable = False
        cache[name] = (out, counts)
    return cache[name]


def scrub_counts(problem) -> dict[str, dict[str, int]]:
    """Replacements per scrubbed column and kind (columns scrubbed so far)."""
    cache = problem.__dict__.get("_scrubbed", {})
    return {n: dict(sorted(c.items())) for n, (_, c) in cache.items()}


__all__ = ["IdentifiersFound", "check_identifier_keys", "check_job_keys", "scrubbed_names",
           "kept", "identifying_names", "identifying_values", "scanned_columns",
           "scrub_values", "scrub_counts", "QUASI_IDENTIFYING"]


def find_in_release(released) -> list[Finding]:
    """The identifiers in ``released``'s scanned columns (`scanned_columns`): each
    column's distinct values in memory, or the backend's scan where the records are."""
    from engine.identifiers.scan import scan_column
    problem = released.problem
    check_job_keys(problem.job)
    names = scanned_columns(released)
    if problem.backend is not None or problem.table.weights is not None:
        return backend_scan(released)["findings"]
    ids = identifying_values(problem)
    own = own_numbers(problem, ids)
    found: list[Finding] = []
    for name in names:
        col = problem.table.column(name)
        found += scan_column(name, col.dictionary, col.codes, ids, own)
    return found


def backend_scan(released) -> dict:
    """The backend's scan of the released columns (once per problem): findings in the
    scanned columns, and replacements in the scrubbed ones unless the backend counts
    those while it writes the release (DuckDB: `scrub_counts`; then they are scanned
    only when asked for before a release, `_backend_scrub_counts`)."""
    problem = released.problem
    cache = problem.__dict__.setdefault("_backend_scan", {})
    names = tuple(scanned_columns(released))
    if names not in cache:
        backend = problem.backend
        job = problem.job
        if not hasattr(backend, "scan_identifiers"):  # Spark: each column's distinct
            cache[names] = _distinct_scan(backend, list(names), identifying_values(problem))
            return cache[names]
        scrubbed = [] if hasattr(backend, "scrub_counts") else [
            n for n in scrubbed_names(job) if n in released_names(released)]
        cache[names] = backend.scan_identifiers(list(names), scrubbed,
                                                identifying_values(problem))
    return cache[names]


def _backend_scrub_counts(released, scrubbed: list[str]) -> dict:
    """Replacements per scrubbed column and kind out of core: counted while the
    release was written when the backend does (DuckDB), else scanned (once)."""
    problem = released.problem
    backend = problem.backend
    if not hasattr(backend, "scrub_counts"):
        return backend_scan(released)["scrubbed"]
    if not scrubbed:
        return {}
    counted = backend.scrub_counts(scrubbed)
    if counted is not None:
        return counted
    cache = problem.__dict__.setdefault("_backend_scrub_scan", {})
    key = tuple(sorted(scrubbed))
    if key not in cache:  # asked for before the release is written
        cache[key] = backend.scan_identifiers([], list(scrubbed),
                                              identifying_values(problem))["scrubbed"]
    return cache[key]


def _distinct_scan(backend, names: list[str], values: IdentifyingValues) -> dict:
    """A backend's columns scanned by their distinct values with their records (the
    first rows are not known: -1), for a backend without a streamed scan of its own."""
    from engine.identifiers.scan import scan_column
    found = []
    for name, table in backend.column_counts(names).items():
        col = table.column(name)
        for f in scan_column(name, col.dictionary, col.codes, values, weights=table.weights):
            found.append(Finding(f.column, f.kind, f.count, -1, f.examples))
    return {"findings": found, "scrubbed": {}}


def release_report(released) -> dict:
    """Identifiers in the release: the columns scanned, replacements per scrubbed column
    and kind, the kept columns with their reasons."""
    problem = released.problem
    job = problem.job
    scrubbed = [n for n in scrubbed_names(job) if n in released_names(released)]
    if problem.backend is not None:
        counts = _backend_scrub_counts(released, scrubbed)
    else:
        for name in scrubbed:
            released.values(name, slice(0, 1))  # built (and counted) once
        counts = scrub_counts(problem)
    return {"scanned": scanned_columns(released),
            "scrubbed": {n: counts.get(n, {}) for n in scrubbed},
            "kept": {n: r for n, r in kept(job).items() if n in released_names(released)}}
