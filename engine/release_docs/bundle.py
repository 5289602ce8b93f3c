"""One release, written in one call: the released table to its target, and on request
the value mapping and the report (of the table as read back from its target).

The app's export dialog and ``anonymist anonymize`` both come here, so a release is
written the same way from either."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import AnonymistError, Cancelled
from engine.export.targets import DatabaseTarget, FileTarget, read_table, write_released

#: ``progress(fraction, what)`` with fraction in [0, 1]
BundleProgress = Callable[[float, str], None]


@dataclass(frozen=True)
class ReleaseRequest:
    """Where a release goes: the table's target and the documents to write with it."""

    target: FileTarget | DatabaseTarget | None = None
    mapping: Path | None = None          # a folder of CSV files, or a .xlsx
    report: Path | None = None           # a .pdf; the JSON goes beside it
    input_path: Path | None = None       # the data file, hashed in the report
    #: the reversible pseudonym table (value -> pseudonym): refused beside the release
    pseudonym_table: Path | None = None


@dataclass
class ReleaseWritten:
    """What `write_release` wrote (paths and descriptions) and the report's verdict."""

    written: list[str] = field(default_factory=list)
    #: per CSV target written, what was done with its formula cells (engine.formulas)
    formula_cells: dict[str, dict] = field(default_factory=dict)
    verified: bool | None = None
    violations: list[str] = field(default_factory=list)


def write_release(result, request: ReleaseRequest, levels=None,
                  progress: BundleProgress | None = None,
                  cancel: Callable[[], bool] | None = None) -> ReleaseWritten:
    """Write ``levels`` (default: what ``result`` releases — the optimum, or its local
    recoding) as ``request`` asks, its files all or none (``engine.io_utils.
    all_or_nothing``: when a document fails or the export is cancelled, the files are
    as they were). The table takes the first 80 % of the progress."""
    from engine.io_utils import all_or_nothing
    if result.optimum is None:
        raise AnonymistError("no transformation meets the privacy models: nothing to release")
    with all_or_nothing(request_files(request)):
        return _write_release(result, request, levels, progress, cancel)


def request_files(request: ReleaseRequest) -> list[Path | None]:
    """The files (and the mapping folder) a release request writes."""
    target = request.target.path if isinstance(request.target, FileTarget) else None
    report = request.report
    return [target, request.mapping, report,
            report.with_suffix(".json") if report is not None else None,
            request.pseudonym_table]


def _write_release(result, request: ReleaseRequest, levels, progress, cancel
                   ) -> ReleaseWritten:
    report = progress or (lambda fraction, what: None)
    stop = cancel or (lambda: False)
    if getattr(result.problem, "backend", None) is not None:
        return _write_through_backend(result, request, levels, report, stop)
    released = result.transformed(levels)
    out = ReleaseWritten()
    has_docs = any(x is not None for x in (request.mapping, request.report,
                                           request.pseudonym_table))
    share = 0.8 if has_docs else 1.0
    targets = [request.target] if request.target is not None else []
    for target in targets:
        what = target.describe()
        cells = write_released(
            released, target, lambda done, total, what=what: report(
                share * done / max(total, 1), f"writing {what}"), stop)
        if cells is not None:
            out.formula_cells[what] = cells
        out.written.append(what)
    if stop():
        raise Cancelled("export cancelled")
    docs = write_documents(result, request, levels, targets, report)
    out.written += docs.written
    out.verified, out.violations = docs.verified, docs.violations
    report(1.0, "done")
    return out


def check_backend_targets(result, targets) -> None:
    """Refuse targets a DuckDB or Spark backend does not write (it writes CSV with minimal
    quoting, utf-8 and lf line endings, or Parquet files)."""
    backend = result.problem.backend
    for target in targets:
        o = getattr(target, "csv", None)
        if not isinstance(target, FileTarget) or target.format not in ("csv", "parquet") or (
                target.format == "csv" and (o.quoting, o.encoding.lower().replace("_", "-"),
                                            o.line_ending) != ("minimal", "utf-8", "lf")):
            raise AnonymistError(
                f"{target.describe()}: the {backend.name} backend writes CSV (minimal "
                f"quoting, utf-8, lf line endings) or Parquet files; for other targets run "
                f"the job with [engine] backend = \"memory\"")


def write_backend_table(result, target: FileTarget, levels=None,
                        progress: Callable[[float], None] | None = None,
                        cancel: Callable[[], bool] | None = None) -> dict | None:
    """Write the release of ``levels`` (None: the optimum) of a job whose records a
    DuckDB or Spark backend holds to ``target`` (CSV: returns what was done with formula
    cells, ``engine.formulas``): the backend applies
    ``engine.output.release_plan`` where the records are (no rows in Python).
    ``cancel`` is polled every 0.1 s and interrupts the backend's query."""
    import threading

    from engine.output import release_plan
    backend = result.problem.backend
    check_backend_targets(result, [target])
    result.transformed(levels).check_identifiers()  # refused before anything is written
    plan = release_plan(result.problem, result.levels_of(levels))
    o = getattr(target, "csv", None)
    done, stopped = threading.Event(), threading.Event()

    def watch() -> None:
        while not done.wait(0.1):
            if cancel():
                stopped.set()
                interrupt = getattr(getattr(backend, "con", None), "interrupt", None)
                if interrupt is not None:
                    interrupt()
                return

    if cancel is not None:
        threading.Thread(target=watch, name="anonymist-release-cancel", daemon=True).start()
    try:
        cells = backend.write_release(plan, target.path, target.format,
                                      o.delimiter if o is not None else ";",
                                      None if progress is None else
                                      (lambda _phase, fraction: progress(fraction or 0.0)),
                                      formula_cells=o.formula_cells if o is not None
                                      else "keep")
    except AnonymistError:
        if stopped.is_set():
            raise Cancelled("export cancelled") from None
        raise
    finally:
        done.set()
    if stopped.is_set():
        raise Cancelled("export cancelled")
    return cells


def _write_through_backend(result, request: ReleaseRequest, levels, report, stop
                           ) -> ReleaseWritten:
    """`write_release` for a job counted by a DuckDB or Spark backend: the table only."""
    name = result.problem.backend.name
    if any(x is not None for x in (request.report, request.pseudonym_table)):
        raise AnonymistError(
            f"the records are held by the {name} backend (data beyond memory): it writes "
            f"the released table and the value mapping; the pseudonym table and release "
            f"report are written for data anonymized in memory (set [engine] backend = "
            f"\"memory\")")
    out = ReleaseWritten()
    if request.target is not None:
        what = request.target.describe()
        cells = write_backend_table(result, request.target, levels,
                                    lambda f: report(f, f"writing {what}"), stop)
        if cells is not None:
            out.formula_cells[what] = cells
        out.written.append(what)
    if request.mapping is not None:
        out.written += write_documents(result, ReleaseRequest(None, request.mapping),
                                       levels).written
    report(1.0, "done")
    return out


def write_documents(result, request: ReleaseRequest, levels=None, targets=(),
                    progress: BundleProgress | None = None) -> ReleaseWritten:
    """The documents ``request`` asks for (value mapping, pseudonym table, report) of a
    release already written to ``targets``: the report hashes the first file target,
    describes every target and verifies the table read back from the first one."""
    report = progress or (lambda fraction, what: None)
    out = ReleaseWritten()
    targets = list(targets)
    backend = getattr(result.problem, "backend", None)
    if backend is not None and request.pseudonym_table is not None:
        raise AnonymistError(f"the records are held by the {backend.name} backend: the "
                             f"pseudonym table is written for data anonymized in memory "
                             f"(set [engine] backend = \"memory\")")
    if request.mapping is not None:
        from engine.export.mapping import value_mapping, write_mapping
        if levels is None and getattr(result, "local_recoding", None) is not None:
            raise AnonymistError("under local recoding records of one value carry different "
                                 "levels: there is no value mapping to write")
        report(0.82, "writing the value mapping")
        lv = [result.evaluate(levels).levels[q] if levels is not None
              else result.optimum.levels[q] for q in result.problem.qis]
        write_mapping(value_mapping(result.problem, lv, result.transformed(levels)),
                      request.mapping)
        out.written.append(str(request.mapping))
    if request.pseudonym_table is not None:
        from engine.export.mapping import pseudonym_lookup, write_pseudonym_lookup
        files = [t.path for t in targets if isinstance(t, FileTarget)]
        write_pseudonym_lookup(pseudonym_lookup(result.problem), request.pseudonym_table,
                               (*files, request.report, request.mapping))
        out.written.append(str(request.pseudonym_table))
    if request.report is not None:
        from engine.release_docs.pdf import export_report
        report(0.86, "writing the release report")
        output_file = next((t.path for t in targets if isinstance(t, FileTarget)), None)
        pdf, js, doc = export_report(
            result, request.report, levels, input_path=request.input_path,
            output_path=output_file,
            output_target="; ".join(t.describe() for t in targets) or None,
            reread=read_table(targets[0]) if targets else None)
        out.written += [str(pdf), str(js)]
        out.verified = doc["verification"]["ok"]
        out.violations = list(doc["verification"]["violations"])
    return out
