"""The Analyze-risk perspective: risk profile, attacker models, population uniqueness,
HIPAA identifiers and quasi-identifier analysis, input beside output.

``RiskPerspective`` only needs an ``AnonymizationResult`` (``set_result``) or a table
with its quasi-identifiers (``set_input``). ``create_perspective(context)`` is what
the main window calls: it follows the document (result, data, attributes) and the
transformation applied in Explore.
"""
from __future__ import annotations

from PySide6.QtCore import QTimer

from app.person_role import person_of
from app.perspectives.presenter import PerspectiveContext, Presenter
from app.perspectives.risk.perspective import AUTO_LIMIT, RiskPerspective
from app.survey_roles import set_survey, survey_of
from app.widgets.population_editor import records_of
from engine.analysis.risk_comparison import Thresholds
from engine.config import QUASI_IDENTIFYING
from engine.errors import AnonymistError
from engine.privacy.population import PopulationModel

#: settings key of the size above which heavy analyses wait to be asked for
AUTO_LIMIT_KEY = "risk/auto_analysis_limit"
#: key of the thresholds and population model in ``Document.extras`` (kept in projects)
EXTRAS_KEY = "risk"


def auto_limit(settings) -> int:
    try:
        return max(0, int(settings.value(AUTO_LIMIT_KEY, AUTO_LIMIT)))
    except (AttributeError, TypeError, ValueError):
        return AUTO_LIMIT


def create_perspective(context: PerspectiveContext) -> RiskPerspective:
    view = RiskPerspective(context.toolbar_actions("show_configure", "anonymize"),
                           auto_limit(context.settings))
    RiskPresenter(view, context)
    return view


class RiskPresenter(Presenter):
    """The document's result (or its data and quasi-identifiers before a run), the
    transformation applied in Explore, and the thresholds and population model the
    perspective edits (kept in the project, the population in the job)."""

    key = "risk"

    def __init__(self, view: RiskPerspective, context: PerspectiveContext):
        super().__init__(view, context)
        doc = self.doc
        #: the view is being set from the document: its change signals are not edits
        self._restoring = False
        self._timer = QTimer(view)
        self._timer.setSingleShot(True)
        self._timer.setInterval(150)  # attribute edits come in bursts
        self._timer.timeout.connect(self.refresh)
        doc.result_changed.connect(self.result_changed)
        doc.settings_changed.connect(self.show_population)
        view.threshold_bar.thresholds_changed.connect(self.remember)
        view.survey.choice_changed.connect(self.survey_chosen)
        view.uniqueness.population_changed.connect(self.population_edited)
        for name in ("data_changed", "subset_changed"):
            getattr(doc, name).connect(self._timer.start)
        doc.attributes_changed.connect(
            lambda _names: None if doc.result else self._timer.start())
        doc.output_changed.connect(self.output_changed)
        self.restore()
        self.refresh()

    def restore(self) -> None:
        """The project's thresholds and population model."""
        state = self.doc.extras.get(EXTRAS_KEY) or {}
        self._restoring = True
        try:
            if "thresholds" in state:
                self.view.set_thresholds(Thresholds(**state["thresholds"]))
            # the survey measures' weight and household (the job's), and method
            self.view.survey.prefer(**survey_of(self.doc),
                                    method=state.get("survey_method", "approx"))
            self.show_population()
        except (TypeError, ValueError, AnonymistError):
            pass  # a project of another version: keep the defaults
        finally:
            self._restoring = False

    def n_records(self) -> int:
        return records_of(self.doc)

    def show_population(self) -> None:
        """The job's population (Configure edits the same one); without one, ARX's USA."""
        model = (PopulationModel.from_job(self.doc.settings.population, self.n_records())
                 or PopulationModel())
        if model != self.view.uniqueness.editor.model():
            restoring, self._restoring = self._restoring, True
            try:
                self.view.uniqueness.editor.set_model(model)
            finally:
                self._restoring = restoring

    def remember(self, *_args) -> None:
        if self._restoring:
            return
        self.doc.extras[EXTRAS_KEY] = {"thresholds": dict(self.view.thresholds.__dict__),
                                       "survey_method": self.view.survey.choice()["method"]}
        self.doc.set_modified(True)

    def survey_chosen(self) -> None:
        """The weight and household are the job's (app/survey_roles.py); the method
        the perspective's."""
        if self._restoring:
            return
        choice = self.view.survey.choice()
        set_survey(self.doc, choice["weight"], choice["household"])
        self.remember()

    def population_edited(self, model) -> None:
        if self._restoring or model is None:
            return
        population = model.to_job(self.n_records())
        if population != self.doc.settings.population:
            self.doc.set_population(population)

    def refresh(self) -> None:
        doc, view = self.doc, self.view
        state = doc.extras.get(EXTRAS_KEY) or {}
        view.survey.prefer(**survey_of(doc), method=state.get("survey_method", "approx"))
        view._deferred = None  # a count waiting for the view to be shown is stale
        qis = [n for n, a in doc.attributes.items() if a.type == QUASI_IDENTIFYING]
        if doc.result is not None:
            view.set_result(doc.result, doc.applied_levels)
        elif doc.table is not None:
            person = person_of(doc)  # figures per person (app/person_role.py)
            view.set_input(doc.table, qis, doc.subset,
                           None if person is None else doc.table.column(person).codes)
        elif doc.data is not None:  # out of core: the QIs' frequency table, from DuckDB
            data, person = doc.data, person_of(doc)
            persons = (None if person is None or not qis
                       else lambda: data.persons_per_class(qis, person))
            view.set_input_counted(lambda: data.frequency_table(qis), qis, persons)
        else:
            view.set_result(None)

    def result_changed(self) -> None:
        self.restore()  # a project was opened: its thresholds and population model
        self._timer.stop()
        self.refresh()

    def output_changed(self, levels) -> None:  # the current transformation (None: optimum)
        if self.doc.result is not None:
            self.view.set_result(self.doc.result, levels)


__all__ = ["RiskPerspective", "RiskPresenter", "create_perspective", "Thresholds", "PopulationModel",
           "AUTO_LIMIT_KEY"]
