"""Pseudonyms for identifying attributes: stable under one key, different under another,
the key in no written file, verify accepts them and refuses raw identifiers."""
from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

import engine
from engine.api import as_job
from engine.cli import main
from engine.errors import JobError
from engine.project.job_file import job_to_dict, save_job
from engine.pseudonyms import create_key, hmac_pseudonyms, mask_values
from engine.verify import verify_frame
from tests.engine.conftest import ADULT, adult_job_text

QIS = ["sex", "age", "race", "marital-status"]


def _job(name_keys: str) -> str:
    return (adult_job_text(qis=QIS, data="people.csv")
            + f'\n[attributes."name"]\ntype = "identifying"\npseudonymize = "hmac-sha256"\n'
              f'{name_keys}\n'
            + '\n[attributes."phone"]\ntype = "identifying"\npseudonymize = "mask"\nkeep = 3\n')


@pytest.fixture
def project(tmp_path):
    """(project folder, folder of keys outside it, the input frame)."""
    folder, keys = tmp_path / "project", tmp_path / "keys"
    folder.mkdir()
    for q in QIS:
        shutil.copy(ADULT / f"adult_hierarchy_{q}.csv", folder)
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False).head(2000)
    frame.insert(0, "name", [f"Person {i % 1900}" for i in range(len(frame))])
    frame.insert(1, "phone", [f"+41 79 {i:07d}" for i in range(len(frame))])
    frame.loc[5, "name"] = ""
    frame.to_csv(folder / "people.csv", sep=";", index=False)
    return folder, keys, frame


def _release(folder, keys_line):
    (folder / "job.toml").write_text(_job(keys_line))
    return engine.anonymize(None, folder / "job.toml")


def test_stable_under_one_key_different_under_another(project):
    folder, keys, frame = project
    create_key(keys / "a.key")
    create_key(keys / "b.key")
    first = _release(folder, f'key_file = "{keys / "a.key"}"').output
    again = _release(folder, f'key_file = "{keys / "a.key"}"').output
    other = _release(folder, f'key_file = "{keys / "b.key"}"').output
    assert list(first.columns[:2]) == ["name", "phone"]
    assert first["name"].equals(again["name"])
    named = frame["name"] != ""
    assert (first["name"][named] != other["name"][named]).all()
    assert (first["name"][~named] == "").all()
    # one pseudonym per person: equal names equal pseudonyms, different names different
    pairs = pd.DataFrame({"n": frame["name"], "p": first["name"]})[named].drop_duplicates()
    assert pairs["n"].is_unique and pairs["p"].is_unique
    assert first["name"].str.fullmatch("[0-9a-f]{16}")[named].all()
    assert (first["phone"].str[:3] == "+41").all()
    assert (first["phone"].str[3:].str.fullmatch(r"\**")).all()
    assert (first["phone"].str.len() == frame["phone"].str.len()).all()


def test_the_key_is_in_no_written_file(project, tmp_path, capsys):
    folder, keys, frame = project
    (folder / "job.toml").write_text(_job(f'key_file = "{keys / "study.key"}"'))
    out = tmp_path / "release"
    out.mkdir()
    (tmp_path / "internal").mkdir()
    keys.mkdir(exist_ok=True)  # outputs go into existing folders only
    args = ["anonymize", str(folder / "job.toml"), "--quiet", "--create-keys",
            "--output", str(out / "out.csv"), "--result", str(out / "result.json"),
            "--mapping", str(tmp_path / "internal" / "map"), "--report", str(out / "report.pdf"),
            "--pseudonym-table", str(keys / "lookup.csv")]
    assert main(args) == 0
    assert "created key file" in capsys.readouterr().err
    key_text = (keys / "study.key").read_text().strip()
    assert (keys / "study.key").stat().st_mode & 0o077 == 0
    save_job(as_job(folder / "job.toml"), folder / "saved.toml")
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "study.key"]
    assert len(written) > 10
    for p in written:
        data = p.read_bytes()
        assert key_text.encode() not in data and bytes.fromhex(key_text) not in data, p
    released = pd.read_csv(out / "out.csv", sep=";", dtype=str, keep_default_na=False)
    report = json.loads((out / "report.json").read_text())
    assert report["verification"]["ok"] is True
    name_entry = next(a for a in report["configuration"]["attributes"] if a["name"] == "name")
    assert name_entry["pseudonym"]["key_file"] == str(keys / "study.key")
    # the reversible table leads back from the release to the input
    lookup = pd.read_csv(keys / "lookup.csv", sep=";", dtype=str, keep_default_na=False)
    names = lookup[lookup["attribute"] == "name"].set_index("pseudonym")["value"]
    named = released["name"] != ""
    assert (released["name"][named].map(names) == frame["name"][named]).all()
    # a second run with the existing key gives the same pseudonyms
    assert main(args[:-2] + ["--output", str(out / "again.csv")]) == 0
    again = pd.read_csv(out / "again.csv", sep=";", dtype=str, keep_default_na=False)
    assert again["name"].equals(released["name"])


def test_verify_accepts_pseudonyms_and_refuses_raw_identifiers(project):
    folder, keys, frame = project
    create_key(keys / "a.key")
    result = _release(folder, f'key_file = "{keys / "a.key"}"')
    job = as_job(folder / "job.toml")
    assert verify_frame(result.output, job).ok
    leaked = result.output.copy()
    leaked["name"] = frame["name"]
    report = verify_frame(leaked, job)
    assert not report.ok and "not hmac-sha256 pseudonyms" in report.violations[0]


def test_key_sources_and_refusals(project, monkeypatch):
    folder, keys, _ = project
    monkeypatch.setenv("ANON_TEST_KEY", "00" * 32)
    from_env = _release(folder, 'key_env = "ANON_TEST_KEY"').output["name"]
    assert from_env.iloc[0] == hmac_pseudonyms(["Person 0"], bytes(32))[0]
    monkeypatch.delenv("ANON_TEST_KEY")
    with pytest.raises(JobError, match="ANON_TEST_KEY is not set"):
        _release(folder, 'key_env = "ANON_TEST_KEY"')
    create_key(folder / "inside.key")
    with pytest.raises(JobError, match="inside the project folder"):
        _release(folder, 'key_file = "inside.key"')
    with pytest.raises(JobError, match="does not exist"):
        _release(folder, f'key_file = "{keys / "missing.key"}"')
    with pytest.raises(JobError, match="exists already"):
        create_key(folder / "inside.key")
    (keys / "short.key").parent.mkdir(exist_ok=True)
    (keys / "short.key").write_text("abc")
    with pytest.raises(JobError, match="shorter than 16 bytes"):
        _release(folder, f'key_file = "{keys / "short.key"}"')
    for bad, msg in (('key_file = "a"\nkey_env = "B"', "exactly one"),
                     ('key_file = "a"\nkeep = 2', "do(es) not apply"),
                     ('key_env = "B"\nlength = 4', "between 8 and 64")):
        (folder / "job.toml").write_text(_job(bad))
        with pytest.raises(JobError, match=msg.replace("(", r"\(").replace(")", r"\)")):
            as_job(folder / "job.toml")


def test_job_file_round_trip_keeps_the_key_source(project):
    folder, keys, _ = project
    (folder / "job.toml").write_text(_job(f'key_file = "{keys / "a.key"}"\nlength = 20'))
    d = job_to_dict(as_job(folder / "job.toml"))
    name = d["attributes"]["name"]
    assert {k: name[k] for k in ("type", "pseudonymize", "key_file", "length")} == {
        "type": "identifying", "pseudonymize": "hmac-sha256",
        "key_file": str(keys / "a.key"), "length": 20}
    assert not {"key", "key_env"} & set(name)
    assert d["attributes"]["phone"]["pseudonymize"] == "mask"


def test_mask_and_hmac_by_hand():
    assert list(mask_values(["12345", "ab", ""], 2)) == ["12***", "ab", ""]
    import hashlib
    import hmac
    assert hmac_pseudonyms(["x"], b"k" * 16, 8)[0] == hmac.new(
        b"k" * 16, b"x", hashlib.sha256).hexdigest()[:8]
