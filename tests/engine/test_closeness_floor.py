"""t-closeness's floor (``TCloseness.violating_and_floor``): per class of a
transformation, records that every specialization suppresses within the class. The
optimal search drops a transformation and all its specializations once the floors
exceed the suppression limit, so the floor must never exceed what a specialization
really suppresses: checked here against every specialization of every transformation
of small random tables."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.hypothesis_profiles import examples

from engine.config import AttributeConfig, Job, TransformationConfig
from engine.data.table import EncodedTable
from engine.hierarchy import Hierarchy
from engine.metrics import metric_from_dict
from engine.privacy import KAnonymity, TCloseness
from engine.problem import Problem
from tests.engine.test_reference import problems
from tests.engine.test_search_pruning import SENSITIVE_HIERARCHY, SENSITIVE_VALUES


def _problem(prob, distance, t, k, limit, data) -> Problem:
    names, hier, df = prob
    df = df.copy()
    df["s"] = data.draw(st.lists(st.sampled_from(SENSITIVE_VALUES), min_size=len(df),
                                 max_size=len(df)))
    attrs = {n: AttributeConfig("quasi-identifying", Hierarchy.from_rows(hier[n], n))
             for n in names}
    attrs["s"] = AttributeConfig("sensitive", Hierarchy.from_rows(SENSITIVE_HIERARCHY, "s"))
    models = [TCloseness("s", t, distance)] + ([KAnonymity(k)] if k > 1 else [])
    job = Job(attributes=attrs, privacy=models,
              transformation=TransformationConfig(suppression_limit=limit),
              metric=metric_from_dict({"name": "loss"}))
    return Problem(EncodedTable.from_dataframe(df), job)


def _below(levels: np.ndarray, top: np.ndarray) -> np.ndarray:
    return levels[(levels <= top).all(axis=1)]


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.sampled_from(["equal", "ordered", "hierarchical"]),
       st.sampled_from([0.05, 0.1, 0.2, 0.4]), st.data())
def test_floor_never_exceeds_what_a_specialization_suppresses(prob, distance, t, data):
    problem = _problem(prob, distance, t, 1, 0.5, data)
    model = problem.models[0]
    levels = problem.lattice.all_levels()
    for top in levels:
        classes, row_class = problem.classifier.classify_rows(top)
        violating, floor = model.violating_and_floor(classes)
        assert np.array_equal(violating, model.violating(classes))
        assert (floor >= 0).all() and (floor <= classes.counts).all()
        # the transformation itself suppresses each violating class whole
        assert (floor[~violating] == 0).all()
        for low in _below(levels, top):
            low_classes, low_row_class = problem.classifier.classify_rows(low)
            suppressed_rows = model.violating(low_classes)[low_row_class]
            per_class = np.bincount(row_class, weights=suppressed_rows,
                                    minlength=classes.n_classes)
            assert (per_class >= floor - 1e-9).all(), (top, low)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.sampled_from(["equal", "ordered", "hierarchical"]),
       st.sampled_from([0.1, 0.2]), st.integers(1, 4), st.sampled_from([0.05, 0.2, 0.5]),
       st.data())
def test_failing_specializations_are_not_anonymous(prob, distance, t, k, limit, data):
    problem = _problem(prob, distance, t, k, limit, data)
    levels = problem.lattice.all_levels()
    anonymous = {tuple(l): problem.evaluate(l).anonymous for l in levels}
    for top in levels:
        ev = problem.evaluate(top)
        if ev.specializations_fail:
            assert not any(anonymous[tuple(low)] for low in _below(levels, top))


@pytest.mark.parametrize("distance,t", [("equal", 0.11), ("ordered", 0.07),
                                         ("hierarchical", 0.095)])
def test_floor_is_tight_when_parts_lie_on_one_line(distance, t):
    """Class "xy" splits into x (20 records of s0, far from the table) and y (100
    records leaning towards s0, just within t): its distance is about their weighted
    mean, so the floor is close under the 20 records its specialization suppresses
    (not at 20: y's other values lie a little farther from the table than s0)."""
    z = [v for v in SENSITIVE_VALUES for _ in range(100)]
    y = ["s0"] * 36 + [v for v in SENSITIVE_VALUES[1:] for _ in range(16)]
    x = ["s0"] * 20
    df = pd.DataFrame({"q": ["z"] * len(z) + ["y"] * len(y) + ["x"] * len(x), "s": z + y + x})
    rows = [("x", "xy", "*"), ("y", "xy", "*"), ("z", "z", "*")]
    attrs = {"q": AttributeConfig("quasi-identifying", Hierarchy.from_rows(rows, "q")),
             "s": AttributeConfig("sensitive", Hierarchy.from_rows(SENSITIVE_HIERARCHY, "s"))}
    job = Job(attributes=attrs, privacy=[TCloseness("s", t, distance)],
              transformation=TransformationConfig(suppression_limit=0.01),
              metric=metric_from_dict({"name": "loss"}))
    problem = Problem(EncodedTable.from_dataframe(df), job)
    model = problem.models[0]

    def by_label(levels):
        classes = problem.classifier.classify(levels)
        violating, floor = model.violating_and_floor(classes)
        labels = [problem.hierarchies[0].labels[levels[0]][g] for g in classes.gen[:, 0]]
        return {label: (bool(v), float(f)) for label, v, f in zip(labels, violating, floor)}

    low = by_label([0])
    assert low["x"][0] and not low["y"][0] and not low["z"][0]
    violating, floor = by_label([1])["xy"]
    assert violating and 15.0 <= floor <= 20.0
    ev = problem.evaluate([1])  # 20 suppressed records are more than 1 % of 620
    assert not ev.anonymous and ev.specializations_fail


@pytest.mark.parametrize("distance", ["equal", "ordered", "hierarchical"])
def test_point_distances_follow_the_overall_distribution(distance):
    """Local recoding gives its parts the whole table's overall distribution: the
    floors' single-value distances must then be the whole table's too."""
    from engine.kernel.sparse_counts import SparseCounts
    df = pd.DataFrame({"q": ["x"] * 10, "s": ["s0"] * 6 + ["s1", "s2", "s3", "s4"]})
    attrs = {"q": AttributeConfig("quasi-identifying",
                                  Hierarchy.from_rows([("x", "*")], "q")),
             "s": AttributeConfig("sensitive", Hierarchy.from_rows(SENSITIVE_HIERARCHY, "s"))}
    job = Job(attributes=attrs, privacy=[TCloseness("s", 0.2, distance)],
              transformation=TransformationConfig(suppression_limit=0.1),
              metric=metric_from_dict({"name": "loss"}))
    model = Problem(EncodedTable.from_dataframe(df), job).models[0]
    m = len(model.overall)
    single = SparseCounts(np.arange(m + 1), np.arange(m, dtype=np.int32), np.ones(m, np.int64), m)
    before = model.point_emd.copy()
    assert np.allclose(before, model.emd(single))
    model.overall = np.full(m, 1.0 / m)
    if model.mass_flat is not None:
        model.mass_flat = model.mass_flat.copy()
        model.mass_flat[:m] = model.overall
    assert np.allclose(model.point_emd, model.emd(single))
    assert not np.allclose(model.point_emd, before)
