"""Data types: matching, parsing, ordering and detection by share of matching values."""
from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hypothesis_profiles import examples

from engine.data.datatypes import (DATE_FORMATS, DECIMAL, INTEGER, STRING, DataType, DateType,
                                   DecimalType, IntegerType, Kind, OrdinalType, StringType,
                                   TypeCandidate, best_type, choose_type, detect_column_types,
                                   detect_distinct, detect_types)
from engine.data.table import EncodedTable
from engine.errors import DataError
from tests.shared_data import SHARED


def shares(values, **kwargs) -> dict[str, float]:
    return {c.data_type.name: c.share for c in detect_types(values, **kwargs)}


# --- matching and parsing ---

@pytest.mark.parametrize("value, integer, decimal", [
    ("42", True, True), ("-7", True, True), ("+3", True, True), (" 12 ", True, True),
    ("0042", True, True), ("-1.5", False, True), (".5", False, True), ("5.", False, True),
    ("1e5", False, True), ("-2.5E-3", False, True), ("1e", False, False), ("1.2.3", False, False),
    ("", False, False), ("abc", False, False), ("1,5", False, False), ("inf", False, False),
    ("nan", False, False), ("--1", False, False),
])
def test_number_matching(value, integer, decimal):
    assert INTEGER.matches(value) is integer
    assert DECIMAL.matches(value) is decimal


def test_integer_parse_gives_nan_for_missing_and_other_values():
    out = INTEGER.parse(["1", "", "x", "-3", "2.5"])
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [1.0, np.nan, np.nan, -3.0, np.nan])


def test_decimal_parse_negative_and_exponents():
    out = DECIMAL.parse(["-1.5", "2.5e-3", "-4E2", ".25", "NA", ""])
    np.testing.assert_array_equal(out, [-1.5, 0.0025, -400.0, 0.25, np.nan, np.nan])


def test_decimal_comma():
    comma = DecimalType(",")
    assert comma.name == "decimal(,)"
    assert comma.matches("-1,5") and not comma.matches("1.5")
    np.testing.assert_array_equal(comma.parse(["-1,5", "3", "2,5e1"]), [-1.5, 3.0, 25.0])
    with pytest.raises(DataError, match="decimal separator"):
        DecimalType(";")


@pytest.mark.parametrize("fmt, text, expected", [
    ("%Y-%m-%d", "2021-03-04", dt.datetime(2021, 3, 4)),
    ("%d.%m.%Y", "04.03.2021", dt.datetime(2021, 3, 4)),
    ("%m/%d/%Y", "03/04/2021", dt.datetime(2021, 3, 4)),
    ("%d/%m/%Y", "04/03/2021", dt.datetime(2021, 3, 4)),
    ("%Y-%m-%d %H:%M:%S", "2021-03-04 05:06:07", dt.datetime(2021, 3, 4, 5, 6, 7)),
    ("%d.%m.%y", "04.03.21", dt.datetime(2021, 3, 4)),
])
def test_date_formats(fmt, text, expected):
    t = DateType(fmt)
    assert t.matches(text)
    assert t.parse([text])[0] == np.datetime64(expected)


def test_dates_are_strict_about_their_format():
    iso = DateType("%Y-%m-%d")
    assert not iso.matches("04.03.2021")
    assert not iso.matches("2021-02-30")
    assert not iso.matches("2021-03-04 10:00")
    assert not DateType("%m/%d/%Y").matches("13/01/2021")
    out = iso.parse(["2021-03-04", "", "x"])
    assert out.dtype.kind == "M" and np.isnat(out[1:]).all()


def test_ordinal_order_and_sort_key():
    size = OrdinalType(("small", "medium", "large"))
    assert size.matches("medium") and not size.matches("huge")
    values = ["large", "", "small", "huge", "medium", "small"]
    assert sorted(values, key=size.sort_key) == ["small", "small", "medium", "large", "huge", ""]
    np.testing.assert_array_equal(size.parse(["large", "small", "huge"]), [2.0, 0.0, np.nan])
    assert size.name == "ordinal(3 values)"
    with pytest.raises(DataError, match="'small' more than once"):
        OrdinalType(("small", "large", "small"))


def test_sort_keys_order_numbers_numerically():
    values = ["10", "9", "", "x", "-1"]
    assert sorted(values, key=INTEGER.sort_key) == ["-1", "9", "10", "x", ""]
    assert sorted(values, key=STRING.sort_key) == ["-1", "10", "9", "x", ""]
    dates = DateType("%d.%m.%Y")
    assert sorted(["02.01.2020", "01.02.2019"], key=dates.sort_key) == ["01.02.2019",
                                                                        "02.01.2020"]


@pytest.mark.parametrize("data_type", [STRING, INTEGER, DECIMAL, DateType("%d.%m.%Y"),
                                       OrdinalType(("b", "a"))])
def test_argsort_agrees_with_sort_key(data_type):
    values = ["10", "", "9", "b", "-1.5", "01.02.2019", "a", "", "31.12.2018", "x", "10"]
    order = data_type.argsort(values)
    assert [values[i] for i in order] == sorted(values, key=data_type.sort_key)


def test_types_compare_by_value_and_name():
    assert DateType("%d.%m.%Y") == DateType("%d.%m.%Y") != DateType("%Y-%m-%d")
    assert IntegerType() != DecimalType()
    assert str(DateType("%d.%m.%Y")) == "date(%d.%m.%Y)"
    assert [t.kind for t in (INTEGER, DECIMAL, DateType(), OrdinalType(), STRING)] == list(Kind)
    assert isinstance(STRING, StringType) and isinstance(STRING, DataType)


def test_parse_column_parses_the_dictionary_once():
    df = pd.DataFrame({"age": ["34", "", "34", "x", "7"]})
    column = EncodedTable.from_dataframe(df).column("age")
    np.testing.assert_array_equal(INTEGER.parse_column(column), [34.0, np.nan, 34.0, np.nan, 7.0])


# --- detection ---

def test_shares_on_a_small_list():
    got = shares(["1", "2", "2", "1.5", "abc", "", ""])
    assert got["integer"] == pytest.approx(3 / 5)
    assert got["decimal"] == pytest.approx(4 / 5)
    assert got["string"] == 1.0


def test_candidates_sorted_best_first_with_ties_integer_decimal_date_string():
    kinds = [c.data_type.kind for c in detect_types(["1", "2", "3"])]
    assert kinds[:3] == [Kind.INTEGER, Kind.DECIMAL, Kind.STRING]
    names = [c.data_type.name for c in detect_types(["2020-01-02", "2021-12-31"])]
    assert names[:2] == ["date(%Y-%m-%d)", "string"]
    assert [c.data_type.name for c in detect_types(["a", "b"])][0] == "string"


def test_dates_across_formats():
    assert best_type(["31.12.2020", "01.01.2021"]) == DateType("%d.%m.%Y")
    assert best_type(["12/31/2020", "01/01/2021"]) == DateType("%m/%d/%Y")
    assert best_type(["31/12/2020", "01/01/2021"]) == DateType("%d/%m/%Y")
    assert best_type(["2020-12-31 23:59:59"]) == DateType("%Y-%m-%d %H:%M:%S")
    # day and month both <= 12: both readings are listed, the earlier format first
    got = shares(["01/02/2020", "03/04/2020"])
    assert got["date(%m/%d/%Y)"] == got["date(%d/%m/%Y)"] == 1.0


def test_partial_date_share():
    got = shares(["2020-01-01", "2020-02-30", "2020-03-01", "soon"])
    assert got["date(%Y-%m-%d)"] == 0.5


def test_best_type_threshold():
    values = ["1", "2", "3", "?"]
    assert best_type(values) == STRING
    assert best_type(values, threshold=0.75) == INTEGER
    assert best_type(["1.5", "2"]) == DECIMAL
    assert best_type(["1,5", "2,25"]) == DecimalType(",")


def test_missing_values_are_left_out():
    assert shares(["", "", "5"])["integer"] == 1.0
    assert shares(["NA", "5"], missing=("", "NA"))["integer"] == 1.0
    assert shares([None, float("nan"), "5"])["integer"] == 1.0
    everything_missing = shares(["", ""])
    assert everything_missing["string"] == 1.0 and everything_missing["integer"] == 0.0
    assert best_type([]) == STRING


def test_choose_type_falls_back_to_string():
    assert choose_type([TypeCandidate(INTEGER, 1, 2)], threshold=0.9) == STRING


def test_choose_type_prefers_the_best_date_format():
    got = detect_types(["01/02/2020", "03/04/2020", "12/25/2020", "x"])
    assert choose_type(got, threshold=0.5) == DateType("%m/%d/%Y")


def test_column_detection_matches_list_detection():
    values = ["39", "50", "", "38", "39", "x", "-1.5"]
    column = EncodedTable.from_dataframe(pd.DataFrame({"v": values})).column("v")
    assert [(c.data_type, c.share) for c in detect_column_types(column)] == \
        [(c.data_type, c.share) for c in detect_types(values)]
    assert detect_types(column) == detect_column_types(column)


def test_detection_counts_rows_not_distinct_values():
    got = detect_distinct(np.array(["1", "x"], dtype=object), np.array([9, 1]))
    assert {c.data_type.name: c.share for c in got}["integer"] == 0.9


def test_many_distinct_values_are_fast_and_exact_for_numbers():
    values = np.array([str(i) for i in range(200_000)] + ["x"], dtype=object)
    got = detect_distinct(values, np.ones(len(values), dtype=np.int64))
    assert got[0].data_type == STRING
    assert got[1].data_type == INTEGER and got[1].matching == 200_000
    assert choose_type(got, threshold=0.99) == INTEGER


def test_date_sample_gate_keeps_a_frequent_format():
    days = pd.date_range("1900-01-01", periods=30_000).strftime("%d.%m.%Y").to_numpy(object)
    got = detect_distinct(days, np.ones(len(days), dtype=np.int64))
    assert got[0].data_type == DateType("%d.%m.%Y") and got[0].share == 1.0


def test_adult_columns():
    from engine.data.csv_import import read_csv
    table = EncodedTable.from_dataframe(read_csv(SHARED / "data" / "adult" / "adult.csv"))
    best = {n: choose_type(detect_column_types(table.column(n))) for n in table.names}
    assert best["age"] == INTEGER
    assert all(best[n] == STRING for n in table.names if n != "age")


# --- properties ---

@given(st.integers(min_value=-(2**53), max_value=2**53))
def test_integers_round_trip(i):
    assert INTEGER.matches(str(i)) and DECIMAL.matches(str(i))
    assert INTEGER.parse([str(i)])[0] == i


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_decimals_round_trip(x):
    text = repr(x)
    assert DECIMAL.matches(text)
    assert DECIMAL.parse([text])[0] == x


@settings(max_examples=examples(50))
@given(st.datetimes(min_value=dt.datetime(1000, 1, 1), max_value=dt.datetime(2999, 12, 31)),
       st.sampled_from([f for f in DATE_FORMATS if "%y" not in f and "%Y" in f]))
def test_dates_round_trip(moment, fmt):
    text = moment.strftime(fmt)
    t = DateType(fmt)
    assert t.matches(text)
    assert t.parse([text])[0] == np.datetime64(dt.datetime.strptime(text, fmt))


values_lists = st.lists(st.one_of(st.integers(-1000, 1000).map(str),
                                  st.floats(-1e6, 1e6, allow_nan=False).map(repr),
                                  st.sampled_from(["", "x", "2020-01-01", "1.1.2020"])),
                        max_size=40)


@given(values_lists)
def test_shares_equal_a_naive_count(values):
    present = [v for v in values if v != ""]
    for c in detect_types(values):
        naive = sum(c.data_type.matches(v) for v in present)
        assert c.matching == naive and c.total == len(present)
        assert 0.0 <= c.share <= 1.0


@given(values_lists)
def test_candidate_order_and_invariants(values):
    got = detect_types(values)
    keys = [(-c.share, c.data_type.kind) for c in got]
    assert keys == sorted(keys)
    by_name = {c.data_type.name: c for c in got}
    assert by_name["string"].share == 1.0
    assert by_name["integer"].matching <= by_name["decimal"].matching


@given(st.lists(st.text(alphabet="abc", min_size=1, max_size=2), min_size=1, max_size=5,
                unique=True), st.data())
def test_ordinal_sort_follows_the_order(order, data):
    t = OrdinalType(tuple(order))
    values = data.draw(st.lists(st.sampled_from(order)))
    assert sorted(values, key=t.sort_key) == sorted(values, key=order.index)


def test_float_parse_is_nan_not_none():
    assert math.isnan(DECIMAL.parse(["x"])[0])


@given(values_lists, st.sampled_from([STRING, INTEGER, DECIMAL, DateType()]))
def test_argsort_property(values, data_type):
    assert [values[i] for i in data_type.argsort(values)] == sorted(values,
                                                                    key=data_type.sort_key)
