"""The window's actions, menus and toolbar (built in code, no .ui files)."""
from __future__ import annotations

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QStyle, QToolBar

from app.perspectives import PERSPECTIVES
from app.theme import icon

SP = QStyle.StandardPixmap
_SPECS = (  # key, text, shortcut, icon, standard-icon fallback, tip
    ("new", "&New project", QKeySequence.StandardKey.New, "new", SP.SP_FileIcon,
     "Start an empty project"),
    ("guided", "New &guided release…", "Ctrl+G", "sample", SP.SP_DialogHelpButton,
     "Release a data file step by step, each step explained in plain words"),
    ("open", "&Open…", QKeySequence.StandardKey.Open, "open", SP.SP_DialogOpenButton,
     "Open a project, a job file (TOML) or a data file"),
    ("save", "&Save", QKeySequence.StandardKey.Save, "save", SP.SP_DialogSaveButton,
     "Save the project"),
    ("save_as", "Save &as…", QKeySequence.StandardKey.SaveAs, None, None,
     "Save the project under a new name"),
    ("save_job", "Save &job file…", None, None, None,
     "Save the configuration as a TOML job file for the command line (anonymist anonymize)"),
    ("import_data", "&Import data…", "Ctrl+I", "import", SP.SP_ArrowDown,
     "Import a CSV file, an Excel sheet or a database table"),
    ("export_data", "&Export data…", "Ctrl+E", "export", SP.SP_ArrowUp,
     "Export the anonymized output: CSV, Excel, Parquet or a database table, with its "
     "release documents"),
    ("export_report", "Export &report…", None, None, None,
     "The release report for an approval board: PDF and the same content as JSON"),
    ("export_mapping", "Export value &mapping…", None, None, None,
     "Per quasi-identifier the input value -> released value table (.xlsx)"),
    ("import_hierarchy", "Import &hierarchy…", None, None, None,
     "Load the selected attribute's hierarchy from CSV"),
    ("export_hierarchy", "Export hie&rarchy…", None, None, None,
     "Save the selected attribute's hierarchy as CSV"),
    ("create_hierarchy", "&Create hierarchy…", None, None, None,
     "Build a hierarchy for the selected attribute"),
    ("quit", "&Quit", QKeySequence.StandardKey.Quit, None, None, "Quit Anonymist"),
    ("anonymize", "&Anonymize", "Ctrl+R", "run", SP.SP_MediaPlay,
     "Search the transformation that meets the privacy models with least information loss"),
    ("cancel", "&Cancel run", "Esc", "stop", SP.SP_MediaStop, "Stop the running search"),
    ("settings", "&Settings…", QKeySequence.StandardKey.Preferences, None, None,
     "Preferences"),
    ("open_sample", "Open &sample project", None, "sample", SP.SP_DirHomeIcon,
     "The Adult census data with hierarchies, ready to anonymize"),
    ("about", "&About Anonymist", None, None, None, ""),
)


def create_actions(window: QMainWindow) -> dict[str, QAction]:
    actions: dict[str, QAction] = {}
    for key, text, shortcut, name, fallback, tip in _SPECS:
        a = QAction(text, window)
        a.setObjectName(f"action_{key}")
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        if name:
            a.setIcon(icon(name, fallback))
        a.setToolTip(tip or text.replace("&", ""))
        a.setStatusTip(tip)
        actions[key] = a
    group = QActionGroup(window)
    group.setExclusive(True)
    for i, spec in enumerate(PERSPECTIVES):
        a = QAction(spec.title, window)
        a.setObjectName(f"action_show_{spec.key}")
        a.setCheckable(True)
        a.setShortcut(QKeySequence(f"Ctrl+{i + 1}"))
        a.setIcon(icon(spec.icon))
        a.setToolTip(f"{spec.title} (Ctrl+{i + 1})")
        group.addAction(a)
        actions[f"show_{spec.key}"] = a
    actions["show_configure"].setChecked(True)
    actions["cancel"].setEnabled(False)
    return actions


def build_menus(window: QMainWindow, actions: dict[str, QAction]) -> dict[str, QMenu]:
    bar = window.menuBar()
    menus = {}
    file = bar.addMenu("&File")
    file.addAction(actions["new"])
    file.addAction(actions["guided"])
    file.addAction(actions["open"])
    menus["recent"] = file.addMenu("Open &recent")
    menus["recent"].setObjectName("recentMenu")
    file.addAction(actions["save"])
    file.addAction(actions["save_as"])
    file.addAction(actions["save_job"])
    file.addSeparator()
    for key in ("import_data", "export_data", "export_report", "export_mapping"):
        file.addAction(actions[key])
    file.addSeparator()
    for key in ("import_hierarchy", "export_hierarchy", "create_hierarchy"):
        file.addAction(actions[key])
    file.addSeparator()
    file.addAction(actions["quit"])
    edit = bar.addMenu("&Edit")
    edit.addAction(actions["anonymize"])
    edit.addAction(actions["cancel"])
    edit.addSeparator()
    edit.addAction(actions["settings"])
    view = bar.addMenu("&View")
    for spec in PERSPECTIVES:
        view.addAction(actions[f"show_{spec.key}"])
    view.addSeparator()
    menus["view"] = view
    help_ = bar.addMenu("&Help")
    help_.addAction(actions["open_sample"])
    help_.addSeparator()
    help_.addAction(actions["about"])
    menus.update(file=file, edit=edit, help=help_)
    return menus


def build_toolbar(window: QMainWindow, actions: dict[str, QAction]) -> QToolBar:
    tb = QToolBar("Main toolbar", window)
    tb.setObjectName("mainToolbar")
    tb.setMovable(False)
    tb.setToolButtonStyle(tb.toolButtonStyle().ToolButtonTextBesideIcon)
    for key in ("open", "save", "import_data", "export_data"):
        tb.addAction(actions[key])
    tb.addSeparator()
    tb.addAction(actions["anonymize"])
    tb.addSeparator()
    for spec in PERSPECTIVES:
        tb.addAction(actions[f"show_{spec.key}"])
    window.addToolBar(tb)
    return tb
