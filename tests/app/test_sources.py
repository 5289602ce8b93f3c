"""Excel and database sources through the import wizard."""
from __future__ import annotations

import sqlite3

import pandas as pd
import pytest


def run_wizard(qtbot, window, location, kind=None):
    wizard = window.files.make_import_wizard(str(location))
    qtbot.addWidget(wizard)
    if kind:
        wizard.source_page.set_kind(kind)
        wizard.source_page.location.setText(str(location))
    wizard.show()
    wizard.next()
    assert wizard.currentPage() is wizard.format_page, wizard.error
    assert wizard.format_page.isComplete(), wizard.format_page.error.text()
    wizard.next()
    spec = wizard.spec()
    with qtbot.waitSignal(window.files.loaded, timeout=30_000):
        window.files.import_spec(spec)
    return wizard


def test_excel_sheet(qtbot, window, tmp_path):
    pytest.importorskip("openpyxl")
    path = tmp_path / "people.xlsx"
    with pd.ExcelWriter(path) as w:
        pd.DataFrame({"x": [1]}).to_excel(w, sheet_name="other", index=False)
        pd.DataFrame({"age": [34, 51, 27], "zip": ["10115", "80331", None],
                      "born": pd.to_datetime(["1990-01-02", "1973-05-06", "1997-08-09"])}
                     ).to_excel(w, sheet_name="people", index=False)
    wizard = window.files.make_import_wizard(str(path))
    qtbot.addWidget(wizard)
    assert wizard.source_page.kind == "excel"
    assert [wizard.source_page.table.itemText(i) for i in range(2)] == ["other", "people"]
    wizard.source_page.table.setCurrentText("people")
    wizard.show()
    wizard.next()
    assert wizard.format_page.model.rowCount() == 3
    wizard.next()
    items = {it.name: it for it in wizard.columns_page.model.items()}
    assert items["age"].data_type == "integer"
    with qtbot.waitSignal(window.files.loaded, timeout=30_000):
        window.files.import_spec(wizard.spec())
    t = window.document.table
    assert t.names == ["age", "zip", "born"]
    assert list(t.column("zip").values()) == ["10115", "80331", ""]
    assert t.column("born").values()[0].startswith("1990-01-02")
    assert window.document.source.kind == "excel" and window.document.source.table == "people"


def test_sqlite_table(qtbot, window, tmp_path):
    path = tmp_path / "data.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE patients (name TEXT, age INTEGER, city TEXT)")
        con.executemany("INSERT INTO patients VALUES (?, ?, ?)",
                        [("Ann", 34, "Berlin"), ("Bob", None, "Munich")])
    run_wizard(qtbot, window, path)
    t = window.document.table
    assert t.names == ["name", "age", "city"] and t.n_rows == 2
    assert list(t.column("age").values()) == ["34", ""]


def test_database_url_that_fails_shows_error_page(qtbot, window, tmp_path):
    wizard = window.files.make_import_wizard()
    qtbot.addWidget(wizard)
    wizard.source_page.set_kind("sql")
    wizard.source_page.location.setText("sqlite:///" + str(tmp_path / "missing" / "x.db"))
    wizard.show()
    wizard.next()
    assert wizard.currentPage() is wizard.error_page
    assert "cannot" in wizard.error_page.message.text().lower()
