"""How a perspective is bound to the document: a `Presenter` per perspective, built
from the typed `PerspectiveContext` (see ``app.perspectives``)."""
from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from app.document import Document
from app.settings import AppSettings
from app.workers import Shutdowns, TaskController


@dataclass
class PerspectiveContext:
    """What a perspective may use: the document, the window's task controller
    (search runs; None without a window), settings, named actions (``anonymize``,
    ``import``...), and the window's ``Shutdowns``, where a perspective with threads
    registers its shutdown."""

    document: Document
    tasks: TaskController | None = None
    settings: AppSettings | None = None
    window: QWidget | None = None
    actions: dict[str, QAction] = field(default_factory=dict)
    shutdowns: Shutdowns = field(default_factory=Shutdowns)

    def toolbar_actions(self, *keys: str) -> list[QAction]:
        """The named actions a perspective's empty state offers (those the window has)."""
        return [self.actions[k] for k in keys if k in self.actions]


class Presenter(QObject):
    """Binds one perspective's ``view`` to the document (see the module's text).
    Subclasses name their perspective (``key``: its shutdown's name) and connect the
    document's signals in ``__init__``."""

    key = ""

    def __init__(self, view: QWidget, context: PerspectiveContext):
        super().__init__(view)
        self.view = view
        self.context = context
        self.doc = context.document
        context.shutdowns.register(self.key, view.shutdown)
