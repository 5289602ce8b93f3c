"""The open project: data, configuration being edited, last result.

Widgets edit the configuration through this object and listen to its
signals; ``build_job`` turns it into an engine ``Job`` (a fresh, independent
snapshot for each run, so the worker thread never shares mutable state with
the GUI).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, Signal

from engine.data.sources import without_password
from engine.config import (INSENSITIVE, QUASI_IDENTIFYING, AttributeConfig, DataConfig,
                           EngineConfig, Job, TransformationConfig)
from engine.data.table import EncodedTable
from engine.errors import AnonymistError, HierarchyError
from engine.hierarchy.model import Hierarchy
from engine.metrics import metric_from_dict
from engine.privacy import model_from_dict

DEFAULT_METRIC = {"name": "loss", "monotonic": False, "gs_factor": 0.5,
                  "aggregate": "geometric-mean"}


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


@dataclass(frozen=True)
class HierarchyStatus:
    """What the hierarchy editor shows below the table."""

    complete: bool
    height: int
    missing: tuple[str, ...] = ()
    error: str = ""
    #: out of core: the data's distinct values are still being counted
    unchecked: bool = False

    def text(self) -> str:
        if not self.height and not self.error and not self.missing:
            return "No hierarchy"
        if self.unchecked and not self.error:
            return (f"Height {self.height}; counting the data's distinct values to check "
                    f"that it covers them…")
        if self.error:
            return f"Invalid: {self.error}"
        if self.complete:
            return f"Complete, height {self.height}"
        shown = ", ".join(f"'{v}'" for v in self.missing[:5])
        more = f" and {len(self.missing) - 5} more" if len(self.missing) > 5 else ""
        return f"Incomplete, height {self.height}: no row for {shown}{more}"

    def short(self) -> str:
        """The same in a few words, for the attribute list's column (``text`` is its
        tooltip): "✓ height 4", "Incomplete (3 missing)", "Invalid"."""
        if not self.height and not self.error and not self.missing:
            return "No hierarchy"
        if self.unchecked and not self.error:
            return f"height {self.height}, checking…"
        if self.error:
            return "Invalid"
        if self.complete:
            return f"✓ height {self.height}"
        return f"Incomplete ({len(self.missing):,} missing)"


@dataclass(frozen=True)
class CurrentTransformation:
    """The transformation the document releases: what File > Export data writes and
    Analyze utility / Analyze risk show (the optimum until another is applied)."""

    levels: dict[str, int]
    applied: bool  # applied in Explore (False: the result's optimum)
    local_recoding: bool  # the optimum with the job's local recoding
    anonymous: bool
    suppressed_records: int
    information_loss_percent: float | None

    @property
    def kind(self) -> str:
        if self.applied:
            return "applied"
        return "optimum with local recoding" if self.local_recoding else "optimum"

    @property
    def levels_text(self) -> str:
        return " · ".join(f"{n} {lv}" for n, lv in self.levels.items())

    def describe(self) -> str:
        """``applied: age 2 · sex 0 · 12 records suppressed`` (what it is comes first)."""
        state = ", not anonymous" if not self.anonymous else ""
        return (f"{self.kind}{state}: {self.levels_text} · "
                f"{self.suppressed_records:,} records suppressed")


@dataclass
class Settings:
    """Job settings other than attributes, in the job file's own shape."""

    privacy: list[dict] = field(default_factory=list)
    metric: dict = field(default_factory=lambda: dict(DEFAULT_METRIC))
    transformation: TransformationConfig = field(default_factory=TransformationConfig)
    #: the job's ``[population]`` ({"region": "USA"} or {"size": N}); None: no population.
    #: Configure and Analyze risk both edit this one value.
    population: dict | None = None


class Document(QObject):
    """The project being edited."""

    data_changed = Signal()
    #: out of core: the records were counted (``row_count`` is known)
    rows_counted = Signal()
    #: out of core: distinct values of these columns were counted (``request_distinct``)
    distinct_ready = Signal(list)
    #: out of core: a query in the background failed (its message)
    query_failed = Signal(str)
    attributes_changed = Signal(list)  # names whose configuration changed
    settings_changed = Signal()  # privacy models, metric, transformation
    subset_changed = Signal()
    result_changed = Signal()
    #: the current transformation changed: its levels (None: the result's optimum)
    output_changed = Signal(object)
    modified_changed = Signal(bool)
    path_changed = Signal(str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.table: EncodedTable | None = None
        #: data too big for memory (``engine.backends.browse.OutOfCoreData``): served by DuckDB
        #: queries (pages, distinct values, the frequency table); ``table`` is then None
        self.backend_source = None
        self._distinct_worker = None
        self._distinct_pending: set[str] = set()
        self._distinct_batch: list = []
        #: the job's ``[engine]`` (backend, memory_share, memory_limit); out of core the
        #: job runs on DuckDB whatever it says
        self.engine = EngineConfig()
        self.source = DataSource()
        self.attributes: dict[str, AttributeConfig] = {}
        self.hierarchy_rows: dict[str, list[list[str]]] = {}
        self.settings = Settings()
        self.subset: np.ndarray | None = None  # bool mask; None: every row
        #: how the subset was selected, in the job's ``[subset]`` shape ({"query": ...},
        #: {"rows": path}, {"sample": share, "seed": n}); None: rows ticked by hand
        self.subset_spec: dict | None = None
        #: folder that relative paths of an opened job file are relative to
        self.base_dir: Path | None = None
        self.result = None  # engine AnonymizationResult of the last run
        self.result_summary: dict | None = None  # its to_dict(), also kept in projects
        #: the transformation applied in Explore (None: the result's optimum); see
        #: `current_transformation` and `released`
        self.applied_levels: tuple | None = None
        self._current: CurrentTransformation | None = None
        self.extras: dict = {}  # JSON state of perspectives, saved in projects
        self.path: Path | None = None
        self._modified = False

    # --- state -----------------------------------------------------------------------
    @property
    def has_data(self) -> bool:
        return self.table is not None or self.backend_source is not None

    @property
    def out_of_core(self) -> bool:
        """The data is served by DuckDB queries (``backend_source``), not held here."""
        return self.backend_source is not None

    @property
    def column_names(self) -> list[str]:
        if self.table is not None:
            return list(self.table.names)
        if self.backend_source is not None:
            return self.backend_source.names
        return []

    @property
    def row_count(self) -> int | None:
        """Records of the data (None: no data, or out of core and not counted yet)."""
        if self.table is not None:
            return self.table.n_rows
        if self.backend_source is not None:
            return self.backend_source.n_rows
        return None

    def distinct_values(self, name: str) -> np.ndarray:
        """The sorted distinct values of column ``name`` (text). Out of core this is a
        query on the whole file (cached): call it from a worker."""
        if self.table is not None:
            return np.asarray([str(v) for v in self.table.column(name).dictionary],
                              dtype=object)
        if self.backend_source is not None:
            return self.backend_source.distinct_values(name)
        raise ValueError("no data")

    def known_distinct_values(self, name: str) -> np.ndarray | None:
        """``distinct_values`` when it needs no query (in memory, or already counted)."""
        if self.table is not None:
            return self.distinct_values(name)
        if self.backend_source is not None:
            known = self.backend_source.known_distinct(name)
            return None if known is None else known["value"].to_numpy(dtype=object)
        return None

    def request_distinct(self, names: list[str], then=None) -> bool:
        """Make the distinct values of ``names`` known (``known_distinct_values``): at
        once in memory (True); out of core by queries in a worker, then
        ``distinct_ready(names)`` and ``then()`` (False). The hierarchy status of the
        columns is shown again when they arrive."""
        names = [n for n in names if n in self.column_names]
        missing = [n for n in names if self.known_distinct_values(n) is None]
        if not missing:
            if then is not None:
                then()
            return True
        missing = [n for n in missing if n not in self._distinct_pending]
        if not missing and then is None:
            return False
        self._distinct_pending.update(missing)
        if self._distinct_worker is None:
            from app.workers import SerialWorker
            self._distinct_worker = SerialWorker(self)
            self._distinct_worker.done.connect(self._distinct_done)
            self._distinct_worker.failed.connect(self._distinct_failed)
        # requests made in one turn of the event loop (the attribute list asks row by
        # row) are counted together, in one scan of the file
        self._distinct_batch.append((tuple(missing), then))
        if len(self._distinct_batch) == 1:
            from PySide6.QtCore import QTimer
            QTimer.singleShot(0, self._submit_distinct)
        return False

    def _submit_distinct(self) -> None:
        batch, self._distinct_batch = self._distinct_batch, []
        data = self.backend_source
        if not batch or data is None:
            return
        names = tuple(dict.fromkeys(n for names, _ in batch for n in names))
        thens = [then for _, then in batch if then is not None]
        self._distinct_worker.submit(lambda: data.distinct_many(list(names)),
                                     (data, names, lambda: [t() for t in thens]))

    def wait_for_queries(self, msecs: int = 10000) -> bool:
        """Wait for the distinct values being counted (tests, closing)."""
        self._submit_distinct()
        return self._distinct_worker is None or self._distinct_worker.wait(msecs)

    def _distinct_done(self, tag, _value) -> None:
        data, names, then = tag
        if data is not self.backend_source:
            return
        self._distinct_pending.difference_update(names)
        if names:
            self.distinct_ready.emit(list(names))
            self.attributes_changed.emit(list(names))  # their hierarchy status can be shown
        if then is not None:
            then()

    def _distinct_failed(self, tag, message: str) -> None:
        if tag[0] is not self.backend_source:  # replaced or closed since
            return
        self._distinct_pending.difference_update(tag[1])
        self.query_failed.emit(message)

    def hierarchy_columns(self, names: list[str]) -> dict:
        """``{name: EncodedColumn}`` for the hierarchy wizard: the table's columns, or out
        of core one row per distinct value with its record count (``request_distinct``
        first)."""
        if self.table is not None:
            return {n: self.table.column(n) for n in names}
        from engine.backends.browse import distinct_column
        return {n: distinct_column(n, self.backend_source.distinct(n)) for n in names}

    def _drop_backend_source(self) -> None:
        self._distinct_pending.clear()
        self._distinct_batch = []
        if self._distinct_worker is not None:
            self._distinct_worker.forget()
        if self.backend_source is not None:
            self.backend_source.close()
            self.backend_source = None

    def clear_data(self) -> None:
        """No data (a new project); the caller emits ``data_changed``."""
        self._drop_backend_source()
        self.table = None

    @property
    def modified(self) -> bool:
        return self._modified

    def set_modified(self, value: bool = True) -> None:
        if value != self._modified:
            self._modified = value
            self.modified_changed.emit(value)

    def set_path(self, path: Path | None) -> None:
        self.path = path
        self.path_changed.emit(str(path or ""))

    def set_table(self, table: EncodedTable, source: DataSource,
                  data_types: dict[str, tuple[str | None, str | None]] | None = None) -> None:
        """Replace the data; attribute settings of columns that remain are kept."""
        self._drop_backend_source()
        self.table = table
        self._replace_data(source, table.names, data_types)

    def set_backend_source(self, data, source: DataSource,
                           data_types: dict[str, tuple[str | None, str | None]] | None = None
                           ) -> None:
        """Replace the data by ``data`` (``engine.backends.browse.OutOfCoreData``), served out of
        core; attribute settings of columns that remain are kept."""
        if data is not self.backend_source:
            self._drop_backend_source()
        self.table = None
        self.backend_source = data
        self._replace_data(source, data.names, data_types)

    def _replace_data(self, source: DataSource, names, data_types) -> None:
        self.source = source
        old = self.attributes
        self.attributes = {n: old.get(n, AttributeConfig(INSENSITIVE)) for n in names}
        for name, (dtype, fmt) in (data_types or {}).items():
            if name in self.attributes:
                self.attributes[name] = replace(self.attributes[name], data_type=dtype,
                                                format=fmt)
        self.hierarchy_rows = {n: r for n, r in self.hierarchy_rows.items() if n in names}
        self.subset = None
        self.subset_spec = None
        self.set_result(None)
        self.data_changed.emit()
        self.set_modified(True)

    # --- attributes ----------------------------------------------------------------------
    def attribute(self, name: str) -> AttributeConfig:
        return self.attributes[name]

    def update_attributes(self, names: list[str], **values) -> None:
        """Set fields of ``AttributeConfig`` (type, min_level, weight, ...) for ``names``."""
        changed = []
        for name in names:
            a = self.attributes[name]
            new = replace(a, **values)
            if new != a:
                self.attributes[name] = new
                changed.append(name)
        if changed:
            self.attributes_changed.emit(changed)
            self.set_modified(True)

    def set_hierarchy_rows(self, name: str, rows: list[list[str]] | None,
                           source: str = "") -> None:
        """Store edited hierarchy rows; the engine hierarchy is set when they are valid."""
        a = self.attributes[name]
        if not rows:
            self.hierarchy_rows.pop(name, None)
            self.attributes[name] = replace(a, hierarchy=None, hierarchy_path=None)
        else:
            self.hierarchy_rows[name] = [list(r) for r in rows]
            try:
                h = Hierarchy.from_rows(rows, attribute=name, source=source)
            except HierarchyError:
                h = None
            self.attributes[name] = replace(a, hierarchy=h,
                                            hierarchy_path=source or a.hierarchy_path)
        self.attributes_changed.emit([name])
        self.set_modified(True)

    def set_built_hierarchy(self, name: str, rows, spec=None) -> None:
        """Hierarchy rows built by a wizard, with the builder specification that built them
        (kept so that the wizard reopens it while the rows stay unchanged; None: edited)."""
        rows = [list(r) for r in rows]
        self.set_hierarchy_rows(name, rows)
        specs = self.extras.setdefault("hierarchy_specs", {})
        if spec is None:
            specs.pop(name, None)
        else:
            specs[name] = {"spec": spec.to_json(), "rows": rows_digest(rows)}

    def hierarchy_status(self, name: str) -> HierarchyStatus:
        rows = self.hierarchy_rows.get(name)
        if not rows:
            return HierarchyStatus(False, 0)
        try:
            h = Hierarchy.from_rows(rows, attribute=name)
        except HierarchyError as e:
            return HierarchyStatus(False, max(len(r) for r in rows) - 1, error=str(e))
        missing: list[str] = []
        values = self.known_distinct_values(name) if name in self.column_names else None
        if values is not None:
            missing = h.uncovered(str(v) for v in values)
        elif self.out_of_core and name in self.column_names:
            return HierarchyStatus(False, h.height, unchecked=True)
        return HierarchyStatus(not missing, h.height, tuple(missing))

    def lacks_hierarchy(self, name: str) -> bool:
        """A quasi-identifier without a valid hierarchy (Anonymize would refuse it)."""
        a = self.attributes[name]
        generalized = a.transformation == "generalization" or (
            a.transformation == "microaggregation" and a.clustering == "hierarchy")
        return a.type == QUASI_IDENTIFYING and a.hierarchy is None and generalized

    def qis_without_hierarchy(self) -> list[str]:
        return [n for n in self.attributes if self.lacks_hierarchy(n)]

    def lattice_size(self) -> int | None:
        """How many transformations the search space has (the product of each
        quasi-identifier's levels between its minimum and maximum); None while a
        quasi-identifier has no hierarchy."""
        size = 1
        for a in self.attributes.values():
            if a.type != QUASI_IDENTIFYING:
                continue
            if a.hierarchy is None:
                return None
            hi = a.hierarchy.height if a.max_level is None else min(a.max_level,
                                                                    a.hierarchy.height)
            lo = 0 if a.min_level is None else a.min_level
            size *= max(1, hi - lo + 1)
        return size

    def verbatim_columns(self) -> list[str]:
        """Insensitive columns: released exactly as they are (as are columns a job file
        does not name)."""
        return [n for n, a in self.attributes.items()
                if a.type == INSENSITIVE and a.transformation in ("generalization", "identity")]

    # --- settings ------------------------------------------------------------------------
    def update_settings(self, **values) -> None:
        """Replace ``privacy`` (list of dicts), ``metric`` (dict) or ``transformation``."""
        for key, value in values.items():
            setattr(self.settings, key, value)
        self.settings_changed.emit()
        self.set_modified(True)

    def set_subset(self, mask: np.ndarray | None) -> None:
        """Rows ticked by hand (None: every row)."""
        if mask is not None and bool(mask.all()):
            mask = None
        self.subset = mask
        self.subset_spec = None
        self.subset_changed.emit()
        self.set_modified(True)

    def subset_mask(self, spec: dict) -> np.ndarray:
        """The rows a ``[subset]`` table selects in the current data (engine's reading).

        Raises
        ------
        AnonymistError
            With the engine's message when the query, file or share is invalid.
        """
        from engine.subset import resolve_subset
        if self.table is None:
            raise AnonymistError("import data first: a subset selects rows of the data")
        return resolve_subset(Job(subset=dict(spec), base_dir=self.base_dir or Path.cwd()),
                              self.table)

    def set_subset_spec(self, spec: dict | None) -> None:
        """Select the subset by query, row file or random sample (None: every row)."""
        if not spec:
            self.set_subset(None)
            return
        if self.out_of_core:
            self.subset = None  # the backend selects the rows when it counts them
            self.subset_spec = dict(spec)
            self.subset_changed.emit()
            self.set_modified(True)
            return
        mask = self.subset_mask(spec)
        self.subset = mask
        self.subset_spec = dict(spec)
        self.subset_changed.emit()
        self.set_modified(True)

    def count_subset_out_of_core(self, spec: dict) -> tuple[int, int]:
        """Records a ``[subset]`` selects out of core, and all records (a query on the
        frequency table of its columns; row numbers and samples as the backend draws
        them, ``engine.subset.subset_rows``). Runs queries: call it from a worker.

        Raises
        ------
        AnonymistError
            Naming the file and value when a row file is unreadable or an index is
            outside the data.
        """
        from engine.subset import check_indices, subset_rows
        data = self.backend_source
        if "query" in spec:
            return data.query_count(spec["query"])
        total = data.count_rows()
        rows = subset_rows(Job(subset=dict(spec), base_dir=self.base_dir or Path.cwd()),
                           lambda: total)
        check_indices(rows, total)
        return len(rows), total

    def subset_table(self) -> dict | None:
        """The job's ``[subset]`` table for the current subset (None: every row)."""
        if self.subset_spec:
            return dict(self.subset_spec)
        if self.subset is not None:
            return {"indices": np.flatnonzero(self.subset).tolist()}
        return None

    # --- the current transformation ------------------------------------------------------
    def apply_transformation(self, levels) -> None:
        """Make another transformation of the current result the one released (the
        optimum's own levels make the optimum current again)."""
        if self.result is None:
            return
        levels = self.result.levels_of(levels)
        if self.result.local_recoding is None and self.result.optimum is not None \
                and levels == self.result.levels_of(None):
            levels = None
        if levels == self.applied_levels:
            return
        self.applied_levels = levels
        self._current = None
        self.set_modified(True)
        self.output_changed.emit(self.applied_levels)

    def set_result(self, result, summary: dict | None = None,
                   applied: tuple | None = None) -> None:
        """A new result (None: none); ``applied``: the transformation applied in Explore
        (a project reopened), else the optimum is current."""
        self.applied_levels = None if applied is None else tuple(int(x) for x in applied)
        self._current = None
        self.result = result
        backend = getattr(getattr(result, "problem", None), "backend", None)
        if backend is not None and self.backend_source is not None:
            # the analyses' and the export's scans read the view's Parquet copy of a
            # CSV file once it exists (the same records; a fraction of the CSV's cost)
            self.backend_source.lend_copy(backend)
        self.result_summary = summary if summary is not None else (
            result.to_dict() if result is not None else None)
        self.result_changed.emit()

    def forget_result(self, summary: dict | None = None) -> None:
        """Drop the result (keeping ``summary`` for the result card) without emitting:
        the caller emits ``result_changed`` when the rest of the document is in place."""
        self.result, self.result_summary = None, summary
        self.applied_levels, self._current = None, None

    def current_transformation(self) -> CurrentTransformation | None:
        """What is released now (None: no result, or no transformation meets the models
        and none was applied)."""
        r = self.result
        if r is None or (r.optimum is None and self.applied_levels is None):
            return None
        if self._current is None:
            if self.applied_levels is None:
                opt, local = r.optimum, r.local_recoding
                suppressed = local.suppressed_after if local is not None \
                    else opt.suppressed_records
                self._current = CurrentTransformation(
                    dict(opt.levels), False, local is not None, bool(opt.anonymous),
                    int(suppressed), opt.information_loss_percent)
            else:
                ev = r.evaluate(self.applied_levels)
                self._current = CurrentTransformation(
                    dict(ev.levels), True, False, bool(ev.anonymous),
                    int(ev.suppressed_records), ev.information_loss_percent)
        return self._current

    def released(self):
        """The released table of the current transformation (`engine.output`), the one
        table export writes and the Analyze perspectives show."""
        if self.result is None:
            raise ValueError("nothing has been anonymized yet")
        return self.result.transformed(self.applied_levels)

    def released_page(self, start: int, count: int):
        """Rows ``start ..`` of the current release as text (a DataFrame): out of core
        from a query applying ``engine.output.release_plan`` to the file (what export
        writes), else a slice of `released`. Out of core it scans: call from a worker."""
        if self.result is None:
            raise ValueError("nothing has been anonymized yet")
        if self.backend_source is None:
            frame = self.released().frame
            return frame.iloc[int(start):int(start) + int(count)].reset_index(drop=True)
        from engine.output import release_plan
        levels = self.result.levels_of(self.applied_levels)
        key = (id(self.result), levels)
        if getattr(self, "_plan_key", None) != key:
            self._plan, self._plan_key = release_plan(self.result.problem, levels), key
        return self.backend_source.released_page(self._plan, start, count)

    # --- engine job -------------------------------------------------------------------
    def build_job(self) -> Job:
        """A fresh engine ``Job`` from the current settings (validated by the engine).

        Raises
        ------
        AnonymistError
            With a readable message when a setting is invalid.
        """
        attributes = {}
        for name, a in self.attributes.items():
            if a.type == INSENSITIVE and a.hierarchy is None and a.weight is None \
                    and a.min_level is None and a.max_level is None:
                continue  # columns not named are insensitive
            if name in self.hierarchy_rows and a.hierarchy is None:
                # re-validate to report the editor's error with its message
                Hierarchy.from_rows(self.hierarchy_rows[name], attribute=name)
            attributes[name] = replace(a)
        person = self.extras.get("person")  # app/person_role.py
        job = Job(data=DataConfig(self.source.location or None, self.source.delimiter,
                                  self.source.encoding,
                                  person=person if person in self.attributes else None),
                  attributes=attributes,
                  privacy=[model_from_dict(dict(p)) for p in self.settings.privacy],
                  transformation=replace(self.settings.transformation,
                                         genetic=dict(self.settings.transformation.genetic)),
                  metric=metric_from_dict(dict(self.settings.metric)),
                  subset=self.subset_table(),
                  population=(dict(self.settings.population) if self.settings.population
                              else None),
                  engine=(replace(self.engine, backend="duckdb",
                                  memory_limit=self.source.memory_limit or
                                  self.engine.memory_limit) if self.out_of_core
                          else self.engine),
                  base_dir=self.base_dir or Path.cwd())
        return job

    def check_job(self) -> str | None:
        """A readable reason why the job cannot run, or None."""
        if not self.has_data:
            return "Import data first (File > Import data)."
        if not any(a.type == "quasi-identifying" for a in self.attributes.values()):
            return ("Mark at least one attribute as quasi-identifying (Configure > "
                    "Attributes > Type) and give it a hierarchy.")
        if not self.settings.privacy:
            return "Add at least one privacy model (Configure > Privacy models > Add…)."
        try:
            self.build_job()
        except AnonymistError as e:
            return str(e)
        return None


def rows_digest(rows) -> str:
    """A fingerprint of a hierarchy's rows, to tell whether it changed since it was built."""
    import hashlib
    return hashlib.sha256("\n".join("\x1f".join(r) for r in rows).encode()).hexdigest()
