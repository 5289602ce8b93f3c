"""The one release writer: ``anonymist anonymize``, the app's export, the guided release
and scripts write a release through `write_release`.

A release is the released table written to its target(s) and, on request, its documents:
the job that made it (TOML, every hierarchy as CSV beside it), the value mapping, the
pseudonym table, the release report (PDF and JSON, with the certificate of
``engine.certificate``) and the public report (the same without any original value).
Where the records are held — in memory or by a DuckDB or Spark backend — is decided
once, in ``engine.export.release_table.write_release_table``.

`share_internal` lays a release out in two folders: ``share/`` (the released table and
the public report: what may leave the organisation) and ``internal/`` (value mapping,
hierarchies, the job with its paths, the pseudonym table, the full report), each with a
README.txt saying who may see it. `check_release` checks each written file
independently (the guided release shows the verdicts)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import AnonymistError, Cancelled
from engine.export.targets import CsvOptions, DatabaseTarget, FileTarget, read_table

#: ``progress(fraction, what)`` with fraction in [0, 1]
ReleaseProgress = Callable[[float, str], None]

SHARE, INTERNAL = "share", "internal"
README = "README.txt"
SHARE_README = """\
SHARE — may leave the organisation

This folder holds the anonymized data and the public release report. The report names
no original (un-generalized) value: it gives the configuration, the released
transformation, quality, risk and the verdict of the independent verification, and the
certificate (SHA-256 of the input, the job, every hierarchy and the released file).

Anyone holding the job file (in ../internal) can re-check the release:
    anonymist verify <released file> <job file> --report <this folder's report>.json
"""
INTERNAL_README = """\
INTERNAL — keep inside the organisation; do not publish or send

This folder holds what re-identifies or reveals the original data: the value mapping
(every original value with its count), the hierarchies (every original value), the job
file (with the input's path), the pseudonym table (value -> pseudonym: re-identifies
whoever carries a pseudonym) and the full release report (distributions of the
original values). Only the data steward and whoever approves the release may see it.
"""


@dataclass(frozen=True)
class ReleaseRequest:
    """Where a release goes: the table's target(s) and the documents to write with it."""

    target: FileTarget | DatabaseTarget | None = None
    mapping: Path | None = None          # a folder of CSV files, or a .xlsx
    report: Path | None = None           # a .pdf; the JSON goes beside it
    input_path: Path | None = None       # the data file, hashed in the report
    #: the reversible pseudonym table (value -> pseudonym): refused beside the release
    pseudonym_table: Path | None = None
    #: the job file the release was made with, hashed in the report's certificate
    job_path: Path | None = None
    #: write the job here (TOML, hierarchies in ``<stem>-hierarchies/`` beside it); it is
    #: then the job the certificate hashes
    write_job: Path | None = None
    #: the public report (PDF, JSON beside it): the report without any original value
    public_report: Path | None = None
    #: further targets of the same table (the command line's --output and --output-url)
    more_targets: tuple = ()
    #: delimiter of the value mapping's CSV files
    mapping_delimiter: str = ";"
    #: folders that get a README.txt saying who may see them: (share, internal)
    share: Path | None = None
    internal: Path | None = None
    #: write the pseudonym table and the mapping even beside the released table
    force: bool = False

    @property
    def targets(self) -> list:
        return [t for t in (self.target, *self.more_targets) if t is not None]

    @property
    def documents(self) -> bool:
        return any(x is not None for x in (self.mapping, self.report, self.pseudonym_table,
                                           self.write_job, self.public_report))


@dataclass
class ReleaseWritten:
    """What `write_release` wrote (paths and descriptions) and the report's verdict."""

    written: list[str] = field(default_factory=list)
    #: per CSV target written, what was done with its formula cells (engine.formulas)
    formula_cells: dict[str, dict] = field(default_factory=dict)
    verified: bool | None = None
    violations: list[str] = field(default_factory=list)
    #: what each written file is: "data", "job", "mapping", "pseudonyms", "report",
    #: "public report", "readme" -> its path
    files: dict[str, Path] = field(default_factory=dict)


def share_internal(folder: str | Path, stem: str, target: FileTarget | DatabaseTarget |
                   None = None, *, delimiter: str = ";", mapping: bool = True,
                   report: bool = True, pseudonym_table: bool = False,
                   input_path: Path | None = None) -> ReleaseRequest:
    """The request of a release in ``folder``: ``share/<stem>-anonymized.csv`` (or
    ``target``) and ``share/<stem>-report.pdf`` (public); ``internal/<stem>-job.toml``
    with ``internal/<stem>-hierarchies/``, ``internal/<stem>-mapping/``,
    ``internal/<stem>-pseudonyms.csv`` and ``internal/<stem>-report-full.pdf``."""
    folder = Path(folder)
    share, internal = folder / SHARE, folder / INTERNAL
    if target is None:
        target = FileTarget(share / f"{stem}-anonymized.csv", "csv",
                            CsvOptions(delimiter=delimiter))
    return ReleaseRequest(
        target=target, mapping=internal / f"{stem}-mapping" if mapping else None,
        report=internal / f"{stem}-report-full.pdf" if report else None,
        public_report=share / f"{stem}-report.pdf" if report else None,
        input_path=input_path,
        pseudonym_table=internal / f"{stem}-pseudonyms.csv" if pseudonym_table else None,
        write_job=internal / f"{stem}-job.toml", mapping_delimiter=delimiter,
        share=share, internal=internal)


def beside_release(request: ReleaseRequest) -> list[str]:
    """The documents ``request`` would write into the released table's folder that must
    stay apart from it (the value mapping, the pseudonym table; the pseudonym table not
    beside the report that may be shared either: the public one, else the report), as
    sentences."""
    table = {Path(t.path).resolve().parent for t in request.targets
             if isinstance(t, FileTarget)}
    shared = request.public_report or request.report
    reports = {Path(shared).resolve().parent} if shared is not None else set()
    out = []
    for what, path, folders in (("the value mapping", request.mapping, table),
                                ("the pseudonym table", request.pseudonym_table,
                                 table | reports)):
        if path is not None and Path(path).resolve().parent in folders:
            out.append(f"{what} ({path}) would sit in the release's folder")
    return out


def write_release(result, request: ReleaseRequest, levels=None,
                  progress: ReleaseProgress | None = None,
                  cancel: Callable[[], bool] | None = None) -> ReleaseWritten:
    """Write ``levels`` (default: what ``result`` releases — the optimum, or its local
    recoding) as ``request`` asks: the table to every target (the first 80 % of the
    progress when documents follow), then the job, the value mapping, the pseudonym
    table, the report (of the table read back from the first target, with the
    certificate), the public report and the READMEs.

    The files are written all or none (``engine.io_utils.all_or_nothing``: when a
    document fails or the export is cancelled, they are as they were). Raises
    ``AnonymistError`` before anything is written for a request that cannot be met (no
    optimum, a document a backend does not write, the mapping or pseudonym table beside
    the released table without ``force``), ``Cancelled`` when cancelled."""
    from engine.io_utils import all_or_nothing
    if result.optimum is None:
        raise AnonymistError("no transformation meets the privacy models: nothing to release")
    _refuse(result, request, levels)
    with all_or_nothing(request_files(request)):
        return _write_release(result, request, levels, progress, cancel)


def request_files(request: ReleaseRequest) -> list[Path | None]:
    """The files (and folders) a release request writes."""
    out: list[Path | None] = [Path(t.path) for t in request.targets
                              if isinstance(t, FileTarget)]
    for pdf in (request.report, request.public_report):
        out += [pdf, pdf.with_suffix(".json")] if pdf is not None else []
    out += [request.mapping, request.pseudonym_table, request.write_job]
    if request.write_job is not None:
        job = Path(request.write_job)
        out.append(job.parent / f"{job.name.removesuffix('.toml').removesuffix('-job')}"
                                f"-hierarchies")
    out += [Path(f) / README for f in (request.share, request.internal) if f is not None]
    return out


def _write_release(result, request: ReleaseRequest, levels, progress, cancel
                   ) -> ReleaseWritten:
    from engine.export.release_table import check_backend_targets, write_release_table
    report = progress or (lambda fraction, what: None)
    stop = cancel or (lambda: False)
    targets = request.targets
    check_backend_targets(result, targets)
    share = 0.8 if request.documents else 1.0
    out = ReleaseWritten()
    for folder in (request.share, request.internal):  # the release's own two folders
        if folder is not None:
            Path(folder).mkdir(parents=True, exist_ok=True)
    for i, target in enumerate(targets):
        what = target.describe()
        cells = write_release_table(
            result, target, levels,
            lambda f, i=i, what=what: report(share * (i + f) / len(targets), f"writing {what}"),
            stop)
        if cells is not None:
            out.formula_cells[what] = cells
        out.written.append(what)
        if i == 0 and isinstance(target, FileTarget):
            out.files["data"] = Path(target.path)
    if stop():
        raise Cancelled("export cancelled")
    _write_documents(result, request, levels, targets, report, out)
    report(1.0, "done")
    return out


def _refuse(result, request: ReleaseRequest, levels) -> None:
    backend = getattr(result.problem, "backend", None)
    if backend is not None and any(x is not None for x in (
            request.report, request.public_report, request.pseudonym_table)):
        raise AnonymistError(
            f"the records are held by the {backend.name} backend (data beyond memory): it "
            f"writes the released table and the value mapping; the pseudonym table and "
            f"release report are written for data anonymized in memory (set [engine] "
            f"backend = \"memory\")")
    if request.mapping is not None and levels is None and \
            getattr(result, "local_recoding", None) is not None:
        raise AnonymistError("under local recoding records of one value carry different "
                             "levels: there is no value mapping to write")
    if not request.force:
        beside = beside_release(request)
        if beside:
            raise AnonymistError("; ".join(beside) + ": keep it in another folder than the "
                                 "release (or force it)")


def _write_documents(result, request: ReleaseRequest, levels, targets, report,
                     out: ReleaseWritten) -> None:
    job_path = request.job_path
    hierarchies = _hierarchy_files(result.problem.job)
    if request.write_job is not None:
        report(0.8, "writing the job")
        job_path, hierarchies = write_release_job(result.problem.job, request.write_job)
        out.written.append(str(job_path))
        out.files["job"] = job_path
    if request.mapping is not None:
        from engine.export.mapping import value_mapping, write_mapping
        report(0.82, "writing the value mapping")
        write_mapping(value_mapping(result.problem, result.levels_of(levels),
                                    result.transformed(levels)),
                      request.mapping, request.mapping_delimiter)
        out.written.append(str(request.mapping))
        out.files["mapping"] = Path(request.mapping)
    if request.pseudonym_table is not None:
        from engine.export.mapping import pseudonym_lookup, write_pseudonym_lookup
        files = [t.path for t in targets if isinstance(t, FileTarget)]
        apart = () if request.force else (*files, request.public_report or request.report)
        write_pseudonym_lookup(pseudonym_lookup(result.problem), request.pseudonym_table,
                               apart)
        out.written.append(str(request.pseudonym_table))
        out.files["pseudonyms"] = Path(request.pseudonym_table)
    if request.report is not None or request.public_report is not None:
        _write_reports(result, request, levels, targets, report, out, job_path, hierarchies)
    for folder, text in ((request.share, SHARE_README), (request.internal, INTERNAL_README)):
        if folder is not None:
            from engine.io_utils import atomic_write_text
            Path(folder).mkdir(parents=True, exist_ok=True)
            atomic_write_text(Path(folder) / README, text)
            out.written.append(str(Path(folder) / README))


def _write_reports(result, request, levels, targets, report, out, job_path,
                   hierarchies) -> None:
    from engine.release_docs.pdf import write_report
    from engine.release_docs.report import build_report, distributions, public_report
    report(0.86, "writing the release report")
    output_file = next((t.path for t in targets if isinstance(t, FileTarget)), None)
    doc = build_report(
        result, levels, input_path=request.input_path, output_path=output_file,
        output_target="; ".join(t.describe() for t in targets) or None,
        reread=read_table(targets[0]) if targets else None,
        job_path=job_path, hierarchy_files=hierarchies)
    if request.report is not None:
        pdf, js = write_report(doc, distributions(result, levels), request.report)
        out.written += [str(pdf), str(js)]
        out.files["report"] = pdf
    if request.public_report is not None:
        pdf, js = write_report(public_report(doc), {}, request.public_report)
        out.written += [str(pdf), str(js)]
        out.files["public report"] = pdf
    out.verified = doc["verification"]["ok"]
    out.violations = list(doc["verification"]["violations"])


def _hierarchy_files(job) -> dict[str, Path]:
    """The hierarchy file of every attribute the job gives one by path."""
    return {name: job.resolve(a.hierarchy_path) for name, a in job.attributes.items()
            if a.hierarchy_path}


def _safe(name: str) -> str:
    import re
    return re.sub(r"[^\w.-]+", "_", name).strip("._") or "attribute"


def write_release_job(job, path: str | Path) -> tuple[Path, dict[str, Path]]:
    """The job as a TOML file at ``path``, each hierarchy written as CSV beside it
    (``<stem>-hierarchies/<attribute>.csv`` for a ``<stem>-job.toml``), the data path
    absolute. Returns the job's path and the hierarchy files by attribute."""
    import tomli_w

    from engine.hierarchy.csv_io import write_hierarchy
    from engine.io_utils import atomic_write_text
    from engine.project.job_file import job_to_dict
    path = Path(path)
    folder, stem = path.parent, path.name.removesuffix(".toml").removesuffix("-job")
    folder.mkdir(parents=True, exist_ok=True)
    d = job_to_dict(job)
    if job.data.path:
        d["data"]["path"] = str(job.resolve(job.data.path).resolve())
    hierarchies = folder / f"{stem}-hierarchies"
    written = {}
    for name, a in job.attributes.items():
        if a.hierarchy is None:
            continue
        hierarchies.mkdir(parents=True, exist_ok=True)
        file = hierarchies / f"{_safe(name)}.csv"
        write_hierarchy(a.hierarchy, file)
        d["attributes"][name]["hierarchy"] = file.relative_to(folder).as_posix()
        written[name] = file
    atomic_write_text(path, tomli_w.dumps(d))
    return path, written


# --- independent checks of what was written -----------------------------------------------
@dataclass(frozen=True)
class Artefact:
    """One written file (or folder) and the verdict of its independent check."""

    kind: str  # "data" | "job" | "mapping" | "report" | "public report" | "readme"
    path: Path
    verified: bool
    message: str


def _read_back(path: Path, delimiter: str):
    import pandas as pd
    return pd.read_csv(path, sep=delimiter, dtype=str, keep_default_na=False)


def check_release(result, written: ReleaseWritten, levels=None) -> list[Artefact]:
    """Check each file of a written release on its own: the data file read back with
    plain pandas and recounted against the job read back from its file (what
    ``anonymist verify`` does); the value mapping applied to the input must give the
    released quasi-identifiers exactly; the report counts as checked when its own
    verification of the re-read file passed."""
    job = result.problem.job
    delimiter = job.data.delimiter or ";"
    files = written.files
    out = []
    if "data" in files and "job" in files:
        out.append(_check_data(files["data"], files["job"]))
    if "job" in files:
        out.append(Artefact("job", files["job"], True, "the job that made this release "
                            "(anonymist anonymize / verify read it)"))
    if "mapping" in files and "data" in files:
        out.append(_check_mapping(result, files["mapping"], files["data"], delimiter))
    for kind in ("report", "public report"):
        if kind in files:
            ok = bool(written.verified)
            out.append(Artefact(kind, files[kind], ok, (
                ("PDF and JSON; its verification of the re-read file passed" if ok else
                 "FAILED: the report's verification found " + "; ".join(written.violations))
                + ("; names no original value" if kind == "public report" else ""))))
    return out


def _check_data(data_path: Path, job_path: Path) -> Artefact:
    from engine.project.job_file import load_job
    from engine.verify import verify_frame
    job = load_job(job_path)
    report = verify_frame(_read_back(data_path, job.data.delimiter or ";"), job)
    if report.ok:
        return Artefact("data", data_path, True, "recounted from the file: meets every "
                        "privacy model and the suppression limit")
    return Artefact("data", data_path, False, "FAILED the recount: " +
                    "; ".join(report.violations))


def _check_mapping(result, folder: Path, data_path: Path, delimiter: str) -> Artefact:
    import pandas as pd

    from engine.export.mapping import apply_mapping, read_mapping
    tables, rows = read_mapping(folder, delimiter)
    source = pd.DataFrame({q: result.problem.table.column(q).values().astype(str)
                           for q in tables})
    mapped = apply_mapping(source, tables, rows).to_numpy(dtype=str)
    released = _read_back(data_path, delimiter)[list(tables)].to_numpy(dtype=str)
    if mapped.shape == released.shape and bool((mapped == released).all()):
        return Artefact("mapping", Path(folder), True, "applied to the input, it gives the "
                        "released quasi-identifiers exactly")
    return Artefact("mapping", Path(folder), False, "FAILED: applied to the input it does "
                    "not give the released file")
