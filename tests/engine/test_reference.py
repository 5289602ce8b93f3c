"""Kernel, metrics and optimal search against the slow reference (tests/naive.py)
on random small tables and hierarchies."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.hypothesis_profiles import examples

from engine.config import AttributeConfig, Job, TransformationConfig
from engine.data.table import EncodedTable
from engine.hierarchy import Hierarchy
from engine.metrics import metric_from_dict
from engine.privacy import KAnonymity
from engine.problem import Problem
from engine.search.exhaustive import exhaustive_search
from engine.search.optimal import optimal_search
from tests import naive


@st.composite
def hierarchy_rows(draw, name: str):
    """Random hierarchy over values v0..v{d-1}, maybe with values absent from data."""
    d = draw(st.integers(1, 6))
    values = [f"{name}{i}" for i in range(d)]
    rows = [[v] for v in values]
    labels = list(values)
    for level in range(draw(st.integers(0, 3))):
        n_groups = draw(st.integers(1, max(1, len(set(labels)))))
        distinct = list(dict.fromkeys(labels))
        assign = {lab: f"{name}L{level + 1}g{draw(st.integers(0, n_groups - 1))}"
                  for lab in distinct}
        labels = [assign[lab] for lab in labels]
        for r, lab in zip(rows, labels):
            r.append(lab)
    return [tuple(r) for r in rows]


@st.composite
def problems(draw):
    q = draw(st.integers(1, 3))
    names = [f"q{j}" for j in range(q)]
    hier = {n: draw(hierarchy_rows(n)) for n in names}
    n_rows = draw(st.integers(1, 40))
    data = {n: [hier[n][draw(st.integers(0, len(hier[n]) - 1))][0] for _ in range(n_rows)]
            for n in names}
    return names, hier, pd.DataFrame(data)


METRICS = [("loss", False, "geometric-mean"), ("loss", False, "rank"), ("loss", False, "sum"),
           ("entropy", True, "sum"), ("entropy", False, "sum"), ("entropy", False, "max"),
           ("precision", True, "arithmetic-mean"), ("precision", False, "arithmetic-mean"),
           ("height", True, "sum"), ("discernibility", True, None),
           ("discernibility", False, None), ("aecs", False, None)]


def make_problem(names, hier, df, k, limit, metric, monotonic, gs, how, weights=None):
    attrs = {n: AttributeConfig("quasi-identifying", Hierarchy.from_rows(hier[n], n),
                                weight=None if weights is None else weights[j])
             for j, n in enumerate(names)}
    d = {"name": metric, "monotonic": monotonic, "gs_factor": gs}
    if how:
        d["aggregate"] = how
    job = Job(attributes=attrs, privacy=[KAnonymity(k)],
              transformation=TransformationConfig(suppression_limit=limit),
              metric=metric_from_dict(d))
    return Problem(EncodedTable.from_dataframe(df), job)


def same(a, b) -> bool:
    if isinstance(a, tuple):
        return all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9) for x, y in zip(a, b))
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.integers(1, 4), st.sampled_from([0.0, 0.1, 0.5, 1.0]),
       st.sampled_from(METRICS), st.sampled_from([0.0, 0.3, 0.5, 0.8, 1.0]), st.data())
def test_every_transformation_matches_reference(prob, k, limit, metric, gs, data):
    names, hier, df = prob
    name, mono, how = metric
    weights = data.draw(st.none() | st.lists(st.floats(0.1, 5.0), min_size=len(names),
                                             max_size=len(names)))
    problem = make_problem(names, hier, df, k, limit, name, mono, gs, how, weights)
    w = [1.0] * len(names) if weights is None else [x / max(weights) for x in weights]
    levels_all = list(itertools.product(*(range(len(hier[n][0])) for n in names)))
    order = data.draw(st.permutations(levels_all))  # random order exercises the roll-up cache
    for lv in order:
        levels = dict(zip(names, lv))
        classes = problem.classifier.classify(lv)
        ref = sorted(len(c) for c in naive.classes(df, hier, levels))
        assert sorted(classes.counts.tolist()) == ref
        ev = problem.evaluate(lv)
        anon, loss, n_sup = naive.evaluate(df, hier, levels, k, limit, name, mono, gs,
                                           how, w)
        assert ev.anonymous == anon and ev.suppressed_records == n_sup
        assert same(ev.loss, loss), (lv, ev.loss, loss)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.integers(1, 5), st.sampled_from([0.0, 0.05, 0.3]),
       st.sampled_from(METRICS), st.sampled_from([0.0, 0.5, 1.0]))
def test_optimal_search_matches_exhaustive(prob, k, limit, metric, gs):
    names, hier, df = prob
    name, mono, how = metric
    problem = make_problem(names, hier, df, k, limit, name, mono, gs, how)
    exhaustive = exhaustive_search(problem)
    optimal = optimal_search(problem)
    assert (exhaustive.optimum is None) == (optimal.optimum is None)
    if optimal.optimum is not None:
        assert same(optimal.optimum.loss, exhaustive.optimum.loss)
        assert optimal.optimum.anonymous
    # every state the optimal search reports agrees with the exhaustive truth
    truth = exhaustive.space.states
    known = optimal.space.states != 0
    assert np.array_equal(optimal.space.states[known], truth[known])
