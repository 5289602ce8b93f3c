"""Independent checks of released columns that are not one hierarchy level: microaggregated
attributes, coding rules and locally recoded quasi-identifiers. Used by ``engine.verify``;
plain pandas on the exported strings, nothing from the search.
"""
from __future__ import annotations

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


def check_column(job, name: str, qis: list[str], values: set[str], class_keys,
                 marker: str) -> list[str] | None:
    """Violations of a released QI column that is not a global generalization level, or
    None when the column is a plain generalized one (checked by level as before).

    ``values`` are the column's distinct released values (suppressed records' marker
    left out), ``class_keys`` the released classes (tuples of the ``qis`` values), as
    ``engine.verify`` counts them from the exported file."""
    kind = column_kind(job, name)
    if kind == "rule":
        problem = released_ok(sorted(values), job.attributes[name], marker)
        return [f"column '{name}' ({job.attributes[name].transformation}) {problem}"] \
            if problem else []
    if kind == "aggregated":
        # constant within each class of the other quasi-identifiers (their aggregate)
        j = qis.index(name)
        others = [i for i, q in enumerate(qis)
                  if q != name and column_kind(job, q) != "aggregated"]
        seen: dict[tuple, set] = {}
        for key in class_keys:
            seen.setdefault(tuple(key[i] for i in others), set()).add(key[j])
        bad = sum(1 for v in seen.values() if len(v) > 1)
        return [f"column '{name}' (microaggregation) releases more than one value in "
                f"{bad} class(es) of the other quasi-identifiers"] if bad else []
    if kind == "clustered":
        return []  # its values are class aggregates; the classes are recounted with them
    if local_recoding(job):
        h = job.attributes[name].hierarchy
        if h is None:
            return [f"column '{name}' has no hierarchy to check its labels against"]
        labels = {label for level in range(h.levels) for label in h.level_labels(level)}
        unknown = sorted(set(values) - labels)
        return [f"column '{name}' holds values that are no label of its hierarchy: "
                f"{unknown[:3]}"] if unknown else []
    return None
