"""The release report: what was released, from what, how, and how it was checked.

`build_report` gathers one JSON-able dict (the same content the PDF shows, see
``engine.release_docs.pdf``): the input (file, rows, columns, SHA-256), the
configuration (attribute types, hierarchies and heights, privacy models with
parameters, suppression limit, metric, search algorithm and limits), the released
transformation and whether it is the proven optimum, the output (rows, suppressed
records, equivalence classes, SHA-256), quality (the job's metric and per-attribute
losses of ``engine.analysis.quality``), risk before and after (``engine.analysis.risk``)
and the verdict of the independent recount (``engine.verify``) of the released table,
as re-read from the written file when there is one.

The report's ``certificate`` (``engine.certificate``) records the SHA-256 of the input,
the job file, every hierarchy file and the release, for ``anonymist verify --report``.
`public_report` is the report without anything that names an original value (the
distributions, a research subset's definition, paths): the one to share.

No secret enters the report: pseudonymized attributes are named with their method and
the key's source (a file path or an environment variable name), never the key.
"""
from __future__ import annotations

import hashlib
import io
import math
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from engine.analysis.quality import quality
from engine.analysis.risk import class_sizes, risk_summary
from engine.certificate import KEY as CERTIFICATE
from engine.certificate import certificate, sha256_file
from engine.config import QUASI_IDENTIFYING
from engine.project.job_file import job_to_dict
from engine.sdc.measures import release_section
from engine.verify import identifier_violations, verify_frame

FORMAT_VERSION = 1
DEFAULT_RISK_THRESHOLD = 0.2


def sha256_table(frame: pd.DataFrame) -> str:
    """SHA-256 of a table written as UTF-8 CSV (``;``, minimal quoting, LF, header):
    the digest of a released table that was not written to a file."""
    buf = io.StringIO()
    frame.astype(str).to_csv(buf, sep=";", index=False, lineterminator="\n")
    return hashlib.sha256(buf.getvalue().encode("utf-8")).hexdigest()


def sha256_encoded(names, n_rows: int, column) -> str | None:
    """`sha256_table`'s digest computed from encoded columns (``column(name) -> (codes,
    text of each code)``, as ``engine.data.csv_encoded`` writes them: the bytes pandas'
    CSV has, without a DataFrame of every cell); None for a table of one column (hash
    its DataFrame)."""
    from engine.data.csv_encoded import supports, write_encoded_csv
    if not supports("utf-8", len(names)):
        return None
    h = hashlib.sha256()

    class _Sink:
        write = h.update
    write_encoded_csv(_Sink(), list(names), n_rows, column, delimiter=";",
                      lineterminator="\n")
    return h.hexdigest()


def _input_column(table):
    from engine.data.csv_encoded import as_text

    def column(name):
        col = table.column(name)
        return col.codes, as_text(col.dictionary)
    return column


def _finite(x):
    """JSON-safe numbers: NaN and infinities become None, numpy scalars Python ones."""
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x) if math.isfinite(x) else None
    return x


def risk_threshold(job) -> float:
    """The risk a single record may carry: 1/k of the strictest k-anonymity, else 0.2."""
    ks = [m.k for m in job.privacy if m.name == "k-anonymity"]
    return 1.0 / max(ks) if ks else DEFAULT_RISK_THRESHOLD


def _risk(summary) -> dict:
    def attacker(a):
        return {"records_at_risk": a.records_at_risk, "highest_risk": a.highest_risk,
                "success_rate": a.success_rate}
    return {"records": summary.n_records, "classes": summary.n_classes,
            "average_risk": summary.average_risk, "highest_risk": summary.highest_risk,
            "sample_uniques": summary.sample_uniques,
            "prosecutor": attacker(summary.prosecutor),
            "journalist": attacker(summary.journalist),
            "marketer": {"success_rate": summary.marketer}}


def hierarchy_levels(h) -> list[str]:
    """How a hierarchy coarsens, level by level from level 1, for a reader of the
    report: one generalized label per level, taken along the chain of the hierarchy's
    middle row (``35-39``, ``30-39``, ``*``). Level 0, the original values, is never
    named: the report may leave the organisation."""
    if not h.rows:
        return []
    row = h.rows[len(h.rows) // 2]
    return [str(v) for v in row[1:]]


def _configuration(problem) -> dict:
    job = problem.job
    d = job_to_dict(job)
    heights = {q: problem.hierarchies[j].height for j, q in enumerate(problem.qis)}
    attributes = []
    for name in problem.table.names:
        a = job.attributes.get(name)
        entry = {"name": name, "type": a.type if a else "insensitive"}
        if a is not None:
            if a.hierarchy_path:
                entry["hierarchy"] = Path(a.hierarchy_path).name
            elif a.hierarchy is not None:
                entry["hierarchy"] = a.hierarchy.source or "built in the app"
            if a.hierarchy is not None and name in heights:
                entry["hierarchy_levels"] = hierarchy_levels(a.hierarchy)
            if name in heights:
                entry["height"] = heights[name]
            if a.type == QUASI_IDENTIFYING:
                lo, hi = problem.lattice.min_levels, problem.lattice.max_levels
                j = problem.qis.index(name) if name in problem.qis else None
                if j is not None:
                    entry["levels"] = [int(lo[j]), int(hi[j])]
            if a.weight is not None:
                entry["weight"] = a.weight
            pseudonym = _pseudonym_entry(d.get("attributes", {}).get(name, {}))
            if pseudonym:
                entry["pseudonym"] = pseudonym
        attributes.append(entry)
    tr = d.get("transformation", {})
    from engine.transform.perturbation import perturbed_names
    if any(job.attributes[n].seed is None for n in perturbed_names(job)):
        # the search's seed also seeds perturbations without their own: not printed
        # (with it, noise could be subtracted from the release again)
        tr = {k: v for k, v in tr.items() if k != "seed"}
    return {"attributes": attributes,
            "privacy_models": d.get("privacy", []),
            "suppression_limit": job.transformation.suppression_limit,
            "metric": job.metric.to_dict(),
            "search": {k: v for k, v in tr.items() if k != "suppression_limit"},
            "subset": d.get("subset"), "population": d.get("population")}


def _pseudonym_entry(attr: dict) -> dict | None:
    """Method and key source of a pseudonymized attribute (never the key itself)."""
    method = attr.get("pseudonymize")
    if not method:
        return None
    return {k: v for k, v in attr.items()
            if k in ("pseudonymize", "key_file", "key_env", "keep", "mask_char", "length")}


def build_report(result, levels=None, *, input_path: str | Path | None = None,
                 output_path: str | Path | None = None, output_target: str | None = None,
                 reread: pd.DataFrame | None = None, job_path: str | Path | None = None,
                 hierarchy_files: dict | None = None) -> dict:
    """The report of releasing ``levels`` (default: the optimum) of ``result``.

    Parameters
    ----------
    input_path
        The data file read (for its name and SHA-256); without it the input is hashed
        as `sha256_table` of the table.
    output_path, output_target
        The file the release was written to (hashed), and/or a description of where
        it went (e.g. a database table); without a file the released table is hashed
        as `sha256_table`.
    reread
        The released table as read back from its target: verified instead of the
        in-memory table, so the verdict covers what was actually delivered.
    job_path, hierarchy_files
        The job file and the hierarchy files (by attribute) the release was made with,
        hashed in the certificate (default: the job's own hierarchy paths).
    """
    problem, job = result.problem, result.problem.job
    opt = result.optimum if levels is None else result.evaluate(levels)
    if opt is None:
        raise ValueError("no transformation meets the privacy models: nothing was released")
    level_list = [opt.levels[q] for q in problem.qis]
    local = result.local_recoding if levels is None else None
    released = result.transformed(None if local is not None else level_list)
    output = released.encoded()  # the analyses read the encoded columns, not the frame
    suppressed = np.asarray(released.suppressed_rows, dtype=bool)
    # the input's records of the release, row for row (a subset job's: its subset's)
    input_frame = released.input_table()
    subset = np.asarray(problem.model_context.subset, dtype=bool) if job.subset else None
    # the research subset as a mask of the input's rows, for the verifier
    subset_of_input = subset if problem.table.weights is None else None
    if released.subset_release:  # every released record is a subset record
        subset = None

    input_info = {"rows": int(problem.table.n_rows), "columns": len(problem.table.names),
                  "column_names": list(problem.table.names)}
    if input_path is not None:
        input_info.update(file=Path(input_path).name, sha256=sha256_file(input_path),
                          sha256_of="file")
    else:
        t = problem.table
        digest = sha256_encoded(t.names, t.n_rows, _input_column(t)) or \
            sha256_table(t.to_dataframe())
        input_info.update(file=None, sha256=digest, sha256_of="table as CSV")

    stats = released.class_statistics()
    output_info = {"rows": int(released.n_rows), "columns": len(released.names),
                   "column_names": [str(c) for c in released.names],
                   "suppressed_records": int(suppressed.sum()),
                   "equivalence_classes": stats["classes"],
                   "min_class_size": stats["min_class_size"],
                   "average_class_size": stats["average_class_size"],
                   "target": output_target or (str(output_path) if output_path else None)}
    if problem.counts_persons and local is None:  # the limit is in records; who it hit
        output_info["person"] = problem.person_figures(level_list)
    if output_path is not None:
        output_info.update(file=Path(output_path).name, sha256=sha256_file(output_path),
                           sha256_of="file")
    else:
        digest = sha256_encoded(released.names, released.n_rows, released.csv_column) or \
            sha256_table(released.frame)
        output_info.update(file=None, sha256=digest, sha256_of="table as CSV")

    exact = result.proven_optimal
    is_optimum = result.optimum is not None and opt.levels == result.optimum.levels
    why = ("found by the optimal search, which stops only when no unchecked "
           "transformation can have a lower loss" if result.outcome.algorithm == "optimal"
           else "found by checking every transformation")
    if result.outcome.algorithm == "safepub":
        why = ("chosen by SafePub's differentially private search (randomized on purpose: "
               "it releases a good transformation, not the optimum, to protect privacy)")
    elif not exact:
        why = (f"found by the {result.outcome.algorithm} search"
               + (" (cancelled)" if result.cancelled else "")
               + ": a heuristic result, not proven optimal")
    elif not is_optimum:
        why = "chosen by hand; the search's optimum has levels " + str(result.optimum.levels)
    if local is not None:
        why += ("; then local recoding re-anonymized the suppressed records on their own "
                "(records carry different levels)")

    hierarchies = {q: job.attributes[q].hierarchy for q in problem.qis
                   if job.attributes.get(q) is not None}
    q = quality(input_frame, output, problem.qis, hierarchies, suppressed=suppressed)
    threshold = risk_threshold(job)
    linked = problem.released_qis  # microaggregated quasi-identifiers too
    persons = problem.person_codes  # risk per person with [data] person
    before = risk_summary(class_sizes(input_frame, linked, None, subset, persons), threshold)
    after = risk_summary(class_sizes(output, linked, suppressed, subset, persons), threshold)

    checked = reread if reread is not None else released.frame
    from engine.transform.perturbation import perturbed_names
    from engine.transform.sdc_report import sdc_methods_report
    verdict = verify_frame(checked.astype(str), job,
                           subset_of_input if released.subset_release else None,
                           input_frame=(problem.table.to_dataframe()
                                        if perturbed_names(job) else None))
    found = identifier_violations(checked, job, generalized=[  # the scan the release ran
        q for q, level in verdict.levels.items() if level])
    if found:
        verdict.violations += found
        verdict.ok = False
    output_info["identifiers"] = released.identifier_report()

    if hierarchy_files is None:
        hierarchy_files = {name: job.resolve(a.hierarchy_path)
                           for name, a in job.attributes.items() if a.hierarchy_path}
    # files only: a table given in memory or written to a database has no file hash here
    cert = certificate(
        input_path=input_path, input_sha256=input_info["sha256"] if input_path else None,
        job_path=job_path, hierarchies=hierarchy_files, release_path=output_path,
        release_sha256=output_info["sha256"] if output_path else None,
        privacy_models=job_to_dict(job).get("privacy", []),
        suppression_limit=job.transformation.suppression_limit)

    report = {
        "format_version": FORMAT_VERSION,
        "created": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "software": "Anonymist " + _version(),
        "input": input_info,
        "configuration": _configuration(problem),
        "transformation": {
            "levels": opt.levels,
            "information_loss": opt.loss_json(),
            "information_loss_percent": opt.information_loss_percent,
            "proven_optimal": bool(exact and is_optimum),
            "how": why,
            "algorithm": result.outcome.algorithm,
            "transformations_checked": result.transformations_checked,
            "lattice_size": result.lattice_size,
            "elapsed_s": result.elapsed_s,
            "local_recoding": None if local is None else local.to_dict(),
        },
        "output": output_info,
        "quality": {"metric": job.metric.to_dict(),
                    "information_loss": opt.loss_json(),
                    "information_loss_percent": opt.information_loss_percent,
                    "attributes": [a.__dict__ for a in q.attributes],
                    "overall": q.overall,
                    "discernibility_normalized": q.discernibility_normalized,
                    "average_class_size": q.average_class_size},
        "risk": {"threshold": threshold,
                 "threshold_source": ("1/k of k-anonymity" if threshold != DEFAULT_RISK_THRESHOLD
                                      or any(m.name == "k-anonymity" for m in job.privacy)
                                      else "default 0.2"),
                 "before": _risk(before), "after": _risk(after)},
        **({"survey_risk": release_section(
            input_frame.to_dataframe(), released.frame, linked, job.weight, job.household)}
           if job.weight is not None else {}),
        **sdc_methods_report(problem, released),  # cell suppression, PRAM, noise...
        "verification": {"ok": verdict.ok, "violations": list(verdict.violations),
                         "records": verdict.records,
                         "suppressed_records": verdict.suppressed_records,
                         "classes": verdict.classes, "min_class_size": verdict.min_class_size,
                         "levels": verdict.levels,
                         "of": "the table read back from its target" if reread is not None
                               else "the released table in memory"},
        CERTIFICATE: cert,
    }
    return _finite(report)


def public_report(report: dict) -> dict:
    """The report without what may name an original value or a path: the research
    subset's definition (a query or row file), the output target's path or database URL
    (its file name stays), the key sources of pseudonyms; the PDF gets no distribution charts (the
    input's values). Marked ``"scope": "public"``."""
    import copy
    out = copy.deepcopy(report)
    out["scope"] = "public"
    conf = out["configuration"]
    if conf.get("subset"):
        conf["subset"] = {"defined": "in the internal report"}
    for a in conf["attributes"]:
        p = a.get("pseudonym")
        if p is not None:
            a["pseudonym"] = {k: v for k, v in p.items() if k not in ("key_file", "key_env")}
    target = out["output"].get("target")
    out["output"]["target"] = out["output"].get("file") or ("a database table" if target
                                                            else None)
    return out


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("anonymist")
    except Exception:
        return "(development)"


def distributions(result, levels=None, top: int = 12) -> dict[str, dict]:
    """Per quasi-identifier the input's and the output's most frequent values with
    their counts (the rest summed as "other"), for the report's charts; ``input_numbers``
    holds the input's numbers when they are all finite numbers with more than ``top``
    values (the chart is then a histogram). Counted on the encoded columns, one code at a time:
    most frequent first, ties in the order the values first occur."""
    problem = result.problem
    released = result.transformed(levels)
    out = {}
    for q in problem.qis:
        col = problem.table.column(q)
        labels, counts = _counts(col)
        present = labels[counts > 0]
        numbers = pd.to_numeric(pd.Series(present, dtype=object), errors="coerce")
        numeric = len(present) > top and bool(np.isfinite(numbers.to_numpy(float)).all())
        as_number = None
        if numeric:
            by_code = pd.to_numeric(pd.Series(col.dictionary, dtype=object).astype(str),
                                    errors="coerce").to_numpy(dtype=float)
            as_number = by_code[col.codes]
        out[q] = {"input": _top(labels, counts, top), "input_numbers": as_number,
                  "output": _top(*_counts(released.column(q)), top)}
    return out


def _counts(col) -> tuple[np.ndarray, np.ndarray]:
    """A column's distinct values as text and their records, most frequent first (ties:
    first occurrence first); values equal as text are one."""
    counts = np.bincount(col.codes, minlength=len(col.dictionary))
    first = np.full(len(col.dictionary), len(col.codes), dtype=np.int64)
    seen, at = np.unique(col.codes, return_index=True)
    first[seen] = at
    labels = pd.Series(col.dictionary, dtype=object).astype(str).to_numpy(dtype=object)
    if len(set(labels)) < len(labels):  # two codes with one text: one value
        frame = pd.DataFrame({"label": labels, "count": counts, "first": first})
        merged = frame.groupby("label", sort=False).agg(count=("count", "sum"),
                                                        first=("first", "min"))
        labels = merged.index.to_numpy(dtype=object)
        counts, first = merged["count"].to_numpy(), merged["first"].to_numpy()
    order = np.lexsort((first, -counts))
    return labels[order], counts[order]


def _top(labels: np.ndarray, counts: np.ndarray, top: int) -> list[tuple[str, int]]:
    present = counts > 0
    labels, counts = labels[present], counts[present]
    head = [(str(k), int(v)) for k, v in zip(labels[:top], counts[:top])]
    rest = int(counts[top:].sum())
    return head + ([(f"other ({len(counts) - top})", rest)] if rest else [])
