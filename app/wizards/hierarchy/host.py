"""What the hierarchy wizard's pages need of their wizard (``HierarchyWizard`` is it):
the attributes' columns and data type, the wizard's buttons and current page, and
where the built hierarchies go. The pages know this, not the wizard's module."""
from __future__ import annotations

from typing import Protocol

from PySide6.QtWidgets import QAbstractButton, QWizard, QWizardPage

from engine.data.datatypes import DataType
from engine.data.table import EncodedColumn
from engine.hierarchy.builders import BuilderSpec
from engine.hierarchy.model import Hierarchy

#: the hierarchies the wizard built, by attribute, with the specification that built
#: each (None: edited by hand)
Results = dict[str, tuple[Hierarchy, BuilderSpec | None]]


class WizardHost(Protocol):
    columns: dict[str, EncodedColumn]
    data_type: DataType

    def attributes_text(self, plain: bool = False) -> str: ...

    def set_results(self, results: Results) -> None: ...

    def button(self, which: QWizard.WizardButton) -> QAbstractButton: ...

    def currentPage(self) -> QWizardPage: ...
