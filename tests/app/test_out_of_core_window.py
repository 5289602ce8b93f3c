"""The window on data too big for memory (a small generated file forced through the
big path by the settings' memory share): a paged view served by DuckDB queries, the
journey Configure -> Anonymize -> Export ending in a file ``anonymist verify`` accepts
and that equals the in-memory release byte for byte."""
from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pandas as pd
import pytest
from PySide6.QtCore import Qt

from engine.data.sources import ImportSpec
from app.settings import AppSettings
from engine.data.csv_import import CsvFormat
from tests.shared_data import SHARED
from tests.app.test_journeys import in_memory, verify_export

DATAGEN = SHARED / "tools" / "datagen.py"
ROWS = 3000


def generate_adult_like(tmp_path_factory, name: str, rows: int = ROWS, seed: int = 7) -> Path:
    """A generated Adult-like file (``adult.csv``) with the shared Adult hierarchies
    beside it, in a new temporary folder; skips without ../shared/tools/datagen.py."""
    if not DATAGEN.exists():
        pytest.skip("../shared/tools/datagen.py is not available")
    out = tmp_path_factory.mktemp(name)
    subprocess.run([sys.executable, str(DATAGEN), "adult", "--rows", str(rows), "--seed",
                    str(seed), "--out", str(out)], check=True, capture_output=True)
    return out


def close_out_of_core(window) -> None:
    """After a test: stop the window's out-of-core workers (sorting, paging, counting)
    and drop the data."""
    window.configure.data.model.stop_sorting()
    window.configure.data.model.rows.wait()
    window.files.stop_background()
    window.document.clear_data()


@pytest.fixture(scope="module")
def adult_like(tmp_path_factory) -> Path:
    return generate_adult_like(tmp_path_factory, "big")


@pytest.fixture(autouse=True)
def _close_data(window):
    yield
    close_out_of_core(window)


def open_out_of_core(qtbot, window, path: Path):
    AppSettings().memory_share = 1e-9  # any file is "too big" now
    spec = ImportSpec("csv", str(path), csv_format=CsvFormat(";"))
    with qtbot.waitSignal(window.files.loaded, timeout=30_000):
        window.files.import_spec(spec)
    doc = window.document
    assert doc.out_of_core and doc.table is None
    if doc.row_count is None:
        qtbot.waitSignal(doc.rows_counted, timeout=30_000).wait()
    return doc


def test_paged_view_is_served_by_duckdb(qtbot, window, adult_like, monkeypatch):
    from engine.backends.browse import OutOfCoreData
    # the rows are counted in a worker: held until the view has been seen while counting
    # (on a fast machine the count could otherwise end before the first look)
    counting = threading.Event()
    count_rows = OutOfCoreData.count_rows

    def held_count(data):
        assert counting.wait(600), "the test never let the count go on"
        return count_rows(data)

    monkeypatch.setattr(OutOfCoreData, "count_rows", held_count)
    AppSettings().memory_share = 1e-9
    try:
        with qtbot.waitSignal(window.files.loaded, timeout=60_000):
            window.files.import_spec(ImportSpec("csv", str(adult_like / "adult.csv"),
                                                csv_format=CsvFormat(";")))
        doc = window.document
        model = window.configure.data.model
        # the first block is shown while the rows are counted, then the others are added
        assert model.rowCount() == model.rows.block_rows
        assert "counting rows" in window.data_label.text()
        assert window.configure.data.view.isColumnHidden(0)  # no subset ticks out of core
        with qtbot.waitSignal(model.rowsInserted, timeout=60_000):
            counting.set()
    finally:
        counting.set()
    assert doc.row_count == ROWS
    assert window.data_label.text().startswith("Out of core (DuckDB) · 3,000 rows")
    model = window.configure.data.model
    assert model.rowCount() == ROWS
    expected = pd.read_csv(adult_like / "adult.csv", sep=";", dtype=str,
                           keep_default_na=False)
    row = 2345
    first = [model.data(model.index(row, c)) for c in range(1, model.columnCount())]
    assert set(first) == {"…"}  # fetched in the worker, not in the GUI thread
    qtbot.waitUntil(lambda: all(model.data(model.index(r, c)) != "…"
                                for r in range(row, row + 30)
                                for c in range(1, model.columnCount())), timeout=60_000)
    shown = [model.data(model.index(r, c)) for r in range(row, row + 30)
             for c in range(1, model.columnCount())]
    names = [model.attribute_at(c) for c in range(1, model.columnCount())]
    assert shown == [expected.at[r, n] for r in range(row, row + 30) for n in names]
    # rows in windows (ten million header sections would stall the view): Go to row
    panel = window.configure.data
    model.row_window = 1000
    panel.go_to.setValue(2901)
    assert model.row_start == 2000 and model.rowCount() == ROWS - 2000
    assert model.headerData(900, Qt.Orientation.Vertical) == "2901"
    assert panel.view.currentIndex().row() == 900
    assert panel.row_pager.label.text() == "Rows 2,001–3,000 of 3,000"
    qtbot.waitUntil(lambda: model.data(model.index(900, 1)) != "…", timeout=60_000)
    assert [model.data(model.index(900, c)) for c in range(1, model.columnCount())] == \
        [expected.at[2900, n] for n in names]


def test_journey_configure_anonymize_export_out_of_core(qtbot, window, adult_like, tmp_path,
                                                        capsys, messages):

    from engine.cli import main as cli_main
    from engine.config import QUASI_IDENTIFYING, SENSITIVE
    from tests.app.test_journeys import add_model_through_dialog, anonymize, export, set_type
    doc = open_out_of_core(qtbot, window, adult_like / "adult.csv")
    qis = ("age", "sex", "race", "marital-status", "education")
    set_type(window, qis, QUASI_IDENTIFYING)
    set_type(window, ("salary-class",), SENSITIVE)
    conf = window.configure
    hierarchies = SHARED / "data" / "adult"
    for name in qis:
        conf.attributes.select([name])
        assert conf.hierarchy.load_file(hierarchies / f"adult_hierarchy_{name}.csv")
    # the hierarchy's coverage is checked against DuckDB's distinct values, in a worker
    assert doc.hierarchy_status("education").unchecked
    doc.request_distinct(list(qis))
    assert doc.wait_for_queries()
    qtbot.waitUntil(lambda: not doc.hierarchy_status("education").unchecked, timeout=60_000)
    assert doc.hierarchy_status("education").complete
    add_model_through_dialog(window, "k-anonymity", k=5)
    conf.privacy.suppression.setValue(4.0)
    assert doc.check_job() is None
    result = anonymize(qtbot, window)
    assert result.problem.backend is not None and result.problem.backend.name == "duckdb"
    # the frequency table, not the records: fewer rows than records, weights sum to them
    assert result.problem.table.n_rows < ROWS == result.problem.table.n_records
    out = export(qtbot, window, tmp_path / "released.csv")
    job_path = verify_export(doc, out, tmp_path, capsys)
    # byte for byte the in-memory release of the same job
    job = doc.build_job()
    memory = in_memory(job)
    assert memory.problem.backend is None
    assert memory.optimum.levels == result.optimum.levels
    memory.write_output(tmp_path / "memory.csv")
    assert out.read_bytes() == (tmp_path / "memory.csv").read_bytes()
    # what the document serves as the release (a query on the file) is the export's rows
    exported = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    page = doc.released_page(1500, 60)
    assert page.astype(str).equals(exported.iloc[1500:1560].reset_index(drop=True))
    # the export dialog offers what DuckDB writes; Parquet through it passes verify too
    from app.widgets.export_dialog import ExportDialog
    dialog = ExportDialog(tmp_path, ";", out_of_core=True)
    qtbot.addWidget(dialog)
    assert [dialog.format.itemData(i) for i in range(dialog.format.count())] == \
        ["csv", "parquet"]
    dialog.format.setCurrentIndex(1)
    dialog.path.setText(str(tmp_path / "released.parquet"))
    # the value mapping is written out of core too (the report and pseudonym table not)
    assert dialog.with_mapping.isEnabled() and not dialog.with_report.isEnabled()
    dialog.with_mapping.setChecked(True)  # then share/ and internal/ of a release folder
    dialog.release_folder.setText(str(tmp_path / "release"))
    request = dialog.build_request()
    with qtbot.waitSignal(window.files.exported, timeout=60_000):
        window.files.export_release(request)
    from engine.export.mapping import apply_mapping, value_mapping
    expected = value_mapping(memory.problem, [memory.optimum.levels[q] for q in
                                              memory.problem.qis], memory.transformed())
    mapping = tmp_path / "release" / "internal" / "released-mapping"
    rows = pd.read_csv(mapping / "suppressed_rows.csv", sep=";").iloc[:, 0]
    assert rows.tolist() == expected.suppressed_rows.tolist()
    source = pd.read_csv(adult_like / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    tables = {q: pd.read_csv(mapping / f"{q}.csv", sep=";", dtype=str,
                             keep_default_na=False) for q in qis}
    assert apply_mapping(source, tables, rows.to_numpy()).equals(exported[list(qis)])
    capsys.readouterr()
    shared = tmp_path / "release" / "share" / "released.parquet"
    assert cli_main(["verify", str(shared), str(job_path)]) == 0, capsys.readouterr()
    assert (tmp_path / "release" / "internal" / "released-job.toml").is_file()
    parquet = pd.read_parquet(shared).fillna("")
    assert parquet.astype(str).equals(exported)
    # the project keeps the data's path and backend, not its rows, and reopens out of core
    with qtbot.waitSignal(window.files.saved, timeout=30_000):
        window.files.save_to(tmp_path / "big.anonymist")
    import zipfile
    with zipfile.ZipFile(tmp_path / "big.anonymist") as z:
        assert "data.csv" not in z.namelist()
    from app.main_window import MainWindow
    again = MainWindow(AppSettings())
    qtbot.addWidget(again)
    try:
        with qtbot.waitSignal(again.files.loaded, timeout=60_000):
            again.files.open_path(tmp_path / "big.anonymist")
        d2 = again.document
        assert d2.out_of_core and d2.table is None
        assert d2.source.location == str(adult_like / "adult.csv")
        assert d2.result is not None, f"the result was not restored: {messages}"
        assert d2.result.optimum.levels == result.optimum.levels
        out2 = export(qtbot, again, tmp_path / "released-again.csv")
        assert out2.read_bytes() == out.read_bytes()
    finally:
        again.search.wait_all(10_000)
        again.files.tasks.wait_all(10_000)
        again.files.stop_background()
        again.document.clear_data()


def test_guided_release_says_it_needs_the_records_in_memory(qtbot, window, adult_like):
    doc = open_out_of_core(qtbot, window, adult_like / "adult.csv")
    wizard = window.guided_release()
    qtbot.addWidget(wizard)
    page = wizard.pages[min(wizard.pages)]
    page.initializePage()
    assert "too big for memory" in page.summary.text()
    assert not page.isComplete()
    assert doc.out_of_core
    wizard.close()


def test_subset_query_counted_by_duckdb(qtbot, window, adult_like):
    doc = open_out_of_core(qtbot, window, adult_like / "adult.csv")
    dialog = window.configure.data.make_subset_dialog()
    qtbot.addWidget(dialog)
    assert dialog.tabs.isTabEnabled(1) and dialog.tabs.isTabEnabled(2)
    dialog.query.setText("sex = 'Female' and age > 40")
    dialog.accept()
    qtbot.waitUntil(lambda: doc.subset_spec is not None, timeout=60_000)
    frame = pd.read_csv(adult_like / "adult.csv", sep=";", dtype=str)
    n = int(((frame["sex"] == "Female") & (frame["age"].astype(int) > 40)).sum())
    assert dialog.status.text() == f"{n:,} of {ROWS:,} records selected"
    assert doc.subset_spec == {"query": "sex = 'Female' and age > 40"}
    assert doc.build_job().subset == {"query": "sex = 'Female' and age > 40"}


def test_subset_rows_file_checked_out_of_core(qtbot, window, adult_like, tmp_path):
    doc = open_out_of_core(qtbot, window, adult_like / "adult.csv")
    dialog = window.configure.data.make_subset_dialog()
    qtbot.addWidget(dialog)
    dialog.tabs.setCurrentIndex(1)
    bad = tmp_path / "bad.txt"
    bad.write_text(f"3\n{ROWS}\n")
    dialog.rows_file.setText(str(bad))
    dialog.accept()
    qtbot.waitUntil(lambda: "outside" in dialog.status.text(), timeout=60_000)
    assert f"row index {ROWS} is outside the data (0..{ROWS - 1})" in dialog.status.text()
    dialog.rows_file.setText(str(tmp_path / "missing.txt"))
    dialog.preview()
    qtbot.waitUntil(lambda: "cannot be read" in dialog.status.text(), timeout=60_000)
    assert "missing.txt" in dialog.status.text()
    text = tmp_path / "text.txt"
    text.write_text("1\nseven\n")
    dialog.rows_file.setText(str(text))
    dialog.preview()
    qtbot.waitUntil(lambda: "not a row index" in dialog.status.text(), timeout=60_000)
    assert "text.txt line 2: 'seven'" in dialog.status.text()
    assert doc.subset_spec is None
    good = tmp_path / "rows.txt"
    good.write_text("\n".join(str(i) for i in [5, 5, 0, ROWS - 1, 17]) + "\n")
    dialog.rows_file.setText(str(good))
    dialog.accept()
    qtbot.waitUntil(lambda: doc.subset_spec is not None, timeout=60_000)
    assert dialog.status.text() == f"4 of {ROWS:,} records selected"
    assert doc.build_job().subset == {"rows": str(good)}
    # the project keeps those rows (not a path to a file that may go) and reopens with them
    with qtbot.waitSignal(window.files.saved, timeout=30_000):
        window.files.save_to(tmp_path / "rows.anonymist")
    good.unlink()
    from app.main_window import MainWindow
    again = MainWindow(AppSettings())
    qtbot.addWidget(again)
    try:
        with qtbot.waitSignal(again.files.loaded, timeout=60_000):
            again.files.open_path(tmp_path / "rows.anonymist")
        d2 = again.document
        assert d2.out_of_core and d2.table is None
        subset = d2.build_job().subset
        assert list(subset) == ["indices"] and list(subset["indices"]) == [0, 5, 17, ROWS - 1]
    finally:
        again.files.tasks.wait_all(10_000)
        again.files.stop_background()
        again.document.clear_data()


def test_journey_sample_subset_out_of_core(qtbot, window, adult_like, tmp_path, capsys):
    """A random sample chosen out of core: counted as the engine draws it, anonymized
    by DuckDB, exported, verified, and equal to the in-memory release byte for byte."""

    from engine.config import QUASI_IDENTIFYING
    from engine.subset import sample_mask
    from tests.app.test_journeys import add_model_through_dialog, anonymize, export, set_type
    doc = open_out_of_core(qtbot, window, adult_like / "adult.csv")
    dialog = window.configure.data.make_subset_dialog()
    qtbot.addWidget(dialog)
    dialog.tabs.setCurrentIndex(2)
    dialog.share.setValue(30.0)
    dialog.seed.setValue(11)
    dialog.accept()
    qtbot.waitUntil(lambda: doc.subset_spec is not None, timeout=60_000)
    n = int(sample_mask(ROWS, 0.3, 11).sum())
    assert dialog.status.text() == f"{n:,} of {ROWS:,} records selected"
    assert doc.build_job().subset == {"sample": 0.3, "seed": 11}
    qis = ("age", "sex", "race")
    set_type(window, qis, QUASI_IDENTIFYING)
    conf = window.configure
    for name in qis:
        conf.attributes.select([name])
        assert conf.hierarchy.load_file(SHARED / "data" / "adult"
                                        / f"adult_hierarchy_{name}.csv")
    doc.request_distinct(list(qis))
    assert doc.wait_for_queries()
    add_model_through_dialog(window, "k-anonymity", k=5)
    conf.privacy.suppression.setValue(4.0)
    assert doc.check_job() is None
    result = anonymize(qtbot, window)
    assert result.problem.backend is not None and result.problem.backend.name == "duckdb"
    out = export(qtbot, window, tmp_path / "released.csv")
    verify_export(doc, out, tmp_path, capsys)
    job = doc.build_job()
    memory = in_memory(job)
    assert memory.problem.backend is None
    memory.write_output(tmp_path / "memory.csv")
    assert out.read_bytes() == (tmp_path / "memory.csv").read_bytes()


def test_hierarchy_wizard_gets_distinct_values_from_duckdb(qtbot, window, adult_like,
                                                           monkeypatch):
    """Create… on an attribute out of core: its distinct values and their record counts
    are counted by DuckDB in a worker, then the wizard opens on them and builds a
    hierarchy that covers the data."""
    from PySide6.QtWidgets import QWizard

    from app.wizards import hierarchy as wizards
    doc = open_out_of_core(qtbot, window, adult_like / "adult.csv")
    frame = pd.read_csv(adult_like / "adult.csv", sep=";", dtype=str)
    seen = {}

    def drive(parent, columns, data_type=None, existing=None, spec=None):
        seen.update(columns)
        wizard = wizards.HierarchyWizard(columns, data_type, existing, spec, parent)
        qtbot.addWidget(wizard)
        wizard.show()
        wizard.start_page.choices["intervals"].setChecked(True)
        qtbot.mouseClick(wizard.button(QWizard.WizardButton.NextButton),
                         Qt.MouseButton.LeftButton)
        with qtbot.waitSignal(wizard.finished_with, timeout=60_000) as blocker:
            qtbot.mouseClick(wizard.button(QWizard.WizardButton.FinishButton),
                             Qt.MouseButton.LeftButton)
        return dict(blocker.args[0])

    monkeypatch.setattr(wizards, "run_hierarchy_wizard", drive)
    doc.update_attributes(["age"], data_type="integer")
    window.configure.attributes.select(["age"])
    window.create_hierarchy("age")
    qtbot.waitUntil(lambda: "age" in seen, timeout=30_000)
    column = seen["age"]
    counts = frame["age"].value_counts()
    assert dict(zip(column.dictionary, column.value_counts().tolist())) == \
        {v: int(counts[v]) for v in counts.index}
    qtbot.waitUntil(lambda: doc.hierarchy_status("age").complete, timeout=60_000)


def test_settings_edit_the_out_of_core_threshold(qtbot):
    from app.widgets.settings_dialog import SettingsDialog
    settings = AppSettings()
    assert settings.memory_share == 0.25 and settings.memory_limit is None
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    dialog.memory_share.setValue(5.0)
    dialog.memory_limit.setText("4 gigs")
    dialog.accept()
    assert "not a size" in dialog.error.text() and settings.memory_share == 0.25
    dialog.memory_limit.setText("4GB")
    dialog.accept()
    assert settings.memory_share == 0.05 and settings.memory_limit == "4GB"
    engine = settings.engine_config()
    assert (engine.memory_share, engine.memory_limit) == (0.05, "4GB")


def test_settings_ok_keeps_a_share_the_box_cannot_show(qtbot):
    """A stored share below the box's 0.01 % (set in a job or another version) is shown
    clamped; OK without editing it must not rewrite it to 0.01 %."""
    from app.widgets.settings_dialog import SettingsDialog
    settings = AppSettings()
    settings.memory_share = 1e-9
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    dialog.page_size.setValue(50)
    dialog.accept()
    assert settings.memory_share == 1e-9 and settings.page_size == 50
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    dialog.memory_share.setValue(30.0)
    dialog.accept()
    assert settings.memory_share == 0.3
