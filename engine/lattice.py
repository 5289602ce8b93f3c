"""The generalization lattice: transformations as level vectors, never materialized when huge."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Iterator, Sequence

import numpy as np

from engine.errors import LevelsError


@dataclass(frozen=True)
class Lattice:
    """All level vectors ``v`` with ``min_levels <= v <= max_levels``.

    Compact ids are mixed-radix numbers (Python ints, so any size is
    representable); ``id`` 0 is the bottom (least generalized) transformation.
    """

    attributes: tuple[str, ...]
    min_levels: tuple[int, ...]
    max_levels: tuple[int, ...]

    def __post_init__(self) -> None:
        for a, lo, hi in zip(self.attributes, self.min_levels, self.max_levels):
            if lo < 0 or hi < lo:
                raise ValueError(f"attribute '{a}': levels {lo}..{hi} are not a valid range")

    @property
    def dimensions(self) -> int:
        return len(self.attributes)

    @cached_property  # asked for by every check (``id_of``): computed once
    def radix(self) -> tuple[int, ...]:
        return tuple(hi - lo + 1 for lo, hi in zip(self.min_levels, self.max_levels))

    @property
    def size(self) -> int:
        n = 1
        for r in self.radix:
            n *= r
        return n

    @property
    def height(self) -> int:
        """Number of steps from bottom to top (the top's level minus the bottom's)."""
        return sum(hi - lo for lo, hi in zip(self.min_levels, self.max_levels))

    @property
    def bottom(self) -> tuple[int, ...]:
        return tuple(self.min_levels)

    @property
    def top(self) -> tuple[int, ...]:
        return tuple(self.max_levels)

    def level(self, levels: Sequence[int]) -> int:
        """Height of a transformation in the lattice (sum of steps above the bottom)."""
        return int(sum(levels)) - sum(self.min_levels)

    def contains(self, levels: Sequence[int]) -> bool:
        return len(levels) == self.dimensions and all(
            lo <= v <= hi for v, lo, hi in zip(levels, self.min_levels, self.max_levels))

    def checked(self, levels) -> tuple[int, ...]:
        """``levels`` (a dict by attribute, or a sequence in the lattice's attribute order)
        as a tuple of whole numbers inside the lattice; a ``LevelsError`` names an unknown
        attribute (with the closest known), a missing one, or a level outside its
        attribute's range (never wrapped round)."""
        import difflib
        import numbers
        names = self.attributes
        if isinstance(levels, dict):
            for key in levels:
                if key not in names:
                    near = difflib.get_close_matches(str(key), names, n=1, cutoff=0.5)
                    raise LevelsError(
                        f"'{key}' is not a quasi-identifier"
                        + (f" (did you mean '{near[0]}'?)" if near else "")
                        + f"; the quasi-identifiers: {', '.join(names)}")
            missing = [n for n in names if n not in levels]
            if missing:
                raise LevelsError(f"give a level for {', '.join(missing)}")
            levels = [levels[n] for n in names]
        else:
            levels = list(levels)
            if len(levels) != len(names):
                raise LevelsError(f"{len(levels)} levels for {len(names)} quasi-identifiers "
                                  f"({', '.join(names)})")
        out = []
        for name, v, lo, hi in zip(names, levels, self.min_levels, self.max_levels):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise LevelsError(f"the level of '{name}' must be a whole number, not {v!r}")
            if not lo <= v <= hi:
                raise LevelsError(f"the level of '{name}' is {int(v)}, outside the lattice: its "
                                  f"range is {lo}..{hi}")
            out.append(int(v))
        return tuple(out)

    def id_of(self, levels: Sequence[int]) -> int:
        i = 0
        for v, lo, r in zip(levels, self.min_levels, self.radix):
            i = i * r + (int(v) - lo)
        return i

    def levels_of(self, node_id: int) -> tuple[int, ...]:
        out = []
        for lo, r in zip(reversed(self.min_levels), reversed(self.radix)):
            node_id, d = divmod(node_id, r)
            out.append(lo + d)
        return tuple(reversed(out))

    def successors(self, levels: Sequence[int]) -> list[tuple[int, ...]]:
        """Direct generalizations: one attribute one level up."""
        out = []
        for j, (v, hi) in enumerate(zip(levels, self.max_levels)):
            if v < hi:
                s = list(levels)
                s[j] += 1
                out.append(tuple(s))
        return out

    def predecessors(self, levels: Sequence[int]) -> list[tuple[int, ...]]:
        """Direct specializations: one attribute one level down."""
        out = []
        for j, (v, lo) in enumerate(zip(levels, self.min_levels)):
            if v > lo:
                s = list(levels)
                s[j] -= 1
                out.append(tuple(s))
        return out

    def all_levels(self) -> np.ndarray:
        """Every transformation as rows of a (size x dimensions) array, in id order.

        Only for lattices that fit in memory; callers check ``size`` first.
        """
        if self.dimensions == 0:
            return np.zeros((1, 0), dtype=np.int16)
        grids = np.indices(self.radix, dtype=np.int16).reshape(self.dimensions, -1).T
        return grids + np.asarray(self.min_levels, dtype=np.int16)

    def ids_of(self, levels: np.ndarray) -> np.ndarray:
        """Vectorized ``id_of`` for lattices whose size fits in int64."""
        ids = np.zeros(len(levels), dtype=np.int64)
        for j, (lo, r) in enumerate(zip(self.min_levels, self.radix)):
            ids = ids * r + (levels[:, j].astype(np.int64) - lo)
        return ids

    def iter_levels(self) -> Iterator[tuple[int, ...]]:
        for i in range(self.size):
            yield self.levels_of(i)
