"""Frequencies, contingency tables and summary statistics against plain pandas."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine.analysis.statistics import contingency, frequencies, group_codes, summary_statistics
from engine.data.order import interval_bounds, value_order
from engine.data.datatypes import DECIMAL, INTEGER, DateType, OrdinalType
from engine.data.table import EncodedTable

AGES = ["34", "20", "45", "34", "", "*", "61", "20", "34", "58"]
BANDS = ["[30, 40[", "[20, 30[", "[40, 50[", "[30, 40[", "", "*", "[60, 70[", "[20, 30[",
         "[30, 40[", "[50, 60["]
SEX = ["m", "f", "f", "m", "m", "f", "m", "f", "f", "m"]
EDU = ["high", "low", "mid", "mid", "low", "", "high", "low", "mid", "mid"]
DAYS = ["2020-01-05", "2020-03-01", "2019-12-31", "", "2020-02-10", "2020-01-05",
        "2021-06-30", "2020-01-05", "*", "2020-07-04"]


@pytest.fixture(params=["frame", "encoded"])
def data(request):
    df = pd.DataFrame({"age": AGES, "band": BANDS, "sex": SEX, "edu": EDU, "day": DAYS})
    return df if request.param == "frame" else EncodedTable.from_dataframe(df)


def _present(values):
    return pd.Series([v for v in values if v not in ("", "*")])


def test_frequencies_match_value_counts(data):
    f = frequencies(data, "age", INTEGER)
    expected = pd.Series(AGES).value_counts()
    assert dict(zip(f.value, f["count"])) == expected.to_dict()
    assert f.share.sum() == pytest.approx(1.0)
    assert list(f.value) == ["20", "34", "45", "58", "61", "*", ""]


def test_frequencies_order_intervals_by_bounds(data):
    f = frequencies(data, "band")  # type detected: numeric intervals
    assert list(f.value[:5]) == ["[20, 30[", "[30, 40[", "[40, 50[", "[50, 60[", "[60, 70["]


def test_contingency_matches_crosstab(data):
    t = contingency(data, "sex", "edu")
    expected = pd.crosstab(pd.Series(SEX, name="sex"), pd.Series(EDU, name="edu"))
    assert t.loc[expected.index, expected.columns].to_numpy().tolist() == \
        expected.to_numpy().tolist()
    shares = contingency(data, "sex", "edu", normalize=True)
    assert shares.to_numpy().sum() == pytest.approx(1.0)


def test_contingency_lumps_rare_values(data):
    t = contingency(data, "age", "sex", max_values=2)
    assert list(t.index) == ["20", "34", "(other)"]
    assert t.to_numpy().sum() == len(AGES)
    assert t.loc["(other)"].sum() == len(AGES) - 5


def test_interval_statistics_match_pandas(data):
    s = summary_statistics(data, "age", INTEGER)
    x = _present(AGES).astype(float)
    assert s.scale == "interval" and s.count == len(x) and s.missing == 2
    assert s.mean == pytest.approx(x.mean()) and s.std == pytest.approx(x.std())
    assert s.median == pytest.approx(x.median())
    assert s.q1 == pytest.approx(x.quantile(0.25)) and s.q3 == pytest.approx(x.quantile(0.75))
    assert (s.minimum, s.maximum, s.range) == (x.min(), x.max(), x.max() - x.min())
    assert s.mode == x.astype(int).astype(str).mode()[0] and s.distinct == x.nunique()


def test_date_statistics_match_pandas(data):
    s = summary_statistics(data, "day", DateType("%Y-%m-%d"))
    x = pd.to_datetime(_present(DAYS))
    assert s.scale == "interval"
    ms = pd.Timedelta("1ms")  # dates are computed in float days
    assert abs(s.mean - x.mean()) < ms and abs(s.median - x.median()) < ms
    assert s.minimum == x.min() and s.maximum == x.max() and s.range == x.max() - x.min()
    assert abs(s.q1 - x.quantile(0.25)) < ms and abs(s.q3 - x.quantile(0.75)) < ms
    assert abs(s.std - x.std()) < ms


def test_generalized_numbers_are_ordinal_not_midpoints(data):
    s = summary_statistics(data, "band", INTEGER)
    present = _present(BANDS)
    by_lower = sorted(present, key=lambda v: int(v[1:3]))
    assert s.scale == "ordinal" and "midpoints" in s.note
    assert s.mean is None and s.std is None and s.q1 is None
    assert s.median == by_lower[(len(by_lower) - 1) // 2]
    assert (s.minimum, s.maximum) == (by_lower[0], by_lower[-1])
    assert s.mode == present.mode()[0]


def test_overlapping_labels_fall_back_to_nominal():
    df = pd.DataFrame({"x": ["[1, 10[", "[5, 20[", "3", "abc"]})
    s = summary_statistics(df, "x", INTEGER)
    assert s.scale == "nominal" and s.median is None and "nominal" in s.note


def test_ordinal_statistics(data):
    s = summary_statistics(data, "edu", OrdinalType(("low", "mid", "high")))
    ranks = _present(EDU).map({"low": 0, "mid": 1, "high": 2}).sort_values()
    names = {0: "low", 1: "mid", 2: "high"}
    assert s.scale == "ordinal"
    assert s.median == names[ranks.iloc[(len(ranks) - 1) // 2]]
    assert (s.minimum, s.maximum) == ("low", "high")
    assert s.mode == "mid" and s.distinct == 3 and s.missing == 1


def test_nominal_statistics(data):
    s = summary_statistics(data, "sex")
    assert s.scale == "nominal" and s.mode == pd.Series(SEX).mode()[0] and s.distinct == 2
    assert s.median is None and s.mean is None


def test_interval_bounds_forms():
    labels = ["7", "[20, 30[", "[21, 29]", "{3, 9, 5}", "0-4", "<20", ">=70", "abc", "*"]
    b = interval_bounds(labels, DECIMAL)
    assert b[:5].tolist() == [[7, 7], [20, 30], [21, 29], [3, 9], [0, 4]]
    assert b[5].tolist() == [-np.inf, 20] and b[6].tolist() == [70, np.inf]
    assert np.isnan(b[7:]).all()
    days = interval_bounds(["[2020-01-01, 2020-01-11["], DateType("%Y-%m-%d"))
    assert days[0, 1] - days[0, 0] == 10


def test_value_order_puts_suppressed_and_missing_last():
    order = value_order(["", "b", "*", "a"])
    assert [["", "b", "*", "a"][i] for i in order] == ["a", "b", "*", ""]


def test_group_codes_match_pandas_groups(data):
    ids, n = group_codes(data, ["sex", "edu"])
    df = pd.DataFrame({"sex": SEX, "edu": EDU})
    assert n == len(df.drop_duplicates())
    assert pd.Series(ids).groupby(ids).size().sort_values().tolist() == \
        df.groupby(["sex", "edu"]).size().sort_values().tolist()
