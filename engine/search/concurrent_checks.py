"""Checking a batch of transformations with their roll-ups in worker threads.

A check is mostly the roll-up of its classes (``Classifier.rolled_up``: numba
kernels that release the GIL); judging the classes (privacy models, metric) is
left to the searching thread, in the batch's order. So a search that has several
transformations to check at once (a generation of the genetic search, the
neighbours Lightning and the top-down search expand, KGEN's offspring) rolls the
next ones up in worker threads while it judges the current one, and rolls up
later ones itself while it waits for a worker.

The results are those of checking the batch one by one: the classes do not
depend on the snapshot they are rolled up from (only the speed does), each
transformation is judged and recorded in the batch's order, and the search's
limits, phase ends and cancel are tested before each one exactly as for a single
check. The snapshots to roll up from are chosen, in order, when the batch starts
(those cached before it), so they do not depend on the number of threads or the
timing either. ``threads`` counts the searching thread: ``threads - 1`` workers.
At most ``AHEAD_PER_THREAD * threads + 1`` roll-ups are under way ahead of the
searching thread, and none is started when the next check would end after the
time limit; roll-ups a stopped search no longer needs are dropped. Small roll-ups
(``MIN_ITEMS_AHEAD``) run in the searching thread when their turn comes, and so does
a roll-up no worker has taken by then (on a busy machine the workers may not run).
"""
from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable

import numpy as np

from engine.classes import Classes, Classifier

#: roll-ups from snapshots of fewer items run in the searching thread (a few
#: microseconds: handing them to a worker would cost more than it saves)
MIN_ITEMS_AHEAD = 2048
#: roll-ups under way ahead of the searching thread per worker thread (slack for a
#: busy machine, where the threads do not always run at the same time)
AHEAD_PER_THREAD = 2


def available_cores() -> int:
    """Cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def thread_count(setting: int | None) -> int:
    """Threads a search checks in: the job's ``[transformation] threads``, else
    ``automatic_threads()``."""
    return int(setting) if setting else automatic_threads()


def automatic_threads() -> int:
    """One thread per core while at least half a core is idle beyond the search's own
    (the 1-minute load average), else one: on a busy machine the second thread gained
    nothing and cost 4-13 % more CPU (tests/benchmarks/README_heuristics.md). The
    result is the same with any number of threads."""
    cores = available_cores()
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average (Windows): every core
        return cores
    return max(1, min(cores, 1 + int(cores - load + 0.5)))


class RollupThreads:
    """``threads - 1`` worker threads for roll-ups (the searching thread is the last
    one: it rolls up what no worker has taken), started on first use. ``close`` drops
    the roll-ups not started and does not wait for those running (at most one per
    worker, whose results nobody takes): a search stopped by its limit returns at
    once; the workers end when their roll-up does."""

    def __init__(self, threads: int):
        self.threads = threads
        self._executor: ThreadPoolExecutor | None = None

    def submit(self, fn, *args) -> Future:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max(1, self.threads - 1),
                                                thread_name_prefix="anonymist-rollup")
        return self._executor.submit(fn, *args)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


class RollupBatch:
    """The classes of ``rows`` (level vectors, distinct), taken in order by ``take``.

    ``may_start()`` says whether one more roll-up may start ahead of the searching
    thread (the time limit); a roll-up not started ahead runs in ``take``.
    """

    def __init__(self, classifier: Classifier, threads: RollupThreads, rows: list,
                 may_start: Callable[[], bool]):
        self.classifier = classifier
        self.threads = threads
        self.may_start = may_start
        self.levels = [np.asarray(r, dtype=np.int64) for r in rows]
        # every source chosen now, in order: independent of threads and timing
        self.plans = [classifier.plan(levels) for levels in self.levels]
        self.futures: list[Future | None] = [None] * len(rows)
        self.ready: dict[int, Classes] = {}  # rolled up by the searching thread ahead
        self.started = 0  # roll-ups submitted (or cached) so far, in order
        self.window = AHEAD_PER_THREAD * threads.threads + 1

    def _start_until(self, end: int) -> None:
        end = min(end, len(self.plans))
        while self.started < end and self.may_start():
            i = self.started
            _, hit, source = self.plans[i]
            if hit is None and source.n_classes >= MIN_ITEMS_AHEAD:
                self.futures[i] = self.threads.submit(self.classifier.rolled_up, source,
                                                      self.levels[i])
            self.started += 1

    def _roll_up(self, i: int) -> Classes:
        return self.classifier.rolled_up(self.plans[i][2], self.levels[i])

    def _help(self, i: int) -> bool:
        """Roll up here the furthest item after ``i`` that no worker has taken; False
        when there is none."""
        for j in range(self.started - 1, i, -1):
            f = self.futures[j]
            if f is not None and f.cancel():
                self.futures[j] = None
                self.ready[j] = self._roll_up(j)
                return True
        return False

    def _result(self, i: int) -> Classes:
        """Item ``i``'s classes: from its worker (helping with later items while it
        runs), or rolled up here."""
        future = self.futures[i]
        self.futures[i] = None
        if i in self.ready:
            return self.ready.pop(i)
        while future is not None and not future.done():
            if future.cancel():  # no worker took it: roll it up here
                future = None
            elif not self._help(i):
                break
        return future.result() if future is not None else self._roll_up(i)

    def take(self, i: int) -> Classes:
        """Item ``i``'s classes (items are taken in order), cached as ``classify``
        caches them; starts the next roll-ups ahead."""
        key, hit, _ = self.plans[i]
        if self.started <= i:  # not started ahead: roll it up here
            self.started = i + 1
        self._start_until(i + 1 + self.window)
        if hit is not None:
            return hit
        classes = self._result(i)
        self.plans[i] = (key, None, None)
        self.classifier.store(key, classes)
        return classes

    def close(self) -> None:
        """Drop the roll-ups not taken (those running finish in their thread)."""
        for f in self.futures:
            if f is not None:
                f.cancel()
        self.futures = []
        self.plans = []
        self.ready = {}
