"""``anonymist import-arx``: ARX projects built in ARX's layout (tests/cli/arx_projects.py)
imported, anonymized and verified, with what cannot be carried over listed."""
from __future__ import annotations

import csv
import tomllib
from collections import defaultdict
from pathlib import Path

import pytest

from engine.project.arx_import import java_date_format, parse_criterion, parse_metric
from tests.cli.arx_projects import ArxProject, Attribute, write_deid
from tests.shared_data import SHARED

ADULT = SHARED / "data" / "adult"
QIS = ("sex", "age", "race", "marital-status", "education")


def adult_project(**changes) -> ArxProject:
    if not (ADULT / "adult.csv").is_file():
        pytest.skip("the shared Adult data is not here")
    attributes = []
    for name in ("sex", "age", "race", "marital-status", "education", "native-country",
                 "workclass", "occupation", "salary-class"):
        hierarchy = (ADULT / f"adult_hierarchy_{name}.csv").read_text()
        if name in QIS:
            attributes.append(Attribute(name, "QUASI_IDENTIFYING_ATTRIBUTE",
                                        "Integer" if name == "age" else "String",
                                        hierarchy=hierarchy,
                                        max="3" if name == "age" else "All"))
        elif name == "salary-class":
            attributes.append(Attribute(name, "SENSITIVE_ATTRIBUTE", hierarchy=hierarchy))
        else:
            attributes.append(Attribute(name))
    p = ArxProject(data=(ADULT / "adult.csv").read_text(), attributes=attributes,
                   criteria=["5-anonymity", "distinct-2-diversity for attribute "
                                            "'salary-class'"],
                   suppression_limit=0.04, weights={q: 0.5 for q in QIS},
                   metric="Loss (0.3/0.5/0.5)")
    for key, value in changes.items():
        setattr(p, key, value)
    return p


def released_rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter=";"))


def test_an_adult_project_is_imported_anonymized_and_verified(tmp_path, run):
    deid = write_deid(tmp_path / "adult.deid", adult_project())
    out_dir = tmp_path / "imported"
    r = run("import-arx", deid, "--output", out_dir)
    assert r.code == 0, r.err
    job = tomllib.loads((out_dir / "job.toml").read_text())
    # everything relative, beside the job
    assert job["data"] == {"path": "data.csv", "delimiter": ";", "encoding": "utf-8"}
    assert job["attributes"]["age"] == {"type": "quasi-identifying", "data_type": "integer",
                                        "hierarchy": "hierarchies/age.csv", "max_level": 3,
                                        "weight": 0.5}
    assert job["attributes"]["salary-class"]["type"] == "sensitive"
    assert job["attributes"]["workclass"] == {"type": "insensitive"}
    assert job["privacy"] == [{"model": "k-anonymity", "k": 5},
                              {"model": "distinct-l-diversity", "attribute": "salary-class",
                               "l": 2}]
    assert job["transformation"]["suppression_limit"] == 0.04
    assert job["metric"] == {"name": "loss", "gs_factor": 0.3}
    assert (out_dir / "data.csv").read_text() == (ADULT / "adult.csv").read_text()
    assert "not carried over" in r.err.lower() and ".dat" in r.err
    # anonymized and verified by the command line
    out = tmp_path / "out.csv"
    r = run("anonymize", out_dir / "job.toml", "--output", out, "--quiet")
    assert r.code == 0, r.err
    assert run("verify", out, out_dir / "job.toml").code == 0
    # recounted here: classes of at least 5 with 2 salary classes, at most 4 % suppressed
    rows = released_rows(out)
    suppressed = [row for row in rows if all(row[q] == "*" for q in QIS)]
    assert len(suppressed) <= 0.04 * len(rows)
    classes = defaultdict(list)
    for row in rows:
        if row not in suppressed:
            classes[tuple(row[q] for q in QIS)].append(row["salary-class"])
    assert min(len(v) for v in classes.values()) >= 5
    assert min(len(set(v)) for v in classes.values()) >= 2
    # age never above level 3 of its hierarchy (the ARX maximum carried over)
    levels = [set(line.split(";")[j] for line in (ADULT / "adult_hierarchy_age.csv")
                  .read_text().splitlines() if line) for j in range(5)]
    released_ages = {row["age"] for row in rows if row not in suppressed}
    assert any(released_ages <= levels[j] for j in range(4))


def test_delta_presence_with_the_research_subset_of_an_older_project(tmp_path, run):
    subset = (ADULT / "adult_subset.csv")
    if not subset.is_file():
        pytest.skip("the shared Adult subset is not here")
    p = adult_project(criteria=["(0.0,0.5)-presence", "5-anonymity", "Inclusion"],
                      subset=subset.read_text())
    p.attributes = [a if a.name != "salary-class" else Attribute("salary-class")
                    for a in p.attributes]
    deid = write_deid(tmp_path / "subset.deid", p)
    r = run("import-arx", deid, "--output", tmp_path / "job")
    assert r.code == 0, r.err
    job = tomllib.loads((tmp_path / "job" / "job.toml").read_text())
    assert job["subset"] == {"records": "subset.csv"}
    assert {"model": "delta-presence", "delta_min": 0.0, "delta_max": 0.5} in job["privacy"]
    out = tmp_path / "out.csv"
    r = run("anonymize", tmp_path / "job" / "job.toml", "--output", out, "--quiet")
    assert r.code == 0, r.err
    assert run("verify", out, tmp_path / "job" / "job.toml").code == 0


def test_what_cannot_be_carried_over_is_listed_in_the_job_and_on_stderr(tmp_path, run):
    data = "id;born;sex;score\n" + "".join(
        f"{i};0{1 + i % 9}.03.19{60 + i % 30};{'MF'[i % 2]};{i % 7}\n" for i in range(60))
    p = ArxProject(
        data=data,
        attributes=[Attribute("id", "IDENTIFYING_ATTRIBUTE"),
                    Attribute("born", "QUASI_IDENTIFYING_ATTRIBUTE", "Date/Time",
                              "dd.MM.yyyy", hierarchy="".join(
                                  f"0{1 + i % 9}.03.19{60 + i % 30};*\n" for i in range(60))),
                    Attribute("sex", "QUASI_IDENTIFYING_ATTRIBUTE", hierarchy="M;*\nF;*\n"),
                    Attribute("score", "QUASI_IDENTIFYING_ATTRIBUTE", "Decimal", "#.##",
                              microaggregation="Arithmetic mean")],
        criteria=["2-anonymity", "(0.1, 0.2, 0.05)-avg-reidentification-risk",
                  "profitability (prosecutor)"],
        suppression_limit=1.0, metric="Publisher payout (prosecutor)",
        suppressed_types=("QUASI_IDENTIFYING_ATTRIBUTE", "SENSITIVE_ATTRIBUTE"),
        suppression_string="?")
    r = run("import-arx", write_deid(tmp_path / "p.deid", p), "--output", tmp_path / "j")
    assert r.code == 0, r.err
    text = (tmp_path / "j" / "job.toml").read_text()
    job = tomllib.loads(text)
    assert job["attributes"]["born"]["format"] == "%d.%m.%Y"
    assert job["attributes"]["score"]["transformation"] == "microaggregation"
    assert job["attributes"]["score"]["function"] == "arithmetic-mean"
    assert job["transformation"]["suppression_string"] == "?"
    assert job["transformation"]["remove_suppressed_values"] is True
    for lost in ("avg-reidentification-risk", "profitability (prosecutor)",
                 "Publisher payout", "'#.##'", ".dat", "identity"):
        assert lost in r.err and lost in text.split("\n[")[0], lost
    out = tmp_path / "out.csv"
    r = run("anonymize", tmp_path / "j" / "job.toml", "--output", out, "--quiet")
    assert r.code == 0, r.err
    assert run("verify", out, tmp_path / "j" / "job.toml").code == 0


def test_bad_projects_are_named_and_nothing_is_overwritten(tmp_path, run):
    (tmp_path / "text.deid").write_text("not a zip")
    r = run("import-arx", tmp_path / "text.deid", "--output", tmp_path / "a")
    assert r.code == 2 and "not a zip archive" in r.err
    r = run("import-arx", tmp_path / "gone.deid", "--output", tmp_path / "a")
    assert r.code == 2 and "not found" in r.err
    evil = ArxProject(data="a;b\n1;2\n", attributes=[Attribute("a")], criteria=[],
                      extra_xml_entries={"project.xml": (
                          b'<?xml version="1.0"?><!DOCTYPE p [<!ENTITY x SYSTEM '
                          b'"file:///etc/passwd">]><project>&x;</project>')})
    r = run("import-arx", write_deid(tmp_path / "evil.deid", evil), "--output", tmp_path / "b")
    assert r.code == 2 and "refused" in r.err
    assert not (tmp_path / "b").exists()
    evil.extra_xml_entries = {}
    ok = write_deid(tmp_path / "ok.deid", evil)
    assert run("import-arx", ok, "--output", tmp_path / "c").code == 0
    before = (tmp_path / "c" / "job.toml").read_bytes()
    r = run("import-arx", ok, "--output", tmp_path / "c")
    assert r.code == 2 and "already holds data.csv, job.toml" in r.err
    assert (tmp_path / "c" / "job.toml").read_bytes() == before
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "data.csv").write_text("mine")
    r = run("import-arx", ok, "--output", tmp_path / "d")
    assert r.code == 2 and "already holds data.csv" in r.err
    assert (tmp_path / "d" / "data.csv").read_text() == "mine"
    # a failed import leaves nothing behind, in the folder or beside it
    broken = ArxProject(data="a;b\n1;2\n", attributes=[Attribute("a", "NO_SUCH_TYPE")],
                        criteria=[])
    r = run("import-arx", write_deid(tmp_path / "broken.deid", broken), "--output",
            tmp_path / "e")
    assert r.code == 2 and "unknown type 'NO_SUCH_TYPE'" in r.err
    assert not (tmp_path / "e").exists()
    assert not list(tmp_path.glob(".anonymist-import-*"))


@pytest.mark.parametrize("text, table", [
    ("5-anonymity", {"model": "k-anonymity", "k": 5}),
    ("(1.0E-4)-population-uniqueness (dankar)",
     {"model": "population-uniqueness", "threshold": 1e-4, "estimator": "dankar"}),
    ("(0.01)-Population-Uniqueness (Pitman)",
     {"model": "population-uniqueness", "threshold": 0.01, "estimator": "pitman"}),
    ("distinct-3-diversity for attribute 'disease'",
     {"model": "distinct-l-diversity", "attribute": "disease", "l": 3}),
    ("entropy-2.5-diversity for attribute 'disease'",
     {"model": "entropy-l-diversity", "attribute": "disease", "l": 2.5,
      "estimator": "shannon"}),
    ("grassberger-entropy-2.0-diversity for attribute 'Disease'",
     {"model": "entropy-l-diversity", "attribute": "Disease", "l": 2.0,
      "estimator": "grassberger"}),
    ("recursive-(4.0,3)-diversity for attribute 'a b'",
     {"model": "recursive-cl-diversity", "attribute": "a b", "c": 4.0, "l": 3}),
    ("0.2-closeness with equal distance for attribute 'm'",
     {"model": "t-closeness", "attribute": "m", "t": 0.2, "distance": "equal"}),
    ("0.2-closeness with equal ground-distance for attribute 'MARSTAT'",
     {"model": "t-closeness", "attribute": "MARSTAT", "t": 0.2, "distance": "equal"}),
    ("0.15-closeness with hierarchical distance for attribute 'm'",
     {"model": "t-closeness", "attribute": "m", "t": 0.15, "distance": "hierarchical"}),
    ("0.15-closeness with ordered distance for attribute 'm'",
     {"model": "t-closeness", "attribute": "m", "t": 0.15, "distance": "ordered"}),
    ("(0.05,0.6)-presence", {"model": "delta-presence", "delta_min": 0.05, "delta_max": 0.6}),
    ("(0.02)-sample-uniqueness", {"model": "sample-uniqueness", "threshold": 0.02}),
    ("(0.05)-avg-reidentification-risk", {"model": "average-risk", "threshold": 0.05}),
    ("(0.05)-Average-Reidentification-Risk", {"model": "average-risk", "threshold": 0.05}),
    ("(2.0,1.0E-6)-DP", {"model": "differential-privacy", "epsilon": 2.0, "delta": 1e-6}),
    ("1.0-disclosure privacy for attribute 'EDUC'",
     {"model": "delta-disclosure", "attribute": "EDUC", "delta": 1.0}),
    ("basic-2.0-likeness for attribute 's'",
     {"model": "beta-likeness", "attribute": "s", "beta": 2.0, "enhanced": False}),
    ("(5)-map", {"model": "k-map", "k": 5}),
    ("(10)-map estimated as (3)-anonymity (ZERO_TRUNCATED_POISSON)",
     {"model": "k-map", "k": 10, "estimator": "zero-truncated-poisson"}),
    ("Inclusion", {}),
    ("(0.1, 0.2, 0.05)-avg-reidentification-risk",
     {"model": "average-risk", "threshold": 0.1}),
    ("profitability (prosecutor)[benefit=1000.0, loss=200.0, gain=100.0, cost=5.0]",
     {"model": "profitability", "attacker": "prosecutor", "allow_attack": True,
      "publisher_benefit": 1000.0, "publisher_loss": 200.0, "adversary_gain": 100.0,
      "adversary_cost": 5.0}),
    ("no-attack-profitability (journalist)",
     {"model": "profitability", "attacker": "journalist", "allow_attack": False}),
    ("(3)-cost-benefit", None),
])
def test_arx_criterion_strings(text, table):
    from engine.project.arx_import import NOTE
    parsed = parse_criterion(text)
    note = None if parsed is None else parsed.pop(NOTE, None)
    assert parsed == table
    if "0.2, 0.05" in text:  # the part left out is said
        assert "highest risk (0.2 for at most 0.05" in note
    if text.startswith("no-attack"):
        assert "defaults are used" in note
    if table:  # every table is a model Anonymist reads
        from engine.privacy import model_from_dict
        model_from_dict(table, 1)


def test_metric_and_date_formats():
    assert parse_metric("Loss (0.5/0.5/0.5)")[0] == {"name": "loss", "gs_factor": 0.5}
    assert parse_metric("Height")[0] == {"name": "height"}
    assert parse_metric("Non-uniform entropy (original)")[0] == {"name": "entropy"}
    assert parse_metric("Average equivalence class size")[0] == {"name": "aecs"}
    assert parse_metric("Publisher payout (journalist)")[0] is None
    assert java_date_format("dd.MM.yyyy") == "%d.%m.%Y"
    assert java_date_format("yyyy-MM-dd'T'HH:mm:ss") == "%Y-%m-%dT%H:%M:%S"
    assert java_date_format("dd.MM.yyyy G") is None


def test_subset_records_file_is_an_input_never_overwritten(tmp_path, run):
    p = adult_project(criteria=["(0.0,0.5)-presence", "5-anonymity"],
                      subset=(ADULT / "adult_subset.csv").read_text())
    assert run("import-arx", write_deid(tmp_path / "s.deid", p), "--output",
               tmp_path / "j").code == 0
    before = (tmp_path / "j" / "subset.csv").read_bytes()
    r = run("anonymize", tmp_path / "j" / "job.toml", "--output", tmp_path / "j" / "subset.csv")
    assert r.code == 2 and "never overwrites" in r.err
    assert (tmp_path / "j" / "subset.csv").read_bytes() == before


def test_a_quasi_identifier_without_hierarchy_gets_arx_identity(tmp_path, run):
    from tests.cli.conftest import tiny_rows
    data = "name;age;sex;zip;disease\n" + "".join(";".join(r) + "\n" for r in tiny_rows())
    age = "".join(f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*\n" for a in range(20, 80))
    p = ArxProject(data=data, criteria=["2-anonymity"], suppression_limit=0.2, attributes=[
        Attribute("name", "IDENTIFYING_ATTRIBUTE"),
        Attribute("age", "QUASI_IDENTIFYING_ATTRIBUTE", "Integer", hierarchy=age),
        Attribute("sex", "QUASI_IDENTIFYING_ATTRIBUTE", hierarchy="M;*\nF;*\n"),
        Attribute("zip", "QUASI_IDENTIFYING_ATTRIBUTE"),  # none: ARX's identity
        Attribute("disease", "INSENSITIVE_ATTRIBUTE")])
    r = run("import-arx", write_deid(tmp_path / "p.deid", p), "--output", tmp_path / "j")
    assert r.code == 0, r.err
    assert "quasi-identifier 'zip' has no hierarchy" in r.err
    assert sorted((tmp_path / "j" / "hierarchies" / "zip.csv").read_text().split()) == \
        ["11111", "11122", "11133"]
    out = tmp_path / "out.csv"
    assert run("anonymize", tmp_path / "j" / "job.toml", "--output", out, "--quiet").code == 0
    assert run("verify", out, tmp_path / "j" / "job.toml").code == 0
    assert {row["zip"] for row in released_rows(out)} <= {"11111", "11122", "11133", "*"}


def test_a_comma_separated_project_with_semicolons_in_values(tmp_path, run):
    """The project's separator is ','; a value holds ';' (quoted, as ARX's CSV writer
    quotes it): data and hierarchies read as ARX reads them."""
    rows = [(f"p{i}", f"{20 + i % 40}", "M;m" if i % 2 else "F;f") for i in range(60)]
    data = "name,age,sex\n" + "".join(f'{n},{a},"{s}"\n' for n, a, s in rows)
    age = "".join(f"{a},{a // 10 * 10}s,*\n" for a in range(20, 60))
    p = ArxProject(data=data, separator=",", criteria=["3-anonymity"], attributes=[
        Attribute("name", "IDENTIFYING_ATTRIBUTE"),
        Attribute("age", "QUASI_IDENTIFYING_ATTRIBUTE", "Integer", hierarchy=age),
        Attribute("sex", "QUASI_IDENTIFYING_ATTRIBUTE", hierarchy='"M;m",*\n"F;f",*\n')])
    r = run("import-arx", write_deid(tmp_path / "c.deid", p), "--output", tmp_path / "j")
    assert r.code == 0, r.err
    out = tmp_path / "out.csv"
    assert run("anonymize", tmp_path / "j" / "job.toml", "--output", out, "--quiet").code == 0
    assert run("verify", out, tmp_path / "j" / "job.toml").code == 0
    with open(out, newline="", encoding="utf-8") as f:
        sexes = {row["sex"] for row in csv.DictReader(f, delimiter=",")}
    assert sexes <= {"M;m", "F;f", "*"} and sexes & {"M;m", "F;f"}


def test_a_project_given_as_data_says_import_arx(tmp_path, run):
    from tests.cli.conftest import job_text, write_tiny
    write_tiny(tmp_path)
    write_deid(tmp_path / "data.deid", ArxProject(data="a;b\n1;2\n",
                                                  attributes=[Attribute("a")], criteria=[]))
    (tmp_path / "job.toml").write_text(job_text(data="data.deid"))
    r = run("anonymize", tmp_path / "job.toml", "--output", tmp_path / "o.csv")
    assert r.code == 2 and "data.deid is an ARX project" in r.err and "import-arx" in r.err


def test_an_older_project_vocabulary_one(tmp_path, run):
    """ARX's first vocabulary wrote a date's format as its data type, and older versions
    switch suppression off with removeOutliers = false."""
    data = "born;sex\n" + "".join(f"0{1 + i % 9}.03.19{60 + i % 4};{'MF'[i % 2]}\n"
                                  for i in range(40))
    born = "".join(f"0{d}.03.19{y};19{y};*\n" for d in range(1, 10) for y in range(60, 64))
    p = ArxProject(data=data, criteria=["2-anonymity"], suppression_limit=0.5, attributes=[
        Attribute("born", "QUASI_IDENTIFYING_ATTRIBUTE", "dd.MM.yyyy", hierarchy=born),
        Attribute("sex", "QUASI_IDENTIFYING_ATTRIBUTE", hierarchy="M;*\nF;*\n")])
    deid = write_deid(tmp_path / "old.deid", p)
    import zipfile
    with zipfile.ZipFile(deid) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    entries["input/config.xml"] = entries["input/config.xml"].replace(
        b"<config>\n", b"<config>\n\t<removeOutliers>false</removeOutliers>\n")
    with zipfile.ZipFile(deid, "w") as z:
        for n, raw in entries.items():
            z.writestr(n, raw)
    r = run("import-arx", deid, "--output", tmp_path / "j")
    assert r.code == 0, r.err
    job = tomllib.loads((tmp_path / "j" / "job.toml").read_text())
    assert job["attributes"]["born"]["data_type"] == "date"
    assert job["attributes"]["born"]["format"] == "%d.%m.%Y"
    assert job["transformation"]["suppression_limit"] == 0.0
