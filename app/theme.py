"""Colours, icons and the stylesheet, loaded from ``resources`` with importlib.resources."""
from __future__ import annotations

from functools import lru_cache
from importlib import resources

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
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
