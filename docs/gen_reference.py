"""The job-file parameter reference, generated from the declarations.

Every job-file key is declared once (``engine.schema.Param``: kind, range, choices,
default, unit, label, help), next to its privacy model, metric or search, or in
``engine.config`` for the job's own tables. This script writes those declarations out
as Markdown tables, so the documentation cannot drift from what the job-file reader
accepts. The MkDocs hook (``docs/hooks.py``) runs it on every build and serves the page
as ``reference/parameters.md``; ``python docs/gen_reference.py`` prints it.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the worktree's engine, not an installed one
    sys.path.insert(0, str(ROOT))

from engine.config import (  # noqa: E402
    ALGORITHM_INFO, AttributeConfig, DataConfig, EngineConfig, TransformationConfig)
from engine.metrics import METRICS  # noqa: E402
from engine.privacy import MODELS  # noqa: E402
from engine.privacy.population import POPULATION_PARAMS, REGIONS  # noqa: E402
from engine.project.job_file import FORMAT_VERSION  # noqa: E402
from engine.pseudonyms import METHOD_KEYS, PARAMS as PSEUDONYM_PARAMS  # noqa: E402
from engine.schema import Param, dataclass_params, show  # noqa: E402
from engine.search.genetic_settings import GeneticParameters, KgenParameters  # noqa: E402
from engine.subset import SUBSET_PARAMS  # noqa: E402
from engine.transform.job_keys import LOCAL_RECODING_PARAMS  # noqa: E402

HEADER = "| key | what it is | allowed values | default |\n|---|---|---|---|\n"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def allowed(p: Param) -> str:
    """What a value may be, in words, with the choices spelled as the job file writes them."""
    if p.kind == "choice":
        return " \\| ".join(f"`{show(c)}`".replace("'", '"') for c in p.choices)
    text = p.expectation()
    if p.unit:
        text += f" ({p.unit})"
    return _cell(text)


def default(p: Param) -> str:
    if p.required:
        return "**required**"
    if p.default is None:
        return "absent"
    return f"`{show(p.default)}`".replace("'", '"')


def param_rows(params) -> str:
    rows = []
    for p in params:
        what = p.title
        if p.help:
            what += f": {p.help}"
        rows.append(f"| `{p.name}` | {_cell(what)} | {allowed(p)} | {default(p)} |")
    return HEADER + "\n".join(rows) + "\n"


def section(title: str, intro: str, params) -> str:
    return f"## {title}\n\n{intro}\n\n{param_rows(params)}\n"


def models_section() -> str:
    out = ["## Privacy models: `[[privacy]]`\n",
           "One `[[privacy]]` table per model; `model` names it. The parameters a model "
           "declares, with their ranges and defaults:\n"]
    summary = ["| `model` | name | what it guarantees | needs |", "|---|---|---|---|"]
    for name, cls in MODELS.items():
        needs = "a research `[subset]`" if cls.uses_subset else ""
        summary.append(f"| [`{name}`](#{name}) | {_cell(cls.label)} | {_cell(cls.summary)} "
                       f"| {needs} |")
    out.append("\n".join(summary) + "\n")
    for name, cls in MODELS.items():
        out.append(f"### `{name}` {{ #{name} }}\n\n{_cell(cls.label)}: {cls.summary}\n")
        out.append(param_rows(cls.params) if cls.params else "No parameters.\n")
    return "\n".join(out) + "\n"


def metrics_section() -> str:
    out = ["## Metrics: `[metric]`\n",
           "`name` chooses the metric (default `\"loss\"`); every metric takes "
           "`monotonic`, `gs_factor` and `aggregate`, some take more. The formulas are "
           "in [Metrics](../metrics.md).\n"]
    summary = ["| `name` | metric | what it measures | default aggregate |", "|---|---|---|---|"]
    for name, cls in METRICS.items():
        summary.append(f"| [`{name}`](#metric-{name}) | {_cell(cls.label)} | "
                       f"{_cell(cls.summary)} | `{cls.default_aggregate}` |")
    out.append("\n".join(summary) + "\n")
    for name, cls in METRICS.items():
        out.append(f"### `{name}` {{ #metric-{name} }}\n\n{_cell(cls.label)}: {cls.summary}\n")
        out.append(param_rows(cls.params))
    return "\n".join(out) + "\n"


def algorithms_table() -> str:
    rows = ["| `algorithm` | name | what it does |", "|---|---|---|"]
    rows += [f"| `{k}` | {_cell(label)} | {_cell(text)} |"
             for k, (label, text) in ALGORITHM_INFO.items()]
    return "\n".join(rows) + "\n"


def pseudonym_section() -> str:
    methods = ", ".join(f"`{m}`: " + ", ".join(f"`{k}`" for k in keys)
                        for m, keys in METHOD_KEYS.items())
    return section("Pseudonyms: `[attributes.\"name\"]` of an identifying attribute",
                   "An identifying attribute is removed from the release unless it "
                   "names `pseudonymize`; each method takes its own keys (" + methods +
                   "). See [Pseudonyms](../guide/pseudonyms.md).",
                   PSEUDONYM_PARAMS.values())


def capabilities_section() -> str:
    """What each backend does (``engine.backends.capabilities.FEATURES``): a job needing a
    feature its backend lacks is refused before anything starts, with this row named."""
    from engine.backends.capabilities import markdown_table
    return ("### What each backend does\n\nA job (or an `anonymize` option) needing what "
            "its backend does not do is refused before any data is read, Spark started or "
            "file written; the message names the row below. The same table is in "
            "[Backends](backends.md#what-each-backend-does).\n\n" + markdown_table() + "\n")


def page() -> str:
    parts = [
        "# Job-file parameters\n",
        "!!! note \"Generated\"\n    This page is generated from the declarations in "
        "`engine/schema.py`, `engine/config.py` and each privacy model's, metric's and "
        "search's module by `docs/gen_reference.py` on every documentation build. "
        "The job-file reader accepts exactly these keys and values; an unknown key, a "
        "value of the wrong kind or out of range is refused with the file, table, key "
        "and value named. The [job file](job-file.md) page shows them in context.\n",
        section("Top level", "Keys outside any table.", [FORMAT_VERSION]),
        section("Data: `[data]`", "The data file and how to read it.",
                dataclass_params(DataConfig)),
        section("Attributes: `[attributes.\"name\"]`",
                "One table per column of the data; columns the job does not name are "
                "insensitive (released verbatim, with a warning or refused: "
                "`[data] unnamed_columns`).", dataclass_params(AttributeConfig)),
        pseudonym_section(),
        models_section(),
        section("Transformation and search: `[transformation]`",
                "Suppression, the search algorithm and its limits.",
                dataclass_params(TransformationConfig)),
        "### Algorithms\n\n" + algorithms_table() + "\n",
        section("Local recoding: `[transformation] local_recoding = {...}`",
                "ARX's local anonymization after the global optimum (an inline table; "
                "see [Transformation methods](../guide/transformation-methods.md)).",
                LOCAL_RECODING_PARAMS),
        section("Genetic searches: `[transformation.genetic]`",
                "The genetic search's settings (`algorithm = \"genetic\"`) and KGEN's "
                "(`algorithm = \"kgen\"`) share this table.",
                dataclass_params(GeneticParameters) + dataclass_params(KgenParameters)),
        metrics_section(),
        section("Research subset: `[subset]`",
                "Exactly one of `rows`, `query`, `indices` or `sample` (with `seed`).",
                SUBSET_PARAMS),
        section("Population: `[population]`",
                "Exactly one of `size` or `region`. Regions and their sizes: " +
                ", ".join(f"{k} ({v:,})" for k, v in REGIONS.items()) + ".",
                POPULATION_PARAMS),
        section("Backend: `[engine]`",
                "Where the records are counted; see [Backends](backends.md).",
                dataclass_params(EngineConfig)),
        capabilities_section(),
    ]
    return "\n".join(parts)


if __name__ == "__main__":  # --backends: the backends' table only (docs/reference/backends.md)
    if sys.argv[1:] == ["--backends"]:
        from engine.backends.capabilities import markdown_table
        sys.stdout.write(markdown_table())
    else:
        sys.stdout.write(page())
