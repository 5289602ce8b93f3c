"""Analyze-risk perspective on Adult before and after a k=5 transformation: the views show
input and output, risk drops, thresholds recolour, heavy analyses run and cancel."""
from __future__ import annotations

import shutil

import numpy as np
import pytest
from PySide6.QtCore import Qt

import engine
from app.perspectives.risk import RiskPerspective, Thresholds
from app.perspectives.risk.common import BAD, OK, STATE_ROLE
from app.perspectives.risk.perspective import (ATTACKERS, IDENTIFIERS, QUASI_IDENTIFIERS,
                                               UNIQUENESS)
from tests.app.conftest import ADULT
from tests.engine.conftest import adult_job_text

QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "occupation", "salary-class"]
HIGHEST = 3  # row of "Highest risk" in the overview


def fake_estimators() -> dict:
    """Stand-ins with the estimators' signature: sample uniques shrunk by the fraction."""
    def make(power):
        return lambda sizes, f: float((sizes == 1).sum() / sizes.sum() * f ** power)
    return {"Pitman": make(0.3), "Zayatz": make(0.35), "SNB": make(0.25), "Dankar": make(0.3)}


@pytest.fixture(scope="module")
def adult_result(tmp_path_factory):
    if not (ADULT / "adult.csv").exists():
        pytest.skip("../shared/data/adult is not available")
    folder = tmp_path_factory.mktemp("adult")
    for f in ADULT.glob("adult*.csv"):
        shutil.copy(f, folder / f.name)
    (folder / "job.toml").write_text(adult_job_text(k=5, qis=QIS))
    return engine.anonymize(None, folder / "job.toml")


@pytest.fixture
def make_view(qtbot):
    views = []

    def make(**kwargs) -> RiskPerspective:
        view = RiskPerspective(**kwargs)
        view.uniqueness.set_estimators(fake_estimators())
        qtbot.addWidget(view)
        view.resize(1400, 900)
        views.append(view)
        return view

    yield make
    for view in views:
        view.shutdown()


def shown(qtbot, view, result, levels=None) -> None:
    """``set_result`` and wait for the output, which is built in a worker thread."""
    with qtbot.waitSignal(view.sides_changed, timeout=30_000):
        view.set_result(result, levels)


def card_states(view, attacker: str, figure: int) -> tuple:
    pair = view.attackers.cards[attacker].labels[figure]
    return tuple(label.property("state") for label in pair)


def test_views_show_input_and_output_and_risk_drops(qtbot, make_view, adult_result):
    view = make_view()
    shown(qtbot, view, adult_result)
    assert view.stack.currentIndex() == 1
    before, after = view.sides
    assert before.sizes.n_records == 30162
    assert after.sizes.n_records == 30162 - adult_result.optimum.suppressed_records
    # risk profile: both tables and plots filled, records add up
    for side, profile in zip(view.sides, (view.profile.input, view.profile.output)):
        model = profile.model
        assert model.rowCount() == len(side.profile) > 0
        total = sum(model.index(r, 1).data(Qt.ItemDataRole.UserRole)
                    for r in range(model.rowCount()))
        assert total == side.sizes.n_records
        assert len(profile.plot.bars.opts["height"]) == model.rowCount()
    # attacker models: the input is at risk, the output is 5-anonymous
    s_in, s_out = view.summaries
    assert s_in.prosecutor.highest_risk == 1.0
    assert s_out.prosecutor.highest_risk <= 1 / 5
    assert s_out.prosecutor.records_at_risk == 0 < s_in.prosecutor.records_at_risk
    assert s_out.prosecutor.success_rate < s_in.prosecutor.success_rate
    assert s_out.marketer < s_in.marketer
    assert view.attackers.model.index(HIGHEST, 1).data() == "100.00 %"
    assert view.attackers.model.index(HIGHEST, 2).data() == "20.00 %"
    assert card_states(view, "Prosecutor", 0) == (BAD, OK)
    assert card_states(view, "Prosecutor", 1) == (BAD, OK)
    assert "age 3" in view.subtitle.text() or "age" in view.subtitle.text()
    # bars above the 20 % threshold are red in the input only
    profile_in = view.profile.input.model
    states = [profile_in.index(r, 0).data(STATE_ROLE) for r in range(profile_in.rowCount())]
    assert BAD in states
    profile_out = view.profile.output.model
    assert all(profile_out.index(r, 0).data(STATE_ROLE) is None
               for r in range(profile_out.rowCount()))


def test_thresholds_recolour(qtbot, make_view, adult_result):
    view = make_view()
    shown(qtbot, view, adult_result)
    assert view.attackers.model.index(HIGHEST, 2).data(STATE_ROLE) == OK
    view.threshold_bar.highest.setValue(10.0)  # the user lowers the highest risk to 10 %
    assert view.thresholds.highest_risk == pytest.approx(0.1)
    assert view.attackers.model.index(HIGHEST, 2).data(STATE_ROLE) == BAD
    assert card_states(view, "Prosecutor", 1) == (BAD, BAD)
    assert view.summaries[1].prosecutor.records_at_risk > 0  # classes of 5..9 now at risk
    assert card_states(view, "Prosecutor", 0)[1] == OK  # under 5 % of the records
    view.threshold_bar.records.setValue(0.0)
    assert card_states(view, "Prosecutor", 0) == (BAD, BAD)
    out = view.profile.output.model
    assert any(out.index(r, 0).data(STATE_ROLE) == BAD for r in range(out.rowCount()))
    brushes = view.profile.output.plot.bars.opts["brushes"]
    assert len({b.color().name() for b in brushes}) == 2
    # a generous success-rate threshold turns the input's success rate green
    view.set_thresholds(Thresholds(0.25, 0.05, 0.9))
    assert view.threshold_bar.success.value() == pytest.approx(90.0)
    assert card_states(view, "Marketer", 0) == (OK, OK)
    assert view.attackers.model.index(HIGHEST, 2).data(STATE_ROLE) == OK


def test_log_scale_and_synchronized_tables(qtbot, make_view, adult_result):
    view = make_view()
    shown(qtbot, view, adult_result)
    profile = view.profile
    profile.log_scale.setChecked(True)
    assert profile.input.plot.log and profile.output.plot.log
    assert profile.input.plot.floor == profile.output.plot.floor
    profile.input.table.selectRow(7)
    assert profile.output.table.currentIndex().row() == 7
    assert profile.output.plot.selected == profile.input.plot.selected == 7
    profile.log_scale.setChecked(False)
    assert not profile.output.plot.log


def test_another_transformation_is_shown(qtbot, make_view, adult_result):
    view = make_view()
    shown(qtbot, view, adult_result)
    optimum_classes = view.sides[1].sizes.n_classes
    top = [int(v) for v in adult_result.lattice.top]
    shown(qtbot, view, adult_result, top)
    assert view.sides[1].sizes.n_classes < optimum_classes
    assert view.summaries[1].highest_risk < view.summaries[0].highest_risk
    assert f"sex {top[0]} · age {top[1]}" in view.subtitle.text()
    view.set_result(None)
    assert view.stack.currentIndex() == 0


def test_population_uniqueness_curves_and_overview(qtbot, make_view, adult_result):
    view = make_view()
    shown(qtbot, view, adult_result)
    with qtbot.waitSignal(view.uniqueness.estimated, timeout=30_000):
        view.tabs.setCurrentIndex(UNIQUENESS)
    curves = view.uniqueness.curves
    assert list(curves[0].columns) == ["Pitman", "Zayatz", "SNB", "Dankar"]
    assert (curves[0]["Dankar"] >= curves[1]["Dankar"]).all()
    assert view.summaries[0].population_uniques > view.summaries[1].population_uniques == 0
    assert view.attackers.model.index(6, 1).data() != "–"
    # a smaller population: a larger sampling fraction, more population uniques
    before = view.summaries[0].population_uniques
    with qtbot.waitSignal(view.uniqueness.estimated, timeout=30_000):
        view.uniqueness.editor.fraction.setValue(0.5)
    assert view.uniqueness.editor.region.currentData() is None
    assert view.summaries[0].population_uniques > before
    assert view.uniqueness.plots[0].marker.value() == pytest.approx(np.log10(0.5))


def test_hipaa_identifiers_of_input_and_output(qtbot, make_view, adult_result):
    view = make_view()
    shown(qtbot, view, adult_result)
    with qtbot.waitSignal(view.identifiers.job.succeeded, timeout=30_000):
        view.tabs.setCurrentIndex(IDENTIFIERS)
    found = view.identifiers.models[0].frame
    assert list(found.columns) == ["attribute", "category", "source", "reason"]
    assert "age" in set(found["attribute"])  # Adult has ages over 89
    assert "age" not in set(view.identifiers.models[1].frame["attribute"])  # generalized


def test_qi_analysis_runs_and_cancels(qtbot, make_view, adult_result):
    view = make_view()
    shown(qtbot, view, adult_result)
    view.tabs.setCurrentIndex(QUASI_IDENTIFIERS)
    qi = view.qi
    assert qi.selected() == QIS  # the quasi-identifiers, in table order
    assert qi.combinations() == 45 and qi.warning.isVisibleTo(view)
    assert not qi.job.running  # above about 20 combinations it waits to be asked
    qi.set_selected(QIS, max_size=9)
    assert qi.combinations() == 511
    with qtbot.waitSignal(qi.cancelled, timeout=30_000):
        qi.bar.run.click()
        assert qi.bar.busy
        qi.bar.cancel.click()
    assert qi.models[0].rowCount() == 0 and not qi.bar.busy
    assert "Cancelled" in qi.bar.status.text()
    qi.set_selected(["sex", "age", "race"], max_size=3)
    assert not qi.warning.isVisibleTo(view)
    with qtbot.waitSignal(qi.analyzed, timeout=30_000):
        qi.bar.run.click()
    before, after = (m.frame.set_index("attributes") for m in qi.models)
    assert len(before) == len(after) == 7
    assert before["separation"].is_monotonic_decreasing
    key = ("sex", "age", "race")
    assert after.loc[[key], "separation"].iloc[0] < before.loc[[key], "separation"].iloc[0]
    qi.tables[0].selectRow(2)  # the same combination is selected in the output
    chosen = qi.models[0].row_values(2)["attributes"]
    row = qi.tables[1].currentIndex().row()
    assert qi.models[1].row_values(row)["attributes"] == chosen


def test_large_tables_wait_until_asked(qtbot, make_view, adult_result):
    view = make_view(auto_limit=1000)
    shown(qtbot, view, adult_result)
    view.tabs.setCurrentIndex(IDENTIFIERS)
    assert not view.identifiers.job.running
    assert "press Detect" in view.identifiers.bar.status.text()
    view.tabs.setCurrentIndex(ATTACKERS)
    assert not view.uniqueness.job.running
    assert view.summaries[0].population_uniques is None
    with qtbot.waitSignal(view.identifiers.job.succeeded, timeout=30_000):
        view.identifiers.bar.run.click()
    assert view.identifiers.models[0].rowCount() > 0


def test_input_only(qtbot, make_view, adult_result):
    view = make_view()
    view.set_input(adult_result.problem.table, ["sex", "age"])
    assert view.sides[1] is None and view.summaries[1] is None
    assert view.profile.output.model.rowCount() == 0
    assert view.attackers.model.index(HIGHEST, 2).data() == ""
    assert card_states(view, "Prosecutor", 1)[1] in (None, "")
    with qtbot.waitSignal(view.qi.analyzed, timeout=30_000):
        view.tabs.setCurrentIndex(QUASI_IDENTIFIERS)  # 3 combinations: runs at once
    assert view.qi.models[0].rowCount() == 3 and view.qi.models[1].rowCount() == 0


def test_models(qtbot, qtmodeltester, make_view, adult_result):
    view = make_view()
    shown(qtbot, view, adult_result)
    view.qi.set_selected(["sex", "race"], max_size=2)
    qtmodeltester.check(view.profile.input.model)
    qtmodeltester.check(view.profile.output.model)
    qtmodeltester.check(view.attackers.model)
    from engine.analysis import qi_analysis
    model = view.qi.models[0]
    model.set_frame(qi_analysis(adult_result.problem.table, ["sex", "race"]).table)
    qtmodeltester.check(model)
    model.sort(2, Qt.SortOrder.AscendingOrder)
    values = [model.index(r, 2).data(Qt.ItemDataRole.UserRole) for r in range(model.rowCount())]
    assert values == sorted(values)
    qtmodeltester.check(model)
    qtmodeltester.check(view.identifiers.models[0])


def test_engine_estimators(qtbot, make_view, adult_result):
    from engine import estimators
    view = make_view()
    view.uniqueness.set_estimators({"Pitman": estimators.pitman, "Zayatz": estimators.zayatz,
                                    "SNB": estimators.snb, "Dankar": estimators.dankar})
    view.set_input(adult_result.problem.table, ["sex", "age", "race"])
    with qtbot.waitSignal(view.uniqueness.estimated, timeout=120_000):
        view.tabs.setCurrentIndex(UNIQUENESS)
    curves = view.uniqueness.curves[0]
    assert ((curves.dropna() >= 0) & (curves.dropna() <= 1)).all().all()
    low = curves.index <= estimators.DANKAR_SWITCH
    assert np.allclose(curves["Dankar"][low], curves["Pitman"][low], equal_nan=True)
    # above: the smaller of Zayatz and SNB, Zayatz where SNB has no root
    high = curves[~low]
    expected = np.where(high["SNB"].notna(), np.fmin(high["Zayatz"], high["SNB"]),
                        high["Zayatz"])
    assert np.allclose(high["Dankar"], expected, equal_nan=True)
    # an estimator without a root at some fractions is named, not silently left out
    caption = view.uniqueness.caption.text()
    for name in curves:
        missing = int(curves[name].isna().sum())
        assert (f"{name} has no solution at {missing} of {len(curves)}" in caption) == \
            (missing > 0), (name, caption)
    fraction = view.uniqueness.fraction
    assert view.summaries[0].population_uniques == pytest.approx(
        estimators.dankar(view.sides[0].sizes.sample, fraction))


def test_new_population_model_keeps_the_curves_coming(qtbot, make_view, adult_result):
    view = make_view()
    shown(qtbot, view, adult_result)
    view.tabs.setCurrentIndex(UNIQUENESS)  # curves start in the worker ...
    assert view.uniqueness.job.running
    with qtbot.waitSignal(view.uniqueness.estimated, timeout=30_000):
        view.uniqueness.editor.region.setCurrentIndex(
            view.uniqueness.editor.region.findData("Germany"))  # ... and are not given up
    assert view.uniqueness.has_curves
    assert view.uniqueness.fraction == pytest.approx(30162 / 80_767_000)


def test_identifiers_of_a_table_with_direct_identifiers(qtbot, make_view):
    import pandas as pd
    n = 60
    frame = pd.DataFrame({"email": [f"person{i}@example.org" for i in range(n)],
                          "zip": [f"0{1000 + i}" for i in range(n)],
                          "diagnosis": ["flu", "cold", "asthma"] * (n // 3)})
    view = make_view()
    view.set_input(frame, ["zip", "diagnosis"])
    with qtbot.waitSignal(view.identifiers.job.succeeded, timeout=30_000):
        view.tabs.setCurrentIndex(IDENTIFIERS)
    found = view.identifiers.models[0].frame
    assert set(found["attribute"]) == {"email", "zip"}
    assert "E-mail addresses" in set(found["category"])
    assert view.identifiers.captions[0].text() == "2 attributes with identifiers"
    assert view.identifiers.captions[1].text() == "no output: nothing anonymized yet"


def optimum_of(result) -> tuple:
    return tuple(result.optimum.levels[q] for q in result.problem.qis)


def test_output_is_built_off_the_gui_thread(qtbot, make_view, adult_result, monkeypatch):
    """After a Cancel the released table was not built: Analyze risk builds it in a
    worker ("Building the output…" meanwhile), then shows figures recounted here from
    the released table; an older request answered late is dropped."""
    import threading

    import engine.result as result_module
    real = result_module.transform
    built = []

    def recording(problem, levels):
        built.append((threading.current_thread(), tuple(levels)))
        return real(problem, levels)

    monkeypatch.setattr(result_module, "transform", recording)
    monkeypatch.setattr(adult_result, "_released", None)  # as after a Cancel
    view = make_view()
    top = tuple(int(v) for v in adult_result.lattice.top)
    with qtbot.waitSignal(view.sides_changed, timeout=30_000) as blocker:
        view.set_result(adult_result, top)  # asked first, then replaced
        view.set_result(adult_result)
        assert view.stack.currentWidget() is view.building
        assert view.building.title.text() == "Building the output…"
    assert blocker.signal_triggered
    assert built and all(t is not threading.main_thread() for t, _ in built)
    view.output_task.wait_all()  # the replaced request has ended: its answer is dropped
    qtbot.waitUntil(lambda: not view.output_task._threads, timeout=30_000)
    assert view.stack.currentIndex() == 1 and "(optimum)" in view.subtitle.text()
    assert {levels for _, levels in built} == {top, optimum_of(adult_result)}
    # the figures, recounted from the released table of the optimum
    released = adult_result.transformed()
    frame = released.frame[~released.suppressed_rows]
    sizes = frame.groupby(QIS, observed=True).size()
    assert view.sides[1].sizes.n_classes == len(sizes)
    assert view.summaries[1].highest_risk == pytest.approx(1 / sizes.min())


def test_profile_axis_labels_never_touch(qtbot):
    """Narrow or wide, the risk profile's bound labels keep apart; 100 % is always one."""
    from PySide6.QtGui import QFontMetrics

    from app.perspectives.risk.profile_view import ProfilePlot
    from engine.analysis.risk import ClassSizes, risk_profile
    sizes = np.array([1, 2, 3, 5, 8, 20, 150, 4000])
    profile = risk_profile(ClassSizes(sizes, sizes))
    plot = ProfilePlot()
    qtbot.addWidget(plot)
    plot.set_profile(profile)
    plot.show()
    qtbot.waitExposed(plot)
    labelled = {}
    for width in (380, 600, 1400):
        plot.resize(width, 260)
        qtbot.waitUntil(lambda w=width: plot.width() == w, timeout=60_000)
        axis = plot.getAxis("bottom")
        metrics = QFontMetrics(axis.style.get("tickFont") or axis.font())
        px = axis.width() / (len(profile) + 0.4)
        kept = plot.labelled
        assert kept[-1][1] == "100"
        for (p0, t0), (p1, t1) in zip(kept, kept[1:]):
            room = (p1 - p0) * px - (metrics.horizontalAdvance(t0) + metrics.horizontalAdvance(t1)) / 2
            assert room >= 8, (width, t0, t1, room)
        labelled[width] = len(kept)
    assert labelled[380] < labelled[1400]  # thinned where space is short, not always
