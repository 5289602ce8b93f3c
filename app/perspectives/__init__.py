"""The four perspectives, as ARX has them.

Each perspective other than Configure lives in its own package
(``app.perspectives.explore``, ``.utility``, ``.risk``) exposing
``create_perspective(context: PerspectiveContext) -> QWidget``. Until a package
provides it (or when it fails to load), an empty state says what to do first.
"""
from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass, field

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from app.widgets.empty_state import EmptyState

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PerspectiveSpec:
    key: str
    title: str
    icon: str
    empty_title: str
    empty_text: str


PERSPECTIVES = (
    PerspectiveSpec("configure", "Configure", "configure", "", ""),
    PerspectiveSpec("explore", "Explore", "explore", "Nothing to explore yet",
                    "Explore shows the solution space of an anonymization. Import data, "
                    "configure the quasi-identifiers and privacy models in Configure, then "
                    "press Anonymize."),
    PerspectiveSpec("utility", "Analyze utility", "utility", "No output to analyze yet",
                    "Analyze utility compares the input with the anonymized output. "
                    "Run an anonymization first (Edit > Anonymize)."),
    PerspectiveSpec("risk", "Analyze risk", "risk", "No data to assess yet",
                    "Analyze risk estimates re-identification risks of the input and the "
                    "output. Import data first, then anonymize it."),
)


@dataclass
class PerspectiveContext:
    """What a perspective may use: the document, the window's task controller
    (search runs), settings, and named actions (``anonymize``, ``import``...)."""

    document: object
    tasks: object
    settings: object
    window: QWidget
    actions: dict[str, QAction] = field(default_factory=dict)


def create_perspective(spec: PerspectiveSpec, context: PerspectiveContext) -> QWidget:
    """The perspective's widget, or its empty state."""
    try:
        module = importlib.import_module(f"app.perspectives.{spec.key}")
        factory = getattr(module, "create_perspective", None)
        if factory is not None:
            return factory(context)
    except ModuleNotFoundError as e:
        if e.name != f"app.perspectives.{spec.key}":
            log.exception("perspective %s failed to import", spec.key)
    except Exception:  # noqa: BLE001 - one broken view must not stop the app
        log.exception("perspective %s failed to load", spec.key)
    actions = [context.actions[k] for k in ("show_configure", "anonymize")
               if k in context.actions]
    return EmptyState(spec.empty_title, spec.empty_text, actions)
