"""Projects keep their result only while it belongs to their data, and no secret."""
from __future__ import annotations

import zipfile

import pandas as pd
import pytest

from engine.backends.handle import MemoryData
from engine.config import QUASI_IDENTIFYING
from engine.data.sources import ImportSpec
from tests.app.conftest import ADULT

QIS = ("sex", "race", "education")


def small_adult(tmp_path, rows: int = 400):
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    path = tmp_path / "adult.csv"
    frame.head(rows).to_csv(path, sep=";", index=False)
    return path, frame.head(rows)


def configured(qtbot, window, path):
    from engine.data.csv_import import CsvFormat
    spec = ImportSpec("csv", str(path), csv_format=CsvFormat(";"))
    with qtbot.waitSignal(window.files.loaded, timeout=30_000):
        window.files.import_spec(spec)
    doc = window.document
    doc.update_attributes(list(QIS), type=QUASI_IDENTIFYING)
    conf = window.configure
    for name in QIS:
        conf.attributes.select([name])
        assert conf.hierarchy.load_file(ADULT / f"adult_hierarchy_{name}.csv")
    doc.set_privacy([{"model": "k-anonymity", "k": 3}])
    with qtbot.waitSignal(window.search.finished, timeout=60_000):
        window.actions["anonymize"].trigger()
    assert doc.result is not None and doc.result.optimum is not None
    return doc


def new_window(qtbot):
    from app.main_window import MainWindow
    from app.settings import AppSettings
    w = MainWindow(AppSettings())
    qtbot.addWidget(w)
    return w


def test_a_result_of_other_data_is_not_restored(qtbot, window, tmp_path, messages):
    if not (ADULT / "adult.csv").exists():
        pytest.skip("../shared/data/adult is not available")
    path, frame = small_adult(tmp_path)
    doc = configured(qtbot, window, path)
    window.settings.include_data_in_project = False  # the project names the CSV
    with qtbot.waitSignal(window.files.saved, timeout=30_000):
        window.files.save_to(tmp_path / "p.anonymist")
    # reopened unchanged: the result is back
    again = new_window(qtbot)
    with qtbot.waitSignal(again.files.loaded, timeout=30_000):
        again.files.open_path(tmp_path / "p.anonymist")
    assert again.document.result is not None and not messages
    assert again.document.result.optimum.levels == doc.result.optimum.levels
    again.files.tasks.wait_all(10_000)
    # the data file changed since: said so, and only the summary is kept
    changed = frame.copy()
    changed.loc[0, "race"] = "Other" if changed.loc[0, "race"] != "Other" else "White"
    changed.to_csv(path, sep=";", index=False)
    third = new_window(qtbot)
    with qtbot.waitSignal(third.files.loaded, timeout=30_000):
        third.files.open_path(tmp_path / "p.anonymist")
    assert third.document.result is None
    assert third.document.result_summary is not None
    assert messages and messages[-1][0] == "Result not restored"
    assert "the data is not the data the result was computed from" in messages[-1][1]
    third.files.tasks.wait_all(10_000)


def test_a_database_password_is_never_stored_and_asked_again(qtbot, window, tmp_path,
                                                            monkeypatch, messages):
    if not (ADULT / "adult.csv").exists():
        pytest.skip("../shared/data/adult is not available")
    from app import project_io
    from app.source import DataSource
    from app.project_file import write_project
    from engine.data.table import EncodedTable
    _path, frame = small_adult(tmp_path, 50)
    url = "postgresql+psycopg2://ann:s3cret@db.example:5432/clinic"
    doc = window.document
    doc.set_data(MemoryData(EncodedTable.from_dataframe(frame)), DataSource("sql", url, "people"))
    assert "s3cret" not in doc.source.location
    assert doc.source.location == "postgresql+psycopg2://ann@db.example:5432/clinic"
    project = tmp_path / "db.anonymist"
    write_project(project_io.snapshot_of(doc), project, include_data=False)
    with zipfile.ZipFile(project) as z:
        assert not any(b"s3cret" in z.read(n) for n in z.namelist())
    asked, read = [], []

    def fake_load(spec):
        read.append(spec)
        return frame

    monkeypatch.setattr(project_io, "load", fake_load)
    again = new_window(qtbot)
    monkeypatch.setattr(again.files, "ask_password", lambda location: asked.append(location)
                        or "typed-again")
    with qtbot.waitSignal(again.files.loaded, timeout=30_000):
        again.files.open_path(project)
    assert asked == ["postgresql+psycopg2://ann@db.example:5432/clinic"]
    assert read[0].password == "typed-again" and "s3cret" not in read[0].location
    assert again.document.table.n_rows == 50 and not messages
    # cancelling the password dialog opens nothing
    third = new_window(qtbot)
    monkeypatch.setattr(third.files, "ask_password", lambda location: None)
    third.files.open_path(project)
    third.files.tasks.wait_all(10_000)
    qtbot.waitUntil(lambda: "cancelled" in third.statusBar().currentMessage(), timeout=60_000)
    assert third.document.table is None


def test_a_result_of_another_configuration_is_not_restored(qtbot, window, tmp_path,
                                                           messages):
    if not (ADULT / "adult.csv").exists():
        pytest.skip("../shared/data/adult is not available")
    path, _frame = small_adult(tmp_path)
    doc = configured(qtbot, window, path)
    doc.set_privacy([{"model": "k-anonymity", "k": 4}])  # after the run
    with qtbot.waitSignal(window.files.saved, timeout=30_000):
        window.files.save_to(tmp_path / "p.anonymist")
    again = new_window(qtbot)
    with qtbot.waitSignal(again.files.loaded, timeout=30_000):
        again.files.open_path(tmp_path / "p.anonymist")
    assert again.document.result is None
    assert again.document.settings.privacy == [{"model": "k-anonymity", "k": 4}]
    assert messages and "configuration was changed after the last run" in messages[-1][1]
    again.files.tasks.wait_all(10_000)
