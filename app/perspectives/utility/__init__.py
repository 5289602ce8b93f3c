"""The Analyze utility perspective: input beside output, statistics, quality, accuracy.

``create_perspective(context)`` is what the main window calls (see
``app.perspectives``); `UtilityPerspective` can also be used on its own with
``set_result(result, levels)``.
"""
from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from app.perspectives.utility.perspective import UtilityPerspective

__all__ = ["UtilityPerspective", "create_perspective"]


def create_perspective(context) -> QWidget:
    """The perspective bound to the document (see `_DocumentBinding`)."""
    page_size = getattr(context.settings, "page_size", 100)
    actions = [context.actions[k] for k in ("show_configure", "anonymize")
               if k in getattr(context, "actions", {})]
    widget = UtilityPerspective(page_size, actions)
    widget._binding = _DocumentBinding(widget, context.document)
    context.shutdowns.register("utility", widget.shutdown)
    return widget


class _DocumentBinding(QObject):
    """Keeps the perspective on the document's current transformation.

    * ``document.result_changed``: show the new result's current transformation
      (``document.applied_levels``: the optimum, or the one a reopened project applied);
    * ``document.output_changed(levels)``: show the transformation applied in Explore.
    """

    def __init__(self, perspective: UtilityPerspective, document):
        super().__init__(perspective)
        self.perspective = perspective
        self.doc = document
        # out of core the side-by-side records are sorted by the document's data
        perspective.records.data_source = lambda: document.backend_source
        document.result_changed.connect(self.result_changed)
        document.output_changed.connect(self.output_changed)
        if document.result is not None:
            self.result_changed()

    def result_changed(self) -> None:
        self.perspective.set_result(self.doc.result, self.doc.applied_levels)

    def output_changed(self, levels=None) -> None:
        self.perspective.set_result(self.doc.result, levels)
