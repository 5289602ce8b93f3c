"""Progress reports and cancellation shared by every search."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # a type only: progress sits below every package
    from engine.metrics import Loss


@dataclass(frozen=True)
class Progress:
    """One progress report: immutable, safe to hand to another thread."""

    checked: int
    total: int
    elapsed_s: float
    best_levels: tuple[int, ...] | None
    best_loss: Loss | None
    phase: str = "search"
    #: the share of the work done, when the work is not ``checked`` of ``total``: the
    #: optimal search's share of the lattice classified or pruned, a heuristic's share
    #: of its time or step budget, a phase's own share
    done: float | None = None

    @property
    def fraction(self) -> float:
        """The share of the current phase's work done, from 0 to 1."""
        if self.done is not None:
            return min(1.0, max(0.0, float(self.done)))
        return min(1.0, self.checked / self.total) if self.total else 0.0

    @property
    def phase_title(self) -> str:
        """The phase as people say it ("Searching", "Building the output")."""
        return PHASE_TITLES.get(self.phase, self.phase.replace("-", " ").capitalize())


#: what each phase of an anonymization is called where it is shown (GUI and CLI bars)
PHASE_TITLES = {
    "preparing": "Preparing", "preprocessing": "Preparing", "search": "Searching",
    "greedy": "Searching (greedy step)", "best-first": "Searching (best first)",
    "output": "Building the output",
    "aggregate": "Counting the records", "release": "Writing the release",
}


ProgressCallback = Callable[[Progress], None]
CancelCheck = Callable[[], bool]


class Reporter:
    """Rate-limits progress callbacks to about one every ``interval`` seconds."""

    def __init__(self, callback: ProgressCallback | None, total: int,
                 cancel: CancelCheck | None = None, interval: float = 0.1):
        self.callback = callback
        self.total = total
        self.cancel = cancel
        self.interval = interval
        self.start = time.perf_counter()
        self._last = -1.0

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def cancelled(self) -> bool:
        return bool(self.cancel and self.cancel())

    def report(self, checked: int, best_levels, best_loss, force: bool = False,
               phase: str = "search", done: float | Callable[[], float] | None = None) -> None:
        """Report (at most every ``interval`` unless ``force``); ``done`` is the share of
        the work done, or a function computing it (called only when a report is sent)."""
        if self.callback is None:
            return
        now = time.perf_counter()
        if force or now - self._last >= self.interval:
            self._last = now
            share = done() if callable(done) else done
            self.callback(Progress(checked, self.total, now - self.start,
                                   tuple(best_levels) if best_levels is not None else None,
                                   best_loss, phase, share))
