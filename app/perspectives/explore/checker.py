"""Explore's worker: checks and describes transformations off the GUI thread.

The requests run in order on one thread of an ``app.workers.SerialWorker`` (the
engine's classifier is not meant for concurrent use); answers about a replaced
result are dropped.
"""
from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QObject, Signal

from app.perspectives.explore.details import inspect_transformation
from app.workers import SerialWorker


class TransformationChecker(QObject):
    """``checked(tag, details_list)`` / ``failed(tag, message)`` answer ``check``."""

    checked = Signal(object, object)
    failed = Signal(object, str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._worker = SerialWorker(self)
        self._worker.done.connect(self._done)
        self._worker.failed.connect(self._failed)
        self._result = None
        self.pending = 0

    def set_result(self, result) -> None:
        self._worker.forget()
        self._result = result
        self.pending = 0

    def check(self, levels_list: Sequence[Sequence[int]], tag) -> None:
        """Check and describe each level vector, in the worker."""
        if self._result is None:
            return
        self.pending += 1
        result = self._result
        lv = [tuple(int(v) for v in levels) for levels in levels_list]
        self._worker.submit(lambda: [inspect_transformation(result, x) for x in lv], tag)

    def wait(self, msecs: int = 10000) -> bool:
        return self._worker.wait(msecs)

    def _done(self, tag, details) -> None:
        self.pending = max(0, self.pending - 1)
        self.checked.emit(tag, details)

    def _failed(self, tag, message: str) -> None:
        self.pending = max(0, self.pending - 1)
        self.failed.emit(tag, message)
