"""What importing the engine loads (issue 19.1): the command line and ``import engine``
stay fast because slow libraries load only where a command uses them."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: never loaded by importing the engine's API: the GUI, and libraries only some
#: analyses, estimators or export targets use (numba itself imports the bare ``scipy``
#: package for a version check, so scipy's subpackages are what is checked)
HEAVY = ("PySide6", "pyqtgraph", "sklearn", "sqlalchemy", "openpyxl", "scipy.stats",
         "scipy.special", "scipy.sparse", "scipy.optimize")


def loaded_after(statement: str) -> set[str]:
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return set(json.loads(out.stdout.splitlines()[-1]))


def heavy(modules: set[str], names=HEAVY) -> list[str]:
    return sorted(n for n in names if n in modules)


def test_import_engine_loads_nothing_heavy():
    modules = loaded_after("import engine")
    assert heavy(modules, HEAVY + ("pandas", "numba")) == []


@pytest.mark.parametrize("statement", ["import engine.api", "import engine.cli",
                                       "from app.launcher import main",
                                       "import engine.verify"])
def test_engine_api_and_cli_load_no_gui_scipy_sklearn(statement):
    assert heavy(loaded_after(statement)) == []


def test_a_public_name_loads_its_module():
    modules = loaded_after("import engine\nengine.JobError")
    assert "engine.errors" in modules and "engine.api" not in modules


def test_every_public_name_resolves():
    import engine
    assert sorted(engine.__all__) == sorted(engine._EXPORTS)
    for name in engine.__all__:
        assert getattr(engine, name) is not None
