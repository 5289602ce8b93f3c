"""The released table's rows written to a target: the one place that chooses between
the table in memory and the backend (DuckDB, Spark) that holds the records.

``engine.release_docs.writer.write_release`` (the command line, the app, the guided
release) writes a release's table through `write_release_table`, and so does the Python
API's ``AnonymizationResult.write_output`` (which sits on a floor below the writer)."""
from __future__ import annotations

import threading
from collections.abc import Callable

from engine.errors import AnonymistError, Cancelled
from engine.export.targets import DatabaseTarget, FileTarget, write_released

#: ``progress(fraction)`` with fraction in [0, 1]
TableProgress = Callable[[float], None]


def check_backend_targets(result, targets) -> None:
    """Refuse targets a DuckDB or Spark backend does not write (it writes CSV with minimal
    quoting, utf-8 and lf line endings, or Parquet files). Nothing to check in memory."""
    backend = getattr(result.problem, "backend", None)
    if backend is None:
        return
    for target in targets:
        if target is None:
            continue
        o = getattr(target, "csv", None)
        if not isinstance(target, FileTarget) or target.format not in ("csv", "parquet") or (
                target.format == "csv" and (o.quoting, o.encoding.lower().replace("_", "-"),
                                            o.line_ending) != ("minimal", "utf-8", "lf")):
            raise AnonymistError(
                f"{target.describe()}: the {backend.name} backend writes CSV (minimal "
                f"quoting, utf-8, lf line endings) or Parquet files; for other targets run "
                f"the job with [engine] backend = \"memory\"")


def write_release_table(result, target: FileTarget | DatabaseTarget, levels=None,
                        progress: TableProgress | None = None,
                        cancel: Callable[[], bool] | None = None) -> dict | None:
    """Write the released table of ``levels`` (None: the result's own output, the
    optimum or its local recoding) to ``target``.

    In memory the table is `engine.output`'s (``result.transformed``); for a job whose
    records a DuckDB or Spark backend holds, the backend applies
    ``engine.output.release_plan`` where the records are (no rows in Python), and
    ``cancel`` is polled every 0.1 s to interrupt its query. A column released as it is
    that holds identifiers is refused before anything is written
    (``ReleasedTable.check_identifiers``). Returns, for CSV, what was done with cells a
    spreadsheet would run as formulas (``engine.formulas``), else None. Raises
    ``Cancelled``."""
    backend = getattr(result.problem, "backend", None)
    if backend is None:
        return write_released(result.transformed(levels), target,
                              None if progress is None else
                              (lambda done, total: progress(done / max(total, 1))), cancel)
    return _write_through_backend(result, backend, target, levels, progress, cancel)


def _write_through_backend(result, backend, target, levels, progress, cancel) -> None:
    from engine.output import release_plan
    check_backend_targets(result, [target])
    result.transformed(levels).check_identifiers()  # refused before anything is written
    target.path.parent.mkdir(parents=True, exist_ok=True)  # as the in-memory writer does
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


def write_release_uri(result, uri: str, delimiter: str = ";",
                      formula_cells: str = "keep") -> dict | None:
    """Write the optimum's released table to ``uri`` (``hdfs://``, ``s3a://``,
    ``file://``...: CSV or Parquet by its suffix) through the backend that holds the
    records, which writes it where it is (Spark: its executors, through Spark's output
    committer, a folder of part files). A column released as it is that holds
    identifiers is refused before anything is written."""
    from engine.backends.locations import uri_kind
    from engine.output import release_plan
    backend = getattr(result.problem, "backend", None)
    if backend is None or not getattr(backend, "writes_uris", False):
        raise AnonymistError(f"{uri}: a URI is written by the spark backend only; set "
                             f"[engine] backend = \"spark\" or give a local file")
    fmt = uri_kind(uri)
    if fmt is None:
        raise AnonymistError(f"{uri}: name the release .csv or .parquet (the folder of part "
                             f"files Spark writes takes that name)")
    result.transformed(None).check_identifiers()
    plan = release_plan(result.problem, result.levels_of(None))
    return backend.write_release(plan, uri, fmt, delimiter, None, formula_cells=formula_cells)
