"""Save, reopen and compare every setting; damaged projects give clear messages."""
from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from app.main_window import MainWindow
from app.project_file import ProjectError, read_project
from app.project_io import snapshot_of
from app.settings import AppSettings
from engine.config import IDENTIFYING, SENSITIVE
from tests.app.conftest import open_sample


def comparable(doc) -> dict:
    snap = snapshot_of(doc)
    d = {k: getattr(snap, k) for k in ("attributes", "hierarchies", "privacy", "metric",
                                       "transformation", "extras")}
    d["subset"] = None if snap.subset is None else snap.subset.tolist()
    d["source"] = {k: v for k, v in snap.source.items() if k != "location"}
    d["table"] = doc.table.to_dataframe().to_dict("list")
    d["result"] = snap.result
    return d


def change_everything(window):
    conf, doc = window.configure, window.document
    conf.attributes.select(["sex", "race"])
    conf.attributes.set_type(SENSITIVE)
    conf.attributes.select(["workclass"])
    conf.attributes.set_type(IDENTIFYING)
    conf.attributes.select(["age"])
    conf.attributes.min_level.setValue(1)
    conf.attributes.max_level.setValue(3)
    conf.attributes.weight.setValue(0.5)
    conf.attributes.format.setText("%d")
    conf.attributes.format.editingFinished.emit()
    conf.hierarchy.model.setData(conf.hierarchy.model.index(0, 1), "edited label")
    conf.privacy.add_model({"model": "k-anonymity", "k": 7})
    conf.privacy.suppression.setValue(2.5)
    u = conf.utility
    u.metric.setCurrentIndex(u.metric.findData("entropy"))
    u.metric.activated.emit(u.metric.currentIndex())
    u.aggregate.setCurrentText("max")
    u.aggregate.activated.emit(u.aggregate.currentIndex())
    u.monotonic.setChecked(True)
    u.gs.setValue(30)
    s = conf.search
    s.algorithm.setCurrentIndex(s.algorithm.findData("exhaustive"))
    s.algorithm.activated.emit(s.algorithm.currentIndex())
    s.practical.setChecked(True)
    s.time_limit.setValue(12.5)
    s.step_limit.setValue(1000)
    s.seed.setValue(42)
    s.threshold.setValue(50_000)
    model = conf.data.model
    model.setData(model.index(3, 0), False, role=10)  # CheckStateRole
    doc.extras["explore"] = {"clipboard": [{"levels": [1, 2], "comment": "a note"}]}
    d = doc.settings
    assert d.metric == {"name": "entropy", "monotonic": True, "gs_factor": 0.3,
                        "aggregate": "max"}
    assert d.transformation.algorithm == "exhaustive" and d.transformation.seed == 42
    assert doc.attributes["age"].weight == 0.5 and doc.attributes["age"].max_level == 3
    assert doc.subset is not None and not doc.subset[3] and doc.subset.sum() == 30161


def test_save_reopen_round_trips_every_setting(qtbot, window, adult_dir, tmp_path, messages):
    open_sample(qtbot, window)
    change_everything(window)
    before = comparable(window.document)
    path = tmp_path / "project.anonymist"
    with qtbot.waitSignal(window.files.saved, timeout=30_000):
        window.files.save_to(path)
    assert not window.document.modified and window.document.path == path
    assert str(path.resolve()) in window.settings.recent_files()
    other = MainWindow(AppSettings())
    qtbot.addWidget(other)
    with qtbot.waitSignal(other.files.loaded, timeout=30_000):
        other.open_path(path)
    after = comparable(other.document)
    for key in before:
        assert after[key] == before[key], key
    assert other.configure.utility.gs.value() == 30
    assert other.configure.search.seed.value() == 42
    assert other.configure.privacy.model.rowCount() == 2
    assert other.document.path == path and not other.document.modified
    assert not messages
    other.files.tasks.wait_all(5000)


def test_project_without_data_reads_original_file(qtbot, window, adult_dir, tmp_path):
    job = tmp_path / "job.toml"
    job.write_text(f'[data]\npath = "{adult_dir / "adult.csv"}"\ndelimiter = ";"\n'
                   f'[attributes.age]\ntype = "quasi-identifying"\n'
                   f'hierarchy = "{adult_dir / "adult_hierarchy_age.csv"}"\n'
                   f'[[privacy]]\nmodel = "k-anonymity"\nk = 3\n')
    with qtbot.waitSignal(window.files.loaded, timeout=30_000):
        window.open_path(job)
    assert window.document.table.n_rows == 30162
    window.settings.include_data_in_project = False
    path = tmp_path / "nodata.anonymist"
    with qtbot.waitSignal(window.files.saved, timeout=30_000):
        window.files.save_to(path)
    assert "data.csv" not in zipfile.ZipFile(path).namelist()
    snap = read_project(path)
    assert snap.table is None and snap.privacy == [{"model": "k-anonymity", "k": 3}]
    other = MainWindow(AppSettings())
    qtbot.addWidget(other)
    with qtbot.waitSignal(other.files.loaded, timeout=30_000):
        other.open_path(path)
    assert other.document.table.n_rows == 30162
    assert other.document.hierarchy_status("age").complete


def _zip(path, members: dict):
    with zipfile.ZipFile(path, "w") as z:
        for name, text in members.items():
            z.writestr(name, text)
    return path


@pytest.mark.parametrize("members, message", [
    ({"x.txt": "hello"}, "not an Anonymist project"),
    ({"manifest.json": json.dumps({"format": "anonymist-project", "schema_version": 99})},
     "newer Anonymist"),
    ({"manifest.json": json.dumps({"format": "anonymist-project", "schema_version": 1})},
     "no job.toml"),
    ({"manifest.json": json.dumps({"format": "anonymist-project", "schema_version": 1}),
      "job.toml": "[attributes.age]\ntype = 'secret'\n"}, "type = 'secret'"),
    ({"manifest.json": json.dumps({"format": "anonymist-project", "schema_version": 1}),
      "job.toml": "[attributes.age]\nhierarchy = '../../etc/passwd'\n"}, "not in the project"),
])
def test_damaged_projects_are_refused_with_a_message(tmp_path, members, message):
    path = _zip(tmp_path / "bad.anonymist", members)
    with pytest.raises(Exception) as info:
        read_project(path)
    assert message in str(info.value)


def test_opening_a_damaged_project_shows_a_message(qtbot, window, tmp_path, messages):
    path = tmp_path / "broken.anonymist"
    path.write_bytes(b"not a zip at all")
    with qtbot.waitSignal(window.files.tasks.failed, timeout=60_000):
        window.open_path(path)
    assert messages and "not an Anonymist project" in messages[-1][1]
    assert window.document.table is None


def test_not_a_zip_is_a_project_error(tmp_path):
    path = tmp_path / "x.anonymist"
    path.write_text("plain text")
    with pytest.raises(ProjectError, match="not a zip"):
        read_project(path)
    assert np is not None


def test_every_declared_attribute_key_survives_save_and_reopen(qtbot, window, tmp_path):
    """A project keeps an attribute as the job file's table (engine.project.job_file
    attribute_table / read_attribute): keys declared since (identifiers in a column,
    scrubbing) are kept too, not only a hand-made list of them."""
    open_sample(qtbot, window)
    doc = window.document
    doc.update_attributes(["sex"], type=SENSITIVE, scrub=True)
    doc.update_attributes(["race"], type=SENSITIVE, identifiers="keep",
                          reason="the race column holds no identifier")
    before = {n: doc.attributes[n] for n in ("sex", "race")}
    path = tmp_path / "keys.anonymist"
    with qtbot.waitSignal(window.files.saved, timeout=30_000):
        window.files.save_to(path)
    other = MainWindow(AppSettings())
    qtbot.addWidget(other)
    with qtbot.waitSignal(other.files.loaded, timeout=30_000):
        other.open_path(path)
    after = other.document.attributes
    for name, a in before.items():
        assert (after[name].scrub, after[name].identifiers, after[name].reason) == \
            (a.scrub, a.identifiers, a.reason), name
    assert after["sex"].scrub and after["race"].identifiers == "keep"
    other.files.tasks.wait_all(5000)
