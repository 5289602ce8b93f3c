"""Masking: redact one more character per level (``91326`` -> ``9132*`` -> ``913**``)."""
from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QLineEdit, QSpinBox, QWidget

from app.wizards.hierarchy.base_page import BuilderPage
from engine.hierarchy.builders import BuilderError, MaskingSpec

DIRECTIONS = (("Right to left (last character first)", "right_to_left"),
              ("Left to right (first character first)", "left_to_right"))
ALIGNMENTS = (("Left (pad on the right)", "left"), ("Right (pad on the left)", "right"))


def _combo(name: str, items) -> QComboBox:
    combo = QComboBox()
    combo.setObjectName(name)
    for text, data in items:
        combo.addItem(text, data)
    return combo


class MaskingPage(BuilderPage):
    builder = MaskingSpec
    subtitle = ("Each level masks one more character; values are first padded to a "
                "common length.")

    def options(self) -> QWidget:
        box = QWidget()
        form = QFormLayout(box)
        form.setContentsMargins(0, 0, 0, 0)
        self.direction = _combo("direction", DIRECTIONS)
        self.align = _combo("align", ALIGNMENTS)
        self.padding = QLineEdit()
        self.padding.setObjectName("paddingChar")
        self.padding.setMaxLength(1)
        self.padding.setPlaceholderText("space")
        self.mask = QLineEdit("*")
        self.mask.setObjectName("maskChar")
        self.mask.setMaxLength(1)
        self.length = QSpinBox()
        self.length.setObjectName("length")
        self.length.setRange(0, 10_000)
        self.length.setSpecialValueText("longest value")
        self.max_levels = QSpinBox()
        self.max_levels.setObjectName("maxLevels")
        self.max_levels.setRange(0, 10_000)
        self.max_levels.setSpecialValueText("one per character")
        form.addRow("Masking direction", self.direction)
        form.addRow("Alignment", self.align)
        form.addRow("Padding character", self.padding)
        form.addRow("Mask character", self.mask)
        form.addRow("Pad to length", self.length)
        form.addRow("Levels at most", self.max_levels)
        self.example = QLabel()
        self.example.setObjectName("mutedLabel")
        self.example.setWordWrap(True)
        form.addRow(self.example)
        for combo in (self.direction, self.align):
            combo.currentIndexChanged.connect(self.changed)
        for edit in (self.padding, self.mask):
            edit.textChanged.connect(self.changed)
        for spin in (self.length, self.max_levels):
            spin.valueChanged.connect(self.changed)
        return box

    def spec(self) -> MaskingSpec:
        mask = self.mask.text()
        if not mask:
            raise BuilderError("enter a mask character")
        spec = MaskingSpec(direction=self.direction.currentData(), align=self.align.currentData(),
                           padding_char=self.padding.text() or " ", mask_char=mask,
                           length=self.length.value() or None,
                           max_levels=self.max_levels.value() or None)
        sample = "91326"
        shown = [spec.mask(spec.pad(sample, 5), c) for c in spec.masked_counts(5)]
        self.example.setText("Example: " + " → ".join([sample] + shown))
        return spec

    def fill(self, spec: MaskingSpec) -> None:  # type: ignore[override]
        self.direction.setCurrentIndex(max(0, self.direction.findData(spec.direction)))
        self.align.setCurrentIndex(max(0, self.align.findData(spec.align)))
        self.padding.setText("" if spec.padding_char == " " else spec.padding_char)
        self.mask.setText(spec.mask_char)
        self.length.setValue(spec.length or 0)
        self.max_levels.setValue(spec.max_levels or 0)
