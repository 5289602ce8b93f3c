"""The independent output checks find violations in hand-made released tables."""
from __future__ import annotations

import pandas as pd

from engine.privacy import model_from_dict
from engine.verifier.checks import OUTPUT_CHECKS
from engine.privacy import MODELS

QIS = ["age", "zip"]
FRAME = pd.DataFrame({
    "age": ["20-29", "20-29", "20-29", "20-29", "30-39", "30-39", "30-39", "*"],
    "zip": ["11*", "11*", "11*", "11*", "11*", "11*", "11*", "*"],
    "disease": ["flu", "flu", "cold", "cancer", "flu", "flu", "flu", "cold"],
})


def check(d, frame=FRAME, subset=None):
    model = model_from_dict(d)
    return OUTPUT_CHECKS[model.name](model, frame, QIS, subset)


def test_every_model_has_a_check():
    assert set(MODELS) - {"differential-privacy"} <= set(OUTPUT_CHECKS)


def test_sensitive_checks():
    # class 30-39 holds flu only (3 records); suppressed row is left out
    assert check({"model": "distinct-l-diversity", "attribute": "disease", "l": 2})
    assert not check({"model": "distinct-l-diversity", "attribute": "disease", "l": 1})
    assert check({"model": "recursive-cl-diversity", "attribute": "disease", "c": 3, "l": 2})
    assert check({"model": "entropy-l-diversity", "attribute": "disease", "l": 1.5})
    # overall flu 5/8: class 30-39 (q = 1) is 3/8 away (equal distance)
    assert check({"model": "t-closeness", "attribute": "disease", "t": 0.3})
    assert not check({"model": "t-closeness", "attribute": "disease", "t": 0.4})
    # cancer: 1/4 in 20-29 against 1/8 overall, a relative gain of 1
    assert check({"model": "beta-likeness", "attribute": "disease", "beta": 0.9})
    assert not check({"model": "beta-likeness", "attribute": "disease", "beta": 1.0})
    assert check({"model": "delta-disclosure", "attribute": "disease", "delta": 0.4})


def test_class_size_and_risk_checks():
    assert check({"model": "k-anonymity", "k": 4})
    assert not check({"model": "k-anonymity", "k": 3})
    assert not check({"model": "sample-uniqueness", "threshold": 0.0})
    # 2 classes / 7 released records
    assert check({"model": "average-risk", "threshold": 0.25})
    assert not check({"model": "average-risk", "threshold": 0.3})


def test_subset_checks():
    subset = pd.Series([True, True, False, False, True, False, False, False])
    # 20-29: 2 of 4 in the subset, 30-39: 1 of 3
    assert not check({"model": "delta-presence", "delta_min": 0.3, "delta_max": 0.5},
                     subset=subset)
    assert check({"model": "delta-presence", "delta_min": 0.4, "delta_max": 0.5},
                 subset=subset)
    assert check({"model": "delta-presence", "delta_min": 0.0, "delta_max": 0.5})
    assert not check({"model": "k-map", "k": 3}, subset=subset)
    assert check({"model": "k-map", "k": 4}, subset=subset)
