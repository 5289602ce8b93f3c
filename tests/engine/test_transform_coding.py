"""Coding and suppression rules by hand: top/bottom coding, identity, suppress-everything,
the suppression string and removing suppressed records' other values; verify recounts."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import engine
from engine.api import as_job
from engine.errors import JobError
from engine.transform.coding import code_values
from engine.config import AttributeConfig
from engine.verify import verify_frame


def rule(kind, top=None, bottom=None, type="quasi-identifying"):
    return AttributeConfig(type, transformation=kind, top=top, bottom=bottom)


def test_top_bottom_coding_by_hand():
    values = np.array(["15", "20", "45", "90", "", "61.5"], dtype=object)
    out = code_values(values, rule("top-bottom-coding", top=60, bottom=18), "age")
    assert list(out) == ["18", "20", "45", "60", "", "60"]
    out = code_values(values, rule("top-bottom-coding", top=60), "age")
    assert list(out) == ["15", "20", "45", "60", "", "60"]


def test_identity_and_suppression_rules():
    values = np.array(["a", "b"], dtype=object)
    assert list(code_values(values, rule("identity"), "x")) == ["a", "b"]
    assert list(code_values(values, rule("suppression"), "x", "#")) == ["#", "#"]


def test_coding_a_non_number_names_it():
    with pytest.raises(JobError, match="'old' .*not a number"):
        code_values(np.array(["3", "old"], dtype=object), rule("top-bottom-coding", top=2), "a")


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sex.csv").write_text("m;*\nf;*\n")
    return pd.DataFrame({"sex": ["m", "m", "m", "f", "f", "f"],
                         "age": ["15", "30", "95", "50", "70", "17"],
                         "zip": ["1", "2", "3", "4", "5", "6"],
                         "income": ["10", "20", "999", "30", "40", "50"],
                         "disease": ["a", "b", "c", "a", "b", "c"]})


def base_job(**age):
    return {"attributes": {
                "sex": {"type": "quasi-identifying", "hierarchy": "sex.csv"},
                "age": {"type": "quasi-identifying", **age},
                "zip": {"type": "quasi-identifying", "transformation": "suppression"},
                "income": {"type": "insensitive", "transformation": "top-bottom-coding",
                           "top": 100},
                "disease": {"type": "sensitive"}},
            "privacy": [{"model": "k-anonymity", "k": 3}],
            "transformation": {"suppression_limit": 0.0}}


def test_rules_in_a_job_release_coded_values_and_verify(data):
    job = base_job(transformation="top-bottom-coding", top=60, bottom=20)
    job["privacy"] = [{"model": "k-anonymity", "k": 1}]
    r = engine.anonymize(data, job)
    out = r.output
    assert list(out["zip"]) == ["*"] * 6                 # suppress-everything rule
    assert list(out["income"]) == ["10", "20", "100", "30", "40", "50"]  # insensitive coded
    assert list(out["age"]) == ["20", "30", "60", "50", "60", "20"]
    assert r.optimum.levels == {"sex": 0, "age": 1, "zip": 1}
    assert verify_frame(out, as_job(job)).ok
    bad = out.copy()
    bad.loc[1, "zip"] = "2"
    report = verify_frame(bad, as_job(job))
    assert not report.ok and any("zip" in v for v in report.violations)


def test_identity_rule_keeps_values_and_the_search_goes_on(data):
    job = base_job(transformation="identity")
    job["privacy"] = [{"model": "k-anonymity", "k": 1}]
    r = engine.anonymize(data, job)
    assert list(r.output["age"]) == list(data["age"])
    assert verify_frame(r.output, as_job(job)).ok


def test_top_bottom_coded_qi_verifies_and_tampering_is_caught(data):
    data = data.assign(age=["15", "95", "99", "15", "96", "17"])
    job = base_job(transformation="top-bottom-coding", top=90, bottom=18)
    r = engine.anonymize(data, job)
    assert list(r.output["age"]) == ["18", "90", "90", "18", "90", "18"]
    assert r.optimum.levels == {"sex": 1, "age": 1, "zip": 1}
    assert verify_frame(r.output, as_job(job)).ok
    bad = r.output.copy()
    bad.loc[0, "age"] = "15"
    report = verify_frame(bad, as_job(job))
    assert not report.ok and any("outside" in v for v in report.violations)


def test_suppression_string_and_removed_values(data):
    job = base_job(transformation="top-bottom-coding", top=90, bottom=18)
    data = data.assign(age=["15", "95", "99", "15", "96", "50"])
    job["privacy"] = [{"model": "k-anonymity", "k": 2},
                      {"model": "t-closeness", "attribute": "disease", "t": 0.5}]
    job["transformation"] = {"suppression_limit": 0.5, "suppression_string": "?",
                             "remove_suppressed_values": True}
    data.to_csv("data.csv", sep=";", index=False)
    job["data"] = {"path": "data.csv", "delimiter": ";"}
    r = engine.anonymize(None, job)
    out = r.output
    sup = (out[["sex", "age", "zip"]] == "?").all(axis=1)
    assert sup.sum() == r.optimum.suppressed_records > 0
    assert (out.loc[sup, ["income", "disease"]] == "?").all().all()
    assert (out.loc[~sup, "disease"] != "?").all()
    report = verify_frame(out, as_job(job))
    assert report.ok, report.violations
    assert report.suppressed_records == r.optimum.suppressed_records


@pytest.mark.parametrize("attrs,message", [
    ({"type": "sensitive", "transformation": "identity"}, "cannot be applied to a sensitive"),
    ({"type": "insensitive", "transformation": "top-bottom-coding"}, "needs 'top'"),
    ({"type": "insensitive", "transformation": "top-bottom-coding", "top": 1, "bottom": 2},
     "greater than top"),
    ({"type": "insensitive", "top": 5}, "only apply to"),
    ({"type": "insensitive", "transformation": "top-bottom-coding", "top": "5"},
     "must be a number"),
])
def test_rule_keys_are_strict(data, attrs, message):
    job = base_job(transformation="identity")
    job["attributes"]["income"] = attrs
    with pytest.raises(JobError, match=message):
        as_job(job)


def test_suppression_string_must_be_text(data):
    job = base_job(transformation="identity")
    job["transformation"]["suppression_string"] = 0
    with pytest.raises(JobError, match="suppression_string = 0 must be text"):
        as_job(job)


def test_coding_a_non_number_is_refused_before_the_search(data):
    from engine.api import prepare
    job = base_job(transformation="identity")
    frame = data.assign(income=["10", "20", "n/a", "30", "40", "50"])
    with pytest.raises(JobError, match=r"'n/a' \(data row 3\) is not a number"):
        prepare(frame, job)
