"""ARX's oracle: every k-anonymity-only OPTIMAL case and k-anonymity metric value.

Expected values are read from ../shared/oracle; outputs are re-verified by a
plain pandas recount that shares no code with the engine's classifier.
"""
from __future__ import annotations

import math

import pandas as pd
import pytest

from engine.problem import Problem
from engine.search.optimal import optimal_search
from engine.output import transform
from tests import oracle
from tests.oracle import close


def _k_only(case: dict) -> bool:
    return all(m["type"] == "k-anonymity" for m in case["privacy_models"])


CASES = [c for c in oracle.cases() if c["algorithm"] == "OPTIMAL" and _k_only(c)
         and "LocalRecoding" not in c["id"]]
VALUES = [v for v in oracle.metric_values() if _k_only(v)]


def recount(frame: pd.DataFrame, qis: list[str]) -> tuple[pd.Series, int]:
    """Class sizes of unsuppressed rows and the number of suppressed rows (all QIs '*')."""
    suppressed = (frame[qis] == "*").all(axis=1)
    return frame[~suppressed].groupby(qis).size(), int(suppressed.sum())


@pytest.mark.parametrize("case", oracle.params(CASES))
def test_optimal_case(case):
    problem, got = oracle.search_reaches_arx(case)
    if got is None:
        return
    levels = dict(zip(problem.qis, got.levels))
    # independent re-verification of the released table
    out = transform(problem, got.levels).frame
    sizes, n_suppressed = recount(out, problem.qis)
    k = max(m["k"] for m in case["privacy_models"])
    top_is_star = all(levels[q] == problem.lattice.max_levels[j] for j, q in enumerate(problem.qis))
    if not top_is_star:
        assert sizes.min() >= k
    assert n_suppressed <= math.floor(case["suppression_limit"] * len(out) + 1e-9)
    assert n_suppressed == got.suppressed_records


@pytest.mark.parametrize("value", oracle.params(VALUES))
def test_metric_value(value):
    problem = Problem(oracle.table(value["dataset"]), oracle.job_for(value))
    ev = problem.evaluate([value["levels"][q] for q in problem.qis])
    assert ev.anonymous == (value["arx_node_anonymity"] == "ANONYMOUS")
    assert close(ev.loss, oracle.expected_loss(value))


SCALAR = [c for c in CASES if not isinstance(oracle.expected_loss(c), tuple)
          and c["arx_here"].get("gui_relative_loss") is not None]


@pytest.mark.parametrize("case", oracle.params(SCALAR))
def test_relative_loss_matches_arx_gui(case):
    from engine.result import AnonymizationResult
    problem = Problem(oracle.table(case["dataset"]), oracle.job_for(case))
    result = AnonymizationResult(problem, optimal_search(problem), 0.0)
    assert math.isclose(result.optimum.information_loss_percent / 100,
                        case["arx_here"]["gui_relative_loss"], rel_tol=1e-9, abs_tol=1e-12)
