"""``anonymist guide`` against the app's guided release wizard on the same data: the same
job and the same release, byte for byte; and ``--plan`` runs as the release it plans."""
from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from engine.cli import main as cli
from tests.app.test_guided_release import _release
from tests.engine.test_guide import people


def same_files(a: Path, b: Path) -> int:
    """Every file of release ``a`` is in release ``b`` with the same bytes (the job's
    compared by `_job`, its data path being the same file): how many."""
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for f in files:
        if f.suffix != ".toml":
            assert (a / f).read_bytes() == (b / f).read_bytes(), f
    return len(files)


def _job(path):
    """A release's job, its hierarchies read from their files (paths differ by folder)."""
    d = tomllib.loads(path.read_text())
    for a in d.get("attributes", {}).values():
        if isinstance(a.get("hierarchy"), str):
            a["hierarchy"] = (path.parent / a["hierarchy"]).read_text()
    return d


@pytest.mark.parametrize("preset", ["public", "partner"])
def test_headless_guide_is_the_apps_guide(window, qtbot, tmp_path, preset, capsys):
    data = tmp_path / "register.csv"
    people().to_csv(data, sep=";", index=False)
    _release(window, qtbot, data, tmp_path / "app", goal=preset, report=False)
    capsys.readouterr()
    assert cli(["guide", str(data), "--preset", preset, "--output", str(tmp_path / "cli"),
                "--no-report"]) == 0, capsys.readouterr().err
    app_job, cli_job = (tmp_path / d / "internal" / "register-job.toml"
                        for d in ("app", "cli"))
    assert _job(cli_job) == _job(app_job)
    assert same_files(tmp_path / "app", tmp_path / "cli") >= 8  # data, job, hierarchies, mapping
    assert cli(["verify", str(tmp_path / "cli" / "share" / "register-anonymized.csv"),
                str(cli_job)]) == 0


def test_headless_guide_on_adult_uses_the_arx_files_beside_it(window, qtbot, tmp_path,
                                                               adult_dir, capsys):
    for f in adult_dir.glob("adult*.csv"):
        shutil.copy(f, tmp_path / f.name)
    data = tmp_path / "adult.csv"
    _release(window, qtbot, data, tmp_path / "app", report=False)
    capsys.readouterr()
    assert cli(["guide", str(data), "--preset", "agreement", "--output",
                str(tmp_path / "cli"), "--no-report", "--no-mapping"]) == 0
    job = Path("internal") / "adult-job.toml"
    assert _job(tmp_path / "cli" / job) == _job(tmp_path / "app" / job)
    released = Path("share") / "adult-anonymized.csv"
    assert (tmp_path / "cli" / released).read_bytes() == \
        (tmp_path / "app" / released).read_bytes()
    # the plan, printed for review, runs as the release it plans
    capsys.readouterr()
    assert cli(["guide", str(data), "--preset", "agreement", "--plan"]) == 0
    plan = capsys.readouterr().out
    assert "adult_hierarchy_age.csv" in plan and plan.startswith("# The guided release's plan")
    (tmp_path / "plan.toml").write_text(plan)
    assert cli(["anonymize", str(tmp_path / "plan.toml"), "--output",
                str(tmp_path / "plan.csv"), "--quiet"]) == 0
    assert (tmp_path / "plan.csv").read_bytes() == (tmp_path / "cli" / released).read_bytes()


def test_guide_mistakes(tmp_path, capsys):
    people().to_csv(tmp_path / "p.csv", sep=";", index=False)
    assert cli(["guide", str(tmp_path / "p.csv"), "--preset", "nope", "--plan"]) == 2
    assert cli(["guide", str(tmp_path / "p.csv"), "--preset", "public"]) == 2
    assert "--output" in capsys.readouterr().err
    assert cli(["guide", str(tmp_path / "gone.csv"), "--preset", "public", "--plan"]) == 2
