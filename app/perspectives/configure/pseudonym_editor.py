"""How an identifying attribute is released: removed, keyed pseudonyms (HMAC-SHA-256
with a key file kept outside the project) or masked (first characters kept).

The editor holds where the key is, never the key: "New key…" writes a fresh random
key to a file the user picks (engine.pseudonyms.create_key, owner-only). The methods'
labels, the ranges and the tooltips come from the declarations (engine.pseudonyms.PARAMS)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QComboBox, QFileDialog, QHBoxLayout, QLineEdit, QPushButton,
                               QSpinBox, QWidget)

from app.widgets.dialogs import show_error
from engine.errors import AnonymistError
from engine.pseudonyms import PARAMS, PseudonymSpec, create_key

METHOD = PARAMS["pseudonymize"]
CHOICES = (("removed", "Removed"),) + tuple((m, METHOD.choice_label(m))
                                            for m in METHOD.choices)
#: the mask editor's upper bound (the declaration has none; longer prefixes mask nothing)
MAX_KEEP = 50


class PseudonymEditor(QWidget):
    #: the new spec, or None for "removed"
    edited = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.folder: Path | None = None  # the project's folder: keys may not live there
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.method = QComboBox()
        self.method.setObjectName("pseudonymMethod")
        for key, label in CHOICES:
            self.method.addItem(label, key)
        self.method.setToolTip(f"{METHOD.title}: identifying attributes are removed, or "
                               f"{METHOD.help}. Pseudonyms are still personal data.")
        self.key_file = QLineEdit()
        self.key_file.setObjectName("pseudonymKeyFile")
        self.key_file.setPlaceholderText("key file, outside the project")
        self.key_file.setToolTip(f"{PARAMS['key_file'].title}: {PARAMS['key_file'].help}")
        self.new_key = QPushButton("New key…")
        self.new_key.setToolTip("Write a new random 256-bit key to a file you choose "
                                "(readable by you only); keep it safe: without it later "
                                "releases get other pseudonyms")
        self.keep = QSpinBox()
        keep = PARAMS["keep"]
        self.keep.setRange(int(keep.low), MAX_KEEP)
        self.keep.setPrefix(f"{keep.title.lower()} ")
        self.keep.setToolTip(f"{keep.title}: {keep.help}")
        for w in (self.method, self.key_file, self.new_key, self.keep):
            lay.addWidget(w)
        lay.setStretch(0, 0)
        lay.setStretch(1, 1)
        self.key_file.setMinimumWidth(140)
        self.method.activated.connect(lambda _: self._emit())
        self.key_file.editingFinished.connect(self._emit)
        self.keep.valueChanged.connect(lambda _: self._emit())
        self.new_key.clicked.connect(self.create_key_dialog)
        self._updating = False
        self.show_spec(None, False)

    def show_spec(self, spec: PseudonymSpec | None, enabled: bool) -> None:
        self._updating = True
        try:
            method = spec.method if spec is not None else "removed"
            self.method.setCurrentIndex(self.method.findData(method))
            self.key_file.setText((spec.key_file or "") if spec is not None else "")
            self.keep.setValue(spec.keep if spec is not None else 0)
            self.method.setEnabled(enabled)
            for w in (self.key_file, self.new_key):
                w.setVisible(method == "hmac-sha256")
                w.setEnabled(enabled)
            self.keep.setVisible(method == "mask")
            self.keep.setEnabled(enabled)
        finally:
            self._updating = False

    def spec(self) -> PseudonymSpec | None:
        method = self.method.currentData()
        if method == "hmac-sha256":
            return PseudonymSpec("hmac-sha256", key_file=self.key_file.text().strip() or None)
        if method == "mask":
            return PseudonymSpec("mask", keep=self.keep.value())
        return None

    def _emit(self) -> None:
        if self._updating:
            return
        spec = self.spec()
        if spec is not None and spec.method == "hmac-sha256" and not spec.key_file:
            # keyed, but no key chosen yet: show the key row, change nothing until one is
            for w in (self.key_file, self.new_key):
                w.setVisible(True)
                w.setEnabled(True)
            self.keep.setVisible(False)
            return
        self.show_spec(spec, True)
        self.edited.emit(spec)

    def create_key_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "New pseudonym key", str(Path.home()
                                                                           / "anonymist.key"),
                                              "Key files (*.key);;All files (*)")
        if path:
            self.make_key(Path(path))

    def make_key(self, path: Path) -> bool:
        """Create a key at ``path`` and use it; refuses the project's folder."""
        if self.folder is not None:
            try:
                path.resolve().relative_to(self.folder.resolve())
                show_error(self, "Key inside the project", "Keep the key outside the project "
                           "folder: a shared project would share its key.")
                return False
            except ValueError:
                pass
        try:
            create_key(path)
        except (AnonymistError, OSError) as e:
            show_error(self, "Cannot create the key", str(e))
            return False
        self.method.setCurrentIndex(self.method.findData("hmac-sha256"))
        self.key_file.setText(str(path))
        self._emit()
        return True
