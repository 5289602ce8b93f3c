"""A notice above the perspectives that stays until it is closed: what an export wrote
and where (the status bar clips long messages and forgets them after seconds)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton


class NoticeBar(QFrame):
    """``show_notice(text, folder)``: the text, "Open folder" when a folder is given,
    and a close button. Hidden until then."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("noticeBar")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(10, 6, 6, 6)
        self.text = QLabel()
        self.text.setObjectName("noticeText")
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.text, 1)
        self.open_folder = QToolButton(text="Open folder")
        self.open_folder.clicked.connect(self._open_folder)
        lay.addWidget(self.open_folder)
        self.close_button = QToolButton(text="✕")
        self.close_button.setToolTip("Close this notice")
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(self.hide)
        lay.addWidget(self.close_button)
        self.folder: Path | None = None
        self.hide()

    def show_notice(self, text: str, folder: str | Path | None = None) -> None:
        self.text.setText(text)
        self.folder = Path(folder) if folder else None
        self.open_folder.setVisible(self.folder is not None)
        self.show()

    def _open_folder(self) -> None:
        if self.folder is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.folder)))
