"""The Explore perspective: browse the solution space, compare candidates, apply one.

``create_perspective(context)`` is what the main window calls; it wires the
perspective to the document (result, clipboard in the project's extras) and to
the search controller (progress). ``ExplorePerspective`` itself only needs an
``AnonymizationResult`` (``set_result``) and is usable on its own.
"""
from __future__ import annotations

from app.perspectives.explore.perspective import ExplorePerspective

#: key of the clipboard in ``Document.extras`` (stored in the project file)
CLIPBOARD_KEY = "explore.clipboard"


def create_perspective(context) -> ExplorePerspective:
    doc, tasks = context.document, context.tasks
    actions = [context.actions[k] for k in ("show_configure", "anonymize")
               if k in context.actions]
    view = ExplorePerspective(actions)

    def result_changed() -> None:
        view.set_result(doc.result)
        view.mark_applied(doc.applied_levels)  # a reopened project's
        view.restore_clipboard(doc.extras.get(CLIPBOARD_KEY, []))

    def clipboard_changed() -> None:
        doc.extras[CLIPBOARD_KEY] = view.clipboard_state()
        doc.set_modified(True)

    doc.result_changed.connect(result_changed)
    doc.output_changed.connect(view.mark_applied)
    view.clipboard_changed.connect(clipboard_changed)
    view.transformation_applied.connect(doc.apply_transformation)
    if tasks is not None:
        tasks.started.connect(lambda _label: view.begin_run())
        tasks.progressed.connect(view.add_progress)
        tasks.failed.connect(lambda _label, _message: view.run_failed())
    context.shutdowns.register("explore", view.shutdown)
    result_changed()
    return view


__all__ = ["ExplorePerspective", "create_perspective", "CLIPBOARD_KEY"]
