"""Which transformations Explore shows (no Qt): a filter is a value, its mask a numpy pass."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from app.perspectives.explore.nodes import ExploreNodes
from engine.solution_space import ANONYMOUS, NOT_ANONYMOUS, UNKNOWN


@dataclass(frozen=True)
class NodeFilter:
    """What to show.

    ``levels`` maps an attribute to an inclusive (low, high) range; attributes
    not named are unrestricted. ``loss`` is an inclusive range of relative loss
    in percent; transformations whose loss is unknown are shown only while the
    range is the full 0-100. ``checked_only`` keeps transformations whose loss
    is exact.
    """

    states: frozenset[int] = frozenset({ANONYMOUS, NOT_ANONYMOUS, UNKNOWN})
    levels: dict[str, tuple[int, int]] = field(default_factory=dict)
    loss: tuple[float, float] = (0.0, 100.0)
    optimum_only: bool = False
    checked_only: bool = False

    @property
    def loss_restricted(self) -> bool:
        return self.loss[0] > 0.0 or self.loss[1] < 100.0

    def mask(self, nodes: ExploreNodes) -> np.ndarray:
        """Boolean mask of the rows of ``nodes`` this filter shows."""
        n = len(nodes)
        if self.optimum_only:
            m = np.zeros(n, dtype=bool)
            if nodes.optimum >= 0:
                m[nodes.optimum] = True
            return m
        m = np.isin(nodes.states, np.fromiter(self.states, dtype=np.int8))
        for j, name in enumerate(nodes.attributes):
            if name in self.levels:
                lo, hi = self.levels[name]
                col = nodes.levels[:, j]
                m &= (col >= lo) & (col <= hi)
        if self.loss_restricted:
            p = nodes.percent
            with np.errstate(invalid="ignore"):
                m &= (p >= self.loss[0] - 1e-9) & (p <= self.loss[1] + 1e-9)
        if self.checked_only:
            m &= nodes.checked
        return m
