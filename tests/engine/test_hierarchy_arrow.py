"""Hierarchy files read by Arrow (engine/hierarchy/csv_io.py `_read_arrow`) give the
hierarchy the CSV reader gives: the same rows, the same encoding against a column, or
the same error message (Arrow leaves every file it cannot promise that for to the CSV
reader)."""
from __future__ import annotations

import glob

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hypothesis_profiles import examples

from engine.errors import HierarchyError
from engine.hierarchy import EncodedHierarchy, csv_io, read_hierarchy
from tests.shared_data import SHARED

TEXTS = {
    "crlf": "a;x;*\r\nb;x;*\r\n",
    "crlf and blank lines": "\r\na;x;*\r\n\r\nb;x;*\r\n",
    "lone cr": "a;x;*\rb;x;*\r",
    "line separator in a value": "a\u2028;x;*\nb;x;*\n",
    "whitespace line": "a;x;*\n \nb;x;*\n",
    "whitespace value, one level": "a\n \nb\n",
    "no final newline": "a;x;*\nb;x;*",
    "empty labels": ";x;*\nb;;*\n",
    "NA kept": "NA;null;*\nnan;N/A;*\n",
    "ragged": "a;x;*\nb;x\n",
    "duplicate value": "a;x;*\na;x;*\n",
    "not a function": "a;x;*\nb;x;+\n",
    "unicode": "\u00e9;\u00fc;*\n\u00df;\u00fc;*\n",
    "quotes": 'a;"x;y";*\nb;"x;y";*\n',
    "tabs": "a\tx\nb\tx\n",
    "empty": "\n\n",
}


def both(path, monkeypatch):
    """(the CSV reader's hierarchy or error text, the Arrow path's)."""
    out = []
    for arrow in (False, True):
        if not arrow:
            monkeypatch.setattr(csv_io, "_read_arrow", lambda text, delimiter: None)
        else:
            monkeypatch.undo()
        try:
            out.append(read_hierarchy(path, "x"))
        except HierarchyError as e:
            out.append(f"HierarchyError: {e}")
    return out


def assert_same(a, b, values):
    assert type(a) is type(b)
    if isinstance(a, str):
        assert a == b
        return
    assert a.rows == b.rows and a == b
    for got, want in ((EncodedHierarchy.build(b, values), EncodedHierarchy.build(a, values)),):
        for x, y in zip(got.maps + got.labels + got.rows_per_label,
                        want.maps + want.labels + want.rows_per_label):
            assert x.dtype == y.dtype and x.tolist() == y.tolist()
        assert got.n_rows == want.n_rows


@pytest.mark.parametrize("name", list(TEXTS))
def test_awkward_hierarchy_files_read_alike(tmp_path, monkeypatch, name):
    path = tmp_path / "h.csv"
    path.write_bytes(TEXTS[name].encode("utf-8"))
    slow, fast = both(path, monkeypatch)
    assert_same(slow, fast, [r[0] for r in slow.rows][::-1] if not isinstance(slow, str) else [])


def test_arrow_reads_the_shared_hierarchies():
    files = sorted(glob.glob(str(SHARED / "data" / "**" / "*hierarchy*.csv"), recursive=True))
    assert files
    for f in files:
        assert read_hierarchy(f).arrow_columns() is not None, f


@settings(deadline=None, max_examples=examples(150))
@given(st.lists(st.lists(st.sampled_from(["a", "b", "", " ", "\u00e9", "*", "ab"]),
                         min_size=1, max_size=3), min_size=1, max_size=8),
       st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_random_hierarchy_files_read_alike(tmp_path_factory, rows, newline, blank):
    lines = [";".join(r) for r in rows]
    if blank:
        lines.insert(len(lines) // 2, "")
    path = tmp_path_factory.mktemp("h") / "h.csv"
    path.write_bytes(newline.join(lines).encode("utf-8"))
    with pytest.MonkeyPatch.context() as mp:
        slow, fast = both(path, mp)
    values = np.array([r[0] for r in slow.rows], dtype=object)[::-1].tolist() \
        if not isinstance(slow, str) else []
    assert_same(slow, fast, values)
