"""A generalization hierarchy proposed for a column from its data type and values.

- **Numbers**: intervals of a round width (1, 2, 5, 10, 20, 50...) giving about
  ``target_intervals`` base intervals over the data's range, then pairs of
  intervals merged level by level up to a single interval, then ``*``.
- **Dates**: month, year, decade, then ``*``.
- **Codes** (strings of one length made of digits and letters, such as ZIP
  or ICD codes): masked from the right, one character per level.
- **Categories**: the rarest values are hidden first (by frequency), so common
  values stay visible longest; two values or fewer: the value, then ``*``.

Every proposal is a builder specification (`engine.hierarchy.builders`), so
the hierarchy wizard can open it for editing, with a one-line reason.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from engine.data.datatypes import DateType, Kind, best_type
from engine.data.table import EncodedColumn
from engine.hierarchy.builders import (BuilderSpec, DateSpec, IntervalSpec, MaskingSpec,
                                       PrioritySpec)
from engine.hierarchy.model import Hierarchy

_ROUND = (1, 2, 5)


@dataclass(frozen=True)
class HierarchyProposal:
    """A proposed hierarchy, the specification that builds it, and why."""

    attribute: str
    spec: BuilderSpec
    hierarchy: Hierarchy
    reason: str


def round_width(span: float, target: int) -> float:
    """The smallest width of the form {1, 2, 5} x 10^e with ``span / width <= target``."""
    if span <= 0:
        return 1
    raw = span / max(target, 1)
    exp = math.floor(math.log10(raw))
    for e in (exp, exp + 1):
        for m in _ROUND:
            w = m * 10.0 ** e
            if w >= raw:
                return int(w) if w >= 1 else w
    return 10.0 ** (exp + 1)


def _number_spec(data_type, values: np.ndarray, target: int) -> tuple[IntervalSpec, str]:
    numbers = np.asarray(data_type.parse(values), dtype=float)
    numbers = numbers[np.isfinite(numbers)]
    lo, hi = float(numbers.min()), float(numbers.max())
    width = round_width(hi - lo, target)
    start = math.floor(lo / width) * width
    n_intervals = max(1, math.ceil((hi - start) / width + 1e-12))
    if hi >= start + n_intervals * width:
        n_intervals += 1
    levels, groups = [], n_intervals
    while groups > 2:
        levels.append((2,))
        groups = math.ceil(groups / 2)

    def fmt(x: float) -> str:
        return str(int(x)) if float(x).is_integer() else repr(float(x))

    spec = IntervalSpec(data_type=data_type,
                        intervals=((fmt(start), fmt(start + width)),),
                        levels=tuple(levels))
    return spec, (f"numbers from {fmt(lo)} to {fmt(hi)}: intervals of {fmt(width)}, "
                  f"then pairs merged level by level")


_CODE_WORDS = re.compile(r"(zip|postcode|postal|plz|code|icd|fips|npi)", re.IGNORECASE)


def _is_code(values: list[str], name: str, numeric: bool) -> bool:
    """Strings of one length (3+) of letters and digits; numbers only when the name says
    code (``zip``, ``postcode``...) or a value keeps a leading zero."""
    if len(values) < 3:
        return False
    lengths = {len(v) for v in values}
    if len(lengths) != 1 or lengths.pop() < 3 or not all(v.isalnum() for v in values):
        return False
    return not numeric or bool(_CODE_WORDS.search(name)) or any(v[0] == "0" for v in values)


def propose_hierarchy(column: EncodedColumn, target_intervals: int = 16) -> HierarchyProposal:
    """A hierarchy for ``column`` chosen from its data type and values."""
    dictionary = np.asarray(column.dictionary).astype(str)
    counts = column.value_counts()
    present = [v for v, c in zip(dictionary, counts) if c > 0 and v != ""]
    data_type = best_type(column)
    kind = data_type.kind
    spec: BuilderSpec
    numeric = kind in (Kind.INTEGER, Kind.DECIMAL)
    if _is_code(present, column.name, numeric):
        spec = MaskingSpec()
        reason = (f"codes of {len(present[0])} characters: masked from the right, one "
                  f"character per level (as ZIP codes are)")
    elif numeric and len(present) > 2:
        spec, reason = _number_spec(data_type, np.asarray(present), target_intervals)
    elif kind is Kind.DATE and isinstance(data_type, DateType):
        spec = DateSpec(data_type=data_type, levels=("month", "year", "decade"))
        reason = "dates: kept to the month, then the year, then the decade"
    elif len(present) <= 2:
        spec = PrioritySpec(max_levels=1)
        reason = (f"{len(present)} value{'' if len(present) == 1 else 's'}: kept, or hidden "
                  f"altogether")
    else:
        spec = PrioritySpec(max_levels=min(len(present) - 1, 3))
        reason = (f"{len(present)} categories: the rarest are hidden first, common ones "
                  f"stay visible longest")
    return HierarchyProposal(column.name, spec, spec.build(column, column.name), reason)
