"""The interval structure being edited: base intervals and groups of groups (no Qt).

An `IntervalDraft` is mutable and may be invalid while the user types (an
empty or reversed interval); `to_spec` makes the `IntervalSpec`, raising a
`BuilderError` that says what is wrong. `layout` places the boxes the
structure view draws: one period of the top level's pattern, with the
repeated copies of the base intervals and groups it needs.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine.data.datatypes import DataType
from engine.hierarchy.builders import BaseInterval, BuilderError, Group, IntervalSpec, Label
from engine.hierarchy.builders.grouping import fold, span
from engine.hierarchy.builders.scales import Scale

MAX_BOXES = 60  # base items drawn at most; the rest is elided


@dataclass
class DraftInterval:
    lower: str
    upper: str
    label: Label = field(default_factory=Label)


@dataclass
class DraftGroup:
    size: int
    label: Label = field(default_factory=Label)


@dataclass(frozen=True)
class Box:
    """A drawn box: ``row`` 0 holds base intervals, row ``d`` the groups of level ``d``;
    ``pos`` is its place in the editable pattern; it covers base items ``first..last``."""

    row: int
    pos: int
    first: int
    last: int
    text: str
    detail: str
    repeat: bool


class IntervalDraft:
    """Base intervals and grouping levels, editable in place."""

    def __init__(self, data_type: DataType):
        self.data_type = data_type
        self.scale = Scale(data_type)
        self.intervals: list[DraftInterval] = []
        self.levels: list[list[DraftGroup]] = []

    @classmethod
    def from_spec(cls, spec: IntervalSpec) -> "IntervalDraft":
        d = cls(spec.data_type)
        d.intervals = [DraftInterval(i.lower, i.upper, i.label) for i in spec.intervals]
        d.levels = [[DraftGroup(g.size, g.label) for g in level] for level in spec.levels]
        return d

    def to_spec(self, bottom: str | None = None, top: str | None = None,
                top_label: str = "*") -> IntervalSpec:
        return IntervalSpec(self.data_type,
                            tuple(BaseInterval(i.lower, i.upper, i.label) for i in self.intervals),
                            tuple(tuple(Group(g.size, g.label) for g in lv) for lv in self.levels),
                            bottom, top, top_label)

    # --- base intervals ------------------------------------------------------------------
    def set_lower(self, pos: int, text: str) -> None:
        """Move the lower bound of interval ``pos`` (and the upper of the one before)."""
        self.intervals[pos].lower = text
        if pos > 0:
            self.intervals[pos - 1].upper = text

    def set_upper(self, pos: int, text: str) -> None:
        """Move the upper bound of interval ``pos`` (and the lower of the one after)."""
        self.intervals[pos].upper = text
        if pos + 1 < len(self.intervals):
            self.intervals[pos + 1].lower = text

    def _numbers(self, item: DraftInterval):
        try:
            return self.scale.parse(item.lower), self.scale.parse(item.upper)
        except BuilderError:
            raise BuilderError("fix the bounds of the intervals first") from None

    def add_interval(self) -> int:
        """Append an interval as wide as the last one; returns its position."""
        last = self.intervals[-1]
        lo, hi = self._numbers(last)
        self.intervals.append(DraftInterval(last.upper, self.scale.format(hi + (hi - lo)),
                                            last.label))
        return len(self.intervals) - 1

    def split_interval(self, pos: int) -> None:
        """Cut interval ``pos`` in two at its middle."""
        item = self.intervals[pos]
        lo, hi = self._numbers(item)
        mid = self.scale.format((lo + hi) / 2)
        if self.scale.parse(mid) <= lo:
            raise BuilderError(f"[{item.lower}, {item.upper}[ is too narrow to split")
        self.intervals.insert(pos + 1, DraftInterval(mid, item.upper, item.label))
        item.upper = mid

    def remove_interval(self, pos: int) -> None:
        """Drop interval ``pos``; the next one grows down to keep them contiguous."""
        if len(self.intervals) == 1:
            raise BuilderError("the hierarchy needs at least one base interval")
        item = self.intervals.pop(pos)
        if pos < len(self.intervals):
            self.intervals[pos].lower = item.lower

    # --- groups ----------------------------------------------------------------------------
    def add_level(self) -> int:
        self.levels.append([DraftGroup(2, Label("interval"))])
        return len(self.levels)

    def remove_level(self, row: int) -> None:
        del self.levels[row - 1]

    def add_group(self, row: int, after: int) -> int:
        level = self.levels[row - 1]
        level.insert(after + 1, DraftGroup(level[after].size, level[after].label))
        return after + 1

    def remove_group(self, row: int, pos: int) -> None:
        """Drop group ``pos`` of level ``row``; the last group takes the level with it."""
        level = self.levels[row - 1]
        if len(level) == 1:
            self.remove_level(row)
        else:
            del level[pos]

    # --- what the view draws -------------------------------------------------------------
    def layout(self, spec: IntervalSpec | None) -> tuple[list[Box], int, bool]:
        """The boxes, the number of base items drawn, and whether some were elided.

        ``spec`` (this draft as a valid specification, or ``None``) gives the bounds
        of repeated intervals; without it repeats show no bounds.
        """
        n = len(self.intervals)
        groups = [tuple(Group(g.size) for g in lv) for lv in self.levels]
        needed = n
        if groups:
            # Whole groups only: up to the end of the top group holding the last base
            # interval, and at least the top level's whole pattern.
            top = n - 1
            for level in groups:
                top = fold(top, level)[0]
            top = max(top, len(groups[-1]) - 1)
            needed = span(top, groups, len(groups) - 1)[1] + 1
        shown = min(needed, MAX_BOXES)
        rep = spec.repetition() if spec is not None else None
        boxes = []
        for i in range(shown):
            item = self.intervals[i % n]
            if rep is not None:
                lo, hi = rep.interval(i)
                text = f"[{self.scale.format(lo)}, {self.scale.format(hi)}["
            else:
                text = f"[{item.lower}, {item.upper}[" if i < n else "…"
            boxes.append(Box(0, i % n, i, i, text, _label_text(item.label), i >= n))
        for depth, level in enumerate(groups):
            g = 0
            while True:
                first, last = span(g, groups, depth)
                if first >= shown:
                    break
                pos = g % len(level)
                draft = self.levels[depth][pos]
                text = f"{draft.size} of level {depth + 1}"
                if rep is not None:
                    lo, hi = rep.interval(first)[0], rep.interval(last)[1]
                    text = f"[{self.scale.format(lo)}, {self.scale.format(hi)}["
                boxes.append(Box(depth + 1, pos, first, min(last, shown - 1), text,
                                 f"size {draft.size} · {_label_text(draft.label)}",
                                 g >= len(level)))
                g += 1
        return boxes, shown, needed > shown


def _label_text(label: Label) -> str:
    if label.function == "constant":
        return f"“{label.text}”"
    return label.function.replace("_", " ")
