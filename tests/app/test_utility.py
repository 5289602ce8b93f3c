"""Analyze utility perspective: aligned tables, classes, statistics, quality, accuracy."""
from __future__ import annotations

from pathlib import Path

from tests.shared_data import SHARED

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QItemSelectionModel, QObject, Qt, Signal

import engine
from engine.analysis.statistics import contingency, frequencies
from engine.data.csv_import import read_csv
from engine.data.table import EncodedTable

ADULT = SHARED / "data" / "adult"
QIS = ("age", "education", "marital-status", "native-country", "occupation", "race", "sex",
       "workclass")
SUBSET_STEP = 10


def adult_result(folder: Path = ADULT, k: int = 5, suppression: float = 0.05,
                 subset: bool = True, rows: int | None = None):
    """Adult (its first ``rows``) anonymized with k-anonymity and the Loss metric;
    salary-class is sensitive (not generalized); every tenth row forms the research
    subset."""
    frame = read_csv(folder / "adult.csv", delimiter=";", header=True, categorical=True)
    table = EncodedTable.from_dataframe(frame if rows is None else frame.head(rows))
    cfg = {"attributes": {q: {"type": "quasi-identifying",
                              "hierarchy": str(folder / f"adult_hierarchy_{q}.csv")}
                          for q in QIS},
           "privacy": [{"model": "k-anonymity", "k": k}],
           "transformation": {"suppression_limit": suppression}, "metric": {"name": "loss"}}
    cfg["attributes"]["age"]["data_type"] = "integer"
    cfg["attributes"]["salary-class"] = {"type": "sensitive"}
    if subset:
        cfg["subset"] = {"indices": list(range(0, table.n_rows, SUBSET_STEP))}
    return engine.anonymize(table, cfg)


@pytest.fixture(scope="module")
def result():
    if not (ADULT / "adult.csv").exists():
        pytest.skip("../shared/data/adult is not available")
    r = adult_result()
    assert r.optimum is not None and r.optimum.suppressed_records > 0
    return r


@pytest.fixture
def perspective(qtbot):
    from app.perspectives.utility import UtilityPerspective

    w = UtilityPerspective(page_size=100)
    qtbot.addWidget(w)
    w.resize(1400, 900)
    yield w
    w.shutdown(20_000)


def shown(qtbot, w, result, levels=None, tab: int | None = None):
    if tab is not None:
        w.tabs.setCurrentIndex(tab)
    with qtbot.waitSignal(w.result_shown, timeout=30_000):  # built in a worker
        w.set_result(result, levels)
    w.show()
    qtbot.waitExposed(w)
    return w


def other_levels(result) -> tuple[int, ...]:
    """A generalization of the optimum (one more level where possible)."""
    opt = [result.optimum.levels[q] for q in result.problem.qis]
    tops = [h.height for h in result.problem.hierarchies]
    j = next(i for i, (lv, top) in enumerate(zip(opt, tops)) if lv < top)
    opt[j] += 1
    return tuple(opt)


# --- the output side shows the released table ---------------------------------------------
def output_cells(model) -> pd.DataFrame:
    """The output model's cells, read through the Qt model (every page of columns)."""
    cols = {}
    for page in range(model.page_count):
        model.set_page(page)
        for c in range(model.columnCount()):
            name = model.headerData(c, Qt.Orientation.Horizontal)
            rows = [model.source_row(r) for r in range(model.rowCount())]
            order = np.argsort(rows)
            cells = [model.data(model.index(r, c)) for r in range(model.rowCount())]
            cols[name] = [cells[i] for i in order]
    model.set_page(0)
    return pd.DataFrame(cols)


def test_output_side_shows_what_the_export_writes(result, perspective, qtbot):
    """Cell for cell, the output table is the released table of the shown levels
    (identifying columns, not released, are shown as removed)."""
    levels = other_levels(result)
    shown(qtbot, perspective, result, levels)
    released = result.transformed(levels)
    cells = output_cells(perspective.tables.output_model)
    assert cells.astype(str).equals(released.frame.astype(str))


def test_output_side_withholds_records_outside_a_dp_sample(perspective, qtbot):
    """Under differential privacy the output side shows records outside SafePub's
    sample suppressed, as the export writes them."""
    frame = read_csv(ADULT / "adult.csv", delimiter=";", header=True, categorical=True)
    table = EncodedTable.from_dataframe(frame.head(3000))
    cfg = {"attributes": {q: {"type": "quasi-identifying",
                              "hierarchy": str(ADULT / f"adult_hierarchy_{q}.csv")}
                          for q in QIS},
           "privacy": [{"model": "differential-privacy", "epsilon": 2.0, "delta": 1e-5,
                        "generalization": "data-dependent", "seed": 3}],
           "metric": {"name": "loss"}}
    result = engine.anonymize(table, cfg)
    shown(qtbot, perspective, result)
    outside = ~np.asarray(result.problem.model_context.subset, dtype=bool)
    cells = output_cells(perspective.tables.output_model)
    assert outside.any() and (cells.loc[outside, list(QIS)] == "*").all().all()
    assert cells.astype(str).equals(result.output.astype(str))


def test_a_subset_jobs_release_beside_its_own_input_records(perspective, qtbot):
    """δ-presence counts the research subset, so only its records are released (issue
    26): the output side is that release, the input side the same records, row for
    row (not the whole table, whose rows would no longer line up)."""
    frame = read_csv(ADULT / "adult.csv", delimiter=";", header=True, categorical=True)
    table = EncodedTable.from_dataframe(frame.head(3000))
    cfg = {"attributes": {q: {"type": "quasi-identifying",
                              "hierarchy": str(ADULT / f"adult_hierarchy_{q}.csv")}
                          for q in QIS},
           "privacy": [{"model": "k-anonymity", "k": 2},
                       {"model": "delta-presence", "delta_min": 0.0, "delta_max": 0.9}],
           "transformation": {"suppression_limit": 0.1}, "metric": {"name": "loss"},
           "subset": {"indices": list(range(0, 3000, SUBSET_STEP))}}
    result = engine.anonymize(table, cfg)
    shown(qtbot, perspective, result)
    t = perspective.tables
    assert t.input_model.rowCount() == t.output_model.rowCount() == 300
    cells = output_cells(t.output_model)
    assert cells.astype(str).equals(result.output.astype(str))
    assert t.input_model.text(5, 0) == str(frame.iloc[5 * SUBSET_STEP, 0])


# --- models ---------------------------------------------------------------------------------
def test_models_pass_the_model_tester(qtmodeltester, perspective, qtbot):
    from app.perspectives.utility.frame_model import FrameModel

    if not (ADULT / "adult.csv").exists():
        pytest.skip("../shared/data/adult is not available")
    result = adult_result(rows=400)  # the tester visits every cell
    shown(qtbot, perspective, result)
    t = perspective.tables
    for model in (t.input_model, t.output_model):
        qtmodeltester.check(model)
    t.sort_by("age", output=True)
    t.set_show_classes(True)
    t.order.set_subset_only(True)
    for model in (t.input_model, t.output_model):
        qtmodeltester.check(model)
    frames = FrameModel()
    frames.set_frame(frequencies(result.problem.table, "education"),
                     {"value": "text", "count": "count", "share": "percent"})
    qtmodeltester.check(frames)
    frames.set_frame(contingency(result.problem.table, "sex", "race"), index_header="sex")
    qtmodeltester.check(frames)
    frames.set_frame(None)
    qtmodeltester.check(frames)


# --- synchronized tables ---------------------------------------------------------------------
def test_scrolling_one_table_scrolls_the_other(perspective, result, qtbot):
    shown(qtbot, perspective, result)
    t = perspective.tables
    a, b = t.input_view, t.output_view
    a.verticalScrollBar().setValue(5000)
    assert b.verticalScrollBar().value() == 5000
    assert a.rowAt(0) == b.rowAt(0) > 0
    b.verticalScrollBar().setValue(12_345)
    assert a.verticalScrollBar().value() == 12_345
    assert a.rowAt(0) == b.rowAt(0)
    a.horizontalScrollBar().setValue(a.horizontalScrollBar().maximum())
    assert b.horizontalScrollBar().value() == a.horizontalScrollBar().value() > 0
    assert a.columnAt(10) == b.columnAt(10)
    a.horizontalHeader().resizeSection(2, 211)
    assert b.horizontalHeader().sectionSize(2) == 211
    # selecting a cell selects the same record and column on the other side
    target = a.model().index(a.rowAt(0) + 3, 1)
    a.selectionModel().setCurrentIndex(target, QItemSelectionModel.SelectionFlag.ClearAndSelect)
    assert b.currentIndex().row() == target.row() and b.currentIndex().column() == 1


def _age_rank(values):
    from engine.data.order import value_order

    distinct = list(dict.fromkeys(values))
    order = value_order(np.array(distinct, dtype=object))
    rank = {distinct[i]: r for r, i in enumerate(order)}
    return [rank[v] for v in values]


def test_sorting_either_table_sorts_both(perspective, result, qtbot):
    shown(qtbot, perspective, result)
    t = perspective.tables
    im, om = t.input_model, t.output_model
    age = im.column_of("age")
    n = im.rowCount()
    sample = list(range(0, n, 97))
    # a click on the output's header sorts both by the released age
    t.output_view.horizontalHeader().sectionClicked.emit(age)
    assert [im.source_row(i) for i in sample] == [om.source_row(i) for i in sample]
    released = [om.text(i, age) for i in range(n)]
    ranks = _age_rank(released)
    assert ranks == sorted(ranks) and released[-1] == "*"
    table = result.problem.table.column("age")
    assert [im.text(i, age) for i in sample] == \
        [str(table.dictionary[table.codes[im.source_row(i)]]) for i in sample]
    assert t.input_view.horizontalHeader().isSortIndicatorShown()
    # a second click sorts descending; a click on the input sorts by the original age
    t.output_view.horizontalHeader().sectionClicked.emit(age)
    assert om.text(0, age) == "*"
    t.input_view.horizontalHeader().sectionClicked.emit(age)
    ages = [int(im.text(i, age)) for i in sample]
    assert ages == sorted(ages) and ages[0] == 17  # as integers, not as text
    assert [im.source_row(i) for i in sample] == [om.source_row(i) for i in sample]
    t.clear_sort.click()
    assert im.source_row(5) == 5 and om.source_row(5) == 5


def test_class_shading_matches_the_engines_classes(perspective, result, qtbot):
    from app.perspectives.utility.table_models import CLASS_SHADES, SUPPRESSED_BACKGROUND

    shown(qtbot, perspective, result)
    t = perspective.tables
    t.classes_box.click()
    assert t.show_classes
    out = result.transformed()
    row_class, suppressed = out.row_classes(), out.suppressed_rows
    im, om = t.input_model, t.output_model
    n = im.rowCount()
    src = t.order.source_rows()
    classes = row_class[src]
    # classes are contiguous: each one is a single run of rows; suppressed ones last
    runs = np.r_[True, classes[1:] != classes[:-1]]
    assert len(np.unique(classes)) == runs.sum()
    first_suppressed = int(np.argmax(suppressed[src]))
    assert suppressed[src][first_suppressed:].all()
    role = Qt.ItemDataRole.BackgroundRole
    shades = [CLASS_SHADES[0].color(), CLASS_SHADES[1].color()]
    colors = []
    for i in range(n):
        brush = om.data(om.index(i, 0), role)
        assert im.data(im.index(i, 0), role) == brush  # both sides alike
        colors.append(brush.color() if brush is not None else None)
    for i in range(n):
        if suppressed[src[i]]:
            assert colors[i] == SUPPRESSED_BACKGROUND.color()
        else:
            assert colors[i] in shades
    for i in range(1, n):
        if suppressed[src[i]] or suppressed[src[i - 1]]:
            continue
        same_class = classes[i] == classes[i - 1]
        assert (colors[i] == colors[i - 1]) == same_class, i
    t.classes_box.click()
    assert om.data(om.index(0, 0), role) in (None, SUPPRESSED_BACKGROUND)


def test_suppressed_records_are_marked(perspective, result, qtbot):
    from app.perspectives.utility.table_models import SUPPRESSED_BACKGROUND

    shown(qtbot, perspective, result)
    out = result.transformed()
    row = int(np.flatnonzero(out.suppressed_rows)[0])
    om, im = perspective.tables.output_model, perspective.tables.input_model
    age = om.column_of("age")
    assert om.text(row, age) == "*" and im.text(row, age) != "*"
    bg = Qt.ItemDataRole.BackgroundRole
    assert om.data(om.index(row, age), bg) == SUPPRESSED_BACKGROUND
    assert im.data(im.index(row, age), bg) == SUPPRESSED_BACKGROUND
    assert "suppressed" in om.data(om.index(row, age), Qt.ItemDataRole.ToolTipRole)


def test_research_subset_toggle(perspective, result, qtbot):
    shown(qtbot, perspective, result)
    t = perspective.tables
    n = result.problem.table.n_rows
    assert t.subset_rows.isEnabled()
    t.subset_rows.click()
    expected = len(range(0, n, SUBSET_STEP))
    assert t.input_model.rowCount() == t.output_model.rowCount() == expected
    assert t.input_model.source_row(3) == 3 * SUBSET_STEP
    t.sort_by("age", output=True)
    assert all(t.order.source_row(i) % SUBSET_STEP == 0 for i in range(0, expected, 37))
    t.all_rows.click()
    assert t.input_model.rowCount() == n


def test_column_pages_turn_both_tables(perspective, result, qtbot):
    shown(qtbot, perspective, result)
    t = perspective.tables
    t.set_page_size(4)
    assert t.pager.isVisibleTo(perspective) and t.input_model.page_count == 3
    t.pager.next.click()
    names = result.problem.table.names
    assert [t.input_model.attribute_at(c) for c in range(4)] == names[4:8]
    assert [t.output_model.attribute_at(c) for c in range(4)] == names[4:8]
    t.show_attribute(names[-1])
    assert t.output_model.page == 2 and t.output_model.columnCount() == 1


def test_another_transformation_updates_both_sides(perspective, result, qtbot):
    with qtbot.waitSignal(perspective.statistics_shown, timeout=30_000):
        shown(qtbot, perspective, result)
    t = perspective.tables
    t.sort_by("age", output=True)
    levels = other_levels(result)
    with qtbot.waitSignal(perspective.statistics_shown, timeout=30_000):
        with qtbot.waitSignal(perspective.result_shown, timeout=30_000):
            perspective.set_result(result, levels)
    out = result.transformed(levels)
    om, im = t.output_model, t.input_model
    for name in result.problem.table.names:
        col = om.column_of(name)
        for i in range(0, om.rowCount(), 1013):
            src = om.source_row(i)
            assert om.text(i, col) == out.frame[name].iloc[src]
            assert im.source_row(i) == src
    assert f"{out.class_statistics()['suppressed_records']:,} suppressed" in \
        t.output_side.caption.text()
    stats = perspective.distribution.output.model.frame
    name = perspective.attribute.currentText()
    expected = frequencies(out.frame, name)
    assert list(stats["Value"]) == list(expected["value"])
    assert list(stats["Count"]) == list(expected["count"])


def test_no_output_shows_the_input_only(perspective, result, qtbot):
    strict = adult_result(k=1_000_000, suppression=0.0, subset=False)
    assert strict.optimum is None
    shown(qtbot, perspective, strict)
    t = perspective.tables
    assert t.input_model.rowCount() == strict.problem.table.n_rows
    assert t.output_model.rowCount() == 0
    assert "no output" in t.output_side.caption.text()
    perspective.set_result(None)
    assert perspective.pages.currentWidget() is perspective.empty


# --- statistics, quality, classification -------------------------------------------------------
def test_output_is_built_off_the_gui_thread(perspective, result, qtbot, monkeypatch):
    """After a Cancel the released table was not built: Analyze utility builds it in a
    worker ("Building the output…" meanwhile) and then shows its cells and figures;
    the answer to a request replaced meanwhile is dropped."""
    import threading

    import engine.result as result_module
    real = result_module.transform
    built = []

    def recording(problem, levels):
        built.append((threading.current_thread(), tuple(levels)))
        return real(problem, levels)

    monkeypatch.setattr(result_module, "transform", recording)
    monkeypatch.setattr(result, "_released", None)  # as after a Cancel
    levels = other_levels(result)
    perspective.show()
    with qtbot.waitSignal(perspective.result_shown, timeout=30_000):
        perspective.set_result(result, levels)  # asked first, then replaced
        perspective.set_result(result)
        assert perspective.pages.currentWidget() is perspective.building
        assert perspective.building.title.text() == "Building the output…"
    perspective.output_task.wait_all()  # the replaced request ended; its answer dropped
    qtbot.waitUntil(lambda: not perspective.output_task._threads, timeout=30_000)
    optimum = tuple(result.optimum.levels[q] for q in result.problem.qis)
    assert built and all(t is not threading.main_thread() for t, _ in built)
    assert {lv for _, lv in built} == {levels, optimum}
    assert perspective.pages.currentIndex() == 1
    assert perspective.tables.output_model.view.levels == optimum
    assert perspective.transformation_label.text().startswith("Optimum transformation")
    # the cells and the caption, recounted from the released table of the optimum
    released = real(result.problem, optimum)
    assert f"{released.class_statistics()['suppressed_records']:,} suppressed" in \
        perspective.tables.output_side.caption.text()
    cells = output_cells(perspective.tables.output_model)
    assert cells.astype(str).equals(released.frame.astype(str))


def test_statistics_of_the_selected_attribute(perspective, result, qtbot):
    with qtbot.waitSignal(perspective.statistics_shown, timeout=30_000) as first:
        shown(qtbot, perspective, result)
    assert first.args == ["age"]  # the first generalized quasi-identifier
    a = perspective.tables.input_view
    col = perspective.tables.input_model.column_of("education")
    with qtbot.waitSignal(perspective.statistics_shown, timeout=30_000,
                          check_params_cb=lambda n: n == "education"):
        a.selectionModel().setCurrentIndex(a.model().index(0, col),
                                           QItemSelectionModel.SelectionFlag.ClearAndSelect)
    out = result.transformed().frame
    d = perspective.distribution
    assert list(d.input.model.frame["Count"]) == \
        list(frequencies(result.problem.table, "education")["count"])
    assert list(d.output.model.frame["Value"]) == list(frequencies(out, "education")["value"])
    summary = perspective.summary.model.frame.set_index("Statistic")
    assert summary.loc["Distinct values", "Input"] == "16"
    assert summary.loc["Missing or suppressed", "Output"] == \
        f"{result.optimum.suppressed_records:,}"


def test_contingency_heat_maps(perspective, result, qtbot):
    with qtbot.waitSignal(perspective.contingency_shown, timeout=30_000) as blocker:
        shown(qtbot, perspective, result, tab=1)
    rows, cols = blocker.args
    out = result.transformed().frame
    expected = contingency(out, rows, cols, max_values=100)
    heat = perspective.contingency.output.heat
    assert np.array_equal(heat._values, expected.to_numpy())
    with qtbot.waitSignal(perspective.contingency_shown, timeout=30_000,
                          check_params_cb=lambda r, c: (r, c) == ("sex", "race")):
        perspective.contingency.rows.setCurrentText("sex")
        perspective.contingency.columns.setCurrentText("race")
    table = perspective.contingency.input.model.frame
    assert int(table.iloc[:, 1:].to_numpy().sum()) == result.problem.table.n_rows
    perspective.contingency.as_table.click()
    assert perspective.contingency.output.stack.currentIndex() == 1


def test_quality_table(perspective, result, qtbot):
    with qtbot.waitSignal(perspective.quality_shown, timeout=60_000):
        shown(qtbot, perspective, result, tab=3)
    frame = perspective.quality.model.frame
    assert list(frame["Attribute"]) == [*result.problem.qis, "Overall (mean)"]
    sup = result.optimum.suppressed_records / result.problem.table.n_rows
    assert frame["Missing / suppressed"].iloc[0] == pytest.approx(sup)
    assert perspective.quality.cards["suppressed_records"].value.text() == \
        f"{result.optimum.suppressed_records:,}"


def test_classification_runs_in_the_worker(perspective, result, qtbot):
    shown(qtbot, perspective, result, tab=4)
    panel = perspective.classification
    assert panel.target.currentText() == "salary-class"
    panel.model.setCurrentIndex(panel.model.findData("naive-bayes"))
    panel.folds.setValue(3)
    with qtbot.waitSignal(perspective.classification_shown, timeout=120_000):
        panel.run.click()
        assert not panel.run.isEnabled() and panel.cancel.isEnabled()
    assert panel.run.isEnabled()
    acc_in = float(panel.cards["input"].value.text().rstrip(" %"))
    acc_out = float(panel.cards["output"].value.text().rstrip(" %"))
    assert 70 < acc_out <= 100 and 70 < acc_in <= 100
    assert panel.metrics_model.rowCount() == 3
    assert len(panel.roc.plot.listDataItems()) == 3  # diagonal, input, output


def test_classification_can_be_cancelled(perspective, result, qtbot):
    shown(qtbot, perspective, result, tab=4)
    panel = perspective.classification
    panel.model.setCurrentIndex(panel.model.findData("random-forest"))
    panel.folds.setValue(10)
    with qtbot.waitSignal(perspective.analysis_failed, timeout=120_000) as blocker:
        panel.run.click()
        panel.cancel.click()
    assert blocker.args[0] == "classification" and "cancel" in blocker.args[1].lower()
    assert panel.run.isEnabled() and not panel.cancel.isEnabled()


# --- wiring ---------------------------------------------------------------------------------------
class _Doc(QObject):
    result_changed = Signal()
    output_changed = Signal(object)

    def __init__(self):
        super().__init__()
        self.result = None
        self.applied_levels = None


def test_create_perspective_follows_the_document(qtbot, result):
    from app.perspectives import PerspectiveContext
    from app.perspectives.utility import create_perspective

    doc = _Doc()
    w = create_perspective(PerspectiveContext(doc, None, None, None))
    qtbot.addWidget(w)
    try:
        assert w.pages.currentWidget() is w.empty
        doc.result = result
        with qtbot.waitSignal(w.result_shown, timeout=30_000):
            doc.result_changed.emit()
        assert w.tables.output_model.rowCount() == result.problem.table.n_rows
        levels = other_levels(result)
        with qtbot.waitSignal(w.result_shown, timeout=30_000):
            doc.output_changed.emit(levels)
        assert w.tables.output_model.view.levels == levels
        # a new result shows its optimum again
        with qtbot.waitSignal(w.result_shown, timeout=30_000):
            doc.result_changed.emit()
        optimum = tuple(result.optimum.levels[q] for q in result.problem.qis)
        assert w.tables.output_model.view.levels == optimum
        # a reopened project's result comes with the transformation applied before
        doc.applied_levels = levels
        with qtbot.waitSignal(w.result_shown, timeout=30_000):
            doc.result_changed.emit()
        assert w.tables.output_model.view.levels == levels
    finally:
        w.shutdown()
