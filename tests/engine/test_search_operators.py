"""Operators of the genetic searches and KGEN's preprocessing, on small lattices."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.hypothesis_profiles import examples

from engine.errors import JobError
from engine.search import genetic, kgen
from engine.search.datafly import datafly_choice
from tests.engine.search_fixtures import synthetic_problem

LOWS = np.array([0, 0, 0, 0, 0])
HIGHS = np.array([3, 1, 5, 3, 1])


def bounds(draw_ranges):
    lows = np.array([min(a, b) for a, b in draw_ranges], dtype=np.int64)
    highs = np.array([max(a, b) for a, b in draw_ranges], dtype=np.int64)
    return lows, highs


ranges = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 5)), min_size=2, max_size=8)


# --- genetic algorithm (Meurers et al.) -------------------------------------------------
def test_triangle_pattern_of_the_paper_example():
    tri = genetic.triangle_population(LOWS, HIGHS, 50)
    assert tri.tolist() == [
        [3, 0, 0, 0, 0], [3, 1, 0, 0, 0], [3, 1, 5, 0, 0], [3, 1, 5, 3, 0], [3, 1, 5, 3, 1],
        [0, 1, 5, 3, 1], [0, 0, 5, 3, 1], [0, 0, 0, 3, 1], [0, 0, 0, 0, 1]]
    assert len(genetic.triangle_population(LOWS, HIGHS, 4)) == 4


def test_triangle_respects_raised_minimum_levels():
    lows = np.array([1, 0, 2])
    highs = np.array([2, 1, 4])
    tri = genetic.triangle_population(lows, highs, 10)
    assert (tri >= lows).all() and (tri <= highs).all()
    assert tri[0].tolist() == [2, 0, 2] and tri[-1].tolist() == [1, 0, 4]


@settings(max_examples=examples(60), deadline=None)
@given(ranges, st.integers(0, 2**32 - 1))
def test_uniform_crossover_takes_each_gene_from_a_parent(r, seed):
    lows, highs = bounds(r)
    rng = np.random.default_rng(seed)
    a = rng.integers(lows, highs + 1)
    b = rng.integers(lows, highs + 1)
    child = genetic.uniform_crossover(rng, a, b)
    assert all(c in (x, y) for c, x, y in zip(child, a, b))


@settings(max_examples=examples(60), deadline=None)
@given(ranges, st.floats(0.0, 1.0), st.integers(0, 2**32 - 1))
def test_mutation_changes_between_one_and_the_bound_of_genes(r, p, seed):
    lows, highs = bounds(r)
    rng = np.random.default_rng(seed)
    x = rng.integers(lows, highs + 1)
    child = genetic.mutate(rng, x, lows, highs, p)
    assert (child >= lows).all() and (child <= highs).all()
    changed = int((child != x).sum())
    if (highs > lows).any():
        assert 1 <= changed <= max(1, int(p * len(x)))
    else:
        assert changed == 0


def test_parents_are_drawn_proportionally_to_rank():
    w = genetic.parent_weights(4)
    assert np.allclose(w, [0.4, 0.3, 0.2, 0.1])


def test_genetic_parameters_are_validated():
    assert genetic.GeneticParameters.from_dict({}).subpopulation_size == 50
    with pytest.raises(JobError):
        genetic.GeneticParameters.from_dict({"elite_fraction": 1.5})
    with pytest.raises(JobError):
        genetic.GeneticParameters.from_dict({"elite_fraction": 0.7, "crossover_fraction": 0.4})
    with pytest.raises(JobError, match="elite_fractoin"):
        genetic.GeneticParameters.from_dict({"elite_fractoin": 0.1})
    # the table is shared with KGEN: its keys are accepted and ignored here
    assert genetic.GeneticParameters.from_dict({"population_size": 10}).subpopulation_size == 50
    assert kgen.KgenParameters.from_dict({"subpopulation_size": 10}).population_size == 100
    with pytest.raises(JobError):
        kgen.KgenParameters.from_dict({"crossover_rate": 2.0})


# --- KGEN ---------------------------------------------------------------------------------
A = np.array([2, 0, 3, 1])
B = np.array([0, 1, 1, 3])
LOW, HIGH = np.minimum(A, B), np.maximum(A, B)


def between(x, low, high):
    return bool((x >= low).all() and (x <= high).all())


def test_crossover_case_1_keeps_an_anonymous_minimum():
    rng = np.random.default_rng(0)
    out = kgen.crossover(rng, A, B, True, True, lambda x: True)
    assert len(out) == 1 and out[0].tolist() == LOW.tolist()


def test_crossover_case_1_otherwise_draws_below_each_parent():
    rng = np.random.default_rng(0)
    for _ in range(20):
        out = kgen.crossover(rng, A, B, True, True, lambda x: False)
        assert len(out) == 2
        assert between(out[0], LOW, A) and between(out[1], LOW, B)


def test_crossover_case_2_returns_the_maximum():
    out = kgen.crossover(np.random.default_rng(0), A, B, False, False, lambda x: 1 / 0)
    assert len(out) == 1 and out[0].tolist() == HIGH.tolist()


@pytest.mark.parametrize("a_anonymous", [True, False])
def test_crossover_case_3_draws_below_the_anonymous_parent(a_anonymous):
    rng = np.random.default_rng(0)
    parent = A if a_anonymous else B
    for _ in range(20):
        out = kgen.crossover(rng, A, B, a_anonymous, not a_anonymous, lambda x: 1 / 0)
        assert len(out) == 1 and between(out[0], LOW, parent)


@settings(max_examples=examples(80), deadline=None)
@given(ranges, st.floats(0.0, 1.0), st.integers(0, 2**32 - 1))
def test_horizontal_mutation_bounds(r, fraction, seed):
    lows, highs = bounds(r)
    rng = np.random.default_rng(seed)
    x = rng.integers(lows, highs + 1)
    child = kgen.horizontal_mutation(rng, x, lows, highs, fraction)
    assert (child >= lows).all() and (child <= highs).all()
    assert int((child != x).sum()) <= max(2, int(fraction * len(x)))


def test_horizontal_mutation_alternates_up_and_down():
    lows, highs = np.zeros(5, np.int64), np.full(5, 4)
    x = np.full(5, 2)
    for seed in range(30):
        child = kgen.horizontal_mutation(np.random.default_rng(seed), x, lows, highs, 0.5)
        # the paper's example: two genes, one raised (2..4), one lowered (0..2)
        assert int((child > x).sum()) <= 1 and int((child < x).sum()) <= 1
    ups = downs = 0
    for seed in range(200):
        child = kgen.horizontal_mutation(np.random.default_rng(seed), x, lows, highs, 0.5)
        ups += int((child > x).any())
        downs += int((child < x).any())
    assert ups > 50 and downs > 50


@settings(max_examples=examples(60), deadline=None)
@given(ranges, st.integers(0, 2**32 - 1))
def test_standard_mutation_moves_one_gene_one_level(r, seed):
    lows, highs = bounds(r)
    rng = np.random.default_rng(seed)
    x = rng.integers(lows, highs + 1)
    child = kgen.standard_mutation(rng, x, lows, highs)
    assert (child >= lows).all() and (child <= highs).all()
    if (highs > lows).any():
        assert int(np.abs(child - x).sum()) == 1


def test_age_penalty_lowers_and_finally_removes_selection_probability():
    keys = [(False, 0.1), (False, 0.2), (False, 0.3)]
    young = kgen.selection_probabilities(keys, np.zeros(3))
    assert young[0] > young[1] > young[2] and np.isclose(young.sum(), 1)
    aged = kgen.selection_probabilities(keys, np.array([5.0, 0.0, 0.0]))
    assert aged[0] < young[0]
    dead = kgen.selection_probabilities(keys, np.array([10.0, 0.0, 0.0]))
    assert dead[0] == 0.0
    rng = np.random.default_rng(0)
    assert all(kgen.tournament(rng, keys, dead, 2) != 0 for _ in range(50))


def single_attribute_minimum(problem, j: int, k: int) -> int:
    """The lowest level at which attribute ``j`` alone is k-anonymous (the paper's rule)."""
    df = problem.table
    h = problem.hierarchies[j]
    codes = df.column(problem.qis[j]).codes
    for level in range(h.levels):
        counts = np.bincount(h.maps[level][codes])
        if counts[counts > 0].min() >= k:
            return level
    return h.height


def test_kgen_preprocessing_without_suppression_is_the_papers_rule_and_sound():
    problem = synthetic_problem(n_qis=3, rows=60, levels=4, k=4, suppression_limit=0.0)
    raised = kgen.preprocess_min_levels(problem)
    assert raised == tuple(single_attribute_minimum(problem, j, 4) for j in range(3))
    assert any(r > 0 for r in raised)
    # nothing below the raised minimum is anonymous
    for levels in problem.lattice.iter_levels():
        if any(v < r for v, r in zip(levels, raised)):
            assert not problem.evaluate(levels).anonymous


def test_kgen_preprocessing_with_suppression_keeps_what_suppression_can_rescue():
    problem = synthetic_problem(n_qis=3, rows=60, levels=4, k=4, suppression_limit=0.1)
    raised = kgen.preprocess_min_levels(problem)
    strict = tuple(single_attribute_minimum(problem, j, 4) for j in range(3))
    assert all(r <= s for r, s in zip(raised, strict))
    for levels in problem.lattice.iter_levels():
        if any(v < r for v, r in zip(levels, raised)):
            assert not problem.evaluate(levels).anonymous
    # at a 100% limit every transformation is anonymous: nothing may be pruned
    full = synthetic_problem(n_qis=3, rows=60, levels=4, k=4, suppression_limit=1.0)
    assert kgen.preprocess_min_levels(full) == full.lattice.min_levels


# --- DataFly ------------------------------------------------------------------------------
def test_datafly_picks_most_distinct_values_below_the_maximum():
    distinct = [np.array([10, 5, 1]), np.array([20, 2, 1]), np.array([30, 1])]
    assert datafly_choice((0, 0, 1), (2, 2, 1), distinct) == 1
    assert datafly_choice((0, 1, 1), (2, 2, 1), distinct) == 0
    assert datafly_choice((2, 2, 1), (2, 2, 1), distinct) is None
    assert datafly_choice((0, 0, 0), (2, 2, 1), distinct, candidates={0, 1}) == 1
