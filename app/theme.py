"""Colours, icons and the stylesheet, loaded from ``resources`` with importlib.resources."""
from __future__ import annotations

from functools import lru_cache
from importlib import resources

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QApplication, QStyle

from engine.config import IDENTIFYING, INSENSITIVE, QUASI_IDENTIFYING, SENSITIVE

TYPE_COLORS = {IDENTIFYING: "#d9534f", QUASI_IDENTIFYING: "#f0ad4e",
               SENSITIVE: "#8e6cc4", INSENSITIVE: "#5cb85c"}
TYPE_LABELS = {IDENTIFYING: "Identifying", QUASI_IDENTIFYING: "Quasi-identifying",
               SENSITIVE: "Sensitive", INSENSITIVE: "Insensitive"}
ACCENT = "#2f6fd6"


def resource_path(*parts: str):
    """A Traversable inside the ``resources`` package."""
    node = resources.files("resources")
    for p in parts:
        node = node.joinpath(p)
    return node


#: the stylesheet's colours as a palette (role, colour; disabled roles separately). The
#: stylesheet is a light theme: widgets it does not draw whole (combo boxes, spin boxes,
#: check boxes, scroll areas, item views' editors) take their backgrounds from the
#: palette, and a dark system palette (dark mode on Windows, macOS, KDE) under the
#: stylesheet's dark text made them unreadable. The app sets this palette instead.
_LIGHT = {
    QPalette.ColorRole.Window: "#f4f6f9", QPalette.ColorRole.WindowText: "#1f2933",
    QPalette.ColorRole.Base: "#ffffff", QPalette.ColorRole.AlternateBase: "#f8fafc",
    QPalette.ColorRole.Text: "#1f2933", QPalette.ColorRole.Button: "#ffffff",
    QPalette.ColorRole.ButtonText: "#1f2933", QPalette.ColorRole.BrightText: "#ffffff",
    QPalette.ColorRole.Highlight: "#2f6fd6", QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.ToolTipBase: "#1f2933", QPalette.ColorRole.ToolTipText: "#ffffff",
    QPalette.ColorRole.PlaceholderText: "#8a94a3", QPalette.ColorRole.Link: "#1d4fa3",
    QPalette.ColorRole.LinkVisited: "#5b3fa0", QPalette.ColorRole.Light: "#ffffff",
    QPalette.ColorRole.Midlight: "#eef2f7", QPalette.ColorRole.Mid: "#c9d1dc",
    QPalette.ColorRole.Dark: "#8a94a3", QPalette.ColorRole.Shadow: "#5a6472",
}
_LIGHT_DISABLED = {
    QPalette.ColorRole.WindowText: "#a0a9b5", QPalette.ColorRole.Text: "#a0a9b5",
    QPalette.ColorRole.ButtonText: "#a0a9b5", QPalette.ColorRole.Base: "#f6f7f9",
    QPalette.ColorRole.Button: "#f6f7f9", QPalette.ColorRole.Highlight: "#c9d1dc",
}


def light_palette() -> QPalette:
    """The palette matching the (light) stylesheet, whatever the system's colour scheme."""
    pal = QPalette()
    for role, color in _LIGHT.items():
        pal.setColor(role, QColor(color))
    for role, color in _LIGHT_DISABLED.items():
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor(color))
    return pal


def apply_theme(qapp) -> None:
    """Fusion, the light palette and the stylesheet on ``qapp``: the look does not depend
    on the system's style or colour scheme (a light stylesheet over a dark palette is
    dark text on dark fields)."""
    if qapp.style().name().lower() != "fusion":
        qapp.setStyle("Fusion")
    hints = qapp.styleHints()
    if hasattr(hints, "setColorScheme"):  # Qt >= 6.8: native parts (dialogs) follow
        hints.setColorScheme(Qt.ColorScheme.Light)
    qapp.setPalette(light_palette())
    qapp.setStyleSheet(stylesheet())


def stylesheet() -> str:
    try:
        return resource_path("style.qss").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError):
        return ""


@lru_cache(maxsize=None)
def dot_icon(color: str, size: int = 12) -> QIcon:
    """A filled circle, the marker of an attribute type."""
    pm = QPixmap(QSize(size, size))
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(QColor(color).darker(130))
    p.setBrush(QColor(color))
    p.drawEllipse(1, 1, size - 2, size - 2)
    p.end()
    return QIcon(pm)


def type_icon(kind: str) -> QIcon:
    return dot_icon(TYPE_COLORS.get(kind, "#999999"))


@lru_cache(maxsize=None)
def icon(name: str, fallback: QStyle.StandardPixmap | None = None) -> QIcon:
    """An SVG icon from ``resources/icons`` or a standard Qt icon."""
    try:
        node = resource_path("icons", f"{name}.svg")
        if node.is_file():
            with resources.as_file(node) as path:
                ic = QIcon(str(path))
                if not ic.isNull():
                    return ic
    except (FileNotFoundError, ModuleNotFoundError):
        pass
    app = QApplication.instance()
    if fallback is not None and app is not None:
        return app.style().standardIcon(fallback)
    return QIcon()
