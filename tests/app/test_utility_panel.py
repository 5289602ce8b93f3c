"""The utility panel offers the classification metric with a response attribute."""
from __future__ import annotations

from tests.app.test_workflow import configure_adult, import_adult


def test_classification_needs_and_gets_a_response(qtbot, window, adult_dir):
    import_adult(qtbot, window, adult_dir)
    configure_adult(window, adult_dir)
    panel = window.configure.utility
    doc = window.document
    assert not panel.response.isEnabled() and panel.response.isHidden()
    assert [panel.response.itemText(i) for i in range(panel.response.count())] == \
        list(doc.table.names)
    panel.metric.setCurrentIndex(panel.metric.findData("classification"))
    panel.metric.activated.emit(panel.metric.currentIndex())
    assert panel.response.isEnabled() and not panel.response.isHidden()
    assert doc.settings.metric["name"] == "classification"
    assert doc.settings.metric["response"] in doc.table.names
    panel.response.setCurrentIndex(panel.response.findText("salary-class"))
    panel.response.activated.emit(panel.response.currentIndex())
    assert doc.settings.metric["response"] == "salary-class"
    assert doc.check_job() is None
    assert doc.build_job().metric.responses == ["salary-class"]
    # another metric drops the parameter, so the job stays valid
    panel.metric.setCurrentIndex(panel.metric.findData("loss"))
    panel.metric.activated.emit(panel.metric.currentIndex())
    assert "response" not in doc.settings.metric
    assert not panel.response.isEnabled() and panel.response.isHidden()
    assert doc.check_job() is None
