"""Utility metrics: the common machinery (factors, weights, aggregation, lower bounds)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar, Union

import numpy as np

from engine.classes import Classes
from engine.hierarchy.encoded import EncodedHierarchy
from engine.schema import Declared, Param, read_table, write_table

#: A loss is a number, or for the rank aggregate a tuple compared lexicographically.
Loss = Union[float, tuple]

AGGREGATES = ("sum", "arithmetic-mean", "geometric-mean", "max", "rank")
FLOOR = 1e-10

#: the options every metric has (``[metric]`` table)
MONOTONIC = Param("monotonic", "bool", False, label="Monotonic variant",
                  help="the variant that ignores suppression, so that the optimal search "
                       "may prune with it")
GS_FACTOR = Param("gs_factor", "float", 0.5, low=0, high=1, label="gs-factor",
                  help="0: prefer suppressing records; 1: prefer generalizing values "
                       "(ARX's gs-factor)")
AGGREGATE = Param("aggregate", "choice", "sum", choices=AGGREGATES, label="Aggregate function",
                  help="how the attributes' values combine into one loss")


@dataclass
class MetricContext:
    """What a metric needs to know about the data, computed once per job."""

    n_records: int
    hierarchies: list[EncodedHierarchy]
    value_counts: list[np.ndarray]
    weights: np.ndarray
    suppression_limit: float = 0.0
    base_counts: np.ndarray | None = None
    #: microaggregated attributes the metric measures besides the hierarchies, as
    #: (classifier aggregate key, number of distinct values); weights cover them last
    microaggregated: list = field(default_factory=list)

    @property
    def dims(self) -> int:
        return len(self.hierarchies)


def factors(gs_factor: float) -> tuple[float, float]:
    """ARX's generalization/suppression weights (g, s) from the gs factor."""
    s = 2.0 * gs_factor if gs_factor < 0.5 else 1.0
    g = 1.0 if gs_factor <= 0.5 else 1.0 - 2.0 * (gs_factor - 0.5)
    return g, s


def normalized_weights(names: list[str], weights: dict[str, float] | None) -> np.ndarray:
    """Attribute weights divided by the largest (all 1 when none are given)."""
    if not weights:
        return np.ones(len(names))
    w = np.array([float(weights.get(n, 1.0)) for n in names])
    top = w.max() if len(w) else 1.0
    return w / top if top > 0 else np.ones(len(names))


class Metric(Declared):
    """Base class. Subclasses define per-attribute values (``per_attribute``) or
    override ``evaluate`` for single-dimensional metrics.

    ``lower_bounds`` gives, for many level vectors at once, a bound that never
    exceeds the loss of any transformation and never decreases under
    generalization; the optimal search orders and prunes with it.
    """

    name: ClassVar[str] = ""
    default_aggregate: ClassVar[str] = "sum"
    has_monotonic_variant: ClassVar[bool] = True
    #: whether ``safepub_score`` is defined (data-dependent differential privacy)
    has_safepub_score: ClassVar[bool] = False
    #: measures microaggregated attributes (ARX's ``isAbleToHandleMicroaggregation``)
    handles_microaggregation: ClassVar[bool] = False
    #: floor per-attribute values at 1e-10 before aggregation (ARX's oracle values
    #: show no floor for any metric here, e.g. 0 at the bottom: off by default)
    floored: ClassVar[bool] = False

    table: ClassVar[str] = "[metric]"
    #: parameters of this metric besides monotonic, gs_factor and aggregate
    extra_params: ClassVar[tuple[Param, ...]] = ()

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls.params = (MONOTONIC, GS_FACTOR, replace(AGGREGATE, default=cls.default_aggregate),
                      *cls.extra_params)

    @classmethod
    def where(cls) -> str:
        return f"[metric] ({cls.name})"

    def setup(self) -> None:
        if not self.has_monotonic_variant:
            self.monotonic = False
        self.g, self.s = factors(self.gs_factor)
        self.ctx: MetricContext | None = None

    @classmethod
    def from_dict(cls, d: dict) -> "Metric":
        """The metric of a ``[metric]`` table, read strictly. (Attribute weights are the
        attributes' ``weight``; ``Problem`` hands them to the metric with its data.)"""
        return cls(**read_table(d, cls.params, cls.where(), ignore=("name",)))

    # --- configuration ------------------------------------------------------
    def bind(self, ctx: MetricContext) -> None:
        self.ctx = ctx
        self.prepare()

    def prepare(self) -> None:
        """Precompute tables from ``self.ctx``."""

    def attach(self, table, qis: list[str], rows: np.ndarray | None) -> dict:
        """Check the metric's own parameters against the data and return the
        per-record vectors it needs summed per class (like a privacy model's
        ``row_aggregates``). ``rows`` masks the released records (research subset
        or differential privacy's sample), None for all."""
        return {}

    def is_monotonic(self, suppression_limit: float) -> bool:
        """Whether loss never decreases under generalization (for anonymous transformations)."""
        return self.monotonic or suppression_limit == 0.0

    def to_dict(self) -> dict:
        return {"name": self.name, **write_table(self.values, self.params)}

    # --- evaluation ---------------------------------------------------------
    def per_attribute(self, classes: Classes, suppressed: np.ndarray,
                      counts: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def evaluate(self, classes: Classes, suppressed: np.ndarray,
                 counts: np.ndarray | None = None) -> Loss:
        """Loss of a transformation whose classes flagged in ``suppressed`` are suppressed."""
        counts = classes.counts if counts is None else counts
        return self.aggregate_values(self.per_attribute(classes, suppressed, counts))

    def class_losses(self, classes: Classes, counts: np.ndarray) -> np.ndarray | None:
        """Each class's own information loss (ARX's ``getInformationLoss(transformation,
        entry)``), which orders classes of one size when a risk-based model suppresses
        them; None for metrics that have none per class (classes then keep their order)."""
        return None

    def safepub_score(self, classes: Classes, suppressed: np.ndarray, released: np.ndarray,
                      k: int) -> float:
        """SafePub's score of a transformation (Bild, Kuhn & Prasser 2018, section 5; ARX's
        ``getScore``) divided by its sensitivity, so that the exponential mechanism
        weighs a candidate by ``exp(epsilon * score / 2)``. Higher is better.

        ``classes.counts`` counts every input record, ``released`` the records of
        the sample, ``suppressed`` flags the classes smaller than ``k``; records
        left out of the sample count as suppressed.
        """
        raise NotImplementedError(f"metric '{self.name}' has no SafePub score function")

    def upper_bound(self) -> Loss | None:
        """The largest loss the metric can give on this data (ARX's "highest score"),
        or None when only the top transformation's loss can say."""
        per = self.upper_bound_per_attribute()
        return None if per is None else self.aggregate_values(per)

    def upper_bound_per_attribute(self) -> np.ndarray | None:
        return None

    def lower_bound_table(self) -> list[np.ndarray] | None:
        """Per attribute, per level: a lower bound of that attribute's value (or None)."""
        return None

    def lower_bounds(self, levels: np.ndarray) -> np.ndarray | None:
        """Aggregated lower bounds of many level vectors (rows); rank gives a matrix."""
        table = self.lower_bound_table()
        if table is None:
            return None
        per = np.stack([table[j][levels[:, j]] for j in range(levels.shape[1])], axis=1) \
            if levels.shape[1] else np.zeros((len(levels), 0))
        extra = len(self.ctx.weights) - per.shape[1]
        if extra > 0:  # measured microaggregated attributes: no bound below 0
            per = np.concatenate([per, np.zeros((len(per), extra))], axis=1)
        return self.aggregate_many(per)

    # --- aggregation --------------------------------------------------------
    def _prepared(self, values: np.ndarray) -> np.ndarray:
        values = np.asarray(values, dtype=float)
        if self.aggregate == "rank":
            # ARX compares rank vectors on values truncated to 10 decimals
            values = np.trunc(values * 1e10) / 1e10
        elif self.floored:
            values = np.maximum(values, FLOOR)
        return values * self.ctx.weights

    def aggregate_values(self, values: np.ndarray) -> Loss:
        out = self.aggregate_many(np.asarray(values, dtype=float)[None, :])
        return tuple(float(x) for x in out[0]) if out.ndim == 2 else float(out[0])

    def aggregate_many(self, per: np.ndarray) -> np.ndarray:
        v = self._prepared(per)
        n = v.shape[1]
        if self.aggregate == "sum":
            return v.sum(axis=1)
        if self.aggregate == "arithmetic-mean":
            return v.mean(axis=1) if n else np.zeros(len(v))
        if self.aggregate == "geometric-mean":
            return np.exp(np.log1p(v).sum(axis=1) / max(n, 1)) - 1.0
        if self.aggregate == "max":
            return v.max(axis=1) if n else np.zeros(len(v))
        return -np.sort(-v, axis=1)  # rank: descending vector


def class_size_sensitivity(k: int) -> float:
    """Sensitivity factor of SafePub's class-size scores (discernibility, entropy):
    ``k^2 / (k - 1) + 1``, 5 when ``k = 1``."""
    return 5.0 if k <= 1 else k * k / (k - 1.0) + 1.0


def loss_sort_keys(bounds: np.ndarray) -> np.ndarray:
    """Ascending order of losses given as numbers or rank vectors (rows)."""
    if bounds.ndim == 1:
        return np.argsort(bounds, kind="stable")
    return np.lexsort(bounds.T[::-1])


def as_float(loss: Loss) -> float:
    """A single number for display: the loss, or the sum of a rank vector."""
    return float(sum(loss)) if isinstance(loss, tuple) else float(loss)
