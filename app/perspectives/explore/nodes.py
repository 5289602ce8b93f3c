"""The transformations Explore shows, as column arrays (no Qt).

``ExploreNodes`` is what the lattice, the list and the filter share: one row
per shown transformation with its levels, state, whether it was checked, its
relative loss (exact when checked, the lower bound otherwise) and its
suppressed records. Whole lattices are taken from the solution space's dense
arrays without copying row by row; huge lattices show the visited part and
grow when the user expands a node.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from engine.solution_space import ANONYMOUS, NOT_ANONYMOUS, UNKNOWN

STATE_LABELS = {UNKNOWN: "Not checked", ANONYMOUS: "Anonymous", NOT_ANONYMOUS: "Not anonymous"}
#: above this many transformations only the visited part of the lattice is shown
MAX_SHOWN_NODES = 250_000


def relative_percents(losses: np.ndarray, low, high) -> np.ndarray:
    """Vectorized ``engine.result.relative_percent``: one row (or entry) per loss.

    ``losses`` is (n,) for scalar metrics or (n, k) for rank aggregates; NaN stays NaN.
    """
    a = np.asarray(losses, dtype=float)
    lo = np.asarray(low, dtype=float)
    hi = np.asarray(high, dtype=float)
    span = hi - lo
    safe = np.where(span > 0, span, 1.0)
    rel = np.where(span > 0, (a - lo) / safe, 0.0)
    rel = np.clip(rel, 0.0, 1.0)
    rel = np.where(np.isnan(a), np.nan, rel)
    if rel.ndim == 2:
        rel = rel.mean(axis=1)
    return rel * 100.0


def loss_array(losses: Sequence, width: int) -> np.ndarray:
    """Losses (floats, tuples or None) as an (n,) or (n, width) float array, NaN for None."""
    if width == 0:
        return np.array([np.nan if v is None else float(v) for v in losses], dtype=float)
    out = np.full((len(losses), width), np.nan)
    for i, v in enumerate(losses):
        if v is not None:
            out[i] = v
    return out


@dataclass(frozen=True)
class NodeCounts:
    """How many shown transformations are in each state (and checked)."""

    total: int
    anonymous: int
    not_anonymous: int
    unknown: int
    checked: int

    @classmethod
    def of(cls, states: np.ndarray, checked: np.ndarray) -> "NodeCounts":
        return cls(len(states), int((states == ANONYMOUS).sum()),
                   int((states == NOT_ANONYMOUS).sum()), int((states == UNKNOWN).sum()),
                   int(checked.sum()))


def id_dtype(size: int):
    """int64 for lattice ids below 2**63; Python ints (object) for larger lattices."""
    return np.int64 if size <= np.iinfo(np.int64).max else object


def place_values(radix: Sequence[int], dtype) -> np.ndarray:
    """Mixed-radix place values of lattice ids (last attribute fastest), in ``dtype``."""
    strides = [1] * len(radix)
    for j in range(len(radix) - 2, -1, -1):
        strides[j] = strides[j + 1] * int(radix[j + 1])
    return np.asarray(strides, dtype=dtype)


class ExploreNodes:
    """Column arrays of the shown transformations of one result.

    Attributes
    ----------
    ids : (n,) lattice ids, ascending (int64; Python ints beyond 2**63, see ``id_dtype``)
    levels : (n, d) int16 level vectors
    states : (n,) int8 ``UNKNOWN``/``ANONYMOUS``/``NOT_ANONYMOUS``
    checked : (n,) bool, exact loss known
    percent : (n,) float relative loss in %, exact or a lower bound, NaN if unknown
    suppressed : (n,) int64 suppressed records, -1 when not checked
    optimum : row of the optimum or -1
    whole : every transformation of the lattice is shown
    """

    def __init__(self, result, max_shown: int = MAX_SHOWN_NODES):
        self.result = result
        self.space = result.space
        self.lattice = result.lattice
        self.attributes: tuple[str, ...] = tuple(self.lattice.attributes)
        self.low, self.high = result.loss_bounds
        self._width = len(self.high) if isinstance(self.high, tuple) else 0
        self.whole = bool(self.space.dense and self.lattice.size <= max_shown)
        self._ids = id_dtype(self.lattice.size)
        if self.whole:
            self.ids = np.arange(self.lattice.size, dtype=np.int64)
            self.levels = np.asarray(self.space.levels, dtype=np.int16)
            self.states = np.asarray(self.space.states, dtype=np.int8).copy()
        else:
            ids = self._visited_ids()
            self.ids = np.asarray(ids, dtype=self._ids)
            self.levels = (np.array([self.lattice.levels_of(int(i)) for i in ids], dtype=np.int16)
                           .reshape(len(ids), self.lattice.dimensions))
            self.states = np.array([self.space.state(int(i)) for i in ids], dtype=np.int8)
        self._fill_losses()
        self.optimum = self.row_of_id(self.space.optimum_id)

    # --- construction -----------------------------------------------------------
    def _visited_ids(self) -> list[int]:
        ids = set(self.space.losses)
        ids.update(self.space.sparse_states)
        if self.space.optimum_id is not None:
            ids.add(int(self.space.optimum_id))
        if not ids:
            ids = {0}
        return sorted(int(i) for i in ids)

    def _fill_losses(self) -> None:
        n = len(self.ids)
        space = self.space
        self.checked = np.zeros(n, dtype=bool)
        self.suppressed = np.full(n, -1, dtype=np.int64)
        raw = np.full((n, self._width) if self._width else n, np.nan)
        bounds = space.lower_bounds
        if bounds is not None and self.whole:
            b = np.asarray(bounds, dtype=float)
            raw[:] = b.reshape(raw.shape)
        elif bounds is not None:
            raw[:] = np.asarray(bounds, dtype=float)[self.ids].reshape(raw.shape)
        rows = self.rows_of_ids(np.fromiter(space.losses.keys(), dtype=self._ids,
                                            count=len(space.losses)))
        keep = rows >= 0
        if keep.any():
            vals = loss_array(list(space.losses.values()), self._width)
            raw[rows[keep]] = vals[keep]
            self.checked[rows[keep]] = True
            supp = np.fromiter((space.suppressed.get(int(i), -1) for i in space.losses),
                               dtype=np.int64, count=len(space.losses))
            self.suppressed[rows[keep]] = supp[keep]
        self.percent = relative_percents(raw, self.low, self.high)

    # --- lookups ----------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.ids)

    def rows_of_ids(self, ids: np.ndarray) -> np.ndarray:
        """Rows of lattice ids (-1 where not shown)."""
        ids = np.asarray(ids, dtype=self._ids)
        if self.whole:
            return np.where((ids >= 0) & (ids < len(self.ids)), ids, -1)
        pos = np.searchsorted(self.ids, ids)
        pos = np.minimum(pos, max(len(self.ids) - 1, 0))
        return np.where((len(self.ids) > 0) & (self.ids[pos] == ids), pos, -1)

    def row_of_id(self, node_id: int | None) -> int:
        if node_id is None:
            return -1
        return int(self.rows_of_ids(np.array([node_id], dtype=self._ids))[0])

    def row_of(self, levels: Sequence[int]) -> int:
        """Row of a level vector, or -1 when it is not shown (or not in the lattice)."""
        levels = tuple(int(v) for v in levels)
        if not self.lattice.contains(levels):
            return -1
        return self.row_of_id(self.lattice.id_of(levels))

    def levels_of(self, row: int) -> tuple[int, ...]:
        return tuple(int(v) for v in self.levels[row])

    def raw_loss(self, row: int):
        """Exact loss of a checked row, the lower bound otherwise (or None)."""
        return self.space.info(int(self.ids[row])).loss

    def heights(self) -> np.ndarray:
        """Level of each row in the lattice (steps above the bottom)."""
        return self.levels.sum(axis=1, dtype=np.int64) - int(sum(self.lattice.min_levels))

    def counts(self, mask: np.ndarray | None = None) -> NodeCounts:
        if mask is None:
            return NodeCounts.of(self.states, self.checked)
        return NodeCounts.of(self.states[mask], self.checked[mask])

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """(lower, upper) rows of every direct generalization between shown rows."""
        lat = self.lattice
        strides = place_values(lat.radix, self._ids)
        highs = np.asarray(lat.max_levels, dtype=np.int16)
        lows, ups = [], []
        for j in range(lat.dimensions):
            can = self.levels[:, j] < highs[j]
            src = np.flatnonzero(can)
            dst = self.rows_of_ids(self.ids[src] + strides[j])
            ok = dst >= 0
            lows.append(src[ok])
            ups.append(dst[ok])
        if not lows:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return np.concatenate(lows).astype(np.int64), np.concatenate(ups).astype(np.int64)

    # --- updates from on-demand checks ------------------------------------------------
    def record(self, levels: Sequence[int], anonymous: bool, loss, suppressed: int) -> int:
        """Store a check done on demand (in the space too); adds the row if not shown.

        Returns the row. Adding rows keeps ids sorted, so earlier row numbers may
        move: callers re-read rows after a call that adds.
        """
        node_id = self.lattice.id_of(levels)
        self.space.record(node_id, anonymous, loss, suppressed)
        row = self.row_of_id(node_id)
        if row < 0:
            row = self._insert(node_id, levels)
        self.states[row] = ANONYMOUS if anonymous else NOT_ANONYMOUS
        self.checked[row] = True
        self.suppressed[row] = suppressed
        self.percent[row] = relative_percents(loss_array([loss], self._width),
                                              self.low, self.high)[0]
        return row

    def _insert(self, node_id: int, levels: Sequence[int]) -> int:
        pos = int(np.searchsorted(self.ids, node_id))
        self.ids = np.insert(self.ids, pos, node_id)
        self.levels = np.insert(self.levels, pos, np.asarray(levels, dtype=np.int16), axis=0)
        self.states = np.insert(self.states, pos, UNKNOWN)
        self.checked = np.insert(self.checked, pos, False)
        self.suppressed = np.insert(self.suppressed, pos, -1)
        self.percent = np.insert(self.percent, pos, np.nan)
        if self.optimum >= pos:
            self.optimum += 1
        return pos
