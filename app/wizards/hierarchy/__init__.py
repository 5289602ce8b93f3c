"""The hierarchy wizard: build a hierarchy with a builder, or edit an existing one.

For the Configure perspective::

    results = run_hierarchy_wizard(parent, {"age": column}, "integer", existing, spec)
    # None if cancelled, else {"age": (Hierarchy, spec or None)}

or, without blocking, ``HierarchyWizard(...)`` with its ``finished_with(dict)``
signal and ``open()``.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtWidgets import QDialog, QWidget

from app.wizards.hierarchy.host import Results
from app.wizards.hierarchy.wizard import HierarchyWizard, resolve_data_type
from engine.data.table import EncodedColumn
from engine.hierarchy.builders import BuilderSpec
from engine.hierarchy.model import Hierarchy


def run_hierarchy_wizard(parent: QWidget | None, columns: Mapping[str, EncodedColumn],
                         data_type: Any = None, existing: Hierarchy | None = None,
                         spec: BuilderSpec | None = None) -> Results | None:
    """Show the wizard modally; the built or edited hierarchies, or ``None`` if cancelled.

    Parameters
    ----------
    parent
        The window the wizard belongs to.
    columns
        ``{attribute: EncodedColumn}``; several attributes (of one data type) get one
        specification, each its own hierarchy.
    data_type
        A `DataType`, a kind name such as ``"integer"``, ``{"kind": "date", "format":
        "%d.%m.%Y"}``, or ``None`` to detect it from the first column.
    existing
        The attribute's current hierarchy: opened in the editor unless ``spec`` is given.
    spec
        The specification the current hierarchy was built with: reopened in its page.

    Returns
    -------
    ``{attribute: (Hierarchy, spec)}``; ``spec`` is ``None`` for an edited hierarchy.
    """
    wizard = HierarchyWizard(columns, data_type, existing, spec, parent)
    try:
        if wizard.exec() != QDialog.DialogCode.Accepted:
            return None
        return dict(wizard.results)
    finally:
        wizard.deleteLater()


__all__ = ["HierarchyWizard", "Results", "resolve_data_type", "run_hierarchy_wizard"]
