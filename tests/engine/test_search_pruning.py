"""The optimal search prunes with a job's monotonic models when the job as a whole is
not monotonic (k-anonymity beside l-diversity or t-closeness with suppression), and
with the class size a model implies (t-closeness's distance floor): on random small
tables it must still find the exhaustive search's optimum, and every state it
reports must be true."""
from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.hypothesis_profiles import examples

from engine.config import AttributeConfig, Job, TransformationConfig
from engine.data.table import EncodedTable
from engine.hierarchy import Hierarchy
from engine.metrics import metric_from_dict
from engine.privacy import (BetaLikeness, DeltaDisclosure, DistinctLDiversity,
                            EntropyLDiversity, KAnonymity, RecursiveCLDiversity,
                            TCloseness)
from engine.problem import Problem
from engine.search.exhaustive import exhaustive_search
from engine.search.optimal import optimal_search
from engine.solution_space import NOT_ANONYMOUS
from tests.engine.test_reference import METRICS, problems, same

SENSITIVE_VALUES = ["s0", "s1", "s2", "s3", "s4"]
SENSITIVE_HIERARCHY = [("s0", "a", "*"), ("s1", "a", "*"), ("s2", "b", "*"),
                       ("s3", "b", "*"), ("s4", "c", "*")]


@st.composite
def mixed_models(draw):
    """Up to two monotonic models and one or two that are not (with suppression)."""
    monotonic = draw(st.lists(st.sampled_from(["k", "distinct"]), min_size=0,
                              max_size=2, unique=True))
    other = draw(st.lists(st.sampled_from(["recursive", "t-equal", "t-hier", "t-ordered",
                                           "entropy", "beta", "delta"]),
                          min_size=1, max_size=2, unique=True))
    models = []
    for name in monotonic:
        if name == "k":
            models.append(KAnonymity(draw(st.integers(2, 5))))
        else:
            models.append(DistinctLDiversity("s", draw(st.integers(1, 3))))
    for name in other:
        if name == "recursive":
            models.append(RecursiveCLDiversity("s", draw(st.sampled_from([0.5, 1.0, 2.0, 4.0])),
                                               draw(st.integers(1, 3))))
        elif name.startswith("t-"):
            models.append(TCloseness("s", draw(st.sampled_from([0.1, 0.2, 0.4])),
                                     {"t-equal": "equal", "t-hier": "hierarchical",
                                      "t-ordered": "ordered"}[name]))
        elif name == "entropy":
            models.append(EntropyLDiversity("s", draw(st.sampled_from([1.2, 1.5, 2.0]))))
        elif name == "beta":
            models.append(BetaLikeness("s", draw(st.sampled_from([0.5, 1.0, 2.0])), False))
        else:
            models.append(DeltaDisclosure("s", draw(st.sampled_from([0.5, 1.0, 2.0]))))
    return draw(st.permutations(models))


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), mixed_models(), st.sampled_from([0.05, 0.1, 0.3, 0.6]),
       st.sampled_from(METRICS), st.sampled_from([0.0, 0.5, 1.0]), st.data())
def test_pruned_search_matches_exhaustive(prob, models, limit, metric, gs, data):
    names, hier, df = prob
    df = df.copy()
    df["s"] = data.draw(st.lists(st.sampled_from(SENSITIVE_VALUES), min_size=len(df),
                                 max_size=len(df)))
    name, mono, how = metric
    attrs = {n: AttributeConfig("quasi-identifying", Hierarchy.from_rows(hier[n], n))
             for n in names}
    attrs["s"] = AttributeConfig("sensitive", Hierarchy.from_rows(SENSITIVE_HIERARCHY, "s"))
    d = {"name": name, "monotonic": mono, "gs_factor": gs}
    if how:
        d["aggregate"] = how

    def problem():
        job = Job(attributes=attrs, privacy=list(models),
                  transformation=TransformationConfig(suppression_limit=limit),
                  metric=metric_from_dict(d))
        return Problem(EncodedTable.from_dataframe(df), job)

    pruned = problem()
    assert not pruned.models_monotonic
    optimal = optimal_search(pruned)
    exhaustive = exhaustive_search(problem())
    assert (exhaustive.optimum is None) == (optimal.optimum is None)
    if optimal.optimum is not None:
        assert optimal.optimum.anonymous
        assert same(optimal.optimum.loss, exhaustive.optimum.loss)
    truth = exhaustive.space.states
    known = optimal.space.states != 0
    assert np.array_equal(optimal.space.states[known], truth[known])


def _adult_like(n: int = 60, seed: int = 3) -> tuple[pd.DataFrame, dict]:
    rng = np.random.default_rng(seed)
    hier = {"a": [(f"a{i}", f"a{i // 2}x", "*") for i in range(6)],
            "b": [(f"b{i}", f"b{i // 3}y", "*") for i in range(6)]}
    df = pd.DataFrame({"a": [f"a{i}" for i in rng.integers(0, 6, n)],
                       "b": [f"b{i}" for i in rng.integers(0, 6, n)],
                       "s": [SENSITIVE_VALUES[i] for i in rng.integers(0, 5, n)]})
    return df, hier


def test_monotonic_part_tags_specializations():
    """A transformation whose k-anonymity part fails is not anonymous, and so is every
    specialization; the search leaves such nodes unchecked but tagged."""
    df, hier = _adult_like()
    attrs = {n: AttributeConfig("quasi-identifying", Hierarchy.from_rows(hier[n], n))
             for n in ("a", "b")}
    attrs["s"] = AttributeConfig("sensitive")
    job = Job(attributes=attrs, privacy=[KAnonymity(8), RecursiveCLDiversity("s", 2.0, 2)],
              transformation=TransformationConfig(suppression_limit=0.05),
              metric=metric_from_dict({"name": "entropy", "monotonic": True}))
    problem = Problem(EncodedTable.from_dataframe(df), job)
    assert [type(m) for m in problem.pruning_models] == [KAnonymity]
    bottom = problem.evaluate((0, 0))
    assert not bottom.anonymous and bottom.monotonic_part_ok is False
    out = optimal_search(problem)
    assert out.space.states[0] == NOT_ANONYMOUS
    assert out.checked < problem.lattice.size


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=2, max_size=7),
       st.sampled_from(["equal", "ordered", "hierarchical"]), st.data())
def test_distance_floor_bounds_every_class(weights, distance, data):
    """No class of s records is closer to the overall distribution than the floor."""
    from engine.kernel.sparse_counts import SparseCounts
    weights = np.asarray(weights) + 1e-3
    values = [f"s{i}" for i in range(len(weights))]
    # overall table: value i about weights[i] / sum of 200 records
    reps = np.maximum(1, np.round(200 * weights / weights.sum())).astype(int)
    column = [v for v, r in zip(values, reps) for _ in range(r)]
    df = pd.DataFrame({"q": ["x"] * len(column), "s": column})
    rows = [(v, f"g{i % 3}", "*") for i, v in enumerate(values)]
    attrs = {"q": AttributeConfig("quasi-identifying", Hierarchy.from_rows([("x", "*")], "q")),
             "s": AttributeConfig("sensitive", Hierarchy.from_rows(rows, "s"))}
    model = TCloseness("s", 0.2, distance)
    job = Job(attributes=attrs, privacy=[model],
              transformation=TransformationConfig(suppression_limit=0.1),
              metric=metric_from_dict({"name": "entropy", "monotonic": True}))
    problem = Problem(EncodedTable.from_dataframe(df), job)
    model = problem.models[0]  # the problem's bound copy
    codes = problem.table.column("s").codes
    size = data.draw(st.integers(1, 6))
    picks = data.draw(st.lists(st.integers(0, len(codes) - 1), min_size=size,
                               max_size=size))
    dist = SparseCounts.from_codes(codes[picks], len(model.overall)).rollup(
        np.zeros(size, np.int64), 1)
    assert model.emd(dist)[0] >= model.distance_floor(size) - 1e-12
    if size < model.implied_class_size():
        assert model.violating_distributions(dist)[0]


def test_t_closeness_implies_k_on_adult_like_data():
    """With few values of similar frequency, small classes cannot be 0.2-close."""
    df, hier = _adult_like()
    attrs = {n: AttributeConfig("quasi-identifying", Hierarchy.from_rows(hier[n], n))
             for n in ("a", "b")}
    attrs["s"] = AttributeConfig("sensitive", Hierarchy.from_rows(SENSITIVE_HIERARCHY, "s"))
    job = Job(attributes=attrs, privacy=[TCloseness("s", 0.2, "hierarchical")],
              transformation=TransformationConfig(suppression_limit=0.05),
              metric=metric_from_dict({"name": "entropy", "monotonic": True}))
    problem = Problem(EncodedTable.from_dataframe(df), job)
    assert problem.pruning_models == [] and problem.pruning_k > 1
    optimal = optimal_search(problem)
    exhaustive = exhaustive_search(Problem(EncodedTable.from_dataframe(df), job))
    assert same(optimal.optimum.loss, exhaustive.optimum.loss)
