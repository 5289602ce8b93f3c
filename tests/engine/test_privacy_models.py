"""Privacy models on small hand-made tables: each verdict is computed by hand in the
comments; the numba kernels are checked against obvious dense references."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from engine.config import (AttributeConfig, Job, QUASI_IDENTIFYING, SENSITIVE,
                           TransformationConfig)
from engine.data.table import EncodedTable
from engine.errors import JobError
from engine.hierarchy.model import Hierarchy
from engine.privacy import MODELS, model_from_dict
from engine.privacy.distribution_kernels import (equal_emd, hierarchical_emd, ordered_emd,
                                                 recursive_cl_violating, shannon_entropy)
from engine.privacy.k_map import derived_k
from engine.kernel.sparse_counts import SparseCounts
from engine.privacy.t_closeness import TCloseness, parent_maps
from engine.problem import Problem

# Two QIs: age (2 classes at level 1), zip. Sensitive: disease.
ROWS = [
    # age, zip,    disease
    ("20", "111", "flu"),
    ("21", "111", "flu"),
    ("22", "112", "cold"),
    ("23", "112", "cancer"),
    ("30", "111", "flu"),
    ("31", "112", "cold"),
    ("32", "111", "cold"),
    ("33", "112", "cancer"),
]
AGE = Hierarchy.from_rows([(a, "20-29" if a.startswith("2") else "30-39", "*")
                           for a in ("20", "21", "22", "23", "30", "31", "32", "33")], "age")
ZIP = Hierarchy.from_rows([("111", "11*"), ("112", "11*")], "zip")
DISEASE = Hierarchy.from_rows([("flu", "respiratory", "*"), ("cold", "respiratory", "*"),
                               ("cancer", "other", "*")], "disease")


def problem(models: list[dict], limit: float = 0.0, subset=None, population=None) -> Problem:
    table = EncodedTable.from_dataframe(pd.DataFrame(ROWS, columns=["age", "zip", "disease"]))
    job = Job(attributes={"age": AttributeConfig(QUASI_IDENTIFYING, AGE),
                          "zip": AttributeConfig(QUASI_IDENTIFYING, ZIP),
                          "disease": AttributeConfig(SENSITIVE, DISEASE)},
              privacy=[model_from_dict(m) for m in models],
              transformation=TransformationConfig(suppression_limit=limit),
              subset=None if subset is None else {"indices": subset},
              population=population)
    return Problem(table, job)


def verdicts(p: Problem, levels) -> dict[tuple, bool]:
    """Class (generalized labels) -> violating, for a transformation."""
    classes = p.classifier.classify(levels)
    viol = p.violating(classes)
    out = {}
    for c in range(classes.n_classes):
        labels = tuple(str(h.labels[int(l)][classes.gen[c, j]])
                       for j, (h, l) in enumerate(zip(p.hierarchies, levels)))
        out[labels] = bool(viol[c])
    return out


# --- attribute disclosure ----------------------------------------------------------
def test_distinct_l_diversity():
    p = problem([{"model": "distinct-l-diversity", "attribute": "disease", "l": 2}])
    # age level 1, zip level 1: class 20-29 {flu, flu, cold, cancer}, 30-39 {flu, cold,
    # cold, cancer}: both hold 3 distinct values
    assert verdicts(p, [1, 1]) == {("20-29", "11*"): False, ("30-39", "11*"): False}
    # age level 1, zip level 0: (20-29, 111) holds only flu
    v = verdicts(p, [1, 0])
    assert v[("20-29", "111")] is True and v[("20-29", "112")] is False


def test_entropy_l_diversity():
    p = problem([{"model": "entropy-l-diversity", "attribute": "disease", "l": 2.9}])
    # 20-29: counts (2, 1, 1) -> H = -(.5 ln .5 + 2 * .25 ln .25) = 1.0397 < ln 2.9 = 1.0647
    assert verdicts(p, [1, 1])[("20-29", "11*")] is True
    p = problem([{"model": "entropy-l-diversity", "attribute": "disease", "l": 2.8}])
    assert verdicts(p, [1, 1])[("20-29", "11*")] is False  # ln 2.8 = 1.0296


def test_entropy_l_diversity_exact_bound():
    # two equally frequent values: H = ln 2 exactly; entropy-2-diversity holds
    p = problem([{"model": "entropy-l-diversity", "attribute": "disease", "l": 2}])
    assert verdicts(p, [2, 0])[("*", "112")] is False  # cold, cancer, cold, cancer


def test_recursive_cl_diversity():
    # 20-29: r = (2, 1, 1). (c=2, l=2): r1 = 2 < 2 * (1 + 1) = 4 -> diverse
    p = problem([{"model": "recursive-cl-diversity", "attribute": "disease", "c": 2, "l": 2}])
    assert verdicts(p, [1, 1])[("20-29", "11*")] is False
    # (c=1, l=2): 2 < 1 * 2 fails
    p = problem([{"model": "recursive-cl-diversity", "attribute": "disease", "c": 1, "l": 2}])
    assert verdicts(p, [1, 1])[("20-29", "11*")] is True
    # (c=3, l=3): 2 < 3 * 1 holds
    p = problem([{"model": "recursive-cl-diversity", "attribute": "disease", "c": 3, "l": 3}])
    assert verdicts(p, [1, 1])[("20-29", "11*")] is False


def test_t_closeness_equal_distance():
    # overall: flu 3/8, cold 3/8, cancer 2/8. (20-29, 111) = {flu, flu}: q = (1, 0, 0)
    # EMD = 1/2 (5/8 + 3/8 + 2/8) = 5/8
    p = problem([{"model": "t-closeness", "attribute": "disease", "t": 0.62,
                  "distance": "equal"}])
    assert verdicts(p, [1, 0])[("20-29", "111")] is True
    p = problem([{"model": "t-closeness", "attribute": "disease", "t": 0.63,
                  "distance": "equal"}])
    assert verdicts(p, [1, 0])[("20-29", "111")] is False


def test_t_closeness_ordered_distance():
    # order: cancer < cold < flu (strings). p = (2, 3, 3)/8; q of {flu, flu} = (0, 0, 1)
    # cumulative differences: -2/8, -5/8, 0 -> EMD = (2/8 + 5/8) / 2 = 7/16 = 0.4375
    model = TCloseness("disease", 0.5, "ordered")
    p = problem([model.to_dict()])
    classes = p.classifier.classify([1, 0])
    emd = p.models[0].emd(p.models[0].distributions(classes))
    assert sorted(np.round(emd, 10))[-1] == pytest.approx(0.4375)


def test_t_closeness_hierarchical_distance():
    # {flu, flu}: flu +5/8 surplus, cold -3/8, cancer -2/8 deficit. Inside 'respiratory'
    # 3/8 moves flu -> cold at cost 1/2 per unit; 2/8 moves on to 'other' at cost 1.
    # EMD = 3/8 * 1/2 + 2/8 * 1 = 0.4375
    p = problem([{"model": "t-closeness", "attribute": "disease", "t": 0.4,
                  "distance": "hierarchical"}])
    classes = p.classifier.classify([1, 0])
    v = verdicts(p, [1, 0])
    assert v[("20-29", "111")] is True
    emd = p.models[0].emd(p.models[0].distributions(classes))
    assert pytest.approx(0.4375) in list(emd)


def test_t_closeness_hierarchical_needs_hierarchy():
    table = EncodedTable.from_dataframe(pd.DataFrame(ROWS, columns=["age", "zip", "disease"]))
    job = Job(attributes={"age": AttributeConfig(QUASI_IDENTIFYING, AGE),
                          "disease": AttributeConfig(SENSITIVE)},
              privacy=[TCloseness("disease", 0.2, "hierarchical")])
    with pytest.raises(JobError, match="hierarchy"):
        Problem(table, job)


def test_beta_likeness():
    # (20-29, 111) = {flu, flu}: flu q = 1, p = 3/8: gain (1 - 3/8) / (3/8) = 5/3
    p = problem([{"model": "beta-likeness", "attribute": "disease", "beta": 1.6}])
    assert verdicts(p, [1, 0])[("20-29", "111")] is True
    p = problem([{"model": "beta-likeness", "attribute": "disease", "beta": 1.7}])
    assert verdicts(p, [1, 0])[("20-29", "111")] is False
    # enhanced: min(1.7, -ln 3/8 = 0.98) -> violated
    p = problem([{"model": "beta-likeness", "attribute": "disease", "beta": 1.7,
                  "enhanced": True}])
    assert verdicts(p, [1, 0])[("20-29", "111")] is True


def test_delta_disclosure():
    # (20-29, 112) = {cold, cancer}: ln((1/2)/(3/8)) = 0.288, ln((1/2)/(2/8)) = 0.693
    p = problem([{"model": "delta-disclosure", "attribute": "disease", "delta": 0.7}])
    assert verdicts(p, [1, 0])[("20-29", "112")] is False
    p = problem([{"model": "delta-disclosure", "attribute": "disease", "delta": 0.69}])
    assert verdicts(p, [1, 0])[("20-29", "112")] is True


def test_sensitive_attribute_must_not_be_a_qi():
    table = EncodedTable.from_dataframe(pd.DataFrame(ROWS, columns=["age", "zip", "disease"]))
    job = Job(attributes={"age": AttributeConfig(QUASI_IDENTIFYING, AGE)},
              privacy=[model_from_dict({"model": "distinct-l-diversity", "attribute": "age",
                                        "l": 2})])
    with pytest.raises(JobError, match="quasi-identifier"):
        Problem(table, job)


# --- membership disclosure -----------------------------------------------------------
def test_delta_presence():
    # subset rows 0, 1, 4: at [1, 1] class 20-29 holds 2 of 4 (0.5), 30-39 1 of 4 (0.25)
    p = problem([{"model": "delta-presence", "delta_min": 0.3, "delta_max": 0.6}],
                subset=[0, 1, 4], limit=0.5)
    v = verdicts(p, [1, 1])
    assert v == {("20-29", "11*"): False, ("30-39", "11*"): True}
    ev = p.evaluate([1, 1])
    assert p.n_records == 3 and ev.suppressed_records == 1 and ev.anonymous


def test_delta_presence_empty_classes_are_fatal_alone():
    # at [1, 0] class (20-29, 112) holds no subset record: delta = 0 < delta_min, and
    # suppressing it releases nothing that could hide that
    p = problem([{"model": "delta-presence", "delta_min": 0.3, "delta_max": 1.0}],
                subset=[0, 1, 4, 6], limit=1.0)
    assert not p.evaluate([1, 0]).anonymous
    # with k-anonymity the class is flagged as too small first (as ARX does)
    p = problem([{"model": "delta-presence", "delta_min": 0.3, "delta_max": 1.0},
                 {"model": "k-anonymity", "k": 1}], subset=[0, 1, 4, 6], limit=1.0)
    assert p.evaluate([1, 0]).anonymous


def test_k_map_without_estimator_counts_the_table():
    # subset rows 0, 4 at [1, 1]: each class has 4 records in the table
    p = problem([{"model": "k-map", "k": 4}], subset=[0, 4])
    assert p.evaluate([1, 1]).anonymous
    p = problem([{"model": "k-map", "k": 5}], subset=[0, 4])
    assert not p.evaluate([1, 1]).anonymous


def test_k_map_derived_k_matches_arx():
    # ARX: (3)-map, ZTP, alpha 0.01, adult (30162) in the USA -> 2-anonymity, with a
    # type-I error of 0.00014260826255074743
    k, err = derived_k(3, 30162 / 317238626, 0.01, truncated=True)
    assert k == 2
    assert err == pytest.approx(0.00014260826255074743, rel=1e-9)
    # Poisson without truncation: P(X >= 1) = 1 - exp(-lambda) is already below alpha
    assert derived_k(3, 30162 / 317238626, 0.01, truncated=False)[0] == 1
    # lambda = 5 * 0.5 = 2.5: P(X >= 7) = 0.0142 > 0.01, P(X >= 8) = 0.0042
    assert derived_k(5, 0.5, 0.01, truncated=False)[0] == 8


def test_k_map_estimator_needs_population():
    with pytest.raises(JobError, match="population"):
        problem([{"model": "k-map", "k": 3, "estimator": "poisson"}])
    p = problem([{"model": "k-map", "k": 3, "estimator": "poisson", "significance": 0.05}],
                population={"region": "USA"})
    assert p.models[0].effective_k == 1


# --- risk-based ----------------------------------------------------------------------
def test_sample_uniqueness_suppresses_the_fewest_uniques():
    # at [0, 1] all 8 records are unique; 25% allowed: with u uniques suppressed,
    # (8 - u) / (8 - u) is 1 until none is left, so all 8 go
    p = problem([{"model": "sample-uniqueness", "threshold": 0.25}], limit=1.0)
    ev = p.evaluate([0, 1])
    assert ev.suppressed_records == 8 and ev.anonymous
    # at [1, 0]: classes (20-29,111) 2, (20-29,112) 2, (30-39,111) 2, (30-39,112) 2
    assert p.evaluate([1, 0]).suppressed_records == 0


def test_average_risk():
    # at [1, 0]: 4 classes / 8 records = 0.5
    p = problem([{"model": "average-risk", "threshold": 0.5}])
    assert p.evaluate([1, 0]).anonymous
    p = problem([{"model": "average-risk", "threshold": 0.4}], limit=0.5)
    ev = p.evaluate([1, 0])
    # suppressing one class of 2 leaves 3 / 6 = 0.5, two classes 2 / 4 = 0.5: never
    # below 0.4 until everything is gone
    assert ev.suppressed_records == 8 and not ev.anonymous


def test_profitability_without_attack_is_k_anonymity():
    p = problem([{"model": "profitability", "attacker": "prosecutor", "allow_attack": False,
                  "publisher_benefit": 1200, "publisher_loss": 300, "adversary_gain": 300,
                  "adversary_cost": 100}])
    assert p.models[0].k == 4  # floor(300 / 100) + 1
    assert p.evaluate([1, 1]).anonymous and not p.evaluate([1, 0]).anonymous


def test_profitability_with_attack():
    # at [0, 0] every record is unique and ungeneralized: the adversary gains
    # 300 - 4 > 0 and attacks; the publisher earns 1200 - 300 > 0: released
    p = problem([{"model": "profitability", "attacker": "prosecutor", "allow_attack": True,
                  "publisher_benefit": 1200, "publisher_loss": 300, "adversary_gain": 300,
                  "adversary_cost": 4}])
    assert p.evaluate([0, 0]).anonymous
    # a loss of 1300 per successful attack makes unique records unprofitable
    p = problem([{"model": "profitability", "attacker": "prosecutor", "allow_attack": True,
                  "publisher_benefit": 1200, "publisher_loss": 1300, "adversary_gain": 300,
                  "adversary_cost": 4}])
    assert not p.evaluate([0, 0]).anonymous


# --- job file contract --------------------------------------------------------------
EXAMPLES = [
    {"model": "k-anonymity", "k": 3},
    {"model": "distinct-l-diversity", "attribute": "disease", "l": 2},
    {"model": "entropy-l-diversity", "attribute": "disease", "l": 2.5, "estimator": "grassberger"},
    {"model": "recursive-cl-diversity", "attribute": "disease", "c": 3.0, "l": 2},
    {"model": "t-closeness", "attribute": "disease", "t": 0.2, "distance": "hierarchical"},
    {"model": "delta-disclosure", "attribute": "disease", "delta": 1.2},
    {"model": "beta-likeness", "attribute": "disease", "beta": 1.5, "enhanced": True},
    {"model": "delta-presence", "delta_min": 0.1, "delta_max": 0.5},
    {"model": "k-map", "k": 5, "estimator": "zero-truncated-poisson", "significance": 0.01},
    {"model": "average-risk", "threshold": 0.1},
    {"model": "sample-uniqueness", "threshold": 0.01},
    {"model": "population-uniqueness", "threshold": 0.01, "estimator": "pitman"},
    {"model": "profitability", "attacker": "journalist", "allow_attack": True,
     "publisher_benefit": 1200.0, "publisher_loss": 300.0, "adversary_gain": 1200.0,
     "adversary_cost": 2.0},
]


@pytest.mark.parametrize("d", EXAMPLES, ids=[d["model"] for d in EXAMPLES])
def test_to_dict_round_trips(d):
    model = model_from_dict(d)
    assert model.to_dict() == model_from_dict(model.to_dict()).to_dict()
    for key, value in d.items():
        assert model.to_dict()[key] == value


def test_every_registered_model_has_an_example():
    assert {d["model"] for d in EXAMPLES} | {"differential-privacy"} >= set(MODELS)


@pytest.mark.parametrize("d", [
    {"model": "t-closeness", "attribute": "disease", "t": 0.2, "distance": "manhattan"},
    {"model": "entropy-l-diversity", "attribute": "disease", "l": 2, "estimator": "miller"},
    {"model": "delta-presence", "delta_min": 0.6, "delta_max": 0.5},
    {"model": "k-map", "k": 0},
    {"model": "recursive-cl-diversity", "attribute": "disease", "c": 3},
])
def test_bad_parameters_are_job_errors(d):
    with pytest.raises(JobError):
        model_from_dict(d)


# --- kernels against dense references ---------------------------------------------------
def _random_distributions(rng, n_classes=40, m=9):
    dense = rng.integers(0, 4, size=(n_classes, m)) * (rng.random((n_classes, m)) < 0.5)
    dense[dense.sum(axis=1) == 0, 0] = 1
    rows = np.repeat(np.arange(n_classes), dense.sum(axis=1))
    codes = np.concatenate([np.repeat(np.arange(m), dense[g]) for g in range(n_classes)])
    perm = rng.permutation(len(codes))
    sc = SparseCounts.from_codes(codes[perm], m).rollup(rows[perm], n_classes)
    return dense, sc


def test_sparse_rollup_matches_dense():
    rng = np.random.default_rng(1)
    dense, sc = _random_distributions(rng)
    assert np.array_equal(sc.dense(), dense)
    groups = rng.integers(0, 7, size=len(dense))
    merged = sc.rollup(groups, 7).dense()
    expected = np.zeros((7, dense.shape[1]), dtype=np.int64)
    np.add.at(expected, groups, dense)
    assert np.array_equal(merged, expected)
    assert np.array_equal(sc.totals(), dense.sum(axis=1))


@pytest.mark.parametrize("n_groups", [1, 3, 40, 400])
def test_sparse_rollup_paths_give_the_same_arrays(n_groups):
    """The small-table roll-up and the general one agree array for array (value order
    within a class included: the distance kernels sum in that order)."""
    from engine.kernel.sparse_counts import _rollup, _rollup_small
    rng = np.random.default_rng(n_groups)
    _, sc = _random_distributions(rng, n_classes=300, m=9)
    groups = rng.integers(0, n_groups, size=sc.n_items)
    args = (sc.indptr, sc.value, sc.count * rng.integers(1, 5, size=len(sc.count)), groups,
            n_groups, 9)
    for a, b in zip(_rollup(*args), _rollup_small(*args)):
        assert a.dtype == b.dtype and np.array_equal(a, b)


def test_kernels_match_dense_references():
    rng = np.random.default_rng(2)
    for _ in range(5):
        dense, sc = _random_distributions(rng)
        q = dense / dense.sum(axis=1, keepdims=True)
        p = rng.random(dense.shape[1])
        p /= p.sum()
        assert np.allclose(equal_emd(sc.indptr, sc.value, sc.count, p),
                           0.5 * np.abs(q - p).sum(axis=1))
        rank = rng.permutation(dense.shape[1])
        ranked = np.empty_like(p)
        ranked[rank] = p
        qr = np.empty_like(q)
        qr[:, rank] = q
        ref = np.abs(np.cumsum(qr - ranked, axis=1)).sum(axis=1) / (dense.shape[1] - 1)
        assert np.allclose(ordered_emd(sc.indptr, sc.value, sc.count, ranked, rank), ref)
        ref_h = np.array([-sum(x * math.log(x) for x in row if x > 0) for row in q])
        assert np.allclose(shannon_entropy(sc.indptr, sc.count), ref_h)
        for c, l in ((1.5, 2), (3.0, 3), (0.5, 1)):
            r = -np.sort(-dense, axis=1)
            ref_r = ((dense > 0).sum(axis=1) < l) | ~(r[:, 0] < c * r[:, l - 1:].sum(axis=1))
            assert np.array_equal(recursive_cl_violating(sc.indptr, sc.count, c, l), ref_r)


def _dense_hierarchical(q_row, p, rows_labels):
    """Obvious reference: bottom-up over a dict tree."""
    height = len(rows_labels[0]) - 1
    extra = {(0, i): q_row[i] - p[i] for i in range(len(p))}
    cost = 0.0
    for level in range(1, height + 1):
        pos, neg = {}, {}
        for i, r in enumerate(rows_labels):
            child = (level - 1, i if level == 1 else r[level - 1])
            node = (level, r[level])
            if child in extra:
                e = extra.pop(child)
                pos[node] = pos.get(node, 0) + max(e, 0)
                neg[node] = neg.get(node, 0) + max(-e, 0)
        for node in pos:
            cost += level / height * min(pos[node], neg[node])
            extra[node] = pos[node] - neg[node]
    return cost


def test_hierarchical_emd_matches_reference():
    from engine.hierarchy.encoded import EncodedHierarchy
    rng = np.random.default_rng(3)
    rows = [(str(i), f"g{i // 3}", f"h{i // 6}", "*") for i in range(9)]
    h = EncodedHierarchy.build(Hierarchy.from_rows(rows), [str(i) for i in range(9)])
    parents = parent_maps(h)
    n_nodes = np.array([len(l) for l in h.labels], dtype=np.int64)
    parent_off = np.cumsum([0] + [len(x) for x in parents[:-1]]).astype(np.int64)
    node_off = np.cumsum([0] + list(n_nodes[:-1])).astype(np.int64)
    for _ in range(5):
        dense, sc = _random_distributions(rng)
        p = rng.random(9)
        p /= p.sum()
        mass = np.concatenate([np.bincount(h.maps[k], weights=p, minlength=int(n_nodes[k]))
                               for k in range(h.levels)])
        got = hierarchical_emd(sc.indptr, sc.value, sc.count, p,
                               np.concatenate(parents).astype(np.int64), parent_off, n_nodes,
                               mass, node_off)
        q = dense / dense.sum(axis=1, keepdims=True)
        ref = [_dense_hierarchical(row, p, rows) for row in q]
        assert np.allclose(got, ref)


def test_grassberger_needs_l_distinct_values():
    """Two singletons estimate above ln 3 with Grassberger's correction, yet a class
    of two values is not 3-diverse (ARX's minSize)."""
    from engine.privacy.entropy_l_diversity import EntropyLDiversity, grassberger_entropy
    # class 0: values 0 and 1 once each; class 1: values 0, 1, 2 once each
    codes = np.array([0, 1, 0, 1, 2])
    groups = np.array([0, 0, 1, 1, 1])
    dist = SparseCounts.from_codes(codes, 3).rollup(groups, 2)
    assert grassberger_entropy(dist)[0] > math.log(3)
    model = EntropyLDiversity("disease", 3, "grassberger")
    assert model.violating_distributions(dist).tolist() == [True, False]


def test_grassberger_uses_g_of_the_class_size():
    """ARX's Grassberger estimate is G(N) - 1/N sum n G(n), G also replacing ln N.
    G(1) = c, G(2) = G(3) = c + 2, G(4) = G(5) = c + 2 + 2/3, G(6) = c + 2 + 2/3 + 2/5
    (c = -gamma - ln 2), and c cancels since sum n = N. Counts (1, 2, 2): G(5) - (G(1)
    + 4 G(2))/5 = 8/3 - 8/5 = 16/15 < ln 3 (ln 5 as leading term would give 1.2798,
    above ln 3). Counts (2, 2, 2): G(6) - G(2) = 16/15 too. Counts (1, 1, 1): G(3) - G(1)
    = 2."""
    from engine.privacy.entropy_l_diversity import EntropyLDiversity, grassberger_entropy
    from engine.verifier.checks import _grassberger
    codes = np.array([0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 0, 1, 2])
    groups = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2])
    dist = SparseCounts.from_codes(codes, 3).rollup(groups, 3)
    assert np.allclose(grassberger_entropy(dist), [16 / 15, 16 / 15, 2.0], rtol=0, atol=1e-12)
    for counts, expected in (([1, 2, 2], 16 / 15), ([2, 2, 2], 16 / 15), ([1, 1, 1], 2.0)):
        assert abs(_grassberger(np.array(counts, dtype=float)) - expected) < 1e-12
    model = EntropyLDiversity("disease", 3, "grassberger")
    assert model.violating_distributions(dist).tolist() == [True, True, False]
