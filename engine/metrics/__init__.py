"""Utility metrics with ARX's definitions; ``metric_from_dict`` reads a job's [metric]."""
from __future__ import annotations

from engine.schema import ParamError, closest, show
from engine.metrics.base import AGGREGATES, Loss, Metric, MetricContext, as_float
from engine.metrics.class_based import AverageClassSize, Ambiguity, Discernibility, KLDivergence
from engine.metrics.classification import ClassificationMetric
from engine.metrics.entropy import NonUniformEntropy, NormalizedEntropy
from engine.metrics.game_theoretic import EntropyBasedLoss, PublisherPayout
from engine.metrics.loss import LossMetric
from engine.metrics.precision import HeightMetric, PrecisionMetric

METRICS: dict[str, type[Metric]] = {m.name: m for m in (
    LossMetric, HeightMetric, PrecisionMetric, NonUniformEntropy, NormalizedEntropy,
    Discernibility, AverageClassSize, Ambiguity, KLDivergence, EntropyBasedLoss,
    PublisherPayout, ClassificationMetric)}


def metric_from_dict(d: dict) -> Metric:
    """The metric of a ``[metric]`` table, read strictly from its declared parameters."""
    if not isinstance(d, dict):
        raise ParamError(f"[metric] must be a table, got {show(d)}")
    name = d.get("name", "loss")
    cls = METRICS.get(name) if isinstance(name, str) else None
    if cls is None:
        near = closest(str(name), METRICS)
        hint = f" (did you mean '{near}'?)" if near else ""
        raise ParamError(f"[metric] name = {show(name)} is not known{hint}; one of "
                         f"{', '.join(METRICS)}")
    return cls.from_dict(d)


__all__ = ["AGGREGATES", "Loss", "Metric", "MetricContext", "METRICS", "metric_from_dict",
           "as_float"]
