"""Between the open ``Document`` and project files, job files and data sources."""
from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import numpy as np

from app.document import Document, Settings
from app.project_file import ProjectSnapshot
from app.source import DataSource
from engine.backends.handle import MemoryData
from engine.config import INSENSITIVE, AttributeConfig, Job, TransformationConfig
from engine.data.csv_import import CsvFormat
from engine.data.sources import ImportSpec, load, needs_password
from engine.data.table import EncodedTable
from engine.errors import AnonymistError, DataError, HierarchyError
from engine.hierarchy.csv_io import read_hierarchy
from engine.hierarchy.from_spec import bind_built
from engine.hierarchy.model import Hierarchy
from engine.project.job_file import attribute_table, job_to_dict, load_job, read_attribute
from engine.saved_result import ResultMismatch, load_array, restore_result, result_state

log = logging.getLogger(__name__)

def _attribute_table(a: AttributeConfig) -> dict:
    """An attribute's job-file table for a project, its hierarchy left out (the project
    keeps its rows)."""
    return {k: v for k, v in attribute_table(a).items() if k != "hierarchy"}


def snapshot_of(doc: Document) -> ProjectSnapshot:
    """Take what a project file needs; cheap (the table is shared, it is immutable;
    the result's solution space is copied into plain data)."""
    attrs = {n: _attribute_table(a) for n, a in doc.attributes.items()}
    state, arrays = None, {}
    if doc.result is not None:
        try:
            job = doc.build_job()
        except AnonymistError:
            job = None  # the configuration cannot run: the result will not restore
        state, arrays = result_state(doc.result, doc.applied_levels, job,
                                     doc.result.problem.table)
    return ProjectSnapshot(
        result_state=state, result_arrays=arrays,
        attributes=attrs,
        hierarchies={n: [list(r) for r in rows] for n, rows in doc.hierarchy_rows.items()},
        privacy=[dict(p) for p in doc.settings.privacy],
        metric=dict(doc.settings.metric),
        transformation=replace(doc.settings.transformation),
        source=doc.source.to_dict(),
        table=doc.table,
        subset=_subset_rows(doc),
        subset_spec=_subset_spec(doc),
        population=None if doc.settings.population is None else dict(doc.settings.population),
        result=doc.result_summary,
        extras=dict(doc.extras))


def _subset_rows(doc) -> np.ndarray | None:
    """The subset's row indices to save: the rows selected (``doc.subset``), else (out of
    core the backend selects them) the rows a row file or index list names, read now,
    so the project keeps them whatever becomes of the file."""
    if doc.subset is not None:
        return np.flatnonzero(doc.subset)
    spec = doc.subset_spec or {}
    if "rows" in spec or "indices" in spec:
        from engine.subset import subset_indices
        idx = subset_indices(Job(subset=dict(spec), base_dir=doc.base_dir or Path.cwd()))
        return np.unique(idx)
    return None


def _subset_spec(doc) -> dict | None:
    """How the subset is selected again on opening (a query or a sample), else None."""
    spec = doc.subset_spec
    if not spec or (doc.subset is None and ("rows" in spec or "indices" in spec)):
        return None
    return dict(spec)


def source_table(source: DataSource, password: str = "") -> EncodedTable:
    """Re-read data from where it was imported (a project saved without its data);
    ``password``: a database's, asked again (projects never hold it)."""
    if not source.location:
        raise DataError("the project holds no data and names no data file")
    fmt = CsvFormat(source.delimiter, source.quotechar, source.has_header, source.encoding)
    spec = ImportSpec(source.kind, source.location, source.table, fmt, source.has_header,
                      tuple(source.columns),
                      renames=tuple(tuple(r) for r in source.renames), password=password)
    return EncodedTable.from_dataframe(load(spec))


def source_needs_password(snap: ProjectSnapshot) -> bool:
    """Whether the project's data must be read from a database that asks a password."""
    return snap.table is None and needs_password(snap.source.get("kind", ""),
                                                 snap.source.get("location", ""))


def load_snapshot_table(snap: ProjectSnapshot, password: str = "") -> ProjectSnapshot:
    """In the worker: open ``snap.data``: over the project's table, else read from the
    original source; data saved out of core is opened out of core again, nothing of
    it read but its columns."""
    if snap.table is None and snap.source.get("backend") == "duckdb":
        from engine.backends.browse import OutOfCoreData
        src = DataSource.from_dict(snap.source)
        snap.data = OutOfCoreData(src.location, src.delimiter, src.encoding,
                                  src.memory_limit or None)
        return snap
    if snap.table is None and snap.source.get("location"):
        snap.table = source_table(DataSource.from_dict(snap.source), password)
    if snap.table is not None:
        snap.data = MemoryData(snap.table)
    return snap


def apply_snapshot(doc: Document, snap: ProjectSnapshot, path: Path | None) -> None:
    """Make the document show a project just read."""
    if snap.data is None and snap.table is not None:  # read without load_snapshot_table
        snap.data = MemoryData(snap.table)
    if snap.data is not None:
        doc.set_data(snap.data, DataSource.from_dict(snap.source))
    else:
        doc.clear_data()
        doc.source = DataSource.from_dict(snap.source)
        doc.data_changed.emit()
    names = list(doc.attributes) if doc.has_data else list(snap.attributes)
    doc.attributes = {n: read_attribute(n, snap.attributes[n], f"attribute '{n}'")
                      if n in snap.attributes
                      else AttributeConfig(INSENSITIVE) for n in names}
    doc.hierarchy_rows = {}
    for name, rows in snap.hierarchies.items():
        if name in doc.attributes:
            doc.hierarchy_rows[name] = rows
            try:
                h = Hierarchy.from_rows(rows, attribute=name)
            except HierarchyError:
                h = None
            doc.attributes[name] = replace(doc.attributes[name], hierarchy=h,
                                           hierarchy_path=snap.hierarchy_paths.get(name))
    doc.settings = Settings(privacy=[dict(p) for p in snap.privacy], metric=dict(snap.metric),
                            transformation=replace(snap.transformation),
                            population=dict(snap.population) if snap.population else None)
    doc.base_dir = snap.base_dir
    doc.subset = None
    doc.subset_spec = None
    if snap.subset is not None and doc.table is not None:
        # the rows were selected when the job or project was read (not again here)
        mask = np.zeros(doc.table.n_rows, dtype=bool)
        idx = snap.subset[(snap.subset >= 0) & (snap.subset < doc.table.n_rows)]
        mask[idx] = True
        doc.subset = None if mask.all() and not snap.subset_spec else mask
        doc.subset_spec = dict(snap.subset_spec) if snap.subset_spec else None
    elif doc.out_of_core and snap.subset_spec:
        doc.subset_spec = dict(snap.subset_spec)  # the backend selects the rows
    elif doc.out_of_core and snap.subset is not None:
        doc.subset_spec = {"indices": snap.subset.tolist()}  # rows saved in the project
    doc.extras = dict(snap.extras)
    doc.forget_result(snap.result)  # result_changed is emitted below, once
    doc.attributes_changed.emit(list(doc.attributes))
    doc.settings_changed.emit()
    doc.subset_changed.emit()
    doc.result_changed.emit()
    doc.set_path(path)
    doc.set_modified(False)


def restore_saved_result(doc: Document, snap: ProjectSnapshot):
    """A function for the worker that brings back ``snap``'s saved result over the
    reopened document's data and configuration: it returns the result, or the
    `ResultMismatch` saying why it does not belong to them (None: nothing saved)."""
    state = snap.result_state
    if state is None or not doc.has_data:
        return None
    table = doc.table
    try:
        job = doc.build_job()
    except AnonymistError as e:
        reason = str(e)
        return lambda: ResultMismatch(f"the configuration cannot run: {reason}")

    def restore():
        try:
            arrays = {m: load_array(b) for m, b in snap.result_arrays.items()}
            if table is None:  # out of core: DuckDB counts the records again
                return _restore_out_of_core(job, state, arrays)
            return restore_result(table, job, state, arrays)
        except ResultMismatch as e:
            return e
        except (AnonymistError, KeyError, TypeError, ValueError) as e:  # damaged or foreign
            log.exception("restoring a saved result failed")
            return ResultMismatch(f"it could not be rebuilt ({e})")
    return restore


def _restore_out_of_core(job: Job, state: dict, arrays: dict):
    """A saved result over data out of core: the backend's frequency table (a scan, no
    rows in Python) is what the result was computed and digested from."""
    from engine.api import prepare
    problem = prepare(None, job)
    try:
        result = restore_result(problem.table, job, state, arrays)
    except BaseException:
        problem.backend.close()
        raise
    result.problem.backend = problem.backend  # writes the release
    return result


def snapshot_from_job_file(path: str | Path) -> ProjectSnapshot:
    """In the worker: a job TOML with its data and hierarchies, as a project snapshot."""
    from engine.backends.browse import OutOfCoreData, out_of_core_backend
    job = load_job(path)
    table = None
    from engine.project.job_data import data_kind
    if job.data.url or (job.data.path and data_kind(job) not in ("csv", "parquet")):
        return _snapshot_read_by_job(job)  # a workbook, statistics file or database
    if job.data.path:
        location = str(job.resolve(job.data.path))
        if out_of_core_backend(location, job.engine, job.data.delimiter, job.data.encoding):
            # too big for memory (the job's [engine]): opened out of core, nothing read
            data = OutOfCoreData(location, job.data.delimiter, job.data.encoding,
                                 job.engine.memory_limit)
            snap = snapshot_from_job(job, None)
            snap.source = replace(DataSource.from_dict(snap.source), kind=data.kind,
                                  backend="duckdb",
                                  memory_limit=job.engine.memory_limit or "").to_dict()
            snap.data = data
            if job.subset and "query" not in job.subset:
                data.close()
                raise DataError(f"{data.label} is too big for memory and read out of core, "
                                f"where the research subset is selected by a query")
            return snap
        table = source_table(DataSource("csv", location, delimiter=job.data.delimiter,
                                        encoding=job.data.encoding))
        job = bind_built(job, table)  # hierarchies named by a builder: built now
    return snapshot_from_job(job, table)


def _snapshot_read_by_job(job: Job) -> ProjectSnapshot:
    """A job whose data is no CSV or Parquet file, read by the job's own readers
    (``engine.data.readers``); its source names the kind, file or URL and sheet/table."""
    from engine.project.job_data import data_kind, database_url
    from engine.project.job_file import load_encoded
    table = load_encoded(job)
    job = bind_built(job, table)  # hierarchies named by a builder: built now
    snap = snapshot_from_job(job, table)
    location = database_url(job) if job.data.url else str(job.resolve(job.data.path))
    snap.source = DataSource(data_kind(job), location,
                             table=job.data.table or job.data.sheet or "").to_dict()
    snap.table = table
    return snap


def snapshot_from_job(job: Job, table: EncodedTable | None) -> ProjectSnapshot:
    """A loaded job and its data as a project snapshot: everything the job says
    (attributes, hierarchies and their paths, models, metric, search settings,
    ``[subset]`` and ``[population]``) reaches the document."""
    d = job_to_dict(job)
    snap = ProjectSnapshot(
        attributes={n: _attribute_table(a) for n, a in job.attributes.items()},
        privacy=d["privacy"], metric=d["metric"],
        transformation=replace(job.transformation) if job.transformation
        else TransformationConfig(),
        population=dict(job.population) if job.population else None,
        base_dir=job.base_dir)
    if job.person is not None:  # app/person_role.py
        snap.extras["person"] = job.person
    if job.weight is not None or job.household is not None:  # app/survey_roles.py
        snap.extras["survey"] = {"weight": job.weight, "household": job.household}
    for name, a in job.attributes.items():
        if a.hierarchy is not None:
            snap.hierarchies[name] = [list(r) for r in a.hierarchy.rows]
            if a.hierarchy_path:
                snap.hierarchy_paths[name] = a.hierarchy_path
    if job.data.path:
        snap.source = DataSource("csv", str(job.resolve(job.data.path)),
                                 delimiter=job.data.delimiter,
                                 encoding=job.data.encoding).to_dict()
        snap.table = table
    if job.subset:
        if "indices" not in job.subset:
            snap.subset_spec = dict(job.subset)
        if table is not None:  # selected here, in the worker: a bad query is its error
            from engine.subset import resolve_subset
            snap.subset = np.flatnonzero(resolve_subset(job, table))
        elif "indices" in job.subset:
            snap.subset = np.asarray(job.subset["indices"], dtype=np.int64)
    return snap


def hierarchy_rows_from_file(path: str | Path, attribute: str) -> list[list[str]]:
    """Rows of a hierarchy CSV (validated structure; coverage is checked by the editor)."""
    h = read_hierarchy(path, attribute)
    return [list(r) for r in h.rows]


def _relative(path: Path, folder: Path) -> str:
    """``path`` relative to ``folder`` when it is inside it, else absolute."""
    try:
        return str(path.resolve().relative_to(folder.resolve()))
    except ValueError:
        return str(path.resolve())


def save_job_file(doc: Document, path: str | Path) -> list[str]:
    """Write the document's job as a TOML job file (``engine.project.job_file``).

    Hierarchies that are not the file the job names (built or edited in the app)
    are written beside the job as ``<job>_hierarchy_<attribute>.csv``, and data that is
    not a CSV file on disk (inside a project, a sheet, a database table) as
    ``<job>_data.csv``. Returns notes for the user (what was written beside)."""
    from engine.hierarchy.csv_io import write_hierarchy
    from engine.io_utils import atomic_write_text
    from engine.project.job_file import save_job
    path = Path(path)
    folder = path.parent
    job = doc.build_job()
    notes: list[str] = []
    attributes = {}
    for name, a in job.attributes.items():
        hpath = a.hierarchy_path
        if a.hierarchy is not None:
            same = False
            if hpath:
                try:
                    same = (read_hierarchy(job.resolve(hpath), name).rows
                            == a.hierarchy.rows)
                except (HierarchyError, OSError):
                    same = False
            if same:
                hpath = _relative(job.resolve(hpath), folder)
            else:
                target = folder / f"{path.stem}_hierarchy_{_file_part(name)}.csv"
                write_hierarchy(a.hierarchy, target)
                hpath = target.name
                notes.append(f"hierarchy of '{name}' written to {target.name}")
        attributes[name] = replace(a, hierarchy_path=hpath)
    data_path = None
    data = replace(job.data)
    from engine.data.files import is_glob
    location = doc.source.location
    if doc.source.kind in ("csv", "parquet") and location and (
            Path(location).is_file() or is_glob(location)) \
            and not doc.source.columns and not doc.source.renames:
        data_path = (location if is_glob(location) else
                     _relative(Path(location), folder))
    elif doc.has_data:  # inside a project, a sheet or a database: written beside the job
        target = folder / f"{path.stem}_data.csv"
        atomic_write_text(target, doc.table.to_dataframe().to_csv(sep=";", index=False))
        data_path = target.name
        data = replace(data, delimiter=";", encoding="utf-8")
        notes.append(f"data written to {target.name}")
    subset = job.subset
    if subset and "rows" in subset:
        subset = {"rows": _relative(job.resolve(subset["rows"]), folder)}
    job = replace(job, attributes=attributes, subset=subset, base_dir=folder,
                  data=replace(data, path=data_path))
    save_job(job, path)
    return notes


def _file_part(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:60] or "attribute"
