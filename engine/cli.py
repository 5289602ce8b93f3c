"""Command line: ``anonymist anonymize | verify | evaluate | risk``.

The installed ``anonymist`` command (``app.launcher``) sends these subcommands here
and opens the GUI for ``gui`` (or no arguments); the engine itself never imports
the GUI. Exit codes are a contract (docs/reference, "Exit codes"; README "Command
line"): see ``EXIT_*`` (4: identifiers found in a released column, nothing written).
Heavy modules (pandas, the search) are imported inside the commands, so that
``--help`` and argument errors answer at once.
"""
from __future__ import annotations

import argparse
import difflib
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

from engine.subcommands import NAMES as SUBCOMMAND_NAMES
from engine.subcommands import add_subcommands
from engine.errors import AnonymistError
from engine.release_docs.cli_options import add_arguments as add_document_arguments
from engine.release_docs.cli_options import check_arguments as check_export_arguments
from engine.release_docs.cli_options import write as write_release
from engine.signals import Interrupted, Terminated, exit_code, interrupt_of  # noqa: F401

EXIT_OK = 0              # released (anonymize), verified (verify), printed (evaluate)
EXIT_VIOLATIONS = 1      # verify: the file does not meet the job, or its certificate
EXIT_BAD_INPUT = 2       # bad arguments, job, data, hierarchy or output path
EXIT_INFEASIBLE = 3      # no transformation meets the models: nothing written
EXIT_IDENTIFIERS = 4     # identifiers found in a released column: nothing written
EXIT_INTERNAL = 70       # unexpected error: a short message and a log file's path
EXIT_HANGUP = 129        # SIGHUP (128 + 1): temporary files removed, nothing new kept
EXIT_CANCELLED = 130     # Ctrl-C or SIGTERM: temporary files removed, nothing new kept

SUBCOMMANDS = ("anonymize", "verify", "evaluate", "risk") + SUBCOMMAND_NAMES
ALL_COMMANDS = SUBCOMMANDS + ("gui",)


class _Bar:
    """A one-line progress bar on stderr."""

    def __init__(self, stream=None, width: int = 30):
        self.stream, self.width = stream or sys.stderr, width
        self._width = 0

    def __call__(self, p) -> None:
        filled = int(self.width * p.fraction)
        best = "" if p.best_loss is None else f" best {_short(p.best_loss)}"
        checked = f" {p.checked:,} checked" if p.checked else ""
        line = (f"[{'#' * filled}{'.' * (self.width - filled)}] {p.fraction * 100:3.0f}% "
                f"{p.phase_title}{checked} {p.elapsed_s:6.1f}s{best}")
        # pad over a longer previous line (the phase names differ in length)
        self.stream.write("\r" + line.ljust(self._width))
        self._width = len(line)
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")


def _short(loss) -> str:
    if isinstance(loss, tuple):
        return "[" + ", ".join(f"{x:.4g}" for x in loss[:3]) + (", ...]" if len(loss) > 3 else "]")
    return f"{loss:.6g}"


def _loss_json(loss):
    return list(loss) if isinstance(loss, tuple) else loss


def _say(message: str) -> None:
    print(message, file=sys.stderr)


# --- inputs -----------------------------------------------------------------------------
def check_input_file(path: Path, what: str, encoding: str | None = None) -> None:
    """Refuse a missing file, a folder, or (with ``encoding``) text it cannot decode."""
    if path.is_dir():
        raise AnonymistError(f"{what} {path} is a folder, not a file")
    if not path.exists():
        raise AnonymistError(f"{what} not found: {path}")
    if encoding:
        try:
            raw = path.read_bytes()
        except OSError as e:
            raise AnonymistError(f"{what} {path} cannot be read: {e.strerror}") from None
        try:
            raw.decode(encoding)
        except UnicodeDecodeError as e:
            line = raw[:e.start].count(b"\n") + 1
            raise AnonymistError(f"{what} {path} is not {encoding} text: byte "
                                 f"0x{raw[e.start]:02X} on line {line} cannot be "
                                 f"decoded") from None


def load_job_checked(path: Path):
    """The job of a file; a value the reader chokes on is the file's fault, not ours."""
    from engine.api import as_job
    check_input_file(path, "job file", "utf-8")
    try:
        return as_job(path)
    except (ValueError, TypeError, OverflowError, KeyError) as e:
        raise AnonymistError(f"job file {path}: a value cannot be used: "
                             f"{type(e).__name__}: {str(e)[:200]}") from None


def job_inputs(job, job_path: Path, data: Path | None) -> dict[str, Path | None]:
    """Every file a run reads: the job, the data, the hierarchies, a subset's row file."""
    inputs: dict[str, Path | None] = {"the job file": job_path}
    inputs["the data file"] = data if data else (job.resolve(job.data.path)
                                                 if job.data.path else None)
    for name, a in job.attributes.items():
        if a.hierarchy_path:
            inputs[f"the hierarchy of '{name}'"] = job.resolve(a.hierarchy_path)
    subset = job.subset or {}
    for key in ("rows", "records"):
        if isinstance(subset.get(key), str):
            inputs[f"the [subset] {key} file"] = job.resolve(subset[key])
    return inputs


def unnamed_columns(table_names, job) -> list[str]:
    """Data columns the job does not name: released verbatim as insensitive."""
    return [n for n in table_names if n not in job.attributes]


def unnamed_policy(job, strict: bool) -> str:
    """``"refuse"`` under ``--strict`` or the job's ``[data] unnamed_columns``, else ``"warn"``."""
    if strict:
        return "refuse"
    return job.data.unnamed_columns


def path_or_uri(text: str):
    """An --output/--data argument: a local Path, or a URI kept as text (Spark's)."""
    from engine.backends.locations import path_or_uri as parsed
    return parsed(text)


def planned_backend(job, data, outputs):
    """The backend the run will use, with every refusal of what it cannot do made now."""
    from engine.api import planned_backend as planned
    return planned(job, data, outputs)


def _local(output):
    """An output on this machine's disk (None for a URI, which Spark writes)."""
    from engine.backends.locations import is_uri
    return None if is_uri(output) else output


def _remove_stale(paths: list[Path | None]) -> list[Path]:
    from engine.release_docs.cli_options import replaceable_folder
    removed = []
    for p in paths:
        if p is not None and (p.is_file() or p.is_symlink()):
            p.unlink()
            removed.append(p)
        elif p is not None and replaceable_folder(p):  # an earlier Spark release
            import shutil
            shutil.rmtree(p)
            removed.append(p)
    return removed


# --- commands ---------------------------------------------------------------------------
def cmd_anonymize(args) -> int:
    from engine.io_utils import check_outputs
    from engine.backends.locations import is_uri
    from engine.release_docs.cli_options import backend_outputs, replaceable_folder
    job = load_job_checked(args.job)
    # what the job and the options need, against what the backend does: refused before
    # anything is read, started or written (engine/backends/capabilities.py)
    backend = planned_backend(job, args.data, backend_outputs(args, job))
    if args.data is not None and not is_uri(args.data):
        check_input_file(args.data, "data file")
    outputs = {"--output": None if is_uri(args.output) else args.output,
               "--result": args.result,
               "--report": getattr(args, "report", None), "--mapping": args.mapping,
               "--pseudonym-table": args.pseudonym_table}
    folders = ("--mapping",) if args.mapping is not None and \
        args.mapping.suffix.lower() != ".xlsx" else ()
    if backend == "spark" and replaceable_folder(outputs["--output"]):
        folders += ("--output",)  # its own earlier folder of parts: replaced
    check_outputs(outputs, job_inputs(job, args.job, args.data), AnonymistError,
                  folders=folders)
    check_export_arguments(args, job)

    from engine.api import anonymize_prepared, backend_progress, prepare
    if job.transformation.time_limit_s is not None:  # start-up, like the imports: the
        from engine.warmup import load_kernels  # limit is for preparing and searching
        load_kernels()
    start = time.perf_counter()
    bar = None if args.quiet else _Bar()
    problem = prepare(args.data, job, backend_progress(bar))
    if bar is not None and problem.backend is not None:
        bar.close()  # the counting bar keeps its line; the search draws the next
    unnamed = unnamed_columns(problem.table.source_names, job)
    if unnamed:
        names = ", ".join(unnamed)
        if unnamed_policy(job, args.strict) == "refuse":
            raise AnonymistError(f"column(s) not named in the job: {names}; give each an "
                                 f"[attributes] table (type = \"insensitive\" to release it "
                                 f"as it is)")
        _say(f"warning: column(s) not named in the job are released verbatim as "
             f"insensitive: {names}")
    from engine import signals
    try:
        with signals.deferred():  # a signal stops the search between kernel calls
            result = anonymize_prepared(problem, bar, signals.requested, start=start)
    except KeyboardInterrupt:
        if bar:
            bar.close()  # the message goes on a line of its own
        raise
    if bar:
        bar.close()
    if result.optimum is None:
        removed = _remove_stale([_local(args.output), args.result, getattr(args, "report", None)])
        _say("no transformation meets the privacy models: nothing written"
             + (f"; removed the earlier {', '.join(map(str, removed))} so that it cannot "
                f"pass for this job's release" if removed else ""))
        return EXIT_INFEASIBLE
    from engine.transform.identifiers import IdentifiersFound
    try:  # a column released as it is holding identifiers: nothing is written
        result.transformed().check_identifiers()
    except IdentifiersFound as e:
        removed = _remove_stale([_local(args.output), args.result, getattr(args, "report", None)])
        _say(f"error: {e}" + (f"\nremoved the earlier {', '.join(map(str, removed))} so "
                              f"that it cannot pass for this job's release" if removed else ""))
        return EXIT_IDENTIFIERS
    from engine.io_utils import all_or_nothing
    # a failure puts back the earlier files; a folder of parts Spark writes is replaced
    # whole, once complete, by the backend itself (never put back part by part)
    spark_folder = backend == "spark" and not is_uri(args.output)
    with all_or_nothing([p for p in release_files(args)
                         if not (spark_folder and p is args.output)]):
        if is_uri(args.output):  # written by Spark's executors, through its committer
            from engine.release_docs.cli_options import write_uri
            cells = write_uri(args, result, job)
        else:
            cells = write_release(args, result, job, quiet=args.quiet)
        if args.result:
            result.write_json(args.result, str(args.output) if args.output else None,
                              {"formula_cells": cells} if cells else None)
    for where, done in cells.items():
        if done["formula_cells"]:
            _say(f"{where}: {done['formula_cells']:,} cell(s) a spreadsheet would run as a "
                 f"formula, " + ("written with a leading ' (--csv-formula-cells)"
                                 if done["neutralised"] else "written as they are"))
    o = result.optimum
    persons = (result.problem.person_figures(result.levels_of())
               if result.problem.counts_persons and result.local_recoding is None else None)
    cells_mode = getattr(result.problem.job.transformation, "suppression", "") == "cells"
    treated = (f"{o.suppressed_records} records treated by cell suppression" if cells_mode
               else f"{o.suppressed_records} suppressed")
    _say(f"optimum {o.levels} loss {_short(o.information_loss)} "
         f"({o.information_loss_percent:.2f}%), {treated}"
         + (f" ({persons['suppressed_persons']} of {persons['persons']} persons affected)"
            if persons else "") + ", "
         f"{result.transformations_checked} of {result.lattice_size:,} checked "
         f"in {result.elapsed_s:.2f}s")
    return EXIT_OK


def release_files(args) -> list[Path | None]:
    """The files (and the mapping folder) one ``anonymize`` writes together."""
    from engine.backends.locations import is_uri
    report = getattr(args, "report", None)
    return [None if is_uri(args.output) else args.output, args.result, report,
            report.with_suffix(".json") if report is not None else None,
            args.mapping, args.pseudonym_table]


def cmd_verify(args) -> int:
    import json

    from engine.data.files import is_glob
    from engine.project.job_file import bind_hierarchies
    from engine.verify import verify_file
    job = bind_hierarchies(load_job_checked(args.job))  # builders: built from the data
    suffix = args.output.suffix.lower()
    parts = args.output.is_dir() or (is_glob(str(args.output)) and not args.output.exists())
    if not parts:
        check_input_file(args.output, "file to verify")
    if parts:  # Spark's folder of part files, or a glob: Parquet on every core, else DuckDB
        from engine.verify import verify_parts
        report = verify_parts(args.output, job, delimiter=args.delimiter,
                              identifiers=True, encoding=args.encoding)
    elif suffix == ".parquet":
        from engine.verify import verify_parquet  # row groups on every core
        report = verify_parquet(args.output, job, identifiers=True)
    elif suffix == ".xlsx":  # read whole, then recounted
        from engine.export.targets import file_target, read_table
        from engine.verify import verify_frame
        report = verify_frame(read_table(file_target(args.output, None)), job)
    else:
        report = verify_file(args.output, job, delimiter=args.delimiter,
                             encoding=args.encoding, identifiers=True)
    if suffix == ".xlsx" and not parts:  # others: scanned in verify's own reading
        from engine.verify import identifier_violations  # the scan the release ran (issue 25)
        found = identifier_violations(args.output, job, args.delimiter, args.encoding,
                                      generalized=[q for q, level in report.levels.items()
                                                   if level])
        if found:
            report.violations += found
            report.ok = False
    if not parts:  # PRAM'd, noisy, swapped and shuffled columns (issue 28)
        from engine.verify import perturbation_violations
        found = perturbation_violations(args.output, job, args.delimiter, args.encoding)
        if found:
            report.violations += found
            report.ok = False
    out = report.to_dict()
    certified = True
    if args.report is not None:  # the release's certificate (engine/certificate.py)
        from engine.certificate import check_report
        out["certificate"] = cert = check_report(args.report, **certificate_files(
            args.output, args.job, job), recount=out)
        certified = cert["ok"]
    print(json.dumps(out, indent=2))
    _say("OK: the output meets the job's models and suppression limit" if report.ok
         else "FAILED: " + "; ".join(report.violations))
    if args.report is not None:
        _say(f"OK: the release, job and hierarchies are those {args.report.name} certifies"
             if certified else "CERTIFICATE DIFFERS: " + "; ".join(cert["differences"]))
    return EXIT_OK if report.ok and certified else EXIT_VIOLATIONS


def certificate_files(output: Path, job_path: Path, job) -> dict:
    """The files ``verify --report`` compares with a release's certificate."""
    from engine.project.job_file import job_to_dict
    return {"release_path": output, "job_path": job_path,
            "hierarchies": {n: job.resolve(a.hierarchy_path)
                            for n, a in job.attributes.items() if a.hierarchy_path},
            "input_path": job.resolve(job.data.path) if job.data.path else None,
            "privacy_models": job_to_dict(job).get("privacy", []),
            "suppression_limit": job.transformation.suppression_limit}


def _parse_levels(text: str, lattice) -> tuple[int, ...]:
    """``--levels`` (``attribute=level,...``) checked against the lattice: every
    quasi-identifier once, each level inside its attribute's range (never wrapped)."""
    from engine.errors import LevelsError
    given: dict[str, int] = {}
    for part in filter(None, text.split(",")):
        if "=" not in part:
            raise AnonymistError(f"--levels: '{part}' is not attribute=level")
        name, value = part.split("=", 1)
        try:
            given[name.strip()] = int(value)
        except ValueError:
            raise AnonymistError(f"--levels: the level of '{name.strip()}' must be a whole "
                                 f"number, not '{value}'") from None
    try:
        return lattice.checked(given)
    except LevelsError as e:
        raise AnonymistError(f"--levels: {e}") from None


def cmd_evaluate(args) -> int:
    import json

    from engine.api import prepare
    job = load_job_checked(args.job)
    if args.data is not None:
        check_input_file(args.data, "data file")
    problem = prepare(args.data, job)
    levels = _parse_levels(args.levels, problem.lattice)
    ev = problem.evaluate(levels)
    print(json.dumps({"levels": dict(zip(problem.qis, ev.levels)),
                      "state": "anonymous" if ev.anonymous else "not-anonymous",
                      "information_loss": _loss_json(ev.loss),
                      "suppressed_records": ev.suppressed_records,
                      **({"person": problem.person_figures(ev.levels)}
                         if problem.counts_persons else {})}, indent=2))
    return EXIT_OK


def cmd_risk(args) -> int:
    """The survey risk measures of a file without anonymizing it (engine.sdc)."""
    from engine.api import risk
    from engine.io_utils import check_outputs
    from engine.sdc.files import write_summary
    check_input_file(args.data, "data file")
    job = load_job_checked(args.job) if args.job is not None else None
    check_outputs({"--per-record": args.per_record, "--json": args.json},
                  {"the data file": args.data, "the job file": args.job}, AnonymistError)
    options = {"dis_fraction": args.dis_fraction, "suda": not args.no_suda,
               "risky_cells_dimensions": args.risky_cells_dimensions,
               "risky_cells_threshold": args.risky_cells_threshold}
    if args.missing is not None:
        options["missing"] = args.missing.split(",")
    measured = risk(args.data, _names(args.quasi_identifiers), weight=args.weight,
                    household=args.household, method=args.method,
                    sensitive=_names(args.sensitive), threshold=args.threshold, job=job,
                    delimiter=args.delimiter, backend=args.backend,
                    per_record=args.per_record, memory_limit=args.memory_limit, **options)
    if args.json:
        write_summary(measured.summary, args.json)
    s = measured.summary
    _say(f"{s['records']} records: expected re-identifications "
         f"{s['expected_reidentifications']:.4g}, global risk {s['global_risk_percent']:.3g}%, "
         f"{s['records_at_risk']} at risk, {s['k_anonymity']['violating_2']} sample uniques")
    return EXIT_OK


def _names(text: str | None) -> list[str] | None:
    return None if text is None else [n.strip() for n in text.split(",") if n.strip()]


# --- parser -----------------------------------------------------------------------------
EPILOG = """exit codes:
  0    released (anonymize), the file meets the job (verify), printed (evaluate),
       measured (risk)
  1    verify: the file violates the job's models or suppression limit, or (with
       --report) differs from what the report's certificate records
  2    bad input: arguments, job file, data, hierarchy or output path
  3    anonymize: no transformation meets the privacy models; nothing is written and
       an earlier --output/--result file at those paths is removed
  4    anonymize: identifiers found in a released column (e-mail, phone, IBAN, card,
       IP, URL, national id, a name or an identifying value in a note); nothing is
       written, an earlier --output/--result is removed, and the message names the
       column, the kind, the count and the first row. Mark the column identifying,
       scrub it (scrub = true) or keep them (identifiers = "keep", reason = "...")
  70   unexpected internal error: a short message and the path of a log file
  129  cancelled by SIGHUP (the terminal closed): as 130
  130  cancelled (Ctrl-C or SIGTERM): no temporary file is left and the earlier output
       files are as they were
"""


def version() -> str:
    """The installed package's version (the checkout's pyproject.toml when not installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed
    try:
        return installed("anonymist")
    except PackageNotFoundError:
        import re
        pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
        found = re.search(r'^version = "([^"]+)"', pyproject.read_text(encoding="utf-8"),
                          re.M) if pyproject.is_file() else None
        return found.group(1) if found else "unknown"


class _Version(argparse.Action):
    """``--version``: the version looked up only when asked for."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"anonymist {version()}")
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="anonymist", description="Anonymize tabular personal data.", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action=_Version, help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    a = sub.add_parser("anonymize", help="run a job file and write the released table")
    a.add_argument("job", type=Path, help="the job file (TOML)")
    a.add_argument("--output", type=path_or_uri,
                   help="the anonymized data: .csv, .xlsx or .parquet (the spark backend: "
                        "also a URI, hdfs://, s3a://, gs://, abfs://, file://)")
    a.add_argument("--result", type=Path, help="JSON summary of the result")
    a.add_argument("--data", type=path_or_uri,
                   help="data file (default: the job's [data] path; the spark backend: also "
                        "a URI)")
    a.add_argument("--quiet", action="store_true", help="no progress bar")
    a.add_argument("--strict", action="store_true",
                   help="refuse data columns the job does not name (default: warn and "
                        "release them as insensitive)")
    add_document_arguments(a)
    a.set_defaults(func=cmd_anonymize)
    v = sub.add_parser("verify", help="recount an exported file's classes against a job")
    v.add_argument("output", type=Path, help="the exported CSV")
    v.add_argument("job", type=Path, help="the job file it was released under")
    v.add_argument("--delimiter", help="delimiter of the exported file (default: the job's)")
    v.add_argument("--encoding", help="encoding of the exported file (default: UTF-8, "
                                      "else cp1252)")
    v.add_argument("--report", type=Path, metavar="REPORT.json",
                   help="the release report's JSON: also check the release, the job file, "
                        "every hierarchy (and the input, when at hand) against the SHA-256 "
                        "it certifies, and the models and recount it records; exit 1 on "
                        "any difference")
    v.set_defaults(func=cmd_verify)
    e = sub.add_parser("evaluate", help="state and loss of one transformation")
    e.add_argument("job", type=Path)
    e.add_argument("--levels", required=True, help="e.g. sex=1,age=0,...")
    e.add_argument("--data", type=Path)
    e.set_defaults(func=cmd_evaluate)
    add_subcommands(sub)
    add_risk_parser(sub)
    sub.add_parser("gui", help="open the desktop app (also: no arguments, or a project path)",
                   add_help=False)
    return p


def add_risk_parser(sub) -> None:
    """``anonymist risk``: docs/reference/risk-command.md."""
    r = sub.add_parser("risk", help="survey risk measures of a file, without anonymizing "
                                    "(individual risk, SUDA2, households)")
    r.add_argument("data", type=Path, help="the data file (raw or released)")
    r.add_argument("job", type=Path, nargs="?",
                   help="a job file naming the quasi-identifiers, [data] weight and "
                        "household (optional)")
    r.add_argument("--quasi-identifiers", metavar="A,B,C",
                   help="the key variables (default: the job's quasi-identifiers)")
    r.add_argument("--weight", metavar="W", help="the sampling-weight column")
    r.add_argument("--household", metavar="H", help="the household (cluster) column")
    r.add_argument("--method", choices=("approx", "exact"), default="approx",
                   help="individual risk formula with weights (default approx)")
    r.add_argument("--sensitive", metavar="S,T", help="attributes for l-diversity")
    r.add_argument("--threshold", type=float,
                   help="a record is at risk above this individual risk (default: "
                        "sdcMicro's rule, above median + 3 MAD and above 0.1)")
    r.add_argument("--delimiter", help="the data file's delimiter (default: detected)")
    r.add_argument("--missing", metavar="V,W",
                   help="values read as missing, comma-separated (default: empty, NA, *)")
    r.add_argument("--dis-fraction", type=float, default=0.01,
                   help="DIS-SUDA sampling fraction (default 0.01)")
    r.add_argument("--no-suda", action="store_true", help="skip SUDA2 (exponential in the "
                                                           "number of quasi-identifiers)")
    r.add_argument("--risky-cells-dimensions", type=int, default=2, metavar="N",
                   help="risky cells of combinations of up to N quasi-identifiers (2)")
    r.add_argument("--risky-cells-threshold", type=int, default=3, metavar="T",
                   help="a cell with at most T records is risky (3)")
    r.add_argument("--backend", choices=("auto", "memory", "duckdb"), default="auto",
                   help="duckdb: count a CSV or Parquet file out of core; auto (default): "
                        "as the job's [engine] backend, DuckDB for a file too big for "
                        "the memory")
    r.add_argument("--memory-limit", help="DuckDB's memory limit, e.g. 4GB")
    r.add_argument("--per-record", type=Path, metavar="OUT.csv",
                   help="one row per record: class_size, individual_risk, suda2_score, ...")
    r.add_argument("--json", type=Path, metavar="SUMMARY.json", help="the summary")
    r.set_defaults(func=cmd_risk)


def unknown_command(word: str) -> str | None:
    """The error for a first argument that is no command (None if it is one or an option)."""
    if word.startswith("-") or word in ALL_COMMANDS:
        return None
    close = difflib.get_close_matches(word, ALL_COMMANDS, n=1, cutoff=0.6)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    if "/" in word or "." in word or os.sep in word:
        hint = "; as a file to open in the app it does not exist"
    return f"unknown command '{word}' (commands: {', '.join(ALL_COMMANDS)}){hint}"


# --- running ----------------------------------------------------------------------------
def log_dir() -> Path:
    """Where tracebacks of internal errors go: $ANONYMIST_LOG_DIR, else the user's
    cache folder."""
    if os.environ.get("ANONYMIST_LOG_DIR"):
        return Path(os.environ["ANONYMIST_LOG_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or (Path.home() / ".cache")
    return Path(base) / "anonymist" / "logs"


def write_crash_log(exc: BaseException, argv: list[str]) -> Path | None:
    text = (f"anonymist {' '.join(argv)}\n{time.strftime('%Y-%m-%d %H:%M:%S')}\n\n"
            + "".join(traceback.format_exception(exc)))
    for folder in (log_dir(), Path(tempfile.gettempdir())):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix="anonymist-error-", suffix=".log", dir=folder)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            return Path(name)
        except OSError:
            continue
    return None


def _bad_input_message(e: BaseException) -> str | None:
    """The message of an exception that is the user's input at fault, else None."""
    if isinstance(e, AnonymistError):
        return str(e)
    if isinstance(e, OSError) and e.filename is not None:
        return f"{e.filename}: {e.strerror or e}"
    return None


def _cancelled(interrupt: BaseException) -> int:
    name = getattr(interrupt, "name", "Ctrl-C")
    _say("cancelled" + ("" if name == "Ctrl-C" else f" ({name})")
         + ": nothing new written")
    return exit_code(interrupt)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv:
        parser.print_help()
        return EXIT_BAD_INPUT
    if (message := unknown_command(argv[0])) is not None:
        parser.print_usage(sys.stderr)
        _say(f"anonymist: error: {message}")
        return EXIT_BAD_INPUT
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: --help (0) or a usage error (2)
        return int(e.code or 0)
    if args.command == "gui" or args.command is None:
        _say("anonymist: the desktop app starts from the 'anonymist' command "
             "(app.launcher), not from engine.cli")
        return EXIT_BAD_INPUT
    from engine.signals import signals_as_interrupts
    try:
        with signals_as_interrupts():
            return args.func(args)
    except KeyboardInterrupt as e:
        return _cancelled(e)
    except Exception as e:  # noqa: BLE001 - the last line of defence: no traceback
        interrupt = interrupt_of(e)  # raised inside a compiled kernel's call
        if interrupt is not None:
            return _cancelled(interrupt)
        message = _bad_input_message(e)
        if message is not None:
            _say(f"error: {message}")
            return EXIT_BAD_INPUT
        log = write_crash_log(e, argv)
        _say(f"internal error: {type(e).__name__}: {str(e)[:200]}"
             + (f"\nthe details are in {log}" if log else "")
             + "\nplease report it with that file")
        return EXIT_INTERNAL


def exit_process(code: int) -> None:
    """End a command's process with ``code`` without the interpreter's teardown.

    Everything a command writes is written atomically and closed before it returns;
    what remains at exit is the interpreter freeing every module one by one (numba,
    llvmlite, Arrow, numpy: about 0.1 s of CPU, a seventh of a whole anonymize on
    Adult). Here the standard streams are flushed and the exit handlers run (atexit:
    logging, weakref finalizers such as the DuckDB backend's spill folder), then the
    process ends. If a non-daemon thread still runs, the ordinary exit waits for it."""
    import atexit
    import threading
    if any(t.is_alive() and not t.daemon and t is not threading.main_thread()
           for t in threading.enumerate()):
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # closed or gone: nothing to flush
            pass
    atexit._run_exitfuncs()
    os._exit(code)


if __name__ == "__main__":
    exit_process(main())
