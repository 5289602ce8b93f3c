"""The Add-model dialog is built from the engine's declarations: every one of the 14
models can be added with its defaults and with each choice of its choice parameters,
and what the dialog gives is a valid job that round-trips through the job file."""
from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QLineEdit, QSpinBox

from app.widgets.model_dialog import PrivacyModelDialog, describe_model
from app.widgets.param_form import ParamForm
from engine.config import AttributeConfig, Job
from engine.privacy import MODELS, model_from_dict
from engine.project.job_file import job_from_dict, job_to_dict
from engine.schema import Param

SENSITIVE = ["disease", "income"]
ATTRIBUTES = {"age": AttributeConfig("quasi-identifying"),
              "disease": AttributeConfig("sensitive"), "income": AttributeConfig("sensitive")}


def dialog_cases():
    """(model, {choice parameter: choice} or {}) for defaults and every choice."""
    for name, cls in MODELS.items():
        yield name, {}
        for p in cls.params:
            for c in p.choices:
                yield name, {p.name: c}


def test_every_model_with_defaults_and_every_choice_gives_a_valid_job(qtbot, tmp_path):
    seen = set()
    for name, choice in dialog_cases():
        dialog = PrivacyModelDialog(None, SENSITIVE)
        qtbot.addWidget(dialog)
        dialog.set_model(name)
        assert dialog.summary.text() == MODELS[name].summary != ""
        for key, value in choice.items():
            combo = dialog.form.editors[key]
            combo.setCurrentIndex(combo.findData(value))
        dialog.accept()
        assert dialog.result() == dialog.DialogCode.Accepted, (name, choice,
                                                                dialog.error.text())
        d = dialog.value()
        assert d["model"] == name and all(d[k] == v for k, v in choice.items())
        model = model_from_dict(d)
        for p in MODELS[name].params:  # the declared defaults, as the dialog showed them
            if p.kind != "attribute" and p.name not in choice and p.initial is not None:
                assert getattr(model, p.name) == p.initial, (name, p.name)
        job = Job(attributes=dict(ATTRIBUTES), privacy=[model],
                  subset={"query": "age > 3"}, population={"region": "USA"},
                  base_dir=tmp_path)
        assert job_from_dict(job_to_dict(job), tmp_path) == job
        seen.add(name)
    assert seen == set(MODELS) and len(seen) == 14


def test_widgets_follow_the_declared_kinds(qtbot):
    form = ParamForm([Param("on", "bool", False, help="switch"),
                      Param("how", "choice", "b", choices=("a", "b"), choice_labels=("A", "B")),
                      Param("column", "attribute", None, required=True),
                      Param("n", "int", 5, low=1, high=9, unit="records"),
                      Param("x", "float", 0.5, low=0, high=1, low_open=True),
                      Param("seed", "int", None, low=0),
                      Param("note", "text", None)], attributes=SENSITIVE)
    qtbot.addWidget(form)
    e = form.editors
    assert isinstance(e["on"], QCheckBox) and isinstance(e["how"], QComboBox)
    assert [e["how"].itemText(i) for i in range(2)] == ["A", "B"]
    assert [e["column"].itemText(i) for i in range(2)] == SENSITIVE
    assert isinstance(e["n"], QSpinBox) and (e["n"].minimum(), e["n"].maximum()) == (1, 9)
    assert e["n"].suffix() == " records"
    assert isinstance(e["x"], QDoubleSpinBox) and 0 < e["x"].minimum() < 0.001
    assert isinstance(e["note"], QLineEdit)
    assert e["on"].toolTip() == "switch" and form.help_labels["on"].text() == "switch"
    # an optional parameter without a value is left out, not sent as 0 or ""
    assert form.values() == {"on": False, "how": "b", "column": "disease", "n": 5, "x": 0.5}
    e["seed"].setValue(7)
    e["on"].setChecked(True)
    assert form.values()["seed"] == 7 and form.values()["on"] is True


def test_editing_keeps_the_values_and_the_list_shows_human_names(qtbot):
    table = {"model": "beta-likeness", "attribute": "income", "beta": 2.5, "enhanced": True}
    dialog = PrivacyModelDialog(table, SENSITIVE)
    qtbot.addWidget(dialog)
    assert not dialog.kind.isEnabled() and dialog.kind.currentText() == "β-likeness"
    assert dialog.value() == table
    assert describe_model(table) == "β-likeness (β = 2.5, Enhanced = yes) of 'income'"
    assert describe_model({"model": "k-anonymity", "k": 5}) == "5-anonymity"


def test_a_refused_value_is_shown_and_the_dialog_stays_open(qtbot):
    dialog = PrivacyModelDialog(None, SENSITIVE)
    qtbot.addWidget(dialog)
    dialog.set_model("delta-presence")
    dialog.form.editors["delta_min"].setValue(0.9)
    dialog.form.editors["delta_max"].setValue(0.1)
    dialog.accept()
    assert dialog.result() != dialog.DialogCode.Accepted
    assert "delta_min = 0.9 must not exceed delta_max" in dialog.error.text()


def test_dialog_shrinks_back_after_a_taller_form(qtbot):
    """Switching from a tall form to a short one leaves no empty space below it."""
    dialog = PrivacyModelDialog(None, SENSITIVE)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.set_model("k-anonymity")
    qtbot.waitUntil(lambda: dialog.form.isVisible(), timeout=60_000)
    # the dialog fits its height on a zero timer; one started after it fires after it
    fitted = []
    QTimer.singleShot(0, lambda: fitted.append(True))
    qtbot.waitUntil(lambda: bool(fitted), timeout=60_000)
    short = dialog.height()
    dialog.set_model("differential-privacy")
    qtbot.waitUntil(lambda: dialog.height() > short + 50, timeout=60_000)
    dialog.set_model("k-anonymity")
    qtbot.waitUntil(lambda: dialog.height() <= short + 5, timeout=60_000)


def test_models_of_a_sensitive_attribute_offer_only_sensitive_attributes(qtbot, window):
    """The sample has no sensitive attribute: l-diversity cannot be added "of 'sex'" (a
    quasi-identifier) by accepting the dialog's first choice; it says what to do first."""
    from engine.config import SENSITIVE as SENSITIVE_TYPE
    from tests.app.conftest import open_sample
    open_sample(qtbot, window)
    privacy = window.configure.privacy
    dialog = privacy.make_dialog()
    qtbot.addWidget(dialog)
    dialog.set_model("distinct-l-diversity")
    assert dialog.form.editors["attribute"].count() == 0
    assert dialog.note.isVisibleTo(dialog) and "No attribute is sensitive" in dialog.note.text()
    dialog.accept()
    assert dialog.result() != dialog.DialogCode.Accepted
    assert "Sensitive" in dialog.error.text()
    dialog.set_model("k-anonymity")  # a model without attribute: nothing in the way
    assert not dialog.note.isVisibleTo(dialog)
    dialog.accept()
    assert dialog.result() == dialog.DialogCode.Accepted
    # with salary-class sensitive it is the one choice, and accepted
    window.document.update_attributes(["salary-class"], type=SENSITIVE_TYPE)
    dialog = privacy.make_dialog()
    qtbot.addWidget(dialog)
    dialog.set_model("distinct-l-diversity")
    editor = dialog.form.editors["attribute"]
    assert [editor.itemData(i) for i in range(editor.count())] == ["salary-class"]
    dialog.accept()
    assert dialog.result() == dialog.DialogCode.Accepted
    assert dialog.value()["attribute"] == "salary-class"
    # a model kept from before, of an attribute that is no longer sensitive: shown, refused
    dialog = privacy.make_dialog({"model": "distinct-l-diversity", "attribute": "sex", "l": 2})
    qtbot.addWidget(dialog)
    assert dialog.form.values()["attribute"] == "sex"
    dialog.accept()
    assert dialog.result() != dialog.DialogCode.Accepted
    assert "'sex' is not a sensitive attribute" in dialog.error.text()
