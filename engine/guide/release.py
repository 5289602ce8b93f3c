"""Write a release and check each written file independently before calling it done.

A release folder holds the anonymized data, the job that made it (a normal job
file, with every hierarchy as a CSV beside it, so ``anonymist anonymize`` can
reproduce it and ``anonymist verify`` check it) and, optionally, the value
mapping and the release report (PDF and JSON, `engine.release_docs`). The data file is read back with plain pandas and recounted against the
job read back from its file (what ``anonymist verify`` does); the value mapping
is applied to the input and must give the released quasi-identifiers exactly.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from engine.config import Job


@dataclass(frozen=True)
class Artefact:
    """One written file (or folder) and the verdict of its independent check."""

    kind: str  # "data" | "job" | "mapping"
    path: Path
    verified: bool
    message: str


def _read_back(path: Path, delimiter: str) -> pd.DataFrame:
    return pd.read_csv(path, sep=delimiter, dtype=str, keep_default_na=False)


def _safe(name: str) -> str:
    return re.sub(r"[^\w.-]+", "_", name).strip("._") or "attribute"


def write_release_job(job: Job, folder: Path, stem: str) -> Path:
    """The job as a TOML file in ``folder``, each hierarchy written as CSV beside it
    (``<stem>-hierarchies/<attribute>.csv``), the data path absolute."""
    import tomli_w

    from engine.hierarchy.csv_io import write_hierarchy
    from engine.io_utils import atomic_write_text
    from engine.project.job_file import job_to_dict
    d = job_to_dict(job)
    if job.data.path:
        d["data"]["path"] = str(job.resolve(job.data.path).resolve())
    hierarchies = folder / f"{stem}-hierarchies"
    for name, a in job.attributes.items():
        if a.hierarchy is None:
            continue
        hierarchies.mkdir(parents=True, exist_ok=True)
        path = hierarchies / f"{_safe(name)}.csv"
        write_hierarchy(a.hierarchy, path)
        d["attributes"][name]["hierarchy"] = str(path.relative_to(folder))
    path = folder / f"{stem}-job.toml"
    atomic_write_text(path, tomli_w.dumps(d))
    return path


def verify_release(data_path: Path, job_path: Path) -> Artefact:
    """``anonymist verify DATA JOB``: the file recounted against the job read from disk."""
    from engine.project.job_file import load_job
    from engine.verify import verify_frame
    job = load_job(job_path)
    report = verify_frame(_read_back(data_path, job.data.delimiter or ";"), job)
    if report.ok:
        return Artefact("data", data_path, True, "recounted from the file: meets every "
                        "privacy model and the suppression limit")
    return Artefact("data", data_path, False, "FAILED the recount: " +
                    "; ".join(report.violations))


def release_mapping(result, levels, folder: Path, data_path: Path,
                    delimiter: str = ";") -> Artefact:
    """Write the value mapping into ``folder`` and check that, applied to the input, it
    gives the released file's quasi-identifiers exactly."""
    from engine.export.mapping import apply_mapping, read_mapping, value_mapping, write_mapping
    problem = result.problem
    write_mapping(value_mapping(problem, result.levels_of(levels), result.transformed(levels)),
                  folder, delimiter)
    tables, rows = read_mapping(folder, delimiter)
    source = pd.DataFrame({q: problem.table.column(q).values().astype(str) for q in tables})
    mapped = apply_mapping(source, tables, rows).to_numpy(dtype=str)
    written = _read_back(data_path, delimiter)[list(tables)].to_numpy(dtype=str)
    if mapped.shape == written.shape and bool((mapped == written).all()):
        return Artefact("mapping", Path(folder), True, "applied to the input, it gives the "
                        "released quasi-identifiers exactly")
    return Artefact("mapping", Path(folder), False, "FAILED: applied to the input it does "
                    "not give the released file")


def release_report(result, levels, folder: Path, stem: str, data_path: Path,
                   input_path: str | None, delimiter: str = ";") -> Artefact:
    """The release report (PDF and JSON) of the data file as read back; it counts as
    checked when its own verification of the re-read file passed."""
    from engine.release_docs.pdf import export_report
    pdf, _json, report = export_report(
        result, folder / f"{stem}-report.pdf", None if levels is None else list(levels),
        input_path=input_path or None, output_path=data_path,
        reread=_read_back(data_path, delimiter))
    verdict = report.get("verification", {})
    if verdict.get("ok"):
        return Artefact("report", pdf, True, "PDF and JSON; its verification of the "
                        "re-read file passed")
    return Artefact("report", pdf, False, "FAILED: the report's verification found " +
                    "; ".join(verdict.get("violations", [])))


def release(result, levels, job: Job, folder: str | Path, stem: str,
            mapping: bool = True, report: bool = True) -> list[Artefact]:
    """Write data, job and (optionally) mapping and report for ``levels`` (None: the
    result's own output, the optimum or its local recoding) into ``folder`` and check
    each; the data is written with the job's delimiter. A locally recoded release has no
    value mapping (records carry different levels of one attribute)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    delimiter = job.data.delimiter or ";"
    data_path = folder / f"{stem}-anonymized.csv"
    result.write_output(data_path, levels, delimiter=delimiter)
    job_path = write_release_job(job, folder, stem)
    artefacts = [verify_release(data_path, job_path),
                 Artefact("job", job_path, True, "the job that made this release "
                          "(anonymist anonymize / verify read it)")]
    if mapping and not (levels is None and result.local_recoding is not None):
        artefacts.append(release_mapping(result, levels, folder / f"{stem}-mapping",
                                         data_path, delimiter))
    if report:
        source = str(job.resolve(job.data.path)) if job.data.path else None
        artefacts.append(release_report(result, levels, folder, stem, data_path, source,
                                        delimiter))
    return artefacts
