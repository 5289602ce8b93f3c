"""Read and write the TOML job file (see README, "Job file").

Relative paths are relative to the job file. Errors name the key at fault.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

import pandas as pd
import tomli_w

from engine.config import (ALGORITHMS, ATTRIBUTE_TYPES, UNNAMED_COLUMNS, AttributeConfig,
                           DataConfig, EngineConfig, Job, TransformationConfig)
from engine.errors import AnonymistError, JobError
from engine.hierarchy.csv_io import read_hierarchy
from engine.io_utils import atomic_write_text
from engine.metrics import metric_from_dict
from engine.privacy import model_from_dict
from engine.pseudonyms import JOB_KEYS as PSEUDONYM_KEYS
from engine.pseudonyms import read_pseudonym
from engine.search.genetic_settings import check_genetic_table
from engine.transform.job_keys import (attribute_transformation_to_dict,
                                       read_attribute_transformation,
                                       read_transformation_options,
                                       transformation_options_to_dict)

JOB_VERSION = 1
_TOP_KEYS = {"format_version", "data", "attributes", "privacy", "transformation", "metric",
             "subset", "population", "engine"}
_ENGINE_KEYS = {"backend", "spark_master", "memory_limit", "memory_share"}
_TRANSFORMATION_KEYS = {"suppression_limit", "algorithm", "practical_monotonicity",
                        "time_limit_s", "step_limit", "seed", "heuristic_threshold", "genetic",
                        "local_recoding", "suppression_string", "remove_suppressed_values"}
_ATTRIBUTE_KEYS = {"type", "hierarchy", "min_level", "max_level", "weight", "data_type",
                   "format", "transformation", "function", "ignore_missing", "clustering",
                   "top", "bottom"} | PSEUDONYM_KEYS


def load_job(path: str | Path) -> Job:
    path = Path(path)
    try:
        d = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise JobError(f"job file not found: {path}") from None
    except tomllib.TOMLDecodeError as e:
        raise JobError(f"job file {path} is not valid TOML: {e}") from None
    try:
        return job_from_dict(d, path.parent.resolve())
    except AnonymistError as e:
        raise type(e)(f"{path}: {e}") from None


def _number(d: dict, key: str, where: str, kind=float, default=None, low=None,
            above=None):
    """``d[key]`` as ``kind`` (``default`` when absent), at least ``low`` / above ``above``."""
    if key not in d:
        return default
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise JobError(f"{where} {key} must be a number, got {v!r}")
    if kind is int and v != int(v):
        raise JobError(f"{where} {key} must be a whole number, got {v!r}")
    if (low is not None and not v >= low) or (above is not None and not v > above):
        bound = f"at least {low}" if low is not None else f"greater than {above}"
        raise JobError(f"{where} {key} = {v!r} must be {bound}")
    return kind(v)


def job_from_dict(d: dict, base_dir: Path | None = None) -> Job:
    """Build a ``Job`` from the TOML structure; hierarchies are read from their files."""
    base_dir = Path(base_dir or Path.cwd())
    unknown = set(d) - _TOP_KEYS
    if unknown:
        raise JobError(f"unknown table(s) in job: {', '.join(sorted(unknown))}")
    version = d.get("format_version", JOB_VERSION)
    if version > JOB_VERSION:
        raise JobError(f"job format_version {version} is newer than this Anonymist "
                       f"understands ({JOB_VERSION})")
    data = d.get("data", {})
    job = Job(base_dir=base_dir)
    unnamed = data.get("unnamed_columns", "warn")
    if unnamed not in UNNAMED_COLUMNS:
        raise JobError(f"[data] unnamed_columns = {unnamed!r} is not one of "
                       f"{', '.join(UNNAMED_COLUMNS)}")
    job.data = DataConfig(data.get("path"), data.get("delimiter", ";"),
                          data.get("encoding", "utf-8"), unnamed)
    for name, a in d.get("attributes", {}).items():
        where = f"[attributes.\"{name}\"]"
        if not isinstance(a, dict):
            raise JobError(f"{where} must be a table")
        bad = set(a) - _ATTRIBUTE_KEYS
        if bad:
            raise JobError(f"{where} has unknown key(s): {', '.join(sorted(bad))}")
        kind = a.get("type", "insensitive")
        if kind not in ATTRIBUTE_TYPES:
            raise JobError(f"{where} type = '{kind}' is not one of {', '.join(ATTRIBUTE_TYPES)}")
        cfg = AttributeConfig(kind, min_level=_number(a, "min_level", where, int),
                              max_level=_number(a, "max_level", where, int),
                              weight=_number(a, "weight", where), data_type=a.get("data_type"),
                              format=a.get("format"))
        if "hierarchy" in a:
            cfg.hierarchy_path = a["hierarchy"]
            cfg.hierarchy = read_hierarchy(job.resolve(a["hierarchy"]), name)
        read_attribute_transformation(cfg, a, where)
        cfg.pseudonym = read_pseudonym(a, where, kind)
        job.attributes[name] = cfg
    privacy = d.get("privacy", [])
    if not isinstance(privacy, list):
        raise JobError("privacy models must be written as [[privacy]] tables")
    job.privacy = [model_from_dict(p) for p in privacy]
    t = d.get("transformation", {})
    bad = set(t) - _TRANSFORMATION_KEYS
    if bad:
        raise JobError(f"[transformation] has unknown key(s): {', '.join(sorted(bad))}")
    algorithm = t.get("algorithm", "optimal")
    if algorithm not in ALGORITHMS:
        raise JobError(f"[transformation] algorithm = '{algorithm}' is not one of "
                       f"{', '.join(ALGORITHMS)}")
    limit = _number(t, "suppression_limit", "[transformation]", default=0.0)
    if not 0.0 <= limit <= 1.0:
        raise JobError(f"[transformation] suppression_limit = {limit} must be a fraction "
                       f"between 0 and 1")
    job.transformation = TransformationConfig(
        suppression_limit=limit, algorithm=algorithm,
        practical_monotonicity=bool(t.get("practical_monotonicity", False)),
        time_limit_s=_number(t, "time_limit_s", "[transformation]", above=0),
        step_limit=_number(t, "step_limit", "[transformation]", int, low=1),
        seed=_number(t, "seed", "[transformation]", int, low=0),
        heuristic_threshold=_number(t, "heuristic_threshold", "[transformation]", int,
                                    default=100_000, low=0),
        genetic=dict(check_genetic_table(t.get("genetic", {}))),
        **read_transformation_options(t))
    weights = {n: a.weight for n, a in job.attributes.items() if a.weight is not None}
    job.metric = metric_from_dict(d.get("metric", {"name": "loss"}), weights or None)
    job.subset = d.get("subset")
    job.population = d.get("population")
    job.engine = _engine(d.get("engine", {}))
    return job


def _engine(e: dict) -> EngineConfig:
    from engine.backends import BACKENDS
    if not isinstance(e, dict):
        raise JobError("[engine] must be a table")
    bad = set(e) - _ENGINE_KEYS
    if bad:
        raise JobError(f"[engine] has unknown key(s): {', '.join(sorted(bad))} "
                       f"(known: {', '.join(sorted(_ENGINE_KEYS))})")
    backend = e.get("backend", "auto")
    if backend not in BACKENDS:
        raise JobError(f"[engine] backend = {backend!r} is not one of {', '.join(BACKENDS)}")
    for key in ("spark_master", "memory_limit"):
        if key in e and (not isinstance(e[key], str) or not e[key].strip()):
            raise JobError(f"[engine] {key} must be a non-empty text, got {e[key]!r}")
    share = _number(e, "memory_share", "[engine]", default=0.25)
    if not 0.0 < share <= 1.0:
        raise JobError(f"[engine] memory_share = {share} must be a fraction in (0, 1]")
    return EngineConfig(backend, e.get("spark_master", "local[2]"), e.get("memory_limit"),
                        share)


def job_to_dict(job: Job) -> dict:
    """The TOML structure of a job (hierarchies by their paths)."""
    d: dict = {"format_version": JOB_VERSION}
    data = {k: v for k, v in (("path", job.data.path), ("delimiter", job.data.delimiter),
                              ("encoding", job.data.encoding)) if v is not None}
    if job.data.unnamed_columns != "warn":
        data["unnamed_columns"] = job.data.unnamed_columns
    d["data"] = data
    attrs = {}
    for name, a in job.attributes.items():
        t = {"type": a.type}
        for key in ("min_level", "max_level", "weight", "data_type", "format"):
            v = getattr(a, key)
            if v is not None:
                t[key] = v
        if a.hierarchy_path:
            t["hierarchy"] = a.hierarchy_path
        t.update(attribute_transformation_to_dict(a))
        if a.pseudonym is not None:
            t.update(a.pseudonym.to_dict())
        attrs[name] = t
    d["attributes"] = attrs
    d["privacy"] = [m.to_dict() for m in job.privacy]
    tr = job.transformation
    t = {"suppression_limit": tr.suppression_limit, "algorithm": tr.algorithm,
         "practical_monotonicity": tr.practical_monotonicity,
         "heuristic_threshold": tr.heuristic_threshold}
    for key in ("time_limit_s", "step_limit", "seed"):
        v = getattr(tr, key)
        if v is not None:
            t[key] = v
    if tr.genetic:
        t["genetic"] = dict(tr.genetic)
    t.update(transformation_options_to_dict(tr))
    d["transformation"] = t
    d["metric"] = job.metric.to_dict()
    if job.subset:
        d["subset"] = dict(job.subset)
    if job.population:
        d["population"] = dict(job.population)
    if job.engine != EngineConfig():
        d["engine"] = {k: v for k, v in vars(job.engine).items() if v is not None}
    return d


def save_job(job: Job, path: str | Path) -> None:
    """Write the job as TOML, atomically."""
    atomic_write_text(Path(path), tomli_w.dumps(job_to_dict(job)))


def load_data(job: Job) -> pd.DataFrame:
    """Read the job's ``[data]`` file."""
    from engine.data.csv_import import read_csv
    if not job.data.path:
        raise JobError("[data] path is missing: the job names no data file")
    return read_csv(job.resolve(job.data.path), delimiter=job.data.delimiter,
                    encoding=job.data.encoding, header=True, categorical=True)
