"""The ``anonymist`` command: subcommands without Qt, help, unknown commands, GUI."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import app.launcher as launcher

ROOT = Path(__file__).resolve().parents[2]


def anonymist(*args) -> subprocess.CompletedProcess:
    code = ("import sys\nfrom app.launcher import main\nrc = main(sys.argv[1:])\n"
            "loaded = [m for m in ('PySide6', 'pandas', 'numba', 'sklearn') if m in sys.modules]\n"
            "print('LOADED', loaded, file=sys.stderr)\nsys.exit(rc)")
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def test_help_lists_the_subcommands_and_exit_codes():
    p = anonymist("--help")
    assert p.returncode == 0
    for word in ("anonymize", "verify", "evaluate", "gui", "exit codes", "130"):
        assert word in p.stdout
    assert "LOADED []" in p.stderr  # no Qt, pandas, numba or sklearn for the help


def test_unknown_command_is_an_error_not_the_gui():
    p = anonymist("anonymze", "job.toml")
    assert p.returncode == 2
    assert "did you mean 'anonymize'" in p.stderr
    assert "PySide6" not in p.stderr.split("LOADED", 1)[1]


def test_gui_word_and_no_arguments_and_an_existing_path_start_the_app(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(launcher, "_gui", lambda argv: calls.append(list(argv)) or 0)
    project = tmp_path / "p.anonymist"
    project.write_text("")
    assert launcher.main([]) == 0
    assert launcher.main(["gui"]) == 0
    assert launcher.main(["gui", str(project), "--anonymize"]) == 0
    assert launcher.main([str(project)]) == 0
    assert calls == [[], [], [str(project), "--anonymize"], [str(project)]]


def test_engine_cli_refuses_gui():
    from engine.cli import main
    assert main(["gui"]) == 2


def test_a_missing_file_is_named_as_such():
    from engine.cli import unknown_command
    assert "does not exist" in unknown_command("gone.anonymist")
    assert unknown_command("verify") is None and unknown_command("--help") is None


def test_version_prints_the_package_version_without_heavy_imports():
    import importlib.metadata
    p = anonymist("--version")
    assert p.returncode == 0
    assert p.stdout.strip() == f"anonymist {importlib.metadata.version('anonymist')}"
    assert "LOADED []" in p.stderr
