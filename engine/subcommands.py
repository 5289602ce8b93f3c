"""The command line's further subcommands: ``hierarchy build``, ``import-arx`` and
``guide`` (``engine.cli`` adds them to its parser; their logic lives in
``engine.project.hierarchy_build``, ``engine.project.arx_import`` and
``engine.guide.headless``). Heavy modules are imported inside the commands."""
from __future__ import annotations

import argparse
from pathlib import Path

#: the subcommands this module adds
NAMES = ("hierarchy", "import-arx", "guide")


def _say(message: str) -> None:
    import sys
    print(message, file=sys.stderr)


# --- hierarchy build --------------------------------------------------------------------
def cmd_hierarchy_build(args) -> int:
    from engine.errors import AnonymistError
    from engine.io_utils import check_outputs
    from engine.project.hierarchy_build import build_hierarchy_file, spec_table
    check_outputs({"--output": args.output}, {"the data file": args.data}, AnonymistError)
    spec = spec_table(args.builder, args.set or [], args.spec)
    h = build_hierarchy_file(args.data, args.attribute, spec, args.output, args.data_type,
                             args.format, args.output_delimiter, sheet=args.sheet,
                             table=args.table or "", query=args.query or "",
                             delimiter=args.delimiter, encoding=args.encoding)
    _say(f"wrote {args.output}: {len(h.rows)} values, {h.levels} levels "
         f"({spec['builder']} builder)")
    return 0


def add_hierarchy(sub) -> None:
    h = sub.add_parser("hierarchy", help="build a generalization hierarchy with one of the "
                                         "app's builders and write it as CSV")
    hs = h.add_subparsers(dest="action", metavar="ACTION", required=True)
    b = hs.add_parser("build", help="build one attribute's hierarchy from a data file",
                      formatter_class=argparse.RawDescriptionHelpFormatter,
                      epilog="examples:\n"
                             "  anonymist hierarchy build adult.csv --attribute age "
                             "--builder intervals --output age.csv\n"
                             "  anonymist hierarchy build data.xlsx --attribute zip "
                             "--builder masking --set max_levels=3 --output zip.csv\n"
                             "  anonymist hierarchy build data.csv --attribute age "
                             "--spec age.json --output age.csv")
    b.add_argument("data", type=Path, help="the data file (any format a job reads)")
    b.add_argument("--attribute", required=True, help="the column to build it for")
    b.add_argument("--output", required=True, type=Path, help="the hierarchy CSV to write")
    b.add_argument("--builder", choices=("intervals", "ordering", "masking", "dates",
                                         "priority"), help="the builder")
    b.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="a key of the builder's specification, its value as TOML "
                        "(repeat; keys left out take the wizard's proposal)")
    b.add_argument("--spec", type=Path, help="a specification the hierarchy wizard saved "
                                             "(JSON), instead of --builder")
    b.add_argument("--data-type", help="the column's data type (integer, decimal, date, "
                                       "string; default: detected)")
    b.add_argument("--format", help="the date format of a date column (e.g. %%d.%%m.%%Y)")
    b.add_argument("--delimiter", help="the data file's delimiter (default: detected)")
    b.add_argument("--encoding", help="the data file's encoding (default: detected)")
    b.add_argument("--sheet", help="a workbook's sheet (default: the first)")
    b.add_argument("--table", help="a SQLite file's table")
    b.add_argument("--query", help="a SQLite file's query, instead of --table")
    b.add_argument("--output-delimiter", default=";", help="the hierarchy's delimiter "
                                                           "(default ;)")
    b.set_defaults(func=cmd_hierarchy_build)


# --- import-arx -------------------------------------------------------------------------
def cmd_import_arx(args) -> int:
    from engine.errors import AnonymistError
    from engine.project.arx_import import check_imported, import_arx
    report = import_arx(args.project, args.output)
    _say(f"wrote {report.job_path} with the data and hierarchies beside it")
    for line in report.carried:
        _say(f"  carried over: {line}")
    if report.not_carried:
        _say("not carried over (also listed at the top of the job file):")
        for line in report.not_carried:
            _say(f"  - {line}")
    problem = check_imported(report)
    if problem is not None:
        raise AnonymistError(f"the imported job does not load yet: {problem}")
    return 0


def add_import_arx(sub) -> None:
    p = sub.add_parser("import-arx", help="turn an ARX project (.deid) into a job file with "
                                          "its data and hierarchies")
    p.add_argument("project", type=Path, help="the ARX project file (.deid)")
    p.add_argument("--output", required=True, type=Path,
                   help="the folder to write job.toml, data.csv and hierarchies/ into")
    p.set_defaults(func=cmd_import_arx)


# --- guide ------------------------------------------------------------------------------
EXIT_INFEASIBLE = 3  # engine.cli.EXIT_INFEASIBLE: no transformation meets the goal


def run_guide(data, preset: str, output: Path, region: str | None = None,
              mapping: bool = True, report: bool = True):
    """The guided release's steps (engine.guide.headless), the search, and the release
    into ``output``: (plan, result, artefacts); no artefacts when nothing meets the goal."""
    from engine.api import anonymize
    from engine.guide.headless import plan
    from engine.guide.release import release
    p = plan(data, preset, region)
    result = anonymize(p.table, p.job)
    if result.optimum is None:
        return p, result, []
    stem = Path(p.job.data.path).stem or "data"
    return p, result, release(result, None, result.problem.job, output, stem, mapping,
                              report)


def cmd_guide(args) -> int:
    from engine.errors import AnonymistError
    from engine.guide.headless import plan, plan_text
    if args.plan:
        print(plan_text(plan(args.data, args.preset, args.region), args.preset), end="")
        return 0
    if args.output is None:
        raise AnonymistError("guide: give --output DIR for the release (or --plan to print "
                             "the proposals as a job file)")
    if args.output.exists() and not args.output.is_dir():
        raise AnonymistError(f"--output {args.output} is a file: give a folder")
    p, result, artefacts = run_guide(args.data, args.preset, args.output, args.region,
                                     mapping=not args.no_mapping, report=not args.no_report)
    for name, reason in p.reasons.items():
        _say(f"  {name}: {reason}")
    if result.optimum is None:
        _say("no transformation meets the privacy goal: nothing written")
        return EXIT_INFEASIBLE
    for a in artefacts:
        _say(f"{'ok' if a.verified else 'FAILED'}  {a.path}: {a.message}")
    if not all(a.verified for a in artefacts):
        raise AnonymistError("a written file failed its check: do not publish the release")
    return 0


def add_guide(sub) -> None:
    from engine.guide.headless import preset_names
    g = sub.add_parser("guide", help="the guided release without the app: proposals, a "
                                     "preset goal, the search and a checked release")
    g.add_argument("data", type=Path, help="the data file (CSV or workbook)")
    g.add_argument("--preset", required=True, choices=preset_names(),
                   help="the privacy goal (the app's guide: public, agreement, partner)")
    g.add_argument("--output", type=Path, help="the release folder")
    g.add_argument("--plan", action="store_true",
                   help="print the proposals as a job file instead of releasing")
    g.add_argument("--region", help="the population's region for the partner goal "
                                    "(default USA)")
    g.add_argument("--no-mapping", action="store_true", help="no value mapping")
    g.add_argument("--no-report", action="store_true", help="no release report")
    g.set_defaults(func=cmd_guide)


def add_subcommands(sub) -> None:
    """Add this module's subcommands to the command line's parser."""
    add_hierarchy(sub)
    add_import_arx(sub)
    add_guide(sub)
