"""Independent re-verification of an exported table, one check per privacy model.

``OUTPUT_CHECKS[model.name](model, frame, qis, subset_mask) -> list[str]``
returns the violations (empty: the output fulfils the model). ``frame`` is
the exported output as strings, all rows of the input in order; suppressed
rows have every quasi-identifier ``"*"``. ``subset_mask`` (a boolean Series
aligned with ``frame``, or None) marks the research subset: those rows are
released, the others form the population the attacker knows.

Nothing here touches the engine's classifier or kernels: classes, sensitive
distributions and subset counts are recounted from the frame with plain
pandas, and the distances are computed by slow, obvious loops.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from engine.markers import SUPPRESSED  # suppressed rows come normalized to it


# --- recounting -----------------------------------------------------------------
def _suppressed(frame: pd.DataFrame, qis: list[str]) -> pd.Series:
    if not qis:
        return pd.Series(False, index=frame.index)
    return (frame[qis].astype(str) == SUPPRESSED).all(axis=1)


def _mask(frame: pd.DataFrame, subset_mask) -> pd.Series:
    if subset_mask is None:
        return pd.Series(True, index=frame.index)
    return pd.Series(np.asarray(subset_mask, dtype=bool), index=frame.index)


def released_rows(frame: pd.DataFrame, qis: list[str], subset_mask) -> pd.DataFrame:
    """Rows released with their quasi-identifiers (in the subset, not suppressed)."""
    return frame[~_suppressed(frame, qis) & _mask(frame, subset_mask)]


def class_key(frame: pd.DataFrame, qis: list[str]) -> pd.Series:
    """One string per row naming its equivalence class."""
    if not qis:
        return pd.Series("", index=frame.index)
    return frame[qis].astype(str).agg("\x1f".join, axis=1)


def class_sizes(frame: pd.DataFrame, qis: list[str], subset_mask) -> pd.Series:
    rel = released_rows(frame, qis, subset_mask)
    return class_key(rel, qis).value_counts()


def overall_distribution(frame: pd.DataFrame, attribute: str, subset_mask) -> pd.Series:
    """Relative frequency of each sensitive value over the released data set (the
    research subset, or every row), suppressed records included."""
    rows = frame[_mask(frame, subset_mask)]
    counts = rows[attribute].astype(str).value_counts()
    return counts / counts.sum()


def class_distributions(frame: pd.DataFrame, qis: list[str], attribute: str,
                        subset_mask) -> dict[str, pd.Series]:
    """Per released class: counts of each sensitive value."""
    rel = released_rows(frame, qis, subset_mask)
    keys = class_key(rel, qis)
    out = {}
    for key, values in rel[attribute].astype(str).groupby(keys):
        out[key] = values.value_counts()
    return out


def _label(key: str) -> str:
    return "(" + key.replace("\x1f", ", ") + ")"


def _report(bad: list[str], what: str) -> list[str]:
    if not bad:
        return []
    shown = ", ".join(bad[:3]) + (" ..." if len(bad) > 3 else "")
    return [f"{len(bad)} class(es) violate {what}: {shown}"]


def _missing(frame: pd.DataFrame, attribute: str) -> list[str]:
    if attribute not in frame.columns:
        return [f"sensitive attribute '{attribute}' is not in the output"]
    return []


# --- attribute disclosure ---------------------------------------------------------
def check_distinct_l_diversity(model, frame, qis, subset_mask) -> list[str]:
    if (m := _missing(frame, model.attribute)):
        return m
    dists = class_distributions(frame, qis, model.attribute, subset_mask)
    bad = [_label(k) for k, c in dists.items() if len(c) < model.l]
    return _report(bad, model.describe())


def _shannon(counts: np.ndarray) -> float:
    p = counts / counts.sum()
    return float(-sum(x * math.log(x) for x in p if x > 0))


def _grassberger(counts: np.ndarray) -> float:
    # G(N) - 1/N sum n G(n): ARX puts Grassberger's G in place of every logarithm,
    # the leading ln N included
    from scipy.special import digamma

    def g(c: float) -> float:
        return float(digamma(c) + 0.5 * (-1) ** int(c) * (digamma((c + 1) / 2) - digamma(c / 2)))

    n = float(counts.sum())
    return g(n) - sum(c * g(c) for c in counts) / n


def check_entropy_l_diversity(model, frame, qis, subset_mask) -> list[str]:
    if (m := _missing(frame, model.attribute)):
        return m
    estimate = _shannon if model.estimator == "shannon" else _grassberger
    dists = class_distributions(frame, qis, model.attribute, subset_mask)
    bound = math.log(model.l) - 1e-9
    # a class needs at least l distinct values whatever the estimate (Grassberger's
    # bias correction can lift a class of fewer values above log l)
    bad = [_label(k) for k, c in dists.items()
           if len(c) < math.ceil(model.l) or estimate(c.to_numpy(dtype=float)) < bound]
    return _report(bad, model.describe())


def check_recursive_cl_diversity(model, frame, qis, subset_mask) -> list[str]:
    if (m := _missing(frame, model.attribute)):
        return m
    bad = []
    for k, c in class_distributions(frame, qis, model.attribute, subset_mask).items():
        r = sorted(c.tolist(), reverse=True)
        if len(r) < model.l or not r[0] < model.c * sum(r[model.l - 1:]):
            bad.append(_label(k))
    return _report(bad, model.describe())


def _equal_distance(q: dict, p: pd.Series) -> float:
    return 0.5 * sum(abs(q.get(v, 0.0) - p.get(v, 0.0)) for v in set(p.index) | set(q))


def _ordered_distance(q: dict, p: pd.Series, order: list[str]) -> float:
    if len(order) < 2:
        return 0.0
    cum, total = 0.0, 0.0
    for v in order:
        cum += q.get(v, 0.0) - p.get(v, 0.0)
        total += abs(cum)
    return total / (len(order) - 1)


def _hierarchical_distance(q: dict, p: pd.Series, rows) -> float:
    """Bottom-up EMD over the hierarchy's tree (rows: value, level 1, ..., top)."""
    height = len(rows[0]) - 1
    if height == 0:
        return 0.0
    extra = {(0, r[0]): q.get(r[0], 0.0) - p.get(r[0], 0.0) for r in rows}
    cost = 0.0
    for level in range(1, height + 1):
        pos: dict = {}
        neg: dict = {}
        for r in rows:
            child = (level - 1, r[level - 1])
            node = (level, r[level])
            if child not in extra:
                continue
            e = extra.pop(child)
            pos[node] = pos.get(node, 0.0) + max(e, 0.0)
            neg[node] = neg.get(node, 0.0) + max(-e, 0.0)
        for node in pos:
            cost += level / height * min(pos[node], neg[node])
            extra[node] = pos[node] - neg[node]
    return cost


def check_t_closeness(model, frame, qis, subset_mask) -> list[str]:
    if (m := _missing(frame, model.attribute)):
        return m
    p = overall_distribution(frame, model.attribute, subset_mask)
    if model.distance == "ordered":
        from engine.privacy.t_closeness import value_order
        values = np.asarray(sorted(p.index))
        order = [str(values[i]) for i in value_order(values)]
    elif model.distance == "hierarchical":
        hierarchy = getattr(model, "hierarchy", None)
        if hierarchy is None:
            return [f"{model.describe()}: the sensitive attribute's hierarchy is unknown "
                    f"(bind the model to its job first)"]
        rows = hierarchy.rows
    bad = []
    for k, c in class_distributions(frame, qis, model.attribute, subset_mask).items():
        q = (c / c.sum()).to_dict()
        if model.distance == "equal":
            d = _equal_distance(q, p)
        elif model.distance == "ordered":
            d = _ordered_distance(q, p, order)
        else:
            d = _hierarchical_distance(q, p, rows)
        if d > model.t + 1e-12:
            bad.append(f"{_label(k)} at distance {d:.4f}")
    return _report(bad, model.describe())


def _shares(model, frame, qis, subset_mask):
    """Each released class's key with its sensitive-value shares ``q``, beside the
    overall shares ``p``."""
    p = overall_distribution(frame, model.attribute, subset_mask)
    for k, c in class_distributions(frame, qis, model.attribute, subset_mask).items():
        yield k, c / c.sum(), p


def check_delta_disclosure(model, frame, qis, subset_mask) -> list[str]:
    if (m := _missing(frame, model.attribute)):
        return m
    bad = []
    for k, q, p in _shares(model, frame, qis, subset_mask):
        if any(abs(math.log(q[v] / p[v])) >= model.delta for v in q.index):
            bad.append(_label(k))
    return _report(bad, model.describe())


def check_beta_likeness(model, frame, qis, subset_mask) -> list[str]:
    if (m := _missing(frame, model.attribute)):
        return m
    bad = []
    for k, q, p in _shares(model, frame, qis, subset_mask):
        for v in q.index:
            limit = min(model.beta, -math.log(p[v])) if model.enhanced else model.beta
            if q[v] > p[v] and (q[v] - p[v]) / p[v] > limit + 1e-12:
                bad.append(_label(k))
                break
    return _report(bad, model.describe())


# --- membership disclosure ----------------------------------------------------------
def _population_sizes(frame, qis) -> pd.Series:
    """Class sizes over every unsuppressed row (the population the attacker knows)."""
    rows = frame[~_suppressed(frame, qis)]
    return class_key(rows, qis).value_counts()


def check_delta_presence(model, frame, qis, subset_mask) -> list[str]:
    if subset_mask is None:
        return [f"{model.describe()} needs the research subset to be verified"]
    sample = class_sizes(frame, qis, subset_mask)
    population = _population_sizes(frame, qis)
    bad = []
    for key, n in sample.items():
        delta = n / population[key]
        if delta < model.delta_min - 1e-12 or delta > model.delta_max + 1e-12:
            bad.append(f"{_label(key)} with delta {delta:.4f}")
    return _report(bad, model.describe())


def check_k_map(model, frame, qis, subset_mask) -> list[str]:
    sample = class_sizes(frame, qis, subset_mask)
    if model.estimator == "none":
        if subset_mask is None:
            return [f"{model.describe()} needs the research subset to be verified"]
        population = _population_sizes(frame, qis)
        bad = [_label(k) for k in sample.index if population[k] < model.k]
    else:
        bad = [_label(k) for k, n in sample.items() if n < model.effective_k]
    return _report(bad, model.describe())


# --- risk-based -----------------------------------------------------------------------
def check_sample_uniqueness(model, frame, qis, subset_mask) -> list[str]:
    sizes = class_sizes(frame, qis, subset_mask)
    n = int(sizes.sum())
    share = int((sizes == 1).sum()) / n if n else 0.0
    if share > model.threshold:
        return [f"{share:.4%} of the released records are sample unique, more than "
                f"{model.threshold:g}"]
    return []


def check_average_risk(model, frame, qis, subset_mask) -> list[str]:
    sizes = class_sizes(frame, qis, subset_mask)
    n = int(sizes.sum())
    risk = len(sizes) / n if n else 0.0
    if risk > model.threshold:
        return [f"the average re-identification risk {risk:.4f} exceeds {model.threshold:g}"]
    return []


def check_population_uniqueness(model, frame, qis, subset_mask) -> list[str]:
    """The released records are the sample (the sampling fraction is their number over
    the population); Dankar's rule does not fall back to Zayatz, as in ARX's model."""
    from engine import estimators as re
    if getattr(model, "population", None) is None:
        return [f"{model.describe()}: the population is unknown (bind the model first)"]
    sizes = class_sizes(frame, qis, subset_mask).to_numpy()
    if not (sizes == 1).any():
        return []
    fraction = int(sizes.sum()) / model.population
    if model.estimator == "dankar":
        share = re.dankar(sizes, fraction, zayatz_fallback=False)
    else:
        share = re.population_uniqueness(sizes, fraction, model.estimator)
    if math.isnan(share) or not 0.0 < share <= model.threshold:
        return [f"estimated population uniqueness {share:.6g} is not in (0, {model.threshold:g}]"]
    return []


def _entropy_loss(frame: pd.DataFrame, qis: list[str], hierarchies: dict) -> pd.Series:
    """Relative entropy-based information loss per row: log10 of the hierarchy rows
    each generalized value stands for, summed over QIs, over the maximum."""
    total = pd.Series(0.0, index=frame.index)
    maximum = 0.0
    for q in qis:
        rows = hierarchies[q].rows
        maximum += math.log10(len(rows))
        under: dict[str, int] = {}
        for r in rows:
            for label in dict.fromkeys(r):
                under[label] = under.get(label, 0) + 1
        total += frame[q].astype(str).map(lambda v: math.log10(under.get(v, 1)))
    return total / maximum if maximum > 0 else total


def check_profitability(model, frame, qis, subset_mask) -> list[str]:
    sample = class_sizes(frame, qis, subset_mask)
    if model.attacker == "journalist":
        if subset_mask is None:
            return [f"{model.describe()} needs the research subset to be verified"]
        sizes = _population_sizes(frame, qis)
    else:
        sizes = sample
    if not model.allow_attack:
        bad = [_label(k) for k in sample.index if sizes[k] < model.k]
        return _report(bad, f"{model.describe()} (classes of at least {model.k})")
    hierarchies = getattr(model, "hierarchies", None)
    if not hierarchies:
        return [f"{model.describe()}: the hierarchies are unknown (bind the model first)"]
    rel = released_rows(frame, qis, subset_mask)
    keys = class_key(rel, qis)
    loss = _entropy_loss(rel, qis, hierarchies).groupby(keys).first()
    bad = []
    for key in sample.index:
        p = 1.0 / sizes[key]
        pay = model.benefit * (1.0 - loss[key])
        if model.gain * p - model.cost > 0:
            pay -= model.loss * p
        if not pay > 0:
            bad.append(_label(key))
    return _report(bad, f"{model.describe()} (positive payout)")


def check_differential_privacy(model, frame, qis, subset_mask) -> list[str]:
    """The released records (the sample) form classes of at least k records. Records
    outside the sample are released suppressed, so without the mask every released
    (unsuppressed) record counts."""
    sizes = class_sizes(frame, qis, subset_mask)
    small = sizes[sizes < model.k]
    return _report([_label(k) for k in small.index], f"{model.describe()} (k = {model.k})")


def check_k_anonymity(model, frame, qis, subset_mask) -> list[str]:
    sizes = class_sizes(frame, qis, subset_mask)
    small = sizes[sizes < model.k]
    return _report([_label(k) for k in small.index], model.describe())


OUTPUT_CHECKS: dict[str, Callable[..., list[str]]] = {
    "k-anonymity": check_k_anonymity,
    "distinct-l-diversity": check_distinct_l_diversity,
    "entropy-l-diversity": check_entropy_l_diversity,
    "recursive-cl-diversity": check_recursive_cl_diversity,
    "t-closeness": check_t_closeness,
    "delta-disclosure": check_delta_disclosure,
    "beta-likeness": check_beta_likeness,
    "delta-presence": check_delta_presence,
    "k-map": check_k_map,
    "sample-uniqueness": check_sample_uniqueness,
    "average-risk": check_average_risk,
    "population-uniqueness": check_population_uniqueness,
    "profitability": check_profitability,
    "differential-privacy": check_differential_privacy,
}
