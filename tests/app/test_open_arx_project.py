"""File > Open takes an ARX project (.deid): imported as a job (engine.project.arx_import),
anonymized, exported, verified, and the same release as the command line's import."""
from __future__ import annotations

from app.file_operations import PROJECT_FILTER
from engine.cli import main as cli_main
from tests.app.test_journeys import anonymize, export, read_export, verify_export
from tests.cli.arx_projects import ArxProject, Attribute, write_deid
from tests.cli.conftest import tiny_rows


def tiny_project() -> ArxProject:
    data = "name;age;sex;zip;disease\n" + "".join(";".join(r) + "\n" for r in tiny_rows())
    age = "".join(f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*\n" for a in range(20, 80))
    return ArxProject(
        data=data,
        attributes=[Attribute("name", "IDENTIFYING_ATTRIBUTE"),
                    Attribute("age", "QUASI_IDENTIFYING_ATTRIBUTE", "Integer", hierarchy=age),
                    Attribute("sex", "QUASI_IDENTIFYING_ATTRIBUTE", hierarchy="M;*\nF;*\n"),
                    Attribute("zip", "QUASI_IDENTIFYING_ATTRIBUTE", hierarchy=(
                        "11111;111**;*\n11122;111**;*\n11133;111**;*\n")),
                    Attribute("disease", "SENSITIVE_ATTRIBUTE")],
        criteria=["3-anonymity", "distinct-2-diversity for attribute 'disease'"],
        suppression_limit=0.1)


def test_open_dialog_offers_arx_projects():
    assert "ARX projects (*.deid)" in PROJECT_FILTER


def test_file_open_imports_an_arx_project(qtbot, window, tmp_path, capsys):
    deid = write_deid(tmp_path / "tiny.deid", tiny_project())
    with qtbot.waitSignal(window.files.loaded, timeout=60_000):
        window.files.open_path(deid)
    doc = window.document
    job = doc.build_job()
    assert {n: a.type for n, a in job.attributes.items()} == {
        "name": "identifying", "age": "quasi-identifying", "sex": "quasi-identifying",
        "zip": "quasi-identifying", "disease": "sensitive"}
    assert [m.to_dict() for m in job.privacy] == [
        {"model": "k-anonymity", "k": 3},
        {"model": "distinct-l-diversity", "attribute": "disease", "l": 2}]
    assert job.transformation.suppression_limit == 0.1
    anonymize(qtbot, window)
    out = export(qtbot, window, tmp_path / "app.csv")
    verify_export(doc, out, tmp_path, capsys)
    # the command line's import of the same project releases the same table
    capsys.readouterr()
    assert cli_main(["import-arx", str(deid), "--output", str(tmp_path / "cli")]) == 0
    assert cli_main(["anonymize", str(tmp_path / "cli" / "job.toml"), "--output",
                     str(tmp_path / "cli.csv"), "--quiet"]) == 0
    assert read_export(out).equals(read_export(tmp_path / "cli.csv"))


def test_file_open_reads_a_job_whose_data_is_a_workbook(qtbot, window, tmp_path, capsys):
    """The app opens a job file whose [data] is a workbook with the job's readers, and
    a hierarchy the job names by its builder is built when it runs."""
    import pandas as pd

    from tests.cli.conftest import job_text, write_tiny
    write_tiny(tmp_path)
    frame = pd.read_csv(tmp_path / "data.csv", sep=";", dtype=str)
    frame.to_excel(tmp_path / "data.xlsx", index=False)
    text = job_text().replace('path = "data.csv"\ndelimiter = ";"\n',
                              'path = "data.xlsx"\ndelimiter = ";"\n')
    text = text.replace('hierarchy = "zip.csv"',
                        'hierarchy = { builder = "masking", align = "right", max_levels = 2 }')
    (tmp_path / "job.toml").write_text(text)
    with qtbot.waitSignal(window.files.loaded, timeout=60_000):
        window.files.open_path(tmp_path / "job.toml")
    doc = window.document
    assert doc.table.n_rows == 60 and doc.source.kind == "excel"
    anonymize(qtbot, window)
    out = export(qtbot, window, tmp_path / "app.csv")
    assert cli_main(["verify", str(out), str(tmp_path / "job.toml")]) == 0
