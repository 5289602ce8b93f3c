"""The verifier's checks of released quasi-identifier columns that are not one
hierarchy level: microaggregated attributes, coding rules and locally recoded
quasi-identifiers (plain Python on the released strings; the engine's release of them
is ``engine.transform``, which the verifier does not import).
"""
from __future__ import annotations

#: coding rules (fixed recodings; README "Transformation methods")
RULES = ("identity", "suppression", "top-bottom-coding")
#: values a coding rule leaves as they are (missing)
MISSING = ("", "NULL")


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


def rule_problem(values, cfg, marker: str) -> str | None:
    """What is wrong with a column released under its coding rule, or None."""
    rule = cfg.transformation
    if rule == "suppression":
        bad = sorted({str(v) for v in values if str(v) != marker})
        return f"holds values other than {marker!r}: {bad[:3]}" if bad else None
    if rule == "top-bottom-coding":
        for v in dict.fromkeys(str(v) for v in values):
            if v.strip() in MISSING or v == marker:
                continue
            try:
                x = float(v)
            except ValueError:
                return f"holds {v!r}, which is not a number"
            if (cfg.top is not None and x > cfg.top) or (cfg.bottom is not None
                                                          and x < cfg.bottom):
                return f"holds {v!r}, outside [{cfg.bottom}, {cfg.top}]"
    return None


def check_column(job, name: str, qis: list[str], values: set[str], class_keys,
                 marker: str) -> list[str] | None:
    """Violations of a released QI column that is not a global generalization level, or
    None when the column is a plain generalized one (checked by level).

    ``values`` are the column's distinct released values (suppressed records' marker
    left out), ``class_keys`` the released classes (tuples of the ``qis`` values)."""
    kind = column_kind(job, name)
    if kind == "rule":
        problem = rule_problem(sorted(values), job.attributes[name], marker)
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
