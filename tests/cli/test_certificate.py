"""The release certificate (``engine/certificate.py``): ``anonymist verify OUT JOB --report
REPORT.json`` re-checks the release, the job and every hierarchy against the SHA-256 the
report records, and the models and recount; and ``anonymize`` keeps the value mapping out
of the released table's folder unless ``--force``."""
from __future__ import annotations

import json

from engine.cli import EXIT_BAD_INPUT, EXIT_OK, EXIT_VIOLATIONS, main
from tests.engine.release_fixtures import released  # noqa: F401 - a fixture


def _release(folder, out):
    out.mkdir()
    assert main(["anonymize", str(folder / "job.toml"), "--quiet", "--output",
                 str(out / "out.csv"), "--report", str(out / "report.pdf")]) == EXIT_OK


def _verify(folder, out, capsys, job="job.toml"):
    code = main(["verify", str(out / "out.csv"), str(folder / job), "--report",
                 str(out / "report.json")])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


def test_the_report_certifies_the_release_job_and_hierarchies(released, tmp_path,  # noqa: F811
                                                              capsys):
    folder, _ = released
    out = tmp_path / "out"
    _release(folder, out)
    cert = json.loads((out / "report.json").read_text())["certificate"]
    assert cert["job"]["file"] == "job.toml"
    assert sorted(cert["hierarchies"]) == ["age", "marital-status", "race", "sex"]
    assert cert["input"]["file"] == "small.csv" and cert["release"]["file"] == "out.csv"
    code, printed, err = _verify(folder, out, capsys)
    assert code == EXIT_OK, err
    assert printed["certificate"]["ok"] and printed["certificate"]["differences"] == []
    assert "certifies" in err


def test_a_changed_byte_in_the_release_is_named(released, tmp_path, capsys):  # noqa: F811
    """One insensitive cell changed: the recount still passes, the hash does not."""
    folder, _ = released
    out = tmp_path / "out"
    _release(folder, out)
    raw = (out / "out.csv").read_bytes()
    at = raw.index(b"Bachelors")
    (out / "out.csv").write_bytes(raw[:at] + b"Bachelorz" + raw[at + 9:])
    assert main(["verify", str(out / "out.csv"), str(folder / "job.toml")]) == EXIT_OK
    capsys.readouterr()
    code, printed, err = _verify(folder, out, capsys)
    assert code == EXIT_VIOLATIONS
    (difference,) = printed["certificate"]["differences"]
    assert difference.startswith("the release out.csv: SHA-256")
    assert "CERTIFICATE DIFFERS" in err and "the release out.csv" in err


def test_a_changed_hierarchy_is_named(released, tmp_path, capsys):  # noqa: F811
    folder, _ = released
    copy = tmp_path / "job"
    copy.mkdir()
    for f in folder.iterdir():
        (copy / f.name).write_bytes(f.read_bytes())
    out = tmp_path / "out"
    _release(copy, out)
    race = copy / "adult_hierarchy_race.csv"
    race.write_bytes(race.read_bytes().rstrip(b"\n") + b"\nMartian;*\n")  # a value more
    code, printed, err = _verify(copy, out, capsys)
    assert code == EXIT_VIOLATIONS
    assert printed["ok"] is True  # the recount passes: only the certificate differs
    assert [d.split(":")[0] for d in printed["certificate"]["differences"]] == \
        ["the hierarchy of 'race' adult_hierarchy_race.csv"]


def test_a_weaker_job_is_named(released, tmp_path, capsys):  # noqa: F811
    folder, _ = released
    out = tmp_path / "out"
    _release(folder, out)
    (tmp_path / "weak.toml").write_text(
        (folder / "job.toml").read_text().replace("k = 5", "k = 2")
        .replace('path = "small.csv"', f'path = "{folder / "small.csv"}"')
        .replace('hierarchy = "', f'hierarchy = "{folder}/'))
    code, printed, _ = _verify(tmp_path, out, capsys, job="weak.toml")
    assert code == EXIT_VIOLATIONS
    found = printed["certificate"]["differences"]
    assert any(d.startswith("the job file weak.toml") for d in found)
    assert any(d.startswith("the privacy models: the report records model = k-anonymity, "
                            "k = 5") for d in found), found


def test_a_report_without_certificate_is_bad_input(released, tmp_path, capsys):  # noqa: F811
    folder, _ = released
    out = tmp_path / "out"
    _release(folder, out)
    doc = json.loads((out / "report.json").read_text())
    del doc["certificate"]
    (out / "report.json").write_text(json.dumps(doc))
    code = main(["verify", str(out / "out.csv"), str(folder / "job.toml"), "--report",
                 str(out / "report.json")])
    assert code == EXIT_BAD_INPUT
    assert "has no 'certificate'" in capsys.readouterr().err


def test_the_mapping_is_refused_beside_the_release_unless_forced(released, tmp_path,  # noqa: F811
                                                                 capsys):
    folder, _ = released
    args = ["anonymize", str(folder / "job.toml"), "--quiet", "--output",
            str(tmp_path / "out.csv"), "--mapping", str(tmp_path / "map")]
    assert main(args) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "the value mapping" in err and "--force" in err
    assert list(tmp_path.iterdir()) == []  # refused before the search: nothing written
    assert main(args + ["--force"]) == EXIT_OK
    assert (tmp_path / "out.csv").is_file() and (tmp_path / "map" / "age.csv").is_file()
    # a mapping in another folder needs no --force
    (tmp_path / "internal").mkdir()
    assert main(args[:-1] + [str(tmp_path / "internal" / "map")]) == EXIT_OK
