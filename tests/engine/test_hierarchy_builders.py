"""Hierarchy builders: hand-checked hierarchies, Adult's age and cup's ZIP, JSON specs."""
from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hypothesis_profiles import examples

from engine.data.datatypes import (DECIMAL, INTEGER, STRING, DateType, DecimalType, Kind,
                                   OrdinalType)
from engine.data.table import EncodedTable
from engine.errors import HierarchyError
from engine.hierarchy.builders import (BUILDERS, GRANULARITIES, BaseInterval, BuilderError, DateLevel,
                                       DateSpec, Group, IntervalSpec, Label, MaskingSpec,
                                       OrderingSpec, PrioritySpec, builder_for, default_spec,
                                       load_spec, save_spec, spec_from_json)
from engine.hierarchy.builders.dates import follows
from engine.hierarchy.csv_io import read_hierarchy
from engine.hierarchy.model import Hierarchy
from tests.oracle import SHARED

DATA = SHARED / "data"


def assert_valid(h: Hierarchy, values) -> None:
    """Every distinct value has one row; each level is a function of the one below;
    the missing value stays missing."""
    distinct = set(str(v) for v in values)
    assert set(h.values) == distinct and len(h.values) == len(distinct)
    for level in range(1, h.levels):
        parent: dict[str, str] = {}
        for r in h.rows:
            assert parent.setdefault(r[level - 1], r[level]) == r[level], (level, r)
    for r in h.rows:
        assert (r[0] == "") == all(c == "" for c in r)


def partition(h: Hierarchy, level: int, keep=None) -> set[frozenset[str]]:
    groups: dict[str, set[str]] = {}
    for r in h.rows:
        if keep is None or r[0] in keep:
            groups.setdefault(r[level], set()).add(r[0])
    return {frozenset(g) for g in groups.values()}


def table(h: Hierarchy) -> dict[str, tuple[str, ...]]:
    return {r[0]: r[1:] for r in h.rows}


# --- intervals ---

def test_integer_intervals_with_negative_values_and_missing():
    spec = IntervalSpec.regular(INTEGER, 0, 10, fanouts=(2,))
    h = spec.build(["-15", "-1", "0", "9", "10", "25", "", "-1"])
    assert_valid(h, ["-15", "-1", "0", "9", "10", "25", ""])
    t = table(h)
    assert t["-15"] == ("[-20, -10[", "[-20, 0[", "*")
    assert t["-1"] == ("[-10, 0[", "[-20, 0[", "*")
    assert t["0"] == ("[0, 10[", "[0, 20[", "*")
    assert t["10"] == ("[10, 20[", "[0, 20[", "*")
    assert t["25"] == ("[20, 30[", "[20, 40[", "*")
    assert t[""] == ("", "", "")
    assert h.values == ["-15", "-1", "0", "9", "10", "25", ""]  # numeric order, missing last


def test_decimal_intervals_are_exact_on_bounds():
    spec = IntervalSpec(DECIMAL, [("0", "0.1")], levels=[3])
    h = spec.build(["0.3", "0.29", "0.1", "-0.05", "1e-1", "0.6"])
    t = table(h)
    assert t["0.3"][0] == "[0.3, 0.4["       # 0.3 // 0.1 is 2 in floats
    assert t["0.1"][0] == t["1e-1"][0] == "[0.1, 0.2["
    assert t["-0.05"] == ("[-0.1, 0[", "[-0.3, 0[", "*")
    assert t["0.6"][1] == "[0.6, 0.9["
    assert_valid(h, ["0.3", "0.29", "0.1", "-0.05", "1e-1", "0.6"])


def test_decimal_comma_separator():
    spec = IntervalSpec(DecimalType(","), [("0,5", "1,5")])
    t = table(spec.build(["1,2", "-0,5"]))
    assert t["1,2"][0] == "[0,5, 1,5[" and t["-0,5"][0] == "[-0,5, 0,5["


def test_bottom_and_top_coding_outside_the_range():
    spec = IntervalSpec.regular(INTEGER, 0, 10, fanouts=(2,), bottom_coding=0, top_coding=30)
    h = spec.build(["-5", "0", "29", "30", "99"])
    t = table(h)
    assert t["-5"] == ("<0", "<0", "*")
    assert t["30"] == t["99"] == (">=30", ">=30", "*")
    assert t["29"] == ("[20, 30[", "[20, 40[", "*")
    assert_valid(h, ["-5", "0", "29", "30", "99"])


def test_several_base_intervals_repeat_with_their_labels():
    spec = IntervalSpec(INTEGER, [(0, 18, Label("constant", "minor")), (18, 65, "interval"),
                                  (65, 120, "interval")], top_coding=120)
    t = table(spec.build(["3", "18", "64", "65", "119", "120"]))
    assert t["3"][0] == "minor" and t["18"][0] == "[18, 65[" and t["65"][0] == "[65, 120["
    assert t["120"][0] == ">=120"


def test_date_intervals_repeat_by_calendar_year_across_leap_years():
    fmt = DateType("%d.%m.%Y")
    spec = IntervalSpec(fmt, [("01.01.2020", "01.07.2020"), ("01.07.2020", "01.01.2021")],
                        levels=[2])
    values = ["31.12.2019", "01.01.2020", "29.02.2020", "30.06.2021", "01.07.2021", "01.01.2025"]
    h = spec.build(values + [""])
    t = table(h)
    assert t["31.12.2019"] == ("[01.07.2019, 01.01.2020[", "[01.01.2019, 01.01.2020[", "*")
    assert t["29.02.2020"][0] == "[01.01.2020, 01.07.2020["
    assert t["30.06.2021"][0] == "[01.01.2021, 01.07.2021["
    assert t["01.07.2021"] == ("[01.07.2021, 01.01.2022[", "[01.01.2021, 01.01.2022[", "*")
    assert t["01.01.2025"][1] == "[01.01.2025, 01.01.2026["
    assert_valid(h, values + [""])


def test_date_intervals_of_fixed_length_repeat_by_seconds():
    spec = IntervalSpec(DateType("%Y-%m-%d"), [("2024-01-01", "2024-01-08")])  # a Monday
    t = table(spec.build(["2023-12-31", "2024-03-04"]))
    assert t["2023-12-31"][0] == "[2023-12-25, 2024-01-01["
    assert t["2024-03-04"][0] == "[2024-03-04, 2024-03-11["


@pytest.mark.parametrize("label, expected", [
    ("bounds", "[2, 8]"), ("set", "{2, 4, 8}"), ("mean", "4.666667"),
    ("geometric_mean", "4"), (Label("constant", "low"), "low"),
])
def test_label_functions(label, expected):
    spec = IntervalSpec(INTEGER, [(0, 10, label)])
    assert table(spec.build(["2", "4", "8"]))["4"][0] == expected


def test_prefix_label():
    spec = IntervalSpec(INTEGER, [(100, 200, "prefix")], levels=[{"size": 10, "label": "prefix"}])
    t = table(spec.build(["120", "125", "199", "300", "301"]))
    assert t["120"][0] == "1*" and t["300"][0] == "30*" and t["120"][1] == "*"


def test_geometric_mean_needs_positive_values():
    spec = IntervalSpec(INTEGER, [(-10, 10, "geometric_mean")])
    with pytest.raises(BuilderError, match="positive"):
        spec.build(["-3", "4"])


def test_a_constant_level_below_distinct_groups_is_rejected():
    spec = IntervalSpec(INTEGER, [(0, 10, Label("constant", "x"))], levels=[1])
    with pytest.raises(BuilderError, match="not a function"):
        spec.build(["1", "15"])


@pytest.mark.parametrize("kwargs, message", [
    (dict(intervals=[]), "at least one"),
    (dict(intervals=[(5, 5)]), "empty"),
    (dict(intervals=[(0, 5), (6, 10)]), "contiguous"),
    (dict(intervals=[(0, 5)], bottom_coding=10, top_coding=5), "below"),
    (dict(intervals=[("a", 5)]), "not a value"),
    (dict(intervals=[(0, 5)], levels=[0]), "size"),
    (dict(intervals=[(0, 5, "median")]), "unknown label"),
    (dict(data_type=STRING, intervals=[(0, 5)]), "works on"),
])
def test_interval_spec_errors(kwargs, message):
    with pytest.raises(BuilderError, match=message):
        IntervalSpec(**kwargs)


def test_values_of_the_wrong_type_are_named():
    with pytest.raises(BuilderError, match="'x'"):
        IntervalSpec.regular(INTEGER, 0, 5).build(["1", "x", "2.5"])


def test_only_missing_or_no_values():
    h = IntervalSpec.regular(INTEGER, 0, 5).build(["", ""])
    assert h.rows == (("", "", ""),)
    with pytest.raises(BuilderError, match="no values"):
        IntervalSpec.regular(INTEGER, 0, 5).build([])


def test_adult_age_groups_match_the_arx_hierarchy():
    ages = pd.read_csv(DATA / "adult" / "adult.csv", sep=";", dtype=str)["age"]
    present = set(ages)
    arx = read_hierarchy(DATA / "adult" / "adult_hierarchy_age.csv")
    # ARX's file is shifted by one: "20-29" holds 21-30, so the base interval starts at 1.
    spec = IntervalSpec(INTEGER, [(1, 6)], levels=[2, 2])
    built = spec.build(EncodedTable.from_dataframe(ages.to_frame()).column("age"))
    assert_valid(built, present)
    assert built.levels == arx.levels
    for level in range(built.levels):
        assert partition(built, level) == partition(arx, level, keep=present), level


# --- ordering ---

def test_natural_order_of_integers_grouped_with_repeating_sizes():
    spec = OrderingSpec(INTEGER, levels=[[2, 1], [{"size": 2, "label": "bounds"}]])
    h = spec.build(["10", "-2", "3", "7", "1", ""])
    assert h.values == ["-2", "1", "3", "7", "10", ""]
    t = table(h)
    assert t["-2"] == ("{-2, 1}", "[-2, 3]", "*") and t["3"] == ("{3}", "[-2, 3]", "*")
    assert t["7"] == ("{7, 10}", "[7, 10]", "*")
    assert_valid(h, ["10", "-2", "3", "7", "1", ""])


def test_user_defined_order_counts_absent_values():
    spec = OrderingSpec(STRING, order=("low", "mid", "high", "top"), levels=[2])
    t = table(spec.build(["top", "low", "high"]))
    assert t["low"] == ("{low}", "*") and t["high"] == ("{high, top}", "*")
    with pytest.raises(BuilderError, match="'max'"):
        spec.build(["low", "max"])


def test_ordering_of_ordinals_and_mean_labels():
    t = table(OrderingSpec(OrdinalType(("a", "b", "c")), levels=[2]).build(["c", "a", "b"]))
    assert t["a"][0] == t["b"][0] == "{a, b}"
    t = table(OrderingSpec(DECIMAL, levels=[{"size": 2, "label": "mean"}]).build(["1.5", "2"]))
    assert t["2"][0] == "1.75"
    with pytest.raises(BuilderError, match="does not apply"):
        OrderingSpec(STRING, levels=[{"size": 2, "label": "mean"}])


# --- masking ---

def test_masking_right_to_left_with_right_alignment_and_padding():
    spec = MaskingSpec(align="right", padding_char="0")
    t = table(spec.build(["91326", "123", "", "7"]))
    assert t["123"] == ("0012*", "001**", "00***", "0****", "*****")
    assert t["91326"][0] == "9132*" and t[""] == ("",) * 5


def test_masking_left_to_right_with_left_alignment_and_mask_char():
    t = table(MaskingSpec(direction="left_to_right", mask_char="#").build(["abc", "de"]))
    assert t["de"] == ("#e ", "## ", "###") and t["abc"] == ("#bc", "##c", "###")


def test_masking_max_levels_and_length():
    t = table(MaskingSpec(max_levels=2).build(["abcdef"]))
    assert t["abcdef"] == ("abc***", "******")
    with pytest.raises(BuilderError, match="longer"):
        MaskingSpec(length=3).build(["abcd"])


def test_cup_zip_masking_matches_the_arx_hierarchy():
    zips = pd.read_csv(DATA / "cup" / "cup.csv", sep=";", dtype=str, usecols=["ZIP"])["ZIP"]
    built = MaskingSpec().build(zips)
    assert_valid(built, set(zips))
    arx = read_hierarchy(DATA / "cup" / "cup_hierarchy_ZIP.csv")
    present = set(zips)
    assert built.levels == arx.levels
    for level in range(built.levels):
        assert partition(built, level) == partition(arx, level, keep=present), level


# --- dates ---

def test_date_granularities_across_years():
    spec = DateSpec(DateType("%d.%m.%Y %H:%M"), ["hour", "day", "month", "quarter", "year",
                                                  "decade", "century", "millennium"])
    values = ["31.12.1999 23:59", "01.01.2000 00:10", "15.08.2031 10:00", ""]
    h = spec.build(values)
    t = table(h)
    assert t["31.12.1999 23:59"] == ("1999-12-31 23:00", "1999-12-31", "1999-12", "1999-Q4",
                                     "1999", "1990-1999", "1900-1999", "1000-1999", "*")
    assert t["01.01.2000 00:10"][3:] == ("2000-Q1", "2000", "2000-2009", "2000-2099",
                                         "2000-2999", "*")
    assert_valid(h, values)


def test_iso_weeks_weekdays_and_display_formats():
    fmt = DateType("%Y-%m-%d")
    t = table(DateSpec(fmt, ["week"]).build(["2020-12-31", "2021-01-03", "2021-01-04"]))
    assert t["2020-12-31"][0] == t["2021-01-03"][0] == "2020-W53"
    assert t["2021-01-04"][0] == "2021-W01"
    t = table(DateSpec(fmt, [DateLevel("day", "%d %b %Y"), DateLevel("weekday", "%a")])
              .build(["2024-02-29"]))
    assert t["2024-02-29"] == ("29 Feb 2024", "Thu", "*")
    t = table(DateSpec(fmt, [DateLevel("quarter", "Q{quarter}/%Y")]).build(["2024-05-01"]))
    assert t["2024-05-01"][0] == "Q2/2024"


def test_date_top_and_bottom_coding():
    spec = DateSpec(DateType("%Y-%m-%d"), ["year"], bottom_coding="2000-01-01",
                    top_coding="2020-01-01")
    t = table(spec.build(["1999-12-31", "2000-01-01", "2020-01-01", "2030-05-05"]))
    assert t["1999-12-31"] == ("<2000-01-01", "*") and t["2000-01-01"] == ("2000", "*")
    assert t["2020-01-01"] == t["2030-05-05"] == (">=2020-01-01", "*")


def test_date_levels_must_get_coarser():
    with pytest.raises(BuilderError, match="cannot follow"):
        DateSpec(DateType(), ["week", "month"])
    with pytest.raises(BuilderError, match="cannot follow"):
        DateSpec(DateType(), ["year", "month"])
    # A format that drops the year merges months of different years: not a function.
    with pytest.raises(BuilderError, match="not a function"):
        DateSpec(DateType(), [DateLevel("month", "%m"), "year"]).build(
            ["2020-01-05", "2021-01-05"])


# --- priority ---

def test_priority_by_frequency_suppresses_rare_values_first():
    h = PrioritySpec(max_levels=3).build(list("aaaabbbccdeffg") + [""])
    t = table(h)
    assert t["a"] == ("a", "a", "*") and t["f"] == ("f", "*", "*")
    assert t["e"] == t["g"] == ("*", "*", "*") and t[""] == ("", "", "")
    assert_valid(h, set("abcdefg") | {""})


def test_priority_natural_and_custom_order():
    t = table(PrioritySpec(INTEGER, "natural", max_levels=2).build(["1", "-5", "30", "4"]))
    assert t["30"] == ("30", "*") and t["1"] == ("*", "*")
    t = table(PrioritySpec(INTEGER, "natural", highest_first=False).build(["1", "-5", "30"]))
    assert t["-5"] == ("-5", "-5", "*") and t["30"] == ("*", "*", "*")
    t = table(PrioritySpec(STRING, "custom", order=("x", "y", "z")).build(["z", "x"]))
    assert t["x"] == ("x", "*") and t["z"] == ("*", "*")
    with pytest.raises(BuilderError, match="'w'"):
        PrioritySpec(STRING, "custom", order=("x",)).build(["w"])


def test_priority_reads_frequencies_of_an_encoded_column():
    column = EncodedTable.from_dataframe(pd.DataFrame({"c": list("abbccc")})).column("c")
    assert PrioritySpec(max_levels=3).ranking(column) == ["c", "b", "a"]


# --- builder_for and JSON ---

def test_builder_for_lists_builders_valid_for_a_type():
    names = lambda t: [b.name for b in builder_for(t)]  # noqa: E731
    assert names(INTEGER) == ["intervals", "ordering", "priority", "masking"]
    assert names(DateType("%d.%m.%Y"))[0] == "dates"
    assert "intervals" not in names(STRING) and "dates" not in names(Kind.ORDINAL)
    assert names("decimal") == names(DECIMAL)


def test_default_specs_build_for_every_valid_builder():
    cases = [(INTEGER, ["17", "90", ""]), (DECIMAL, ["0.01", "0.37"]), (STRING, ["x", "yy"]),
             (DateType("%d.%m.%Y"), ["03.04.1987", "01.01.2020"]),
             (OrdinalType(("lo", "hi")), ["hi", "lo"])]
    for data_type, values in cases:
        for builder in builder_for(data_type):
            assert_valid(default_spec(builder, data_type, values).build(values), values)
    suggested = IntervalSpec.suggest(INTEGER, ["17", "90"])
    assert suggested.intervals[0] == BaseInterval("10", "20")
    assert IntervalSpec.suggest(DateType("%d.%m.%Y"), ["03.04.1987"]).intervals[0] == \
        BaseInterval("01.01.1987", "01.01.1988")
    with pytest.raises(BuilderError, match="does not work"):
        default_spec("dates", INTEGER)


SPECS = [
    IntervalSpec(DECIMAL, [BaseInterval("-1.5", "0", Label("constant", "neg")),
                           BaseInterval("0", "2.5", "mean")],
                 [[Group(2, Label("set")), 1], [3]], bottom_coding="-10", top_coding="10"),
    IntervalSpec(DateType("%d.%m.%Y"), [("01.01.2020", "01.01.2021")]),
    OrderingSpec(OrdinalType(("lo", "hi")), order=("hi", "lo"), levels=[[1, 1]], top_label="ANY"),
    MaskingSpec("left_to_right", "right", "0", "#", length=6, max_levels=3),
    DateSpec(DateType("%Y-%m-%d"), [DateLevel("month", "%b %Y"), "year"],
             bottom_coding="1990-01-01"),
    PrioritySpec(INTEGER, "custom", False, ("3", "1", "2"), max_levels=2),
]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_specs_round_trip_through_json_files(spec, tmp_path):
    obj = json.loads(json.dumps(spec.to_json()))
    assert obj["builder"] == spec.name and obj["version"] == 1
    assert spec_from_json(obj) == spec
    save_spec(spec, tmp_path / "spec.json")
    assert load_spec(tmp_path / "spec.json") == spec
    assert BUILDERS[spec.name] is type(spec)


@pytest.mark.parametrize("text, message", [
    ("{", "not valid JSON"),
    ("[]", "JSON object"),
    ('{"builder": "fancy", "version": 1}', "unknown builder"),
    ('{"builder": "masking", "version": 2}', "version 2"),
    ('{"builder": "masking"}', "version"),
    ('{"builder": "masking", "version": 1, "colour": "red"}', "unknown key"),
    ('{"builder": "masking", "version": 1, "mask_char": "**"}', "one character"),
    ('{"builder": "intervals", "version": 1, "data_type": {"kind": "blob"}}', "blob"),
])
def test_load_spec_errors_name_the_file_and_problem(text, message, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(BuilderError, match=message) as info:
        load_spec(path)
    assert "bad.json" in str(info.value)
    assert isinstance(info.value, HierarchyError)


def test_load_spec_missing_file(tmp_path):
    with pytest.raises(BuilderError, match="not found"):
        load_spec(tmp_path / "none.json")


# --- properties ---

@st.composite
def interval_specs(draw):
    widths = draw(st.lists(st.integers(1, 20), min_size=1, max_size=3))
    start = draw(st.integers(-50, 50))
    bounds = np.cumsum([start] + widths).tolist()
    labels = st.sampled_from(["interval", "bounds", "set", "mean", "prefix"])
    intervals = [(lo, hi, draw(labels)) for lo, hi in zip(bounds, bounds[1:])]
    levels = draw(st.lists(st.lists(st.integers(1, 4), min_size=1, max_size=3), max_size=3))
    coding = draw(st.sampled_from([(None, None), (-100, None), (None, 100), (-60, 60)]))
    return IntervalSpec(DECIMAL, intervals, levels, *coding)


numbers = st.one_of(st.integers(-500, 500).map(str),
                    st.decimals(-500, 500, places=2, allow_nan=False).map(str))


@settings(max_examples=examples(60), deadline=None)
@given(interval_specs(), st.lists(st.one_of(numbers, st.just("")), max_size=30))
def test_random_numbers_give_valid_interval_hierarchies(spec, values):
    if not values:
        return
    h = spec.build(values)
    assert_valid(h, values)
    assert h.levels == len(spec.levels) + 3
    for r in h.rows:  # the base interval really holds the value
        if r[0] and r[1].startswith("[") and spec.intervals[0].label.function == "interval" \
                and len(spec.intervals) == 1:
            lo, hi = (Decimal(b) for b in r[1][1:-1].split(", "))
            assert lo <= Decimal(r[0]) < hi


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.one_of(numbers, st.just("")), min_size=1, max_size=30),
       st.lists(st.integers(1, 4), min_size=1, max_size=3), st.integers(1, 6))
def test_random_numbers_give_valid_other_hierarchies(values, sizes, levels):
    for spec in (OrderingSpec(DECIMAL, levels=[sizes, [2]]), IntervalSpec.suggest(DECIMAL, values),
                 MaskingSpec(align="right"), PrioritySpec(DECIMAL, max_levels=levels)):
        assert_valid(spec.build(values), values)


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.datetimes(dt.datetime(1000, 1, 1), dt.datetime(9998, 12, 31)), max_size=20),
       st.lists(st.sampled_from(GRANULARITIES), max_size=4))
def test_random_dates_give_valid_date_hierarchies(times, chosen):
    levels = []
    for g in chosen:  # keep a chain of coarser granularities
        if not levels or follows(levels[-1], g):
            levels.append(g)
    values = [t.strftime("%Y-%m-%d %H:%M:%S") for t in times] + [""]
    spec = DateSpec(DateType("%Y-%m-%d %H:%M:%S"), levels)
    assert_valid(spec.build(values), values)
