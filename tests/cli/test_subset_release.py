"""A subset job (a model counts the research subset) releases the subset's records
only, in input order; `verify` checks that the file holds exactly them (issue 26)."""
from __future__ import annotations

import pandas as pd
import pytest

from engine.cli import EXIT_OK, EXIT_VIOLATIONS
from tests.cli.conftest import job_text, write_tiny

ROWS = [("p0", "23", "M", "11111", "flu"), ("p1", "25", "M", "11111", "cold"),
        ("p2", "61", "F", "11122", "cancer"), ("p3", "45", "F", "11133", "flu"),
        ("p4", "33", "M", "11122", "cold"), ("p5", "71", "F", "11111", "flu"),
        ("p6", "52", "M", "11133", "cancer"), ("p7", "28", "F", "11122", "cold")]
PRESENCE = '[[privacy]]\nmodel = "delta-presence"\ndelta_min = 0.0\ndelta_max = 0.5\n'


def _job(folder, subset='indices = [0, 1]', k=None):
    write_tiny(folder, ROWS)
    text = job_text(k="1", limit="0.5", extra_privacy=PRESENCE) + f"[subset]\n{subset}\n"
    if k is None:
        text = text.replace('[[privacy]]\nmodel = "k-anonymity"\nk = 1\n', "")
    else:
        text = text.replace("k = 1\n", f"k = {k}\n")
    (folder / "job.toml").write_text(text)
    return folder / "job.toml"


def _read(path) -> pd.DataFrame:
    return pd.read_csv(path, sep=";", dtype=str, keep_default_na=False)


def test_delta_presence_releases_no_one_outside_the_subset(tmp_path, run):
    job = _job(tmp_path)
    r = run("anonymize", job, "--output", tmp_path / "out.csv", "--quiet")
    assert r.code == EXIT_OK, r.err
    out = _read(tmp_path / "out.csv")
    # the subset's two records, in input order: their diseases, nothing of rows 2-7
    assert len(out) == 2
    assert out["disease"].tolist() == ["flu", "cold"]
    assert run("verify", tmp_path / "out.csv", job).code == EXIT_OK


def test_with_k_anonymity_and_a_query_the_release_is_the_subset(tmp_path, run):
    job = _job(tmp_path, subset="query = \"sex = 'F'\"", k=2)
    r = run("anonymize", job, "--output", tmp_path / "out.csv", "--quiet")
    assert r.code == EXIT_OK, r.err
    out = _read(tmp_path / "out.csv")
    females = [r for r in ROWS if r[2] == "F"]
    assert out["disease"].tolist() == [r[4] for r in females]
    assert set(out["sex"]) <= {"F", "*"}
    assert run("verify", tmp_path / "out.csv", job).code == EXIT_OK


def test_verify_rejects_a_record_outside_the_subset(tmp_path, run):
    job = _job(tmp_path)
    assert run("anonymize", job, "--output", tmp_path / "out.csv", "--quiet").code == EXIT_OK
    out = _read(tmp_path / "out.csv")
    # one more record in the first record's class, as the release before the fix
    # held the records outside the subset
    stranger = out.iloc[[0]].assign(disease="cancer")
    pd.concat([out, stranger]).to_csv(tmp_path / "more.csv", sep=";", index=False)
    r = run("verify", tmp_path / "more.csv", job)
    assert r.code == EXIT_VIOLATIONS
    assert "research subset" in r.err


def test_a_parquet_inputs_subset_is_resolved_by_the_verifier(tmp_path, run):
    """The verifier reads the input of any kind the job reads (here Parquet) to resolve
    the subset and count the population."""
    pytest.importorskip("pyarrow")
    job = _job(tmp_path, subset="query = \"sex = 'M'\"", k=1)
    pd.read_csv(tmp_path / "data.csv", sep=";", dtype=str).to_parquet(
        tmp_path / "data.parquet", index=False)
    job.write_text(job.read_text().replace('path = "data.csv"', 'path = "data.parquet"'))
    assert run("anonymize", job, "--output", tmp_path / "out.csv", "--quiet").code == EXIT_OK
    out = _read(tmp_path / "out.csv")
    assert out["disease"].tolist() == [r[4] for r in ROWS if r[2] == "M"]
    assert run("verify", tmp_path / "out.csv", job).code == EXIT_OK
    pd.concat([out, out.iloc[[0]]]).to_csv(tmp_path / "more.csv", sep=";", index=False)
    assert run("verify", tmp_path / "more.csv", job).code == EXIT_VIOLATIONS
