"""ARX's oracle for every privacy model besides plain k-anonymity.

OPTIMAL cases must reach ARX's optimum (same levels or a tie with the same
loss; loss within 1e-9 relative; "no solution" where ARX finds none), and
each optimum's released table is re-verified per model by the independent
recount of ``engine.verifier.checks``. Metric values must match ARX's
value (and anonymity) for given transformations.
"""
from __future__ import annotations


import pytest

from engine.output import transform
from engine.verifier.checks import OUTPUT_CHECKS
from engine.problem import Problem
from tests import oracle
from tests.oracle import close

#: model types whose engine side is not (yet) able to reproduce ARX, with the reason
NOT_REPRODUCED = {
    "(epsilon,delta)-differential-privacy (SafePub)":
        "randomized (SafePub); checked against ARX's loss in test_privacy_differential",
}

#: individual cases whose ARX result depends on an undocumented detail, with the reason
KNOWN_DEVIATIONS = {
    # ARX sums n*G(n) over its distribution hash table's buckets and condemns a class
    # as soon as the running sum exceeds N*(G(N) - ln l); G(1) < 0, so a class can fail
    # on a prefix although the full sum passes. The bucket order depends on how ARX
    # built the class (from rows, a previous groupify or a history snapshot), i.e. on
    # its search path. At ARX's levels: full sum 178621.14 (751 suppressed), values in
    # code order 180711.59, hash order from rows 180456.49, from a snapshot of
    # (0,0,0,1,2,2,2,0) 180347.83, other snapshot paths 180251-180456; ARX: 180347.43.
    # Our optimum (0,0,1,0,3,2,1,0), 178074.70 with 1478 suppressed, suppresses 1645
    # (> 1508 allowed) with the early abort in hash order from rows.
    "TestAnonymizationEntropyLDiversity#3": "ARX's Grassberger check aborts on a partial "
                                             "sum in hash-bucket order (G(1) < 0), which "
                                             "depends on its search history",
}

#: known deviations too slow to run every time
NOT_RUN: set[str] = set()

#: cases that take more than 20 s here (CUP data with thousands of checks): never in the
#: default run's sample (``oracle.params``; all run under ``-m slow``)
SLOW = {
    "TestAnonymizationTCloseness#19", "TestAnonymizationCombinations#119",
    "TestAnonymizationCombinations#57", "TestAnonymizationCombinations#82",
    "TestAnonymizationCombinations#81", "TestAnonymizationCombinations#104",
    "TestAnonymizationCombinations#105", "TestAnonymizationCombinations#56",
    "TestAnonymizationCombinations#120", "TestAnonymizationCombinations#83",
    "TestAnonymizationCombinations#80", "TestAnonymizationCombinations#84",
    "TestAnonymizationCombinations#55", "TestAnonymizationEntropyLDiversity#7",
    "TestAnonymizationLDiversity#19", "TestAnonymizationDPresence#16",
    "TestAnonymizationDPresence#22", "TestAnonymizationDPresence#17",
    "TestAnonymizationDPresence#15", "TestAnonymizationDPresence#21",
    "TestAnonymizationRiskBased#2", "TestAnonymizationRiskBased#3",
    "TestAnonymizationProfitability#21", "TestAnonymizationProfitability#23",
    "TestAnonymizationProfitability#27",
}

#: metric values where the metric, not a model, differs from ARX
METRIC_DEVIATIONS: set[str] = set()


def _k_only(case: dict) -> bool:
    return all(m["type"] == "k-anonymity" for m in case["privacy_models"])


def _deviation(item) -> list:
    if item["id"] in KNOWN_DEVIATIONS:
        return [pytest.mark.xfail(reason=KNOWN_DEVIATIONS[item["id"]], strict=False,
                                  run=item["id"] not in NOT_RUN)]
    return []


CASES = [c for c in oracle.cases()
         if c["algorithm"] == "OPTIMAL" and not _k_only(c) and "LocalRecoding" not in c["id"]
         and not any(m["type"] in NOT_REPRODUCED for m in c["privacy_models"])]
VALUES = [v for v in oracle.metric_values() if not _k_only(v)]


def verify_output(problem: Problem, levels) -> list[str]:
    out = transform(problem, levels)
    if out.subset_release:  # the subset's records only: the verifier counts the input
        from engine.verify import verify_frame
        report = verify_frame(out.frame, problem.job, problem.model_context.subset,
                              input_frame=problem.table.to_dataframe())
        return report.violations
    from engine.privacy.population import population_size
    problems = []
    size = population_size(problem.job.population)
    for model in problem.models:
        problems += OUTPUT_CHECKS[model.name](model, out.frame, problem.qis,
                                              problem.model_context.subset, size)
    return problems


@pytest.mark.parametrize("case", oracle.params(CASES, marks=_deviation, never=SLOW))
def test_optimal_case(case):
    problem, got = oracle.search_reaches_arx(case)
    if got is not None:
        assert verify_output(problem, got.levels) == []


@pytest.mark.parametrize("value", oracle.params(VALUES))
def test_metric_value(value):
    if value["id"] in METRIC_DEVIATIONS:
        pytest.xfail("the metric floors precision at 1e-10 where ARX reports 0")
    problem = Problem(oracle.table(value["dataset"]), oracle.job_for(value))
    ev = problem.evaluate([value["levels"][q] for q in problem.qis])
    if value["arx_node_anonymity"] in ("ANONYMOUS", "NOT_ANONYMOUS"):
        assert ev.anonymous == (value["arx_node_anonymity"] == "ANONYMOUS")
    assert close(ev.loss, oracle.expected_loss(value))


def test_every_model_type_is_mapped():
    types = {m["type"] for c in oracle.cases() for m in c["privacy_models"]}
    for t in types:
        m = next(m for c in oracle.cases() for m in c["privacy_models"] if m["type"] == t)
        assert oracle.privacy_dict(m)["model"]
