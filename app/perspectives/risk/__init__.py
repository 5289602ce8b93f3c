"""The Analyze-risk perspective: risk profile, attacker models, population uniqueness,
HIPAA identifiers and quasi-identifier analysis, input beside output.

``RiskPerspective`` only needs an ``AnonymizationResult`` (``set_result``) or a table
with its quasi-identifiers (``set_input``). ``create_perspective(context)`` is what
the main window calls: it follows the document (result, data, attributes) and the
transformation applied in Explore.
"""
from __future__ import annotations

from PySide6.QtCore import QTimer

from engine.privacy.population import PopulationModel
from engine.analysis.risk_comparison import Thresholds
from app.person_role import person_of
from app.perspectives.risk.perspective import AUTO_LIMIT, RiskPerspective
from app.widgets.population_editor import records_of
from engine.config import QUASI_IDENTIFYING
from engine.errors import AnonymistError

#: settings key of the size above which heavy analyses wait to be asked for
AUTO_LIMIT_KEY = "risk/auto_analysis_limit"
#: key of the thresholds and population model in ``Document.extras`` (kept in projects)
EXTRAS_KEY = "risk"


def auto_limit(settings) -> int:
    try:
        return max(0, int(settings.value(AUTO_LIMIT_KEY, AUTO_LIMIT)))
    except (AttributeError, TypeError, ValueError):
        return AUTO_LIMIT


def create_perspective(context) -> RiskPerspective:
    doc = context.document
    actions = [context.actions[k] for k in ("show_configure", "anonymize")
               if k in context.actions]
    view = RiskPerspective(actions, auto_limit(context.settings))
    context.shutdowns.register("risk", view.shutdown)

    restoring = {"on": False}

    def restore() -> None:
        state = doc.extras.get(EXTRAS_KEY) or {}
        restoring["on"] = True
        try:
            if "thresholds" in state:
                view.set_thresholds(Thresholds(**state["thresholds"]))
            show_population()
        except (TypeError, ValueError, AnonymistError):
            pass  # a project of another version: keep the defaults
        finally:
            restoring["on"] = False

    def n_records() -> int:
        return records_of(doc)

    def show_population() -> None:
        """The job's population (Configure edits the same one); without one, ARX's USA."""
        model = (PopulationModel.from_job(doc.settings.population, n_records())
                 or PopulationModel())
        if model != view.uniqueness.editor.model():
            restoring["on"] = True
            try:
                view.uniqueness.editor.set_model(model)
            finally:
                restoring["on"] = False

    def remember(*_args) -> None:
        if restoring["on"]:
            return
        doc.extras[EXTRAS_KEY] = {"thresholds": dict(view.thresholds.__dict__)}
        doc.set_modified(True)

    def population_edited(model) -> None:
        if restoring["on"] or model is None:
            return
        population = model.to_job(n_records())
        if population != doc.settings.population:
            doc.update_settings(population=population)

    def refresh() -> None:
        view._deferred = None  # a count waiting for the view to be shown is stale
        if doc.result is not None:
            view.set_result(doc.result, doc.applied_levels)
        elif doc.table is not None:
            qis = [n for n, a in doc.attributes.items() if a.type == QUASI_IDENTIFYING]
            person = person_of(doc)  # figures per person (app/person_role.py)
            view.set_input(doc.table, qis, doc.subset,
                           None if person is None else doc.table.column(person).codes)
        elif doc.out_of_core:  # too big for memory: the QIs' frequency table, from DuckDB
            data = doc.backend_source
            qis = [n for n, a in doc.attributes.items() if a.type == QUASI_IDENTIFYING]
            view.set_input_counted(lambda: data.frequency_table(qis), qis)
        else:
            view.set_result(None)

    timer = QTimer(view)
    timer.setSingleShot(True)
    timer.setInterval(150)  # attribute edits come in bursts
    timer.timeout.connect(refresh)

    def result_changed() -> None:
        restore()  # a project was opened: its thresholds and population model
        timer.stop()
        refresh()

    def output_changed(levels) -> None:  # the current transformation (None: optimum)
        if doc.result is not None:
            view.set_result(doc.result, levels)

    doc.result_changed.connect(result_changed)
    doc.settings_changed.connect(show_population)
    view.threshold_bar.thresholds_changed.connect(remember)
    view.uniqueness.population_changed.connect(population_edited)
    for name in ("data_changed", "subset_changed"):
        getattr(doc, name).connect(timer.start)
    doc.attributes_changed.connect(lambda _names: None if doc.result else timer.start())
    doc.output_changed.connect(output_changed)
    restore()
    refresh()
    return view


__all__ = ["RiskPerspective", "create_perspective", "Thresholds", "PopulationModel",
           "AUTO_LIMIT_KEY"]
