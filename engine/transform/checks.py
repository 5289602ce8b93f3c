"""Independent checks of released columns that are not one hierarchy level: microaggregated
attributes, coding rules and locally recoded quasi-identifiers. Used by ``engine.verify``;
plain pandas on the exported strings, nothing from the search.
"""
from __future__ import annotations

import pandas as pd

from engine.transform.coding import RULES, released_ok


def column_kind(job, name: str) -> str:
    """How a quasi-identifier is released: generalized | aggregated | clustered | rule."""
    a = job.attributes[name]
    if a.transformation == "microaggregation":
        return "aggregated" if a.clustering == "none" else "clustered"
    if a.transformation in RULES:
        return "rule"
    return "generalized"


def local_recoding(job) -> bool:
    return bool(getattr(job.transformation, "local_recoding", None))


def check_column(frame: pd.DataFrame, job, name: str, qis: list[str], kept: pd.Series,
                 marker: str) -> list[str] | None:
    """Violations of a released QI column that is not a global generalization level, or
    None when the column is a plain generalized one (checked by level as before).

    ``kept`` flags the rows not suppressed."""
    kind = column_kind(job, name)
    col = frame[name].astype(str)
    if kind == "rule":
        problem = released_ok(col[kept], job.attributes[name], marker)
        return [f"column '{name}' ({job.attributes[name].transformation}) {problem}"] \
            if problem else []
    if kind == "aggregated":
        # constant within each class of the other quasi-identifiers (their aggregate)
        others = [q for q in qis if q != name and column_kind(job, q) != "aggregated"]
        rows = frame[kept]
        if not others:
            groups = pd.Series(0, index=rows.index)
        else:
            groups = rows[others].astype(str).agg("\x1f".join, axis=1)
        distinct = rows[name].astype(str).groupby(groups).nunique()
        bad = int((distinct > 1).sum())
        return [f"column '{name}' (microaggregation) releases more than one value in "
                f"{bad} class(es) of the other quasi-identifiers"] if bad else []
    if kind == "clustered":
        return []  # its values are class aggregates; the classes are recounted with them
    if local_recoding(job):
        h = job.attributes[name].hierarchy
        if h is None:
            return [f"column '{name}' has no hierarchy to check its labels against"]
        labels = {label for level in range(h.levels) for label in h.level_labels(level)}
        unknown = sorted(set(col[kept].unique()) - labels)
        return [f"column '{name}' holds values that are no label of its hierarchy: "
                f"{unknown[:3]}"] if unknown else []
    return None


def restore_removed(frame: pd.DataFrame, job, suppressed: pd.Series) -> tuple[pd.DataFrame, list]:
    """With ``remove_suppressed_values`` the suppressed records' sensitive values are not
    in the export, but t-closeness, delta-disclosure and beta-likeness compare classes
    with the distribution over every record: put them back from the job's input data
    (same rows, same order). Returns the frame and any problem found."""
    if not getattr(job.transformation, "remove_suppressed_values", False) \
            or not suppressed.any():
        return frame, []
    needs = sorted({m.attribute for m in job.privacy
                    if m.name in ("t-closeness", "delta-disclosure", "beta-likeness")})
    if not needs:
        return frame, []
    if not job.data.path:
        return frame, [f"suppressed records' values of {', '.join(needs)} were removed and "
                       f"the job names no input data to restore the overall distribution"]
    from engine.data.csv_import import read_csv
    try:
        source = read_csv(job.resolve(job.data.path), delimiter=job.data.delimiter,
                          encoding=job.data.encoding, header=True)
    except Exception as e:  # noqa: BLE001 - reported, never raised
        return frame, [f"cannot read the input data to restore removed values: {e}"]
    if len(source) != len(frame):
        return frame, [f"the input data has {len(source)} rows, the output {len(frame)}: "
                       f"cannot restore the suppressed records' removed values"]
    frame = frame.copy()
    for attribute in needs:
        if attribute in source.columns and attribute in frame.columns:
            values = source[attribute].astype(str).to_numpy()
            frame.loc[suppressed.to_numpy(), attribute] = values[suppressed.to_numpy()]
    return frame, []


def with_hierarchy(model, job):
    """A copy of a hierarchical-distance t-closeness model that knows its sensitive
    attribute's hierarchy from the job (an unbound model read from a job file does not),
    so verify can check it; other models as they are."""
    if getattr(model, "distance", None) == "hierarchical" \
            and getattr(model, "hierarchy", None) is None:
        a = job.attributes.get(model.attribute)
        if a is not None and a.hierarchy is not None:
            import copy
            model = copy.copy(model)
            model.hierarchy = a.hierarchy
    return model
