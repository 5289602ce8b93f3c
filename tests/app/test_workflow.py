"""Import Adult through the wizard, configure 9 QIs with hierarchies and 5-anonymity, run."""
from __future__ import annotations

import engine
from engine.config import QUASI_IDENTIFYING
from tests.app.conftest import QIS


def import_adult(qtbot, window, adult_dir):
    wizard = window.files.make_import_wizard(str(adult_dir / "adult.csv"))
    qtbot.addWidget(wizard)
    wizard.show()
    assert wizard.currentPage() is wizard.source_page
    wizard.next()
    page = wizard.format_page
    assert wizard.currentPage() is page
    assert page.delimiter.currentText() == ";"
    assert page.header.isChecked()
    assert page.model.rowCount() == 100 and page.model.columnCount() == 9
    wizard.next()
    cols = wizard.columns_page
    assert wizard.currentPage() is cols
    items = cols.model.items()
    assert [it.name for it in items][:2] == ["sex", "age"]
    age = next(it for it in items if it.name == "age")
    assert age.data_type == "integer" and age.share == 1.0
    cols.select_none.click()
    assert not cols.isComplete()
    cols.select_all.click()
    assert cols.isComplete()
    spec = wizard.spec()
    wizard.close()
    with qtbot.waitSignal(window.files.loaded, timeout=30_000):
        window.files.import_spec(spec)
    return window.document.table


def configure_adult(window, adult_dir, k=5, suppression=4.0):
    conf = window.configure
    attrs = conf.attributes
    attrs.view.selectAll()
    assert len(attrs.selected()) == 9
    attrs.type.setCurrentIndex(attrs.type.findData(QUASI_IDENTIFYING))
    attrs.type.activated.emit(attrs.type.currentIndex())
    for name in QIS:
        attrs.select([name])
        assert conf.hierarchy.name == name
        assert conf.hierarchy.load_file(adult_dir / f"adult_hierarchy_{name}.csv")
        assert conf.hierarchy.status.text().startswith("Complete, height")
    dialog = conf.privacy.make_dialog()
    dialog.form.editors["k"].setValue(k)
    dialog.accept()
    conf.privacy.add_model(dialog.value())
    conf.privacy.suppression.setValue(suppression)


def test_import_configure_anonymize(qtbot, window, adult_dir, messages):
    table = import_adult(qtbot, window, adult_dir)
    assert table.n_rows == 30162 and len(table.names) == 9
    assert window.document.attributes["age"].data_type == "integer"
    configure_adult(window, adult_dir)
    doc = window.document
    assert all(doc.attributes[q].type == QUASI_IDENTIFYING for q in QIS)
    assert doc.settings.privacy == [{"model": "k-anonymity", "k": 5}]
    assert doc.settings.transformation.suppression_limit == 0.04
    with qtbot.waitSignal(window.search.finished, timeout=120_000):
        window.actions["anonymize"].trigger()
    assert not messages, messages
    result = doc.result
    expected = engine.anonymize(table, doc.build_job()).optimum
    assert result.optimum.levels == expected.levels
    summary = window.configure.result
    assert summary.headline.text() == "Optimum found"
    for name, level in expected.levels.items():
        assert f"{name} {level}" in summary.details.text()
    assert f"{expected.information_loss_percent:.2f} %" in summary.details.text()
    assert "Optimum found" in window.statusBar().currentMessage()
    assert window.progress.bar.isHidden()


def test_anonymize_without_model_says_what_is_missing(qtbot, window, adult_dir, messages):
    import_adult(qtbot, window, adult_dir)
    window.actions["anonymize"].trigger()
    assert messages and "quasi-identifying" in messages[-1][1]
    assert not window.search.running
