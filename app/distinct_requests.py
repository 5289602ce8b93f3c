"""Distinct values asked for by the views, counted in a worker when the data handle
has to scan for them (data read out of core): requests made in one turn of the event
loop (the attribute list asks row by row) are counted together, in one scan."""
from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal


class DistinctRequests(QObject):
    """Counts the distinct values of columns of ``handle()`` (the document's current
    data handle) in the background; ``ready(names)`` when they are known."""

    ready = Signal(list)
    #: a count failed: its message
    failed = Signal(str)

    def __init__(self, handle, parent: QObject | None = None):
        super().__init__(parent)
        self._handle = handle
        self._worker = None
        self._pending: set[str] = set()
        self._batch: list = []

    def request(self, names: list[str], then=None) -> bool:
        """Make the distinct values of ``names`` known (``known_distinct_values``): True
        when they are known already (``then()`` has run), else False: they are counted
        in a worker, then ``ready(names)`` and ``then()``."""
        data = self._handle()
        names = [n for n in names if data is not None and n in data.names]
        missing = [n for n in names if data.known_distinct_values(n) is None]
        if not missing:
            if then is not None:
                then()
            return True
        missing = [n for n in missing if n not in self._pending]
        if not missing and then is None:
            return False
        self._pending.update(missing)
        if self._worker is None:
            from app.workers import SerialWorker
            self._worker = SerialWorker(self)
            self._worker.done.connect(self._done)
            self._worker.failed.connect(self._failed)
        self._batch.append((tuple(missing), then))
        if len(self._batch) == 1:
            QTimer.singleShot(0, self._submit)
        return False

    def _submit(self) -> None:
        batch, self._batch = self._batch, []
        data = self._handle()
        if not batch or data is None:
            return
        names = tuple(dict.fromkeys(n for names, _ in batch for n in names))
        thens = [then for _, then in batch if then is not None]
        self._worker.submit(lambda: data.distinct_many(list(names)),
                            (data, names, lambda: [t() for t in thens]))

    def wait(self, msecs: int = 10000) -> bool:
        """Wait for the counts requested (tests, closing)."""
        self._submit()
        return self._worker is None or self._worker.wait(msecs)

    def forget(self) -> None:
        """The data was replaced or closed: counts still running are not reported."""
        self._pending.clear()
        self._batch = []
        if self._worker is not None:
            self._worker.forget()

    def _done(self, tag, _value) -> None:
        data, names, then = tag
        if data is not self._handle():
            return
        self._pending.difference_update(names)
        if names:
            self.ready.emit(list(names))
        if then is not None:
            then()

    def _failed(self, tag, message: str) -> None:
        if tag[0] is not self._handle():  # replaced or closed since
            return
        self._pending.difference_update(tag[1])
        self.failed.emit(message)
