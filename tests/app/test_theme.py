"""The look does not depend on the system's colour scheme: under a dark system palette
the light stylesheet's dark text must still sit on light fields (combo boxes, spin boxes,
check boxes draw their backgrounds from the palette, not from the stylesheet)."""
from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QPalette

from app.theme import apply_theme
from tests.app.conftest import open_sample, restore_look, saved_look

DARK = {QPalette.ColorRole.Window: "#2b2b2b", QPalette.ColorRole.WindowText: "#e6e6e6",
        QPalette.ColorRole.Base: "#1e1e1e", QPalette.ColorRole.AlternateBase: "#262626",
        QPalette.ColorRole.Text: "#e6e6e6", QPalette.ColorRole.Button: "#353535",
        QPalette.ColorRole.ButtonText: "#e6e6e6"}


def luminance(c: QColor) -> float:
    def lin(v: float) -> float:
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
    return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF())


def contrast(a: QColor, b: QColor) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def text_contrast(widget) -> float:
    """The contrast of the text drawn in ``widget`` against its field: the commonest
    colour of the inner half (the field) against the pixel that differs most from it."""
    image = widget.grab().toImage()
    w, h = image.width(), image.height()
    counts: dict[int, int] = {}
    pixels = []
    for y in range(h // 4, 3 * h // 4):
        for x in range(4, int(w * 0.6)):
            rgb = image.pixel(x, y)
            counts[rgb] = counts.get(rgb, 0) + 1
            pixels.append(rgb)
    field = QColor(max(counts, key=counts.get))
    return max(contrast(field, QColor(p)) for p in pixels)


@pytest.fixture
def dark_system(qapp):
    """The system's dark palette, and the app's theme applied over it (as at start-up)."""
    saved = saved_look(qapp)
    dark = QPalette()
    for role, color in DARK.items():
        dark.setColor(role, QColor(color))
    qapp.setPalette(dark)
    apply_theme(qapp)
    yield
    restore_look(qapp, saved)


def test_fields_stay_readable_under_a_dark_system_palette(qtbot, window, dark_system):
    open_sample(qtbot, window)
    window.show()
    qtbot.waitExposed(window)
    attrs, privacy = window.configure.attributes, window.configure.privacy
    attrs.select(["age"])
    assert attrs.type.currentText() == "Quasi-identifying"
    for widget in (attrs.type, attrs.weight, attrs.min_level, privacy.suppression):
        assert widget.isVisible()
        ratio = text_contrast(widget)
        assert ratio >= 4.5, (widget.objectName() or type(widget).__name__, ratio)
    # the palette itself is light: a view's editor or a scroll area's viewport is too
    pal = window.configure.attributes.weight.palette()
    assert luminance(pal.color(QPalette.ColorRole.Base)) > 0.8
    assert contrast(pal.color(QPalette.ColorRole.Base), pal.color(QPalette.ColorRole.Text)) > 7
