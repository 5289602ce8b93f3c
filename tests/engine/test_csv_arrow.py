"""The Arrow reader of large CSV files (engine/data/csv_arrow.py) gives the table pandas'
reader gives (engine/data/csv_import.py): the same values, rows, categories and column
names, or, where Arrow cannot promise that, the same result or error through pandas."""
from __future__ import annotations

import csv
import io

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hypothesis_profiles import examples

from engine.data import csv_arrow
from engine.data.csv_import import CsvFormat, _check, read_csv, read_csv_encoded
from engine.data.table import EncodedTable
from engine.errors import DataError
from tests.shared_data import SHARED


def read_both(path, monkeypatch, **fmt):
    """(pandas' result, the Arrow path's result): a DataFrame or the DataError's text."""
    out = []
    for limit in (1 << 60, 0):
        monkeypatch.setattr(csv_arrow, "MIN_BYTES", limit)
        try:
            out.append(read_csv(path, categorical=True, **fmt))
        except DataError as e:
            out.append(f"DataError: {e}")
    return out


def assert_same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
        return
    pd.testing.assert_frame_equal(a, b)
    assert a.attrs == b.attrs


def assert_encoded_alike(path, monkeypatch, pandas_result, **fmt):
    """`read_csv_encoded` (Arrow straight to codes, no DataFrame) gives the table
    ``EncodedTable.from_dataframe`` makes of pandas' result: names, codes, dictionaries
    (values and order), or the same error."""
    monkeypatch.setattr(csv_arrow, "MIN_BYTES", 0)
    try:
        encoded = read_csv_encoded(path, **fmt)
    except DataError as e:
        assert pandas_result == f"DataError: {e}"
        return
    assert not isinstance(pandas_result, str), pandas_result
    expected = EncodedTable.from_dataframe(pandas_result)
    assert encoded.names == expected.names
    assert encoded.n_rows == expected.n_rows
    for name in expected.names:
        got, want = encoded.column(name), expected.column(name)
        assert got.codes.dtype == want.codes.dtype == "int32"
        assert got.codes.tolist() == want.codes.tolist(), name
        assert got.dictionary.dtype == want.dictionary.dtype == object
        assert [type(v) for v in got.dictionary] == [str] * len(got.dictionary)
        assert got.dictionary.tolist() == want.dictionary.tolist(), name


def arrow_reads(path, fmt: CsvFormat) -> bool:
    return csv_arrow.read_categorical(path, fmt.delimiter, fmt.quotechar, _check(path, fmt),
                                      fmt.has_header) is not None


AWKWARD = {  # name: (bytes, format given, read by Arrow)
    "quotes and embedded delimiters": (
        b'id;name;note\n1;"Smith; John";"said ""hi"""\n2;"";x\n3; spaced ;"a\nb"\n',
        {}, False),  # doubled quotes inside values: pandas reads it
    "quoted everything": (b'"a","b"\n"1","x y"\n"2",""\n"3","z,w"\n', {}, True),
    "empty fields": (b"a;b;c\n;;\nx;;\n;;y\n", {}, True),
    "BOM": (b"\xef\xbb\xbfage;sex\n30;m\n40;f\n", {}, True),
    "latin-1": ("name;town\nJos\u00e9;Z\u00fcrich\nRen\u00e9e;Gen\u00e8ve\n".encode("latin-1"),
                {}, True),
    "cp1252 euro": ("item;price\nbook;\u20ac5\npen;\u20ac1\n".encode("cp1252"), {}, True),
    "crlf and blank lines": (b"a;b\r\n1;2\r\n\r\n3;4\r\n", {}, True),
    "lone cr": (b"a;b\r1;2\r3;4", {}, True),
    "trailing delimiter": (b"a;b;\n1;2;\n3;4;\n", {}, True),
    "no header": (b"1;2\n3;4\n", {"header": False}, True),
    "numbers only, codes kept": (b"2019;2020\n007;1.50\n10;7\n", {"header": True}, True),
    "numbers kept as text": (b"zip;age\n01234;007\n1e5;1.50\n", {}, True),
    "NA kept": (b"a;b\nNA;NULL\nnan;\n", {}, True),
    "unclosed quote": (b'a;b\n1;"2\n3;4\n', {}, False),
    "ragged": (b"a;b;c\n1;2;3\n4;5\n6;7;8\n", {}, False),
    "too many fields": (b"a;b\n1;2\n3;4;5\n", {}, False),
    "bad utf-8 late": (b"a;b\n" + b"x;y\n" * 40_000 + b"\xff;z\n",
                       {"encoding": "utf-8"}, False),
    "quote mid-value": (b'a;b\nx"y;1\n"q"r;2\n', {}, False),
    "one column": (b"a\n1\n \n2\n", {}, False),
    "duplicate names": (b"a;a\n1;2\n", {}, True),
}


@pytest.mark.parametrize("name", list(AWKWARD))
def test_awkward_files_read_alike(tmp_path, monkeypatch, name):
    data, fmt, by_arrow = AWKWARD[name]
    path = tmp_path / "data.csv"
    path.write_bytes(data)
    pandas_result, arrow_result = read_both(path, monkeypatch, **fmt)
    assert_same(pandas_result, arrow_result)
    assert_encoded_alike(path, monkeypatch, pandas_result, **fmt)
    if not isinstance(pandas_result, str):
        found = pandas_result.attrs["csv_format"]
        assert arrow_reads(path, found) == by_arrow  # where Arrow reads, it is tested


def test_codes_stay_text_on_both_paths(tmp_path, monkeypatch):
    """pandas made numbers of a column holding only numbers ("007" -> 7.0); neither path
    does now."""
    path = tmp_path / "data.csv"
    path.write_bytes(AWKWARD["numbers only, codes kept"][0])
    for frame in read_both(path, monkeypatch, header=True):
        assert list(frame.columns) == ["2019", "2020"]
        assert list(frame["2019"].astype(str)) == ["007", "10"]
        assert list(frame["2020"].cat.categories) == ["1.50", "7"]


def test_errors_name_the_line_as_before(tmp_path, monkeypatch):
    path = tmp_path / "data.csv"
    path.write_bytes(AWKWARD["ragged"][0])
    _, arrow_result = read_both(path, monkeypatch)
    assert arrow_result == "DataError: data.csv line 3 has 2 fields, expected 3"
    path.write_bytes(b'a;b\n1;2\n3;"4\n')
    _, arrow_result = read_both(path, monkeypatch)
    assert "near line 3" in arrow_result and "never closed" in arrow_result


def test_shared_adult_reads_alike(monkeypatch):
    path = SHARED / "data" / "adult" / "adult.csv"
    if not path.exists():
        pytest.skip("../shared/data/adult is not available")
    pandas_result, arrow_result = read_both(path, monkeypatch)
    assert_same(pandas_result, arrow_result)
    assert_encoded_alike(path, monkeypatch, pandas_result)
    assert arrow_reads(path, arrow_result.attrs["csv_format"])
    assert len(arrow_result) == 30162


VALUES = ["a", "b b", " ", "", "\u00e9", "x;y", 'q"q', '"', "l\nm", "c\rr", "\t", "1.0", "007",
          "NA", "\u20ac", " lead", "trail ", "'s'", ","]


@settings(deadline=None, max_examples=examples(150))
@given(st.integers(2, 4), st.lists(st.lists(st.sampled_from(VALUES), min_size=4, max_size=4),
                                   max_size=8),
       st.sampled_from([";", ",", "\t", "|"]), st.sampled_from(['"', "'"]),
       st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL]),
       st.sampled_from(["\n", "\r\n", "\r"]), st.sampled_from(["utf-8", "utf-8-sig", "cp1252"]),
       st.sampled_from(["", "blank line", "no final newline", "trailing delimiter",
                        "insert quote", "insert delimiter", "insert newline"]),
       st.integers(0, 10_000))
def test_random_files_read_alike(tmp_path_factory, width, rows, delimiter, quotechar, quoting,
                                 ending, encoding, damage, where):
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter, quotechar=quotechar, quoting=quoting,
               lineterminator=ending).writerows(
        [[f"h{j}" for j in range(width)]] + [r[:width] for r in rows])
    text = buf.getvalue()
    if damage == "blank line":
        text = text.replace(ending, ending * 2, 1)
    elif damage == "no final newline":
        text = text[:-len(ending)]
    elif damage == "trailing delimiter":
        text = text.replace(ending, delimiter + ending)
    elif damage.startswith("insert"):
        at = where % (len(text) + 1)
        mark = {"insert quote": quotechar, "insert delimiter": delimiter,
                "insert newline": "\n"}[damage]
        text = text[:at] + mark + text[at:]
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        return
    path = tmp_path_factory.mktemp("csv") / "data.csv"
    path.write_bytes(data)
    with pytest.MonkeyPatch.context() as monkeypatch:
        fmt = {"delimiter": delimiter, "quotechar": quotechar, "header": True,
               "encoding": None if encoding == "utf-8-sig" else encoding}
        pandas_result, arrow_result = read_both(path, monkeypatch, **fmt)
        assert_encoded_alike(path, monkeypatch, pandas_result, **fmt)
    assert_same(pandas_result, arrow_result)
