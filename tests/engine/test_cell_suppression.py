"""Cell-level local suppression (``[transformation] suppression = "cells"``): the release
recounted with the wildcard rule by plain pandas in the test, on Adult after the
optimal search and on small tables without hierarchies; importance, combinations,
the job's refusals and verify's own check."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from engine.api import anonymize
from engine.errors import JobError
from engine.project.job_file import job_from_dict
from engine.verify import verify_frame
from tests.shared_data import SHARED

ADULT = SHARED / "data" / "adult"
ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
             "workclass", "occupation"]


def wildcard_fk(frame: pd.DataFrame, columns: list[str], marker: str = "*") -> np.ndarray:
    """Per row: the rows agreeing with it wherever neither holds the marker (written
    here, by rows, independently of the engine's kernel and of the verifier)."""
    keys = frame[columns].value_counts().reset_index(name="n")
    vals = keys[columns].to_numpy(dtype=object)
    n = keys["n"].to_numpy()
    star = vals == marker
    fk = np.array([n[((vals == vals[a]) | star | star[a]).all(axis=1)].sum()
                   for a in range(len(keys))])
    per_key = dict(zip(map(tuple, vals), fk))
    return np.array([per_key[tuple(r)] for r in frame[columns].to_numpy(dtype=object)])


def adult_job(**transformation) -> dict:
    attrs = {q: {"type": "quasi-identifying",
                 "hierarchy": str(ADULT / f"adult_hierarchy_{q}.csv")} for q in ADULT_QIS}
    attrs["salary-class"] = {"type": "insensitive"}
    return {"data": {"path": str(ADULT / "adult.csv"), "delimiter": ";"},
            "attributes": attrs, "privacy": [{"model": "k-anonymity", "k": 5}],
            "transformation": {"suppression_limit": 0.05, **transformation}}


@pytest.fixture(scope="module")
def adult_release():
    job = job_from_dict(adult_job(suppression="cells"))
    result = anonymize(None, job)
    released = result.transformed()
    return job, result, released, released.frame


def test_adult_cells_meet_k_with_wildcards_recounted(adult_release):
    job, result, released, out = adult_release
    inp = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str)
    assert len(out) == len(inp)
    fk = wildcard_fk(out, ADULT_QIS)
    assert fk.min() >= 5
    # no record is suppressed whole; cells were suppressed where whole records would be
    assert released.suppressed_records == 0
    levels = result.optimum.levels
    at_top = [q for q in ADULT_QIS if (out[q] == "*").all()]  # '*' as the level's label
    cols = [q for q in ADULT_QIS if q not in at_top]
    treated = (out[cols] == "*").any(axis=1)
    assert 0 < treated.sum() <= result.optimum.suppressed_records
    # cells only in records the search counted as violating: the others keep every label
    records = released.problem  # noqa: F841 - the problem holds the classes
    whole = anonymize(None, job_from_dict(adult_job())).transformed(
        [levels[q] for q in result.problem.qis])
    whole_rows = np.asarray(whole.suppressed_rows)
    assert not treated[~whole_rows].any()
    # a record's untouched cells are its generalized values (the records release)
    kept = ~whole_rows
    for q in cols:
        assert (out.loc[kept, q] == whole.frame.loc[kept, q]).all()
    # verify agrees; so does its check of the same table with one cell put back
    assert verify_frame(out, job).ok
    stats = released.class_statistics()  # classes as records matched with wildcards
    assert stats["min_class_size"] == fk.min() >= 5
    assert stats["classes"] == len(out[ADULT_QIS].drop_duplicates())
    figures = result.to_dict()["cell_suppression"]
    assert figures["records_with_suppressed_cells"] == int(treated.sum())
    assert figures["cells_suppressed"] == int((out[cols] == "*").to_numpy().sum())


def test_verify_finds_a_cell_put_back(adult_release):
    job, result, released, out = adult_release
    inp = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str)
    cols = [q for q in ADULT_QIS if not (out[q] == "*").all()]
    fk = wildcard_fk(out, cols)
    # put back the input's value in a suppressed cell of a record that is k exactly
    # because of it: find one whose recount falls below k
    broken = None
    for row in np.flatnonzero((out[cols] == "*").any(axis=1).to_numpy()):
        q = next(c for c in cols if out.at[row, c] == "*")
        trial = out.copy()
        trial.at[row, q] = "Unknown-" + str(inp.at[row, q])
        if wildcard_fk(trial, cols)[row] < 5:
            broken = trial
            break
    assert broken is not None and fk.min() >= 5
    report = verify_frame(broken, job)
    assert not report.ok
    assert any("wildcards" in v or "labels" in v for v in report.violations)


def small_frame(seed: int = 3, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "a": rng.choice(["x", "y", "z", "w"], n, p=[.4, .3, .2, .1]),
        "b": rng.choice([f"b{i}" for i in range(8)], n),
        "c": rng.choice(["p", "q"], n, p=[.8, .2]),
        "d": rng.choice([f"d{i}" for i in range(5)], n),
    })


def small_job(tmp_path, frame, k=3, importance=None, combinations=None, qis="abcd"):
    path = tmp_path / "small.csv"
    frame.to_csv(path, sep=";", index=False)
    attrs = {q: {"type": "quasi-identifying"} for q in qis}
    for q, i in (importance or {}).items():
        attrs[q]["importance"] = i
    tr = {"suppression_limit": 1.0, "suppression": "cells"}
    if combinations is not None:
        tr["combinations"] = combinations
    return job_from_dict({"data": {"path": str(path), "delimiter": ";"},
                          "attributes": attrs,
                          "privacy": [{"model": "k-anonymity", "k": k}],
                          "transformation": tr})


def test_without_hierarchies(tmp_path):
    frame = small_frame()
    job = small_job(tmp_path, frame)
    out = anonymize(None, job).transformed().frame
    assert wildcard_fk(out, list("abcd")).min() >= 3
    # every released cell is the input's or the marker
    for q in "abcd":
        same = out[q] == frame[q]
        assert (same | (out[q] == "*")).all()
    assert (out[list("abcd")] == "*").to_numpy().sum() > 0
    assert verify_frame(out, job).ok


def test_importance_orders_the_suppressions(tmp_path):
    frame = small_frame()
    protect_b = anonymize(None, small_job(tmp_path, frame, importance={
        "b": 1, "a": 2, "c": 3, "d": 4})).transformed().frame
    spend_b = anonymize(None, small_job(tmp_path, frame, importance={
        "b": 4, "a": 1, "c": 2, "d": 3})).transformed().frame
    assert (protect_b["b"] == "*").sum() < (spend_b["b"] == "*").sum()
    for out in (protect_b, spend_b):
        assert wildcard_fk(out, list("abcd")).min() >= 3


def test_combinations(tmp_path):
    frame = small_frame(n=200)
    job = small_job(tmp_path, frame, k=4, combinations=2)
    out = anonymize(None, job).transformed().frame
    for pair in itertools.combinations("abcd", 2):
        assert wildcard_fk(out, list(pair)).min() >= 4
    # fewer cells than k-anonymity on all four together needs
    full = anonymize(None, small_job(tmp_path, frame, k=4)).transformed().frame
    assert (out == "*").to_numpy().sum() < (full == "*").to_numpy().sum()
    assert verify_frame(out, job).ok
    assert not verify_frame(out, small_job(tmp_path, frame, k=4)).ok


@pytest.mark.parametrize("change, message", [
    ({"privacy": [{"model": "distinct-l-diversity", "attribute": "d", "l": 2}]},
     "k-anonymity"),
    ({"privacy": [{"model": "k-anonymity", "k": 2},
                  {"model": "distinct-l-diversity", "attribute": "d", "l": 2}]},
     "guarantees k-anonymity only"),
    ({"transformation": {"combinations": 2}}, "only applies to suppression"),
    ({"transformation": {"suppression": "cells", "combinations": 9}}, "more than the"),
    ({"transformation": {"suppression": "rows"}}, "suppression"),
    ({"engine": {"backend": "duckdb"}}, "in memory"),
])
def test_refused_settings(tmp_path, change, message):
    d = {"data": {"path": "x.csv"},
         "attributes": {"a": {"type": "quasi-identifying"}, "b": {"type": "quasi-identifying"},
                        "d": {"type": "sensitive"}},
         "privacy": [{"model": "k-anonymity", "k": 2}],
         "transformation": {"suppression": "cells"}}
    d.update(change)
    with pytest.raises(JobError, match=message):
        job_from_dict(d, tmp_path)


def test_importance_only_with_cells(tmp_path):
    with pytest.raises(JobError, match="importance only applies"):
        job_from_dict({"attributes": {"a": {"type": "quasi-identifying", "importance": 1}},
                       "privacy": [{"model": "k-anonymity", "k": 2}]}, tmp_path)


def test_three_wildcard_counts_agree_on_random_keys():
    """The engine's kernel, its final check, the verifier's pattern grouping and this
    file's row-by-row recount give every key the same matches on random keys with
    wildcards."""
    from engine.kernel.cells import wildcard_frequencies
    from engine.verifier.cells import wildcard_frequencies as verifier_frequencies
    rng = np.random.default_rng(4)
    for _ in range(20):
        m = int(rng.integers(1, 5))
        keys = np.unique(rng.integers(0, 3, size=(40, m)), axis=0)
        pat = np.where(rng.random(keys.shape) < 0.25, -1, keys)
        counts = rng.integers(1, 4, len(pat))
        frame = pd.DataFrame(np.where(pat < 0, "*", pat.astype(str)),
                             columns=[f"c{j}" for j in range(m)]).loc[
            np.repeat(np.arange(len(pat)), counts)].reset_index(drop=True)
        expected = wildcard_fk(frame, list(frame.columns))
        kernel = wildcard_frequencies(pat, counts, np.ones(m, dtype=np.bool_))
        sizes: dict = {}
        for row, n in zip(map(tuple, np.where(pat < 0, "*", pat.astype(str))), counts):
            sizes[row] = sizes.get(row, 0) + int(n)
        verifier = verifier_frequencies(sizes, "*", tuple(range(m)))
        per_row = [verifier[tuple(r)] for r in frame.to_numpy(dtype=object)]
        assert np.array_equal(np.repeat(kernel, counts), expected)
        from engine.transform.cell_suppression import pattern_frequencies
        final = pattern_frequencies(pat, counts, list(range(m)))  # the release's check
        assert np.array_equal(np.repeat(final, counts), expected)
        assert np.array_equal(np.asarray(per_row), expected)


def test_a_job_built_in_code_is_checked_too(tmp_path):
    """The rules hold for a Job the app or the API builds, not only for job files."""
    import dataclasses

    from engine.privacy import model_from_dict
    frame = small_frame()
    job = small_job(tmp_path, frame)
    job = dataclasses.replace(job, privacy=(
        *job.privacy, model_from_dict({"model": "distinct-l-diversity", "attribute": "d",
                                       "l": 2})), attributes={
        **job.attributes, "d": dataclasses.replace(job.attributes["d"], type="sensitive")})
    with pytest.raises(JobError, match="guarantees k-anonymity only"):
        anonymize(None, job)


def test_report_states_the_cells(adult_release, tmp_path):
    from pypdf import PdfReader

    from engine.release_docs.pdf import export_report
    job, result, released, out = adult_release
    pdf, js, report = export_report(result, tmp_path / "r.pdf", json_path=tmp_path / "r.json")
    assert report["verification"]["ok"], report["verification"]["violations"]
    assert report["output"]["min_class_size"] >= 5
    cells = report["cell_suppression"]
    assert cells["cells_suppressed"] == int((out[ADULT_QIS] == "*").to_numpy().sum()
                                            - len(out))  # occupation's '*' is its level
    text = " ".join("\n".join(p.extract_text() for p in PdfReader(pdf).pages).split())
    assert f"{cells['cells_suppressed']:,} cells of" in text
    assert "matches any value" in text
