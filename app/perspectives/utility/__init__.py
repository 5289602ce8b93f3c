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

#: where Explore records the applied transformation while the document has no hook
EXPLORE_APPLIED_KEY = "explore.applied"


def create_perspective(context) -> QWidget:
    """The perspective bound to the document (see `_DocumentBinding`)."""
    page_size = getattr(context.settings, "page_size", 100)
    actions = [context.actions[k] for k in ("show_configure", "anonymize")
               if k in getattr(context, "actions", {})]
    widget = UtilityPerspective(page_size, actions)
    widget._binding = _DocumentBinding(widget, context.document,
                                       getattr(context, "window", None))
    return widget


class _DocumentBinding(QObject):
    """Keeps the perspective on the document's output.

    * ``document.result_changed``: show the new result (its optimum, or
      ``document.output_levels`` when the document has that attribute);
    * ``document.output_changed(levels)`` (if the document has the signal): show
      the output of ``levels``, the transformation applied in Explore;
    * until the document has that signal, Explore keeps the applied levels in
      ``document.extras["explore.applied"]``: they are picked up whenever the
      perspective is shown, if they changed since the result arrived;
    * the window's close (and the application's end) stops the analysis threads.
    """

    def __init__(self, perspective: UtilityPerspective, document, window):
        super().__init__(perspective)
        self.perspective = perspective
        self.doc = document
        self._seen_applied = None
        document.result_changed.connect(self.result_changed)
        applied = getattr(document, "output_changed", None)
        if applied is not None:
            applied.connect(self.output_changed)
        perspective.installEventFilter(self)
        if isinstance(window, QObject):
            window.installEventFilter(self)
        self.window = window
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(perspective.shutdown)
        if document.result is not None:
            self.result_changed()

    def _extras_applied(self):
        extras = getattr(self.doc, "extras", None)
        value = extras.get(EXPLORE_APPLIED_KEY) if isinstance(extras, dict) else None
        return tuple(value) if value else None

    def result_changed(self) -> None:
        self._seen_applied = self._extras_applied()
        self.perspective.set_result(self.doc.result, getattr(self.doc, "output_levels", None))

    def output_changed(self, levels=None) -> None:
        self.perspective.set_result(self.doc.result, levels)

    def _pick_up_applied(self) -> None:
        applied = self._extras_applied()
        result = self.doc.result
        if applied is None or applied == self._seen_applied or result is None:
            return
        self._seen_applied = applied
        if len(applied) == len(result.problem.qis):
            self.perspective.set_result(result, applied)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if obj is self.perspective and event.type() == QEvent.Type.Show:
            self._pick_up_applied()
        elif obj is self.window and event.type() == QEvent.Type.Close:
            self.perspective.shutdown()
        return False
