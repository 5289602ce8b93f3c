"""Message boxes: every error the user sees goes through here (tests patch ``exec``)."""
from __future__ import annotations

import sys

from PySide6.QtWidgets import QMessageBox, QWidget

#: set by ``--smoke-check``: messages go to stderr, questions get their default answer
NON_INTERACTIVE = False


def show_message(parent: QWidget | None, title: str, text: str, details: str | None = None,
                 icon: QMessageBox.Icon = QMessageBox.Icon.Warning) -> None:
    if NON_INTERACTIVE:
        print(f"{title}: {text}", file=sys.stderr, flush=True)
        return
    box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setObjectName("messageBox")
    if details:
        box.setDetailedText(details)
    box.exec()


def show_error(parent: QWidget | None, title: str, text: str, details: str | None = None) -> None:
    show_message(parent, title, text, details, QMessageBox.Icon.Critical)


def ask(parent: QWidget | None, title: str, text: str,
        buttons=QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        default=QMessageBox.StandardButton.Yes) -> QMessageBox.StandardButton:
    if NON_INTERACTIVE:
        return QMessageBox.StandardButton.Discard if buttons & QMessageBox.StandardButton.Discard \
            else default
    box = QMessageBox(QMessageBox.Icon.Question, title, text, buttons, parent)
    box.setDefaultButton(default)
    return QMessageBox.StandardButton(box.exec())
