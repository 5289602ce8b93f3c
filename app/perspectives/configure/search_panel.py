"""Search algorithm and its parameters (time and step limits, seed, threshold)."""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QLabel, QLineEdit,
                               QSpinBox)

from app.document import Document
from app.perspectives.configure.settings_form import SettingsForm
from engine.config import ALGORITHM_INFO, ALGORITHMS
from engine.search import EXACT, heuristic_algorithms
from engine.transform.job_keys import LOCAL_RECODING_KEYS



THRESHOLD_TIP = ("Above this many transformations the optimal search hands over to "
                 "Lightning, a heuristic that stops at the time and step limits")


def limits_apply(algorithm: str, threshold: int, lattice: int | None) -> tuple[bool, str]:
    """Whether the time / step limits and the seed act on ``algorithm`` for a lattice of
    ``lattice`` transformations (None: unknown yet), and a sentence saying so."""
    size = "" if lattice is None else f" This lattice has {lattice:,} transformations."
    if algorithm == "exhaustive":
        return False, ("The exhaustive search checks every transformation: it has no time or "
                       "step limit." + size)
    if algorithm == "optimal":
        if lattice is not None and lattice > threshold:
            return True, (f"This lattice ({lattice:,} transformations) is above the heuristic "
                          f"threshold: the search hands over to Lightning, which stops at the "
                          f"time and step limits with the best transformation found (not "
                          f"proven optimal).")
        return False, ("The optimal search runs until it has proven the optimum and ignores "
                       "time and step limits; they apply only above the heuristic threshold, "
                       "where it hands over to Lightning." + size)
    return True, ("A heuristic: it stops at the time or step limit (without one, after its "
                  "own default) with the best transformation found, not proven optimal.")


class SearchPanel(SettingsForm):
    def __init__(self, document: Document, parent=None):
        super().__init__(document, parent)
        form = self.form
        self.algorithm = QComboBox()
        self.algorithm.setObjectName("algorithm")
        available = set(EXACT) | set(heuristic_algorithms())
        for name in ALGORITHMS:
            label = ALGORITHM_INFO[name][0] + ("" if name in available else " (not available)")
            self.algorithm.addItem(label, name)
        form.addRow("Algorithm", self.algorithm)
        self.practical = QCheckBox("Assume practical monotonicity")
        form.addRow(self.practical)
        self.time_limit = QDoubleSpinBox()
        self.time_limit.setRange(0, 86_400)
        self.time_limit.setSuffix(" s")
        self.time_limit.setSpecialValueText("none")
        form.addRow("Time limit", self.time_limit)
        self.step_limit = QSpinBox()
        self.step_limit.setRange(0, 1_000_000_000)
        self.step_limit.setSpecialValueText("none")
        form.addRow("Step limit", self.step_limit)
        self.seed = QSpinBox()
        self.seed.setRange(-1, 2_000_000_000)
        self.seed.setSpecialValueText("random")
        form.addRow("Random seed", self.seed)
        self.threshold = QSpinBox()
        self.threshold.setRange(1, 2_000_000_000)
        self.threshold.setSingleStep(10_000)
        form.addRow("Heuristic above", self.threshold)
        self.note = QLabel()
        self.note.setObjectName("mutedLabel")
        self.note.setWordWrap(True)
        form.addRow(self.note)
        self._recoding_rows()
        self.follow(self.algorithm.activated, self.practical.toggled,
                    *(w.valueChanged for w in (self.time_limit, self.step_limit, self.seed,
                                               self.threshold, self.iterations,
                                               self.recoding_gs)),
                    self.local.toggled, self.remove_values.toggled,
                    self.marker.editingFinished)
        document.attributes_changed.connect(lambda _names: self._refresh())

    def _recoding_rows(self) -> None:
        """Local recoding after the optimum, the suppression string and whether suppressed
        records lose their other values (README "Transformation methods")."""
        form = self.form
        self.local = QCheckBox("Local recoding")
        self.local.setObjectName("localRecoding")
        self.local.setToolTip("After the optimum, anonymize the suppressed records again on "
                              "their own (ARX's local anonymization)")
        form.addRow(self.local)
        self.iterations = QSpinBox()
        self.iterations.setRange(1, 100_000)
        form.addRow("Iterations", self.iterations)
        self.recoding_gs = QDoubleSpinBox()
        self.recoding_gs.setRange(0.0, 1.0)
        self.recoding_gs.setSingleStep(0.05)
        self.recoding_gs.setDecimals(2)
        self.recoding_gs.setToolTip("gs-factor of the recoding steps: low favours suppression, "
                                    "high generalization")
        form.addRow("Recoding gs-factor", self.recoding_gs)
        self.marker = QLineEdit()
        self.marker.setObjectName("suppressionString")
        self.marker.setMaxLength(40)
        form.addRow("Suppression string", self.marker)
        self.remove_values = QCheckBox("Blank their other values")
        self.remove_values.setToolTip("Suppressed records also lose their sensitive and "
                                      "insensitive values (released as the suppression "
                                      "string)")
        form.addRow("", self.remove_values)

    def show_settings(self) -> None:
        t = self.doc.settings.transformation
        self.algorithm.setCurrentIndex(max(0, self.algorithm.findData(t.algorithm)))
        self.practical.setChecked(t.practical_monotonicity)
        self.time_limit.setValue(t.time_limit_s or 0)
        self.step_limit.setValue(t.step_limit or 0)
        self.seed.setValue(-1 if t.seed is None else t.seed)
        self.threshold.setValue(t.heuristic_threshold)
        local = t.local_recoding or {}
        self.local.setChecked(bool(t.local_recoding))
        self.iterations.setValue(local.get("iterations", LOCAL_RECODING_KEYS["iterations"]))
        self.recoding_gs.setValue(local.get("gs_factor", LOCAL_RECODING_KEYS["gs_factor"]))
        for w in (self.iterations, self.recoding_gs):
            w.setEnabled(bool(t.local_recoding))
        self.marker.setText(t.suppression_string)
        self.remove_values.setChecked(t.remove_suppressed_values)
        limited, note = limits_apply(t.algorithm, t.heuristic_threshold,
                                     self.doc.lattice_size())
        for w in (self.time_limit, self.step_limit, self.seed):
            w.setEnabled(limited)
            w.setToolTip("" if limited else note)
        self.threshold.setEnabled(t.algorithm == "optimal")
        self.threshold.setToolTip(THRESHOLD_TIP if t.algorithm == "optimal" else
                                  "Only the optimal search hands over to a heuristic")
        self.note.setText(note)

    def apply(self) -> None:
        t = replace(self.doc.settings.transformation,
                    algorithm=self.algorithm.currentData(),
                    practical_monotonicity=self.practical.isChecked(),
                    time_limit_s=self.time_limit.value() or None,
                    step_limit=self.step_limit.value() or None,
                    seed=None if self.seed.value() < 0 else self.seed.value(),
                    heuristic_threshold=self.threshold.value(),
                    local_recoding=({**LOCAL_RECODING_KEYS,
                                     **(self.doc.settings.transformation.local_recoding or {}),
                                     "iterations": self.iterations.value(),
                                     "gs_factor": round(self.recoding_gs.value(), 2)}
                                    if self.local.isChecked() else None),
                    suppression_string=self.marker.text() or "*",
                    remove_suppressed_values=self.remove_values.isChecked())
        if t != self.doc.settings.transformation:
            self.doc.update_settings(transformation=t)
