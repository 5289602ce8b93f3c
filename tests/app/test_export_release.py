"""Export journeys: the sample project anonymized, exported through the export dialog
to Excel with its value mapping and report, and to a database table; each exported
table read back, compared with the table the app shows and verified independently."""
from __future__ import annotations

import json

import pytest

import pandas as pd

from engine.cli import main
from engine.export.mapping import apply_mapping, read_mapping
from engine.export.targets import DatabaseTarget, file_target, read_table
from engine.verify import verify_frame
from tests.app.conftest import open_sample


def _anonymized(qtbot, window):
    open_sample(qtbot, window)
    with qtbot.waitSignal(window.search.finished, timeout=120_000):
        window.actions["anonymize"].trigger()
    assert window.document.result.optimum is not None
    return window.document.result


def _export(qtbot, window, dialog):
    dialog.accept()
    assert dialog.request is not None, dialog.error.text()
    with qtbot.waitSignal(window.files.exported, timeout=120_000) as blocker:
        window.files.export_release(dialog.request)
    return blocker.args[0]


def test_export_xlsx_with_mapping_and_report(qtbot, window, tmp_path, messages):
    from app.widgets.export_dialog import ExportDialog
    result = _anonymized(qtbot, window)
    shown = result.transformed(window.document.applied_levels).frame.astype(str)
    dialog = ExportDialog(tmp_path, ";", True, window)
    qtbot.addWidget(dialog)
    dialog.format.setCurrentIndex(dialog.format.findData("xlsx"))
    assert dialog.path.text().endswith(".xlsx") and not dialog.csv_box.isVisibleTo(dialog)
    dialog.path.setText(str(tmp_path / "release.xlsx"))
    dialog.with_mapping.setChecked(True)
    dialog.with_report.setChecked(True)
    dialog.release_folder.setText(str(tmp_path / "release"))
    share, internal = tmp_path / "release" / "share", tmp_path / "release" / "internal"
    assert str(share / "release.xlsx") in dialog.table_place.text()
    written = _export(qtbot, window, dialog)
    assert written.verified is True
    # share/: the table and the public report; internal/: job, hierarchies, mapping, report
    assert sorted(p.name for p in share.iterdir()) == [
        "README.txt", "release-report.json", "release-report.pdf", "release.xlsx"]
    assert {"README.txt", "release-job.toml", "release-mapping", "release-report-full.pdf",
            "release-report-full.json"} <= {p.name for p in internal.iterdir()}
    back = read_table(file_target(share / "release.xlsx"))
    pd.testing.assert_frame_equal(back, shown, check_dtype=False)
    job = window.document.build_job()
    assert verify_frame(back, job).ok
    # the CLI's verify on the same table written as CSV
    back.to_csv(tmp_path / "back.csv", sep=";", index=False)
    from app.project_io import save_job_file
    save_job_file(window.document, tmp_path / "job.toml")
    assert main(["verify", str(tmp_path / "back.csv"), str(tmp_path / "job.toml")]) == 0
    tables, rows = read_mapping(internal / "release-mapping")
    source = result.problem.table.to_dataframe().astype(str)
    mapped = apply_mapping(source, tables, rows)
    pd.testing.assert_frame_equal(mapped, shown[list(tables)], check_dtype=False)
    report = json.loads((internal / "release-report-full.json").read_text())
    assert report["output"]["rows"] == len(shown)
    assert report["verification"]["of"] == "the table read back from its target"
    assert (internal / "release-report-full.pdf").read_bytes().startswith(b"%PDF")
    public = json.loads((share / "release-report.json").read_text())
    assert public["scope"] == "public" and public["certificate"] == report["certificate"]
    # the shared table, under the internal job, is the one the shared report certifies
    assert main(["verify", str(share / "release.xlsx"), str(internal / "release-job.toml"),
                 "--report", str(share / "release-report.json")]) == 0


def test_export_csv_options_and_database(qtbot, window, tmp_path, messages):
    from app.widgets.export_dialog import ExportDialog
    result = _anonymized(qtbot, window)
    shown = result.transformed(window.document.applied_levels).frame.astype(str)
    dialog = ExportDialog(tmp_path, ";", True, window)
    qtbot.addWidget(dialog)
    dialog.path.setText(str(tmp_path / "out.csv"))
    dialog.delimiter.setCurrentIndex(dialog.delimiter.findText(","))
    dialog.quoting.setCurrentIndex(dialog.quoting.findData("all"))
    dialog.line_ending.setCurrentIndex(dialog.line_ending.findData("crlf"))
    _export(qtbot, window, dialog)
    raw = (tmp_path / "out.csv").read_bytes()
    assert raw.startswith(b'"') and b'","' in raw and b"\r\n" in raw
    from engine.export.targets import CsvOptions
    back = read_table(file_target(tmp_path / "out.csv", CsvOptions(",", "all")))
    pd.testing.assert_frame_equal(back, shown, check_dtype=False)

    url = f"sqlite:///{tmp_path / 'out.db'}"
    dialog = ExportDialog(tmp_path, ";", True, window)
    qtbot.addWidget(dialog)
    dialog.format.setCurrentIndex(dialog.format.findData("database"))
    dialog.accept()
    assert "database URL" in dialog.error.text()  # refused with a message, not closed
    dialog.url.setText(url)
    dialog.table.setText("released")
    _export(qtbot, window, dialog)
    back = read_table(DatabaseTarget(url, "released"))
    pd.testing.assert_frame_equal(back, shown, check_dtype=False)
    assert verify_frame(back, window.document.build_job()).ok
    # a second export to the same table is refused with a message naming it
    dialog = ExportDialog(tmp_path, ";", True, window)
    qtbot.addWidget(dialog)
    dialog.format.setCurrentIndex(dialog.format.findData("database"))
    dialog.url.setText(url)
    dialog.table.setText("released")
    dialog.accept()
    with qtbot.waitSignal(window.files.tasks.failed, timeout=60_000):
        window.files.export_release(dialog.request)
    assert any("exists already" in text for _, text in messages)


def test_cancelled_export_leaves_nothing(qtbot, window, tmp_path, messages):
    from engine.release_docs.writer import ReleaseRequest
    _anonymized(qtbot, window)
    target = file_target(tmp_path / "big.xlsx", batch_rows=500)
    with qtbot.waitSignal(window.files.tasks.failed, timeout=120_000):
        window.files.export_release(ReleaseRequest(target, report=tmp_path / "r.pdf"))
        window.files.tasks.cancel()
    assert list(tmp_path.iterdir()) == []
    assert not messages  # a cancel is not an error
    assert "cancelled" in window.statusBar().currentMessage()


def test_export_dialog_warns_of_columns_released_unchanged(qtbot, window, monkeypatch,
                                                          messages):
    """File > Export data names the insensitive columns the export writes as they are
    (the same list as Configure's attribute warnings), before anything is written."""
    from app.widgets.export_dialog import ExportDialog
    open_sample(qtbot, window)
    doc = window.document
    doc.update_attributes(["salary-class"], type="insensitive")
    with qtbot.waitSignal(window.search.finished, timeout=120_000):
        window.actions["anonymize"].trigger()
    result = doc.result
    seen = []

    def fake_exec(dialog):
        seen.append((dialog.verbatim.isVisibleTo(dialog), dialog.verbatim.text()))
        return 0  # cancelled: nothing exported

    monkeypatch.setattr(ExportDialog, "exec", fake_exec)
    monkeypatch.setattr(window.files, "export_release",
                        lambda *a, **k: pytest.fail("nothing is exported on Cancel"))
    # recounted from the released table: columns whose released values equal the input's
    released = result.transformed(doc.applied_levels).frame.astype(str)
    source = result.problem.table.to_dataframe().astype(str)
    unchanged = [c for c in released.columns if released[c].equals(source[c])
                 and doc.attribute(c).type == "insensitive"]
    assert unchanged == ["salary-class"]
    window.files.export_dialog()
    visible, text = seen[-1]
    assert visible and text.startswith("⚠ Released unchanged")
    for name in unchanged[:6]:
        assert name in text
    # marked Identifying: it is removed, and the warning no longer names it
    doc.update_attributes(unchanged, type="identifying")
    window.files.export_dialog()
    visible, text = seen[-1]
    assert not visible and text == ""


def test_exporting_a_transformation_that_is_not_anonymous_asks_first(qtbot, window, tmp_path,
                                                                      messages, monkeypatch):
    """A transformation applied in Explore that fails the models (here: no generalization,
    three quarters of the records suppressed against a 4 % limit) is not exported without
    a question; exported anyway, `anonymist verify` indeed refuses it. The optimum applied
    back is exported without a question and verifies."""
    from PySide6.QtWidgets import QMessageBox

    from app.project_io import save_job_file
    from app.widgets.export_dialog import ExportDialog
    from tests.app.test_journeys import read_export
    opened = []

    def run_dialog(dialog):  # the export dialog as a person fills it in
        opened.append(dialog)
        dialog.path.setText(str(tmp_path / f"out{len(opened)}.csv"))
        dialog.accept()
        return dialog.request is not None

    monkeypatch.setattr(ExportDialog, "exec", run_dialog)
    result = _anonymized(qtbot, window)
    explore = window.perspectives["explore"]
    bottom = tuple(0 for _ in result.problem.qis)
    with qtbot.waitSignal(explore.transformation_applied, timeout=60_000):
        explore.apply_levels(bottom)
    assert not window.document.current_transformation().anonymous
    save_job_file(window.document, tmp_path / "job.toml")
    # the steward says no (the box's default): nothing is opened, nothing written
    window.actions["export_data"].trigger()
    assert [t for t, _ in messages] == ["Export data that is not anonymous?"]
    assert "fail 'anonymist verify'" in messages[0][1] and opened == []
    assert not list(tmp_path.glob("out*.csv"))
    # exported anyway: the file is what the app showed, and verify refuses it as warned
    messages.answer = QMessageBox.StandardButton.Yes
    with qtbot.waitSignal(window.files.exported, timeout=120_000):
        window.actions["export_data"].trigger()
    shown = result.transformed(bottom).frame.astype(str).reset_index(drop=True)
    pd.testing.assert_frame_equal(read_export(tmp_path / "out1.csv"), shown, check_dtype=False)
    assert main(["verify", str(tmp_path / "out1.csv"), str(tmp_path / "job.toml")]) == 1
    # the optimum applied back: no question, and the export verifies
    del messages[:]
    optimum = tuple(result.optimum.levels[q] for q in result.problem.qis)
    with qtbot.waitSignal(explore.transformation_applied, timeout=60_000):
        explore.apply_levels(optimum)
    with qtbot.waitSignal(window.files.exported, timeout=120_000):
        window.actions["export_data"].trigger()
    assert messages == []
    shown = result.transformed(optimum).frame.astype(str).reset_index(drop=True)
    pd.testing.assert_frame_equal(read_export(tmp_path / "out2.csv"), shown, check_dtype=False)
    assert main(["verify", str(tmp_path / "out2.csv"), str(tmp_path / "job.toml")]) == 0


def test_export_dialog_formula_cells_from_the_declaration(qtbot, window, tmp_path):
    """The CSV options offer the declared formula-cell policies (engine.formulas), the
    declared default first chosen; the choice reaches the export's CSV options."""
    from app.widgets.export_dialog import ExportDialog
    from engine.formulas import FORMULA_CELLS
    dialog = ExportDialog(tmp_path, ";", True, window)
    qtbot.addWidget(dialog)
    combo = dialog.formula_cells
    assert [combo.itemData(i) for i in range(combo.count())] == list(FORMULA_CELLS.choices)
    assert combo.currentData() == FORMULA_CELLS.default == "quote"
    combo.setCurrentIndex(combo.findData("refuse"))
    dialog.path.setText(str(tmp_path / "out.csv"))
    dialog.accept()
    assert dialog.request is not None, dialog.error.text()
    assert dialog.request.target.csv.formula_cells == "refuse"


def test_export_success_stays_on_screen_with_its_files(qtbot, window, tmp_path, messages):
    """The notice above the perspectives names every file written and its folder, with
    the check's verdict, until closed (the status bar clipped it and forgot it)."""
    from app.widgets.export_dialog import ExportDialog
    _anonymized(qtbot, window)
    dialog = ExportDialog(tmp_path, ";", True, window)
    qtbot.addWidget(dialog)
    dialog.path.setText(str(tmp_path / "release.csv"))
    dialog.with_report.setChecked(True)
    dialog.release_folder.setText(str(tmp_path / "release"))
    written = _export(qtbot, window, dialog)
    notice = window.notice
    assert not notice.isHidden()
    text = notice.text.text()
    # where, then the files by folder: what may be shared first
    shared, inside = text.split(" · ")[0].split("; ")
    assert shared.startswith(f"Exported to {tmp_path / 'release'}: share/ release.csv, ")
    assert "release-report.pdf" in shared and "README.txt" in shared
    assert inside.startswith("internal/ ") and "release-report-full.pdf" in inside
    assert "independently verified" in text and written.verified is True
    assert notice.folder == tmp_path / "release" and not notice.open_folder.isHidden()
    # the status bar says it short (a line of nine names was cut at 1280 px)
    message = window.statusBar().currentMessage()
    assert message.startswith("Exported release.csv and ") and "more files" in message
    assert "independently verified" in message
    assert window.statusBar().fontMetrics().horizontalAdvance(message) < 900
    notice.close_button.click()
    assert notice.isHidden()
    shared = tmp_path / "release" / "share" / "release.csv"
    assert main(["verify", str(shared), str(_job(window, tmp_path))]) == 0


def _job(window, folder):
    from app.project_io import save_job_file
    save_job_file(window.document, folder / "job.toml")
    return folder / "job.toml"
