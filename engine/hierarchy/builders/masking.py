"""Masking builder: redact one more character per level (ZIP ``91326`` -> ``9132*``).

Values are first padded to a common length: ``align="right"`` pads on the
left (``"  123"``), ``align="left"`` on the right (``"123  "``). Level ``l``
masks ``l`` characters of the padded value, from the right end
(``direction="right_to_left"``) or the left end (``"left_to_right"``); the
top level masks every character. Level 0 keeps the values as they are.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.data.table import EncodedColumn
from engine.hierarchy.builders.base import BuilderError, BuilderSpec, column_values, finish, take
from engine.hierarchy.model import Hierarchy

DIRECTIONS = ("right_to_left", "left_to_right")
ALIGNMENTS = ("left", "right")


@dataclass(frozen=True)
class MaskingSpec(BuilderSpec):
    """Specification of a masking (redaction) hierarchy; valid for every data type.

    Parameters
    ----------
    direction
        ``"right_to_left"`` masks the last character first, ``"left_to_right"``
        the first.
    align
        ``"left"``: values start at the left and are padded on the right;
        ``"right"``: padded on the left (numbers of different lengths).
    padding_char, mask_char
        One character each.
    length
        Length to pad to; ``None`` means the longest value's length.
    max_levels
        At most this many generalization levels above level 0 (the last is
        always fully masked); ``None`` means one per character.
    """

    name: ClassVar[str] = "masking"
    title: ClassVar[str] = "Masking"

    direction: str = "right_to_left"
    align: str = "left"
    padding_char: str = " "
    mask_char: str = "*"
    length: int | None = None
    max_levels: int | None = None

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise BuilderError(f"direction must be one of {', '.join(DIRECTIONS)}, "
                               f"not '{self.direction}'")
        if self.align not in ALIGNMENTS:
            raise BuilderError(f"align must be one of {', '.join(ALIGNMENTS)}, not '{self.align}'")
        for name in ("padding_char", "mask_char"):
            value = getattr(self, name)
            if not isinstance(value, str) or len(value) != 1:
                raise BuilderError(f"{name} must be exactly one character, not {value!r}")
        for name in ("length", "max_levels"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < 1):
                raise BuilderError(f"{name} must be a whole number >= 1 or empty, not {value!r}")

    def pad(self, value: str, length: int) -> str:
        fill = self.padding_char * (length - len(value))
        return fill + value if self.align == "right" else value + fill

    def mask(self, padded: str, count: int) -> str:
        """``padded`` with ``count`` characters masked from the ``direction`` side."""
        count = min(count, len(padded))
        if self.direction == "right_to_left":
            return padded[:len(padded) - count] + self.mask_char * count
        return self.mask_char * count + padded[count:]

    def masked_counts(self, length: int) -> list[int]:
        """How many characters each generalization level masks (the last: all)."""
        steps = max(length, 1)
        if self.max_levels is None or self.max_levels >= steps:
            return list(range(1, steps + 1))
        # Spread the levels evenly; the top stays fully masked.
        return [round(steps * (i + 1) / self.max_levels) for i in range(self.max_levels)]

    def build(self, values: Iterable[Any] | EncodedColumn, attribute: str = "") -> Hierarchy:
        """The hierarchy of the distinct values of ``values`` (missing ``""`` stays ``""``)."""
        cv = column_values(values)
        present = sorted(cv.present)
        longest = max((len(v) for v in present), default=0)
        length = self.length if self.length is not None else longest
        if longest > length:
            too_long = next(v for v in present if len(v) > length)
            raise BuilderError(f"value '{too_long}' is longer than the masking length {length}")
        counts = self.masked_counts(length)
        rows = []
        for v in present:
            padded = self.pad(v, length)
            rows.append([v] + [self.mask(padded, c) for c in counts])
        return finish(rows, len(counts) + 1, cv.has_missing, attribute, self.name)

    def _fields_to_json(self) -> dict[str, Any]:
        return {"direction": self.direction, "align": self.align,
                "padding_char": self.padding_char, "mask_char": self.mask_char,
                "length": self.length, "max_levels": self.max_levels}

    @classmethod
    def _from_fields(cls, fields: dict[str, Any]) -> "MaskingSpec":
        f = take(fields, ("direction", "align", "padding_char", "mask_char", "length",
                          "max_levels"))
        return cls(**f)
