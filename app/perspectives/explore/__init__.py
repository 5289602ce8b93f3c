"""The Explore perspective: browse the solution space, compare candidates, apply one.

``create_perspective(context)`` is what the main window calls; its `ExplorePresenter`
binds the perspective to the document (result, clipboard in the project's extras)
and to the search controller (progress). ``ExplorePerspective`` itself only needs an
``AnonymizationResult`` (``set_result``) and is usable on its own.
"""
from __future__ import annotations

from app.perspectives.explore.perspective import ExplorePerspective
from app.perspectives.presenter import PerspectiveContext, Presenter

#: key of the clipboard in ``Document.extras`` (stored in the project file)
CLIPBOARD_KEY = "explore.clipboard"


def create_perspective(context: PerspectiveContext) -> ExplorePerspective:
    view = ExplorePerspective(context.toolbar_actions("show_configure", "anonymize"))
    ExplorePresenter(view, context)
    return view


class ExplorePresenter(Presenter):
    """The document's result, applied transformation and clipboard; the search's
    progress."""

    key = "explore"

    def __init__(self, view: ExplorePerspective, context: PerspectiveContext):
        super().__init__(view, context)
        doc, tasks = self.doc, context.tasks
        doc.result_changed.connect(self.result_changed)
        doc.output_changed.connect(view.mark_applied)
        view.clipboard_changed.connect(self.clipboard_changed)
        view.transformation_applied.connect(doc.apply_transformation)
        if tasks is not None:
            tasks.started.connect(lambda _label: view.begin_run())
            tasks.progressed.connect(view.add_progress)
            tasks.failed.connect(lambda _label, _message: view.run_failed())
        self.result_changed()

    def result_changed(self) -> None:
        self.view.set_result(self.doc.result)
        self.view.mark_applied(self.doc.applied_levels)  # a reopened project's
        self.view.restore_clipboard(self.doc.extras.get(CLIPBOARD_KEY, []))

    def clipboard_changed(self) -> None:
        self.doc.extras[CLIPBOARD_KEY] = self.view.clipboard_state()
        self.doc.set_modified(True)


__all__ = ["ExplorePerspective", "ExplorePresenter", "create_perspective", "CLIPBOARD_KEY"]
