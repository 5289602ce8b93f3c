"""What a demanding user saw at 1280 x 800 after the day's additions: a window taller
than the screen before any data was open, PRAM's settings drawn over each other, the
person role's label clipped, rows of the attribute form shown for attributes they do
not apply to, the export dialog's explanation cut off, the survey figures scrolled."""
from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel

from app.person_role import ROLE, ROLE_LABEL
from engine.config import IDENTIFYING, INSENSITIVE
from tests.app.conftest import open_sample

SCREEN = (1280, 800)


def _on_screen(qtbot, window, size=SCREEN):
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(50)  # the layouts' posted requests


def _fits(window, size=SCREEN) -> None:
    hint = window.minimumSizeHint()
    assert hint.width() <= size[0] and hint.height() <= size[1], hint
    assert (window.width(), window.height()) == size


def _set_type(attrs, name, kind):
    attrs.select([name])
    attrs.type.setCurrentIndex(attrs.type.findData(kind))
    attrs.type.activated.emit(attrs.type.currentIndex())


def _choose(combo, text):
    combo.setCurrentText(text)
    combo.activated.emit(combo.currentIndex())


def _shown(attrs) -> set[str]:
    """The attribute form's rows shown, by label."""
    return {label.text() for label in attrs._labels.values() if label.isVisibleTo(attrs.form_host)}


def test_the_window_fits_the_screen_with_nothing_loaded(qtbot, themed, window):
    _on_screen(qtbot, window)
    _fits(window)  # the method settings' every row counted while hidden: 1084 px tall


def test_attribute_form_shows_the_rows_of_the_selected_attribute(qtbot, themed, window):
    open_sample(qtbot, window)
    _on_screen(qtbot, window)
    attrs = window.configure.attributes
    attrs.select(["age"])
    assert _shown(attrs) == {"Type", "Data type", "Format", "Weight", "Levels",
                             "Transformation"}
    _choose(attrs.method, "microaggregation")
    assert {"Function", "Clustering"} <= _shown(attrs) and attrs.ignore_missing.isVisible()
    _choose(attrs.method, "top-bottom-coding")
    assert {"Bottom", "Top"} <= _shown(attrs) and "Function" not in _shown(attrs)
    _set_type(attrs, "salary-class", INSENSITIVE)
    assert _shown(attrs) == {"Type", "Data type", "Format", "Transformation", "Identifiers"}
    assert not attrs.identifiers.reason.isVisible()  # only for "keep"
    _set_type(attrs, "race", IDENTIFYING)
    assert _shown(attrs) == {"Type", "Data type", "Format", "Release as"}
    attrs.select(["sex", "age"])  # several: their type only
    assert _shown(attrs) == {"Type"}


def test_pram_settings_fit_and_show_only_what_applies(qtbot, themed, window):
    open_sample(qtbot, window)
    _on_screen(qtbot, window)
    attrs = window.configure.attributes
    _set_type(attrs, "salary-class", INSENSITIVE)
    _choose(attrs.method, "pram")
    settings = attrs.method_settings
    form = settings.form
    qtbot.wait(50)

    def rows():
        return {n for n, e in form.editors.items() if e.isVisibleTo(settings)}
    assert rows() == {"pd", "invariant", "strata", "seed"}  # alpha with invariant only
    form.editors["invariant"].setChecked(True)
    assert rows() == {"pd", "alpha", "invariant", "strata", "seed"}
    qtbot.wait(50)
    _fits(window)
    # every row gets its height: nothing drawn over anything else
    host = attrs.form_host
    assert host.height() >= host.minimumSizeHint().height()
    for name in rows():
        editor = form.editors[name]
        assert editor.height() >= editor.minimumSizeHint().height(), name
    _choose(attrs.method, "noise")
    assert rows() == {"noise", "noise_method", "seed"}  # delta with correlated2 only
    box = form.editors["noise_method"]
    box.setCurrentIndex(box.findData("correlated2"))
    assert rows() == {"noise_method", "delta", "seed"}  # correlated2 has no noise size
    _fits(window)


def test_the_person_role_shows_whole_and_the_hierarchy_title_elides(qtbot, themed, window):
    open_sample(qtbot, window)
    _on_screen(qtbot, window)
    attrs, editor = window.configure.attributes, window.configure.hierarchy
    attrs.select(["sex"])
    narrow = editor.title.minimumSizeHint().width()
    _set_type(attrs, "native-country", ROLE)
    assert attrs.type.currentText() == ROLE_LABEL
    qtbot.wait(50)
    text = attrs.type.fontMetrics().horizontalAdvance(ROLE_LABEL)
    assert attrs.type.width() >= text + attrs.type.iconSize().width() + 30
    # a long attribute name does not widen the hierarchy editor (it is elided)
    assert editor.title.text() == "Hierarchy of 'native-country'"
    assert editor.title.minimumSizeHint().width() == narrow
    assert editor.title.minimumSizeHint().width() < editor.title.sizeHint().width()
    _fits(window)


def test_export_dialog_gives_its_explanations_their_lines(qtbot, themed, window):
    from app.widgets.export_dialog import ExportDialog
    dialog = ExportDialog("/tmp", ";", True, window, "optimum: " + " · ".join(
        f"attribute-{i} {i % 4}" for i in range(12)), verbatim=["notes"])
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.with_report.setChecked(True)
    qtbot.wait(50)
    wrapped = [w for w in dialog.findChildren(QLabel) if w.wordWrap() and w.isVisible()
               and w.text()]
    assert len(wrapped) >= 4
    for label in wrapped:
        assert label.height() >= label.heightForWidth(label.width()), label.text()[:40]


@pytest.mark.parametrize("size", [SCREEN, (1600, 1000)])
def test_survey_measures_show_every_figure(qtbot, themed, window, size):
    from app.perspectives.risk.perspective import SURVEY
    open_sample(qtbot, window)
    _on_screen(qtbot, window, size)
    risk = window.perspectives["risk"]
    window.show_perspective(3)
    risk.tabs.setCurrentIndex(SURVEY)
    qtbot.wait(50)
    table = risk.survey.table
    assert not table.verticalScrollBar().isVisible()  # all twelve rows
    labels = [table.verticalHeaderItem(r).text() for r in range(table.rowCount())]
    assert "Highest individual risk (0–1)" in labels  # beside "Global risk (%)"
    _fits(window, size)

