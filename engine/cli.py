"""Command line: ``anonymist anonymize | verify | evaluate``.

The installed ``anonymist`` command (``app.launcher``) sends these subcommands here
and opens the GUI otherwise; the engine itself never imports the GUI.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine.errors import AnonymistError
from engine.release_docs.cli_options import add_arguments as add_document_arguments
from engine.release_docs.cli_options import check_arguments as check_export_arguments
from engine.release_docs.cli_options import write_documents, write_release


class _Bar:
    """A one-line progress bar on stderr."""

    def __init__(self, stream=sys.stderr, width: int = 30):
        self.stream, self.width = stream, width
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


def cmd_anonymize(args) -> int:
    from engine.api import anonymize, as_job
    job = as_job(args.job)
    check_export_arguments(args, job)
    bar = None if args.quiet else _Bar()
    result = anonymize(args.data, job, progress=bar)
    if bar:
        bar.close()
    if result.optimum is None:
        print("no transformation meets the privacy models", file=sys.stderr)
    else:
        write_release(args, result, job, quiet=args.quiet)
    write_documents(args, result)
    if args.result:
        result.write_json(args.result, str(args.output) if args.output and result.optimum else None)
    if result.optimum is not None:
        o = result.optimum
        print(f"optimum {o.levels} loss {_short(o.information_loss)} "
              f"({o.information_loss_percent:.2f}%), {o.suppressed_records} suppressed, "
              f"{result.transformations_checked} of {result.lattice_size:,} checked "
              f"in {result.elapsed_s:.2f}s", file=sys.stderr)
    return 0


def cmd_verify(args) -> int:
    from engine.api import as_job
    from engine.data.csv_import import read_csv
    from engine.subset import resolve_subset
    from engine.data.table import EncodedTable
    from engine.verify import verify_frame
    job = as_job(args.job)
    frame = read_csv(args.output, delimiter=args.delimiter or job.data.delimiter,
                     encoding=job.data.encoding, header=True)
    subset = None
    if job.subset:
        subset = resolve_subset(job, EncodedTable.from_dataframe(frame))
    report = verify_frame(frame, job, subset)
    print(json.dumps(report.to_dict(), indent=2))
    print("OK: the output meets the job's models and suppression limit" if report.ok
          else "FAILED: " + "; ".join(report.violations), file=sys.stderr)
    return 0 if report.ok else 1


def _parse_levels(text: str, qis: list[str]) -> list[int]:
    given = {}
    for part in filter(None, text.split(",")):
        if "=" not in part:
            raise AnonymistError(f"--levels: '{part}' is not attribute=level")
        name, value = part.split("=", 1)
        try:
            given[name.strip()] = int(value)
        except ValueError:
            raise AnonymistError(f"--levels: level of '{name}' must be a number") from None
    unknown = set(given) - set(qis)
    if unknown:
        raise AnonymistError(f"--levels: not quasi-identifiers: {', '.join(sorted(unknown))}")
    missing = [q for q in qis if q not in given]
    if missing:
        raise AnonymistError(f"--levels: give a level for {', '.join(missing)}")
    return [given[q] for q in qis]


def cmd_evaluate(args) -> int:
    from engine.api import prepare
    problem = prepare(args.data, args.job)
    levels = _parse_levels(args.levels, problem.qis)
    if not problem.lattice.contains(levels):
        raise AnonymistError(f"--levels {args.levels} is outside the lattice "
                             f"(min {problem.lattice.min_levels}, max {problem.lattice.max_levels})")
    ev = problem.evaluate(levels)
    print(json.dumps({"levels": dict(zip(problem.qis, ev.levels)),
                      "state": "anonymous" if ev.anonymous else "not-anonymous",
                      "information_loss": _loss_json(ev.loss),
                      "suppressed_records": ev.suppressed_records}, indent=2))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="anonymist", description="Anonymize tabular personal data.")
    sub = p.add_subparsers(dest="command")
    a = sub.add_parser("anonymize", help="run a job file")
    a.add_argument("job", type=Path)
    a.add_argument("--output", type=Path, help="the anonymized data: .csv, .xlsx or .parquet")
    a.add_argument("--result", type=Path, help="JSON summary of the result")
    a.add_argument("--data", type=Path, help="data file (default: the job's [data] path)")
    a.add_argument("--quiet", action="store_true", help="no progress bar")
    add_document_arguments(a)
    a.set_defaults(func=cmd_anonymize)
    v = sub.add_parser("verify", help="recount an exported file's classes against a job")
    v.add_argument("output", type=Path)
    v.add_argument("job", type=Path)
    v.add_argument("--delimiter", help="delimiter of the exported file (default: the job's)")
    v.set_defaults(func=cmd_verify)
    e = sub.add_parser("evaluate", help="state and loss of one transformation")
    e.add_argument("job", type=Path)
    e.add_argument("--levels", required=True, help="e.g. sex=1,age=0,...")
    e.add_argument("--data", type=Path)
    e.set_defaults(func=cmd_evaluate)
    return p


SUBCOMMANDS = ("anonymize", "verify", "evaluate")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    if not argv:
        parser.print_help()
        return 2
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except AnonymistError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
