"""One heavy analysis in the worker thread, shown by a `RunBar`.

Each view owns one `AnalysisJob` (its own ``TaskController``), so the population
uniqueness, identifier and quasi-identifier analyses run and cancel independently;
a new run cancels the previous one of the same job and its late results are dropped.
"""
from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, Signal

from app.perspectives.risk.common import RunBar
from app.workers import TaskController, TaskOutcome
from engine.errors import Cancelled

_CANCELLED = object()


class AnalysisJob(QObject):
    """Signals: ``succeeded(object)`` with the value, ``cancelled()``, ``failed(str)``."""

    succeeded = Signal(object)
    cancelled = Signal()
    failed = Signal(str)

    def __init__(self, bar: RunBar, parent: QObject | None = None):
        super().__init__(parent)
        self.bar = bar
        self.tasks = TaskController(self)
        self.tasks.progressed.connect(bar.report)
        self.tasks.finished.connect(self._finished)
        self.tasks.failed.connect(self._failed)
        bar.cancel_requested.connect(self.cancel)

    @property
    def running(self) -> bool:
        return self.tasks.running

    def start(self, text: str, fn: Callable[[Callable, Callable], Any]) -> None:
        """Run ``fn(report, cancelled)`` (Qt-free) in a worker thread."""

        def run(report, cancelled):
            try:
                return fn(report, cancelled)
            except Cancelled:
                return _CANCELLED

        self.bar.begin(text)
        self.tasks.start(text, run)

    def cancel(self) -> None:
        self.tasks.cancel()

    def forget(self) -> None:
        """Stop the running analysis and drop its result (its input changed)."""
        if self.tasks.running:
            self.tasks.cancel_and_forget()
            self.bar.finish("")

    def wait(self, msecs: int = 10_000) -> bool:
        return self.tasks.wait_all(msecs)

    def _finished(self, outcome: TaskOutcome) -> None:
        if outcome.value is _CANCELLED or outcome.cancelled:
            self.bar.finish("Cancelled.")
            self.cancelled.emit()
        else:
            self.bar.finish("")
            self.succeeded.emit(outcome.value)

    def _failed(self, _label: str, message: str) -> None:
        self.bar.finish(message)
        self.failed.emit(message)
