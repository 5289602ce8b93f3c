"""What Properties shows of one transformation, computed from the engine (no Qt).

Runs in Explore's worker thread: classifying a transformation takes from a
millisecond to a second. The classes are those of the transformation's
released table (`engine.output.transform`, what Export writes and Analyze
shows), which touches no cache the search or other perspectives share.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.metrics import Loss
from engine.output import transform
from engine.result import relative_percent


@dataclass(frozen=True)
class ModelState:
    """One privacy model's verdict on a transformation."""

    name: str
    fulfilled: bool
    violating_records: int  # records in classes that violate this model


@dataclass(frozen=True)
class NodeDetails:
    """A checked transformation: state per model, loss, suppression, class sizes."""

    levels: tuple[int, ...]
    anonymous: bool
    loss: Loss
    percent: float
    suppressed_records: int
    classes: int  # equivalence classes released (not suppressed)
    smallest_class: int
    largest_class: int
    suppressed_classes: int
    models: tuple[ModelState, ...]


def inspect_transformation(result, levels) -> NodeDetails:
    """Check ``levels`` on ``result``'s problem and describe it."""
    problem = result.problem
    released = transform(problem, levels)
    levels = released.levels
    classes, violating = released.classes, released.violating
    ev = problem.evaluate_classes(classes)
    counts = problem.record_counts(classes)
    stats = released.class_statistics()
    models = []
    for m in problem.models:
        v = m.violating(classes)
        n_v = int(counts[v].sum()) if v is not None else 0
        ok = n_v <= problem.max_suppressed and bool(m.table_ok(classes, violating))
        models.append(ModelState(m.describe(), ok, n_v))
    low, high = result.loss_bounds
    return NodeDetails(levels, bool(ev.anonymous), ev.loss, relative_percent(ev.loss, low, high),
                       int(ev.suppressed_records), stats["classes"],
                       stats["min_class_size"], stats["max_class_size"],
                       int(np.count_nonzero(violating & (counts > 0))), tuple(models))
