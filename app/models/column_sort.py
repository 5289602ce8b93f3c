"""The order a table of data out of core shows: by a column, sorted by DuckDB in a worker.

``request((name, ascending), data_type)`` has ``OutOfCoreData.sort`` write the order
in a ``SerialWorker``; until it is written ``pending`` names it (the rows shown stay
as they were), then ``applied`` tells the table to read its rows in ``order``
(``OutOfCoreData.page(start, count, order)``). A request made while another is
written interrupts that one; ``None`` goes back to the data's order at once.
``changed`` follows every step (``shown``, ``pending``, ``error``), for the sort
label and the header's sort indicator.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from app.workers import SerialWorker


def next_key(current: tuple[str, bool] | None, name: str) -> tuple[str, bool]:
    """A click on column ``name``: ascending, or the other direction when the rows are
    (being) sorted by it already (as Analyze utility's tables toggle)."""
    return (name, not current[1]) if current and current[0] == name else (name, True)


def describe_sort(shown, pending, error: str = "", side: str = "") -> str:
    """``Sorted by age (ascending)``, ``Sorting by age (descending)…`` or why not."""
    if error:
        return f"Not sorted: {error}"
    key = pending or shown
    if not key:
        return ""
    how = f"{side + ', ' if side else ''}{'ascending' if key[1] else 'descending'}"
    return f"Sorting by {key[0]} ({how})…" if pending else f"Sorted by {key[0]} ({how})"


class ColumnSort(QObject):
    """The order of one table's rows out of core (see the module's text)."""

    changed = Signal()
    applied = Signal()  # a new order (or the data's) is to be shown from the first row

    def __init__(self, parent=None):
        super().__init__(parent)
        self.data = None
        self.shown: tuple[str, bool] | None = None
        self.pending: tuple[str, bool] | None = None
        self.order = None  # what ``OutOfCoreData.page`` reads the rows of ``shown`` by
        self.error = ""
        self._worker: SerialWorker | None = None

    @property
    def current(self) -> tuple[str, bool] | None:
        """The order asked for last (being written, or shown)."""
        return self.pending or self.shown

    def set_data(self, data) -> None:
        """Other data (None: none): its order, answers still on their way dropped."""
        self.stop(0)
        if self._worker is not None:
            self._worker.forget()
        self.data, self.shown, self.pending, self.order, self.error = data, None, None, None, ""

    def request(self, key: tuple[str, bool] | None, data_type=None) -> None:
        data = self.data
        if data is None:
            return
        if self.pending is not None:
            data.cancel_sort()  # the one being written is not wanted any more
        self.pending, self.error = None, ""
        if key is None or key == self.shown:
            self._apply(key, self.order if key is not None else None)
            return
        if self._worker is None:
            self._worker = SerialWorker(self)
            self._worker.done.connect(self._done)
            self._worker.failed.connect(self._failed)
        self.pending = key
        name, ascending = key
        self._worker.submit(lambda: data.sort(name, ascending, data_type), (data, key))
        self.changed.emit()

    def stop(self, msecs: int = 5000) -> bool:
        """Interrupt the sort being written and wait for the worker (closing, tests)."""
        if self.pending is not None and self.data is not None:
            self.data.cancel_sort()
        return self._worker is None or self._worker.wait(msecs)

    def _done(self, tag, order) -> None:
        data, key = tag
        if data is self.data and key == self.pending:
            self.pending = None
            self._apply(key, order)

    def _failed(self, tag, message: str) -> None:
        data, key = tag
        if data is self.data and key == self.pending:
            self.pending, self.error = None, message
            self.changed.emit()

    def _apply(self, key, order) -> None:
        self.shown, self.order = key, order
        self.applied.emit()
        self.changed.emit()
