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

    @property
    def fraction(self) -> float:
        return min(1.0, self.checked / self.total) if self.total else 0.0


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
               phase: str = "search") -> None:
        if self.callback is None:
            return
        now = time.perf_counter()
        if force or now - self._last >= self.interval:
            self._last = now
            self.callback(Progress(checked, self.total, now - self.start,
                                   tuple(best_levels) if best_levels is not None else None,
                                   best_loss, phase))
