"""The guided release: a release folder in two parts, each file checked independently.

The release is written by the one release writer (``engine.release_docs.writer``) in its
share/internal layout: ``share/`` holds the anonymized data and the public report (no
original value), ``internal/`` the job that made it (a normal job file, every hierarchy
as a CSV beside it, so ``anonymist anonymize`` can reproduce it and ``anonymist verify``
check it), the value mapping and the full report, each folder with a README.txt saying
who may see it. Then each file is checked on its own
(``engine.release_docs.writer.check_release``): the data file read back with plain
pandas and recounted against the job read back from its file, the value mapping applied
to the input, the reports' verdict.
"""
from __future__ import annotations

from pathlib import Path

from engine.config import Job
from engine.release_docs.writer import Artefact, check_release, share_internal, write_release

__all__ = ["Artefact", "release"]


def release(result, levels, job: Job, folder: str | Path, stem: str,
            mapping: bool = True, report: bool = True) -> list[Artefact]:
    """Write data, job and (optionally) mapping and reports for ``levels`` (None: the
    result's own output, the optimum or its local recoding) into ``folder``'s
    ``share/`` and ``internal/`` and check each; the data is written with the job's
    delimiter. A locally recoded release has no value mapping (records carry different
    levels of one attribute). ``job`` is the result's (``result.problem.job``)."""
    mapping = mapping and not (levels is None and result.local_recoding is not None)
    source = job.resolve(job.data.path) if job.data.path else None
    request = share_internal(folder, stem, delimiter=job.data.delimiter or ";",
                             mapping=mapping, report=report, input_path=source)
    written = write_release(result, request, levels)
    return check_release(result, written, levels)
