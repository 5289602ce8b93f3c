"""Groups of groups: the fan-out levels shared by the intervals and ordering builders.

A level is a sequence of groups, each with a size (how many items of the
level below it holds) and a label function. The sequence repeats without end
in both directions, anchored at item 0: with sizes ``(2, 3)`` items 0-1 form
group 0, items 2-4 group 1, items 5-6 group 2, ..., and items -3..-1 group -1.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from engine.hierarchy.builders.base import BuilderError
from engine.hierarchy.builders.labels import Label


@dataclass(frozen=True)
class Group:
    """``size`` items of the level below, named by ``label``."""

    size: int
    label: Label = field(default_factory=Label)

    def __post_init__(self) -> None:
        if isinstance(self.size, bool) or not isinstance(self.size, int) or self.size < 1:
            raise BuilderError(f"a group size must be a whole number >= 1, not {self.size!r}")
        object.__setattr__(self, "label", Label.of(self.label))

    def to_json(self) -> dict[str, Any]:
        return {"size": self.size, "label": self.label.to_json()}


Level = tuple[Group, ...]


def _group(obj: Any, default: Label) -> Group:
    if isinstance(obj, Group):
        return obj
    if isinstance(obj, int) and not isinstance(obj, bool):
        return Group(obj, default)
    if isinstance(obj, Mapping):
        unknown = set(obj) - {"size", "label"}
        if unknown or "size" not in obj:
            raise BuilderError(f"a group is {{'size': n, 'label': ...}}, not {dict(obj)!r}")
        return Group(obj["size"], Label.of(obj.get("label", default)))
    raise BuilderError(f"a group must be a size or {{'size': n, 'label': ...}}, not {obj!r}")


def normalize_levels(levels: Any, default: Label) -> tuple[Level, ...]:
    """Levels from the forms people write: ``[2, 2]``, ``[[2, 3], [5]]``, `Group` objects
    or JSON ``[[{"size": 2, "label": "set"}]]``; a bare size uses label ``default``."""
    out = []
    for i, level in enumerate(levels, start=1):
        items = [level] if isinstance(level, (int, Group, Mapping)) else list(level)
        if not items:
            raise BuilderError(f"grouping level {i} has no groups")
        out.append(tuple(_group(g, default) for g in items))
    return tuple(out)


def levels_to_json(levels: Sequence[Level]) -> list[list[dict[str, Any]]]:
    return [[g.to_json() for g in level] for level in levels]


def fold(index: int, level: Level) -> tuple[int, int]:
    """The group (global index, position in the level's pattern) holding item ``index``."""
    sizes = [g.size for g in level]
    period = sum(sizes)
    repeat, rest = divmod(index, period)
    for pos, end in enumerate(accumulate(sizes)):
        if rest < end:
            return repeat * len(sizes) + pos, pos
    raise AssertionError("unreachable")


def children(group: int, level: Level) -> tuple[int, int]:
    """First and last item (of the level below) of global group ``group``."""
    sizes = [g.size for g in level]
    repeat, pos = divmod(group, len(sizes))
    first = repeat * sum(sizes) + sum(sizes[:pos])
    return first, first + sizes[pos] - 1


def span(group: int, levels: Sequence[Level], depth: int) -> tuple[int, int]:
    """First and last base item of the global group ``group`` of ``levels[depth]``."""
    first = last = group
    for level in reversed(levels[:depth + 1]):
        first, last = children(first, level)[0], children(last, level)[1]
    return first, last


def assign(base: Mapping[str, int], levels: Sequence[Level]) -> list[dict[str, tuple[int, int]]]:
    """For each level: value -> (global group index, pattern position), from base items."""
    out = []
    current = dict(base)
    for level in levels:
        groups = {i: fold(i, level) for i in set(current.values())}  # fold each item once
        placed = {v: groups[i] for v, i in current.items()}
        out.append(placed)
        current = {v: g for v, (g, _) in placed.items()}
    return out
