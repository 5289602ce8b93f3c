"""The open project: its data, the job being edited, the last result.

Widgets edit the job through this object and listen to its signals. The data is a
``DataHandle`` (``engine.backends.handle``: in memory or read out of core), asked for
names, counts and distinct values, never for where its rows are. ``build_job`` turns
the job being edited into an engine ``Job`` (a fresh, independent snapshot for each
run, so the worker thread never shares mutable state with the GUI). The result and
the transformation it releases are an ``engine.release_choice.ReleaseChoice``.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, Signal

from app.distinct_requests import DistinctRequests
from app.hierarchy_status import HierarchyStatus, rows_digest
from app.source import DataSource
from app.survey_roles import survey_job_keys
from engine.backends.handle import DataHandle
from engine.config import (INSENSITIVE, QUASI_IDENTIFYING, AttributeConfig, EngineConfig, Job,
                           TransformationConfig)
from engine.data.table import EncodedTable
from engine.errors import AnonymistError, HierarchyError
from engine.hierarchy.model import Hierarchy
from engine.project.job_file import attribute_table, job_from_dict, transformation_to_dict
from engine.release_choice import CurrentTransformation, ReleaseChoice
from engine.schema import dataclass_to_table

DEFAULT_METRIC = {"name": "loss", "monotonic": False, "gs_factor": 0.5,
                  "aggregate": "geometric-mean"}


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
    #: the records were counted (``row_count`` is known)
    rows_counted = Signal()
    #: distinct values of these columns were counted (``request_distinct``)
    distinct_ready = Signal(list)
    #: a query in the background failed (its message)
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
        #: the data (None: none imported)
        self.data: DataHandle | None = None
        self._distinct = DistinctRequests(lambda: self.data, self)
        self._distinct.ready.connect(self._distinct_ready)
        self._distinct.failed.connect(self.query_failed)
        #: the job's ``[engine]`` (backend, memory_share, memory_limit); data read out of
        #: core runs on DuckDB whatever it says (``DataHandle.job_engine``)
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
        #: the last result and the transformation it releases (None: no result)
        self.release: ReleaseChoice | None = None
        self.result_summary: dict | None = None  # the result's to_dict(), also in projects
        self.extras: dict = {}  # JSON state of perspectives, saved in projects
        self.path: Path | None = None
        self._modified = False

    # --- the data ----------------------------------------------------------------------
    @property
    def has_data(self) -> bool:
        return self.data is not None

    @property
    def table(self) -> EncodedTable | None:
        """The rows in memory (None: no data, or data read out of core)."""
        return None if self.data is None else self.data.table

    @property
    def out_of_core(self) -> bool:
        """The data is read by queries on its file (``DataHandle.out_of_core``)."""
        return self.data is not None and self.data.out_of_core

    @property
    def column_names(self) -> list[str]:
        return [] if self.data is None else self.data.names

    @property
    def row_count(self) -> int | None:
        """Records of the data (None: no data, or not counted yet)."""
        return None if self.data is None else self.data.n_rows

    def distinct_values(self, name: str) -> np.ndarray:
        """The sorted distinct values of column ``name`` (text); may scan the data:
        call it from a worker."""
        if self.data is None:
            raise ValueError("no data")
        return self.data.distinct_values(name)

    def known_distinct_values(self, name: str) -> np.ndarray | None:
        """``distinct_values`` when it needs no scan (None: not counted yet)."""
        return None if self.data is None else self.data.known_distinct_values(name)

    def request_distinct(self, names: list[str], then=None) -> bool:
        """Make the distinct values of ``names`` known: at once (True, ``then()`` has
        run) or counted in a worker, then ``distinct_ready(names)`` and ``then()``
        (False). The hierarchy status of the columns is shown again when they arrive."""
        return self._distinct.request(names, then)

    def wait_for_queries(self, msecs: int = 10000) -> bool:
        """Wait for the distinct values being counted (tests, closing)."""
        return self._distinct.wait(msecs)

    def _distinct_ready(self, names: list) -> None:
        self.distinct_ready.emit(names)
        self.attributes_changed.emit(names)  # their hierarchy status can be shown

    def hierarchy_columns(self, names: list[str]) -> dict:
        """``{name: EncodedColumn}`` for the hierarchy wizard (``request_distinct``
        first)."""
        return self.data.hierarchy_columns(names)

    def clear_data(self) -> None:
        """No data (a new project); the caller emits ``data_changed``."""
        self._distinct.forget()
        if self.data is not None:
            self.data.close()
        self.data = None

    def set_data(self, data: DataHandle, source: DataSource,
                 data_types: dict[str, tuple[str | None, str | None]] | None = None) -> None:
        """Replace the data; attribute settings of columns that remain are kept."""
        if data is not self.data:
            self.clear_data()
        self.data = data
        self.source = source
        names = data.names
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

    # --- file --------------------------------------------------------------------------
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
        elif name in self.column_names:  # its distinct values are still being counted
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
    def set_privacy(self, models: list[dict]) -> None:
        """The privacy models, as ``[[privacy]]`` tables (``build_job`` reads them with
        ``engine.privacy.model_from_dict``)."""
        self.settings.privacy = [dict(m) for m in models]
        self._settings_changed()

    def set_metric(self, metric: dict) -> None:
        """The ``[metric]`` table (read by ``engine.metrics.metric_from_dict``)."""
        self.settings.metric = dict(metric)
        self._settings_changed()

    def set_transformation(self, transformation: TransformationConfig) -> None:
        """The ``[transformation]`` settings (suppression limit, search, limits...)."""
        self.settings.transformation = transformation
        self._settings_changed()

    def set_population(self, population: dict | None) -> None:
        """The ``[population]`` table (None: no population)."""
        self.settings.population = None if population is None else dict(population)
        self._settings_changed()

    def _settings_changed(self) -> None:
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

    def subset_mask(self, spec: dict) -> np.ndarray | None:
        """The rows a ``[subset]`` table selects (the engine's reading; None out of core:
        the backend selects the rows when it counts them).

        Raises
        ------
        AnonymistError
            With the engine's message when the query, file or share is invalid.
        """
        if self.data is None:
            raise AnonymistError("import data first: a subset selects rows of the data")
        return self.data.subset_mask(spec, self.base_dir or Path.cwd())

    def set_subset_spec(self, spec: dict | None) -> None:
        """Select the subset by query, row file or random sample (None: every row)."""
        if not spec:
            self.set_subset(None)
            return
        self.subset = self.subset_mask(spec)
        self.subset_spec = dict(spec)
        self.subset_changed.emit()
        self.set_modified(True)

    def count_subset(self, spec: dict) -> tuple[int, int]:
        """Records a ``[subset]`` selects, and all records; may scan the data: call it
        from a worker.

        Raises
        ------
        AnonymistError
            Naming the file and value when a row file is unreadable or an index is
            outside the data.
        """
        return self.data.count_subset(spec, self.base_dir or Path.cwd())

    def subset_table(self) -> dict | None:
        """The job's ``[subset]`` table for the current subset (None: every row)."""
        if self.subset_spec:
            return dict(self.subset_spec)
        if self.subset is not None:
            return {"indices": np.flatnonzero(self.subset).tolist()}
        return None

    # --- the result and the transformation it releases --------------------------------
    @property
    def result(self):
        """The engine ``AnonymizationResult`` of the last run (None: none)."""
        return None if self.release is None else self.release.result

    @property
    def applied_levels(self) -> tuple | None:
        """The transformation applied in Explore (None: the result's optimum)."""
        return None if self.release is None else self.release.applied

    def apply_transformation(self, levels) -> None:
        """Make another transformation of the current result the one released (the
        optimum's own levels make the optimum current again)."""
        if self.release is not None and self.release.apply(levels):
            self.set_modified(True)
            self.output_changed.emit(self.release.applied)

    def set_result(self, result, summary: dict | None = None,
                   applied: tuple | None = None) -> None:
        """A new result (None: none); ``applied``: the transformation applied in Explore
        (a project reopened), else the optimum is current."""
        self.release = None if result is None else ReleaseChoice(result, applied)
        backend = getattr(getattr(result, "problem", None), "backend", None)
        if backend is not None and self.data is not None:
            # the analyses' and the export's scans read the handle's copy of the data
            # once it exists (the same records; a fraction of a CSV file's cost)
            self.data.lend_copy(backend)
        self.result_summary = summary if summary is not None else (
            result.to_dict() if result is not None else None)
        self.result_changed.emit()

    def forget_result(self, summary: dict | None = None) -> None:
        """Drop the result (keeping ``summary`` for the result card) without emitting:
        the caller emits ``result_changed`` when the rest of the document is in place."""
        self.release, self.result_summary = None, summary

    def current_transformation(self) -> CurrentTransformation | None:
        """What is released now (None: no result, or no transformation meets the models
        and none was applied)."""
        return None if self.release is None else self.release.current()

    def released(self):
        """The released table of the current transformation (`engine.output`), the one
        table export writes and the Analyze perspectives show."""
        if self.release is None:
            raise ValueError("nothing has been anonymized yet")
        return self.release.released()

    def released_page(self, start: int, count: int):
        """Rows ``start ..`` of the current release as text (a DataFrame); out of core
        it scans: call it from a worker."""
        if self.release is None:
            raise ValueError("nothing has been anonymized yet")
        return self.release.released_page(self.data, start, count)

    # --- engine job -------------------------------------------------------------------
    def job_table(self) -> dict:
        """The job being edited in the job file's own shape (``[data]`` names only the
        person column: the rows are the document's): the attributes a job names, the
        privacy models, transformation, metric, subset, population and engine."""
        attributes = {}
        for name, a in self.attributes.items():
            if a.type == INSENSITIVE and replace(a, data_type=None, format=None) == \
                    AttributeConfig():
                continue  # columns not named are insensitive (with every default:
                # a scrub, a kept reason or a coding rule names it)
            attributes[name] = attribute_table(a)
        person = self.extras.get("person")  # app/person_role.py
        data = {"person": person} if person in self.attributes else {}
        data.update(survey_job_keys(self.extras, self.attributes))  # app/survey_roles.py
        d = {"data": data,
             "attributes": attributes,
             "privacy": [dict(p) for p in self.settings.privacy],
             "transformation": transformation_to_dict(self.settings.transformation),
             "metric": dict(self.settings.metric),
             "engine": dataclass_to_table(self.engine if self.data is None
                                          else self.data.job_engine(self.engine))}
        if self.subset_table():
            d["subset"] = self.subset_table()
        if self.settings.population:
            d["population"] = dict(self.settings.population)
        return d

    def build_job(self) -> Job:
        """A fresh engine ``Job``: `job_table` read by the engine's job-file reader (every
        key and value checked once, there), with the document's hierarchies and where
        its data came from.

        Raises
        ------
        AnonymistError
            With a readable message when a setting is invalid.
        """
        table = self.job_table()
        for name in table["attributes"]:
            if name in self.hierarchy_rows and self.attributes[name].hierarchy is None:
                # re-validate to report the editor's error with its message
                Hierarchy.from_rows(self.hierarchy_rows[name], attribute=name)
        job = job_from_dict(table, self.base_dir or Path.cwd(),
                            hierarchies={n: a.hierarchy for n, a in self.attributes.items()})
        return replace(job, data=replace(job.data, path=self.source.location or None,
                                         delimiter=self.source.delimiter,
                                         encoding=self.source.encoding))

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

