"""The four perspectives, as ARX has them.

Configure is built by the main window (it edits the document); each other
perspective lives in its own package (``app.perspectives.explore``, ``.utility``,
``.risk``) exposing ``create_perspective(context: PerspectiveContext) -> QWidget``,
named in the static map `factories`. A perspective that fails to build fails the
window loudly: there is no silent empty page.

One way to bind a perspective to the document: a `Presenter` per perspective. The
view (a plain widget, usable on its own with ``set_result``) knows nothing of the
document; the presenter, built from the typed `PerspectiveContext`, connects the
document's signals to its own methods and tells the view what to show, and the
view's edits to the document. It lives as long as its view (its Qt parent).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from PySide6.QtWidgets import QWidget

from app.perspectives.presenter import PerspectiveContext, Presenter


@dataclass(frozen=True)
class PerspectiveSpec:
    key: str
    title: str
    icon: str


PERSPECTIVES = (
    PerspectiveSpec("configure", "Configure", "configure"),
    PerspectiveSpec("explore", "Explore", "explore"),
    PerspectiveSpec("utility", "Analyze utility", "utility"),
    PerspectiveSpec("risk", "Analyze risk", "risk"),
)


def factories() -> dict[str, Callable[[PerspectiveContext], QWidget]]:
    """Each perspective other than Configure by key: the static map the window builds
    from (imported here, not at the top, because the packages import this module)."""
    from app.perspectives.explore import create_perspective as explore
    from app.perspectives.risk import create_perspective as risk
    from app.perspectives.utility import create_perspective as utility
    return {"explore": explore, "utility": utility, "risk": risk}


def create_perspective(spec: PerspectiveSpec, context: PerspectiveContext) -> QWidget:
    """The perspective's widget."""
    return factories()[spec.key](context)


__all__ = ["PERSPECTIVES", "PerspectiveContext", "PerspectiveSpec", "Presenter",
           "create_perspective", "factories"]
