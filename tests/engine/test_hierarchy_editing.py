"""Editing an existing hierarchy: add, remove, relabel and regroup, always valid or refused."""
from __future__ import annotations

import pytest

from engine.errors import HierarchyError
from engine.hierarchy.csv_io import hierarchy_to_csv, read_hierarchy, write_hierarchy
from engine.hierarchy.editing import (add_level, duplicate_level, groups, groups_per_level,
                                      move_value, regroup, relabel, remove_level)
from engine.hierarchy.model import Hierarchy

AGES = Hierarchy.from_rows([
    ("21", "20-24", "20-29", "*"),
    ("23", "20-24", "20-29", "*"),
    ("26", "25-29", "20-29", "*"),
    ("31", "30-34", "30-39", "*"),
    ("38", "35-39", "30-39", "*"),
], attribute="age", source="ages.csv")


def test_groups_and_groups_per_level():
    assert groups(AGES, 2) == {"20-29": ["21", "23", "26"], "30-39": ["31", "38"]}
    assert groups_per_level(AGES) == [5, 4, 2, 1]
    with pytest.raises(HierarchyError, match="out of range"):
        groups(AGES, 4)


def test_add_level_constant_or_copy_of_top():
    h = add_level(AGES)
    assert h.levels == 5 and h.level_labels(4) == ["*"]
    h = add_level(remove_level(AGES, 3), label=None)
    assert h.mapping(3) == h.mapping(2)
    assert add_level(AGES).attribute == "age"
    with pytest.raises(HierarchyError, match="empty"):
        add_level(AGES, "")


def test_duplicate_and_remove_levels():
    h = duplicate_level(AGES, 1)
    assert h.levels == 5 and h.mapping(2) == h.mapping(1) and h.mapping(3) == AGES.mapping(2)
    h = remove_level(AGES, 1)
    assert h.rows[0] == ("21", "20-29", "*")
    assert remove_level(remove_level(remove_level(AGES, 3), 2), 1).levels == 1
    with pytest.raises(HierarchyError, match="out of range"):
        remove_level(AGES, 0)
    with pytest.raises(HierarchyError, match="only the original values"):
        remove_level(Hierarchy.identity(["a"]), 1)


def test_relabel_renames_everywhere_and_merges_only_compatible_groups():
    h = relabel(AGES, 2, "20-29", "twenties")
    assert groups(h, 2)["twenties"] == ["21", "23", "26"]
    merged = relabel(AGES, 1, "25-29", "20-24")  # same parent 20-29: fine
    assert groups(merged, 1)["20-24"] == ["21", "23", "26"]
    with pytest.raises(HierarchyError, match="not a function"):
        relabel(AGES, 1, "30-34", "20-24")  # 30-34 belongs to 30-39
    with pytest.raises(HierarchyError, match="no label"):
        relabel(AGES, 1, "90-94", "x")
    assert AGES.mapping(1)["26"] == "25-29"  # the original is untouched


def test_regroup_moves_a_group_and_its_ancestors_follow():
    h = regroup(AGES, 2, "25-29", "30-39")
    assert groups(h, 2) == {"20-29": ["21", "23"], "30-39": ["26", "31", "38"]}
    h = regroup(AGES, 1, "26", "20-24")
    assert groups(h, 1)["20-24"] == ["21", "23", "26"] and "25-29" not in groups(h, 1)
    h = regroup(AGES, 2, "35-39", "late thirties")  # a new group keeps its parent
    assert h.mapping(2)["38"] == "late thirties" and h.mapping(3)["38"] == "*"
    with pytest.raises(HierarchyError, match="no label of level 1 '40-44'"):
        regroup(AGES, 2, "40-44", "30-39")


def test_regroup_into_an_existing_group_takes_its_labels_above():
    h = Hierarchy.from_rows([("a", "A", "AB", "X"), ("b", "B", "AB", "X"),
                             ("c", "C", "CD", "Y"), ("d", "D", "CD", "Y")])
    moved = regroup(h, 1, "c", "A")
    assert moved.mapping(1)["c"] == "A" and moved.mapping(2)["c"] == "AB"
    assert moved.mapping(3)["c"] == "X"


def test_move_value_refuses_to_break_the_function_property():
    h = move_value(AGES, "26", 1, "30-34")
    assert h.mapping(2)["26"] == "30-39"
    with pytest.raises(HierarchyError, match="shares label '20-24' with '23'"):
        move_value(AGES, "21", 2, "30-39")
    h = move_value(AGES, "38", 2, "20-29")  # alone in 35-39: allowed
    assert groups(h, 2)["20-29"] == ["21", "23", "26", "38"]
    with pytest.raises(HierarchyError, match="no value"):
        move_value(AGES, "99", 1, "x")


def test_edit_an_imported_hierarchy_and_save_it_back(tmp_path):
    path = tmp_path / "h.csv"
    write_hierarchy(AGES, path)
    h = read_hierarchy(path, attribute="age")
    h = relabel(add_level(remove_level(h, 1), None), 1, "30-39", "30+")
    write_hierarchy(h, path)
    again = read_hierarchy(path)
    assert again.rows == h.rows
    assert hierarchy_to_csv(again).splitlines()[3] == "31;30+;*;*"
