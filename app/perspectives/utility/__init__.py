"""The Analyze utility perspective: input beside output, statistics, quality, accuracy.

``create_perspective(context)`` is what the main window calls (see
``app.perspectives``); `UtilityPerspective` can also be used on its own with
``set_result(result, levels)``.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QWidget

from app.perspectives.utility.perspective import UtilityPerspective

__all__ = ["UtilityPerspective", "create_perspective"]


def create_perspective(context) -> QWidget:
    """The perspective bound to the document: it shows ``document.result`` whenever it
    changes, and the transformation applied in Explore when the document tells
    (``output_changed(levels)`` signal or ``output_levels`` attribute, if present)."""
    doc = context.document
    page_size = getattr(context.settings, "page_size", 100)
    actions = [context.actions[k] for k in ("show_configure", "anonymize")
               if k in getattr(context, "actions", {})]
    widget = UtilityPerspective(page_size, actions)

    def show_document_result(*_args) -> None:
        widget.set_result(doc.result, getattr(doc, "output_levels", None))

    doc.result_changed.connect(show_document_result)
    applied = getattr(doc, "output_changed", None)
    if applied is not None:
        applied.connect(lambda levels=None: widget.set_result(doc.result, levels))
    app = QApplication.instance()
    if app is not None:
        app.aboutToQuit.connect(widget.shutdown)
    window = getattr(context, "window", None)
    if isinstance(window, QObject):
        widget._close_watcher = _CloseWatcher(widget, window)

    if doc.result is not None:
        show_document_result()
    return widget


class _CloseWatcher(QObject):
    """Stops the perspective's analysis threads when the window closes."""

    def __init__(self, perspective: UtilityPerspective, window: QObject):
        super().__init__(perspective)
        self.perspective = perspective
        window.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Close:
            self.perspective.shutdown()
        return False
