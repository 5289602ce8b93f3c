"""What every builder page shares: options beside a live preview, and finishing.

A page turns its widgets into a specification (`spec`, raising `BuilderError`
with a readable message) and back (`set_spec`). Every edit calls `changed`,
which asks the page's `PreviewBuilder` for a debounced build. Finishing builds
the specification for every selected attribute in a worker thread (previewed
builds are reused), then finishes the wizard.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QHBoxLayout, QSizePolicy, QSplitter, QWidget, QWizard,
                               QWizardPage)

from app.workers import TaskController
from app.wizards.hierarchy.preview import BuiltHierarchy, PreviewBuilder, PreviewPanel, build_one
from app.wizards.hierarchy.widgets import options_scroll
from engine.errors import AnonymistError
from engine.hierarchy.builders import BuilderError, BuilderSpec, column_values, default_spec
from engine.hierarchy.builders.base import natural_order

if TYPE_CHECKING:
    from app.wizards.hierarchy.host import WizardHost


class BuilderPage(QWizardPage):
    """Base of the pages of one builder; subclasses build ``options`` and convert specs."""

    builder: ClassVar[type[BuilderSpec]]
    subtitle: ClassVar[str] = ""

    def __init__(self, wizard: "WizardHost"):
        super().__init__()
        self.wiz = wizard
        self.setObjectName(f"{self.builder.name}Page")
        # QWizard puts a spacer below its pages: only an expanding page fills the height.
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        self.setTitle(f"{self.builder.title} hierarchy for {wizard.attributes_text()}")
        self.setSubTitle(self.subtitle)
        self.preview = PreviewBuilder(wizard.columns, self)
        self.panel = PreviewPanel(self.preview)
        self.panel.attribute.currentTextChanged.connect(self._attribute_chosen)
        self.finisher = TaskController(self)
        self.finisher.progressed.connect(self._finish_progress)
        self.finisher.finished.connect(self._finish_done)
        self.finisher.failed.connect(lambda _label, message: self._finish_failed(message))
        self._pending: BuilderSpec | None = None
        self._initialized = False
        self._loading = False
        self._ready: dict[str, BuiltHierarchy] | None = None
        self._finishing_spec: BuilderSpec | None = None
        self.setup_layout(self.options())

    # --- for subclasses --------------------------------------------------------------------
    def options(self) -> QWidget:
        """The widgets that edit the specification."""
        raise NotImplementedError

    def spec(self) -> BuilderSpec:
        """The specification the widgets describe; `BuilderError` if they are invalid."""
        raise NotImplementedError

    def fill(self, spec: BuilderSpec) -> None:
        """Show ``spec`` in the widgets (signals are ignored meanwhile)."""
        raise NotImplementedError

    def setup_layout(self, options: QWidget) -> None:
        """Options on the left (scrolling if long), the preview on the right."""
        scroll = options_scroll(options)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        split.addWidget(scroll)
        split.addWidget(self.panel)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        split.setSizes([420, 640])
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(split)

    # --- state -------------------------------------------------------------------------------
    def default(self) -> BuilderSpec:
        first = next(iter(self.wiz.columns.values()))
        return default_spec(self.builder, self.wiz.data_type, first)

    def natural_values(self) -> list[str]:
        """The distinct present values of every selected attribute, in natural order."""
        values: dict[str, None] = {}
        for column in self.wiz.columns.values():
            values.update(dict.fromkeys(column_values(column).present))
        return natural_order(self.wiz.data_type, list(values))

    def start_with(self, spec: BuilderSpec) -> None:
        """Show ``spec`` when the page is entered next (reopening a built hierarchy)."""
        self._pending = spec
        if self.wiz.currentPage() is self:
            self.initializePage()

    def set_spec(self, spec: BuilderSpec) -> None:
        self._loading = True
        try:
            self.fill(spec)
        finally:
            self._loading = False
        self.changed()

    def initializePage(self) -> None:
        spec, self._pending = self._pending, None
        if spec is None and not self._initialized:
            try:
                spec = self.default()
            except AnonymistError as e:
                self.preview.report_invalid(str(e))
        self._initialized = True
        if spec is not None:
            self.set_spec(spec)
        self.changed(immediately=True)

    def changed(self, *_, immediately: bool = False) -> None:
        """An option changed: rebuild the preview (after a pause)."""
        if self._loading:
            return
        self._ready = None
        try:
            spec = self.spec()
        except BuilderError as e:
            self.preview.report_invalid(str(e))
            return
        self.preview.request(spec, immediately=immediately)

    def _attribute_chosen(self, name: str) -> None:
        if name:
            self.preview.attribute = name
            self.changed(immediately=True)

    def current_spec(self) -> BuilderSpec | None:
        try:
            return self.spec()
        except BuilderError:
            return None

    def nextId(self) -> int:
        return -1

    # --- finishing ---------------------------------------------------------------------------
    def validatePage(self) -> bool:
        if self._ready is not None:
            self.wiz.set_results({n: (b.hierarchy, self._finishing_spec)
                                  for n, b in self._ready.items()})
            return True
        if self.finisher.running:
            return False
        try:
            spec = self.spec()
        except BuilderError as e:
            self.preview.report_invalid(str(e))
            return False
        done = {n: self.preview.cached(spec, n) for n in self.wiz.columns}
        todo = [n for n, b in done.items() if b is None]
        if not todo:
            self.wiz.set_results({n: (b.hierarchy, spec) for n, b in done.items()})
            return True
        self._finishing_spec = spec
        columns = {n: self.wiz.columns[n] for n in todo}

        def run(report, cancelled):
            built = {}
            for i, (name, column) in enumerate(columns.items()):
                if cancelled():
                    return None
                report((i, len(columns), name))
                try:
                    built[name] = build_one(spec, name, column)
                except BuilderError as e:
                    raise BuilderError(f"attribute '{name}': {e}") from None
            return built

        self.wiz.button(QWizard.WizardButton.FinishButton).setEnabled(False)
        self.finisher.start("Building hierarchies", run)
        return False

    def _finish_progress(self, payload) -> None:
        i, n, name = payload
        self.panel.status.setText(f"Building the hierarchy of '{name}' ({i + 1} of {n})…")

    def _finish_done(self, outcome) -> None:
        self.wiz.button(QWizard.WizardButton.FinishButton).setEnabled(True)
        if outcome.value is None or self._finishing_spec is None:
            return
        spec = self._finishing_spec
        ready = {}
        for name in self.wiz.columns:
            ready[name] = outcome.value.get(name) or self.preview.cached(spec, name)
        if any(b is None for b in ready.values()) or self.current_spec() != spec:
            return  # the options changed while building: the user finishes again
        self._ready = ready
        self.wiz.button(QWizard.WizardButton.FinishButton).click()

    def _finish_failed(self, message: str) -> None:
        self.wiz.button(QWizard.WizardButton.FinishButton).setEnabled(True)
        self._finishing_spec = None
        self.preview.report_invalid(message)

    def shutdown(self) -> None:
        self.preview.shutdown()
        self.finisher.wait_all()
