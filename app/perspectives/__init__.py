"""The four perspectives, as ARX has them.

Configure is built by the main window (it edits the document); each other
perspective lives in its own package (``app.perspectives.explore``, ``.utility``,
``.risk``) exposing ``create_perspective(context: PerspectiveContext) -> QWidget``,
named in the static map `factories`. A perspective that fails to build fails the
window loudly: there is no silent empty page.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from app.workers import Shutdowns


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


@dataclass
class PerspectiveContext:
    """What a perspective may use: the document, the window's task controller
    (search runs), settings, named actions (``anonymize``, ``import``...), and the
    window's ``Shutdowns``, where a perspective with threads registers its shutdown."""

    document: object
    tasks: object
    settings: object
    window: QWidget
    actions: dict[str, QAction] = field(default_factory=dict)
    shutdowns: Shutdowns = field(default_factory=Shutdowns)


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
