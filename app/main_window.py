"""The main window: perspectives, menus, toolbar, status bar with progress and Cancel."""
from __future__ import annotations

import io
from pathlib import Path

from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (QLabel, QMainWindow, QMessageBox, QStackedWidget,
                               QVBoxLayout, QWidget)

import engine
from app import APP_NAME, __version__
from app.actions import build_menus, build_toolbar, create_actions
from app.document import Document
from app.file_operations import FileOperations
from app.hierarchy_status import rows_digest
from app.perspectives import PERSPECTIVES, PerspectiveContext, create_perspective
from app.perspectives.configure import ConfigurePerspective
from app.settings import AppSettings
from app.widgets.dialogs import show_error, show_message
from app.widgets.notice_bar import NoticeBar
from app.widgets.progress_status import ProgressStatus
from app.widgets.settings_dialog import SettingsDialog
from app.workers import Shutdowns, TaskController, TaskOutcome

#: perspectives built when first shown or asked for, not with the window: their plots
#: and analyses are most of the window's start-up (about 0.7 s of CPU); they read the
#: document's state when built, as when a project is opened
BUILT_WHEN_SHOWN = ("utility", "risk")


class Perspectives(dict):
    """The window's perspectives by key; a perspective not built yet is built when
    asked for (``window.perspectives["risk"]``). ``values()`` are the built ones."""

    def __init__(self, build):
        super().__init__()
        self._build = build

    def __missing__(self, key):
        if key not in BUILT_WHEN_SHOWN:
            raise KeyError(key)
        return self._build(key)


class MainWindow(QMainWindow):
    def __init__(self, settings: AppSettings | None = None):
        super().__init__()
        self.setObjectName("mainWindow")
        self.settings = settings or AppSettings()
        self.document = Document(self)
        self.search = TaskController(self)  # the one owner of anonymization runs
        self._reading = False  # a file is being read or written (File actions off)
        self._run_phase: str | None = None  # the running anonymization's latest phase
        self.files = FileOperations(self, self.document, self.settings)
        self.actions = create_actions(self)
        self.menus = build_menus(self, self.actions)
        self.toolbar = build_toolbar(self, self.actions)
        self.menus["view"].addAction(self.toolbar.toggleViewAction())
        #: every background thread's stop, run once when the window closes
        self.shutdowns = Shutdowns()
        self.shutdowns.register("search", lambda: self.search.wait_all(5000))
        self.shutdowns.register("file operations", lambda: self.files.tasks.wait_all(5000))
        self.shutdowns.register("out-of-core queries", self.files.stop_background)
        self._build_status_bar()
        self._build_perspectives()
        self._connect()
        self._update_title()
        self._update_recent_menu()
        self._initial_size()
        geometry, state = self.settings.window_state()
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)
        if self.settings.first_start:
            self.statusBar().showMessage(
                "Welcome! Open the sample project (Help > Open sample project) to see "
                "Anonymist at work.", 15000)
            self.settings.mark_started()

    def _output_changed(self, _levels) -> None:
        current = self.document.current_transformation()
        if current is not None:
            self.statusBar().showMessage(
                f"Current transformation {current.describe()} · Analyze shows it, "
                "File > Export data writes it", 20000)

    def _initial_size(self) -> None:
        screen = self.screen().availableGeometry() if self.screen() else None
        w, h = 1440, 900
        if screen is not None:
            w, h = min(w, int(screen.width() * 0.96)), min(h, int(screen.height() * 0.94))
        self.resize(w, h)

    # --- construction ------------------------------------------------------------------
    def _build_status_bar(self) -> None:
        self.progress = ProgressStatus()
        self.progress.cancel_requested.connect(self.cancel)
        self.statusBar().addPermanentWidget(self.progress)
        #: reading or writing a project, a job or data (opening can be cancelled)
        self.io_progress = ProgressStatus()
        self.io_progress.setObjectName("ioProgress")
        self.io_progress.cancel_requested.connect(self.files.abandon)
        self.files.busy.connect(self.io_progress.begin)
        self.files.unbusy.connect(self.io_progress.finish)
        self.statusBar().addPermanentWidget(self.io_progress)
        self.data_label = QLabel()
        self.data_label.setObjectName("mutedLabel")
        self.statusBar().addPermanentWidget(self.data_label)

    def _build_perspectives(self) -> None:
        self.stack = QStackedWidget()
        self.notice = NoticeBar()  # what an export wrote, until closed
        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.notice)
        column.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        a = self.actions
        self.configure = ConfigurePerspective(
            self.document, self.settings.page_size,
            [a["guided"], a["import_data"], a["open"], a["open_sample"]])
        self.perspectives = Perspectives(self._perspective)
        self.perspectives["configure"] = self.configure
        # run before the out-of-core queries' stop (steps stop in reverse order)
        self.shutdowns.register("data table sort", self.configure.data.model.stop_sorting)
        self.stack.addWidget(self.configure)
        self._context = PerspectiveContext(self.document, self.search, self.settings, self,
                                           self.actions, self.shutdowns)
        self._placeholders: dict[str, QWidget] = {}
        for spec in PERSPECTIVES[1:]:
            if spec.key in BUILT_WHEN_SHOWN:  # a blank page until it is first shown
                self._placeholders[spec.key] = QWidget()
                self.stack.addWidget(self._placeholders[spec.key])
            else:
                self.perspectives[spec.key] = self._create_perspective(spec)
                self.stack.addWidget(self.perspectives[spec.key])

    def _create_perspective(self, spec) -> QWidget:
        widget = create_perspective(spec, self._context)
        widget.setObjectName(f"perspective_{spec.key}")
        return widget

    def _perspective(self, key: str) -> QWidget:
        """The perspective ``key``, built now if it is one built when first shown (it
        takes the document's current state: data, result, applied transformation)."""
        placeholder = self._placeholders.pop(key)
        index = self.stack.indexOf(placeholder)
        widget = self._create_perspective(next(s for s in PERSPECTIVES if s.key == key))
        self.stack.insertWidget(index, widget)
        self.stack.removeWidget(placeholder)
        placeholder.deleteLater()
        dict.__setitem__(self.perspectives, key, widget)
        return widget

    def _connect(self) -> None:
        a, f = self.actions, self.files
        self.document.output_changed.connect(self._output_changed)
        for signal in (self.document.result_changed, self.document.output_changed,
                       self.document.data_changed):
            signal.connect(lambda *_: self._update_export_actions())
        self._update_export_actions()
        self._update_enabled()
        a["new"].triggered.connect(self.new_project)
        a["guided"].triggered.connect(lambda: self.guided_release())
        a["open"].triggered.connect(f.open_dialog)
        a["save"].triggered.connect(f.save)
        a["save_as"].triggered.connect(f.save_as)
        a["save_job"].triggered.connect(f.save_job_dialog)
        a["import_data"].triggered.connect(lambda: f.import_dialog())
        a["export_data"].triggered.connect(f.export_dialog)
        a["export_report"].triggered.connect(f.export_report_dialog)
        a["export_mapping"].triggered.connect(f.export_mapping_dialog)
        a["import_hierarchy"].triggered.connect(self.configure.import_hierarchy)
        a["export_hierarchy"].triggered.connect(self.configure.export_hierarchy)
        a["create_hierarchy"].triggered.connect(self.configure.request_hierarchy_wizard)
        self.configure.hierarchy_wizard_requested.connect(self.create_hierarchy)
        a["quit"].triggered.connect(self.close)
        a["anonymize"].triggered.connect(self.anonymize)
        a["cancel"].triggered.connect(self.cancel)
        a["settings"].triggered.connect(self.settings_dialog)
        a["about"].triggered.connect(self.about)
        a["open_sample"].triggered.connect(f.open_sample)
        for i, spec in enumerate(PERSPECTIVES):
            a[f"show_{spec.key}"].triggered.connect(lambda _c=False, i=i: self.show_perspective(i))
        self.configure.anonymize_requested.connect(self.anonymize)
        self.search.started.connect(self._run_started)
        self.search.progressed.connect(self.progress.report)
        self.search.progressed.connect(self._run_progressed)
        self.search.finished.connect(self._run_finished)
        self.search.failed.connect(self._run_failed)
        self.files.tasks.started.connect(lambda label: self._io_busy(True))
        self.files.tasks.idle.connect(lambda: self._io_busy(False))
        self.files.loaded.connect(self._loaded)
        self.document.modified_changed.connect(lambda _m: self._update_title())
        self.document.path_changed.connect(lambda _p: self._update_title())
        self.document.data_changed.connect(self._update_data_label)
        self.document.data_changed.connect(self._update_enabled)
        self.document.rows_counted.connect(self._update_data_label)
        self.document.query_failed.connect(
            lambda message: self.statusBar().showMessage(f"Out of core: {message}", 15000))
        self.menus["recent"].aboutToShow.connect(self._update_recent_menu)

    def _update_export_actions(self) -> None:
        """Export data / report / value mapping only once there is something to release
        (before, the toolbar's Export data answered every click with an error box)."""
        ready = self.document.current_transformation() is not None
        why = ("" if ready else " (anonymize first: the export writes the anonymized output)"
               if self.document.result is None else
               " (no transformation meets the privacy models: apply one in Explore)")
        for key, tip in (("export_data", "Export the anonymized output"),
                         ("export_report", "The release report"),
                         ("export_mapping", "The value mapping")):
            action = self.actions[key]
            action.setEnabled(ready)
            base = action.property("readyTip")
            if base is None:
                base = action.toolTip() or tip
                action.setProperty("readyTip", base)
            action.setToolTip(base + why)

    # --- perspectives ----------------------------------------------------------------------
    def show_perspective(self, index: int) -> None:
        self.perspectives[PERSPECTIVES[index].key]  # built on first showing
        self.stack.setCurrentIndex(index)
        self.actions[f"show_{PERSPECTIVES[index].key}"].setChecked(True)

    # --- files --------------------------------------------------------------------------------
    def open_path(self, path: str | Path, anonymize: bool = False) -> None:
        """Open a project, job or data file; with ``anonymize`` run the search once loaded."""
        then = self.anonymize if anonymize else None
        self.files.open_path(path, then)

    def guided_release(self, path: str | None = None):
        """Show the guided release wizard (the one already open, where it was, unless a
        new ``path`` is given); it edits this window's document."""
        from app.wizards.guided import GuidedReleaseWizard
        wizard = getattr(self, "guide", None)
        if wizard is None or path:
            if wizard is not None:
                wizard.deleteLater()
            wizard = self.guide = GuidedReleaseWizard(self, path)
        wizard.show()
        wizard.raise_()
        return wizard

    def new_project(self) -> None:
        if not self.files.confirm_discard():
            return
        self.search.cancel_and_forget()
        self.document.clear_data()
        self.document.attributes = {}
        self.document.hierarchy_rows = {}
        self.document.subset, self.document.subset_spec = None, None
        self.document.base_dir = None
        self.document.set_result(None)
        self.document.data_changed.emit()
        self.document.set_path(None)
        self.document.set_modified(False)

    def _loaded(self, path: str) -> None:
        self._update_recent_menu()
        self._update_data_label()

    def _update_recent_menu(self) -> None:
        menu = self.menus["recent"]
        menu.clear()
        files = self.settings.recent_files()
        for path in files:
            act = menu.addAction(Path(path).name)
            act.setToolTip(path)
            act.setStatusTip(path)
            act.triggered.connect(lambda _c=False, p=path: self.files.confirm_discard()
                                  and self.open_path(p))
        menu.setEnabled(bool(files))

    def _update_title(self) -> None:
        name = self.document.path.name if self.document.path else "Untitled"
        self.setWindowTitle(f"{name}{' *' if self.document.modified else ''} — {APP_NAME}")

    def _update_data_label(self) -> None:
        data = self.document.data
        self.data_label.setText("" if data is None else data.describe())
        self.data_label.setToolTip(
            "The data is too big for memory: it stays in its file and DuckDB reads the "
            "rows shown, the distinct values and the counts the search needs"
            if self.document.out_of_core else "")

    def _io_busy(self, busy: bool) -> None:
        self._reading = busy
        self._update_enabled()

    def _update_enabled(self) -> None:
        """What can be clicked: nothing that needs data before data is loaded (Anonymize,
        Save, Save job), no file action while a file is read or written, no second run
        while one is under way."""
        reading = self._reading
        has_data = self.document.has_data
        for key in ("open", "import_data", "new", "open_sample"):
            self.actions[key].setEnabled(not reading)
        for key in ("save", "save_as", "save_job"):
            self.actions[key].setEnabled(not reading and has_data)
        running = self.search.running
        self.actions["anonymize"].setEnabled(has_data and not running)
        self.configure.set_running(running, can_run=has_data)

    # --- anonymization -------------------------------------------------------------------------
    def anonymize(self) -> None:
        """Start the search in the worker (a running one is cancelled first)."""
        reason = self.document.check_job()
        if reason:
            show_message(self, "Cannot anonymize yet", reason)
            return
        job, table = self.document.build_job(), self.document.table
        # out of core DuckDB counts the handle's Parquet copy of a CSV file once it exists
        hook = self.document.data.lend_copy
        self.search.start("Anonymizing", lambda report, cancelled: engine.anonymize(
            table, job, progress=report, cancel=cancelled, build_output=True,
            backend_hook=hook))

    def cancel(self) -> None:
        """Stop the run: a search returns its best so far; a run still preparing (the
        first run of a session loads the numba kernels from their disk cache, seconds
        that cannot be interrupted) has nothing to return and is abandoned at once, its
        late result dropped."""
        if not self.search.running:
            return
        if self._run_phase == "preparing":
            self.search.cancel_and_forget()
            self._run_ended()
            self.statusBar().showMessage("Anonymization cancelled while preparing", 20000)
            return
        self.progress.cancelling()
        self.search.cancel()

    def _run_progressed(self, payload) -> None:
        self._run_phase = getattr(payload, "phase", None)

    def _run_started(self, label: str) -> None:
        self._run_phase = "preparing"  # until the engine reports another phase
        self.progress.begin(f"{label}…")
        self.actions["cancel"].setEnabled(True)
        # a second click does not restart the run from nothing (Cancel ends it)
        self._update_enabled()

    def _run_ended(self) -> None:
        self.progress.finish()
        self.actions["cancel"].setEnabled(False)
        self._update_enabled()

    def _run_finished(self, outcome: TaskOutcome) -> None:
        from app.perspectives.configure.result_summary import headline
        self._run_ended()
        result = outcome.value
        self.document.set_result(result)
        self.document.set_modified(True)  # a result is work: closing asks to save it
        opt = result.optimum
        if opt is None:
            msg = "No transformation meets the privacy models."
        else:
            pct = opt.information_loss_percent
            title = headline(result.proven_optimal, result.cancelled, result.outcome.algorithm)
            msg = (f"{title}: information loss {pct:.2f} %, "
                   f"{result.transformations_checked:,} of "
                   f"{result.lattice_size:,} checked in {result.elapsed_s:.2f} s")
        self.statusBar().showMessage(msg, 20000)

    def _confirm_stop_search(self) -> bool:
        """Closing while a search runs: ask before its work is thrown away."""
        from app.widgets import dialogs
        B = QMessageBox.StandardButton
        answer = B.Close if dialogs.NON_INTERACTIVE else dialogs.ask(
            self, "A search is running", "Anonymize is still searching. Stop the search "
            "and close? Its result so far is lost.", B.Close | B.Cancel, B.Cancel)
        if answer != B.Close:
            return False
        self.search.cancel_and_forget()
        return True

    def _run_failed(self, label: str, message: str) -> None:
        self._run_ended()
        if message.startswith("anonymization cancelled"):  # while DuckDB counted
            self.statusBar().showMessage(message[:1].upper() + message[1:], 10000)
            return
        show_error(self, "Anonymization failed", message)

    # --- other dialogs ---------------------------------------------------------------------------
    def create_hierarchy(self, name: str, names: list[str] | None = None) -> None:
        """Open the hierarchy wizard for ``names``, else the selected attributes (one if
        ``name``)."""
        doc = self.document
        if names is None:
            names = self.configure.selected_attributes() or (
                [name] if name else [])
        if not doc.has_data or not names:
            show_message(self, "Create hierarchy", "Select an attribute first.")
            return
        if not doc.request_distinct(names):  # out of core: counted in a worker first
            self.statusBar().showMessage(
                f"Counting the distinct values of {', '.join(names)} (out of core)…")
            doc.request_distinct(names, lambda: (self.statusBar().clearMessage(),
                                                 self.create_hierarchy(name, names)))
            return
        from app.wizards.hierarchy import run_hierarchy_wizard
        a = doc.attributes[names[0]]
        # one spec applies to attributes of the same data type only
        names = [n for n in names if (doc.attributes[n].data_type, doc.attributes[n].format)
                 == (a.data_type, a.format)]
        existing, spec = None, None
        if len(names) == 1:
            existing, spec = self._hierarchy_and_spec(names[0])
        results = run_hierarchy_wizard(self, doc.hierarchy_columns(names),
                                       (a.data_type, a.format) if a.data_type else None,
                                       existing, spec)
        for attr, (hierarchy, built_spec) in (results or {}).items():
            doc.set_built_hierarchy(attr, hierarchy.rows, built_spec)
        if results:
            self.configure.show_hierarchy(names[0] if len(names) == 1 else None)

    def _hierarchy_and_spec(self, name: str):
        """The attribute's current hierarchy, and the wizard spec that built it (if the
        hierarchy was not edited since)."""
        from engine.errors import HierarchyError
        from engine.hierarchy import Hierarchy
        rows = self.document.hierarchy_rows.get(name)
        if not rows:
            return None, None
        try:
            hierarchy = Hierarchy.from_rows(rows, name)
        except HierarchyError:
            return None, None
        stored = self.document.extras.get("hierarchy_specs", {}).get(name)
        if stored is None:
            return hierarchy, None
        if not isinstance(stored, dict) or stored.get("rows") != rows_digest(hierarchy.rows):
            return hierarchy, None  # edited by hand since it was built
        try:
            from engine.hierarchy.builders import spec_from_json
            return hierarchy, spec_from_json(stored["spec"])
        except Exception:  # a stale or foreign spec must never block the wizard
            return hierarchy, None

    def settings_dialog(self) -> None:
        dlg = SettingsDialog(self.settings, self)
        if dlg.exec():
            for widget in self.perspectives.values():
                if hasattr(widget, "set_page_size"):
                    widget.set_page_size(self.settings.page_size)

    def about(self) -> None:
        QMessageBox.about(self, f"About {APP_NAME}",
                          f"<h3>{APP_NAME} {__version__}</h3><p>Anonymize tabular personal "
                          "data: k-anonymity and more, with generalization hierarchies, "
                          "an optimal search and a view of the whole solution space.</p>")

    # --- first start after installing ----------------------------------------------------
    def warm_up(self, compile: bool = True) -> None:
        """Compile the engine's kernels in a worker when numba's cache is cold (the
        install step ``python -m app.warmup`` was skipped), saying so in the status bar:
        the GUI thread never compiles. With a warm cache (``compile`` False) the common
        kernels are only loaded from it, silently (``engine.warmup.load_kernels``, about
        a second), so that the first run of the session spends neither its time limit
        nor a Cancel's wait on that; so are the lattice view's rasterizers, which draw on
        the GUI thread."""
        from app.warmup import warm_views
        from engine.warmup import load_kernels, warm

        def load(cancelled):  # the engine's kernels, then the lattice view's rasterizers
            load_kernels(cancelled)
            if not cancelled():
                warm_views(io.StringIO())

        def compile_all(cancelled):
            warm(io.StringIO(), cancelled)
            if not cancelled():
                warm_views(io.StringIO())

        self.warmer = TaskController(self)
        # stops between two compiled jobs: the first can take half a minute
        self.shutdowns.register("kernel warm-up", lambda: self.warmer.wait_all(30000))
        if not compile:
            self.warmer.start("kernels", lambda report, cancelled: load(cancelled))
            return
        message = ("Compiling the engine's kernels (first start after installing, once; "
                   "about a minute)…")
        self.statusBar().showMessage(message)
        self.warmer.finished.connect(lambda _o: self.statusBar().showMessage(
            "The engine's kernels are compiled.", 5000))
        self.warmer.failed.connect(lambda _l, m: self.statusBar().showMessage(
            f"Compiling the engine's kernels failed: {m}", 15000))
        self.warmer.start("warm-up", lambda report, cancelled: compile_all(cancelled))

    # --- closing -------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if self.search.running and not self._confirm_stop_search():
            event.ignore()
            return
        if not self.files.confirm_discard():
            event.ignore()
            return
        self.settings.save_window_state(self.saveGeometry(), self.saveState())
        self.shutdowns.run()
        event.accept()

