"""Classification accuracy of input and output: does the released data still predict?

The same scikit-learn model is trained on the input's and on the output's features
with the same k folds; out-of-fold predictions give accuracy, AUC, Brier score and
ROC curves for both. Choices, documented because they change the numbers:

* every feature is categorical (a generalized value is a category like any other,
  so input and output are encoded alike): one-hot columns for logistic regression
  and random forest, category codes for naive Bayes (``CategoricalNB``);
* the target is always taken from the **input** (the study predicts true outcomes),
  unless ``target_from_output``; suppressed records stay in, their features being
  ``*``;
* with more than ``max_records`` records, the same random sample of records is used
  for input and output;
* AUC is one-vs-rest, macro-averaged over classes; Brier score is
  ``mean (p - y)^2`` of the positive class for two classes and
  ``mean sum_c (p_c - y_c)^2`` for more (scikit-learn's definitions); classes are
  sorted as text, the positive one of two is the second (``"yes"`` over ``"no"``);
* relative accuracy is ``(output - baseline) / (input - baseline)`` with baseline
  the majority-class accuracy (ARX's "ZeroR"), 1 when input equals the baseline.

scikit-learn is imported only when a model is trained.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.analysis.statistics import Data, column_of, n_rows
from engine.errors import Cancelled
from engine.progress import CancelCheck, ProgressCallback, Reporter

MODELS = ("logistic-regression", "naive-bayes", "random-forest")


@dataclass(frozen=True)
class ClassifierPerformance:
    """Out-of-fold performance of one model on one table."""

    accuracy: float
    auc: float
    brier: float
    classes: tuple[str, ...]
    roc: dict[str, tuple[np.ndarray, np.ndarray]]  # class -> (false pos. rate, true pos. rate)


@dataclass(frozen=True)
class ClassificationComparison:
    """The same model on input and output."""

    model: str
    folds: int
    records: int
    baseline_accuracy: float
    input: ClassifierPerformance
    output: ClassifierPerformance

    @property
    def relative_accuracy(self) -> float:
        gain = self.input.accuracy - self.baseline_accuracy
        if gain <= 0:
            return 1.0
        return (self.output.accuracy - self.baseline_accuracy) / gain


def _model(name: str, seed: int, n_categories: list[int]):
    if name == "logistic-regression":
        from sklearn.linear_model import LogisticRegression
        return LogisticRegression(max_iter=1000)
    if name == "naive-bayes":
        from sklearn.naive_bayes import CategoricalNB
        return CategoricalNB(min_categories=np.maximum(n_categories, 1))
    if name == "random-forest":
        from sklearn.ensemble import RandomForestClassifier
        return RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=1)
    raise ValueError(f"unknown model '{name}' (one of {', '.join(MODELS)})")


def _features(data: Data, features: Sequence[str], rows: np.ndarray, one_hot: bool):
    codes = np.stack([column_of(data, f).codes[rows] for f in features], axis=1)
    # renumber per feature so codes are 0..k-1 over the rows used
    dense = np.empty_like(codes)
    sizes = []
    for j in range(codes.shape[1]):
        uniq, dense[:, j] = np.unique(codes[:, j], return_inverse=True)
        sizes.append(len(uniq))
    if not one_hot:
        return dense, sizes
    from scipy import sparse
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    cols = (dense + offsets).ravel()
    r = np.repeat(np.arange(len(rows)), codes.shape[1])
    x = sparse.csr_matrix((np.ones(len(cols)), (r, cols)), shape=(len(rows), sum(sizes)))
    return x, sizes


def _folds(y: np.ndarray, folds: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    from sklearn.model_selection import KFold, StratifiedKFold
    smallest = np.bincount(y).min()
    splitter = StratifiedKFold(folds, shuffle=True, random_state=seed) if smallest >= folds \
        else KFold(folds, shuffle=True, random_state=seed)
    return list(splitter.split(np.zeros(len(y)), y))


def _scores(y: np.ndarray, proba: np.ndarray, labels: np.ndarray) -> ClassifierPerformance:
    from sklearn.metrics import roc_auc_score, roc_curve
    k = len(labels)
    onehot = np.eye(k)[y]
    accuracy = float((proba.argmax(axis=1) == y).mean())
    if k == 2:
        brier = float(((proba[:, 1] - onehot[:, 1]) ** 2).mean())
        auc = float(roc_auc_score(y, proba[:, 1]))
    else:
        brier = float(((proba - onehot) ** 2).sum(axis=1).mean())
        present = [c for c in range(k) if 0 < onehot[:, c].sum() < len(y)]
        auc = float(np.mean([roc_auc_score(onehot[:, c], proba[:, c]) for c in present])) \
            if present else float("nan")
    roc = {}
    for c in ([1] if k == 2 else range(k)):
        if 0 < onehot[:, c].sum() < len(y):
            fpr, tpr, _ = roc_curve(onehot[:, c], proba[:, c])
            roc[str(labels[c])] = (fpr, tpr)
    return ClassifierPerformance(accuracy, auc, brier, tuple(str(v) for v in labels), roc)


def _cross_validate(x, sizes, y, k, splits, model, seed, step, reporter) -> np.ndarray:
    proba = np.zeros((len(y), k))
    for train, test in splits:
        if reporter.cancelled():
            raise Cancelled("classification cancelled")
        clf = _model(model, seed, sizes)
        clf.fit(x[train], y[train])
        proba[np.ix_(test, clf.classes_)] = clf.predict_proba(x[test])
        step[0] += 1
        reporter.report(step[0], None, None, phase="classification")
    return proba


def compare_classification(input: Data, output: Data, features: Sequence[str], target: str,
                           model: str = "logistic-regression", folds: int = 10,
                           max_records: int | None = 100_000, seed: int = 0,
                           target_from_output: bool = False,
                           progress: ProgressCallback | None = None,
                           cancel: CancelCheck | None = None) -> ClassificationComparison:
    """Train ``model`` on input and output features with k-fold cross-validation.

    Parameters
    ----------
    input, output
        The original and the released table, same records in the same order.
    features, target
        Feature attributes and the attribute to predict (not among the features).
    model
        One of `MODELS`.
    folds
        Number of cross-validation folds (the same folds for both tables).
    max_records
        Records to use at most (a seeded random sample); None for all.
    seed
        Seed of the sample, the folds and the random forest.
    target_from_output
        Take the target from the output instead of the input.
    progress, cancel
        `engine.progress.Progress` reports (phase ``"classification"``) after
        each fold; ``cancel()`` returning True raises `engine.errors.Cancelled`.
    """
    if model not in MODELS:
        raise ValueError(f"unknown model '{model}' (one of {', '.join(MODELS)})")
    features = [f for f in features if f != target]
    if not features:
        raise ValueError("choose at least one feature besides the target")
    n = n_rows(input)
    if n != n_rows(output):
        raise ValueError(f"input has {n} rows but output {n_rows(output)}")
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(n, max_records, replace=False)) \
        if max_records is not None and n > max_records else np.arange(n)
    tcol = column_of(output if target_from_output else input, target)
    labels, y = np.unique(tcol.dictionary.astype(str)[tcol.codes[rows]], return_inverse=True)
    if len(labels) < 2:
        raise ValueError(f"the target '{target}' has a single value: nothing to predict")
    folds = max(2, min(folds, len(rows)))
    splits = _folds(y, folds, seed)
    reporter = Reporter(progress, 2 * folds, cancel)
    one_hot = model != "naive-bayes"
    step = [0]
    perf = []
    for data in (input, output):
        x, sizes = _features(data, features, rows, one_hot)
        proba = _cross_validate(x, sizes, y, len(labels), splits, model, seed, step, reporter)
        perf.append(_scores(y, proba, labels))
    baseline = float(np.bincount(y).max() / len(y))
    reporter.report(2 * folds, None, None, force=True, phase="classification")
    return ClassificationComparison(model, folds, len(rows), baseline, perf[0], perf[1])
