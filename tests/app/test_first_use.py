"""What a first-time user met: a result card that stays fresh after edits, Analyze risk
that blamed the models before any run, quasi-identifiers without hierarchy and columns
released as they are found out only at Anonymize."""
from __future__ import annotations

from engine.config import INSENSITIVE, QUASI_IDENTIFYING
from tests.app.conftest import open_sample


def _run(qtbot, window):
    with qtbot.waitSignal(window.search.finished, timeout=120_000):
        window.anonymize()


def test_result_card_is_marked_stale_when_the_configuration_changes(qtbot, window):
    open_sample(qtbot, window)
    card = window.configure.result
    _run(qtbot, window)
    assert not card.stale and "out of date" not in card.headline.text()
    window.configure.privacy.suppression.setValue(1.0)
    assert card.stale and "out of date" in card.headline.text()
    assert card.property("state") == "stale"
    _run(qtbot, window)
    assert not card.stale and card.property("state") == "ok"
    window.document.update_attributes(["sex"], weight=0.5)
    assert card.stale
    _run(qtbot, window)
    window.document.set_subset_spec({"sample": 0.5, "seed": 1})
    assert card.stale


def test_no_result_card_is_not_stale(qtbot, window):
    open_sample(qtbot, window)
    window.document.set_result(None)
    window.configure.privacy.suppression.setValue(2.0)
    assert not window.configure.result.stale
    assert window.configure.result.headline.text() == "No result yet"


def test_risk_before_any_run_says_nothing_has_run(qtbot, window):
    open_sample(qtbot, window)
    window.document.set_result(None)
    view = window.perspectives["risk"]
    qtbot.waitUntil(lambda: view.sides[0] is not None, timeout=60_000)
    out = view.profile.output
    assert out.placeholder.isVisibleTo(view.profile)
    assert "Nothing has been anonymized yet" in out.placeholder.text()
    assert "no transformation meets" not in out.placeholder.text().lower()
    assert not out.plot.isVisibleTo(view.profile)  # no empty chart with a junk axis
    for tab in (view.uniqueness, view.identifiers, view.qi):
        assert tab.captions[1].text() == "no output: nothing anonymized yet"


def test_attribute_list_flags_missing_hierarchies_and_verbatim_columns(qtbot, window):
    open_sample(qtbot, window)
    doc = window.document
    panel = window.configure.attributes
    assert doc.qis_without_hierarchy() == []
    doc.set_hierarchy_rows("sex", None)  # a quasi-identifier loses its hierarchy
    assert doc.qis_without_hierarchy() == ["sex"]
    assert "Needs a hierarchy: sex" in panel.warnings.text()
    assert panel.warnings.isVisibleTo(panel)
    model = panel.model
    row = model.row_of("sex")
    assert model.data(model.index(row, 3)) == "Needs a hierarchy"
    assert model.data(model.index(row, 0), 1) is not None  # warning icon (DecorationRole)
    doc.update_attributes(["sex"], type=INSENSITIVE)
    assert "Needs a hierarchy" not in panel.warnings.text()
    assert "Released as they are (insensitive): sex" in panel.warnings.text()
    doc.update_attributes(["sex"], type=QUASI_IDENTIFYING)
    assert "Released as they are" not in panel.warnings.text()


def test_search_limits_are_disabled_where_the_algorithm_ignores_them(qtbot, window):
    open_sample(qtbot, window)
    doc = window.document
    panel = window.configure.search
    size = doc.lattice_size()
    assert size == 12960  # the sample's nine quasi-identifiers
    tr = doc.settings.transformation

    def use(algorithm, threshold=tr.heuristic_threshold):
        from dataclasses import replace
        doc.set_transformation(replace(doc.settings.transformation,
                                       algorithm=algorithm,
                                       heuristic_threshold=threshold))

    use("optimal", 100_000)
    assert not panel.time_limit.isEnabled() and not panel.step_limit.isEnabled()
    assert "ignores time and step limits" in panel.time_limit.toolTip()
    use("optimal", 1000)  # above the threshold: the genetic search takes over, honours them
    assert (panel.time_limit.isEnabled()
            and "hands over to the genetic search" in panel.note.text())
    use("exhaustive")
    assert not panel.time_limit.isEnabled() and not panel.threshold.isEnabled()
    use("genetic")
    assert panel.time_limit.isEnabled() and panel.seed.isEnabled()
    doc.update_attributes(["age"], max_level=1)  # the lattice shrinks
    assert doc.lattice_size() < size


def test_one_click_zooms_explore_to_the_optimum(qtbot, window):
    from PySide6.QtCore import QPointF
    open_sample(qtbot, window)
    _run(qtbot, window)
    explore = window.perspectives["explore"]
    view = explore.lattice
    wide = view.box.viewRect()
    explore.zoom_optimum_button.click()
    opt = explore.nodes.optimum
    rect = view.box.viewRect()
    assert rect.contains(QPointF(view._all_x[opt], view._all_y[opt]))
    assert rect.width() <= 30 < wide.width()  # single transformations, not bands
    assert explore.current_row == opt and view.selected_row == opt
    assert "band" in explore.hint.text()  # the overview's marks are explained


def test_progress_bar_names_the_phases_and_reaches_the_end(qtbot, window):
    open_sample(qtbot, window)
    seen = []

    def on_progress(payload):
        seen.append((payload.phase, window.progress.bar.value(), window.progress.label.text()))

    window.search.progressed.connect(on_progress)
    _run(qtbot, window)
    phases = [p for p, _, _ in seen]
    assert phases[0] == "preparing" and "search" in phases and phases[-1] == "output"
    search = [(value, text) for p, value, text in seen if p == "search"]
    assert search[-1][0] == window.progress.bar.maximum()  # the search ends at 100 %
    assert all(text.startswith("Searching") for _, text in search)
    assert seen[-1][2].startswith("Building the output")


def test_attribute_list_shows_each_hierarchy_status_whole_at_1280x800(qtbot, themed, window):
    """On a laptop screen the hierarchy column is not elided ("Complete, heig…"): it says
    "✓ height N" and its tooltip has the whole status."""
    from PySide6.QtCore import Qt
    open_sample(qtbot, window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    view = window.configure.attributes.view
    model = view.model()
    metrics = view.fontMetrics()
    width = view.columnWidth(3)
    for row in range(model.rowCount()):
        name = model.data(model.index(row, 0))
        text = model.data(model.index(row, 3))
        status = window.document.hierarchy_status(name)
        assert text == f"✓ height {status.height}"
        assert metrics.horizontalAdvance(text) + 12 <= width, (text, width)
        tip = model.data(model.index(row, 3), Qt.ItemDataRole.ToolTipRole)
        assert tip == f"Complete, height {status.height}"
    # the column keeps what is left of the list's width: no horizontal scroll bar
    assert not view.horizontalScrollBar().isVisible()


def test_clear_asks_before_removing_a_hierarchy(qtbot, window, messages):
    from PySide6.QtWidgets import QMessageBox
    open_sample(qtbot, window)
    window.configure.attributes.select(["age"])
    editor = window.configure.hierarchy
    assert editor.name == "age"
    before = window.document.hierarchy_rows["age"]
    editor.buttons["clear"].click()  # the box's default: No
    assert [t for t, _ in messages] == ["Remove the hierarchy?"]
    assert "'age' (height 4" in messages[0][1]
    assert window.document.hierarchy_rows["age"] == before
    messages.answer = QMessageBox.StandardButton.Yes
    editor.buttons["clear"].click()
    assert not window.document.hierarchy_rows.get("age")
    assert window.document.lacks_hierarchy("age")
    # nothing left to clear or export: those buttons are off, Load and Create are not
    assert not editor.buttons["clear"].isEnabled() and not editor.buttons["save"].isEnabled()
    assert editor.buttons["load"].isEnabled() and editor.buttons["create"].isEnabled()
    editor.buttons["add_level"].click()  # a new hierarchy: values and one level
    assert editor.buttons["clear"].isEnabled() and editor.buttons["save"].isEnabled()


def test_population_region_keeps_its_label_at_1280x800(qtbot, themed, window):
    open_sample(qtbot, window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    editor = window.configure.privacy.population
    label = editor._form.labelForField(editor.region)
    assert label.text() == "Region" and label.isVisible()
    assert label.width() >= label.sizeHint().width()
    region = editor.region
    assert region.width() >= region.fontMetrics().horizontalAdvance(region.currentText())


def test_keyboard_focus_lands_on_the_attribute_list_after_opening(qtbot, window):
    from PySide6.QtWidgets import QApplication
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None, timeout=60_000)
    assert window.configure.isAncestorOf(QApplication.focusWidget())  # the empty state's
    open_sample(qtbot, window)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.configure.attributes.view,
                    timeout=60_000)


def test_privacy_list_explains_itself_when_empty_and_edit_needs_a_selection(qtbot, window):
    open_sample(qtbot, window)
    window.show()
    qtbot.waitExposed(window)
    privacy = window.configure.privacy
    assert privacy.view.isVisible() and not privacy.empty_label.isVisible()
    assert not privacy.edit_button.isEnabled() and not privacy.remove_button.isEnabled()
    privacy.view.setCurrentIndex(privacy.model.index(0, 0))
    assert privacy.edit_button.isEnabled() and privacy.remove_button.isEnabled()
    privacy.remove_button.click()
    assert window.document.settings.privacy == []
    assert privacy.empty_label.isVisible() and not privacy.view.isVisible()
    assert "No privacy model yet" in privacy.empty_label.text()
    assert not privacy.edit_button.isEnabled() and not privacy.remove_button.isEnabled()
    privacy.add_model({"model": "k-anonymity", "k": 3})
    assert privacy.view.isVisible() and not privacy.empty_label.isVisible()
    assert privacy.add_button.isEnabled() and not privacy.edit_button.isEnabled()


def test_export_actions_wait_for_something_to_release(qtbot, window):
    keys = ("export_data", "export_report", "export_mapping")
    assert not any(window.actions[k].isEnabled() for k in keys)
    assert "anonymize first" in window.actions["export_data"].toolTip()
    open_sample(qtbot, window)
    assert not any(window.actions[k].isEnabled() for k in keys)
    _run(qtbot, window)
    assert all(window.actions[k].isEnabled() for k in keys)
    assert "anonymize first" not in window.actions["export_data"].toolTip()
    # a new project (the unsaved-changes question answered Discard): nothing to export
    window.new_project()
    assert not any(window.actions[k].isEnabled() for k in keys)
