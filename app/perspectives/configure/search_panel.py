"""Search algorithm and its parameters (time and step limits, seed, threshold)."""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QGroupBox, QLabel,
                               QLineEdit, QSpinBox, QVBoxLayout)

from app.document import Document
from app.perspectives.configure.settings_form import SettingsForm
from app.widgets.param_form import ParamForm
from engine.config import ALGORITHM_INFO, ALGORITHMS, TransformationConfig
from engine.schema import dataclass_params
from engine.search import EXACT, heuristic_algorithms
from engine.search.genetic_settings import GeneticParameters, KgenParameters
from engine.transform.job_keys import LOCAL_RECODING_KEYS, LOCAL_RECODING_PARAMS

#: the algorithms with settings of their own in [transformation.genetic]
GENETIC_SETTINGS = {"genetic": GeneticParameters, "kgen": KgenParameters}
#: the search's limits, seed and hand-over threshold ([transformation], declared there)
LIMIT_KEYS = ("time_limit_s", "step_limit", "seed", "heuristic_threshold")
#: records or cells (sdcMicro's local suppression; docs/guide/survey-methods.md)
SUPPRESSION_KEYS = ("suppression", "combinations")
DECLARED = {p.name: p for p in dataclass_params(TransformationConfig)}
THRESHOLD_TIP = ("Above this many transformations the optimal search hands over to "
                 "the genetic search, a heuristic that stops at the time and step limits")


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
                          f"threshold: the search hands over to the genetic search, which stops "
                          f"at the time and step limits with the best transformation found "
                          f"(not proven optimal).")
        return False, ("The optimal search runs until it has proven the optimum and ignores "
                       "time and step limits; they apply only above the heuristic threshold, "
                       "where it hands over to the genetic search." + size)
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
        self.limits = self.param_form([DECLARED[name] for name in LIMIT_KEYS], "searchLimits")
        self.time_limit, self.step_limit, self.seed, self.threshold = (
            self.limits.editors[name] for name in LIMIT_KEYS)
        form.addRow(self.limits)
        self.note = QLabel()
        self.note.setObjectName("mutedLabel")
        self.note.setWordWrap(True)
        form.addRow(self.note)
        self._genetic_rows()
        self._recoding_rows()
        self.follow(self.algorithm.activated, self.practical.toggled,
                    *(w.valueChanged for w in (self.iterations, self.recoding_gs)),
                    self.local.toggled, self.remove_values.toggled,
                    self.marker.editingFinished)
        document.attributes_changed.connect(lambda _names: self._refresh())

    def _genetic_rows(self) -> None:
        """The population searches' settings ([transformation.genetic]), one form per
        algorithm built from the engine's declarations; shown for that algorithm only."""
        self.genetic_forms: dict[str, ParamForm] = {}
        self.genetic_box = QGroupBox()
        self.genetic_box.setObjectName("geneticSettings")
        box = QVBoxLayout(self.genetic_box)
        for algorithm, settings in GENETIC_SETTINGS.items():
            form = self.param_form(dataclass_params(settings), f"settings_{algorithm}")
            box.addWidget(form)
            self.genetic_forms[algorithm] = form
        self.form.addRow(self.genetic_box)

    def _show_genetic(self, t) -> None:
        forms = self.genetic_forms
        for algorithm, form in forms.items():
            form.setVisible(algorithm == t.algorithm)
            form.set_values(dict(t.genetic or {}))
        self.genetic_box.setVisible(t.algorithm in forms)
        self.genetic_box.setTitle(f"{ALGORITHM_INFO[t.algorithm][0]} settings")

    def _genetic_table(self, algorithm: str) -> dict:
        """[transformation.genetic] with the shown algorithm's settings: a value is written
        when the job had it or it differs from its default (a job that named none stays
        without the table); the other search's keys are kept."""
        old = dict(self.doc.settings.transformation.genetic or {})
        form = self.genetic_forms.get(algorithm)
        if form is None:
            return old
        shown = form.values()
        for p in form.params:
            v = shown.get(p.name)
            if v is None:
                old.pop(p.name, None)
            elif p.name in old or v != p.default:
                old[p.name] = v
        return old

    def _recoding_rows(self) -> None:
        """Local recoding after the optimum, the suppression string and whether suppressed
        records lose their other values (README "Transformation methods")."""
        form = self.form
        self.local = QCheckBox("Local recoding")
        self.local.setObjectName("localRecoding")
        self.local.setToolTip("After the optimum, anonymize the suppressed records again on "
                              "their own (ARX's local anonymization)")
        form.addRow(self.local)
        # ranges, labels and tooltips from the declarations (engine.transform.job_keys)
        declared = {p.name: p for p in LOCAL_RECODING_PARAMS}
        iterations, gs = declared["iterations"], declared["gs_factor"]
        self.iterations = QSpinBox()
        self.iterations.setRange(int(iterations.low), 100_000)
        self.iterations.setToolTip(iterations.help)
        form.addRow(iterations.title, self.iterations)
        self.recoding_gs = QDoubleSpinBox()
        self.recoding_gs.setRange(gs.low, gs.high)
        self.recoding_gs.setSingleStep(0.05)
        self.recoding_gs.setDecimals(2)
        self.recoding_gs.setToolTip(gs.help)
        form.addRow(gs.title, self.recoding_gs)
        self.suppression = self.param_form([DECLARED[name] for name in SUPPRESSION_KEYS],
                                           "suppressionSettings")
        form.addRow(self.suppression)
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
        self.limits.set_values({name: getattr(t, name) for name in LIMIT_KEYS})
        local = t.local_recoding or {}
        self.local.setChecked(bool(t.local_recoding))
        self.iterations.setValue(local.get("iterations", LOCAL_RECODING_KEYS["iterations"]))
        self.recoding_gs.setValue(local.get("gs_factor", LOCAL_RECODING_KEYS["gs_factor"]))
        for w in (self.iterations, self.recoding_gs):
            w.setEnabled(bool(t.local_recoding))
        self.marker.setText(t.suppression_string)
        self.remove_values.setChecked(t.remove_suppressed_values)
        self.suppression.set_values({n: getattr(t, n) for n in SUPPRESSION_KEYS})
        self.suppression.editors["combinations"].setEnabled(t.suppression == "cells")
        limited, note = limits_apply(t.algorithm, t.heuristic_threshold,
                                     self.doc.lattice_size())
        for name in LIMIT_KEYS[:3]:
            w = self.limits.editors[name]
            w.setEnabled(limited)
            w.setToolTip(DECLARED[name].help if limited else note)
        self.threshold.setEnabled(t.algorithm == "optimal")
        self.threshold.setToolTip(THRESHOLD_TIP if t.algorithm == "optimal" else
                                  "Only the optimal search hands over to a heuristic")
        self.note.setText(note)
        self._show_genetic(t)

    def apply(self) -> None:
        t = replace(self.doc.settings.transformation,
                    algorithm=self.algorithm.currentData(),
                    practical_monotonicity=self.practical.isChecked(),
                    **{name: self.limits.value(name) for name in LIMIT_KEYS},
                    local_recoding=({**LOCAL_RECODING_KEYS,
                                     **(self.doc.settings.transformation.local_recoding or {}),
                                     "iterations": self.iterations.value(),
                                     "gs_factor": round(self.recoding_gs.value(), 2)}
                                    if self.local.isChecked() else None),
                    suppression_string=self.marker.text() or "*",
                    remove_suppressed_values=self.remove_values.isChecked(),
                    suppression=self.suppression.value("suppression") or "records",
                    combinations=(self.suppression.value("combinations")
                                  if self.suppression.value("suppression") == "cells"
                                  else None),
                    genetic=self._genetic_table(self.algorithm.currentData()))
        if t != self.doc.settings.transformation:
            self.doc.set_transformation(t)
