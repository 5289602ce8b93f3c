"""What importing the engine loads (issue 19.1): the command line and ``import engine``
stay fast because slow libraries load only where a command uses them."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
#: never loaded by importing the engine's API: the GUI, and libraries only some
#: analyses, estimators or export targets use (numba itself imports the bare ``scipy``
#: package for a version check, so scipy's subpackages are what is checked)
HEAVY = ("PySide6", "pyqtgraph", "sklearn", "sqlalchemy", "openpyxl", "scipy.stats",
         "scipy.special", "scipy.sparse", "scipy.optimize")


def loaded_after(*statements: str) -> list[set[str]]:
    """The modules loaded after each statement, run in that order in one fresh process."""
    code = "import json, sys\n" + "".join(
        f"{st}\nprint(json.dumps(sorted(sys.modules)))\n" for st in statements)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return [set(json.loads(line)) for line in out.stdout.splitlines()[-len(statements):]]


def heavy(modules: set[str], names=HEAVY) -> list[str]:
    return sorted(n for n in names if n in modules)


def test_import_engine_loads_nothing_heavy_and_nor_do_the_cli_and_api():
    """``import engine`` loads neither pandas nor numba; the command line, the launcher,
    the verifier and the API load no GUI, scikit-learn, SQLAlchemy, openpyxl or scipy
    subpackages (cumulative, in one process: what an earlier line loaded counts)."""
    statements = ["import engine", "import engine.cli", "from app.launcher import main",
                  "import engine.verify", "import engine.api"]
    after = loaded_after(*statements)
    assert heavy(after[0], HEAVY + ("pandas", "numba")) == []
    for statement, modules in zip(statements[1:], after[1:]):
        assert heavy(modules) == [], statement


def test_a_public_name_loads_its_module():
    (modules,) = loaded_after("import engine\nengine.JobError")
    assert "engine.errors" in modules and "engine.api" not in modules


def test_every_public_name_resolves():
    import engine
    assert sorted(engine.__all__) == sorted(engine._EXPORTS)
    for name in engine.__all__:
        assert getattr(engine, name) is not None


def test_verify_runs_without_numba(tmp_path):
    """``anonymist verify`` reads the job (privacy models, metric, hierarchies) and
    recounts the released file without loading numba: the kernels' modules load numba
    only when a kernel runs (engine.kernel.jit). The released file is made here; the
    verify run is a fresh process."""
    from engine.api import as_job, prepare
    from engine.output import transform
    from tests.cli.conftest import write_tiny

    write_tiny(tmp_path)
    problem = prepare(None, as_job(tmp_path / "job.toml"))
    released = tmp_path / "top.csv"
    from engine.export.targets import CsvOptions, FileTarget, write_released
    write_released(transform(problem, problem.lattice.top),
                   FileTarget(released, "csv", CsvOptions(delimiter=";")))
    code = ("import json, sys\nfrom engine.cli import main\n"
            f"code = main(['verify', {str(released)!r}, {str(tmp_path / 'job.toml')!r}])\n"
            "print(json.dumps({'code': code, 'modules': sorted(sys.modules)}), "
            "file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    result = json.loads(out.stderr.strip().splitlines()[-1])
    assert result["code"] == 0, out.stdout
    modules = set(result["modules"])
    assert "engine.verify" in modules and "engine.privacy.k_anonymity" in modules
    assert heavy(modules, HEAVY + ("numba",)) == []


def test_a_kernel_still_compiles_and_runs_when_first_called():
    """The lazy kernels are real numba kernels once called (in a fresh process: numba
    loads at the first call, and a kernel calling another of its module compiles)."""
    code = ("import sys, numpy as np\n"
            "from engine.kernel import grouping\n"
            "assert 'numba' not in sys.modules\n"
            "ids = grouping._group_by_rows(np.array([[1, 2], [3, 4], [1, 2]], dtype=np.int64))\n"
            "import numba\n"
            "assert isinstance(grouping._group_by_rows, numba.core.dispatcher.Dispatcher)\n"
            "print(np.asarray(ids[0]).tolist())\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "[0, 1, 0]"


def test_the_main_window_starts_without_numba_or_scipy_subpackages():
    """The window a user waits for is built without numba (the lattice rasterizers load
    it on first use, and the start-up warm-up worker) or scipy's subpackages (the
    population estimators load in the first estimate's worker)."""
    (modules,) = loaded_after(
        "import os\nos.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
        "from app.__main__ import create_application\nqapp = create_application()\n"
        "from app.main_window import MainWindow\nw = MainWindow()\nw.show()\n"
        "qapp.processEvents()")
    assert heavy(modules, HEAVY[2:] + ("numba",)) == []
    assert "PySide6" in modules and "pyqtgraph" in modules
