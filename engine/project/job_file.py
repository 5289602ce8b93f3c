"""Read and write the TOML job file (see README, "Job file").

Every key is read strictly from its declaration (``engine.schema``): unknown keys,
wrong kinds and out-of-range values are refused with a message naming the file,
table, key and value. Relative paths are relative to the job file. The file is UTF-8
text, with or without a byte order mark.
"""
from __future__ import annotations

import codecs
import tomllib
from dataclasses import replace
from pathlib import Path

import tomli_w

from engine.config import (QUASI_IDENTIFYING, AttributeConfig, DataConfig, EngineConfig, Job,
                           TransformationConfig)
from engine.errors import AnonymistError, JobError
from engine.hierarchy.csv_io import read_hierarchy
from engine.hierarchy.from_spec import beside_path, check_builder_table, plain
from engine.hierarchy.model import Hierarchy
from engine.io_utils import atomic_write_text
from engine.metrics import metric_from_dict
from engine.persons import check_person_role
from engine.sdc.roles import check_survey_roles, weight_alias
from engine.privacy import model_from_dict
from engine.privacy.population import read_population
from engine.privacy.sensitive import check_sensitive_roles
from engine.project.job_data import STREAMED, check_data_config, data_kind, read_frame
from engine.pseudonyms import JOB_KEYS as PSEUDONYM_KEYS
from engine.pseudonyms import read_pseudonym
from engine.schema import (Param, ParamError, frozen, dataclass_from_table, dataclass_to_table, show,
                           unknown_key_error)
from engine.search.genetic_settings import check_genetic_table
from engine.subset import read_subset
from engine.transform.identifiers import check_identifier_keys
from engine.transform.perturbation import check_sdc_methods
from engine.transform.job_keys import (read_attribute_transformation,
                                       read_transformation_options,
                                       transformation_options_to_dict)

JOB_VERSION = 1
FORMAT_VERSION = Param("format_version", "int", JOB_VERSION, low=1, label="Format version",
                       help="the job file format's version (this Anonymist reads 1)")
#: the top-level tables and keys of a job file
TOP_KEYS = ("format_version", "data", "attributes", "privacy", "transformation", "metric",
            "subset", "population", "engine")
#: keys declared in their own modules and read there, strictly, besides the tables'
#: own: the pseudonym keys (engine.pseudonyms.PseudonymSpec), the genetic settings
#: (engine.search.genetic_settings) and local recoding (engine.transform.job_keys)
_ATTRIBUTE_EXTRA_KEYS = tuple(sorted(PSEUDONYM_KEYS))
_TRANSFORMATION_EXTRA_KEYS = ("genetic", "local_recoding")


def load_job(path: str | Path) -> Job:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise JobError(f"job file not found: {path}") from None
    except IsADirectoryError:
        raise JobError(f"job file {path} is a folder, not a file") from None
    except OSError as e:
        raise JobError(f"job file {path} cannot be read: {e.strerror or e}") from None
    try:
        text = raw.decode("utf-8-sig")  # a byte order mark (Windows editors) is no statement
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise JobError(f"job file {path} is not UTF-8 text (byte {raw[e.start]:#04x} on "
                       f"line {line}): save it as UTF-8") from None
    try:
        d = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise JobError(f"job file {path} is not valid TOML: {e}") from None
    try:
        return job_from_dict(d, path.parent.resolve())
    except AnonymistError as e:
        raise type(e)(f"{path}: {e}") from None


def _table(d: dict, key: str, where: str) -> dict:
    """``d[key]`` when it is a table (absent: empty)."""
    v = d.get(key, {})
    if not isinstance(v, dict):
        raise ParamError(f"{where} must be a table, got {key} = {show(v)}")
    return v


def job_from_dict(d: dict, base_dir: Path | None = None,
                  hierarchies: dict[str, Hierarchy | None] | None = None) -> Job:
    """Build a ``Job`` from the TOML structure, strictly: every key is checked against its
    declaration (``engine.schema``); hierarchies are read from their files, but for the
    attributes ``hierarchies`` gives them of (the app's, edited in memory; None: none
    valid)."""
    base_dir = Path(base_dir or Path.cwd())
    if not isinstance(d, dict):
        raise ParamError(f"a job must be a table of tables, got {show(d)}")
    for key in d:
        if key not in TOP_KEYS:
            raise unknown_key_error("the job", key, TOP_KEYS, "table")
    if "format_version" in d:
        version = FORMAT_VERSION.check(d["format_version"], "the job's")
        if version > JOB_VERSION:
            raise JobError(f"job format_version {version} is newer than this Anonymist "
                           f"understands ({JOB_VERSION})")
    data = dataclass_from_table(DataConfig, _table(d, "data", "[data]"), "[data]")
    check_data_config(data)
    try:
        codecs.lookup(data.encoding)
    except LookupError:
        raise ParamError(f"[data] encoding = {show(data.encoding)} is not an encoding "
                         f"Python knows (e.g. 'utf-8', 'latin-1')") from None
    resolve = Job(base_dir=base_dir).resolve
    attributes = {}
    data, tables = weight_alias(data, _table(d, "attributes", "[attributes]"))
    for name, a in tables.items():
        where = f"[attributes.\"{name}\"]"
        if not isinstance(a, dict):
            raise ParamError(f"{where} must be a table, got {show(a)}")
        attributes[name] = _attribute(name, a, where, resolve, hierarchies)
    if data.hierarchies == "beside":
        attributes = hierarchies_beside(data, attributes, resolve, base_dir)
    privacy = d.get("privacy", [])
    if not isinstance(privacy, list):
        raise ParamError("privacy models must be written as [[privacy]] tables, got "
                         f"privacy = {show(privacy)}")
    t = _table(d, "transformation", "[transformation]")
    transformation = dataclass_from_table(
        TransformationConfig, t, "[transformation]", ignore=_TRANSFORMATION_EXTRA_KEYS,
        genetic=check_genetic_table(t.get("genetic", {})), **read_transformation_options(t))
    metric = metric_from_dict(_table(d, "metric", "[metric]") if "metric" in d
                              else {"name": "loss"})
    job = Job(
        data=data, attributes=attributes,
        privacy=[model_from_dict(p, i) for i, p in enumerate(privacy, start=1)],
        transformation=transformation, metric=metric,
        subset=read_subset(_table(d, "subset", "[subset]")) if "subset" in d else None,
        population=(read_population(_table(d, "population", "[population]"))
                    if "population" in d else None),
        engine=(dataclass_from_table(EngineConfig, _table(d, "engine", "[engine]"), "[engine]")
                if "engine" in d else EngineConfig()),
        base_dir=base_dir)
    check_person_role(job)
    check_survey_roles(job)
    check_sensitive_roles(job.privacy, job.attributes)
    check_sdc_methods(job)  # cell suppression and the perturbative methods
    return job


def read_attribute(name: str, table: dict, where: str) -> AttributeConfig:
    """One ``[attributes."name"]`` table read as a job file's is, its hierarchy left out
    (the caller holds its rows: a project file)."""
    return _attribute(name, {k: v for k, v in table.items() if k != "hierarchy"}, where,
                      resolve=None)


def attribute_table(a: AttributeConfig) -> dict:
    """An attribute's ``[attributes."name"]`` table: its declared keys (the hierarchy by
    its path, or its builder), its pseudonym's (method and key source, never a key)."""
    t = dataclass_to_table(a)
    if a.pseudonym is not None:
        t.update(a.pseudonym.to_dict())
    if a.hierarchy_builder is not None and a.hierarchy_path is None:
        t["hierarchy"] = plain(a.hierarchy_builder)
    return t


def _attribute(name: str, a: dict, where: str, resolve,
               hierarchies: dict | None = None) -> AttributeConfig:
    """One ``[attributes."name"]`` table: the declared keys, the pseudonym keys (read by
    engine.pseudonyms), then the combination of the transformation-method keys."""
    builder = None
    if isinstance(a.get("hierarchy"), dict):  # a builder, built when the data is bound
        builder = frozen(check_builder_table(a["hierarchy"], where))
        a = {k: v for k, v in a.items() if k != "hierarchy"}
    cfg = dataclass_from_table(AttributeConfig, a, where, ignore=_ATTRIBUTE_EXTRA_KEYS)
    if hierarchies is not None and name in hierarchies:
        hierarchy = hierarchies[name]
    else:
        hierarchy = (None if cfg.hierarchy_path is None
                     else read_hierarchy(resolve(cfg.hierarchy_path), name))
    cfg = replace(cfg, hierarchy=hierarchy, hierarchy_builder=builder,
                  pseudonym=read_pseudonym(a, where, cfg.type))
    read_attribute_transformation(cfg, a, where)
    check_identifier_keys(cfg, where)
    return cfg


def hierarchies_beside(data: DataConfig, attributes: dict, resolve, base_dir: Path) -> dict:
    """``[data] hierarchies = "beside"``: each attribute without a hierarchy (file or
    builder) takes ARX's ``<data>_hierarchy_<attribute>.csv`` from the data's folder when
    it is there; a quasi-identifier must find its file."""
    if not data.path:
        raise JobError("[data] hierarchies = \"beside\" needs [data] path: the hierarchies "
                       "are found beside the data file")
    out = dict(attributes)
    for name, a in attributes.items():
        if a.hierarchy is not None or a.hierarchy_builder is not None:
            continue
        path = beside_path(resolve(data.path), name)
        if not path.is_file():
            if a.type == QUASI_IDENTIFYING and a.transformation == "generalization":
                raise JobError(f"[data] hierarchies = \"beside\": quasi-identifier "
                               f"'{name}' has no hierarchy and {path} is not there")
            continue
        try:
            shown = str(path.relative_to(base_dir))
        except ValueError:
            shown = str(path)
        out[name] = replace(a, hierarchy=read_hierarchy(path, name), hierarchy_path=shown)
    return out


def transformation_to_dict(tr: TransformationConfig) -> dict:
    """The ``[transformation]`` table (with ``genetic`` when it has settings)."""
    t = dataclass_to_table(tr)
    if tr.genetic:
        t["genetic"] = dict(tr.genetic)
    t.update(transformation_options_to_dict(tr))
    return t


def job_to_dict(job: Job) -> dict:
    """The TOML structure of a job (hierarchies by their paths)."""
    d: dict = {"format_version": JOB_VERSION, "data": dataclass_to_table(job.data)}
    d["attributes"] = {name: attribute_table(a) for name, a in job.attributes.items()}
    d["privacy"] = [m.to_dict() for m in job.privacy]
    d["transformation"] = transformation_to_dict(job.transformation)
    d["metric"] = job.metric.to_dict()
    if job.subset:
        d["subset"] = dict(job.subset)
    if job.population:
        d["population"] = dict(job.population)
    if job.engine != EngineConfig():
        d["engine"] = dataclass_to_table(job.engine)
    return d


def save_job(job: Job, path: str | Path) -> None:
    """Write the job as TOML, atomically."""
    atomic_write_text(Path(path), tomli_w.dumps(job_to_dict(job)))


def load_data(job: Job) -> "pandas.DataFrame":  # noqa: F821 - loaded when called
    """Read the job's ``[data]`` file as a DataFrame of categoricals."""
    from engine.data.csv_import import read_csv
    if data_kind(job) not in STREAMED:
        return read_frame(job)
    if data_kind(job) == "parquet":
        from engine.data.readers import read_parquet
        return read_parquet(job.resolve(job.data.path))
    return read_csv(job.resolve(job.data.path), delimiter=job.data.delimiter,
                    encoding=job.data.encoding, header=True, categorical=True)


def load_encoded(job: Job) -> "EncodedTable":  # noqa: F821 - loaded when called
    """Read the job's ``[data]`` file as an encoded table: the codes and dictionaries
    `load_data`'s DataFrame gives, read without pandas where Arrow reads the file."""
    from engine.data.csv_import import read_csv_encoded
    if data_kind(job) not in ("csv",):
        from engine.data.table import EncodedTable
        return EncodedTable.from_dataframe(load_data(job))
    return read_csv_encoded(job.resolve(job.data.path), delimiter=job.data.delimiter,
                            encoding=job.data.encoding, header=True)


def bind_hierarchies(job: Job) -> Job:
    """``job`` with the hierarchies it names by a builder built from its data (read for
    that; the job itself when it names none): what ``verify`` checks levels against."""
    if not any(a.hierarchy_builder is not None and a.hierarchy is None
               for a in job.attributes.values()):
        return job
    from engine.hierarchy.from_spec import bind_built
    return bind_built(job, load_encoded(job))
