"""Journey: ``[data] person`` on a file opened out of core (the persons counted in
DuckDB, engine/backends/person_sql.py): the role set in Configure, Analyze risk per
person before and after, anonymized, exported, accepted by ``anonymist verify``,
recounted per patient from the exported file, and equal to the same job in memory."""
from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtCore import Qt

from app.perspectives import PERSPECTIVES
from app.person_role import ROLE
from engine.analysis.risk_comparison import result_sides
from engine.config import IDENTIFYING
from tests import person_data
from tests.app.test_journeys import (add_model_through_dialog, anonymize, apply_in_explore,
                                     export, in_memory, other_anonymous, read_export,
                                     set_type, verify_export)
from tests.app.test_out_of_core_window import _close_data, open_out_of_core  # noqa: F401
from tests.app.test_person_journey import set_visit_roles

QIS = list(person_data.QIS)


def test_person_journey_out_of_core(qtbot, window, tmp_path, messages, capsys):
    data = person_data.write_visits(tmp_path / "in", person_data.visits(patients=600))
    doc = open_out_of_core(qtbot, window, data)
    conf = window.configure
    set_visit_roles(window, tmp_path / "in")
    set_type(window, ["patient_no"], IDENTIFYING)
    source = pd.read_csv(data, sep=";", dtype=str, keep_default_na=False)
    before = source.groupby(QIS)["patient_no"].nunique()
    assert before.sum() < len(source)  # patients repeat: visits would count more
    # before any run, Analyze risk counts the input in DuckDB: visits without the role ...
    window.show()
    risk = window.perspectives["risk"]
    window.show_perspective([s.key for s in PERSPECTIVES].index("risk"))
    qtbot.waitUntil(lambda: risk.sides[0] is not None and set(risk.sides[0].qis) == set(QIS)
                    and risk.summaries[0] is not None, timeout=60_000)
    assert "counted by DuckDB" in risk.subtitle.text()
    assert risk.summaries[0].n_records == len(source)
    caption = risk.profile.input.caption
    assert caption.text() == f"{len(source):,} records in {risk.sides[0].sizes.n_classes:,} classes"
    # ... and the patients of each class once the role is set (counted again)
    set_type(window, ["patient_no"], ROLE)
    assert doc.build_job().person == "patient_no"
    qtbot.waitUntil(lambda: risk.summaries[0] is not None
                    and risk.summaries[0].n_records == before.sum(), timeout=60_000)
    assert risk.summaries[0].n_records == before.sum()  # memberships, not visits
    assert risk.summaries[0].highest_risk == pytest.approx(1 / before.min())
    assert caption.text() == f"{before.sum():,} persons in {len(before):,} classes"
    add_model_through_dialog(window, "k-anonymity", k=3)
    conf.privacy.suppression.setValue(5.0)
    assert doc.check_job() is None
    result = anonymize(qtbot, window)
    assert result.problem.backend is not None and result.problem.counts_persons
    # the same job in memory finds the same transformation
    memory = in_memory(doc.build_job())
    assert memory.optimum.levels == result.optimum.levels
    # another anonymous transformation applied in Explore is what is exported
    levels = other_anonymous(result)
    assert levels != result.levels_of(None)
    apply_in_explore(qtbot, window, levels)
    out = export(qtbot, window, tmp_path / "released.csv")
    verify_export(doc, out, tmp_path, capsys)
    exported = read_export(out)
    assert "patient_no" not in exported.columns and len(exported) == len(source)
    # every released class holds 3 patients (recounted with the input, row by row)
    suppressed = (exported[QIS] == "*").all(axis=1).to_numpy()
    kept = exported[QIS][~suppressed].assign(patient=source["patient_no"][~suppressed].values)
    persons = kept.groupby(QIS)["patient"].nunique()
    assert persons.min() >= 3
    # the export is the in-memory release, cell for cell
    want = memory.transformed(levels).frame.astype(str).reset_index(drop=True)
    assert exported.equals(want[list(exported.columns)])
    # Analyze risk after: per person, as in memory, and as recounted from the file
    expected = result_sides(memory, levels)
    qtbot.waitUntil(lambda: risk.sides[1] is not None and sorted(risk.sides[1].sizes.sample)
                    == sorted(expected[1].sizes.sample), timeout=60_000)  # the applied one
    assert sorted(risk.sides[0].sizes.sample) == sorted(expected[0].sizes.sample)
    assert sorted(risk.sides[1].sizes.sample) == sorted(persons)
    qtbot.waitUntil(lambda: risk.summaries[1] is not None, timeout=60_000)
    assert risk.summaries[1].highest_risk == pytest.approx(1 / persons.min())
    # the records shown side by side are the file's
    window.show_perspective([s.key for s in PERSPECTIVES].index("utility"))
    records = window.perspectives["utility"].records.output_model
    qtbot.waitUntil(lambda: records.rowCount() == len(exported), timeout=60_000)
    header = [records.headerData(c, Qt.Orientation.Horizontal)
              for c in range(records.columnCount())]
    assert header == list(exported.columns)
    for block in (range(10), range(len(exported) - 10, len(exported))):
        def cells(block=block):
            return [[records.data(records.index(r, c)) for c in range(records.columnCount())]
                    for r in block]
        cells()  # asks for the block
        qtbot.waitUntil(lambda cells=cells: "…" not in sum(cells(), []), timeout=30_000)
        assert cells() == exported.iloc[list(block)].values.tolist()
    assert not [m for m in messages if "Traceback" in m[1]]
