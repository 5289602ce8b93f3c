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
