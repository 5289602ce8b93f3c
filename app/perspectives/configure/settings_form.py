"""A form over one part of the document's settings, kept in step with them."""
from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QVBoxLayout, QWidget

from app.document import Document


class SettingsForm(QWidget):
    """Rows in ``self.form``; ``show_settings`` fills them from the document, ``apply``
    writes an edit back.

    A subclass adds its rows, then calls ``follow`` with the signals of its edits.
    Signals emitted while the form is being filled are not edits.
    """

    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self.doc = document
        self._updating = False
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 10, 10, 10)
        self.form = QFormLayout()
        lay.addLayout(self.form)
        lay.addStretch()

    def follow(self, *edits) -> None:
        """Apply every emission of ``edits``; show the settings now and on every change."""
        for signal in edits:
            signal.connect(self._edited)
        self.doc.settings_changed.connect(self._refresh)
        self._refresh()

    def show_settings(self) -> None:
        raise NotImplementedError

    def apply(self) -> None:
        raise NotImplementedError

    def _refresh(self) -> None:
        self._updating = True
        try:
            self.show_settings()
        finally:
            self._updating = False

    def _edited(self, *_) -> None:
        if not self._updating:
            self.apply()
