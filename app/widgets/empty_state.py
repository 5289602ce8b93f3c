"""A centred message saying what to do first, with buttons for it."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget, QHBoxLayout


class EmptyState(QWidget):
    def __init__(self, title: str, text: str, actions: list[QAction] = (), parent=None):
        super().__init__(parent)
        self.setObjectName("emptyState")
        layout = QVBoxLayout(self)
        layout.addStretch(2)
        self.title = QLabel(title)
        self.title.setObjectName("emptyTitle")
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.text = QLabel(text)
        self.text.setObjectName("emptyText")
        self.text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.text.setWordWrap(True)
        self.text.setMaximumWidth(560)
        layout.addWidget(self.title)
        layout.addSpacing(8)
        row = QHBoxLayout()
        row.addStretch()
        row.addWidget(self.text)
        row.addStretch()
        layout.addLayout(row)
        layout.addSpacing(16)
        buttons = QHBoxLayout()
        buttons.addStretch()
        self.buttons = []
        for i, action in enumerate(actions):
            b = QPushButton(action.icon(), action.text().replace("&", "").rstrip("."))
            b.setObjectName("primaryButton" if i == 0 else "secondaryButton")
            b.clicked.connect(action.trigger)
            b.setMinimumHeight(34)
            buttons.addWidget(b)
            self.buttons.append(b)
        buttons.addStretch()
        layout.addLayout(buttons)
        layout.addStretch(3)
