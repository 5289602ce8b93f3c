"""Pure edits of a `Hierarchy` for the hierarchy editor: each returns a new hierarchy.

Level 0 holds the original values and is never edited here. Every result is
validated by `Hierarchy` itself; an edit that would make a level no longer a
function of the level below raises `HierarchyError` naming the labels.
"""
from __future__ import annotations

from engine.errors import HierarchyError
from engine.hierarchy.model import Hierarchy

Rows = list[list[str]]


def _rows(h: Hierarchy) -> Rows:
    return [list(r) for r in h.rows]


def _rebuild(h: Hierarchy, rows: Rows) -> Hierarchy:
    return Hierarchy.from_rows(rows, attribute=h.attribute, source=h.source)


def _check_level(h: Hierarchy, level: int, lowest: int = 1) -> None:
    if not lowest <= level <= h.height:
        if h.height < lowest:
            raise HierarchyError(f"the hierarchy has no level {level}: it has only "
                                 f"the original values")
        raise HierarchyError(f"level {level} is out of range: choose {lowest} to {h.height}")


def groups(h: Hierarchy, level: int) -> dict[str, list[str]]:
    """Each label of ``level`` with the original values it holds, in row order."""
    if not 0 <= level <= h.height:
        raise HierarchyError(f"level {level} is out of range: choose 0 to {h.height}")
    out: dict[str, list[str]] = {}
    for r in h.rows:
        out.setdefault(r[level], []).append(r[0])
    return out


def groups_per_level(h: Hierarchy) -> list[int]:
    """The number of distinct labels at each level (level 0: distinct values)."""
    return [len(set(r[level] for r in h.rows)) for level in range(h.levels)]


def add_level(h: Hierarchy, label: str | None = "*") -> Hierarchy:
    """Append a new top level: every row gets ``label``, or (``None``) a copy of the top."""
    if label == "":
        raise HierarchyError("a new level's label must not be empty")
    return _rebuild(h, [r + [r[-1] if label is None else label] for r in _rows(h)])


def duplicate_level(h: Hierarchy, level: int) -> Hierarchy:
    """Insert a copy of ``level`` just above it (a starting point for regrouping)."""
    _check_level(h, level, lowest=0)
    return _rebuild(h, [r[:level + 1] + [r[level]] + r[level + 1:] for r in _rows(h)])


def remove_level(h: Hierarchy, level: int) -> Hierarchy:
    """Drop ``level`` (1 .. height); the level above then generalizes the one below."""
    _check_level(h, level)
    return _rebuild(h, [r[:level] + r[level + 1:] for r in _rows(h)])


def relabel(h: Hierarchy, level: int, old: str, new: str) -> Hierarchy:
    """Rename label ``old`` of ``level`` to ``new`` in every row.

    If ``new`` already names a group of ``level`` the two groups merge, which
    is allowed only when both generalize to the same labels above.
    """
    _check_level(h, level)
    if not new:
        raise HierarchyError("a label must not be empty")
    rows = _rows(h)
    if not any(r[level] == old for r in rows):
        raise HierarchyError(f"level {level} has no label '{old}'")
    for r in rows:
        if r[level] == old:
            r[level] = new
    return _rebuild(h, rows)


def regroup(h: Hierarchy, level: int, item: str, target: str) -> Hierarchy:
    """Move ``item`` (a label of ``level - 1``; an original value when ``level`` is 1)
    into the group ``target`` of ``level``.

    If ``target`` already exists at ``level`` the moved rows take its labels at
    every level above too; otherwise ``target`` is a new group with the
    item's former labels above it. The result is therefore always valid.
    """
    _check_level(h, level)
    if not target:
        raise HierarchyError("a label must not be empty")
    rows = _rows(h)
    moved = [r for r in rows if r[level - 1] == item]
    if not moved:
        below = "value" if level == 1 else f"label of level {level - 1}"
        raise HierarchyError(f"no {below} '{item}' to move")
    above = next((r[level + 1:] for r in rows if r[level] == target and r[level - 1] != item),
                 None)
    for r in moved:
        r[level] = target
        if above is not None:
            r[level + 1:] = above
    return _rebuild(h, rows)


def move_value(h: Hierarchy, value: str, level: int, target: str) -> Hierarchy:
    """Give the single original ``value`` the label ``target`` at ``level`` (and the
    labels of ``target``'s group above it, if that group exists).

    Raises `HierarchyError` if ``value`` shares a label below ``level`` with other
    values, since the hierarchy would then no longer be a function.
    """
    _check_level(h, level)
    rows = _rows(h)
    row = next((r for r in rows if r[0] == value), None)
    if row is None:
        raise HierarchyError(f"the hierarchy has no value '{value}'")
    for lower in range(1, level):
        shared = [r[0] for r in rows if r[lower] == row[lower] and r is not row]
        if shared:
            raise HierarchyError(
                f"cannot move '{value}' alone at level {level}: at level {lower} it shares "
                f"label '{row[lower]}' with '{shared[0]}'; move '{row[lower]}' with "
                f"regroup(level={lower + 1}) or change level {lower} first")
    # Alone in its groups below ``level``: moving its level-(level-1) label moves it only.
    return regroup(h, level, row[level - 1], target)
