"""(epsilon, delta)-differential privacy (SafePub): derived k, sample, fixed
generalization, and ARX's data-independent oracle cases (loss within 10%)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine.output import transform
from engine.privacy import model_from_dict
from engine.privacy.differential_privacy import DifferentialPrivacy, derive_k, java_round
from engine.privacy.output_checks import OUTPUT_CHECKS
from engine.problem import Problem
from engine.search import run_search
from tests import oracle

DP_CASES = [c for c in oracle.cases() if c["algorithm"] == "OPTIMAL" and any(
    m["type"].startswith("(epsilon,delta)") for m in c["privacy_models"])]


@pytest.mark.parametrize("case", DP_CASES, ids=[c["id"] for c in DP_CASES])
def test_derived_k_matches_arx(case):
    m = case["privacy_models"][0]
    budget = (case.get("algorithm_params") or {}).get("dpSearchBudget", 0.1)
    eps_anon = m["epsilon"] - budget if m["data_dependent"] else m["epsilon"]
    assert derive_k(eps_anon, m["delta"]) == m["arx_k"]
    assert 1 - math.exp(-eps_anon) == pytest.approx(m["arx_beta"], rel=1e-12)


FIXED = [c for c in DP_CASES if not c["privacy_models"][0]["data_dependent"]]


@pytest.mark.parametrize("case", FIXED, ids=[c["id"] for c in FIXED])
def test_fixed_generalization_case(case):
    """ARX's sample cannot be redrawn; a sample of the same law must give the same
    transformation and a loss within 10% of ARX's, and meet the model."""
    problem = Problem(oracle.table(case["dataset"]), oracle.job_for(case))
    outcome = run_search(problem)
    assert outcome.optimum is not None
    assert dict(zip(problem.qis, outcome.optimum.levels)) == case["expected_levels"]
    expected = oracle.expected_loss(case)
    assert outcome.optimum.loss <= expected * 1.1 + 1e-12
    model = problem.models[0]
    frame = transform(problem, outcome.optimum.levels).frame
    assert OUTPUT_CHECKS[model.name](model, frame, problem.qis,
                                     problem.model_context.subset) == []


def test_sample_is_seeded_and_has_the_right_rate():
    case = FIXED[0]
    table = oracle.table(case["dataset"])
    a = Problem(table, oracle.job_for(case)).model_context.subset
    b = Problem(table, oracle.job_for(case)).model_context.subset
    assert np.array_equal(a, b)
    beta = case["privacy_models"][0]["arx_beta"]
    n = len(a)
    assert abs(a.sum() - beta * n) < 5 * math.sqrt(n * beta * (1 - beta))


def test_generalization_degrees_round_half_up():
    assert [java_round(0.5 * h) for h in (1, 2, 3, 5)] == [1, 1, 2, 3]
    assert [java_round(0.4 * h) for h in (1, 4, 3)] == [0, 2, 1]


def test_data_dependent_search_meets_the_model():
    case = next(c for c in DP_CASES if c["privacy_models"][0]["data_dependent"]
                and c["dataset"].endswith("adult.csv"))
    problem = Problem(oracle.table(case["dataset"]), oracle.job_for(case))
    outcome = run_search(problem)
    assert outcome.optimum is not None
    model = problem.models[0]
    frame = transform(problem, outcome.optimum.levels).frame
    assert OUTPUT_CHECKS[model.name](model, frame, problem.qis,
                                     problem.model_context.subset) == []


def test_round_trip_and_errors():
    m = DifferentialPrivacy(2.0, 1e-5, "data-dependent", seed=3, search_budget=0.5)
    assert model_from_dict(m.to_dict()).to_dict() == m.to_dict()
    m = DifferentialPrivacy(2.0, 1e-5, "low-medium", seed=3)
    assert model_from_dict(m.to_dict()).to_dict() == m.to_dict()
    for bad in ({"epsilon": 0, "delta": 1e-5}, {"epsilon": 1, "delta": 2},
                {"epsilon": 1, "delta": 1e-5, "generalization": "huge"},
                {"epsilon": 1, "delta": 1e-5, "search_budget": 1.5}):
        with pytest.raises(Exception):
            model_from_dict({"model": "differential-privacy", **bad})
