"""Time to release Adult through the guided release wizard, as a person clicks it.

Drives the real wizard offscreen (every proposal accepted, the data-use-agreement
goal, Release with mapping and report) and prints the time of each step and the
number of clicks, beside a baseline measured in the same run: the engine doing the
same search and release without the GUI (proposals, hierarchies, anonymize, release
folder with verify). The wizard's overhead is the ratio.

    QT_QPA_PLATFORM=offscreen python3 tests/benchmarks/bench_guided_release.py
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
ADULT = ROOT.parent / "shared" / "data" / "adult" / "adult.csv"


def engine_baseline(folder: Path) -> float:
    import pandas as pd

    import engine
    from engine.config import AttributeConfig, Job, TransformationConfig
    from engine.data.table import EncodedTable
    from engine.guide.auto_hierarchies import propose_hierarchy
    from engine.guide.presets import goal
    from engine.guide.proposals import propose_attributes
    from engine.guide.release import release
    from engine.privacy import model_from_dict
    start = time.perf_counter()
    table = EncodedTable.from_dataframe(pd.read_csv(ADULT, sep=";", dtype=str,
                                                    keep_default_na=False))
    attrs = {}
    for p in propose_attributes(table):
        h = (propose_hierarchy(table.column(p.attribute)).hierarchy
             if p.type == "quasi-identifying" else None)
        attrs[p.attribute] = AttributeConfig(p.type, hierarchy=h)
    g = goal("agreement")
    job = Job(attributes=attrs, privacy=[model_from_dict(d) for d in g.privacy([])],
              transformation=TransformationConfig(suppression_limit=g.suppression_limit))
    result = engine.anonymize(table, job)
    levels = [result.optimum.levels[q] for q in result.problem.qis]
    artefacts = release(result, levels, result.problem.job, folder, "adult")
    assert all(a.verified for a in artefacts[:1])
    return time.perf_counter() - start


def wizard_run(folder: Path) -> tuple[float, dict[str, float], int]:
    from PySide6.QtCore import QCoreApplication, QEventLoop

    from app.__main__ import create_application
    from app.main_window import MainWindow
    create_application()

    def wait(cond, limit=600):
        t = time.perf_counter()
        while not cond() and time.perf_counter() - t < limit:
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        return time.perf_counter() - t

    window = MainWindow()
    data = folder / "adult.csv"
    shutil.copy(ADULT, data)
    steps, clicks = {}, 0
    start = time.perf_counter()
    wiz = window.guided_release(str(data))
    steps["data read"] = wait(lambda: wiz.currentPage().isComplete())
    wiz.next(); clicks += 1  # noqa: E702
    page = wiz.currentPage()
    steps["types proposed"] = wait(lambda: page.table.rowCount() == 9)
    page.accept_all.click(); clicks += 1  # noqa: E702
    wiz.next(); clicks += 1  # noqa: E702
    page = wiz.currentPage()
    steps["hierarchies built"] = wait(page.isComplete)
    wiz.next(); clicks += 1  # noqa: E702
    wiz.next(); clicks += 1  # noqa: E702
    page = wiz.currentPage()
    steps["search"] = wait(page.isComplete)
    wiz.next(); clicks += 1  # noqa: E702
    page = wiz.currentPage()
    steps["result summarized"] = wait(lambda: page._data is not None)
    wiz.next(); clicks += 1  # noqa: E702
    page = wiz.currentPage()
    page.folder.setText(str(folder / "release"))
    page.release_button.click(); clicks += 1  # noqa: E702
    steps["released and checked"] = wait(page.isComplete)
    clicks += 1  # Finish
    total = time.perf_counter() - start
    assert page.done(), [a.message for a in page.artefacts]
    window.search.wait_all()
    window.files.tasks.wait_all()
    wiz.tasks.wait_all()
    return total, steps, clicks


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "gui").mkdir()
        base = engine_baseline(tmp / "engine")
        total, steps, clicks = wizard_run(tmp / "gui")
    print("Guided release of Adult (30,162 rows), every proposal accepted")
    for name, seconds in steps.items():
        print(f"  {name:<22} {seconds:6.2f} s (waiting after the click)")
    print(f"  wizard total           {total:6.2f} s, {clicks} clicks from file to verified "
          f"release")
    print(f"  engine baseline        {base:6.2f} s (same work without the GUI)")
    print(f"  ratio wizard / engine  {total / base:6.2f}")


if __name__ == "__main__":
    main()
