"""A data steward's journeys through the window, each ending in an exported file that
``anonymist verify`` accepts, that equals the Utility view's output cell for cell, and
that a saved and reopened project exports again byte for byte.

(a) Adult (its first rows) imported through the import wizard, attribute types set in
    Configure, hierarchies loaded from CSV and one (age) built in the hierarchy wizard,
    5-anonymity added through the model dialog, anonymized, a non-optimal anonymous
    transformation applied in Explore, exported.
(b) The sample project with distinct 2-diversity instead of k-anonymity.
"""
from __future__ import annotations

import stat
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWizard

from app.project_io import save_job_file
from engine.cli import main as cli_main
from engine.config import IDENTIFYING, QUASI_IDENTIFYING, SENSITIVE
from engine.io_utils import current_umask
from tests.app.conftest import ADULT, open_sample

ROWS = 2000
LOADED = ("sex", "race", "education", "marital-status")


# --- steps ---------------------------------------------------------------------------------
def import_through_wizard(qtbot, window, path):
    wizard = window.files.make_import_wizard(str(path))
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.next()
    assert wizard.currentPage() is wizard.format_page
    assert wizard.format_page.delimiter.currentText() == ";"
    wizard.next()
    assert wizard.currentPage() is wizard.columns_page
    spec = wizard.spec()
    wizard.close()
    with qtbot.waitSignal(window.files.loaded, timeout=30_000):
        window.files.import_spec(spec)
    return window.document.table


def set_type(window, names, kind):
    attrs = window.configure.attributes
    attrs.select(list(names))
    attrs.type.setCurrentIndex(attrs.type.findData(kind))
    attrs.type.activated.emit(attrs.type.currentIndex())


def build_hierarchy_in_wizard(qtbot, window, monkeypatch, name):
    """Configure > Create… on ``name``: the hierarchy wizard's interval page, as suggested."""
    from app.wizards import hierarchy as wizards

    def drive(parent, columns, data_type=None, existing=None, spec=None):
        wizard = wizards.HierarchyWizard(columns, data_type, existing, spec, parent)
        qtbot.addWidget(wizard)
        wizard.show()
        qtbot.waitExposed(wizard)
        wizard.start_page.choices["intervals"].setChecked(True)
        qtbot.mouseClick(wizard.button(QWizard.WizardButton.NextButton),
                         Qt.MouseButton.LeftButton)
        with qtbot.waitSignal(wizard.finished_with, timeout=60_000) as blocker:
            qtbot.mouseClick(wizard.button(QWizard.WizardButton.FinishButton),
                             Qt.MouseButton.LeftButton)
        return dict(blocker.args[0])

    monkeypatch.setattr(wizards, "run_hierarchy_wizard", drive)
    window.configure.attributes.select([name])
    window.create_hierarchy(name)
    status = window.document.hierarchy_status(name)
    assert status.complete and status.height >= 2, status.text()


def add_model_through_dialog(window, model: str, **values):
    dialog = window.configure.privacy.make_dialog()
    dialog.set_model(model)
    assert dialog.model_name == model
    for key, value in values.items():
        editor = dialog.form.editors[key]
        if hasattr(editor, "findData"):
            editor.setCurrentIndex(editor.findData(value))
            assert editor.currentData() == value
        else:
            editor.setValue(value)
    dialog.accept()
    assert dialog.result() == dialog.DialogCode.Accepted, dialog.error.text()
    window.configure.privacy.add_model(dialog.value())


def anonymize(qtbot, window):
    with qtbot.waitSignal(window.search.finished, timeout=120_000):
        window.actions["anonymize"].trigger()
    result = window.document.result
    assert result is not None and result.optimum is not None
    return result


def other_anonymous(result) -> tuple[int, ...]:
    """A checked anonymous transformation that is not the optimum (the one with the
    least loss among them), else the top of the lattice."""
    space = result.space
    found = [(loss, node) for node, loss in space.losses.items()
             if node != space.optimum_id and space.info(node).state == "anonymous"]
    if found:
        node = min(found, key=lambda t: np.atleast_1d(t[0]).tolist())[1]
        return tuple(result.lattice.levels_of(node))
    return tuple(int(v) for v in result.lattice.top)


def apply_in_explore(qtbot, window, levels):
    explore = window.perspectives["explore"]
    with qtbot.waitSignal(explore.transformation_applied, timeout=60_000):
        explore.apply_levels(levels)
    current = window.document.current_transformation()
    assert current.applied and current.anonymous
    explore.select_levels(levels)
    assert "applied: the current output" in explore.properties.title.text()
    assert tuple(current.levels.values()) == tuple(levels)
    return current


def set_adult_qis(window, qis) -> None:
    """Make ``qis`` quasi-identifying in Configure, each with its shared Adult hierarchy."""
    set_type(window, qis, QUASI_IDENTIFYING)
    for name in qis:
        window.configure.attributes.select([name])
        assert window.configure.hierarchy.load_file(ADULT / f"adult_hierarchy_{name}.csv")


def release_out_of_core_as_in_memory(qtbot, window, tmp_path, capsys,
                                     qis=("age", "sex", "race")) -> Path:
    """Adult quasi-identifiers and 5-anonymity set through the GUI, anonymized through
    DuckDB, exported, passed by ``anonymist verify`` and byte-identical to the same
    job's in-memory release; the exported file."""
    set_adult_qis(window, qis)
    add_model_through_dialog(window, "k-anonymity", k=5)
    result = anonymize(qtbot, window)
    assert result.problem.backend is not None
    out = export(qtbot, window, tmp_path / "released.csv")
    verify_export(window.document, out, tmp_path, capsys)
    in_memory(window.document.build_job()).write_output(tmp_path / "memory.csv")
    assert out.read_bytes() == (tmp_path / "memory.csv").read_bytes()
    return out


def verify_export(doc, out, tmp_path, capsys) -> Path:
    """Save the document's job beside the release and check the release with
    ``anonymist verify`` (exit 0: it holds the job's models); the job file's path."""
    job_path = tmp_path / "job.toml"
    save_job_file(doc, job_path)
    capsys.readouterr()
    assert cli_main(["verify", str(out), str(job_path)]) == 0, capsys.readouterr()
    return job_path


def in_memory(job):
    """The same job anonymized in memory (the reference for the out-of-core paths)."""
    import dataclasses

    import engine
    return engine.anonymize(None, dataclasses.replace(
        job, engine=dataclasses.replace(job.engine, backend="memory")))


def export(qtbot, window, path):
    with qtbot.waitSignal(window.files.exported, timeout=60_000):
        window.files.export_to(path)
    return path


def output_cells(model) -> pd.DataFrame:
    """The Utility output table's cells, read through the Qt model, in data order."""
    cols = {}
    for page in range(model.page_count):
        model.set_page(page)
        rows = np.array([model.source_row(r) for r in range(model.rowCount())])
        order = np.argsort(rows)
        for c in range(model.columnCount()):
            name = model.headerData(c, Qt.Orientation.Horizontal)
            cells = [model.data(model.index(r, c)) for r in range(model.rowCount())]
            cols[name] = [cells[i] for i in order]
    model.set_page(0)
    return pd.DataFrame(cols)


def read_export(path) -> pd.DataFrame:
    return pd.read_csv(path, sep=";", dtype=str, keep_default_na=False)


def released_and_reopened(qtbot, window, tmp_path, capsys):
    """Apply, export, verify, compare with Utility; save, reopen, export again."""
    doc = window.document
    result = doc.result
    levels = other_anonymous(result)
    assert levels != result.levels_of(None)
    current = apply_in_explore(qtbot, window, levels)
    out = export(qtbot, window, tmp_path / "released.csv")
    # the notice above the perspectives names the transformation written (the status
    # bar's line is short: the file and how many more)
    message = window.notice.text.text()
    assert "applied" in message and current.levels_text in message
    assert window.statusBar().currentMessage().startswith("Exported released.csv")
    # an ordinary file: 0666 less the umask (0644 under 022), not a temporary file's 0600
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~current_umask()
    # the file is what the document says it releases, and passes the independent check
    exported = read_export(out)
    assert exported.equals(doc.released().frame.astype(str).reset_index(drop=True))
    save_job_file(doc, tmp_path / "job.toml")
    capsys.readouterr()
    assert cli_main(["verify", str(out), str(tmp_path / "job.toml")]) == 0, \
        capsys.readouterr()
    # ... and what Analyze utility shows, cell for cell
    utility = window.perspectives["utility"]  # built when first asked for: in a worker
    qtbot.waitUntil(lambda: getattr(utility.tables.output_model.view, "levels", None) == levels,
                    timeout=60_000)
    shown = output_cells(utility.tables.output_model)
    removed = [c for c in shown.columns if c not in exported.columns]
    assert removed == sorted(doc.released().removed, key=list(shown.columns).index)
    assert shown[list(exported.columns)].equals(exported)
    # the project keeps the result, the explored space, the applied transformation
    explore = window.perspectives["explore"]
    explore.keep_levels(levels)
    clipboard = explore.clipboard_state()
    assert clipboard
    with qtbot.waitSignal(window.files.saved, timeout=60_000):
        window.files.save_to(tmp_path / "project.anonymist")
    from app.main_window import MainWindow
    from app.settings import AppSettings
    again = MainWindow(AppSettings())
    qtbot.addWidget(again)
    try:
        with qtbot.waitSignal(again.files.loaded, timeout=60_000):
            again.files.open_path(tmp_path / "project.anonymist")
        d2 = again.document
        assert d2.result is not None, "the result was not restored"
        assert d2.applied_levels == levels
        assert d2.result.space.counts() == result.space.counts()
        assert d2.result.optimum.levels == result.optimum.levels
        assert again.perspectives["explore"].clipboard_state() == clipboard
        assert again.perspectives["explore"].applied_levels == levels
        # Explore as it was left: the search's curve, the applied transformation selected
        view2 = again.perspectives["explore"]
        assert view2.quality.state()["times"] == explore.quality.state()["times"]
        assert view2.nodes.levels_of(view2.current_row) == levels
        assert not d2.modified
        out2 = export(qtbot, again, tmp_path / "released-again.csv")
        assert out2.read_bytes() == out.read_bytes()
    finally:
        again.search.wait_all(10_000)
        again.files.tasks.wait_all(10_000)
        again.perspectives["explore"].shutdown()


# --- journeys ------------------------------------------------------------------------------
def test_journey_import_build_anonymize_apply_export_reopen(qtbot, window, tmp_path,
                                                           monkeypatch, messages, capsys):
    if not (ADULT / "adult.csv").exists():
        pytest.skip("../shared/data/adult is not available")
    data = tmp_path / "adult.csv"
    with open(ADULT / "adult.csv", encoding="utf-8") as src:
        data.write_text("".join(line for _, line in zip(range(ROWS + 1), src)))
    table = import_through_wizard(qtbot, window, data)
    assert table.n_rows == ROWS
    set_type(window, ("age",) + LOADED, QUASI_IDENTIFYING)
    set_type(window, ("workclass",), IDENTIFYING)
    set_type(window, ("salary-class",), SENSITIVE)
    conf = window.configure
    for name in LOADED:
        conf.attributes.select([name])
        assert conf.hierarchy.load_file(ADULT / f"adult_hierarchy_{name}.csv")
    build_hierarchy_in_wizard(qtbot, window, monkeypatch, "age")
    add_model_through_dialog(window, "k-anonymity", k=5)
    conf.privacy.suppression.setValue(4.0)
    assert window.document.check_job() is None
    anonymize(qtbot, window)
    released_and_reopened(qtbot, window, tmp_path, capsys)
    assert not messages, messages


def test_journey_sample_project_with_l_diversity(qtbot, window, tmp_path, messages, capsys):
    open_sample(qtbot, window)
    set_type(window, ("salary-class",), SENSITIVE)
    add_model_through_dialog(window, "distinct-l-diversity", attribute="salary-class", l=2)
    window.configure.privacy.remove_model(0)  # the sample's k-anonymity
    assert [p["model"] for p in window.document.settings.privacy] == ["distinct-l-diversity"]
    anonymize(qtbot, window)
    released_and_reopened(qtbot, window, tmp_path, capsys)
    assert not messages, messages


def test_journey_arx_files_beside_the_data(qtbot, window, tmp_path, messages, capsys):
    """Import Adult through the wizard with ARX's hierarchy files beside it: the import
    offers them, Configure loads them all in one click; nothing that needs data could be
    clicked before; the run is unsaved work; apply, export, verify, compare with Utility
    cell for cell, save, reopen (Explore as it was left), export again byte for byte."""
    import shutil
    for f in ADULT.glob("adult*.csv"):
        shutil.copy(f, tmp_path / f.name)
    assert not window.actions["anonymize"].isEnabled()
    assert not window.configure.anonymize_button.isEnabled()
    import_through_wizard(qtbot, window, tmp_path / "adult.csv")
    assert "hierarchy files named as ARX names them" in window.statusBar().currentMessage()
    editor = window.configure.hierarchy
    assert not editor.beside.isHidden()
    editor.beside.click()
    assert editor.beside.isHidden()
    qis = ["sex", "age", "race", "marital-status", "education"]
    set_type(window, qis, QUASI_IDENTIFYING)
    assert all(window.document.hierarchy_status(q).complete for q in qis)
    add_model_through_dialog(window, "k-anonymity", k=5)
    assert window.actions["anonymize"].isEnabled()
    anonymize(qtbot, window)
    assert window.document.modified  # a result is unsaved work
    assert window.configure.result.headline.text() == "Optimum found"
    released_and_reopened(qtbot, window, tmp_path, capsys)
    assert not messages, messages
