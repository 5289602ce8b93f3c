"""Explore's worker: checks and describes transformations off the GUI thread.

One private pool thread runs the requests in order (the engine's classifier
is not meant for concurrent use); results come back as signals carrying the
request's tag and the result generation, so answers about a replaced result
are dropped.
"""
from __future__ import annotations

import logging
from typing import Sequence

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from app.perspectives.explore.details import inspect_transformation

log = logging.getLogger(__name__)


class _Bridge(QObject):
    done = Signal(int, object, object)  # generation, tag, list[NodeDetails]
    failed = Signal(int, object, str)


class _Check(QRunnable):
    def __init__(self, bridge: _Bridge, generation: int, result, levels_list, tag):
        super().__init__()
        self.bridge, self.generation, self.result = bridge, generation, result
        self.levels_list, self.tag = levels_list, tag

    def run(self) -> None:
        try:
            out = [inspect_transformation(self.result, lv) for lv in self.levels_list]
        except Exception as exc:  # noqa: BLE001 - reported to the user, never raised
            log.exception("checking a transformation failed")
            self.bridge.failed.emit(self.generation, self.tag, str(exc))
        else:
            self.bridge.done.emit(self.generation, self.tag, out)


class TransformationChecker(QObject):
    """``checked(tag, details_list)`` / ``failed(tag, message)`` answer ``check``."""

    checked = Signal(object, object)
    failed = Signal(object, str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._bridge = _Bridge()
        self._bridge.done.connect(self._done)
        self._bridge.failed.connect(self._failed)
        self._generation = 0
        self._result = None
        self.pending = 0

    def set_result(self, result) -> None:
        self._generation += 1
        self._result = result
        self.pending = 0

    def check(self, levels_list: Sequence[Sequence[int]], tag) -> None:
        """Check and describe each level vector, in the worker."""
        if self._result is None:
            return
        self.pending += 1
        lv = [tuple(int(v) for v in levels) for levels in levels_list]
        self._pool.start(_Check(self._bridge, self._generation, self._result, lv, tag))

    def wait(self, msecs: int = 10000) -> bool:
        return self._pool.waitForDone(msecs)

    def _done(self, generation: int, tag, details) -> None:
        if generation == self._generation:
            self.pending = max(0, self.pending - 1)
            self.checked.emit(tag, details)

    def _failed(self, generation: int, tag, message: str) -> None:
        if generation == self._generation:
            self.pending = max(0, self.pending - 1)
            self.failed.emit(tag, message)
