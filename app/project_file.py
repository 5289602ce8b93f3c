"""Project files (``*.anonymist``): one zip, no pickle, a versioned schema.

Members
-------
``manifest.json``   format name, schema version, app version, what is inside
``job.toml``        the engine's job format; hierarchy and subset paths point
                    into the zip, ``[data] path`` to ``data.csv`` or the
                    original file
``hierarchies/*.csv`` one ARX hierarchy CSV per attribute (``;``-separated)
``data.csv``        the input data (optional), ``;``-separated UTF-8
``subset.txt``      research-subset row indices, one a line (optional)
``source.json``     where the data was imported from
``result.json``     the last result summary (optional)
``result/state.json`` and ``result/*.npy``  the last result itself: solution space,
                    optimum, local recoding, applied transformation, fingerprints
                    (engine/saved_result.py; schema 2, optional)
``extras.json``     state of the perspectives (clipboard, ...) (optional)

Schema versions: 1 kept only the result's summary; 2 adds ``result/`` (a project of
schema 1 opens with the summary and no result). Arrays are ``.npy`` members read
with ``allow_pickle=False``.

Everything here is Qt-free: a snapshot is taken in the GUI thread, written or
read in a worker, and applied in the GUI thread.
"""
from __future__ import annotations

import csv
import io
import json
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd
import tomli_w
import tomllib

from app import __version__
from app.survey_roles import survey_extras, survey_job_keys
from engine.config import TransformationConfig
from engine.data.table import EncodedTable
from engine.errors import AnonymistError
from engine.io_utils import atomic_write_bytes
from engine.project.job_file import job_from_dict, transformation_to_dict
from engine.saved_result import ARRAY_MEMBERS, STATE_MEMBER

FORMAT_NAME = "anonymist-project"
RESULT_STATE = STATE_MEMBER
RESULT_ARRAYS = tuple(ARRAY_MEMBERS.values())
SCHEMA_VERSION = 2
EXTENSION = ".anonymist"
#: limits of what a project may declare (zip bombs and damaged directories): the whole
#: project unpacked, a data or result member, any other member; and the compression
#: ratio beyond which a member cannot be real (deflate tops out near 1032:1)
MAX_TOTAL_BYTES = 4 << 30
MAX_DATA_MEMBER_BYTES = 4 << 30
MAX_OTHER_MEMBER_BYTES = 256 << 20
MAX_COMPRESSION_RATIO = 1100
#: errors a zip member's reader raises on damaged bytes
_READ_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError,
                RuntimeError, ValueError)
_HIERARCHY_MEMBER = re.compile(r"hierarchies/[0-9]{3}_[A-Za-z0-9_.-]{0,60}\.csv")


class ProjectError(AnonymistError):
    """A project file cannot be read or written."""


@dataclass
class ProjectSnapshot:
    """Everything a project file holds, as plain Python data."""

    attributes: dict[str, dict] = field(default_factory=dict)  # job-file attribute tables
    hierarchies: dict[str, list[list[str]]] = field(default_factory=dict)
    privacy: list[dict] = field(default_factory=list)
    metric: dict = field(default_factory=dict)
    transformation: TransformationConfig = field(default_factory=TransformationConfig)
    source: dict = field(default_factory=dict)
    table: EncodedTable | None = None
    subset: np.ndarray | None = None  # row indices
    #: how the subset was selected when not by hand: the job's [subset] query / sample
    subset_spec: dict | None = None
    population: dict | None = None  # the job's [population]
    #: an opened job file's: its folder and the hierarchy paths it names (not saved)
    base_dir: Path | None = None
    hierarchy_paths: dict[str, str] = field(default_factory=dict)
    result: dict | None = None
    #: the result itself (engine/saved_result.py): JSON state and ``.npy`` members
    result_state: dict | None = None
    result_arrays: dict[str, bytes] = field(default_factory=dict)
    extras: dict = field(default_factory=dict)
    #: the data handle opened on reading (``engine.backends.handle.DataHandle``): over
    #: ``table``, or out of core (``source["backend"] == "duckdb"``: never written, the
    #: file is named)
    data: object = None


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:60]


def _hierarchy_csv(rows: list[list[str]]) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, delimiter=";", lineterminator="\n").writerows(rows)
    return buf.getvalue().encode("utf-8")


def _job_dict(snap: ProjectSnapshot, members: dict[str, str]) -> dict:
    src = snap.source
    data = {"delimiter": src.get("delimiter", ";"), "encoding": src.get("encoding", "utf-8")}
    if snap.table is not None and "data.csv" in members.values():
        data = {"path": "data.csv", "delimiter": ";", "encoding": "utf-8"}
    elif src.get("location"):
        data["path"] = src["location"]
    person = snap.extras.get("person")  # app/person_role.py: the job's [data] person
    if isinstance(person, str) and person in snap.attributes:
        data["person"] = person
    data.update(survey_job_keys(snap.extras, snap.attributes))  # app/survey_roles.py
    attributes = {}
    for name, a in snap.attributes.items():
        t = {k: v for k, v in a.items() if v is not None and k != "hierarchy"}
        if name in members:
            t["hierarchy"] = members[name]
        attributes[name] = t
    d = {"format_version": 1, "data": data, "attributes": attributes,
         "privacy": [dict(p) for p in snap.privacy],
         "transformation": transformation_to_dict(snap.transformation),
         "metric": dict(snap.metric)}
    if snap.subset_spec and ("query" in snap.subset_spec or "sample" in snap.subset_spec):
        d["subset"] = dict(snap.subset_spec)  # re-selected from the data on opening
    elif snap.subset is not None:
        d["subset"] = {"rows": "subset.txt"}
    if snap.population:
        d["population"] = dict(snap.population)
    if src.get("backend") == "duckdb":  # data beyond memory: the job runs out of core
        d["engine"] = {"backend": "duckdb"}
        if src.get("memory_limit"):
            d["engine"]["memory_limit"] = src["memory_limit"]
    return d


def write_project(snap: ProjectSnapshot, path: str | Path, include_data: bool = True) -> None:
    """Write the project atomically (temporary file beside ``path``, then rename)."""
    path = Path(path)
    members: dict[str, str] = {}
    for i, name in enumerate(snap.hierarchies):
        members[name] = f"hierarchies/{i:03d}_{_safe(name)}.csv"
    include_data = include_data and snap.table is not None
    if include_data:
        members["\0data"] = "data.csv"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        manifest = {"format": FORMAT_NAME, "schema_version": SCHEMA_VERSION,
                    "app_version": __version__,
                    "saved": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                    "data_included": include_data, "has_result": snap.result is not None}
        z.writestr("manifest.json", json.dumps(manifest, indent=2))
        z.writestr("job.toml", tomli_w.dumps(_job_dict(snap, members)))
        z.writestr("source.json", json.dumps(snap.source, indent=2))
        for name, rows in snap.hierarchies.items():
            z.writestr(members[name], _hierarchy_csv(rows))
        if include_data:
            with z.open("data.csv", "w", force_zip64=True) as f:
                text = io.TextIOWrapper(f, encoding="utf-8", newline="")
                snap.table.to_dataframe().to_csv(text, sep=";", index=False)
                text.flush()
                text.detach()
        if snap.subset is not None:
            z.writestr("subset.txt", "\n".join(map(str, snap.subset.tolist())) + "\n")
        if snap.result is not None:
            z.writestr("result.json", json.dumps(snap.result, indent=2, default=str))
        if snap.result_state is not None:
            z.writestr(RESULT_STATE, json.dumps(snap.result_state, default=str))
            for member, data in snap.result_arrays.items():
                z.writestr(member, data)
        if snap.extras:
            z.writestr("extras.json", json.dumps(snap.extras, indent=2, default=str))
    atomic_write_bytes(path, buf.getvalue())


def _member(z: zipfile.ZipFile, name: str, where: str) -> bytes:
    """The bytes of one member; a damaged one is named in a ``ProjectError``."""
    try:
        return z.read(name)
    except _READ_ERRORS as e:
        raise ProjectError(f"{where}: member {name} is damaged and cannot be read "
                           f"({type(e).__name__}: {str(e)[:120]})") from None


def _text(z: zipfile.ZipFile, name: str, where: str) -> str:
    raw = _member(z, name, where)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ProjectError(f"{where}: member {name} is not UTF-8 text (byte "
                           f"0x{raw[e.start]:02X} at offset {e.start})") from None


def _read_json(z: zipfile.ZipFile, name: str, where: str = "the project",
               required: bool = False, kind: type | None = dict):
    """A JSON member (None when absent); ``kind``: the type its top level must have."""
    if name not in z.namelist():
        if required:
            raise ProjectError(f"{where}: the project has no {name}")
        return None
    text = _text(z, name, where)
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        raise ProjectError(f"{where}: member {name} is damaged: {e}") from None
    if kind is not None and value is not None and not isinstance(value, kind):
        raise ProjectError(f"{where}: member {name} must hold a JSON "
                           f"{'object' if kind is dict else kind.__name__}, not "
                           f"{type(value).__name__}")
    return value


def _limit(name: str) -> int:
    data = name == "data.csv" or name.startswith("result/")
    return MAX_DATA_MEMBER_BYTES if data else MAX_OTHER_MEMBER_BYTES


def check_sizes(z: zipfile.ZipFile, where: str, archive_bytes: int | None = None) -> None:
    """Refuse declared sizes no real project has: a member above its limit, a total above
    ``MAX_TOTAL_BYTES``, a compression ratio above ``MAX_COMPRESSION_RATIO`` (a zip bomb),
    or compressed sizes the archive cannot hold."""
    total = packed = 0
    for info in z.infolist():
        if info.file_size > _limit(info.filename):
            raise ProjectError(f"{where}: member {info.filename} declares "
                               f"{info.file_size:,} bytes, more than the "
                               f"{_limit(info.filename):,} a project member may hold")
        if info.file_size > MAX_COMPRESSION_RATIO * max(info.compress_size, 1) + 4096:
            raise ProjectError(f"{where}: member {info.filename} declares {info.file_size:,} "
                               f"bytes from {info.compress_size:,} compressed: not a real "
                               f"file (a zip bomb?)")
        total += info.file_size
        packed += info.compress_size
    if total > MAX_TOTAL_BYTES:
        raise ProjectError(f"{where}: the members declare {total:,} bytes in all, more than "
                           f"the {MAX_TOTAL_BYTES:,} a project may hold")
    if archive_bytes is not None and packed > archive_bytes:
        raise ProjectError(f"{where}: the members declare {packed:,} compressed bytes, more "
                           f"than the file's {archive_bytes:,}: the project is damaged")


def _check_manifest(z: zipfile.ZipFile, where: str, archive_bytes: int | None = None) -> dict:
    check_sizes(z, where, archive_bytes)
    manifest = _read_json(z, "manifest.json", where)
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
        raise ProjectError(f"{where} is not an Anonymist project (no valid manifest.json)")
    version = manifest.get("schema_version")
    if not isinstance(version, int) or version < 1:
        raise ProjectError(f"{where}: the project's schema_version {version!r} is invalid")
    if version > SCHEMA_VERSION:
        raise ProjectError(f"{where} was saved by a newer Anonymist (project schema "
                           f"{version}; this version reads up to {SCHEMA_VERSION})")
    return manifest


def _read_hierarchy(z: zipfile.ZipFile, member: str, attr: str,
                    where: str = "the project") -> list[list[str]]:
    if not isinstance(member, str) or not _HIERARCHY_MEMBER.fullmatch(member) \
            or member not in z.namelist():
        raise ProjectError(f"{where}: attribute '{attr}': hierarchy {member!r} is not in "
                           f"the project")
    text = _text(z, member, where)
    try:
        return [r for r in csv.reader(io.StringIO(text), delimiter=";") if r]
    except csv.Error as e:
        raise ProjectError(f"{where}: member {member} is damaged: {e}") from None


def _read_table(z: zipfile.ZipFile, where: str = "the project") -> EncodedTable:
    try:
        with z.open("data.csv") as f:
            df = pd.read_csv(f, sep=";", dtype=str, keep_default_na=False, na_filter=False,
                             encoding="utf-8", quotechar='"')
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError,
            *_READ_ERRORS) as e:
        raise ProjectError(f"{where}: member data.csv is damaged: "
                           f"{type(e).__name__}: {str(e)[:120]}") from None
    return EncodedTable.from_dataframe(df)


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


#: the shapes of the perspectives' state in extras.json that the app reads
_THRESHOLDS = ("highest_risk", "records_at_risk", "success_rate")


#: points of a saved search-progress curve at most (one per improvement of the best loss)
MAX_PROGRESS_POINTS = 100_000


def _check_progress(progress, bad: str) -> None:
    """``explore.progress``: the search's curve, times and losses of equal length."""
    if not isinstance(progress, dict):
        raise ProjectError(f"{bad}: 'explore.progress' must be an object")
    times, losses = progress.get("times", []), progress.get("losses", [])
    if not isinstance(times, list) or not isinstance(losses, list) \
            or len(times) != len(losses) or len(times) > MAX_PROGRESS_POINTS:
        raise ProjectError(f"{bad}: 'explore.progress' needs 'times' and 'losses' lists of "
                           f"equal length (at most {MAX_PROGRESS_POINTS:,})")
    for i, (t, loss) in enumerate(zip(times, losses)):
        parts = loss if isinstance(loss, list) else [loss]
        if not _is_number(t) or not parts or not all(_is_number(x) for x in parts):
            raise ProjectError(f"{bad}: 'explore.progress' point {i + 1} is not a time "
                               f"and a loss")
    for key in ("checked", "last_time"):
        if key in progress and not _is_number(progress[key]):
            raise ProjectError(f"{bad}: 'explore.progress' {key} {progress[key]!r} is not "
                               f"a number")


def check_extras(extras: dict, where: str) -> None:
    """Refuse an ``extras.json`` whose known entries have the wrong shape, rather than
    opening a project the perspectives would half restore."""
    bad = f"{where}: member extras.json"
    clipboard = extras.get("explore.clipboard")
    if clipboard is not None:
        if not isinstance(clipboard, list):
            raise ProjectError(f"{bad}: 'explore.clipboard' must be a list")
        for i, e in enumerate(clipboard):
            levels = e.get("levels") if isinstance(e, dict) else None
            if not isinstance(levels, dict) or not all(
                    isinstance(v, int) and not isinstance(v, bool) for v in levels.values()):
                raise ProjectError(f"{bad}: clipboard entry {i + 1} needs 'levels' mapping "
                                   f"attributes to whole numbers")
            pct = e.get("information_loss_percent")
            if pct is not None and not _is_number(pct):
                raise ProjectError(f"{bad}: clipboard entry {i + 1} has "
                                   f"information_loss_percent {pct!r}, not a number")
    progress = extras.get("explore.progress")
    if progress is not None:
        _check_progress(progress, bad)
    risk = extras.get("risk")
    if risk is not None:
        if not isinstance(risk, dict):
            raise ProjectError(f"{bad}: 'risk' must be an object")
        t = risk.get("thresholds")
        if t is not None:
            if not isinstance(t, dict) or set(t) - set(_THRESHOLDS):
                raise ProjectError(f"{bad}: risk thresholds must be an object of "
                                   f"{', '.join(_THRESHOLDS)}")
            for k, v in t.items():
                if not _is_number(v) or not 0.0 <= v <= 1.0:
                    raise ProjectError(f"{bad}: risk threshold {k} = {v!r} is not a "
                                       f"share between 0 and 1")
    specs = extras.get("hierarchy_specs")
    if specs is not None and (not isinstance(specs, dict)
                              or not all(isinstance(v, dict) for v in specs.values())):
        raise ProjectError(f"{bad}: 'hierarchy_specs' must map attributes to objects")


def read_project(path: str | Path) -> ProjectSnapshot:
    """Read and validate a project file, every member, before anything is applied: a
    damaged or malformed member refuses the whole project.

    Raises
    ------
    ProjectError, JobError, HierarchyError
        With a message naming the project and the member at fault.
    """
    path = Path(path)
    where = path.name
    try:
        z = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise ProjectError(f"project file not found: {path}") from None
    except IsADirectoryError:
        raise ProjectError(f"{where} is a folder, not an Anonymist project") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, NotImplementedError):
        raise ProjectError(f"{where} is not an Anonymist project (not a zip file, or a "
                           f"damaged one)") from None
    except OSError as e:
        raise ProjectError(f"{where} cannot be read: {e.strerror or e}") from None
    with z:
        try:
            archive_bytes = path.stat().st_size
        except OSError:
            archive_bytes = None
        manifest = _check_manifest(z, where, archive_bytes)
        if "job.toml" not in z.namelist():
            raise ProjectError(f"{where}: the project has no job.toml")
        try:
            job = tomllib.loads(_text(z, "job.toml", where))
        except tomllib.TOMLDecodeError as e:
            raise ProjectError(f"{where}: member job.toml is not valid TOML: {e}") from None
        snap = ProjectSnapshot()
        attrs = job.get("attributes", {})
        if not isinstance(attrs, dict):
            raise ProjectError(f"{where}: job.toml [attributes] must be a table")
        for name, a in attrs.items():
            if isinstance(a, dict) and "hierarchy" in a:
                snap.hierarchies[name] = _read_hierarchy(z, a.pop("hierarchy"), name, where)
        checked = dict(job)
        subset_table = checked.pop("subset", None)
        try:  # the engine's reader: every key and value checked, with its messages
            read = job_from_dict(checked)
        except AnonymistError as e:
            raise type(e)(f"{where}: job.toml: {e}") from None
        except (TypeError, ValueError, KeyError, AttributeError, OverflowError) as e:
            raise ProjectError(f"{where}: job.toml holds a value that cannot be used: "
                               f"{type(e).__name__}: {str(e)[:120]}") from None
        snap.attributes = {n: dict(a) for n, a in attrs.items()}
        snap.privacy = list(job.get("privacy", []))
        snap.metric = dict(job.get("metric", {"name": "loss"}))
        snap.transformation = read.transformation
        snap.source = _read_json(z, "source.json", where) or {}
        if manifest.get("data_included") and "data.csv" in z.namelist():
            snap.table = _read_table(z, where)
        if "subset.txt" in z.namelist():
            try:
                snap.subset = np.array([int(x) for x in _text(z, "subset.txt", where).split()],
                                       dtype=np.int64)
            except ValueError:
                raise ProjectError(f"{where}: member subset.txt is damaged (not row "
                                   f"numbers)") from None
        if isinstance(subset_table, dict) and ("query" in subset_table
                                               or "sample" in subset_table):
            snap.subset_spec = dict(subset_table)
            if snap.table is not None:  # a query that does not run refuses the project
                from engine.config import Job
                from engine.subset import resolve_subset
                try:
                    resolve_subset(Job(subset=dict(subset_table)), snap.table)
                except AnonymistError as e:
                    raise ProjectError(f"{where}: job.toml [subset]: {e}") from None
        population = job.get("population")
        if population is not None:
            from engine.privacy.population import population_size
            population_size(population)  # checked with the engine's message
            snap.population = dict(population)
        snap.result = _read_json(z, "result.json", where)
        if manifest.get("schema_version", 1) >= 2 and RESULT_STATE in z.namelist():
            snap.result_state = _read_json(z, RESULT_STATE, where)
            snap.result_arrays = {m: _member(z, m, where) for m in RESULT_ARRAYS
                                  if m in z.namelist()}
        snap.extras = _read_json(z, "extras.json", where) or {}
        check_extras(snap.extras, where)
        # the person column is the job's (app/person_role.py keeps it in extras)
        data = job.get("data")
        snap.extras.pop("person", None)
        if isinstance(data, dict) and isinstance(data.get("person"), str):
            snap.extras["person"] = data["person"]
        survey = survey_extras(data)  # the weight and household are the job's too
        if survey is not None:
            snap.extras["survey"] = survey
    return snap
