"""More import sources: .xls workbooks and Parquet files through the import wizard."""
from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt
import pytest

from tests.app.test_sources import run_wizard


def test_xls_workbook(qtbot, window, tmp_path):
    xlwt = pytest.importorskip("xlwt")
    path = tmp_path / "old.xls"
    book = xlwt.Workbook()
    book.add_sheet("empty")
    sheet = book.add_sheet("people")
    import datetime
    date = xlwt.easyxf(num_format_str="YYYY-MM-DD")
    for r, row in enumerate([("age", "zip"), (34, "10115"), (51, "80331"), (27, "")]):
        for c, v in enumerate(row):
            sheet.write(r, c, v)
    sheet.write(0, 2, "born")
    sheet.write(1, 2, datetime.date(1990, 1, 2), date)
    book.save(str(path))
    wizard = window.files.make_import_wizard(str(path))
    qtbot.addWidget(wizard)
    assert wizard.source_page.kind == "excel"
    assert [wizard.source_page.table.itemText(i) for i in range(2)] == ["empty", "people"]
    wizard.source_page.table.setCurrentText("people")
    wizard.show()
    wizard.next()
    assert wizard.format_page.model.rowCount() == 3
    wizard.next()
    with qtbot.waitSignal(window.files.loaded, timeout=30_000):
        window.files.import_spec(wizard.spec())
    t = window.document.table
    assert t.names == ["age", "zip", "born"]
    assert list(t.column("age").values()) == ["34", "51", "27"]
    assert list(t.column("born").values())[0].startswith("1990-01-02")
    assert list(t.column("born").values())[1:] == ["", ""]
    assert list(t.column("zip").values()) == ["10115", "80331", ""]


def test_parquet_file(qtbot, window, tmp_path):
    path = tmp_path / "people.parquet"
    pd.DataFrame({"age": [34, 51, None], "city": ["Berlin", None, "Bern"],
                  "score": [1.5, 2.0, 3.25]}).to_parquet(path)
    wizard = run_wizard(qtbot, window, path)
    assert wizard.source_page.kind == "parquet"
    t = window.document.table
    assert t.names == ["age", "city", "score"] and t.n_rows == 3
    assert list(t.column("age").values()) == ["34", "51", ""]
    assert list(t.column("city").values()) == ["Berlin", "", "Bern"]
    assert list(t.column("score").values()) == ["1.5", "2", "3.25"]
    assert window.document.source.kind == "parquet"


def test_parquet_preview_reads_only_the_first_rows(tmp_path):
    from engine.data.sources import read_parquet
    path = tmp_path / "big.parquet"
    pd.DataFrame({"x": range(200_000)}).to_parquet(path, row_group_size=10_000)
    head = read_parquet(path, n_rows=100)
    assert list(head["x"]) == [str(i) for i in range(100)]
    from engine.errors import DataError
    (tmp_path / "bad.parquet").write_text("not parquet")
    with pytest.raises(DataError, match="bad.parquet cannot be read as Parquet"):
        read_parquet(tmp_path / "bad.parquet")


def test_database_server_form_uses_the_password_and_stores_it_nowhere(
        qtbot, window, tmp_path, monkeypatch):
    import sqlite3

    import sqlalchemy
    path = tmp_path / "server.db"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE visits (age INTEGER, city TEXT)")
        con.executemany("INSERT INTO visits VALUES (?, ?)", [(34, "Bern"), (51, "Basel")])
    real = sqlalchemy.create_engine
    urls = []

    def fake_engine(url, *args, **kwargs):  # the "server": a SQLite file
        urls.append(str(url))
        return real(f"sqlite:///{path}")
    monkeypatch.setattr(sqlalchemy, "create_engine", fake_engine)

    wizard = window.files.make_import_wizard()
    qtbot.addWidget(wizard)
    page = wizard.source_page
    page.set_kind("sql")
    assert page.server_box.isVisibleTo(page)
    page.host.setText("db.example.org")
    page.port.setValue(5433)
    page.database.setText("clinic")
    page.user.setText("ann")
    page.password.setText("s3cret!")
    page.connect_button.click()
    assert page.location.text() == "postgresql+psycopg2://ann@db.example.org:5433/clinic"
    assert page.table.currentText() == "visits"
    wizard.show()
    wizard.next()
    assert wizard.currentPage() is wizard.format_page, wizard.error
    wizard.next()
    spec = wizard.spec()
    assert "s3cret" not in repr(spec)
    with qtbot.waitSignal(window.files.loaded, timeout=30_000):
        window.files.import_spec(spec)
    assert window.document.table.n_rows == 2
    assert urls and all(":s3cret%21@" in u for u in urls)  # the password reached the driver
    assert "s3cret" not in window.document.source.location
    with qtbot.waitSignal(window.files.saved, timeout=30_000):
        window.files.save_to(tmp_path / "p.anonymist")
    assert b"s3cret" not in (tmp_path / "p.anonymist").read_bytes()


def test_server_form_refuses_missing_fields(qtbot, window):
    wizard = window.files.make_import_wizard()
    qtbot.addWidget(wizard)
    page = wizard.source_page
    page.set_kind("sql")
    page.connect_button.click()
    assert "host" in page.server_error.text() and page.location.text() == ""


def test_rename_and_reorder_columns_survive_the_project(qtbot, window, tmp_path):
    path = tmp_path / "people.csv"
    path.write_text("id;age;zip\n1;34;10115\n2;51;80331\n3;27;20095\n", encoding="utf-8")
    wizard = window.files.make_import_wizard(str(path))
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.next()
    wizard.next()
    page, model = wizard.columns_page, wizard.columns_page.model
    assert [it.name for it in model.items()] == ["id", "age", "zip"]
    model.setData(model.index(0, 0), 0, Qt.ItemDataRole.CheckStateRole)  # drop id
    assert not model.setData(model.index(1, 0), "zip")  # a duplicate name is refused
    assert "already called 'zip'" in page.refusal.text()
    assert model.setData(model.index(2, 0), "postcode")
    page.view.setCurrentIndex(model.index(2, 0))
    page.up.click()  # postcode before age
    assert [it.name for it in model.items()] == ["id", "postcode", "age"]
    assert page.view.currentIndex().row() == 1
    spec = wizard.spec()
    assert spec.columns == ("zip", "age") and spec.renames == (("zip", "postcode"),)
    with qtbot.waitSignal(window.files.loaded, timeout=30_000):
        window.files.import_spec(spec)
    t = window.document.table
    assert t.names == ["postcode", "age"]
    assert list(t.column("postcode").values()) == ["10115", "80331", "20095"]
    # a project without its data re-reads the source the same way
    window.settings.include_data_in_project = False
    with qtbot.waitSignal(window.files.saved, timeout=30_000):
        window.files.save_to(tmp_path / "p.anonymist")
    with qtbot.waitSignal(window.files.loaded, timeout=30_000):
        window.files.open_path(str(tmp_path / "p.anonymist"))
    assert window.document.table.names == ["postcode", "age"]
    # the job file cannot point at the source CSV (other names): the data goes beside it
    from app.project_io import save_job_file
    notes = save_job_file(window.document, tmp_path / "job.toml")
    assert any("data written" in n for n in notes)
