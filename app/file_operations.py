"""File menu work: open, save, import and export, each read or written in a worker."""
from __future__ import annotations

import tempfile
from importlib import resources
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWizard

from app import file_dialogs, hierarchies_beside
from app.document import Document
from app.project_file import EXTENSION, read_project, write_project
from app.project_io import (apply_snapshot, load_snapshot_table, restore_saved_result,
                            snapshot_from_job_file, snapshot_of, source_needs_password)
from app.settings import AppSettings
from app.source import DataSource
from app.widgets.dialogs import ask, show_error
from app.wizards.import_wizard import ImportWizard
from app.workers import SerialWorker, TaskController, TaskOutcome
from engine.data.sources import ImportSpec
from engine.saved_result import ResultMismatch

PROJECT_FILTER = f"Anonymist projects (*{EXTENSION});;Job files (*.toml);;" \
                 "ARX projects (*.deid);;" \
                 "Data files (*.csv *.tsv *.txt *.xlsx *.sqlite *.db);;All files (*)"
SAMPLE = ("sample", "adult.anonymist")


def arx_snapshot(path: Path):
    """An ARX project imported into a temporary folder (its job, data and hierarchies)
    and read as a job file; what could not be carried over is in the job's header."""
    from engine.project.arx_import import import_arx
    folder = Path(tempfile.mkdtemp(prefix="anonymist-arx-"))
    return snapshot_from_job_file(import_arx(path, folder).job_path)


class FileOperations(QObject):
    """Owns the I/O worker. ``loaded`` fires when a project, job or data finished loading."""

    loaded = Signal(str)
    saved = Signal(str)
    #: an export finished: engine.release_docs.writer.ReleaseWritten
    exported = Signal(object)
    #: a read or write through ``run`` began (its label, whether Cancel may abandon it) /
    #: ended: the window shows it in the status bar with a busy bar
    busy = Signal(str, bool)
    unbusy = Signal()

    def __init__(self, window, document: Document, settings: AppSettings):
        super().__init__(window)
        self.window = window
        self.doc = document
        self.settings = settings
        self.tasks = TaskController(self)
        self._callbacks: dict[int, Callable] = {}
        self.tasks.finished.connect(self._finished)
        self.tasks.failed.connect(self._failed)
        self.wizard: ImportWizard | None = None
        self._export_task_cleanup: Callable | None = None
        #: queries on data out of core that may scan it (counting its rows)
        self.background = SerialWorker(self)
        self.background.done.connect(self._background_done)
        self.background.failed.connect(self._background_failed)

    # --- worker plumbing ---------------------------------------------------------------
    def run(self, label: str, fn: Callable[[], object], done: Callable[[object], None],
            cancellable: bool = False) -> int:
        """Run ``fn`` in the worker, then ``done(value)`` here. ``cancellable``: a read
        whose result nothing has used yet, which Cancel may abandon (``abandon``)."""
        task_id = self.tasks.start(label, lambda report, cancelled: fn())
        self._callbacks = {task_id: done}
        self._abandon_label = label if cancellable else None
        self.window.statusBar().clearMessage()  # the progress on the right says it
        self.busy.emit(f"{label}…", cancellable)
        return task_id

    def abandon(self) -> None:
        """Cancel a read in progress (opening a project or job, importing data): its
        result is dropped when it comes, and the document stays as it was."""
        label = getattr(self, "_abandon_label", None)
        if label is None or not self.tasks.running:
            return
        self._abandon_label = None
        self._callbacks.clear()
        self.tasks.cancel_and_forget()
        self.unbusy.emit()
        self.window.statusBar().showMessage(
            f"{label} cancelled: the data and settings shown are unchanged", 10000)

    def _finished(self, outcome: TaskOutcome) -> None:
        done = self._callbacks.pop(outcome.task_id, None)
        self.window.statusBar().clearMessage()
        self._abandon_label = None
        self.unbusy.emit()
        if done is not None:
            done(outcome.value)

    def _failed(self, label: str, message: str) -> None:
        self._callbacks.clear()
        self._abandon_label = None
        self.unbusy.emit()
        cleanup, self._export_task_cleanup = self._export_task_cleanup, None
        if cleanup is not None:
            cleanup()
        self.window.statusBar().clearMessage()
        if cleanup is not None and "export cancelled" in message:
            self.window.statusBar().showMessage(
                "Export cancelled: no partial file or table was left behind", 8000)
            return
        show_error(self.window, label, message)

    # --- open ---------------------------------------------------------------------------
    def confirm_discard(self) -> bool:
        """Ask to save unsaved changes; False if the user cancels."""
        if not self.doc.modified or not self.doc.has_data:
            return True
        B = QMessageBox.StandardButton
        answer = ask(self.window, "Unsaved changes", "Save the changes to the project first?",
                     B.Save | B.Discard | B.Cancel, B.Save)
        if answer == B.Save:
            return self.save()
        return answer == B.Discard

    def open_dialog(self) -> None:
        if not self.confirm_discard():
            return
        path = file_dialogs.open_file(self.window, "Open", PROJECT_FILTER, "project", self.doc,
                                      self.settings)
        if path:
            self.open_path(path)

    def open_path(self, path: str | Path, then: Callable[[], None] | None = None) -> None:
        """Open a project, a job file, or (through the import wizard) a data file."""
        from engine.data.files import is_glob
        if is_glob(str(path)):  # a glob of Parquet files: one table, out of core
            self.import_spec(ImportSpec("parquet", str(path)), then)
            return
        path = Path(path)
        if not path.exists():
            self.settings.remove_recent_file(str(path))
            show_error(self.window, "Cannot open", f"File not found: {path}")
            return
        suffix = path.suffix.lower()
        if suffix in (".parquet", ".pq"):  # nothing to choose: columns and types are known
            self.import_spec(ImportSpec("parquet", str(path)), then)
        elif suffix == EXTENSION:
            self.open_project(path, then)
        elif suffix == ".toml":
            self.run("Opening job file", lambda: snapshot_from_job_file(path),
                     lambda snap: self._apply(snap, None, path, then), cancellable=True)
        elif suffix == ".deid":  # an ARX project: imported as a job (engine.project.arx_import)
            self.run("Importing ARX project", lambda: arx_snapshot(path),
                     lambda snap: self._apply(snap, None, None, then), cancellable=True)
        else:
            self.import_dialog(str(path), then)

    def open_project(self, path: Path, then=None, remember: bool = True) -> None:
        recent = path if remember else None

        def read():
            snap = read_project(path)
            return snap if source_needs_password(snap) else load_snapshot_table(snap)

        def done(snap) -> None:
            if snap.table is None and source_needs_password(snap):
                password = self.ask_password(snap.source.get("location", ""))
                if password is None:
                    self.window.statusBar().showMessage("Opening cancelled", 4000)
                    return
                self.run("Reading data", lambda: load_snapshot_table(snap, password),
                         lambda s: self._apply(s, recent, recent, then), cancellable=True)
                return
            self._apply(snap, recent, recent, then)

        self.run("Opening project", read, done, cancellable=True)

    def ask_password(self, location: str) -> str | None:
        """The database password, asked again on opening (projects never store it);
        None if the user cancels."""
        from PySide6.QtWidgets import QInputDialog, QLineEdit
        text, ok = QInputDialog.getText(
            self.window, "Database password",
            f"The project reads its data from\n{location}\nPassword (not stored):",
            QLineEdit.EchoMode.Password)
        return text if ok else None

    def _apply(self, snap, project_path: Path | None, recent: Path | None, then) -> None:
        apply_snapshot(self.doc, snap, project_path)
        self.count_rows()  # out of core: in the background
        if recent is not None:
            self.settings.add_recent_file(recent)
        restore = restore_saved_result(self.doc, snap)
        if restore is None:
            self._loaded(recent, then)
            return

        def restored(result) -> None:
            if isinstance(result, ResultMismatch):
                show_error(self.window, "Result not restored",
                           f"The project's saved result was not restored: {result}.\n"
                           "Its summary is shown; anonymize again to see the result.")
            else:
                self.doc.set_result(result, snap.result, (snap.result_state or {}).get("applied"))
                self.window.statusBar().showMessage("Result restored as saved", 6000)
            self.doc.set_modified(False)
            self._loaded(recent, then)

        self.run("Restoring the result", restore, restored)

    def _loaded(self, recent: Path | None, then) -> None:
        self.loaded.emit(str(recent or ""))
        if then is not None:
            then()

    def open_sample(self) -> None:
        if not self.confirm_discard():
            return
        node = resources.files("resources").joinpath(*SAMPLE)
        path = Path(str(node))
        if not path.is_file():  # inside a zip or a frozen bundle: copy it out once
            try:
                data = node.read_bytes()
            except (FileNotFoundError, OSError):
                show_error(self.window, "Sample project", "The sample project is not installed.")
                return
            path = Path(tempfile.gettempdir()) / SAMPLE[1]
            path.write_bytes(data)
        self.open_project(path, remember=False)

    # --- import --------------------------------------------------------------------------
    def make_import_wizard(self, path: str | None = None) -> ImportWizard:
        self.wizard = ImportWizard(path, self.settings.page_size, self.window)
        return self.wizard

    def import_dialog(self, path: str | None = None, then=None) -> None:
        wizard = self.make_import_wizard(path)
        if wizard.exec() == QWizard.DialogCode.Accepted:
            self.import_spec(wizard.spec(), then)

    def import_spec(self, spec: ImportSpec, then=None) -> None:
        """Open the data in the worker (``engine.backends.browse.open_data``: read into
        memory, or a CSV or Parquet file the engine's ``auto`` rule sends to DuckDB opened
        out of core, nothing read but its columns), then show it."""
        from engine.backends.browse import open_data
        engine = self.settings.engine_config()
        fmt = spec.csv_format

        def done(data) -> None:
            source = DataSource(spec.kind, spec.location, spec.table,
                                fmt.delimiter if fmt else ";", fmt.quotechar if fmt else '"',
                                fmt.encoding if fmt else "utf-8", spec.has_header,
                                tuple(spec.columns), tuple(spec.renames),
                                data.backend_name, data.memory_limit or "")
            types = {name: (t, f) for name, t, f in spec.data_types}
            self.doc.engine = engine
            self.doc.set_data(data, source, types or data.detected_types)
            self.count_rows()
            self.doc.set_path(None)
            if spec.kind != "sql":
                self.settings.add_recent_file(spec.location)
            self.loaded.emit(spec.location)
            beside = hierarchies_beside.hint(self.doc)
            if beside:  # offered on import: one click in Configure loads them all
                self.window.statusBar().showMessage(beside, 30000)
            if then is not None:
                then()

        self.run("Importing data", lambda: open_data(spec, engine), done, cancellable=True)

    def count_rows(self) -> None:
        """Count the records in the background where they are not known yet (a scan
        of a CSV file read out of core); ``rows_counted`` when they are."""
        data = self.doc.data
        if data is None:
            return
        if data.n_rows is not None:
            self.doc.rows_counted.emit()
            return
        self.background.submit(data.count_rows, ("count", data))

    def stop_background(self) -> None:
        """Closing: interrupt the queries on data out of core, wait for them and release
        DuckDB (its temporary folder with the CSV copy goes with it)."""
        if self.doc.data is not None:
            self.doc.data.close()
        self.background.wait(5000)
        self.doc.wait_for_queries(5000)

    def _background_failed(self, tag, message: str) -> None:
        if tag[1] is self.doc.data:  # not the data replaced or closed since
            self.window.statusBar().showMessage(f"Out of core: {message}", 15000)

    def _background_done(self, tag, _value) -> None:
        if tag[0] == "count" and tag[1] is self.doc.data:
            self.doc.rows_counted.emit()

    # --- save ------------------------------------------------------------------------------
    def save(self) -> bool:
        if self.doc.path is None:
            return self.save_as()
        self.save_to(self.doc.path)
        return True

    def save_as(self) -> bool:
        name = self.doc.path.name if self.doc.path else f"project{EXTENSION}"
        path = file_dialogs.save_file(self.window, "Save project", name,
                                      f"Anonymist projects (*{EXTENSION})", "project",
                                      self.doc, self.settings)
        if not path:
            return False
        if not path.endswith(EXTENSION):
            path += EXTENSION
        self.save_to(Path(path))
        return True

    def save_to(self, path: Path) -> None:
        snap = snapshot_of(self.doc)
        include = self.settings.include_data_in_project

        def done(_value) -> None:
            self.doc.set_path(path)
            self.doc.set_modified(False)
            self.settings.add_recent_file(path)
            self.window.statusBar().showMessage(f"Saved {path.name}", 4000)
            self.saved.emit(str(path))

        self.run("Saving project", lambda: write_project(snap, path, include), done)

    def save_job_dialog(self) -> None:
        """File > Save job file: the configuration as a TOML job for the command line."""
        if not self.doc.has_data:
            show_error(self.window, "Nothing to save", "Import data first: a job names "
                       "the data, its attributes and the privacy models.")
            return
        stem = self.doc.path.stem if self.doc.path else "job"
        path = file_dialogs.save_file(self.window, "Save job file", f"{stem}.toml",
                                      "Job files (*.toml)", "project", self.doc, self.settings)
        if path:
            if not path.endswith(".toml"):
                path += ".toml"
            self.save_job_to(Path(path))

    def save_job_to(self, path: Path) -> None:
        from app.project_io import save_job_file

        def done(notes) -> None:
            extra = f" ({'; '.join(notes)})" if notes else ""
            self.window.statusBar().showMessage(f"Saved job {path.name}{extra}", 8000)

        self.run("Saving job file", lambda: save_job_file(self.doc, path), done)

    # --- export -----------------------------------------------------------------------------
    def _release_ready(self) -> bool:
        current = self.doc.current_transformation()
        if current is None:
            show_error(self.window, "Nothing to export",
                       "Anonymize the data first: the export writes the anonymized output."
                       if self.doc.result is None else
                       "No transformation meets the privacy models: apply one in Explore "
                       "to export it.")
            return False
        if not current.anonymous:  # applied in Explore: never released without a word
            B = QMessageBox.StandardButton
            return ask(self.window, "Export data that is not anonymous?",
                       f"The transformation applied in Explore does not meet the privacy "
                       f"models and the suppression limit ({current.levels_text}; "
                       f"{current.suppressed_records:,} records suppressed). The exported "
                       f"data would fail 'anonymist verify' for this job.\n\nApply an "
                       f"anonymous transformation in Explore (green), or export this one "
                       f"anyway?", B.Yes | B.Cancel, B.Cancel) == B.Yes
        return True

    def export_dialog(self) -> None:
        """File > Export data: target and format, and the release documents with it."""
        from app.widgets.export_dialog import ExportDialog
        if not self._release_ready():
            return
        result = self.doc.result
        mapping_ok = self.doc.applied_levels is not None or \
            getattr(result, "local_recoding", None) is None
        dialog = ExportDialog(file_dialogs.start_folder("export", self.doc, self.settings),
                              self.doc.source.delimiter or ";", mapping_ok, self.window,
                              self.doc.current_transformation().describe(),
                              pseudonyms=any(a.pseudonym is not None
                                             for a in self.doc.attributes.values()),
                              verbatim=self.doc.verbatim_columns(),
                              out_of_core=self.doc.out_of_core)
        self.export_dialog_widget = dialog
        if dialog.exec() and dialog.request is not None:
            target = dialog.request.target
            if target is not None and hasattr(target, "path"):
                file_dialogs.remember("export", str(target.path), self.settings)
            self.export_release(dialog.request)

    def export_report_dialog(self) -> None:
        """File > Export report: the release report (PDF + JSON) of the current output."""
        from engine.release_docs.writer import ReleaseRequest
        if not self._release_ready():
            return
        path = file_dialogs.save_file(self.window, "Export release report", "release-report.pdf",
                                      "PDF (*.pdf)", "export", self.doc, self.settings)
        if path:
            path = Path(path)
            self.export_release(ReleaseRequest(report=path.with_suffix(".pdf")))

    def export_mapping_dialog(self) -> None:
        """File > Export value mapping: input value -> released value per QI (.xlsx)."""
        from engine.release_docs.writer import ReleaseRequest
        if not self._release_ready():
            return
        path = file_dialogs.save_file(self.window, "Export value mapping", "value-mapping.xlsx",
                                      "Excel workbook (*.xlsx)", "export", self.doc,
                                      self.settings)
        if path:
            self.export_release(ReleaseRequest(mapping=Path(path).with_suffix(".xlsx")))

    def input_path(self) -> Path | None:
        """The data file the release was made from, when it is a file on disk."""
        loc = self.doc.source.location
        if self.doc.source.kind in ("csv", "excel", "parquet") and loc and Path(loc).is_file():
            return Path(loc)
        return None

    def export_release(self, request, levels=None) -> int:
        """Write ``request`` (engine.release_docs.writer) of the current output in the
        worker, with a progress dialog that can cancel it."""
        from dataclasses import replace

        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QProgressDialog

        from engine.release_docs.writer import write_release
        result = self.doc.result
        current = self.doc.current_transformation() if levels is None else None
        levels = levels if levels is not None else self.doc.applied_levels
        if request.input_path is None:
            request = replace(request, input_path=self.input_path())
        dialog = QProgressDialog("Exporting…", "Cancel", 0, 1000, self.window)
        dialog.setWindowTitle("Export")
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(400)
        self.export_progress = dialog

        def progressed(payload) -> None:
            fraction, what = payload
            dialog.setLabelText(what[:1].upper() + what[1:] + "…")
            dialog.setValue(int(1000 * fraction))
        self.tasks.progressed.connect(progressed)
        dialog.canceled.connect(self.tasks.cancel)

        def finish() -> None:
            self.tasks.progressed.disconnect(progressed)
            dialog.reset()

        def done(written) -> None:
            self._export_task_cleanup = None
            finish()
            self.last_export = written
            # short: the status bar clips a long line; the notice above has every file
            names = [Path(w).name if "/" in w or "\\" in w else w for w in written.written]
            more = len(names) - 1
            text = "Exported " + (names[0] if names else "nothing") + (
                f" and {more} more file{'s' if more > 1 else ''}" if more > 0 else "")
            quoted = sum(c["neutralised"] for c in written.formula_cells.values())
            formulas = (f"{quoted:,} formula cell{'s' if quoted != 1 else ''} written with "
                        f"a leading '" if quoted else "")
            if formulas:
                text += f" · {formulas}"
            if written.verified is True:
                text += " · independently verified"
            if written.verified is False:
                show_error(self.window, "Release report: verification FAILED",
                           "The exported table does not pass the independent check:\n"
                           + "\n".join(written.violations))
            self.window.statusBar().showMessage(text, 15000)
            self._notify_exported(written, current, formulas)
            self.exported.emit(written)

        task = self.tasks.start("Exporting", lambda report, cancelled: write_release(
            result, request, levels, lambda f, what: report((f, what)), cancelled))
        self._callbacks = {task: done}
        self._export_task_cleanup = finish
        return task

    def _notify_exported(self, written, current, formulas: str = "") -> None:
        """The notice above the perspectives: every file written with its folder, the
        transformation and the independent check's verdict, until closed."""
        import os
        paths = [Path(w) for w in written.written if "/" in w or "\\" in w]
        try:  # one folder holds them all (a release's share/ and internal/ beside each other)
            folder = Path(os.path.commonpath([p.parent for p in paths])) if paths else None
        except ValueError:  # different drives
            folder = None
        # where first, then the files by folder: share/ (what may leave) before internal/
        groups: dict[str, list[str]] = {}
        for p in paths:
            rel = p.relative_to(folder) if folder is not None else p
            sub = f"{rel.parts[0]}/" if folder is not None and len(rel.parts) > 1 else ""
            groups.setdefault(sub, []).append(rel.name if sub else str(rel))
        order = sorted(groups, key=lambda g: {"share/": 0, "internal/": 1}.get(g, 2))
        names = "; ".join(f"{g} {', '.join(groups[g])}" if g else ", ".join(groups[g])
                           for g in order) or ", ".join(written.written)
        text = f"Exported to {folder}: {names}" if folder is not None else f"Exported {names}"
        if current is not None:
            text += f" · transformation {current.describe()}"
        if formulas:
            text += f" · {formulas}"
        if written.verified is True:
            text += " · independently verified: the released table meets the job"
        elif written.verified is False:
            text += " · verification FAILED (see the report)"
        notice = getattr(self.window, "notice", None)
        if notice is not None:
            notice.show_notice(text, folder)

    def export_to(self, path: Path, levels=None) -> None:
        """Export the output as CSV to ``path`` (the job's delimiter), no dialog."""
        from engine.export.targets import CsvOptions, FileTarget, file_target
        from engine.release_docs.writer import ReleaseRequest
        target = file_target(path, CsvOptions(delimiter=self.doc.source.delimiter or ";"))
        if not isinstance(target, FileTarget):
            raise TypeError(target)
        self.export_release(ReleaseRequest(target), levels)
