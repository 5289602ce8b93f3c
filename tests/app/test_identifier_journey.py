"""Journeys: identifiers inside a released column (issue 25, item 2).

(a) Configure: a clinical table imported, its notes flagged under the attribute list
    with what was found and examples; the export refused; Scrub chosen for the notes;
    exported, accepted by ``anonymist verify``, equal to what the app releases, and no
    planted phone, e-mail, IBAN or patient name left (patterns of this test).
(b) The guided release lists the notes among the flagged columns with the three ways
    forward; scrub chosen there; the released file verified and clean.
"""
from __future__ import annotations

import re

import pandas as pd
from app.identifier_choice import SCRUB
from app.wizards.guided.common import (ATTRIBUTES_PAGE, GOAL_PAGE, HIERARCHIES_PAGE,
                                       RELEASE_PAGE, RESULT_PAGE, RUN_PAGE)
from engine.cli import main as cli
from engine.config import IDENTIFYING, INSENSITIVE, QUASI_IDENTIFYING
from tests.app.test_journeys import (add_model_through_dialog, anonymize, export,
                                     import_through_wizard, read_export, set_type,
                                     verify_export)
from tests.clinical_data import clinical, job_text

EMAIL = re.compile(r"\S+@\S+\.\w+")
IBAN = re.compile(r"\bDE\d{2}(?: ?\d{4}){4} ?\d{2}\b")
PHONE = re.compile(r"\+\d[\d ]{8,}\d|\(\d{3}\) \d{3}-\d{4}|\b\d{3}-\d{3}-\d{4}\b|\b06 \d{8}\b")
WAIT = 600_000  # a hang guard only


def clean(frame: pd.DataFrame, names: list[str]) -> None:
    """No planted identifier in any cell (independent patterns and the input's names)."""
    words = {w.lower() for n in names for w in n.split()}
    for column in frame.columns:
        for cell in frame[column]:
            assert not (EMAIL.search(cell) or IBAN.search(cell) or PHONE.search(cell)), cell
            assert not words & {w.lower() for w in re.findall(r"[A-Za-z]+", cell)}, cell


def test_configure_flags_the_notes_and_releases_them_scrubbed(qtbot, window, tmp_path,
                                                              messages, capsys):
    table = clinical(patients=60, seed=4)
    data = table.write(tmp_path)
    job_text(data)  # writes the sex and zip hierarchies beside the data
    import_through_wizard(qtbot, window, data)
    doc, conf = window.document, window.configure
    attrs = conf.attributes
    set_type(window, ["patient_no", "name", "birth_date"], IDENTIFYING)
    set_type(window, ["visit_no", "diagnosis", "notes"], INSENSITIVE)
    set_type(window, ["sex", "zip"], QUASI_IDENTIFYING)
    for name in ("sex", "zip"):
        attrs.select([name])
        assert conf.hierarchy.load_file(tmp_path / f"{name}.csv")
    # the notes are flagged, with what was found and examples
    shown = attrs.warnings.text()
    assert "Identifiers in 'notes'" in shown and "telephone number" in shown
    assert "e-mail address" in shown and "IBAN" in shown and "e.g." in shown
    assert "Identifiers in 'diagnosis'" not in shown
    add_model_through_dialog(window, "k-anonymity", k=3)
    conf.privacy.suppression.setValue(10.0)
    anonymize(qtbot, window)
    # the export is refused, nothing written, the message names the column
    refused = tmp_path / "refused.csv"
    with qtbot.waitSignal(window.files.tasks.failed, timeout=60_000):
        window.files.export_to(refused)
    assert not refused.exists()
    assert any("column 'notes'" in text for _, text in messages), messages
    # Scrub, as Configure offers it
    attrs.select(["notes"])
    editor = attrs.identifiers
    assert editor.choice.isEnabled()
    editor.choice.setCurrentIndex(editor.choice.findData(SCRUB))
    editor.choice.activated.emit(editor.choice.currentIndex())
    assert doc.build_job().attributes["notes"].scrub
    assert "Identifiers in 'notes'" not in attrs.warnings.text()
    anonymize(qtbot, window)
    out = export(qtbot, window, tmp_path / "released.csv")
    job_path = verify_export(doc, out, tmp_path, capsys)
    assert "scrub = true" in job_path.read_text()
    exported = read_export(out)
    assert exported.equals(doc.released().frame.astype(str).reset_index(drop=True))
    assert "[PHONE]" in " ".join(exported["notes"])
    clean(exported, table.names)


def test_guided_release_offers_scrub_for_the_notes(window, qtbot, tmp_path):
    table = clinical(patients=150, seed=9)
    data = table.write(tmp_path)
    wiz = window.guided_release(str(data))

    def next_page(expected: int) -> None:
        qtbot.waitUntil(lambda: wiz.currentPage().isComplete(), timeout=WAIT)
        wiz.next()
        assert wiz.currentId() == expected

    next_page(ATTRIBUTES_PAGE)
    attrs = wiz.currentPage()
    qtbot.waitUntil(lambda: attrs.table.rowCount() == len(table.frame.columns), timeout=WAIT)
    flags = attrs.flags
    assert "notes" in flags.found and flags.isVisible()
    row = list(flags.found).index("notes")
    assert "telephone number" in flags.item(row, 1).text()
    assert flags.item(row, 2).text()  # examples
    combo = flags.cellWidget(row, 3)
    assert [combo.itemData(i) for i in range(combo.count())] == ["identifying", "scrub",
                                                                "keep"]
    flags.choose("notes", SCRUB)
    attrs.accept_all.click()
    next_page(HIERARCHIES_PAGE)
    doc = window.document
    assert doc.attributes["notes"].scrub and doc.attributes["notes"].type in (
        "insensitive", "sensitive")
    next_page(GOAL_PAGE)
    next_page(RUN_PAGE)
    next_page(RESULT_PAGE)
    result_page = wiz.currentPage()
    qtbot.waitUntil(lambda: result_page._data is not None, timeout=WAIT)
    next_page(RELEASE_PAGE)
    release = wiz.currentPage()
    out = tmp_path / "release"
    release.folder.setText(str(out))
    release.with_report.setChecked(False)
    release.release_button.click()
    qtbot.waitUntil(release.isComplete, timeout=WAIT)
    written = out / "share" / "clinical-anonymized.csv"  # the job stays internal
    assert cli(["verify", str(written), str(out / "internal" / "clinical-job.toml")]) == 0
    released = pd.read_csv(written, sep=";", dtype=str, keep_default_na=False)
    assert "notes" in released.columns and "[PHONE]" in " ".join(released["notes"])
    clean(released, table.names)
