"""What every heuristic search shares: limits, checks cached by id, best so far, progress.

A heuristic calls ``AnytimeSearch.check(levels)`` for every transformation it
wants to know about. The first check of a transformation classifies it and
records it in a sparse ``SolutionSpace``; later checks are answered from the
cache and cost nothing. Before a new check the time limit, the step limit
(transformations checked) and the cancel flag are tested; when one of them
is reached (for the time limit: when the next check, predicted to last as
long as the longest of the latest checks, would end after it) ``SearchStopped``
is raised, which ``AnytimeSearch.run`` turns
into a normal outcome carrying the best transformation found so far.

With a step limit and no time limit a search never looks at the clock when
deciding what to do, so the same seed gives the same result on any machine.
"""
from __future__ import annotations

import time
from typing import Callable

import numpy as np

from engine.kernel.blas import one_blas_thread
from engine.problem import Evaluation, Problem
from engine.search.concurrent_checks import RollupBatch, RollupThreads, thread_count
from engine.search.outcome import SearchOutcome
from engine.progress import CancelCheck, ProgressCallback, Reporter
from engine.solution_space import SolutionSpace

#: seed used when the job gives none, so results are reproducible by default
DEFAULT_SEED = 0
#: calls of ``check_many`` without priming after a prime that did not pay off
PRIME_PAUSE = 20
#: time limit of open-ended searches (Lightning, top-down) when the job sets no limit
DEFAULT_TIME_LIMIT_S = 30.0
#: how many of the latest checks predict the next one's duration (their longest)
PREDICT_FROM = 8
#: the clock of the time limit (a test may replace it with a counted one)
clock = time.perf_counter


class SearchStopped(Exception):
    """Raised inside a search when a limit is reached or the user cancelled."""


class PhaseOver(Exception):
    """Raised inside ``AnytimeSearch.for_checks`` when its phase's checks are used up."""


def sort_key(ev: Evaluation) -> tuple:
    """Order of preference: anonymous before not anonymous, then lower loss."""
    return (not ev.anonymous, ev.loss)


def best_first(keys: list) -> list[int]:
    """Indices of ``keys`` (``sort_key`` values) best first; equal keys keep their order."""
    return sorted(range(len(keys)), key=lambda i: (keys[i], i))


class AnytimeSearch:
    """Limits, a check cache by lattice id, the best anonymous transformation so far.

    Parameters
    ----------
    problem : Problem
        The prepared job.
    algorithm : str
        Name stored in the outcome.
    progress, cancel : callables, optional
        Progress receiver (called about every 100 ms) and cancel flag.
    open_ended : bool
        Whether the search has no natural end; it then gets
        ``DEFAULT_TIME_LIMIT_S`` when the job sets neither limit.
    expected_checks : int, optional
        Denominator of the progress fraction when there is no step limit.
    """

    def __init__(self, problem: Problem, algorithm: str,
                 progress: ProgressCallback | None = None, cancel: CancelCheck | None = None,
                 open_ended: bool = False, expected_checks: int | None = None):
        self.problem = problem
        self.lattice = problem.lattice
        self.algorithm = algorithm
        tr = problem.job.transformation
        self.step_limit: int | None = tr.step_limit
        self.time_limit: float | None = tr.time_limit_s
        if open_ended and self.step_limit is None and self.time_limit is None:
            self.time_limit = DEFAULT_TIME_LIMIT_S
        self.seed = DEFAULT_SEED if tr.seed is None else int(tr.seed)
        self.rng = np.random.default_rng(self.seed)
        self.space = SolutionSpace(self.lattice, dense=False)
        total = self.step_limit or expected_checks or self.lattice.size
        self.reporter = Reporter(progress, total, cancel)
        self._by_levels: dict[tuple[int, ...], Evaluation] = {}
        self.best: Evaluation | None = None
        self.best_id: int | None = None
        self.checked = 0
        self.cancelled = False
        self.phase = "search"
        self._prime_pause = 0
        self._stall_checked = -1
        self._stall_count = 0
        self._deadline = (clock() + self.time_limit if self.time_limit is not None else None)
        # a caller that counts more than the search in the limit (engine.api.anonymize:
        # preparing and building the released table) sets an earlier deadline
        if self._deadline is not None and getattr(problem, "deadline", None) is not None:
            self._deadline = min(self._deadline, problem.deadline)
        self._durations: list[float] = []
        self._phase_end: int | None = None
        self._phase_patience = 0
        self._improved_at = 0  # ``checked`` when the best so far last improved
        #: threads checking batches (``check_many``; ``engine.search.concurrent_checks``)
        self.threads = RollupThreads(thread_count(getattr(tr, "threads", None)))

    # --- limits -----------------------------------------------------------------
    @property
    def elapsed(self) -> float:
        return self.reporter.elapsed

    def exhausted(self) -> bool:
        """Whether no further transformation may be checked (limits or cancel)."""
        if self.step_limit is not None and self.checked >= self.step_limit:
            return True
        if self._deadline is not None and clock() + self.next_check_s() > self._deadline:
            return True  # the next check would end after the deadline
        if self.reporter.cancelled():
            self.cancelled = True
            return True
        return False

    def next_check_s(self) -> float:
        """The predicted duration of the next check: the longest of the latest ones."""
        return max(self._durations, default=0.0)

    def converged(self, patience: int = 20) -> bool:
        """Call once per iteration of a population search: True once ``patience``
        iterations in a row checked no new transformation (the population only
        revisits known ones, so a step limit would never be reached)."""
        if self.checked == self._stall_checked:
            self._stall_count += 1
        else:
            self._stall_checked, self._stall_count = self.checked, 0
        return self._stall_count >= patience

    def _ensure_phase(self) -> None:
        """Raise ``PhaseOver`` when the current phase (``for_checks``) is used up."""
        if (self._phase_end is not None and self.checked >= self._phase_end
                and self.checked - self._improved_at >= self._phase_patience):
            raise PhaseOver

    def ensure_budget(self) -> None:
        """Raise ``SearchStopped`` when no further check is allowed."""
        if self.exhausted():
            raise SearchStopped

    # --- checks -----------------------------------------------------------------
    @staticmethod
    def as_levels(levels) -> tuple[int, ...]:
        """A hashable level vector from a tuple, list or numpy array."""
        if isinstance(levels, np.ndarray):
            return tuple(levels.tolist())
        return tuple(int(v) for v in levels)

    def known(self, levels) -> Evaluation | None:
        """The evaluation of an already checked transformation, or None."""
        return self._by_levels.get(self.as_levels(levels))

    def checked_evaluations(self) -> list[Evaluation]:
        """Every transformation checked so far, in the order they were checked."""
        return list(self._by_levels.values())

    def check(self, levels) -> Evaluation:
        """Evaluate a transformation (once; repeated checks come from the cache)."""
        levels = self.as_levels(levels)
        ev = self._by_levels.get(levels)
        if ev is not None:
            return ev
        self._ensure_phase()
        self.ensure_budget()
        began = clock()
        ev = self.problem.evaluate(levels)
        self._record(levels, ev, clock() - began)
        return ev

    def _record(self, levels: tuple[int, ...], ev: Evaluation, duration: float) -> None:
        """Count a new check of ``levels`` that lasted ``duration`` (counted) seconds."""
        node_id = self.lattice.id_of(levels)
        self._durations = (self._durations + [duration])[-PREDICT_FROM:]
        self._by_levels[levels] = ev
        self.checked += 1
        self.space.record(node_id, ev.anonymous, ev.loss, ev.suppressed_records)
        if ev.anonymous and (self.best is None or ev.loss < self.best.loss):
            self.best, self.best_id = ev, node_id
            self._improved_at = self.checked
        self.report()

    def check_many(self, rows, prime: bool = True) -> list[Evaluation]:
        """Check several transformations, first priming the classifier with their meet
        (element-wise minimum) when ``prime`` is set and more than two are new.

        Rolling many transformations up from one shared specialization is
        cheaper than rolling each up from the records when the meet has far
        fewer classes than the records (e.g. the predecessors of a node near
        the top of a lattice of moderate width). When a primed meet turns out
        to have more than a quarter as many classes as the records, priming is
        paused for the next ``PRIME_PAUSE`` calls: on wide lattices the meet of
        30 predecessors is often as fine as the records themselves.
        """
        rows = [self.as_levels(r) for r in rows]
        new = [r for r in rows if r not in self._by_levels]
        if prime and len(new) > 2:
            if self._prime_pause > 0:
                self._prime_pause -= 1
            else:
                meet = self.prime(np.min(np.asarray(new, dtype=np.int64), axis=0))
                if meet is not None and meet > 0.25 * self.problem.classifier.base.n_classes:
                    self._prime_pause = PRIME_PAUSE
        if self.threads.threads > 1:
            self._check_concurrently(list(dict.fromkeys(new)))
        return [self.check(r) for r in rows]

    def _check_concurrently(self, new: list[tuple[int, ...]]) -> None:
        """Check ``new`` (distinct, unchecked) in order as ``check`` would, their
        roll-ups run ahead in worker threads (``engine.search.concurrent_checks``)."""
        if self.step_limit is not None:
            new = new[:max(0, self.step_limit - self.checked)]
        if len(new) < 2:
            return

        def may_start() -> bool:
            return (self._deadline is None
                    or clock() + self.next_check_s() <= self._deadline)

        batch = RollupBatch(self.problem.classifier, self.threads, new, may_start)
        try:
            for i, levels in enumerate(new):
                self._ensure_phase()
                self.ensure_budget()
                began = clock()  # the searching thread's share: waiting and judging
                ev = self.problem.evaluate_classes(batch.take(i))
                self._record(levels, ev, clock() - began)
        finally:
            batch.close()

    def prime(self, levels) -> int | None:
        """Classify (and so cache a snapshot of) a transformation without checking it;
        returns its number of classes (None when nothing was done)."""
        levels = self.as_levels(levels)
        if self.lattice.level(levels) > 0 and levels not in self._by_levels:
            self._ensure_phase()
            self.ensure_budget()
            return self.problem.classifier.classify(levels).n_classes
        return None

    def for_checks(self, checks: int, body: Callable[[], None], patience: int = 0) -> bool:
        """Run ``body`` (a phase of a search) until it returns or has checked ``checks``
        new transformations and, after those, ``patience`` in a row without finding a
        better one (a phase still improving goes on); True when it returned by itself.
        The job's limits and cancel still stop the whole search (``SearchStopped``
        passes through). The phase ends by counts of checks, never by the clock: the
        same seed gives the same search on any machine."""
        self._phase_end, self._phase_patience = self.checked + int(checks), int(patience)
        try:
            body()
            return True
        except PhaseOver:
            return False
        finally:
            self._phase_end, self._phase_patience = None, 0

    def report(self, force: bool = False) -> None:
        best = self.best
        self.reporter.report(self.checked, best.levels if best is not None else None,
                             best.loss if best is not None else None, force=force,
                             phase=self.phase, done=self.share_done)

    def share_done(self) -> float | None:
        """The share of the budget used (steps or time, whichever is further), or None
        (checked of the expected checks) without a limit."""
        shares = []
        if self.step_limit:
            shares.append(self.checked / self.step_limit)
        if self.time_limit:
            shares.append(self.elapsed / self.time_limit)
        return min(1.0, max(shares)) if shares else None

    # --- running ----------------------------------------------------------------
    def run(self, body: Callable[[], None]) -> SearchOutcome:
        """Run ``body`` until it returns or a limit stops it; return the outcome.

        BLAS is limited to one thread meanwhile (``engine.kernel.blas``).
        """
        with one_blas_thread():
            try:
                body()
            except SearchStopped:
                pass
            finally:
                self.threads.close()
        self.space.optimum_id = self.best_id
        self.report(force=True)
        return SearchOutcome(self.space, self.best, self.checked, self.elapsed,
                             self.cancelled, self.algorithm)


def count_limit(value: int | None, default: int, search: AnytimeSearch) -> int | None:
    """A count limit (iterations, evaluations) set to ``value`` in the job, or None.

    When the job sets a time or step limit and not ``value``, the limit
    decides (None: unbounded); otherwise ``default`` applies.
    """
    if value is not None:
        return int(value)
    if search.step_limit is not None or search.time_limit is not None:
        return None
    return default
