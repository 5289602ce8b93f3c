"""The classification metric (ARX's "Classification accuracy") on a hand-computed table."""
from __future__ import annotations

import pandas as pd
import pytest

from engine.config import (AttributeConfig, INSENSITIVE, Job, QUASI_IDENTIFYING,
                           TransformationConfig)
from engine.data.table import EncodedTable
from engine.errors import JobError
from engine.hierarchy.model import Hierarchy
from engine.metrics import metric_from_dict
from engine.privacy import model_from_dict
from engine.problem import Problem

ROWS = [  # age, zip, buy
    ("20", "111", "yes"),
    ("21", "111", "yes"),
    ("20", "111", "no"),
    ("30", "112", "yes"),
    ("31", "112", "no"),
    ("30", "112", "no"),
    ("31", "111", "yes"),
    ("31", "111", "no"),
]
AGE = Hierarchy.from_rows([(a, "20-29" if a.startswith("2") else "30-39", "*")
                           for a in ("20", "21", "30", "31")], "age")
ZIP = Hierarchy.from_rows([("111", "11*"), ("112", "11*")], "zip")


def problem(response, gs: float = 0.5, k: int = 2) -> Problem:
    table = EncodedTable.from_dataframe(pd.DataFrame(ROWS, columns=["age", "zip", "buy"]))
    job = Job(attributes={"age": AttributeConfig(QUASI_IDENTIFYING, AGE),
                          "zip": AttributeConfig(QUASI_IDENTIFYING, ZIP),
                          "buy": AttributeConfig(INSENSITIVE)},
              privacy=[model_from_dict({"model": "k-anonymity", "k": k})],
              transformation=TransformationConfig(suppression_limit=1.0),
              metric=metric_from_dict({"name": "classification", "gs_factor": gs,
                                       "response": response}))
    return Problem(table, job)


# Levels (age 1, zip 0): classes 20-29/111 = yes, yes, no (majority yes: 1 penalized),
# 30-39/112 = yes, no, no (1 penalized), 30-39/111 = yes, no (a tie: both penalized).
# Levels (0, 0) with k = 2: 21/111 and 31/112 are suppressed; the three other
# classes are ties. Penalties: suppressed gs, non-majority g, no majority s; the
# sum is divided by max(gs, g, s) * N = 8.
@pytest.mark.parametrize("gs, levels, expected", [
    (0.5, (1, 0), (1 + 1 + 2) / 8),             # g = s = 1
    (0.5, (0, 0), (2 * 0.5 + 6 * 1) / 8),       # 2 suppressed, 6 in ties
    (0.2, (1, 0), (1 + 1 + 2 * 0.4) / 8),       # g = 1, s = 0.4
    (0.2, (0, 0), (2 * 0.2 + 6 * 0.4) / 8),
    (0.8, (1, 0), (0.4 + 0.4 + 2 * 1) / 8),     # g = 0.4, s = 1, max = 1
    # (1, 1): 20-29/11* = yes, yes, no (1 penalized); 30-39/11* = yes, no, no, yes,
    # no (majority no: 2 penalized)
    (0.5, (1, 1), (1 + 2) / 8),
])
def test_non_qi_response(gs, levels, expected):
    p = problem("buy", gs)
    assert p.evaluate(levels).loss == pytest.approx(expected, rel=1e-12)


def test_qi_response_pools_classes_over_the_other_quasi_identifiers():
    p = problem("zip")
    # (1, 0): age 20-29 has zip 111 three times (no penalty); 30-39 has 112 three
    # times and 111 twice (2 penalized)
    assert p.evaluate((1, 0)).loss == pytest.approx(2 / 8)
    # zip generalized to its single top value: every record costs the maximum
    assert p.evaluate((1, 1)).loss == pytest.approx(1.0)
    # several responses add up
    both = problem(["buy", "zip"])
    assert both.evaluate((1, 0)).loss == pytest.approx((4 + 2) / 8)


def test_safepub_score_counts_majority_records_over_k():
    p = problem("buy")
    classes = p.classifier.classify((1, 0))
    sup = p.violating(classes)
    # majorities 2 + 2 + 1 (a tie still counts its top frequency), over k = 2
    assert p.metric.safepub_score(classes, sup, classes.counts, 2) == pytest.approx(2.5)
    both = problem(["buy", "zip"])
    classes = both.classifier.classify((1, 0))
    # zip: 3 + 3 at level 0 (scale 1); over k * 2 responses
    assert both.metric.safepub_score(classes, both.violating(classes), classes.counts,
                                     2) == pytest.approx((5 + 6) / 4)


def test_response_must_be_given_and_exist():
    with pytest.raises(JobError, match="response"):
        metric_from_dict({"name": "classification"})
    with pytest.raises(JobError, match="'income'"):
        problem("income")


def test_round_trip():
    m = metric_from_dict({"name": "classification", "response": "buy", "gs_factor": 0.3})
    assert metric_from_dict(m.to_dict()).to_dict() == m.to_dict()
    assert m.to_dict()["response"] == "buy"
    two = metric_from_dict({"name": "classification", "response": ["buy", "zip"]})
    assert two.to_dict()["response"] == ["buy", "zip"]
    assert not two.is_monotonic(0.0)
