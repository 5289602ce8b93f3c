"""The analyses on Adult before and after a k=5 transformation: risk drops, quality is lost."""
from __future__ import annotations

import pytest

import engine
from engine.analysis import analyze_risk, qi_analysis, quality, summary_statistics
from engine.data.datatypes import INTEGER

QIS = ["sex", "age", "race", "marital-status", "education"]


@pytest.fixture(scope="module")
def adult(tmp_path_factory):
    import shutil

    from tests.engine.conftest import ADULT, adult_job_text
    folder = tmp_path_factory.mktemp("adult")
    for f in ADULT.glob("adult*.csv"):
        shutil.copy(f, folder / f.name)
    (folder / "job.toml").write_text(adult_job_text(qis=QIS))
    result = engine.anonymize(None, folder / "job.toml")
    return result, result.transformed()


def test_risk_drops_and_quality_is_lost(adult):
    result, out = adult
    table = result.problem.table
    before, _ = analyze_risk(table, QIS, threshold=0.2)
    after, profile = analyze_risk(out.frame, QIS, threshold=0.2, suppressed=out.suppressed_rows)
    assert after.highest_risk <= 0.2 < before.highest_risk
    assert after.prosecutor.records_at_risk == 0 < before.prosecutor.records_at_risk
    assert after.average_risk < before.average_risk
    assert profile.records.sum() == table.n_rows - out.suppressed_rows.sum()
    hierarchies = {q: result.problem.job.attributes[q].hierarchy for q in QIS}
    report = quality(table, out.frame, QIS, hierarchies, {"age": INTEGER},
                     suppressed=out.suppressed_rows)
    levels = result.optimum.levels
    for q in report.attributes:
        assert 0 <= q.granularity <= 1 and 0 <= q.non_uniform_entropy <= 1
        if levels[q.attribute] > 0:
            assert q.generalization_intensity > 0
    assert report.average_class_size >= 5
    stats = summary_statistics(out.frame, "age", INTEGER)
    assert stats.scale in ("interval", "ordinal", "nominal") and stats.count > 0


def test_quasi_identifiers_separate_less_after(adult):
    result, out = adult
    before = qi_analysis(result.problem.table, QIS[:3]).table.set_index("attributes")
    after = qi_analysis(out.frame, QIS[:3], rows=~out.suppressed_rows).table \
        .set_index("attributes")
    kept = int((~out.suppressed_rows).sum())
    distinct_before = before.distinction * result.problem.table.n_rows
    distinct_after = after.distinction * kept  # distinct combinations can only merge
    assert (distinct_after.round() <= distinct_before.round()).all()
    assert after.loc[[("sex", "age", "race")], "separation"].iloc[0] < \
        before.loc[[("sex", "age", "race")], "separation"].iloc[0]
