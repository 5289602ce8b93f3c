"""Analyze utility, Analyze risk and Explore on data too big for memory (a small
generated file forced out of core): anonymize -> the figures shown, computed from the
frequency table and DuckDB aggregates, equal those of the same job in memory ->
export -> ``anonymist verify`` passes."""
from __future__ import annotations


import pytest
from PySide6.QtCore import Qt

from app.perspectives.explore.details import inspect_transformation
from engine.analysis.risk_comparison import result_sides
from app.perspectives.utility import analysis as an
from app.perspectives import PERSPECTIVES
from tests.app.test_out_of_core_window import _close_data, adult_like, open_out_of_core  # noqa: F401, F811
from tests.engine.test_analysis_aggregates import assert_same
from tests.shared_data import SHARED
from tests.app.test_journeys import in_memory, verify_export

QIS = ("age", "sex", "race", "marital-status", "education")


def shown_values(monkeypatch, panel, method: str) -> list:
    """Every value the perspective hands ``panel.method`` to show."""
    seen = []
    original = getattr(panel, method)

    def record(value):
        seen.append(value)
        return original(value)

    monkeypatch.setattr(panel, method, record)
    return seen


def configure(qtbot, window, doc):
    from app.perspectives.configure.privacy_panel import PrivacyPanel  # noqa: F401
    from engine.config import QUASI_IDENTIFYING
    from tests.app.test_journeys import add_model_through_dialog, set_type
    set_type(window, QIS, QUASI_IDENTIFYING)
    conf = window.configure
    for name in QIS:
        conf.attributes.select([name])
        assert conf.hierarchy.load_file(SHARED / "data" / "adult" / f"adult_hierarchy_{name}.csv")
    add_model_through_dialog(window, "k-anonymity", k=5)
    conf.privacy.suppression.setValue(4.0)
    assert doc.check_job() is None


def test_analyze_out_of_core_shows_the_in_memory_figures(qtbot, window, adult_like, tmp_path,  # noqa: F811
                                                          capsys, messages, monkeypatch):
    from tests.app.test_journeys import anonymize, export
    doc = open_out_of_core(qtbot, window, adult_like / "adult.csv")
    configure(qtbot, window, doc)
    utility = window.perspectives["utility"]
    stats = shown_values(monkeypatch, utility.distribution, "show_statistics")
    pairs = shown_values(monkeypatch, utility.contingency, "show_pair")
    reports = shown_values(monkeypatch, utility.quality, "show_report")
    failures = []
    utility.analysis_failed.connect(lambda kind, message: failures.append((kind, message)))
    window.show()
    # before anonymizing, Analyze risk shows the input's risks, counted by DuckDB
    risk = window.perspectives["risk"]
    window.show_perspective([s.key for s in PERSPECTIVES].index("risk"))
    qtbot.waitUntil(lambda: risk.sides[0] is not None and set(risk.sides[0].qis) == set(QIS),
                    timeout=60_000)
    counted_input = risk.sides[0]
    assert risk.sides[1] is None and "counted by DuckDB" in risk.subtitle.text()
    window.show_perspective([s.key for s in PERSPECTIVES].index("utility"))
    with qtbot.waitSignal(utility.result_shown, timeout=60_000):
        result = anonymize(qtbot, window)
    assert result.problem.backend is not None
    # the same job in memory: the figures every perspective shows must be its figures
    job = doc.build_job()
    memory = in_memory(job)
    assert memory.optimum.levels == result.optimum.levels
    expected = an.Comparison.of(memory.transformed())
    assert utility.comparison.out_of_core and not expected.out_of_core
    assert utility.comparison.analysable == expected.analysable  # every column, not the QIs'
    # distributions and summaries: a quasi-identifier, then an insensitive attribute
    for name in ("age", "occupation"):
        utility.attribute.setCurrentText(name)
        qtbot.waitUntil(lambda name=name: bool(failures) or bool(stats)
                        and stats[-1].attribute == name, timeout=60_000)
        assert not failures
        assert_same(stats[-1], an.statistics_task(expected, name))
    # a contingency heat map of a quasi-identifier and an insensitive attribute
    with qtbot.waitSignal(utility.contingency_shown, timeout=60_000):
        utility.tabs.setCurrentIndex(an_index(utility, "contingency"))
        utility.contingency.set_attributes(utility.comparison.analysable, "education",
                                           "workclass")
        utility._refresh()
    assert pairs[-1].rows == "education" and pairs[-1].columns == "workclass"
    assert_same(pairs[-1], an.contingency_task(expected, "education", "workclass"))
    with qtbot.waitSignal(utility.quality_shown, timeout=60_000):
        utility.tabs.setCurrentIndex(an_index(utility, "quality"))
    assert_same(reports[-1], an.quality_task(expected))
    # classification says why it is not computed (no silently empty pane)
    utility.tabs.setCurrentIndex(an_index(utility, "classification"))
    assert "out of core" in utility.classification.message_text()
    # Analyze risk: the profile and attacker models of both sides
    want_input = result_sides(memory)[0]
    assert sorted(counted_input.sizes.sample) == sorted(want_input.sizes.sample)
    assert_same(counted_input.profile, want_input.profile)
    window.show_perspective([s.key for s in PERSPECTIVES].index("risk"))
    qtbot.waitUntil(lambda: risk.sides[1] is not None, timeout=60_000)
    for got, want in zip(risk.sides, result_sides(memory)):
        assert sorted(got.sizes.sample) == sorted(want.sizes.sample)
        assert_same(got.profile, want.profile)
        assert_same(got.summary(0.2), want.summary(0.2))
        assert got.kept_records == want.kept_records
    assert risk.profile.input.isEnabled() and risk.profile.output.isEnabled()
    # HIPAA detection reads the first records of every column (input) and of the release
    hipaa = risk.identifiers
    outcome = []
    hipaa.job.succeeded.connect(lambda v: outcome.append(("ok", v)))
    hipaa.job.failed.connect(lambda m: outcome.append(("failed", m)))
    hipaa.run()
    qtbot.waitUntil(lambda: bool(outcome), timeout=60_000)
    assert outcome[0][0] == "ok", outcome
    assert all(c.text() for c in hipaa.captions)
    from engine.analysis.hipaa import detect_identifiers, identifiers_frame
    records = risk.sides[0].identifier_data()  # 3,000 records: all of them, as in memory
    assert list(records.columns) == list(doc.column_names) and len(records) == 3000
    found = identifiers_frame(detect_identifiers(memory.problem.table))
    assert len(found) and outcome[0][1][0].equals(found)
    # Explore's properties of the optimum and of another transformation
    for levels in (tuple(result.optimum.levels.values()), (1, 1, 1, 1, 1)):
        assert_same(inspect_transformation(result, levels),
                    inspect_transformation(memory, levels))
    # the export passes the independent check
    out = export(qtbot, window, tmp_path / "released.csv")
    verify_export(doc, out, tmp_path, capsys)
    # the records Analyze utility shows side by side are the file's and the export's
    import pandas as pd
    exported = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    original = pd.read_csv(adult_like / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    records = utility.records
    for model, frame in ((records.input_model, original), (records.output_model, exported)):
        assert model.rowCount() == len(frame) == 3000
        assert [model.headerData(c, Qt.Orientation.Horizontal)
                for c in range(model.columnCount())] == list(frame.columns)
        def cells(model=model):
            return [[model.data(model.index(r, c)) for c in range(model.columnCount())]
                    for r in range(2990, 3000)]
        cells()  # asks for the block
        qtbot.waitUntil(lambda cells=cells: "…" not in sum(cells(), []), timeout=30_000)
        assert cells() == frame.iloc[2990:3000].values.tolist()
    assert (exported[list(QIS)] == "*").all(axis=1).any()  # suppressed records among them
    assert not [m for m in messages if "Traceback" in m[1]]


def an_index(utility, kind: str) -> int:
    from app.perspectives.utility.perspective import TABS
    return TABS.index(kind)


def test_risk_profile_counted_while_hidden_keeps_its_scale(qtbot):
    """Counted before its page was ever shown, the profile's y axis still spans 0 to the
    largest share (a range set before the first layout used to be distorted by it)."""
    import numpy as np
    import pandas as pd

    from app.perspectives.risk.perspective import RiskPerspective
    from engine.data.table import EncodedTable
    values = np.random.RandomState(0).randint(0, 300, 5000).astype(str)
    table = EncodedTable.from_dataframe(pd.DataFrame({"a": values}))
    view = RiskPerspective([])
    qtbot.addWidget(view)
    view.resize(1200, 700)
    view.set_input_counted(lambda: table, ["a"])  # hidden: waits to be shown
    assert view.sides[0] is None
    view.show()
    qtbot.waitUntil(lambda: view.sides[0] is not None, timeout=60_000)
    top = view.sides[0].profile["share"].max() * 100
    box = view.profile.input.plot.getViewBox()
    # the range is set from posted events: waited for, not a fixed pause
    qtbot.waitUntil(lambda: box.viewRange()[1][1] == pytest.approx(top * 1.08), timeout=60_000)
    low, high = box.viewRange()[1]
    assert low == pytest.approx(0.0, abs=1e-9) and high == pytest.approx(top * 1.08)
