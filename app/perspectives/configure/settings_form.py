"""A form over one part of the document's settings, kept in step with them."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QFrame, QScrollArea, QVBoxLayout, QWidget

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
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        # a side panel is narrow and short at 1280 x 800: rows scroll, never squash
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QWidget()
        body.setObjectName("settingsBody")
        scroll.setWidget(body)
        outer.addWidget(scroll)
        lay = self.body_layout = QVBoxLayout(body)
        lay.setContentsMargins(10, 10, 10, 10)
        self.form = QFormLayout()
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        lay.addLayout(self.form)
        lay.addStretch()

    def param_form(self, params, name: str):
        """A form of declared parameters (`ParamForm`) whose edits are applied, labels
        above their fields so its rows fit the narrow side panel."""
        from app.widgets.param_form import ParamForm
        form = ParamForm(params)
        form.setObjectName(name)
        form.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        form.changed.connect(self._edited)
        return form

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
