"""Independent verification of an exported table against a job's models.

Nothing here uses the engine's classifier: classes are recounted from the
released values with plain pandas, so a bug in the search or the roll-up
cannot hide a privacy violation.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from engine.config import IDENTIFYING, QUASI_IDENTIFYING, Job
from engine.markers import SUPPRESSED, suppression_marker
from engine.pseudonyms import looks_pseudonymized
from engine.transform.checks import check_column, restore_removed, with_hierarchy


@dataclass
class VerifyReport:
    ok: bool
    records: int
    suppressed_records: int
    classes: int
    min_class_size: int
    levels: dict[str, int | None] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"ok": self.ok, "records": self.records,
                "suppressed_records": self.suppressed_records, "classes": self.classes,
                "min_class_size": self.min_class_size, "levels": self.levels,
                "violations": self.violations}


def _column_level(values: set[str], job: Job, name: str) -> int | None:
    h = job.attributes[name].hierarchy
    if h is None:
        return None
    for level in range(h.levels):
        if values <= set(h.level_labels(level)):
            return level
    return None


def suppressed_rows(frame: pd.DataFrame, qis: list[str], star_is_label: bool,
                    marker: str = SUPPRESSED) -> pd.Series:
    """Rows whose quasi-identifiers are all ``marker`` (and it is not a real label)."""
    if not qis or star_is_label:
        return pd.Series(False, index=frame.index)
    return (frame[qis] == marker).all(axis=1)


def verify_frame(frame: pd.DataFrame, job: Job, subset_mask=None) -> VerifyReport:
    """Check an exported table (all values as strings) against ``job``."""
    frame = frame.astype(str)
    qis = [n for n, a in job.attributes.items() if a.type == QUASI_IDENTIFYING]
    violations = []
    for n, a in job.attributes.items():
        if a.type == IDENTIFYING and n in frame.columns:
            spec = getattr(a, "pseudonym", None)
            if spec is None:
                violations.append(f"identifying attribute '{n}' is present in the output")
            elif not looks_pseudonymized(frame[n], spec):
                violations.append(f"identifying attribute '{n}' holds values that are not "
                                  f"{spec.method} pseudonyms")
    missing = [q for q in qis if q not in frame.columns]
    if missing:
        violations.append(f"quasi-identifier(s) missing from the output: {', '.join(missing)}")
        return VerifyReport(False, len(frame), 0, 0, 0, {}, violations)
    levels: dict[str, int | None] = {}
    star_everywhere = True
    marker = suppression_marker(job)
    all_marked = (frame[qis] == marker).all(axis=1) if qis else pd.Series(False, frame.index)
    for q in qis:
        col = frame[q]
        special = check_column(frame, job, q, qis, ~all_marked, marker)
        if special is not None:  # microaggregated, coded or locally recoded
            levels[q] = None
            violations.extend(special)
            star_everywhere = False
            continue
        lvl = _column_level(set(col[col != marker].unique()), job, q)
        levels[q] = lvl
        h = job.attributes[q].hierarchy
        if lvl is None:
            violations.append(f"column '{q}' holds values that are not labels of one "
                              f"hierarchy level (not a global recoding)")
        elif h is None or marker not in h.level_labels(lvl):
            star_everywhere = False
    sup = suppressed_rows(frame, qis, star_everywhere, marker)
    n_sup = int(sup.sum())
    kept = frame[~sup]
    sizes = kept.groupby(qis, sort=False).size() if qis else pd.Series([len(kept)])
    n = len(frame) if subset_mask is None else int(subset_mask.sum())
    limit = job.transformation.suppression_limit
    allowed = int(math.floor(limit * n + 1e-9))
    if n_sup > allowed:
        violations.append(f"{n_sup} records are suppressed, more than the limit "
                          f"{limit:g} x {n} = {allowed}")
    frame, restored = restore_removed(frame, job, sup)
    violations.extend(restored)
    for model in job.privacy:
        model = with_hierarchy(model, job)
        violations.extend(_check_model(model, kept, qis, sizes, subset_mask, frame, sup))
    return VerifyReport(not violations, len(frame), n_sup, int(len(sizes)),
                        int(sizes.min()) if len(sizes) else 0, levels, violations)


def _check_model(model, kept, qis, sizes, subset_mask, frame, sup) -> list[str]:
    if model.name == "k-anonymity":
        small = sizes[sizes < model.k]
        if len(small):
            return [f"{len(small)} equivalence class(es) have fewer than {model.k} records "
                    f"(smallest: {int(small.min())})"]
        return []
    try:
        from engine.privacy.output_checks import OUTPUT_CHECKS
    except ImportError:
        OUTPUT_CHECKS = {}
    check = OUTPUT_CHECKS.get(model.name)
    if check is None:
        return [f"no independent check is available for model '{model.name}'"]
    mask = None if subset_mask is None else pd.Series(subset_mask, index=frame.index)
    released = frame.copy()
    released.loc[sup, qis] = SUPPRESSED  # the checks' own convention for suppressed rows
    return list(check(model, released, qis, mask))
