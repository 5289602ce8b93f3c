"""The Lightning strategy (Prasser et al. 2016), bottom-up or top-down.

A global priority queue holds checked transformations by loss. Each step
polls the best one and *expands* it: every neighbour (successor when going
up, predecessor when going down) that has not been expanded yet is checked
and queued. Every ``lattice.height``-th step is a *greedy* phase instead: it
expands the polled transformation, follows its best new neighbour and
repeats until a transformation has no unexpanded neighbour left, putting
the neighbours it passed over into the global queue.

Pruning (only where it cannot lose the optimum):

- going up, a transformation whose loss bound (the metric's generalization-
  only lower bound, never decreasing under generalization) is no better than
  the best loss found is neither checked nor expanded;
- going up with monotonic models and a monotonic metric (Lightning's case of
  a 0% suppression limit), an anonymous transformation is not expanded: all
  its generalizations are anonymous and no better;
- going down with monotonic models, a transformation that is not anonymous is
  not expanded: none of its specializations is anonymous.

Order: losses that agree to ``TIE_DIGITS`` significant digits are equal (the
same loss summed in a different order differs in its last bits, and that
noise must not steer the search); among equal losses the transformation
found last is expanded first, so a plateau of equal losses (e.g. near the
bottom with a high suppression limit, where most records are suppressed) is
left upward instead of being swept level by level.
"""
from __future__ import annotations

import heapq
import itertools

import numpy as np

from engine.problem import Evaluation
from engine.search.anytime import AnytimeSearch

#: significant digits at which two losses count as equal in the search order
TIE_DIGITS = 12


def order_key(loss) -> float | tuple:
    """A loss (number or rank vector) rounded to ``TIE_DIGITS`` significant digits."""
    if isinstance(loss, tuple):
        return tuple(float(f"{x:.{TIE_DIGITS}g}") for x in loss)
    return float(f"{loss:.{TIE_DIGITS}g}")


class BestFirstSearch:
    """Lightning's hybrid best-first/greedy search over a lattice, in one direction."""

    def __init__(self, search: AnytimeSearch, upward: bool):
        self.search = search
        self.problem = search.problem
        self.lattice = search.lattice
        self.upward = upward
        self.neighbours = self.lattice.successors if upward else self.lattice.predecessors
        self.expanded: set[int] = set()
        self.queued: set[int] = set()
        self.queue: list = []
        self._tie = itertools.count()
        problem = self.problem
        self.has_bounds = upward and problem.metric.lower_bounds(
            np.asarray([self.lattice.bottom], dtype=np.int64)) is not None
        self.skip_anonymous = upward and problem.metric_monotonic and problem.models_monotonic
        self.skip_not_anonymous = (not upward) and problem.models_monotonic
        self.period = max(1, self.lattice.height)

    # --- pruning ------------------------------------------------------------------
    def _bounded_out(self, rows: list[tuple[int, ...]]) -> list[bool]:
        """Which rows cannot beat the best loss by their lower bound (going up only)."""
        best = self.search.best
        if not self.has_bounds or best is None or not rows:
            return [False] * len(rows)
        bounds = self.problem.metric.lower_bounds(np.asarray(rows, dtype=np.int64))
        if bounds.ndim == 1:
            return [not (float(b) < best.loss) for b in bounds]
        return [not (tuple(float(x) for x in b) < best.loss) for b in bounds]

    def _pruned(self, levels: tuple[int, ...], ev: Evaluation) -> bool:
        if self.skip_anonymous and ev.anonymous and self.search.best is not None:
            return True
        if self.skip_not_anonymous and not ev.anonymous:
            return True
        return self._bounded_out([levels])[0]

    # --- building blocks ------------------------------------------------------------
    def _push(self, levels: tuple[int, ...], ev: Evaluation) -> None:
        node_id = self.lattice.id_of(levels)
        if node_id in self.expanded or node_id in self.queued:
            return
        self.queued.add(node_id)
        # newest first among equal losses (the counter's negation)
        heapq.heappush(self.queue, (order_key(ev.loss), -next(self._tie), node_id, levels))

    def expand(self, levels: tuple[int, ...]) -> list[tuple[Evaluation, int, tuple[int, ...]]]:
        """Mark ``levels`` expanded; check its unexpanded neighbours, best first."""
        self.expanded.add(self.lattice.id_of(levels))
        rows = [n for n in self.neighbours(levels) if self.lattice.id_of(n) not in self.expanded]
        rows = [r for r, out in zip(rows, self._bounded_out(rows)) if not out]
        evs = self.search.check_many(rows)
        found = [(ev, i, r) for i, (ev, r) in enumerate(zip(evs, rows))]
        found.sort(key=lambda t: (order_key(t[0].loss), t[1]))
        return found

    def greedy(self, levels: tuple[int, ...]) -> None:
        """Follow the best new neighbour until none is left; queue the others."""
        passed_over = []
        node = levels
        self.search.phase = "greedy"
        try:
            while True:
                children = [c for c in self.expand(node) if not self._pruned(c[2], c[0])]
                if not children:
                    break
                passed_over.extend(children[1:])
                node = children[0][2]
        finally:
            self.search.phase = "best-first"
            for ev, _, r in passed_over:
                self._push(r, ev)

    # --- main loop ------------------------------------------------------------------
    def run(self) -> None:
        start = self.lattice.bottom if self.upward else self.lattice.top
        self.search.phase = "best-first"
        self._push(start, self.search.check(start))
        step = 0
        while self.queue:
            _, _, node_id, levels = heapq.heappop(self.queue)
            self.queued.discard(node_id)
            if node_id in self.expanded:
                continue
            if self._pruned(levels, self.search.known(levels)):
                continue
            step += 1
            if step % self.period == 0:
                self.greedy(levels)
            else:
                for ev, _, r in self.expand(levels):
                    self._push(r, ev)
