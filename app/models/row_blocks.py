"""Rows of data out of core, fetched in blocks on demand by a background query.

A view asks for the value of a row; the block holding it is fetched by
``fetch(start, count)`` (e.g. ``OutOfCoreData.page``: ``LIMIT``/``OFFSET`` on a
DuckDB view) on a ``SerialWorker`` thread, so the GUI never waits on a scan.
Until it arrives the value is ``None`` (the view shows a placeholder) and
``arrived(first, last)`` says which rows to repaint. The most recently used
blocks are kept; blocks asked for but scrolled away from are skipped.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Callable

import pandas as pd
from PySide6.QtCore import QObject, Signal

from app.workers import SerialWorker

BLOCK_ROWS = 500
KEEP_BLOCKS = 40


class RowBlocks(QObject):
    """Blocks of ``BLOCK_ROWS`` rows from ``fetch(start, count) -> DataFrame``."""

    arrived = Signal(int, int)      # first and last row of a block now available
    failed = Signal(str)

    def __init__(self, fetch: Callable[[int, int], pd.DataFrame], parent=None,
                 block_rows: int = BLOCK_ROWS):
        super().__init__(parent)
        self.fetch = fetch
        self.block_rows = block_rows
        self._blocks: OrderedDict[int, pd.DataFrame] = OrderedDict()
        self._pending: set[int] = set()
        self._wanted: int | None = None   # the block last asked for
        self.worker = SerialWorker(self)
        self.worker.done.connect(self._done)
        self.worker.failed.connect(self._failed)
        self.error = ""

    def value(self, row: int, column: str) -> str | None:
        """The text at ``row`` of ``column``, or None while its block is being fetched."""
        b = row // self.block_rows
        block = self._blocks.get(b)
        if block is None:
            self.request(b)
            return None
        self._blocks.move_to_end(b)
        i = row - b * self.block_rows
        if i >= len(block) or column not in block.columns:
            return ""
        return str(block[column].iat[i])

    def block(self, b: int) -> pd.DataFrame | None:
        return self._blocks.get(b)

    def request(self, b: int) -> None:
        self._wanted = b
        if b in self._pending or b in self._blocks:
            return
        self._pending.add(b)
        start = b * self.block_rows

        def fetch():
            # a block scrolled away from before its turn came is not fetched
            if self._wanted is not None and abs(self._wanted - b) > 2:
                return None
            return self.fetch(start, self.block_rows)

        self.worker.submit(fetch, b)

    def clear(self) -> None:
        """Forget every block (the data changed); answers still on their way are dropped."""
        self.worker.forget()
        self._blocks.clear()
        self._pending.clear()
        self._wanted = None
        self.error = ""

    def wait(self, msecs: int = 10000) -> bool:
        return self.worker.wait(msecs)

    def _done(self, b: int, frame) -> None:
        self._pending.discard(b)
        if frame is None:
            return
        self._blocks[b] = frame
        while len(self._blocks) > KEEP_BLOCKS:
            self._blocks.popitem(last=False)
        start = b * self.block_rows
        self.arrived.emit(start, start + max(len(frame), 1) - 1)

    def _failed(self, b: int, message: str) -> None:
        self._pending.discard(b)
        self.error = message
        self.failed.emit(message)
