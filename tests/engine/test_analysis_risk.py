"""Risk measures and quasi-identifier analysis against hand-computed values."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from engine.analysis.qi_analysis import (WARN_COMBINATIONS, combination_warning,
                                         count_combinations, distinction_separation, qi_analysis)
from engine.analysis.risk import (analyze_risk, class_size_profile, class_sizes, risk_profile,
                                  risk_summary)
from engine.data.table import EncodedTable
from engine.errors import Cancelled

# classes on (a, b): (x,1) x3, (y,1) x2, (y,2) x1, (z,2) x1  -> sizes 3, 2, 1, 1 ; n = 7
TABLE = pd.DataFrame({"a": list("xxxyyyz"), "b": list("1111222"), "c": list("ppqqrrs")})
TABLE.loc[5, "b"] = "1"
TABLE.loc[4, "b"] = "2"


@pytest.fixture(params=["frame", "encoded"])
def data(request):
    return TABLE if request.param == "frame" else EncodedTable.from_dataframe(TABLE)


def test_class_sizes(data):
    s = class_sizes(data, ["a", "b"])
    assert sorted(s.sample) == [1, 1, 2, 3] and s.n_records == 7 and s.n_classes == 4


def test_prosecutor_journalist_marketer_without_population(data):
    r = risk_summary(class_sizes(data, ["a", "b"]), threshold=0.4)
    assert r.n_records == 7 and r.n_classes == 4
    assert r.lowest_risk == pytest.approx(1 / 3) and r.records_with_lowest_risk == pytest.approx(3 / 7)
    assert r.highest_risk == 1.0 and r.records_with_highest_risk == pytest.approx(2 / 7)
    assert r.average_risk == pytest.approx(4 / 7)
    assert r.sample_uniques == pytest.approx(2 / 7)
    # risk > 0.4: classes of size 1 and 2 (risk 1 and 0.5) -> 4 of 7 records
    assert r.prosecutor.records_at_risk == pytest.approx(4 / 7)
    assert r.prosecutor.highest_risk == 1.0
    assert r.prosecutor.success_rate == pytest.approx(4 / 7)
    assert r.journalist == r.prosecutor
    assert r.marketer == pytest.approx(4 / 7)
    assert r.population_uniques is None


def test_journalist_against_the_whole_table(data):
    # sample: rows 0, 3, 4, 6 -> (x,1), (y,1), (y,2), (z,2): all unique in the sample;
    # population sizes 3, 2, 1, 1
    subset = np.array([1, 0, 0, 1, 1, 0, 1], bool)
    r = risk_summary(class_sizes(data, ["a", "b"], subset=subset), threshold=0.4)
    assert r.n_records == 4 and r.prosecutor.records_at_risk == 1.0
    assert r.prosecutor.success_rate == 1.0
    assert r.journalist.highest_risk == 1.0
    assert r.journalist.records_at_risk == pytest.approx(3 / 4)  # 1/3 <= 0.4
    marketer = (1 / 3 + 1 / 2 + 1 + 1) / 4
    assert r.marketer == pytest.approx(marketer)
    assert r.journalist.success_rate == pytest.approx(max(4 / 7, marketer))


def test_suppressed_records_are_left_out(data):
    sup = np.array([0, 0, 0, 0, 0, 1, 1], bool)  # rows 5 (y,1) and 6 (z,2)
    sizes = class_sizes(data, ["a", "b"], suppressed=sup)
    assert sizes.n_records == 5
    assert sorted(sizes.sample) == sorted(
        TABLE[~sup].groupby(["a", "b"]).size().tolist())


def test_population_estimator_hook(data):
    seen = {}

    def estimator(sizes, fraction):
        seen["args"] = (sorted(sizes), fraction)
        return 0.125

    r = risk_summary(class_sizes(data, ["a"]), sampling_fraction=0.01, estimator=estimator)
    assert r.population_uniques == 0.125 and seen["args"] == ([1, 3, 3], 0.01)


def test_population_uniques_by_dankars_rule():
    # the summary's population uniques by the engine's Dankar rule: Pitman up to 10 %,
    # above it the smaller of Zayatz and SNB (Zayatz where SNB has no root)
    from engine import estimators as re
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"q": [f"c{c}" for c in np.repeat(np.arange(300),
                                                            rng.geometric(0.4, size=300))]})
    sizes = class_sizes(frame, ["q"])
    got = {f: risk_summary(sizes, sampling_fraction=f, estimator=re.dankar).population_uniques
           for f in (0.05, 0.3, 0.9)}
    assert got[0.05] == re.pitman(sizes.sample, 0.05)
    assert math.isnan(re.snb(sizes.sample, 0.3)) and got[0.3] == re.zayatz(sizes.sample, 0.3)
    assert got[0.9] == min(re.zayatz(sizes.sample, 0.9), re.snb(sizes.sample, 0.9))


def test_risk_profile_bins(data):
    prof = risk_profile(class_sizes(data, ["a", "b"]))
    at = {(round(lo, 4), round(hi, 4)): rec for lo, hi, rec in
          zip(prof.lower, prof.upper, prof.records)}
    assert at[(0.5, 1.0)] == 2 and at[(0.3333, 0.5)] == 2 and at[(0.25, 0.3333)] == 3
    assert prof.records.sum() == 7 and prof.cumulative.iloc[-1] == pytest.approx(1.0)
    sizes = class_size_profile(class_sizes(data, ["a", "b"]))
    assert sizes.to_dict("list") == {"class_size": [1, 2, 3], "classes": [2, 1, 1],
                                     "records": [2, 2, 3], "share": [2 / 7, 2 / 7, 3 / 7],
                                     "risk": [1.0, 0.5, 1 / 3]}


def test_analyze_risk_in_one_call(data):
    summary, profile = analyze_risk(data, ["a"], threshold=0.5)
    assert summary.n_classes == 3 and profile.records.sum() == 7


def test_distinction_separation_by_hand():
    # sizes 3, 2, 1, 1 of n = 7: 4 distinct; equal pairs 3 + 1 = 4 of 21
    d, s = distinction_separation(np.array([3, 2, 1, 1]))
    assert d == pytest.approx(4 / 7) and s == pytest.approx(1 - 4 / 21)


def _reference(df: pd.DataFrame, combo) -> tuple[float, float]:
    sizes = df.groupby(list(combo)).size().to_numpy()
    n = len(df)
    pairs = n * (n - 1) / 2
    same = sum(k * (k - 1) / 2 for k in sizes)
    return len(sizes) / n, 1 - same / pairs


def test_qi_analysis_every_combination(data):
    res = qi_analysis(data, ["a", "b", "c"])
    table = res.table
    assert len(table) == 7 and res.warning is None
    for combo, d, s in zip(table.attributes, table.distinction, table.separation):
        assert (d, s) == pytest.approx(_reference(TABLE, combo))
    assert table.separation.is_monotonic_decreasing
    row = table[table.attributes == ("a", "b")].iloc[0]
    assert (row.distinction, row.separation) == pytest.approx((4 / 7, 1 - 4 / 21))


def test_qi_analysis_random_tables_and_bounds():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({k: rng.integers(0, 4, 300).astype(str) for k in "abcde"})
    res = qi_analysis(df, list("abcde"), max_size=3)
    assert len(res.table) == count_combinations(5, 3) == 25
    assert res.warning is not None and "25 combinations" in res.warning
    for combo, d, s in zip(res.table.attributes, res.table.distinction, res.table.separation):
        assert (d, s) == pytest.approx(_reference(df, combo))
    assert {tuple(c) for c in res.table.attributes} == {
        c for k in (1, 2, 3) for c in itertools.combinations("abcde", k)}
    rows = rng.random(300) < 0.5
    part = qi_analysis(df, ["a", "b"], rows=rows)
    for combo, d, s in zip(part.table.attributes, part.table.distinction, part.table.separation):
        assert (d, s) == pytest.approx(_reference(df[rows], combo))


def test_warning_threshold_and_limits():
    assert count_combinations(4) == 15 <= WARN_COMBINATIONS
    assert combination_warning(4) is None and combination_warning(5) is not None
    with pytest.raises(ValueError, match="exceed"):
        qi_analysis(pd.DataFrame({str(i): ["a"] for i in range(13)}), [str(i) for i in range(13)])


def test_qi_analysis_progress_and_cancel():
    reports = []
    qi_analysis(TABLE, ["a", "b", "c"], progress=reports.append)
    assert reports[-1].checked == reports[-1].total == 7
    assert reports[-1].phase == "qi-analysis"
    with pytest.raises(Cancelled):
        qi_analysis(TABLE, ["a", "b", "c"], cancel=lambda: True)
