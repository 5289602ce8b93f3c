"""A tiny job on disk (60 records, three quasi-identifiers) for command-line tests,
and helpers that run ``anonymist`` and check that nothing was lost."""
from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest

from engine.cli import main

QIS = ("age", "sex", "zip")


def tiny_rows(n: int = 60, seed: int = 3) -> list[tuple]:
    rnd = random.Random(seed)
    return [(f"p{i}", str(rnd.randrange(20, 80)), rnd.choice("MF"),
             rnd.choice(["11111", "11122", "11133"]), rnd.choice(["flu", "cold", "cancer"]))
            for i in range(n)]


def job_text(k="2", limit="0.1", extra_privacy="", data="data.csv", delimiter=";",
             extra="") -> str:
    return f'''format_version = 1
[data]
path = "{data}"
delimiter = "{delimiter}"
encoding = "utf-8"
[attributes.name]
type = "identifying"
[attributes.age]
type = "quasi-identifying"
hierarchy = "age.csv"
[attributes.sex]
type = "quasi-identifying"
hierarchy = "sex.csv"
[attributes.zip]
type = "quasi-identifying"
hierarchy = "zip.csv"
[attributes.disease]
type = "sensitive"
hierarchy = "disease.csv"
[[privacy]]
model = "k-anonymity"
k = {k}
{extra_privacy}
[transformation]
suppression_limit = {limit}
{extra}'''


def write_tiny(folder: Path, rows=None) -> Path:
    rows = tiny_rows() if rows is None else rows
    lines = ["name;age;sex;zip;disease"] + [";".join(r) for r in rows]
    (folder / "data.csv").write_text("\n".join(lines) + "\n")
    (folder / "age.csv").write_text("".join(
        f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};{'young' if a < 50 else 'old'};*\n"
        for a in range(20, 80)))
    (folder / "sex.csv").write_text("M;*\nF;*\n")
    (folder / "zip.csv").write_text("11111;111**;*\n11122;111**;*\n11133;111**;*\n")
    (folder / "disease.csv").write_text("flu;respiratory;*\ncold;respiratory;*\n"
                                        "cancer;other;*\n")
    (folder / "job.toml").write_text(job_text())
    return folder / "job.toml"


@pytest.fixture
def tiny(tmp_path) -> Path:
    """The folder holding data.csv, its hierarchies and job.toml (k = 2, 10 %)."""
    write_tiny(tmp_path)
    return tmp_path


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (hidden ones included) with a digest of its bytes."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()}


class Run:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err


@pytest.fixture
def run(capsys):
    """Run ``anonymist ARGS`` in-process; never a traceback on stderr."""
    def go(*args) -> Run:
        capsys.readouterr()
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        assert "Traceback" not in err and "Traceback" not in out
        return Run(code, out, err)
    return go
