"""Classification accuracy: the same model trained on input and on output."""
from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QFormLayout, QHBoxLayout, QLabel, QListWidget,
                               QListWidgetItem, QProgressBar, QPushButton, QSpinBox,
                               QStackedWidget, QToolButton, QVBoxLayout, QWidget)

from app.perspectives.utility.charts import RocChart
from app.perspectives.utility.frame_model import FrameModel
from app.perspectives.utility.quality_panel import Card
from app.perspectives.utility.statistics_panel import StatusLine, small_table
from engine.analysis.classification import ClassificationComparison

MODEL_LABELS = {"logistic-regression": "Logistic regression", "naive-bayes": "Naive Bayes",
                "random-forest": "Random forest"}


PLACEHOLDER = ("No comparison yet. Tick the features, choose the target and press Compare: "
               "the same model is trained on the input and on the output, and their "
               "accuracy, AUC, Brier score and ROC curves appear here.")

class ClassificationPanel(QWidget):
    """Choose features, target, model and folds; Run trains in the worker.

    Signals
    -------
    run_requested(list, str, str, int)
        Features, target, model key, folds.
    cancel_requested()
    """

    run_requested = Signal(list, str, str, int)
    cancel_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 8, 8, 4)
        lay.setSpacing(16)
        lay.addWidget(self._build_form())
        lay.addLayout(self._build_results(), 1)
        self.set_running(False)

    def _build_form(self) -> QWidget:
        box = QWidget()
        box.setFixedWidth(290)
        col = QVBoxLayout(box)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(6)
        head = QHBoxLayout()
        title = QLabel("Features")
        title.setObjectName("subTitle")
        head.addWidget(title)
        head.addStretch()
        self.all_features = QToolButton(text="All")
        self.no_features = QToolButton(text="None")
        head.addWidget(self.all_features)
        head.addWidget(self.no_features)
        col.addLayout(head)
        self.features = QListWidget()
        self.features.setObjectName("featureList")
        col.addWidget(self.features, 1)
        form = QFormLayout()
        form.setContentsMargins(0, 4, 0, 0)
        form.setHorizontalSpacing(10)
        self.target = QComboBox()
        form.addRow("Target", self.target)
        self.model = QComboBox()
        for key, label in MODEL_LABELS.items():
            self.model.addItem(label, key)
        form.addRow("Model", self.model)
        self.folds = QSpinBox()
        self.folds.setRange(2, 20)
        self.folds.setValue(5)
        self.folds.setSuffix(" folds")
        form.addRow("Cross-validation", self.folds)
        col.addLayout(form)
        buttons = QHBoxLayout()
        self.run = QPushButton("Compare")
        self.run.setObjectName("primaryButton")
        self.run.setToolTip("Train the model on input and on output with k-fold "
                            "cross-validation")
        self.cancel = QPushButton("Cancel")
        buttons.addWidget(self.run, 1)
        buttons.addWidget(self.cancel)
        col.addLayout(buttons)
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)
        self.progress.setFixedHeight(8)
        col.addWidget(self.progress)
        self.run.clicked.connect(self._run)
        self.cancel.clicked.connect(self.cancel_requested)
        self.all_features.clicked.connect(lambda: self._check_all(True))
        self.no_features.clicked.connect(lambda: self._check_all(False))
        self.target.currentTextChanged.connect(self._target_changed)
        return box

    def _build_results(self) -> QVBoxLayout:
        right = QVBoxLayout()
        right.setSpacing(8)
        cards = QHBoxLayout()
        cards.setSpacing(8)
        self.cards = {"input": Card("accuracy on input"), "output": Card("accuracy on output"),
                      "relative": Card("relative accuracy",
                                       "(output - baseline) / (input - baseline), baseline = "
                                       "always predicting the most frequent class"),
                      "baseline": Card("baseline (majority class)")}
        for c in self.cards.values():
            cards.addWidget(c)
        cards.addStretch()
        right.addLayout(cards)
        # before a comparison: a note instead of an empty table and a bare ROC axis
        self.results = QStackedWidget()
        self.placeholder = QLabel(PLACEHOLDER)
        self.placeholder.setObjectName("mutedLabel")
        self.placeholder.setWordWrap(True)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.results.addWidget(self.placeholder)
        body_widget = QWidget()
        body = QHBoxLayout(body_widget)
        body.setContentsMargins(0, 0, 0, 0)
        body.setSpacing(12)
        self.metrics_model = FrameModel(self)
        self.metrics = small_table(self.metrics_model)
        self.metrics.setFixedWidth(330)
        body.addWidget(self.metrics)
        self.roc = RocChart()
        body.addWidget(self.roc, 1)
        self.results.addWidget(body_widget)
        right.addWidget(self.results, 1)
        self.status = StatusLine("Choose features and a target, then Compare.")
        right.addWidget(self.status)
        return right

    # --- attributes ------------------------------------------------------------------------
    def set_attributes(self, names: list[str], features: list[str], target: str | None) -> None:
        """Offer ``names``; tick ``features``; select ``target``."""
        self.target.blockSignals(True)
        self.target.clear()
        self.target.addItems(names)
        if target in names:
            self.target.setCurrentText(target)
        self.target.blockSignals(False)
        self.features.clear()
        for n in names:
            item = QListWidgetItem(n)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if n in features and n != target
                               else Qt.CheckState.Unchecked)
            self.features.addItem(item)
        self._target_changed(self.target.currentText())

    def selected_features(self) -> list[str]:
        out = []
        for i in range(self.features.count()):
            item = self.features.item(i)
            if item.checkState() == Qt.CheckState.Checked and not item.isHidden() \
                    and item.flags() & Qt.ItemFlag.ItemIsEnabled:
                out.append(item.text())
        return out

    def _check_all(self, on: bool) -> None:
        for i in range(self.features.count()):
            item = self.features.item(i)
            if item.flags() & Qt.ItemFlag.ItemIsEnabled:
                item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    def _target_changed(self, target: str) -> None:
        """The target cannot be a feature: its row is disabled."""
        for i in range(self.features.count()):
            item = self.features.item(i)
            flags = item.flags()
            if item.text() == target:
                item.setFlags(flags & ~Qt.ItemFlag.ItemIsEnabled)
                item.setCheckState(Qt.CheckState.Unchecked)
            else:
                item.setFlags(flags | Qt.ItemFlag.ItemIsEnabled)

    def _run(self) -> None:
        features, target = self.selected_features(), self.target.currentText()
        if not features or not target:
            self.status.setText("Tick at least one feature and choose a target.")
            return
        self.run_requested.emit(features, target, self.model.currentData(), self.folds.value())

    # --- state -------------------------------------------------------------------------------
    def set_running(self, running: bool) -> None:
        self.run.setEnabled(not running)
        self.cancel.setEnabled(running)
        self.progress.setVisible(running)
        if running:
            self.progress.setRange(0, 0)
            self.status.setText("Training on input and output…")

    def report(self, payload) -> None:
        fraction = getattr(payload, "fraction", None)
        if fraction is not None and getattr(payload, "total", 0):
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(fraction * 1000))
            self.status.setText(f"Training… fold {payload.checked} of {payload.total} "
                                f"(input, then output) · {payload.elapsed_s:.1f} s")

    def clear_results(self, message: str) -> None:
        for c in self.cards.values():
            c.set_value("–")
        self.metrics_model.set_frame(None)
        self.roc.clear()
        self.results.setCurrentIndex(0)
        self.status.setText(message)

    def set_unavailable(self, reason: str | None) -> None:
        """Say why no comparison can be made (None: it can), instead of the prompt."""
        self.clear_results("" if reason else "Choose features and a target, then Compare.")
        self.placeholder.setText(reason or PLACEHOLDER)
        self.run.setEnabled(reason is None)

    def message_text(self) -> str:
        """What is shown instead of results (the prompt, or why there are none)."""
        return f"{self.placeholder.text()} {self.status.text()}".strip()

    def show_comparison(self, c: ClassificationComparison) -> None:
        self.cards["input"].set_value(f"{100 * c.input.accuracy:.2f} %")
        self.cards["output"].set_value(f"{100 * c.output.accuracy:.2f} %")
        self.cards["relative"].set_value(f"{100 * c.relative_accuracy:.1f} %")
        self.cards["baseline"].set_value(f"{100 * c.baseline_accuracy:.2f} %")
        frame = pd.DataFrame(
            {"Measure": ["Accuracy", "AUC", "Brier score"],
             "Input": [c.input.accuracy, c.input.auc, c.input.brier],
             "Output": [c.output.accuracy, c.output.auc, c.output.brier]})
        self.metrics_model.set_frame(frame, {"Measure": "text", "Input": "decimal",
                                             "Output": "decimal"},
                                     tooltips={"Measure": "Brier score: lower is better"})
        self.metrics.setColumnWidth(0, 120)
        self.roc.set_curves(c.input.roc, c.output.roc)
        self.results.setCurrentIndex(1)
        self.status.setText(
            f"{MODEL_LABELS.get(c.model, c.model)}, {c.folds}-fold cross-validation on "
            f"{c.records:,} records (out-of-fold predictions). The target comes from the input.")
