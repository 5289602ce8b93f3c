"""A table model that shows one page of many items (rows or columns), as ARX pages
wide data."""
from __future__ import annotations

import math

from PySide6.QtCore import QAbstractTableModel, Signal


class PagedModel(QAbstractTableModel):
    """Pages of ``page_size`` items; a subclass says how many items there are
    (``paged_count``) and reloads its page's items in ``_load_page``.

    Signals
    -------
    page_changed(int, int)
        Current page and page count.
    """

    page_changed = Signal(int, int)

    def __init__(self, page_size: int, parent=None):
        super().__init__(parent)
        self._page_size = max(1, int(page_size))
        self._page = 0

    def paged_count(self) -> int:
        raise NotImplementedError

    def _load_page(self) -> None:
        """Fetch what the current page shows (called inside a model reset)."""

    @property
    def page(self) -> int:
        return self._page

    @property
    def page_size(self) -> int:
        return self._page_size

    @property
    def page_count(self) -> int:
        return max(1, math.ceil(self.paged_count() / self._page_size))

    def page_at(self, position: int) -> int:
        """The page of the item at ``position`` among all items."""
        return position // self._page_size

    def set_page(self, page: int) -> None:
        page = max(0, min(int(page), self.page_count - 1))
        if page != self._page:
            self.beginResetModel()
            self._page = page
            self._load_page()
            self.endResetModel()
            self.page_changed.emit(self._page, self.page_count)

    def set_page_size(self, size: int) -> None:
        self.beginResetModel()
        self._page_size = max(1, int(size))
        self._page = min(self._page, self.page_count - 1)
        self._load_page()
        self.endResetModel()
        self.page_changed.emit(self._page, self.page_count)
