"""ARX-named hierarchy files beside the data (``adult_hierarchy_age.csv``) are offered
on import and loaded all at once in Configure, and used by the guided release instead
of building its own (issue 27 item 6): Adult's 8 hierarchies in one click, not ~76."""
from __future__ import annotations

import shutil

import pandas as pd

from app import hierarchies_beside
from app.wizards.guided.common import HIERARCHIES_PAGE
from engine.hierarchy.csv_io import read_hierarchy
from tests.app.test_workflow import import_adult

QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "occupation"]


def test_import_offers_and_configure_loads_all_at_once(qtbot, window, adult_dir, messages):
    import_adult(qtbot, window, adult_dir)
    assert "9 hierarchy files named as ARX names them" in window.statusBar().currentMessage()
    editor = window.configure.hierarchy
    assert not editor.beside.isHidden()
    assert editor.beside.text() == "Load all beside the data (9)"
    loaded = editor.beside.click() or hierarchies_beside.available(window.document)
    assert loaded == {}  # nothing left to offer
    assert editor.beside.isHidden()
    doc = window.document
    for q in QIS + ["salary-class"]:
        expected = read_hierarchy(adult_dir / f"adult_hierarchy_{q}.csv", q)
        assert doc.hierarchy_rows[q] == [list(r) for r in expected.rows]
    assert not messages, messages


def test_the_guide_uses_the_files_beside_the_data(qtbot, window, adult_dir, tmp_path):
    from tests.app.test_guided_release import _release, _check_release
    for f in adult_dir.glob("adult*.csv"):
        shutil.copy(f, tmp_path / f.name)
    out = tmp_path / "release"
    wiz, _ = _release(window, qtbot, tmp_path / "adult.csv", out)
    written = _check_release(window, out, "adult")
    doc = window.document
    qis = [n for n, a in doc.attributes.items() if a.type == "quasi-identifying"]
    assert qis
    for q in qis:
        expected = read_hierarchy(tmp_path / f"adult_hierarchy_{q}.csv", q)
        assert doc.hierarchy_rows[q] == [list(r) for r in expected.rows], q
    assert len(written) == len(pd.read_csv(tmp_path / "adult.csv", sep=";"))
    page = wiz.page(HIERARCHIES_PAGE)  # the hierarchies step says where each came from
    assert all("beside the data" in page.reasons[q] for q in qis)
