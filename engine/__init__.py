"""Anonymist's engine: a Qt-free library for anonymizing tabular data.

>>> import engine
>>> result = engine.anonymize(df, "job.toml")       # doctest: +SKIP
>>> result.optimum.levels, result.output.head()       # doctest: +SKIP

The names below load their modules when first used (PEP 562), so ``import engine``
and the command line's ``--help`` stay fast: pandas, numba and the kernels load
with the first name that needs them.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

#: public name -> the module defining it
_EXPORTS = {
    "anonymize": "engine.api", "prepare": "engine.api", "as_job": "engine.api",
    "risk": "engine.api",
    "load_job": "engine.project.job_file", "save_job": "engine.project.job_file",
    "Job": "engine.config", "AttributeConfig": "engine.config",
    "TransformationConfig": "engine.config",
    "AnonymizationResult": "engine.result", "Transformation": "engine.result",
    "AnonymistError": "engine.errors", "DataError": "engine.errors",
    "HierarchyError": "engine.errors", "JobError": "engine.errors",
}
__all__ = ["anonymize", "prepare", "as_job", "risk", "load_job", "save_job", "Job", "AttributeConfig",
           "TransformationConfig", "AnonymizationResult", "Transformation", "AnonymistError",
           "DataError", "HierarchyError", "JobError"]

if TYPE_CHECKING:
    from engine.api import anonymize, as_job, prepare, risk
    from engine.config import AttributeConfig, Job, TransformationConfig
    from engine.errors import AnonymistError, DataError, HierarchyError, JobError
    from engine.project.job_file import load_job, save_job
    from engine.result import AnonymizationResult, Transformation


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute '{name}'")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
