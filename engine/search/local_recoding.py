"""Local recoding: ARX's "local anonymization" after the global optimum.

The global optimum suppresses the records of its violating classes. Those
records are anonymized again on their own, as a problem of their own (the same
privacy models, distribution-based ones still measured against the whole
data set's distribution, the job's suppression limit relative to them, the
job's metric with the local-recoding gs-factor): the records its optimum keeps
are released with that transformation's (lower or different) levels, the rest
stay suppressed and are tried again in the next iteration. When an iteration
recodes nothing the gs-factor grows by the adaption factor (ARX's
``optimizeIterative``); the process stops after ``iterations`` tries, when
nothing is left suppressed, when fewer records are left than a class needs,
or when the gs-factor would pass 1.

Records of one released class may so carry different levels of one
attribute. Released classes are the records with equal released labels, so
records recoded in different iterations may fall into one class; after every
iteration the whole released table's classes are rebuilt from the labels and
checked against every model, and records recoded in that iteration whose
class then violates a model are put back to suppressed (the table before the
iteration satisfied the models, so this always ends with a valid table).

Supported are the models judged class by class on a class's own records
(ARX's ``isLocalRecodingSupported``): k-anonymity, the l-diversities,
t-closeness, delta-disclosure and beta-likeness.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from engine.classes import Classes, merge_aggregate
from engine.data.table import EncodedColumn, EncodedTable
from engine.errors import JobError
from engine.privacy.base import PrivacyModel

SUPPORTED = ("k-anonymity", "distinct-l-diversity", "entropy-l-diversity",
             "recursive-cl-diversity", "t-closeness", "delta-disclosure", "beta-likeness")
#: per-model state computed from the whole data set that a subset problem keeps
_GLOBAL_STATE = ("overall", "mass_flat")


@dataclass
class LocalRecoding:
    """The outcome: per distinct record (the classifier's base items) its levels and
    whether it is suppressed, the iterations' steps and the loss before and after."""

    levels: np.ndarray          # base items x QIs
    suppressed: np.ndarray      # base items
    suppressed_before: int
    suppressed_after: int
    loss_before: object
    loss_after: object
    elapsed_s: float
    steps: list = field(default_factory=list)
    settings: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        def js(loss):
            return list(loss) if isinstance(loss, tuple) else loss
        return {"settings": dict(self.settings),
                "suppressed_before": self.suppressed_before,
                "suppressed_after": self.suppressed_after,
                "information_loss_before": js(self.loss_before),
                "information_loss_after": js(self.loss_after),
                "iterations": len(self.steps), "steps": self.steps,
                "elapsed_s": self.elapsed_s}


def check_supported(problem) -> None:
    bad = [m.name for m in problem.models if m.name not in SUPPORTED]
    if bad:
        raise JobError(f"[transformation] local_recoding supports the models judged class by "
                       f"class ({', '.join(SUPPORTED)}), not {', '.join(sorted(set(bad)))}")
    if problem.uses_subset or problem.job.subset:
        raise JobError("[transformation] local_recoding does not work with a research subset")


def min_group(problem) -> int:
    return max([m.implied_class_size() for m in problem.models] + [1])


def sub_problem(problem, rows: np.ndarray, gs_factor: float):
    """The problem of the records ``rows`` alone, with fresh models bound to them that
    keep the whole data set's distributions, and the metric at ``gs_factor``."""
    from engine.problem import Problem
    table = problem.table
    sub_table = EncodedTable([EncodedColumn(n, table.column(n).codes[rows],
                                            table.column(n).dictionary) for n in table.names])
    job = problem.job
    sub_job = replace(job, metric=job.metric.replace(gs_factor=gs_factor),
                      transformation=replace(job.transformation, local_recoding=None))
    sub = Problem(sub_table, sub_job)
    for mine, whole in zip(sub.models, problem.models):
        for name in _GLOBAL_STATE:
            if getattr(whole, name, None) is not None:
                setattr(mine, name, getattr(whole, name))
    if not sub.models_monotonic:
        sub.pruning_k = max((m.implied_class_size() for m in sub.models
                             if type(m).violating is not PrivacyModel.violating), default=1)
    return sub


class _Labels:
    """Released labels of the distinct records as integers comparable across levels."""

    def __init__(self, problem):
        base = problem.classifier.base
        self.rep = base.rep
        self.luts = []    # per QI, per level: code -> global label id
        self.marker_id = []
        marker = problem.job.transformation.suppression_string
        for h in problem.hierarchies:
            ids: dict[str, int] = {}
            per_level = [np.array([ids.setdefault(str(lab), len(ids)) for lab in labels],
                                  dtype=np.int64) for labels in h.labels]
            self.luts.append(per_level)
            self.marker_id.append(ids.get(marker, -2))
        self.hierarchies = problem.hierarchies

    def ids(self, items: np.ndarray, levels: np.ndarray) -> np.ndarray:
        """Label ids (items x QIs) of base items at per-item levels."""
        out = np.empty((len(items), len(self.hierarchies)), dtype=np.int64)
        for j, h in enumerate(self.hierarchies):
            lv = levels[:, j]
            for level in np.unique(lv):
                sel = lv == level
                codes = h.maps[level][self.rep[items[sel], j]]
                out[sel, j] = self.luts[j][level][codes]
        return out

    def all_marker(self, ids: np.ndarray) -> np.ndarray:
        """Items whose every label is the suppression string (released as suppressed)."""
        if ids.shape[1] == 0:
            return np.zeros(len(ids), dtype=bool)
        return (ids == np.asarray(self.marker_id)[None, :]).all(axis=1)


def combined_classes(problem, labels: _Labels, levels: np.ndarray,
                     suppressed: np.ndarray) -> tuple[Classes, np.ndarray, np.ndarray,
                                                      np.ndarray]:
    """The released table's classes (records with equal labels; suppressed records form
    one class of their own), each base item's class and the suppressed-class mask."""
    base = problem.classifier.base
    nb = base.n_classes
    keys = labels.ids(np.arange(nb), levels)
    keys[suppressed] = -1
    _, first, group = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    group = group.reshape(-1)
    n = len(first)
    counts = np.bincount(group, weights=base.counts, minlength=n).astype(np.int64)
    aggs = {k: merge_aggregate(v, group, n) for k, v in base.aggregates.items()}
    q = len(problem.qis)
    classes = Classes(np.zeros(q, dtype=np.int64), keys[first], keys[first], counts, aggs)
    violating = np.zeros(n, dtype=bool)
    for m in problem.models:
        v = m.violating(classes)
        if v is not None:
            violating |= v
    sup_class = np.zeros(n, dtype=bool)
    if suppressed.any():
        sup_class[group[np.flatnonzero(suppressed)[0]]] = True
    return classes, group, violating & ~sup_class, sup_class


def recoded_loss(problem, levels: np.ndarray, suppressed: np.ndarray, classes=None,
                 group=None, sup_class=None):
    """The job's metric over per-record levels, or None where the metric has no
    per-record form here. Loss: per attribute the records' domain shares at their own
    levels (suppressed: ``share + s(1 - share)`` at the level that suppressed them),
    normalized as ARX's Loss; precision: ``level/height`` per record (suppressed: s);
    discernibility and AECS: over the released classes (records with equal labels)."""
    metric = problem.metric
    base = problem.classifier.base
    counts = problem.record_counts(base).astype(float)
    q = len(problem.qis)
    if metric.name == "loss":
        x = np.zeros(q)
        for j in range(q):
            for level in np.unique(levels[:, j]):
                sel = levels[:, j] == level
                gen = problem.hierarchies[j].maps[level][base.rep[sel, j]]
                share = np.asarray(metric.shares[j][level], dtype=float)[gen]
                c = counts[sel]
                sup = suppressed[sel]
                x[j] += float((c * metric.g * share)[~sup].sum())
                x[j] += float((c * (share + metric.s * (1.0 - share)))[sup].sum())
        x = metric._normalize(x)
        if metric.ctx.microaggregated and classes is not None:
            n = float(metric.ctx.n_records)
            sup_mask = sup_class if sup_class is not None else np.zeros(classes.n_classes, bool)
            micro = metric._micro(classes, sup_mask, problem.record_counts(classes)
                                  .astype(float))
            x = np.concatenate([x, [max(float(m.sum()) / n, 0.0) for m in micro]])
        return metric.aggregate_values(x)
    if metric.name == "precision" and not metric.monotonic:
        n = counts.sum()
        x = np.zeros(q)
        for j in range(q):
            ratio = metric.ratio[j][levels[:, j]]
            x[j] = float((counts * metric.g * ratio)[~suppressed].sum()
                         + counts[suppressed].sum() * metric.s) / n if n else 0.0
        return metric.aggregate_values(x)
    if metric.name in ("discernibility", "aecs") and classes is not None:
        # class sizes only: the released classes with the suppressed records as one class
        return metric.evaluate(classes, sup_class, problem.record_counts(classes))
    return None


def local_recoding(problem, levels, settings: dict, cancel=None, progress=None) -> LocalRecoding:
    """Run ARX's iterative local recoding from the global transformation ``levels``."""
    from engine.search import run_search
    check_supported(problem)
    start = time.perf_counter()
    classifier = problem.classifier
    base = classifier.base
    nb = base.n_classes
    counts = problem.record_counts(base)
    levels = np.asarray(levels, dtype=np.int64)
    classes, base_to_class = classifier.rollup(base, levels)
    suppressed = problem.violating(classes)[base_to_class]
    item_levels = np.tile(levels, (nb, 1))
    labels = _Labels(problem)
    before = int(counts[suppressed].sum())
    combined = combined_classes(problem, labels, item_levels, suppressed)
    loss_before = recoded_loss(problem, item_levels, suppressed, combined[0], None, combined[3])
    gs = float(settings.get("gs_factor", 0.05))
    adaption = float(settings.get("adaption_factor", 0.0))
    steps = []
    need = min_group(problem)
    row_to_base = classifier.row_to_base
    for iteration in range(int(settings.get("iterations", 100))):
        if cancel is not None and cancel():
            break
        left = int(counts[suppressed].sum())
        if left == 0 or left < need:
            break
        step_start = time.perf_counter()
        rows = np.flatnonzero(suppressed[row_to_base])
        sub = sub_problem(problem, rows, gs)
        outcome = run_search(sub, None, cancel)
        recoded = 0
        step = {"iteration": iteration + 1, "gs_factor": round(gs, 10), "records": left,
                "checked": int(outcome.checked)}
        opt = outcome.optimum
        if opt is not None and opt.anonymous:
            lv = np.asarray(opt.levels, dtype=np.int64)
            step["levels"] = dict(zip(problem.qis, (int(x) for x in lv)))
            sub_classes, sub_b2c = sub.classifier.rollup(sub.classifier.base, lv)
            kept_rows = ~sub.violating(sub_classes)[sub_b2c][sub.classifier.row_to_base]
            items = np.unique(row_to_base[rows[kept_rows]])
            tried = np.unique(row_to_base[rows])
            item_levels[tried] = lv  # suppressed ones keep the level that suppressed them
            if len(items):
                ids = labels.ids(items, np.tile(lv, (len(items), 1)))
                blank = labels.all_marker(ids)
                if blank.all():
                    # released all-"*" (as good as suppressed): a larger gs-factor only
                    # makes generalization cheaper still, so stop here
                    step["recoded"] = 0
                    step["stopped"] = "the optimum releases the records as suppressed"
                    steps.append(step)
                    break
                items = items[~blank]
            suppressed[items] = False
            items = _settle(problem, labels, item_levels, suppressed, items)
            recoded = int(counts[items].sum())
        step["recoded"] = recoded
        step["elapsed_s"] = round(time.perf_counter() - step_start, 3)
        steps.append(step)
        if progress is not None:
            progress(iteration + 1, int(counts[suppressed].sum()))
        if recoded == 0:
            if adaption > 0 and gs + adaption <= 1.0 + 1e-9:
                gs = min(1.0, round(gs + adaption, 10))
                continue
            break
    combined = combined_classes(problem, labels, item_levels, suppressed)
    loss_after = recoded_loss(problem, item_levels, suppressed, combined[0], combined[1],
                              combined[3])
    return LocalRecoding(item_levels, suppressed, before, int(counts[suppressed].sum()),
                         loss_before, loss_after, time.perf_counter() - start, steps,
                         dict(settings))


def _settle(problem, labels, item_levels, suppressed, new_items: np.ndarray) -> np.ndarray:
    """Put newly recoded items back to suppressed while their released class violates a
    model; returns the items that stay recoded."""
    new_items = np.asarray(new_items, dtype=np.int64)
    while len(new_items):
        _, group, violating, _ = combined_classes(problem, labels, item_levels, suppressed)
        bad = violating[group[new_items]]
        if not bad.any():
            break
        suppressed[new_items[bad]] = True
        new_items = new_items[~bad]
    return new_items
