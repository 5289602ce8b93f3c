"""File dialogs that start where the user's files are and remember where they ended.

Each dialog has a kind ("project", "data", "export", "hierarchy", "spec"). It
starts in the folder the last dialog of that kind ended in; without one, in the
open project's folder, else the data's folder, else the last folder any dialog
ended in, else the home folder.

An export never starts beside the raw data: a release written next to the personal
data it came from is one careless copy away from leaving with it. It starts in the
last export folder, else the saved project's folder, else the home folder.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from app.settings import AppSettings

KINDS = ("project", "data", "export", "hierarchy", "spec")


def _document_folder(doc, with_data: bool = True) -> str:
    if doc is None:
        return ""
    if getattr(doc, "path", None):
        return str(Path(doc.path).parent)
    if not with_data:
        return ""
    source = getattr(doc, "source", None)
    location = getattr(source, "location", "") if source is not None else ""
    # a relative location (a project's data beside it, the project not saved) says
    # nothing about where the data is: not the working directory
    if location and "://" not in location and Path(location).is_absolute():
        folder = Path(location).parent
        if folder.is_dir():
            return str(folder)
    return ""


def start_folder(kind: str, doc=None, settings: AppSettings | None = None) -> str:
    """The folder a ``kind`` dialog opens in (see the module's docstring)."""
    settings = settings or AppSettings()
    if kind == "export":  # never beside the raw data (see the module's docstring)
        return settings.last_folder(kind) or _document_folder(doc, False) or str(Path.home())
    return (settings.last_folder(kind) or _document_folder(doc)
            or settings.last_folder("any") or str(Path.home()))


def remember(kind: str, path: str, settings: AppSettings | None = None) -> None:
    """Remember the folder of ``path``, chosen for ``kind`` (and as the last folder of all)."""
    if path:
        settings = settings or AppSettings()
        settings.remember_folder(kind, path)
        settings.remember_folder("any", path)


def open_file(parent: QWidget | None, title: str, filters: str, kind: str, doc=None,
              settings: AppSettings | None = None) -> str:
    """The chosen file ("" when cancelled); its folder is remembered for ``kind``."""
    path, _ = QFileDialog.getOpenFileName(parent, title, start_folder(kind, doc, settings),
                                          filters)
    remember(kind, path, settings)
    return path


def save_file(parent: QWidget | None, title: str, name: str, filters: str, kind: str,
              doc=None, settings: AppSettings | None = None) -> str:
    """The file to write ("" when cancelled), proposed as ``name`` in the start folder."""
    start = str(Path(start_folder(kind, doc, settings)) / name)
    path, _ = QFileDialog.getSaveFileName(parent, title, start, filters)
    remember(kind, path, settings)
    return path
