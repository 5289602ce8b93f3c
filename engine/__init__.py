"""Anonymist's engine: a Qt-free library for anonymizing tabular data.

>>> import engine
>>> result = engine.anonymize(df, "job.toml")       # doctest: +SKIP
>>> result.optimum.levels, result.output.head()       # doctest: +SKIP
"""
from engine.api import anonymize, as_job, prepare
from engine.config import AttributeConfig, Job, TransformationConfig
from engine.errors import AnonymistError, DataError, HierarchyError, JobError
from engine.project.job_file import load_job, save_job
from engine.result import AnonymizationResult, Transformation

__all__ = ["anonymize", "prepare", "as_job", "load_job", "save_job", "Job", "AttributeConfig",
           "TransformationConfig", "AnonymizationResult", "Transformation", "AnonymistError",
           "DataError", "HierarchyError", "JobError"]
