"""Classification accuracy of input and output on a small synthetic dataset."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn", reason="scikit-learn is not installed (pip install scikit-learn)")

from engine.analysis.classification import MODELS, compare_classification  # noqa: E402
from engine.data.table import EncodedTable  # noqa: E402
from engine.errors import Cancelled  # noqa: E402


def _data(n: int = 400, seed: int = 0):
    """The target follows ``a > 4`` (10% noise); ``b`` is noise. The output hides ``a``."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 10, n)
    b = rng.integers(0, 3, n)
    y = (a > 4) ^ (rng.random(n) < 0.1)
    inp = pd.DataFrame({"a": a.astype(str), "b": b.astype(str),
                        "y": np.where(y, "yes", "no")})
    out = inp.assign(a="*")
    return inp, out


@pytest.mark.parametrize("model", MODELS)
def test_input_predicts_output_does_not(model):
    inp, out = _data()
    r = compare_classification(inp, out, ["a", "b"], "y", model=model, folds=5)
    truth = (inp.a.astype(int) > 4).map({True: "yes", False: "no"}) == inp.y
    assert r.input.accuracy == pytest.approx(truth.mean(), abs=0.05)
    assert r.input.auc > 0.85 and r.output.auc < 0.65
    assert r.baseline_accuracy == pytest.approx(inp.y.value_counts(normalize=True).max())
    assert r.output.accuracy <= r.baseline_accuracy + 0.03
    assert r.relative_accuracy == pytest.approx(
        (r.output.accuracy - r.baseline_accuracy) / (r.input.accuracy - r.baseline_accuracy))
    assert 0 <= r.input.brier < r.output.brier <= 1
    fpr, tpr = r.input.roc["yes"]
    assert fpr[0] == 0 and tpr[-1] == 1 and np.all(np.diff(fpr) >= 0)
    assert r.records == 400 and r.folds == 5


def test_identical_tables_score_alike_and_encoded_tables_work():
    inp, _ = _data(200, seed=1)
    t = EncodedTable.from_dataframe(inp)
    r = compare_classification(t, t, ["a", "b"], "y", model="naive-bayes", folds=4)
    for field in ("accuracy", "auc", "brier", "classes"):
        assert getattr(r.input, field) == getattr(r.output, field)
    assert r.relative_accuracy == pytest.approx(1.0)


def test_multiclass_metrics():
    inp, _ = _data(300, seed=2)
    inp["z"] = np.array(["p", "q", "r"])[inp.a.astype(int) % 3]
    r = compare_classification(inp, inp, ["a"], "z", model="logistic-regression", folds=3)
    assert r.input.accuracy == 1.0 and r.input.auc == pytest.approx(1.0)
    assert set(r.input.roc) == {"p", "q", "r"} and r.input.brier < 0.2


def test_sampling_progress_and_cancel():
    inp, out = _data(500)
    reports = []
    r = compare_classification(inp, out, ["a", "b"], "y", model="naive-bayes", folds=3,
                               max_records=120, progress=reports.append)
    assert r.records == 120
    assert reports[-1].checked == reports[-1].total == 6
    with pytest.raises(Cancelled):
        compare_classification(inp, out, ["a"], "y", cancel=lambda: True)


def test_bad_requests():
    inp, out = _data(50)
    with pytest.raises(ValueError, match="unknown model"):
        compare_classification(inp, out, ["a"], "y", model="svm")
    with pytest.raises(ValueError, match="feature"):
        compare_classification(inp, out, ["y"], "y")
    with pytest.raises(ValueError, match="single value"):
        compare_classification(inp.assign(y="no"), out, ["a"], "y")
