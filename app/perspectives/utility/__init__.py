"""The Analyze utility perspective: input beside output, statistics, quality, accuracy.

``create_perspective(context)`` is what the main window calls (see
``app.perspectives``); `UtilityPerspective` can also be used on its own with
``set_result(result, levels)``.
"""
from __future__ import annotations

from app.perspectives.presenter import PerspectiveContext, Presenter
from app.perspectives.utility.perspective import UtilityPerspective

__all__ = ["UtilityPerspective", "UtilityPresenter", "create_perspective"]


def create_perspective(context: PerspectiveContext) -> UtilityPerspective:
    """The perspective bound to the document (`UtilityPresenter`)."""
    page_size = getattr(context.settings, "page_size", 100)
    view = UtilityPerspective(page_size, context.toolbar_actions("show_configure",
                                                                 "anonymize"))
    UtilityPresenter(view, context)
    return view


class UtilityPresenter(Presenter):
    """Keeps the perspective on the document's current transformation.

    * ``document.result_changed``: show the new result's current transformation
      (``document.applied_levels``: the optimum, or the one a reopened project applied);
    * ``document.output_changed(levels)``: show the transformation applied in Explore.
    """

    key = "utility"

    def __init__(self, view: UtilityPerspective, context: PerspectiveContext):
        super().__init__(view, context)
        doc = self.doc
        # out of core the side-by-side records are sorted by the document's data
        view.records.data_source = lambda: doc.data if doc.out_of_core else None
        doc.result_changed.connect(self.result_changed)
        doc.output_changed.connect(self.output_changed)
        if doc.result is not None:
            self.result_changed()

    def result_changed(self) -> None:
        self.view.set_result(self.doc.result, self.doc.applied_levels)

    def output_changed(self, levels=None) -> None:
        self.view.set_result(self.doc.result, levels)
