"""Independent re-verification of a released table, one check per privacy model.

The checks work on ``ReleasedCounts``: the class sizes, the sensitive-value counts
per class and overall, recounted from the released values (``engine.verify``
builds them from an exported file chunk by chunk; ``ReleasedCounts.from_frame``
from a table in memory). ``CHECKS[model.name](model, counts) -> list[str]``
returns the violations (empty: the output fulfils the model).

``OUTPUT_CHECKS[model.name](model, frame, qis, subset_mask, population_size)`` does the same on a
released frame (all rows of the input in order, values as strings, suppressed
rows with every quasi-identifier ``"*"``) with a model bound to its problem.
``subset_mask`` (boolean, aligned with ``frame``, or None) marks the research
subset: those rows are released, the others form the population the attacker
knows.

Nothing here comes from the engine's search path: classes, sensitive
distributions and subset counts are recounted with plain pandas
(`engine.verifier.counts`), the distances are computed by slow, obvious loops, the
value order is the verifier's own (`engine.verifier.order`), and so are the
population-uniqueness estimators and k-map's derived k
(`engine.verifier.estimators`). A model is read as the job gives it: its name and
parameters (``describe()`` only words the messages).
"""
from __future__ import annotations

import math
from collections.abc import Callable

from typing import TYPE_CHECKING

import numpy as np

from engine.verifier.counts import ReleasedCounts

if TYPE_CHECKING:
    import pandas as pd


def _label(key: tuple) -> str:
    return "(" + ", ".join(str(v) for v in key) + ")"


def _report(bad: list[str], what: str) -> list[str]:
    if not bad:
        return []
    shown = ", ".join(bad[:3]) + (" ..." if len(bad) > 3 else "")
    return [f"{len(bad)} class(es) violate {what}: {shown}"]


def _missing(counts: ReleasedCounts, attribute: str) -> list[str]:
    if attribute not in counts.distributions:
        return [f"sensitive attribute '{attribute}' is not in the output"]
    return []


def _shares(counts: dict) -> dict:
    total = sum(counts.values())
    return {v: c / total for v, c in counts.items()} if total else {}


# --- attribute disclosure ---------------------------------------------------------
def check_distinct_l_diversity(model, counts: ReleasedCounts) -> list[str]:
    if (m := _missing(counts, model.attribute)):
        return m
    dists = counts.distributions[model.attribute]
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


def check_entropy_l_diversity(model, counts: ReleasedCounts) -> list[str]:
    if (m := _missing(counts, model.attribute)):
        return m
    estimate = _shannon if model.estimator == "shannon" else _grassberger
    bound = math.log(model.l) - 1e-9
    # a class needs at least l distinct values whatever the estimate (Grassberger's
    # bias correction can lift a class of fewer values above log l)
    bad = [_label(k) for k, c in counts.distributions[model.attribute].items()
           if len(c) < math.ceil(model.l)
           or estimate(np.fromiter(c.values(), dtype=float)) < bound]
    return _report(bad, model.describe())


def check_recursive_cl_diversity(model, counts: ReleasedCounts) -> list[str]:
    if (m := _missing(counts, model.attribute)):
        return m
    bad = []
    for k, c in counts.distributions[model.attribute].items():
        r = sorted(c.values(), reverse=True)
        if len(r) < model.l or not r[0] < model.c * sum(r[model.l - 1:]):
            bad.append(_label(k))
    return _report(bad, model.describe())


def _equal_distance(q: dict, p: dict) -> float:
    return 0.5 * sum(abs(q.get(v, 0.0) - p.get(v, 0.0)) for v in set(p) | set(q))


def _ordered_distance(q: dict, p: dict, order: list[str]) -> float:
    if len(order) < 2:
        return 0.0
    cum, total = 0.0, 0.0
    for v in order:
        cum += q.get(v, 0.0) - p.get(v, 0.0)
        total += abs(cum)
    return total / (len(order) - 1)


def _hierarchical_distance(q: dict, p: dict, rows) -> float:
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


def _hierarchy(model, counts: ReleasedCounts, attribute: str):
    h = counts.hierarchies.get(attribute)
    return h if h is not None else getattr(model, "hierarchy", None)


def check_t_closeness(model, counts: ReleasedCounts) -> list[str]:
    if (m := _missing(counts, model.attribute)):
        return m
    p = _shares(counts.overall[model.attribute])
    if model.distance == "ordered":
        from engine.verifier.order import ordered_values
        order = ordered_values(p, counts.data_types.get(model.attribute))
    elif model.distance == "hierarchical":
        hierarchy = _hierarchy(model, counts, model.attribute)
        if hierarchy is None:
            return [f"{model.describe()}: the job gives no hierarchy for the sensitive "
                    f"attribute '{model.attribute}'"]
        rows = hierarchy.rows
    bad = []
    for k, c in counts.distributions[model.attribute].items():
        q = _shares(c)
        if model.distance == "equal":
            d = _equal_distance(q, p)
        elif model.distance == "ordered":
            d = _ordered_distance(q, p, order)
        else:
            d = _hierarchical_distance(q, p, rows)
        if d > model.t + 1e-12:
            bad.append(f"{_label(k)} at distance {d:.4f}")
    return _report(bad, model.describe())


def _class_shares(model, counts: ReleasedCounts):
    """Each released class's key with its sensitive-value shares ``q``, beside the
    overall shares ``p``."""
    p = _shares(counts.overall[model.attribute])
    for k, c in counts.distributions[model.attribute].items():
        yield k, _shares(c), p


def check_delta_disclosure(model, counts: ReleasedCounts) -> list[str]:
    if (m := _missing(counts, model.attribute)):
        return m
    bad = []
    for k, q, p in _class_shares(model, counts):
        if any(abs(math.log(q[v] / p[v])) >= model.delta for v in q):
            bad.append(_label(k))
    return _report(bad, model.describe())


def check_beta_likeness(model, counts: ReleasedCounts) -> list[str]:
    if (m := _missing(counts, model.attribute)):
        return m
    bad = []
    for k, q, p in _class_shares(model, counts):
        for v in q:
            limit = min(model.beta, -math.log(p[v])) if model.enhanced else model.beta
            if q[v] > p[v] and (q[v] - p[v]) / p[v] > limit + 1e-12:
                bad.append(_label(k))
                break
    return _report(bad, model.describe())


# --- membership disclosure ----------------------------------------------------------
def check_delta_presence(model, counts: ReleasedCounts) -> list[str]:
    """Every released class's share of subset records within [δmin, δmax]. A class of the
    input holding no subset record tells that its individuals are not in the subset
    (δ = 0): with δmin > 0 that fails the release, unless another model sets a smallest
    class size (ARX checks that first and suppresses such classes instead)."""
    if not counts.has_subset:
        return [f"{model.describe()} needs the research subset to be verified"]
    found = []
    if model.delta_min > 0 and counts.classes_without_subset and \
            not counts.minimal_class_size:
        found.append(f"{model.describe()}: {counts.classes_without_subset} class(es) of "
                     f"the input hold no research-subset record (delta 0 < "
                     f"{model.delta_min:g}): their individuals are known not to be in it")
    bad = []
    for key, n in counts.sizes.items():
        delta = n / counts.population[key]
        if delta < model.delta_min - 1e-12 or delta > model.delta_max + 1e-12:
            bad.append(f"{_label(key)} with delta {delta:.4f}")
    return found + _report(bad, model.describe())


def _effective_k(model, counts: ReleasedCounts) -> int | None:
    if counts.population_size is None:
        return None
    from engine.verifier.estimators import derived_k
    individuals = counts.n_persons if counts.n_persons is not None else counts.n_records
    return derived_k(model.k, individuals / counts.population_size, model.significance,
                     model.estimator == "zero-truncated-poisson")[0]


def check_k_map(model, counts: ReleasedCounts) -> list[str]:
    if model.estimator == "none":
        if not counts.has_subset:
            return [f"{model.describe()} needs the research subset to be verified"]
        bad = [_label(k) for k in counts.sizes if counts.population[k] < model.k]
    else:
        k = _effective_k(model, counts)
        if k is None:
            return [f"{model.describe()}: the job gives no [population]"]
        bad = [_label(key) for key, n in counts.sizes.items() if n < k]
    return _report(bad, model.describe())


# --- risk-based -----------------------------------------------------------------------
def check_sample_uniqueness(model, counts: ReleasedCounts) -> list[str]:
    n = sum(counts.sizes.values())
    share = sum(1 for s in counts.sizes.values() if s == 1) / n if n else 0.0
    if share > model.threshold:
        return [f"{share:.4%} of the released records are sample unique, more than "
                f"{model.threshold:g}"]
    return []


def check_average_risk(model, counts: ReleasedCounts) -> list[str]:
    n = sum(counts.sizes.values())
    risk = len(counts.sizes) / n if n else 0.0
    if risk > model.threshold:
        return [f"the average re-identification risk {risk:.4f} exceeds {model.threshold:g}"]
    return []


def check_population_uniqueness(model, counts: ReleasedCounts) -> list[str]:
    """The released records are the sample (the sampling fraction is their number over
    the population); Dankar's rule does not fall back to Zayatz, as in ARX's model."""
    from engine.verifier import estimators as re
    population = counts.population_size or getattr(model, "population", None)
    if population is None:
        return [f"{model.describe()}: the job gives no [population]"]
    sizes = np.fromiter(counts.sizes.values(), dtype=np.int64, count=len(counts.sizes))
    if not (sizes == 1).any():
        return []
    fraction = int(sizes.sum()) / population
    if model.estimator == "dankar":
        share = re.dankar(sizes, fraction, zayatz_fallback=False)
    else:
        share = re.population_uniqueness(sizes, fraction, model.estimator)
    if math.isnan(share) or not 0.0 < share <= model.threshold:
        return [f"estimated population uniqueness {share:.6g} is not in (0, {model.threshold:g}]"]
    return []


def _rows_under(hierarchy) -> dict[str, int]:
    """Label -> how many hierarchy rows (original values) it stands for."""
    under: dict[str, int] = {}
    for r in hierarchy.rows:
        for label in dict.fromkeys(r):
            under[label] = under.get(label, 0) + 1
    return under


def _entropy_loss(key: tuple, qis: list[str], hierarchies: dict, under: dict) -> float:
    """Relative entropy-based information loss of a class: log10 of the hierarchy rows
    each generalized value stands for, summed over QIs, over the maximum."""
    total, maximum = 0.0, 0.0
    for q, value in zip(qis, key):
        maximum += math.log10(len(hierarchies[q].rows))
        total += math.log10(under[q].get(value, 1))
    return total / maximum if maximum > 0 else total


def check_profitability(model, counts: ReleasedCounts) -> list[str]:
    if model.attacker == "journalist":
        if not counts.has_subset:
            return [f"{model.describe()} needs the research subset to be verified"]
        sizes = counts.population
    else:
        sizes = counts.sizes
    if not model.allow_attack:
        bad = [_label(k) for k in counts.sizes if sizes[k] < model.k]
        return _report(bad, f"{model.describe()} (classes of at least {model.k})")
    hierarchies = counts.hierarchies or getattr(model, "hierarchies", None) or {}
    if any(hierarchies.get(q) is None for q in counts.qis):
        return [f"{model.describe()}: the job gives no hierarchy for every quasi-identifier"]
    under = {q: _rows_under(hierarchies[q]) for q in counts.qis}
    bad = []
    for key in counts.sizes:
        p = 1.0 / sizes[key]
        pay = model.publisher_benefit * (1.0 - _entropy_loss(key, counts.qis, hierarchies, under))
        if model.adversary_gain * p - model.adversary_cost > 0:
            pay -= model.publisher_loss * p
        if not pay > 0:
            bad.append(_label(key))
    return _report(bad, f"{model.describe()} (positive payout)")


def check_differential_privacy(model, counts: ReleasedCounts) -> list[str]:
    """The released records (the sample) form classes of at least k records. Records
    outside the sample are released suppressed, so without the mask every released
    (unsuppressed) record counts."""
    small = [_label(k) for k, n in counts.sizes.items() if n < model.k]
    return _report(small, f"{model.describe()} (k = {model.k})")


def check_k_anonymity(model, counts: ReleasedCounts) -> list[str]:
    small = {k: n for k, n in counts.sizes.items() if n < model.k}
    if not small:
        return []
    unit = "persons" if counts.n_persons is not None else "records"
    return _report([_label(k) for k in small], model.describe()
                   + f" (smallest class: {min(small.values())} {unit})")


CHECKS: dict[str, Callable[..., list[str]]] = {
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


def sensitive_attribute(model) -> str | None:
    """The attribute a model's check reads beside the quasi-identifiers, if any."""
    return getattr(model, "attribute", None)


def _frame_check(check):
    def on_frame(model, frame: pd.DataFrame, qis: list[str], subset_mask=None,
                 population_size: int | None = None) -> list[str]:
        attribute = sensitive_attribute(model)
        counts = ReleasedCounts.from_frame(frame, qis, [attribute] if attribute else [],
                                           subset_mask)
        counts.population_size = population_size  # the job's [population], if any
        return check(model, counts)
    on_frame.__doc__ = check.__doc__
    return on_frame


OUTPUT_CHECKS: dict[str, Callable[..., list[str]]] = {
    name: _frame_check(check) for name, check in CHECKS.items()}
