"""``anonymist guide DATA --preset NAME --output DIR``: the guided release without the app.

The same steps as the app's guided release wizard, each with the engine function the
wizard calls, every proposal accepted:

1. the data read as the wizard reads it (``engine.data.sources``: CSV with its format
   detected, or a workbook);
2. each column's role proposed (``engine.guide.proposals.propose_roles``), the person
   of several rows included;
3. each quasi-identifier's hierarchy: an ARX-named file beside the data
   (``<data>_hierarchy_<attribute>.csv``), else the proposal
   (``engine.guide.auto_hierarchies.propose_hierarchy``);
4. the privacy goal (``engine.guide.presets``: models and suppression limit; the
   population's region for the goal that needs one, default the wizard's, USA);
5. the search, then the release (``engine.guide.release``: data, job, value mapping
   and report, each checked independently).

The search (step 5's first half) is the command line's (``engine.subcommands``: the
guide sits below ``engine.api``). ``--plan`` prints the job of steps 1-4 for review instead (`plan_text`): proposed
hierarchies as builder tables, files beside the data by their paths, each proposal's
reason as a comment; ``anonymist anonymize`` runs it as it is.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engine.config import (IDENTIFYING, QUASI_IDENTIFYING, AttributeConfig, DataConfig, Job,
                           TransformationConfig)
from engine.errors import AnonymistError


@dataclass
class Plan:
    """What the guide proposes for a data file, before the search."""

    job: Job
    table: object  # the EncodedTable the proposals were made on
    reasons: dict[str, str] = field(default_factory=dict)  # attribute -> why its type
    hierarchy_reasons: dict[str, str] = field(default_factory=dict)
    #: attribute -> the builder table of a proposed hierarchy (None: a file beside)
    builders: dict[str, dict | None] = field(default_factory=dict)
    beside: dict[str, Path] = field(default_factory=dict)


def preset_names() -> tuple[str, ...]:
    from engine.guide.presets import GOALS
    return tuple(g.key for g in GOALS)


def read_for_guide(path: Path):
    """The table and its source settings (delimiter, encoding), read as the wizard's data
    step reads them."""
    from engine.data.csv_import import detect_csv_format
    from engine.data.sources import ImportSpec, guess_kind, load
    from engine.data.table import EncodedTable
    kind = guess_kind(path)
    if kind not in ("csv", "excel"):
        raise AnonymistError(f"{path.name}: the guided release reads CSV files and "
                             f"workbooks (as the app's guide does); for other sources write "
                             f"a job file")
    fmt = detect_csv_format(path) if kind == "csv" else None
    table = EncodedTable.from_dataframe(load(ImportSpec(kind, str(path), csv_format=fmt)))
    if table.n_rows == 0:
        raise AnonymistError(f"data file {path} has no records")
    delimiter = fmt.delimiter if fmt is not None else ";"
    encoding = fmt.encoding if fmt is not None else "utf-8"
    return table, delimiter, encoding


def plan(data: str | Path, preset: str, region: str | None = None) -> Plan:
    """Steps 1-4: the job the guide proposes for ``data`` under ``preset``."""
    from engine.guide.auto_hierarchies import propose_hierarchy
    from engine.guide.presets import goal
    from engine.guide.proposals import propose_roles
    from engine.hierarchy.csv_io import read_hierarchy
    from engine.hierarchy.from_spec import files_beside
    from engine.metrics import metric_from_dict
    from engine.persons import ROLE
    from engine.privacy import model_from_dict
    from engine.privacy.population import REGIONS
    path = Path(data).resolve()
    try:
        chosen = goal(preset)
    except KeyError:
        raise AnonymistError(f"--preset {preset!r} is not one of "
                             f"{', '.join(preset_names())}") from None
    if region is not None and region not in REGIONS:
        raise AnonymistError(f"--region {region!r} is not one of {', '.join(REGIONS)}")
    table, delimiter, encoding = read_for_guide(path)
    proposals = propose_roles(table)
    roles = {p.attribute: p.type for p in proposals}
    person = next((n for n, t in roles.items() if t == ROLE), None)
    types = {n: (IDENTIFYING if t == ROLE else t) for n, t in roles.items()}
    if QUASI_IDENTIFYING not in types.values():
        raise AnonymistError(f"{path.name}: no column was proposed as quasi-identifying, "
                             f"so the guide has nothing to generalize; write a job file")
    result = Plan(job=Job(), table=table,
                  reasons={p.attribute: p.reason for p in proposals})
    qis = [n for n in table.names if types.get(n) == QUASI_IDENTIFYING]
    beside = files_beside(path, qis)
    hierarchies = {}
    for name in qis:
        if name in beside:
            hierarchies[name] = read_hierarchy(beside[name], name)
            result.beside[name] = beside[name]
            result.hierarchy_reasons[name] = (f"ARX's hierarchy file beside the data: "
                                              f"{beside[name].name}")
            result.builders[name] = None
        else:
            proposal = propose_hierarchy(table.column(name))
            hierarchies[name] = proposal.hierarchy
            result.hierarchy_reasons[name] = proposal.reason
            spec = proposal.spec.to_json()
            spec.pop("version", None)
            result.builders[name] = spec
    attributes = {}
    for name in table.names:
        kind = types.get(name, "insensitive")
        if kind == "insensitive":
            continue  # columns not named are insensitive (as the app's job leaves them)
        attributes[name] = AttributeConfig(type=kind, hierarchy=hierarchies.get(name))
    sensitive = [n for n in table.names if types.get(n) == "sensitive"]
    population = ({"region": region or next(iter(REGIONS))} if chosen.needs_population
                  else None)
    result.job = Job(
        data=DataConfig(str(path), delimiter, encoding, person=person),
        attributes=attributes,
        privacy=[model_from_dict(p) for p in chosen.privacy(sensitive)],
        transformation=TransformationConfig(suppression_limit=chosen.suppression_limit),
        metric=metric_from_dict({"name": "loss"}), population=population,
        base_dir=path.parent)
    return result


def _no_none(value):
    if isinstance(value, dict):
        return {k: _no_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_no_none(v) for v in value]
    return value


def plan_text(p: Plan, preset: str) -> str:
    """The plan as a job file: runnable as it is, each proposal's reason a comment."""
    import tomli_w

    from engine.project.job_file import job_to_dict
    d = job_to_dict(p.job)
    for name, spec in p.builders.items():
        if spec is None:
            d["attributes"][name]["hierarchy"] = str(p.beside[name])
        else:
            d["attributes"][name]["hierarchy"] = _no_none(spec)
    lines = [f"# The guided release's plan for {Path(p.job.data.path).name}, preset "
             f"'{preset}' (anonymist guide --plan).",
             "# Review each proposal; 'anonymist anonymize' runs this file as it is.",
             "# Attribute types (columns not listed below are released as they are):"]
    for name in p.table.names:
        lines.append(f"#   {name}: {p.reasons.get(name, '')}")
    if p.hierarchy_reasons:
        lines.append("# Hierarchies:")
        for name, reason in p.hierarchy_reasons.items():
            lines.append(f"#   {name}: {reason}")
    return "\n".join(lines) + "\n" + tomli_w.dumps(d)
