"""Heuristics against ARX's oracle: the heuristic cases on Adult and cup.

Each ARX heuristic case (bottom-up, top-down, genetic) is run with our
counterpart (Lightning, top-down, genetic; KGEN takes the genetic cases) and a
step limit, so the run is deterministic. It must reach the same or a lower
loss than ARX's expected loss; for the genetic cases that is the optimum the
optimal search finds. Budgets are the checks our searches needed (seed 0)
plus a margin.

The default run takes each algorithm's cheapest case per data set; ``-m slow``
runs them all.
"""
from __future__ import annotations

import functools

import pytest

from engine.problem import Problem
from engine.search.heuristics import HEURISTICS
from tests.engine.search_fixtures import set_transformation
from tests import oracle

ALGORITHM = {"BEST_EFFORT_BOTTOM_UP": ("lightning",), "BEST_EFFORT_TOP_DOWN": ("top-down",),
             "BEST_EFFORT_GENETIC": ("genetic", "kgen")}
#: step limit per (case id, algorithm): checks needed at seed 0 plus a margin
BUDGET = {
    ("TestAnonymizationHeuristic#2", "lightning"): 60,
    ("TestAnonymizationHeuristic#6", "lightning"): 1300,
    ("TestAnonymizationHeuristic#1", "lightning"): 120,
    ("TestAnonymizationHeuristic#11", "lightning"): 220,
    ("TestAnonymizationHeuristic#5", "lightning"): 120,
    ("TestAnonymizationHeuristic#9", "lightning"): 700,
    ("TestAnonymizationHeuristicTopDown#2", "top-down"): 120,
    ("TestAnonymizationHeuristicTopDown#6", "top-down"): 120,
    ("TestAnonymizationHeuristicTopDown#1", "top-down"): 40,
    ("TestAnonymizationHeuristicTopDown#11", "top-down"): 40,
    ("TestAnonymizationHeuristicTopDown#5", "top-down"): 300,
    ("TestAnonymizationHeuristicTopDown#9", "top-down"): 40,
    ("TestAnonymizationGenetic#2", "genetic"): 260,
    ("TestAnonymizationGenetic#6", "genetic"): 500,
    ("TestAnonymizationGenetic#1", "genetic"): 1300,
    ("TestAnonymizationGenetic#11", "genetic"): 700,
    ("TestAnonymizationGenetic#5", "genetic"): 600,
    ("TestAnonymizationGenetic#9", "genetic"): 600,
    ("TestAnonymizationGenetic#2", "kgen"): 300,
    ("TestAnonymizationGenetic#6", "kgen"): 700,
    ("TestAnonymizationGenetic#1", "kgen"): 200,
    ("TestAnonymizationGenetic#11", "kgen"): 800,
    ("TestAnonymizationGenetic#5", "kgen"): 900,
    ("TestAnonymizationGenetic#9", "kgen"): 1100,
}
#: too slow for the default run even alone
SLOW = {("TestAnonymizationHeuristic#6", "lightning")}

#: (case, algorithm) pairs; the default run takes each algorithm's cheapest case on each
#: data set (the smallest step budget), ``-m slow`` all of them
RUNS = [{"id": f"{case['id']}-{name}", "case": case, "name": name,
         "budget": BUDGET[(case["id"], name)], "dataset": case["dataset"]}
        for case in oracle.cases() for name in ALGORITHM.get(case["algorithm"], ())]
PARAMS = oracle.params(RUNS, values=lambda r: (r["case"], r["name"]),
                       features=lambda r: {(r["name"], r["dataset"])},
                       cost=lambda r: r["budget"],
                       never={f"{c}-{n}" for c, n in SLOW})


@functools.lru_cache(maxsize=None)
def problem_for(case_key: str) -> Problem:
    """One problem per configuration, shared by the algorithms (only the
    classifier's snapshot cache carries over, which changes speed, not results)."""
    case = next(c for c in oracle.cases() if c["source"]["junit_name"].split(":", 1)[1]
                == case_key)
    return Problem(oracle.table(case["dataset"]), oracle.job_for(case))


@pytest.mark.parametrize("case,name", PARAMS)
def test_heuristic_reaches_arx(case, name):
    problem = problem_for(case["source"]["junit_name"].split(":", 1)[1])
    set_transformation(problem, step_limit=BUDGET[(case["id"], name)], time_limit_s=None,
                       seed=0)
    out = HEURISTICS[name](problem)
    expected = oracle.expected_loss(case)
    assert out.optimum is not None and out.optimum.anonymous
    assert out.optimum.loss <= expected * (1 + 1e-9), (out.optimum.levels, out.checked)
    again = problem.evaluate(out.optimum.levels)
    assert again.anonymous and again.loss == out.optimum.loss


#: ARX's heuristic case where a 1,000-check limit used to leave Lightning at 0.2117 (issue 19)
CUP_BOTTOM_UP = "TestAnonymizationHeuristic#6"


@pytest.mark.slow
@pytest.mark.parametrize("suppression_limit", [None, 1.0])
def test_lightning_reaches_arx_within_arx_step_limit(suppression_limit):
    """cup, 5-anonymity, Loss (geometric mean), bottom-up, ARX's own step limit of
    1,000 checks: Lightning reaches ARX's loss (0.2078). With the case's 4 %
    suppression limit that is the oracle's loss; issue 19 measured ARX at the same
    loss with a 100 % limit. Equal losses computed along different summation orders
    used to steer the search (0.2117 with either limit)."""
    case = next(c for c in oracle.cases() if c["id"] == CUP_BOTTOM_UP)
    if suppression_limit is not None:
        case = dict(case, suppression_limit=suppression_limit)
    steps = case["algorithm_params"]["heuristicSearchStepLimit"]
    assert steps == 1000 and case["arx_here"]["transformations_checked"] == steps
    problem = Problem(oracle.table(case["dataset"]), oracle.job_for(case))
    set_transformation(problem, step_limit=steps, time_limit_s=None, seed=0)
    out = HEURISTICS["lightning"](problem)
    expected = oracle.expected_loss(case)
    assert out.checked <= steps
    assert out.optimum is not None and out.optimum.anonymous
    assert out.optimum.loss <= expected * (1 + 1e-9), (out.optimum.levels, out.checked)
    again = problem.evaluate(out.optimum.levels)
    assert again.anonymous and again.loss == out.optimum.loss
