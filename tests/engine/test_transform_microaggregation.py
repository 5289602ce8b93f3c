"""Microaggregation: aggregate functions by hand, the job keys, the released table recounted
independently, and ARX's Loss dimension for a microaggregated attribute."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import engine
from engine.errors import JobError
from engine.transform.microaggregation import MicroSpec, aggregate_by_class, aggregate_values
from engine.verify import verify_frame


def spec(function, ignore=False, integer=False):
    return MicroSpec("x", function, ignore, "none", integer)


@pytest.mark.parametrize("function,values,ignore,expected", [
    ("arithmetic-mean", ["1", "2", "6"], False, "3"),
    ("arithmetic-mean", ["1", "2"], False, "1.5"),
    ("arithmetic-mean", ["4", "", "8"], False, "4"),        # missing counts as 0
    ("arithmetic-mean", ["4", "", "8"], True, "6"),
    ("arithmetic-mean", ["4", "NULL", "8"], True, "6"),
    ("geometric-mean", ["0", "3"], False, "1"),             # sqrt(1*4) - 1
    ("geometric-mean", ["1", "7"], False, "3"),             # sqrt(2*8) - 1
    ("median", ["5", "1", "3"], False, "3"),
    ("median", ["5", "1", "3", "10"], False, "4"),          # (3 + 5) / 2
    ("median", ["5", "", "3"], True, "4"),
    ("median", ["5", "", "3"], False, "3"),                 # 0, 3, 5
    ("mode", ["a", "b", "b", "c"], False, "b"),
    ("mode", ["b", "a", "a", "b"], False, "a"),             # ties: the smallest
    ("mode", ["", "", "a"], False, ""),
    ("mode", ["", "", "a"], True, "a"),
    ("interval", ["7", "3", "", "12"], False, "[3, 12]"),
    ("interval", ["", ""], False, ""),
])
def test_aggregate_by_hand(function, values, ignore, expected):
    assert aggregate_values(values, spec(function, ignore)) == expected


def test_mean_rounded_for_integer_data_and_decimals_kept_otherwise():
    assert aggregate_values(["1", "2", "2"], spec("arithmetic-mean")) == "1.666667"
    assert aggregate_values(["1", "2", "2"], spec("arithmetic-mean", integer=True)) == "2"


@pytest.mark.parametrize("values,expected", [
    (["36", "37"], "37"), (["37", "38"], "38"),      # halves upwards, not to the even one
    (["-3", "-2"], "-2"), (["1", "2", "2", "2"], "2"),  # -2.5 -> -2 (Java's Math.round)
    (["0", "1"], "1"), (["2", "2", "3"], "2")])
def test_integer_means_round_half_up_as_arx(values, expected):
    assert aggregate_values(values, spec("arithmetic-mean", integer=True)) == expected
    assert aggregate_values(values, spec("median", integer=True)) == aggregate_values(
        sorted(values, key=float), spec("median", integer=True))


def test_adult_integer_class_means_as_arx(adult_dir):
    """ARX on Adult (age microaggregated by its class mean as an integer, the 8 other
    quasi-identifiers generalized, 5-anonymity, 100 %, Loss with the rank aggregate):
    the class means of 296 records (32 classes) end in .5 and ARX rounds them up; its released mean age is
    37.861596 (half to even would give 37.853641)."""
    from tests.engine.conftest import ADULT_QIS, adult_job_text
    text = adult_job_text(k=5, limit=1.0, qis=[q for q in ADULT_QIS if q != "age"]
                          + ["age"])
    text = text.replace('[attributes."age"]\ntype = "quasi-identifying"\n'
                        'hierarchy = "adult_hierarchy_age.csv"\n',
                        '[attributes."age"]\ntype = "quasi-identifying"\n'
                        'transformation = "microaggregation"\nfunction = "arithmetic-mean"\n'
                        'data_type = "integer"\n')
    text = text.replace('name = "loss"', 'name = "loss"\ngs_factor = 0.5\naggregate = "rank"')
    assert 'data_type = "integer"' in text and 'aggregate = "rank"' in text
    (adult_dir / "job.toml").write_text(text)
    r = engine.anonymize(None, adult_dir / "job.toml")
    out = r.output
    kept = out["age"] != "*"
    assert kept.sum() == 24638
    released = out.loc[kept, "age"].astype(int)
    assert round(released.mean(), 6) == 37.861596
    assert round(r.to_dict()["microaggregation"]["age"]["released_mean"], 6) == 37.861596
    # the class means recomputed from the input, rounded half up
    data = pd.read_csv(adult_dir / "adult.csv", sep=";")
    others = [q for q in ADULT_QIS if q != "age"]
    keys = out.loc[kept, others].astype(str).agg("|".join, axis=1)
    means = data.loc[kept, "age"].astype(float).groupby(keys).transform("mean")
    half = (means % 1) == 0.5
    assert half.sum() == 296 and half.groupby(keys).any().sum() == 32
    assert (released == np.floor(means + 0.5).astype(int)).all()
    assert verify_frame(out, engine.api.as_job(adult_dir / "job.toml")).ok


def test_non_number_is_refused_with_its_value():
    with pytest.raises(JobError, match="'abc' .*not a number"):
        aggregate_values(["1", "abc"], spec("arithmetic-mean"))


def test_aggregate_by_class_matches_groupby():
    values = np.array(["1", "2", "3", "10", "20", "7"], dtype=object)
    row_class = np.array([0, 0, 0, 1, 1, 2])
    released = np.array([True, True, True, True, True, False])
    out = aggregate_by_class(values, row_class, released, spec("arithmetic-mean"))
    assert list(out) == ["2", "2", "2", "15", "15", ""]
    out = aggregate_by_class(values, row_class, released, spec("interval"))
    assert list(out[:5]) == ["[1, 3]"] * 3 + ["[10, 20]"] * 2


def small_job(function="arithmetic-mean", k=2, limit=0.0, extra=None):
    d = {"attributes": {
            "sex": {"type": "quasi-identifying", "hierarchy": "sex.csv"},
            "age": {"type": "quasi-identifying", "transformation": "microaggregation",
                    "function": function},
            "disease": {"type": "sensitive"}},
         "privacy": [{"model": "k-anonymity", "k": k}],
         "transformation": {"suppression_limit": limit},
         "metric": {"name": "loss", "aggregate": "arithmetic-mean", "gs_factor": 0.5}}
    if extra:
        d["attributes"]["age"].update(extra)
    return d


@pytest.fixture
def small(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sex.csv").write_text("m;*\nf;*\n")
    return pd.DataFrame({"sex": ["m", "m", "m", "f", "f"],
                         "age": ["20", "30", "40", "50", "70"],
                         "disease": ["a", "b", "a", "b", "c"]})


def test_small_job_releases_class_means_and_verifies(small):
    r = engine.anonymize(small, small_job())
    assert r.optimum.levels == {"sex": 0}
    assert list(r.output["age"]) == ["30", "30", "30", "60", "60"]
    report = verify_frame(r.output, engine.api.as_job(small_job()))
    assert report.ok, report.violations
    # ARX's Loss: sex at level 0 costs 0; age: per class records x distinct / |domain|
    # = (3 * 3/5 + 2 * 2/5) / 5 = 0.52; arithmetic mean over 2 dimensions = 0.26
    assert r.optimum.information_loss == pytest.approx(0.26)
    micro = r.to_dict()["microaggregation"]["age"]
    assert micro["sse"] == pytest.approx(100 + 0 + 100 + 100 + 100)
    assert micro["released_mean"] == pytest.approx((30 * 3 + 60 * 2) / 5)
    assert "microaggregation (age: arithmetic-mean)" in r.method


def test_microaggregated_value_differing_inside_a_class_is_caught(small):
    r = engine.anonymize(small, small_job())
    out = r.output.copy()
    out.loc[0, "age"] = "31"
    report = verify_frame(out, engine.api.as_job(small_job()))
    assert not report.ok
    assert "more than one value" in report.violations[0]


def test_suppressed_records_release_the_marker(small):
    job = small_job(k=3, limit=0.4)
    job["transformation"]["suppression_string"] = "(removed)"
    r = engine.anonymize(small, job)
    assert r.optimum.levels == {"sex": 0}
    assert list(r.output["age"]) == ["30", "30", "30", "(removed)", "(removed)"]
    assert list(r.output["sex"][3:]) == ["(removed)"] * 2
    assert verify_frame(r.output, engine.api.as_job(job)).ok


def test_clustering_aggregates_over_the_hierarchy_classes(small, tmp_path):
    (tmp_path / "age.csv").write_text("20;20-49\n30;20-49\n40;20-49\n50;50-79\n70;50-79\n")
    job = small_job(extra={"clustering": "hierarchy", "hierarchy": "age.csv"})
    job["attributes"]["sex"]["hierarchy"] = "sex.csv"
    r = engine.anonymize(small, job)
    # the classes are (sex, age group): {m: 20,30,40} and {f: 50,70}
    assert r.optimum.levels == {"sex": 0, "age": 1}
    assert list(r.output["age"]) == ["30", "30", "30", "60", "60"]
    assert verify_frame(r.output, engine.api.as_job(job)).ok


@pytest.mark.parametrize("change,message", [
    ({"function": "average"}, "function = 'average' must be one of"),
    ({"function": None}, "needs a function"),
    ({"ignore_missing": 1}, "must be true or false"),
    ({"transformation": "microaggregate"}, "did you mean 'microaggregation'"),
    ({"clustering": "hierarchy"}, "give it a 'hierarchy'"),
    ({"clustering": True}, "clustering = true must be one of 'none', 'hierarchy', 'mdav'"),
])
def test_job_keys_are_read_strictly(small, change, message):
    job = small_job()
    for key, value in change.items():
        if value is None:
            job["attributes"]["age"].pop(key)
        else:
            job["attributes"]["age"][key] = value
    with pytest.raises(JobError, match=message):
        engine.api.as_job(job)


def test_job_round_trips(tmp_path, small):
    from engine.project.job_file import job_to_dict
    job = engine.api.as_job(small_job(function="median", extra={"ignore_missing": True}))
    d = job_to_dict(job)
    assert d["attributes"]["age"]["transformation"] == "microaggregation"
    assert d["attributes"]["age"]["function"] == "median"
    assert d["attributes"]["age"]["ignore_missing"] is True
    assert math.isfinite(engine.anonymize(small, d).optimum.information_loss)


def test_mdav_by_hand():
    from engine.transform.clustering import mdav
    x = np.array([1, 2, 3, 10, 11, 12, 20, 21, 22, 23], dtype=float)[:, None]
    labels = mdav(x, 3)
    groups = sorted(sorted(x[labels == c, 0].tolist()) for c in np.unique(labels))
    # 10 >= 3k: the farthest from the mean (16.5) is 1 -> {1,2,3}; the farthest from 1
    # is 23 -> {21,22,23}; 4 left (< 2k = 6): one last cluster
    assert groups == [[1, 2, 3], [10, 11, 12, 20], [21, 22, 23]]
    assert all(len(g) >= 3 for g in groups)


def mdav_frame():
    return pd.DataFrame({"sex": ["m"] * 6 + ["f"] * 3,
                         "age": ["20", "21", "22", "60", "61", "62", "30", "40", "50"],
                         "disease": ["a", "b", "c", "a", "b", "c", "a", "a", "b"]})


def test_mdav_splits_classes_by_similarity_and_verifies(small):
    job = small_job(k=3, extra={"clustering": "mdav"})
    r = engine.anonymize(mdav_frame(), job)
    assert r.optimum.levels == {"sex": 0}
    # the class of m (6 records >= 2k) splits into {20,21,22} and {60,61,62}; f stays whole
    assert list(r.output["age"]) == ["21"] * 3 + ["61"] * 3 + ["40"] * 3
    report = verify_frame(r.output, engine.api.as_job(job))
    assert report.ok, report.violations
    assert report.classes == 3 and report.min_class_size == 3
    assert r.to_dict()["microaggregation"]["age"]["sse"] == pytest.approx(2 + 2 + 200)


def test_mdav_keeps_a_class_whole_when_a_cluster_would_violate(small):
    job = small_job(k=3, extra={"clustering": "mdav"})
    job["privacy"].append({"model": "distinct-l-diversity", "attribute": "disease", "l": 2})
    frame = mdav_frame().assign(disease=["a", "a", "a", "b", "b", "b", "a", "b", "a"])
    r = engine.anonymize(frame, job)
    # clusters {20,21,22} and {60,61,62} would hold one disease each: m aggregated whole
    assert list(r.output["age"][:6]) == ["41"] * 6
    assert verify_frame(r.output, engine.api.as_job(job)).ok


@pytest.mark.parametrize("function,statistic", [
    ("arithmetic-mean", lambda s: s.mean()),
    pytest.param("median", lambda s: s.median(), marks=pytest.mark.slow),
    pytest.param("geometric-mean", lambda s: np.expm1(np.log1p(s).mean()),
                 marks=pytest.mark.slow),
])
def test_adult_class_aggregates_recomputed_from_the_input(adult_dir, function, statistic):
    from tests.engine.conftest import ADULT_QIS
    text = (adult_dir / "job.toml").read_text().replace(
        'hierarchy = "adult_hierarchy_age.csv"\n',
        f'transformation = "microaggregation"\nfunction = "{function}"\n')
    text = text.replace("suppression_limit = 0.04", "suppression_limit = 0.1")
    (adult_dir / "job.toml").write_text(text)
    r = engine.anonymize(None, adult_dir / "job.toml")
    out = r.output
    data = pd.read_csv(adult_dir / "adult.csv", sep=";")
    others = [q for q in ADULT_QIS if q != "age"]
    kept = ~(out[others] == "*").all(axis=1)
    # classes recounted from the released labels; the aggregate recomputed from the input
    keys = out.loc[kept, others].astype(str).agg("|".join, axis=1)
    expected = data.loc[kept, "age"].astype(float).groupby(keys).transform(statistic)
    released = out.loc[kept, "age"].astype(float)
    assert np.allclose(released, expected, atol=5e-7)
    assert (out.loc[~kept, "age"] == "*").all()
    assert verify_frame(out, engine.api.as_job(adult_dir / "job.toml")).ok


def test_large_classes_are_cut_along_their_principal_axis():
    from engine.transform import clustering
    x = np.random.default_rng(1).normal(size=(clustering.LARGE + 7, 2))
    x[:, 1] = 3 * x[:, 0]  # one direction of variation
    labels = clustering.mdav(x, 4)
    sizes = np.bincount(labels)
    assert sizes.min() >= 4 and sizes.max() <= 7 and sizes.sum() == len(x)
    # groups are consecutive along the axis: their ranges do not overlap
    spans = sorted((x[labels == c, 0].min(), x[labels == c, 0].max())
                   for c in range(sizes.size))
    assert all(a[1] < b[0] for a, b in zip(spans, spans[1:]))


def test_non_numbers_are_refused_before_the_search_with_their_row(small):
    from engine.api import prepare
    frame = small.assign(age=["20", "30", "forty", "50", "70"])
    with pytest.raises(JobError, match=r"'forty' \(data row 3\) is not a number"):
        prepare(frame, small_job())
    # mode needs no numbers
    assert engine.anonymize(frame, small_job(function="mode")).optimum is not None
