"""Journey: the person column's role set in Configure ("Identifies the person (several
rows per person)"), anonymized, exported, accepted by ``anonymist verify`` and
recounted per patient from the exported file; the project keeps the role."""
from __future__ import annotations

import pandas as pd
import pytest

from app.person_role import ROLE, ROLE_LABEL
from engine.config import IDENTIFYING, QUASI_IDENTIFYING, SENSITIVE
from tests import person_data
from tests.app.test_journeys import (add_model_through_dialog, anonymize, export,
                                     import_through_wizard, read_export, set_type,
                                     verify_export)

QIS = list(person_data.QIS)


def set_visit_roles(window, folder) -> None:
    """Configure the visits table of ``person_data.write_visits(folder, ...)``: its
    quasi-identifiers with the hierarchies written beside it, the diagnosis sensitive,
    the visit number identifying (the patient number's role is the test's)."""
    conf = window.configure
    set_type(window, QIS, QUASI_IDENTIFYING)
    for name in QIS:
        conf.attributes.select([name])
        assert conf.hierarchy.load_file(folder / f"{name}.csv")
    set_type(window, ["diagnosis"], SENSITIVE)
    set_type(window, ["visit_no"], IDENTIFYING)


def test_journey_person_role_in_configure(qtbot, window, tmp_path, messages, capsys):
    data = person_data.write_visits(tmp_path / "in", person_data.visits(patients=600))
    table = import_through_wizard(qtbot, window, data)
    doc, conf = window.document, window.configure
    set_visit_roles(window, tmp_path / "in")
    # the role, as Configure offers it
    attrs = conf.attributes
    assert attrs.type.itemText(attrs.type.findData(ROLE)) == ROLE_LABEL
    set_type(window, ["patient_no"], ROLE)
    attrs.select(["patient_no"])
    assert attrs.type.currentData() == ROLE
    row = attrs.model.row_of("patient_no")
    assert attrs.model.data(attrs.model.index(row, 1)) == "Person"
    assert not attrs.pseudonym.isEnabled() or attrs.pseudonym.spec() is None
    job = doc.build_job()
    assert job.person == "patient_no" and job.attributes["patient_no"].type == IDENTIFYING
    # before any run, Analyze risk shows the input's risks per person
    source = pd.read_csv(data, sep=";", dtype=str, keep_default_na=False)
    before = source.groupby(QIS)["patient_no"].nunique()
    risk = window.perspectives["risk"]
    qtbot.waitUntil(lambda: risk.sides[0] is not None and risk.summaries[0].n_records
                    == before.sum(), timeout=60_000)  # patients per class, not visits
    assert before.sum() < len(source)
    assert risk.summaries[0].highest_risk == pytest.approx(1 / before.min())
    assert risk.profile.input.caption.text() == (f"{before.sum():,} persons in "
                                                 f"{len(before):,} classes")
    add_model_through_dialog(window, "k-anonymity", k=3)
    conf.privacy.suppression.setValue(5.0)
    assert doc.check_job() is None
    result = anonymize(qtbot, window)
    assert result.problem.counts_persons
    out = export(qtbot, window, tmp_path / "released.csv")
    job_path = verify_export(doc, out, tmp_path, capsys)
    assert 'person = "patient_no"' in job_path.read_text()
    # the export is what the app releases, without the person column ...
    exported = read_export(out)
    assert exported.equals(doc.released().frame.astype(str).reset_index(drop=True))
    assert "patient_no" not in exported.columns and len(exported) == table.n_rows
    # ... and every released class holds 3 patients (recounted with the input, row by row)
    suppressed = (exported[QIS] == "*").all(axis=1).to_numpy()
    kept = exported[QIS][~suppressed].assign(patient=source["patient_no"][~suppressed].values)
    assert kept.groupby(QIS)["patient"].nunique().min() >= 3
    # Analyze risk shows the risks per person: 1 / the fewest patients of a class
    qtbot.waitUntil(lambda: risk.sides[1] is not None, timeout=60_000)
    persons = kept.groupby(QIS)["patient"].nunique()
    assert risk.summaries[1].highest_risk == pytest.approx(1 / persons.min())
    assert risk.summaries[0].highest_risk == pytest.approx(1 / before.min())
    assert risk.summaries[0].n_records == before.sum()  # memberships, not visits
    figures = result.problem.person_figures(result.levels_of())
    assert figures["suppressed_persons"] == source["patient_no"][suppressed].nunique()
    # ... which the result card says
    from app.perspectives.configure.result_summary import summary_text
    assert (f"{figures['suppressed_persons']:,} of {source['patient_no'].nunique():,} "
            f"persons affected") in summary_text(doc.result_summary)[1]
    # the project keeps the role
    with qtbot.waitSignal(window.files.saved, timeout=60_000):
        window.files.save_to(tmp_path / "visits.anonymist")
    from app.main_window import MainWindow
    from app.settings import AppSettings
    again = MainWindow(AppSettings())
    qtbot.addWidget(again)
    try:
        with qtbot.waitSignal(again.files.loaded, timeout=60_000):
            again.files.open_path(tmp_path / "visits.anonymist")
        assert again.document.build_job().person == "patient_no"
    finally:
        again.search.wait_all(10_000)
        again.files.tasks.wait_all(10_000)
        again.perspectives["explore"].shutdown()
    # giving the column a type again ends its role
    set_type(window, ["patient_no"], IDENTIFYING)
    assert doc.build_job().person is None
    assert not messages, messages
