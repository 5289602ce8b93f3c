"""Transformation methods in the app: the attribute editor sets microaggregation, the search
panel local recoding; the run's result card names the method; Analyze utility shows the
released table (aggregates, per-record levels) cell for cell as exported; the export
passes ``anonymist verify``."""
from __future__ import annotations

import pandas as pd

from app.perspectives.configure.result_summary import summary_text
from engine.cli import main as cli_main
from tests.app.conftest import open_sample


def _choose(combo, text):
    combo.setCurrentText(text)
    combo.activated.emit(combo.currentIndex())


def test_microaggregation_and_local_recoding_journey(qtbot, window, tmp_path, capsys):
    open_sample(qtbot, window)
    doc = window.document
    conf = window.configure
    attrs = conf.attributes
    attrs.select(["age"])
    assert attrs.function.isEnabled() is False  # generalization: no function
    _choose(attrs.method, "microaggregation")
    _choose(attrs.function, "median")
    a = doc.attributes["age"]
    assert (a.transformation, a.function, a.clustering) == ("microaggregation", "median",
                                                             "none")
    assert attrs.function.isEnabled() and not attrs.top.isEnabled()
    conf.search.local.setChecked(True)
    conf.search.iterations.setValue(20)
    t = doc.settings.transformation
    assert t.local_recoding["iterations"] == 20 and t.local_recoding["gs_factor"] == 0.05
    with qtbot.waitSignal(window.search.finished, timeout=300_000):
        window.actions["anonymize"].trigger()
    result = doc.result
    assert result.optimum is not None and result.local_recoding is not None
    details = conf.result.details.text()
    assert "local recoding" in details and "age: median" in details
    assert f"{result.local_recoding.suppressed_after:,} records suppressed" in details
    head, text = summary_text(result.to_dict())
    assert text == details

    # the export is the released table and verifies independently
    out, job = tmp_path / "out.csv", tmp_path / "job.toml"
    window.files.save_job_to(job)
    window.files.export_to(out)
    qtbot.waitUntil(lambda: out.exists() and job.exists(), timeout=60_000)
    window.files.tasks.wait_all(30_000)
    assert cli_main(["verify", str(out), str(job)]) == 0, capsys.readouterr()
    exported = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    released = result.transformed().frame
    assert exported.equals(released.astype(str))
    qis = [q for q in result.problem.qis]
    sup = (exported[qis] == "*").all(axis=1)
    # age holds class medians, constant per class of the other quasi-identifiers
    kept = exported[~sup]
    assert (kept.groupby(qis)["age"].nunique() == 1).all()

    # Analyze utility shows the same cells
    from app.perspectives.utility import UtilityPerspective
    w = UtilityPerspective(page_size=100)
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.result_shown, timeout=30_000):  # built in a worker
        w.set_result(result)
    om = w.tables.output_model
    src = w.tables.order.source_rows()
    for i in range(min(om.rowCount(), 50)):
        row = int(src[i])
        for name in ("age", "education"):
            assert om.text(row, om.column_of(name)) == exported[name].iloc[row]
    assert "local recoding" in w.transformation_label.text()
    w.shutdown(20_000)


def test_risk_counts_a_microaggregated_attribute_as_a_quasi_identifier(tmp_path):
    import engine
    from engine.analysis.risk_comparison import result_sides
    frame = pd.DataFrame({"sex": ["m"] * 4 + ["f"] * 3,
                          "age": ["20", "30", "40", "50", "60", "70", "80"]})
    (tmp_path / "sex.csv").write_text("m;*\nf;*\n")
    job = {"attributes": {"sex": {"type": "quasi-identifying",
                                  "hierarchy": str(tmp_path / "sex.csv")},
                          "age": {"type": "quasi-identifying",
                                  "transformation": "microaggregation",
                                  "function": "arithmetic-mean"}},
           "privacy": [{"model": "k-anonymity", "k": 3}],
           "transformation": {"suppression_limit": 0.0}}
    result = engine.anonymize(frame, job)
    before, after = result_sides(result)
    # the input is unique on (sex, age); the output's classes are sex's (means 35, 70)
    assert sorted(before.sizes.sample.tolist()) == [1] * 7
    assert sorted(after.sizes.sample.tolist()) == [3, 4]
