"""Local recoding: the released table recounted with plain pandas for k-anonymity,
l-diversity and t-closeness; loss before recoding equals the global optimum's; the CLI
output verifies."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import engine
from engine.verify import verify_frame
from engine.errors import JobError
from tests.engine.conftest import adult_job_text

QIS = ["sex", "age", "race", "marital-status", "education"]


def job_text(limit=0.04, k=5, models="", iterations=100, gs=0.05, qis=QIS, extra=""):
    text = adult_job_text(k=k, limit=limit, qis=qis)
    text = text.replace("[transformation]\n", models + "[transformation]\n"
                        f"local_recoding = {{ iterations = {iterations}, gs_factor = {gs} }}\n"
                        + extra)
    return text


def run(adult_dir, text):
    (adult_dir / "job.toml").write_text(text)
    return engine.anonymize(None, adult_dir / "job.toml")


def released_classes(out: pd.DataFrame, qis):
    """Classes recounted from the released strings; suppressed rows (all QIs '*') apart."""
    sup = (out[qis] == "*").all(axis=1)
    kept = out[~sup]
    return sup, kept.groupby(qis, sort=False)


def levels_used(out, column, hierarchy_file):
    rows = pd.read_csv(hierarchy_file, sep=";", header=None, dtype=str)
    found = set()
    sup = (out[QIS] == "*").all(axis=1)
    for value in out[column][~sup].unique():
        found.add(min(j for j in range(rows.shape[1]) if (rows[j] == value).any()))
    return found


def test_k_anonymity_recounted_and_loss_drops(adult_dir):
    r = run(adult_dir, job_text())
    lr = r.local_recoding
    # before recoding the loss is the global optimum's, recomputed per record
    assert lr.loss_before == pytest.approx(r.optimum.information_loss, abs=1e-9)
    assert lr.suppressed_before == r.optimum.suppressed_records
    assert lr.suppressed_after < lr.suppressed_before
    assert lr.loss_after < lr.loss_before
    out = r.output
    sup, groups = released_classes(out, QIS)
    assert int(sup.sum()) == lr.suppressed_after
    assert groups.size().min() >= 5
    # records of one attribute now carry different levels
    kept = ~lr.suppressed
    assert any(len(np.unique(lr.levels[kept, j])) > 1 for j in range(len(QIS))), lr.steps
    assert any(len(levels_used(out, q, adult_dir / f"adult_hierarchy_{q}.csv")) > 1
               for q in QIS)
    report = verify_frame(out, engine.api.as_job(adult_dir / "job.toml"))
    assert report.ok, report.violations
    assert r.to_dict()["local_recoding"]["suppressed_after"] == lr.suppressed_after


def test_l_diversity_recounted(adult_dir):
    models = ('[[privacy]]\nmodel = "distinct-l-diversity"\nattribute = "occupation"\n'
              'l = 3\n')
    text = job_text(limit=0.1, models=models, iterations=10).replace(
        'k = 5', 'k = 2')
    text += '\n[attributes."occupation"]\ntype = "sensitive"\n'
    r = run(adult_dir, text)
    assert r.local_recoding.suppressed_after < r.local_recoding.suppressed_before
    sup, groups = released_classes(r.output, QIS)
    assert groups["occupation"].nunique().min() >= 3
    assert groups.size().min() >= 2


def test_t_closeness_recounted_against_the_whole_distribution(adult_dir):
    models = ('[[privacy]]\nmodel = "t-closeness"\nattribute = "occupation"\nt = 0.2\n'
              'distance = "equal"\n')
    text = job_text(limit=0.2, models=models, iterations=6, gs=0.5)
    text += '\n[attributes."occupation"]\ntype = "sensitive"\n'
    r = run(adult_dir, text)
    data = pd.read_csv(adult_dir / "adult.csv", sep=";", dtype=str)
    p = data["occupation"].value_counts(normalize=True)
    sup, groups = released_classes(r.output, QIS)
    worst = 0.0
    for _, cls in groups:
        q = cls["occupation"].value_counts(normalize=True)
        d = 0.5 * (q.reindex(p.index, fill_value=0) - p).abs().sum()
        worst = max(worst, d)
    assert worst <= 0.2 + 1e-12
    assert r.local_recoding.suppressed_after <= r.local_recoding.suppressed_before


def test_unsupported_model_is_refused(adult_dir):
    text = job_text(models='[[privacy]]\nmodel = "average-risk"\nthreshold = 0.2\n')
    with pytest.raises(JobError, match="local_recoding supports"):
        run(adult_dir, text)


@pytest.mark.parametrize("value,message", [
    ("{ iterations = 0 }", "at least 1"),
    ("{ iterations = 2.5 }", "whole number"),
    ("{ gs_factor = 1.5 }", "gs_factor = 1.5 must be a number between 0 and 1"),
    ("{ gs_facter = 0.1 }", "did you mean 'gs_factor'"),
    ("5", "must be a table"),
])
def test_settings_are_read_strictly(adult_dir, value, message):
    text = adult_job_text().replace("[transformation]\n",
                                    f"[transformation]\nlocal_recoding = {value}\n")
    (adult_dir / "job.toml").write_text(text)
    with pytest.raises(JobError, match=message):
        engine.api.as_job(adult_dir / "job.toml")


def test_cli_output_verifies(adult_dir, capsys):
    from engine.cli import main
    (adult_dir / "job.toml").write_text(job_text(limit=0.04))
    out, res = adult_dir / "out.csv", adult_dir / "res.json"
    assert main(["anonymize", str(adult_dir / "job.toml"), "--output", str(out),
                 "--result", str(res)]) == 0
    result = json.loads(res.read_text())
    assert result["local_recoding"]["suppressed_after"] == result["suppressed_records"]
    assert "local recoding" in result["method"]
    assert main(["verify", str(out), str(adult_dir / "job.toml")]) == 0, capsys.readouterr()
    released = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    sup = (released[QIS] == "*").all(axis=1)
    assert int(sup.sum()) == result["suppressed_records"]
    assert released[~sup].groupby(QIS).size().min() >= 5
    assert np.isfinite(result["local_recoding"]["information_loss_after"])


@pytest.mark.parametrize("metric", ["discernibility", "aecs", "precision"])
def test_loss_before_recoding_is_the_global_optimums_in_other_metrics(adult_dir, metric):
    text = job_text(iterations=3).replace('name = "loss"', f'name = "{metric}"')
    r = run(adult_dir, text)
    lr = r.local_recoding
    assert lr.loss_before == pytest.approx(r.optimum.information_loss, rel=1e-12)
    assert lr.loss_after is not None
    sup, groups = released_classes(r.output, QIS)
    assert groups.size().min() >= 5
