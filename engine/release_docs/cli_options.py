"""The anonymize subcommand's release options: export targets, value mapping, report.

``engine.cli`` calls `add_arguments` on its parser, `check_arguments` before the search
and `write` after it, which writes the release through the one release writer
(``engine.release_docs.writer``); every option of release documents and export targets
lives in this file."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.errors import AnonymistError
from engine.release_docs.writer import ReleaseRequest, beside_release


def add_arguments(a: argparse.ArgumentParser) -> None:
    g = a.add_argument_group(
        "export targets", "--output chooses the format by extension: .csv/.tsv/.txt, .xlsx, "
        ".parquet; --output-url with --table writes a new database table (SQLAlchemy URL, "
        "e.g. sqlite:///out.db or postgresql+psycopg2://user@host/db)")
    g.add_argument("--csv-delimiter", help="CSV delimiter (default: the job's [data] delimiter)")
    g.add_argument("--csv-quoting", choices=("minimal", "all", "nonnumeric", "none"),
                   default="minimal", help="CSV quoting (default: minimal)")
    g.add_argument("--csv-encoding", default="utf-8", help="CSV encoding (default: utf-8)")
    g.add_argument("--csv-line-ending", choices=("lf", "crlf"), default="lf",
                   help="CSV line ending (default: lf)")
    from engine.formulas import FORMULA_CELLS
    g.add_argument("--csv-formula-cells", choices=FORMULA_CELLS.choices,
                   default=FORMULA_CELLS.default,
                   help=f"{FORMULA_CELLS.help} (default: {FORMULA_CELLS.default})")
    g.add_argument("--output-url", metavar="URL",
                   help="database to write the anonymized table to (password: give it in "
                        "the URL or the ANONYMIST_DB_PASSWORD environment variable)")
    g.add_argument("--table", help="name of the new table for --output-url")
    g.add_argument("--replace-table", action="store_true",
                   help="replace the table if it exists (refused otherwise)")
    d = a.add_argument_group("release documents")
    d.add_argument("--mapping", type=Path, metavar="DIR|FILE.xlsx",
                   help="value mapping input -> released value per quasi-identifier: a folder "
                        "of CSV files, or one .xlsx with a sheet per attribute")
    d.add_argument("--create-keys", action="store_true",
                   help="create the key files the job names for hmac-sha256 pseudonyms "
                        "when they do not exist (random 256-bit, owner-only)")
    d.add_argument("--pseudonym-table", type=Path, metavar="FILE.csv",
                   help="reversible table value -> pseudonym, to keep apart from the release "
                        "(refused in the release's folder)")
    d.add_argument("--report", type=Path, metavar="REPORT.pdf",
                   help="release report as PDF, and the same content as JSON beside it "
                        "(REPORT.json), with the certificate 'anonymist verify --report' "
                        "re-checks")
    d.add_argument("--force", action="store_true",
                   help="write --mapping and --pseudonym-table even in the released "
                        "table's folder (refused otherwise: they reveal original values)")


def check_arguments(args, job=None) -> None:
    """Refuse inconsistent export options before the search runs; with --create-keys
    create the job's missing key files."""
    from engine.export.targets import file_target
    if args.report and args.report.suffix.lower() != ".pdf":
        raise AnonymistError(f"--report {args.report}: give a .pdf path (the JSON is "
                             f"written beside it)")
    if args.output_url and not args.table:
        raise AnonymistError("--output-url needs --table (the name of the new table)")
    if args.table and not args.output_url:
        raise AnonymistError("--table needs --output-url (the database)")
    if args.output:
        file_target(args.output, None)
    beside = beside_release(request(args, job)) if job is not None else []
    if beside and not args.force:
        raise AnonymistError("; ".join(beside) + ": keep it in another folder than the "
                             "release, or give --force")
    if job is not None and args.create_keys:
        create_missing_keys(job)


def create_missing_keys(job) -> None:
    from engine.pseudonyms import create_key, key_path
    for name, a in job.attributes.items():
        spec = getattr(a, "pseudonym", None)
        if spec is not None and spec.key_file and not key_path(spec, job.base_dir).exists():
            path = create_key(key_path(spec, job.base_dir))
            print(f"created key file {path} for '{name}': keep it safe, outside the "
                  f"project; without it later releases get other pseudonyms", file=sys.stderr)


def targets(args, job) -> list:
    from engine.export.targets import CsvOptions, DatabaseTarget, file_target
    out = []
    if args.output:
        options = CsvOptions(delimiter=args.csv_delimiter or job.data.delimiter or ";",
                             quoting=args.csv_quoting, encoding=args.csv_encoding,
                             line_ending=args.csv_line_ending,
                             formula_cells=args.csv_formula_cells)
        out.append(file_target(args.output, options))
    if args.output_url:
        out.append(DatabaseTarget(_with_password(args.output_url), args.table,
                                  replace=args.replace_table))
    return out


def _with_password(url: str) -> str:
    """The URL with ANONYMIST_DB_PASSWORD filled in when it names no password."""
    import os
    password = os.environ.get("ANONYMIST_DB_PASSWORD")
    if not password:
        return url
    from sqlalchemy.engine import make_url
    u = make_url(url)
    return url if u.password else u.set(password=password).render_as_string(hide_password=False)


def request(args, job) -> ReleaseRequest:
    """The release the options ask for (targets and documents)."""
    data = args.data or (job.resolve(job.data.path) if job.data.path else None)
    first, *more = targets(args, job) or [None]
    return ReleaseRequest(first, args.mapping, args.report, data, args.pseudonym_table,
                          job_path=args.job, more_targets=tuple(more), force=args.force)


def write(args, result, job, quiet: bool = False) -> dict[str, dict]:
    """Write the release of the optimum the options ask for, with a progress line on
    stderr unless ``quiet``; returns, per CSV target, what was done with its formula
    cells (``engine.formulas``)."""
    from engine.release_docs.writer import write_release
    state = {"what": None}

    def progress(fraction: float, what: str) -> None:
        if quiet or not what.startswith("writing ") or what == "writing the job":
            return
        if state["what"] not in (None, what):
            sys.stderr.write("\n")
        state["what"] = what
        sys.stderr.write(f"\r{what}: {fraction:4.0%}")
        sys.stderr.flush()
    written = write_release(result, request(args, job), None, progress)
    if state["what"] is not None:
        sys.stderr.write("\n")
    return written.formula_cells


def backend_outputs(args, job) -> dict[str, object]:
    """What the options ask to write, as ``engine.backends.capabilities.needed`` reads
    it: checked against the backend before anything starts."""
    from engine.backends.locations import is_uri
    out: dict[str, object] = {"--mapping": args.mapping,
                              "--report": getattr(args, "report", None),
                              "--pseudonym-table": args.pseudonym_table}
    other = []
    if args.output is not None:
        suffix = Path(str(args.output).rstrip("/")).suffix.lower()
        if suffix not in (".csv", ".tsv", ".txt", ".parquet"):
            other.append(f"--output {args.output}")
        elif suffix != ".parquet" and (args.csv_quoting, args.csv_encoding.lower().replace(
                "_", "-"), args.csv_line_ending) != ("minimal", "utf-8", "lf"):
            other.append("--csv-quoting/--csv-encoding/--csv-line-ending")
        if is_uri(args.output):
            out["uri"] = f"--output {args.output}"
    if args.output_url:
        other.append("--output-url")
    if other:
        out["other-targets"] = ", ".join(other)
    return out


def replaceable_folder(path) -> bool:
    """Whether ``path`` is a folder Spark wrote (part files, ``_SUCCESS``, their ``.crc``
    and hidden files only): the Spark backend replaces it with the new release."""
    if path is None or not Path(path).is_dir():
        return False
    names = [c.name for c in Path(path).iterdir()]
    return bool(names) and any(n.startswith("part-") for n in names) and all(
        n.startswith(("part-", "_SUCCESS", ".")) for n in names)


def write_uri(args, result, job) -> dict[str, dict]:
    """The released table written to the URI --output names, by the Spark backend's
    executors (no document goes there: the capabilities refused them)."""
    from engine.export.release_table import write_release_uri
    delimiter = args.csv_delimiter or job.data.delimiter or ";"
    cells = write_release_uri(result, args.output, delimiter, args.csv_formula_cells)
    return {args.output: cells} if cells is not None else {}
