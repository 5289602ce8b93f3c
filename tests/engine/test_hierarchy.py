"""Hierarchy reading, writing, validation messages and encoding."""
from __future__ import annotations

import numpy as np
import pytest

from engine.errors import HierarchyError
from engine.hierarchy import EncodedHierarchy, Hierarchy, read_hierarchy, write_hierarchy
from engine.problem import Problem
from engine.config import AttributeConfig, Job
from engine.data.table import EncodedTable
from engine.privacy import KAnonymity
import pandas as pd

from tests.oracle import SHARED


def test_read_adult_age(tmp_path):
    h = read_hierarchy(SHARED / "data/adult/adult_hierarchy_age.csv", "age")
    assert h.levels == 5 and h.height == 4
    assert h.mapping(4)["39"] == "*"


@pytest.mark.parametrize("delim", [";", ",", "\t", "|"])
def test_round_trip_any_delimiter(tmp_path, delim):
    h = Hierarchy.from_rows([("a", "ab", "*"), ("b", "ab", "*"), ("c", "c", "*")], "x")
    path = tmp_path / "h.csv"
    write_hierarchy(h, path, delimiter=delim)
    assert read_hierarchy(path, "x") == h
    assert not list(tmp_path.glob("*.tmp"))  # atomic write leaves no temporary file


def test_unequal_rows_named():
    with pytest.raises(HierarchyError, match=r"attribute 'x'.*row 2 \(value 'b'\) has 2 levels, "
                                             r"but row 1 has 3"):
        Hierarchy.from_rows([("a", "ab", "*"), ("b", "ab")], "x")


def test_duplicate_value_named():
    with pytest.raises(HierarchyError, match=r"value 'a' appears twice, in rows 1 and 3"):
        Hierarchy.from_rows([("a", "*"), ("b", "*"), ("a", "*")], "x")


def test_level_not_a_function_named():
    rows = [("a", "ab", "top1"), ("b", "ab", "top2")]
    with pytest.raises(HierarchyError, match=r"level 2 is not a function of level 1: label 'ab' "
                                             r"generalizes to 'top1' in row 1 but to 'top2' in row 2"):
        Hierarchy.from_rows(rows, "x")


def test_file_errors_name_the_file(tmp_path):
    with pytest.raises(HierarchyError, match="not found"):
        read_hierarchy(tmp_path / "missing.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("a;b\na;c\n")
    with pytest.raises(HierarchyError, match=r"bad\.csv.*value 'a' appears twice"):
        read_hierarchy(bad, "x")


def test_read_rows_are_the_files_cells(tmp_path):
    """Rows come from the CSV reader as tuples of str (quoted cells, blank lines
    skipped), equal to a hierarchy built from the same rows; broken files are named."""
    path = tmp_path / "h.csv"
    path.write_text('a;"a;b";*\n\nb;"a;b";*\n"c ""x""";c;*\n')
    h = read_hierarchy(path, "x", delimiter=";")
    expected = Hierarchy.from_rows([["a", "a;b", "*"], ["b", "a;b", "*"], ['c "x"', "c", "*"]],
                                   "x")
    assert h == expected and hash(h) == hash(expected) and h.rows == expected.rows
    assert all(type(c) is str for r in h.rows for c in r)
    path.write_text("a;ab;*\nb;ab\n")
    with pytest.raises(HierarchyError, match=r"h\.csv.*row 2 \(value 'b'\) has 2 levels"):
        read_hierarchy(path, "x")


def test_uncovered_value_names_attribute_value_and_row():
    df = pd.DataFrame({"x": ["a", "b", "zz", "a"]})
    h = Hierarchy.from_rows([("a", "*"), ("b", "*")], "x")
    job = Job(attributes={"x": AttributeConfig("quasi-identifying", h)}, privacy=[KAnonymity(2)])
    with pytest.raises(HierarchyError, match=r"attribute 'x'.*does not cover 1 data value\(s\): "
                                             r"'zz' \(data row 3\)"):
        Problem(EncodedTable.from_dataframe(df), job)


def test_encoding_maps_and_shares():
    h = Hierarchy.from_rows([("a", "ab", "*"), ("b", "ab", "*"), ("c", "c", "*"),
                             ("d", "d", "*")], "x")
    enc = EncodedHierarchy.build(h, ["c", "a"])  # data holds only c and a
    assert list(enc.labels[1][enc.maps[1]]) == ["c", "ab"]
    assert enc.n_rows == 4
    ab = list(enc.labels[1]).index("ab")
    assert enc.rows_per_label[1][ab] == 2
    assert np.array_equal(enc.maps[2], [0, 0])


def test_unreadable_csv_names_file_and_line(tmp_path):
    # a quoted field beyond the csv module's limit: a message, not a csv.Error traceback
    path = tmp_path / "huge.csv"
    path.write_text('a;*\n"' + "x" * 200_000 + '";*\n', encoding="utf-8")
    with pytest.raises(HierarchyError, match=r"huge\.csv, line 2: not readable as CSV"):
        read_hierarchy(path, "x")
