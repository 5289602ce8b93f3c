"""Utility metrics with ARX's definitions; ``metric_from_dict`` reads a job's [metric]."""
from __future__ import annotations

from engine.errors import JobError
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


def register_metric(cls: type[Metric]) -> type[Metric]:
    """Add a metric class to the job-file registry (used by later metric modules)."""
    METRICS[cls.name] = cls
    return cls


def metric_from_dict(d: dict, weights: dict[str, float] | None = None) -> Metric:
    name = d.get("name", "loss")
    cls = METRICS.get(name)
    if cls is None:
        raise JobError(f"[metric] name = '{name}' is not known (one of {', '.join(METRICS)})")
    extra = {k: v for k, v in d.items() if k not in ("name", "monotonic", "gs_factor", "aggregate")}
    try:
        return cls(monotonic=bool(d.get("monotonic", False)),
                   gs_factor=float(d.get("gs_factor", 0.5)),
                   aggregate=d.get("aggregate"), weights=weights, **extra)
    except (TypeError, ValueError) as e:
        raise JobError(f"[metric] {name}: {e}") from None


__all__ = ["AGGREGATES", "Loss", "Metric", "MetricContext", "METRICS", "metric_from_dict",
           "register_metric", "as_float"]
