"""One row order shared by the input and the output table, so their rows stay aligned.

Both table models show view row ``i`` as data row ``source_row(i)``. The order is
the identity until the user sorts or restricts the rows to the research subset;
only then is an index array built (int32, 4 bytes a row).
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QObject, Signal


class RowOrder(QObject):
    """The visible rows, in order. ``changed`` is emitted after every change."""

    changed = Signal()

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.n_rows = 0
        self._permutation: np.ndarray | None = None  # sorted order of all rows
        self._subset: np.ndarray | None = None  # bool mask of research-subset rows
        self._subset_only = False
        self._rows: np.ndarray | None = None  # visible rows; None: 0..n-1

    # --- state ---------------------------------------------------------------------------
    @property
    def permutation(self) -> np.ndarray | None:
        return self._permutation

    @property
    def subset_only(self) -> bool:
        return self._subset_only

    @property
    def has_subset(self) -> bool:
        return self._subset is not None

    def subset_size(self) -> int:
        return self.n_rows if self._subset is None else int(self._subset.sum())

    def reset(self, n_rows: int, subset: np.ndarray | None) -> None:
        """New data: identity order over ``n_rows``; ``subset`` a bool mask or None."""
        self.n_rows = int(n_rows)
        self._subset = None if subset is None else np.asarray(subset, dtype=bool)
        self._permutation = None
        if self._subset is None:
            self._subset_only = False
        self._update()

    def set_permutation(self, permutation: np.ndarray | None) -> None:
        """Sorted order of all rows (None: data order)."""
        if permutation is not None:
            permutation = np.asarray(permutation).astype(np.int32, copy=False)
            if len(permutation) != self.n_rows:
                raise ValueError(f"permutation of {len(permutation)} rows, expected "
                                 f"{self.n_rows}")
        self._permutation = permutation
        self._update()

    def set_subset_only(self, on: bool) -> None:
        on = bool(on) and self._subset is not None
        if on != self._subset_only:
            self._subset_only = on
            self._update()

    # --- lookup ----------------------------------------------------------------------------
    def row_count(self) -> int:
        return self.n_rows if self._rows is None else len(self._rows)

    def source_row(self, row: int) -> int:
        return row if self._rows is None else int(self._rows[row])

    def source_rows(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Data rows of view rows ``start:stop``."""
        stop = self.row_count() if stop is None else min(stop, self.row_count())
        if self._rows is None:
            return np.arange(start, stop)
        return self._rows[start:stop]

    def _update(self) -> None:
        if not self._subset_only:
            self._rows = self._permutation
        else:
            base = self._permutation
            if base is None:
                self._rows = np.flatnonzero(self._subset).astype(np.int32)
            else:
                self._rows = base[self._subset[base]]
        self.changed.emit()
