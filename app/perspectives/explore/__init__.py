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
#: key of the search's progress curve in ``Document.extras`` (stored in the project file)
PROGRESS_KEY = "explore.progress"


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
        # a search is under way: the next result is its own, with the curve to keep (a
        # run's result arrives in `finished`, before `idle` ends every run)
        self._fresh = False
        if tasks is not None:
            tasks.started.connect(self.run_started)
            tasks.idle.connect(self.run_ended)
            tasks.progressed.connect(view.add_progress)
            tasks.failed.connect(lambda _label, _message: view.run_failed())
        self.result_changed()

    def run_started(self, _label: str = "") -> None:
        self._fresh = True
        self.view.begin_run()

    def run_ended(self) -> None:
        self._fresh = False

    def result_changed(self) -> None:
        doc, view = self.doc, self.view
        fresh, self._fresh = self._fresh, False
        if not fresh:  # a reopened project (or none): its saved curve, not the last run's
            view.quality.restore(doc.extras.get(PROGRESS_KEY) if doc.result else None)
        view.set_result(doc.result)
        if fresh and doc.result is not None:
            doc.extras[PROGRESS_KEY] = view.quality.state()
        view.mark_applied(doc.applied_levels)  # a reopened project's
        view.select_applied()
        view.restore_clipboard(doc.extras.get(CLIPBOARD_KEY, []))

    def clipboard_changed(self) -> None:
        self.doc.extras[CLIPBOARD_KEY] = self.view.clipboard_state()
        self.doc.set_modified(True)


__all__ = ["ExplorePerspective", "ExplorePresenter", "create_perspective", "CLIPBOARD_KEY",
           "PROGRESS_KEY"]
