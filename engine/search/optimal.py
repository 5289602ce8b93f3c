"""Optimal search: classifies the lattice with monotonicity and prunes with loss bounds.

Transformations are visited in ascending order of a lower bound of their loss
(or of their height when the metric has none). A transformation known not to
be anonymous is skipped; when models are monotonic a check tags all
generalizations of an anonymous transformation anonymous and all
specializations of a non-anonymous one not anonymous (Flash's predictive
tagging). When the metric is monotonic, a transformation tagged anonymous
cannot beat the specialization it was tagged from, so it is skipped too. The
search stops as soon as the next lower bound is no better than the best loss
found, which proves optimality.

When the job as a whole is not monotonic but some of its models are
(``Problem.pruning_models``: k-anonymity beside t-closeness with suppression,
say), or a model implies a minimal class size (``Problem.pruning_k``), the
search classifies the lattice by those instead: where their violating records
alone exceed the limit, every specialization fails them too and is not
anonymous, so it is tagged without a check; transformations they pass are
still checked in full.

Some models also bound, per class, the records that every specialization must
suppress (``Problem.floors``: t-closeness's distance is convex, so a class far
over t keeps a share of its records over t however it splits). Where the bounds
sum to more than the limit, the transformation and all its specializations are
not anonymous. Before checking a transformation the monotonic part passes, the
search binary-searches a path of unchecked generalizations that may still beat
the best loss for such a one, then ascends from it to a maximal one, so one
check rules out many.
"""
from __future__ import annotations

import numpy as np

from engine.metrics.base import loss_sort_keys
from engine.problem import Problem
from engine.search.outcome import SearchOutcome, better
from engine.progress import CancelCheck, ProgressCallback, Reporter
from engine.kernel.tagging import flood, strides_of
from engine.kernel.visiting import ACT, END, climb_path, doom_path, next_to_visit
from engine.solution_space import ANONYMOUS, NOT_ANONYMOUS, UNKNOWN, SolutionSpace

#: the largest lattice the optimal search will enumerate
MAX_DENSE_LATTICE = 5_000_000


def _bound_value(bounds: np.ndarray, i: int):
    b = bounds[i]
    return tuple(float(x) for x in b) if np.ndim(b) else float(b)


def optimal_search(problem: Problem, progress: ProgressCallback | None = None,
                   cancel: CancelCheck | None = None) -> SearchOutcome:
    lattice = problem.lattice
    if lattice.size > MAX_DENSE_LATTICE:
        raise ValueError(f"the lattice has {lattice.size:,} transformations; the optimal "
                         f"search handles at most {MAX_DENSE_LATTICE:,}: use a heuristic")
    return _OptimalSearch(problem, progress, cancel).run()


class _OptimalSearch:
    def __init__(self, problem: Problem, progress, cancel):
        self.problem = problem
        lattice = problem.lattice
        self.space = space = SolutionSpace(lattice, dense=True)
        self.levels = space.levels
        self.bounds = problem.metric.lower_bounds(self.levels)
        space.lower_bounds = self.bounds
        if self.bounds is not None:
            self.order = loss_sort_keys(self.bounds)
        else:
            self.order = np.argsort(self.levels.sum(axis=1, dtype=np.int64), kind="stable")
        self.rank = np.empty(lattice.size, dtype=np.int64)
        self.rank[self.order] = np.arange(lattice.size)
        self.radix = np.asarray(lattice.radix, dtype=np.int64)
        self.strides = strides_of(lattice.radix)
        self.tag = problem.models_monotonic
        self.skip_tagged = problem.models_monotonic and problem.metric_monotonic
        # the monotonic models' verdict (UNKNOWN / ANONYMOUS: they pass / NOT_ANONYMOUS)
        self.prune = not self.tag and (bool(problem.pruning_models) or problem.pruning_k > 1)
        self.part = np.zeros(lattice.size, dtype=np.int8) if self.prune else None
        self.is_checked = np.zeros(lattice.size, dtype=np.bool_)
        # transformations whose models' floors show them and their specializations
        # not anonymous (``Evaluation.specializations_fail``): 1, else 0
        self.floors = problem.floors
        self.doomed = np.zeros(lattice.size if self.floors else 1, dtype=np.int8)
        # the bounds in visiting order, one row each (no rows: no bounds)
        self.sorted_bounds = (np.zeros((0, 1)) if self.bounds is None else
                              np.ascontiguousarray(self.bounds[self.order], dtype=np.float64)
                              .reshape(lattice.size, -1))
        self.reporter = Reporter(progress, lattice.size, cancel)
        self.best = None
        self.best_id = None
        self.checked = 0
        self.position = -1  # index in ``order`` of the transformation being visited

    def check(self, idx: int) -> bool:
        ev = self.problem.evaluate(self.levels[idx])
        self.checked += 1
        self.is_checked[idx] = True
        self.space.record(idx, ev.anonymous, ev.loss, ev.suppressed_records)
        if ev.anonymous:
            if better(ev.loss, self.best) or (self.floors and self.ties_first(ev.loss, idx)):
                self.best, self.best_id = ev.loss, idx
            if self.tag:
                self.space.tag_generalizations(idx)
        elif self.tag:
            self.space.tag_specializations(idx)
        if ev.specializations_fail and not self.doomed[idx]:
            self.doomed[idx] = 1
            flood(self.doomed, idx, 1, self.radix, self.strides, False)
            if self.prune and self.part[idx] == UNKNOWN:
                # ruled out as surely as by the monotonic part: climbs pass above it
                self.part[idx] = NOT_ANONYMOUS
                flood(self.part, idx, NOT_ANONYMOUS, self.radix, self.strides, False)
        if self.prune:
            part = ANONYMOUS if ev.monotonic_part_ok else NOT_ANONYMOUS
            if self.part[idx] == UNKNOWN:
                self.part[idx] = part
                flood(self.part, idx, part, self.radix, self.strides, part == ANONYMOUS)
        self.reporter.report(self.checked, self.levels[self.best_id]
                             if self.best_id is not None else None, self.best,
                             done=self.share_done)
        return ev.anonymous

    def ties_first(self, loss, idx: int) -> bool:
        """Whether ``idx`` ties with the best loss and comes first in the visiting order:
        with floors, climbs check transformations out of that order, and the optimum
        among equal losses must not depend on which the climbs reached first."""
        return (self.best_id is not None and not better(self.best, loss)
                and self.rank[idx] < self.rank[self.best_id])

    def share_done(self) -> float:
        """The share of the lattice settled: every transformation before the current one
        in the visiting order (checked, tagged or passed over), and those after it that
        a check has already classified. It grows with the search and is 1 when it ends
        (the remaining transformations' bounds cannot beat the optimum)."""
        states = self.space.states
        rest = self.order[self.position + 1:]
        open_ = states[rest] == UNKNOWN
        if self.prune:
            open_ &= self.part[rest] != NOT_ANONYMOUS
        if self.floors:
            open_ &= self.doomed[rest] == 0
        settled = len(rest) - np.count_nonzero(open_)
        return (self.position + 1 + int(settled)) / max(1, len(self.order))

    def climb(self, start: int, states: np.ndarray) -> None:
        """Classify ``start`` by a binary search on a path of unknown nodes up the lattice.

        ``states`` is monotonic along the path (anonymity when every model is
        monotonic, else the monotonic models' verdict), so O(log height) checks
        find the boundary; the highest failing node checked tags everything below it.
        """
        path = climb_path(start, states, self.radix, self.strides, self.rank)
        lo, hi = 0, len(path)
        while lo < hi:
            mid = (lo + hi) // 2
            node = int(path[mid])
            if states[node] == UNKNOWN:
                self.check(node)
            if states[node] == ANONYMOUS:
                hi = mid
            else:
                lo = mid + 1
        if self.floors and lo >= 1 and self.doomed[int(path[lo - 1])]:
            # the highest failing node of the path: on to a maximal doomed one
            self.ascend_doomed(int(path[lo - 1]))

    def climb_doomed(self, start: int) -> None:
        """Check up a path of unchecked generalizations of ``start`` for one whose floors
        doom it and so ``start`` (a binary search: the doomed transformations are closed
        downwards, and low ones tend to be doomed where high ones are not)."""
        doomed = self.doomed
        best = (np.zeros(1) if self.best is None
                else np.atleast_1d(np.asarray(self.best, dtype=np.float64)))
        part = self.part if self.prune else doomed
        path = doom_path(start, self.space.states, doomed, part, self.prune, self.radix,
                         self.strides, self.rank, self.sorted_bounds, best,
                         self.best is not None)
        lo, hi = 1, len(path)
        while lo < hi and not doomed[start]:
            mid = (lo + hi) // 2
            node = int(path[mid])
            if not self.is_checked[node] and not doomed[node]:
                self.check(node)
            if doomed[node]:
                lo = mid + 1
            else:
                hi = mid
        if lo >= 2:
            self.ascend_doomed(int(path[lo - 1]))

    def ascend_doomed(self, node: int) -> None:
        """From a doomed transformation up to a maximal one: check its unchecked direct
        generalizations that may beat the best loss and move to one that is doomed,
        until none is (the others must be checked anyway: nothing rules them out)."""
        doomed = self.doomed
        while True:
            moved = False
            for j in range(len(self.radix)):
                if (node // self.strides[j]) % self.radix[j] + 1 >= self.radix[j]:
                    continue
                nxt = node + int(self.strides[j])
                if (doomed[nxt] or self.is_checked[nxt]
                        or (self.prune and self.part[nxt] == NOT_ANONYMOUS)
                        or (self.best is not None and self.bounds is not None
                            and not better(_bound_value(self.bounds, nxt), self.best))):
                    continue
                self.check(nxt)
                if doomed[nxt]:
                    node, moved = nxt, True
                    break
            if not moved:
                return

    def run(self) -> SearchOutcome:
        states = self.space.states
        cancelled = False
        part = self.part if self.prune else np.zeros(1, dtype=np.int8)
        position = 0
        while True:
            # pass over the settled transformations to the next one to act on
            best = (np.zeros(1) if self.best is None
                    else np.atleast_1d(np.asarray(self.best, dtype=np.float64)))
            position, found = next_to_visit(self.order, states, part, self.is_checked,
                                            self.sorted_bounds, best, self.best is not None,
                                            position, self.tag, self.prune, self.skip_tagged,
                                            self.doomed, self.floors)
            self.position = position - 1  # the ones before are settled
            if found == END:
                break
            if self.reporter.cancelled():
                cancelled = True
                break
            if found != ACT:  # no transformation left can beat the best loss found
                break
            idx = int(self.order[position])
            position += 1
            if states[idx] == UNKNOWN and self.tag:
                self.climb(idx, states)
            if self.prune:
                if self.part[idx] == UNKNOWN:
                    self.climb(idx, self.part)
                if self.part[idx] == NOT_ANONYMOUS:
                    continue
            if self.floors and not self.doomed[idx] and not self.is_checked[idx]:
                self.climb_doomed(idx)
                if self.doomed[idx]:
                    continue
            state = states[idx]
            if state == NOT_ANONYMOUS or self.is_checked[idx]:
                continue
            if state == ANONYMOUS and self.skip_tagged:
                continue
            self.check(idx)
        space, levels = self.space, self.levels
        if self.prune:  # what the monotonic models rule out is not anonymous
            states[(self.part == NOT_ANONYMOUS) & (states == UNKNOWN)] = NOT_ANONYMOUS
        if self.floors:
            states[(self.doomed == 1) & (states == UNKNOWN)] = NOT_ANONYMOUS
        space.optimum_id = self.best_id
        optimum = (self.problem.evaluate(levels[self.best_id])
                   if self.best_id is not None else None)
        best_levels = levels[self.best_id] if self.best_id is not None else None
        self.reporter.report(self.checked, best_levels, self.best, force=True,
                             done=1.0 if not cancelled else self.share_done)
        return SearchOutcome(space, optimum, self.checked, self.reporter.elapsed, cancelled,
                             "optimal")
