"""Configure reaches what a job file says: population, research subset by query, file and
random sample; File > Save job file; file dialogs start where the files are."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.project.job_file import load_job
from engine.subset import resolve_subset
from tests.app.conftest import open_sample
from tests.shared_data import SHARED


def _subset_dialog(window):
    return window.configure.data.make_subset_dialog()


def test_subset_by_query_file_and_sample(qtbot, window, tmp_path):
    open_sample(qtbot, window)
    doc = window.document
    table = doc.table
    dlg = _subset_dialog(window)
    dlg.tabs.setCurrentIndex(0)
    dlg.query.setText("age > 60 and sex = 'Female'")
    dlg.accept()
    ages = table.to_dataframe()["age"].astype(int)
    sexes = table.to_dataframe()["sex"].astype(str)
    expected = ((ages > 60) & (sexes == "Female")).to_numpy()
    assert np.array_equal(doc.subset, expected)
    assert "query: age > 60" in window.configure.data.info.text()
    assert doc.build_job().subset == {"query": "age > 60 and sex = 'Female'"}

    rows = tmp_path / "rows.txt"
    rows.write_text("3\n5\n8\n")
    dlg = _subset_dialog(window)
    dlg.tabs.setCurrentIndex(1)
    dlg.rows_file.setText(str(rows))
    dlg.accept()
    assert np.flatnonzero(doc.subset).tolist() == [3, 5, 8]

    dlg = _subset_dialog(window)
    dlg.tabs.setCurrentIndex(2)
    dlg.share.setValue(25.0)
    dlg.seed.setValue(9)
    dlg.accept()
    assert int(doc.subset.sum()) == round(0.25 * table.n_rows)
    job = doc.build_job()
    assert job.subset == {"sample": 0.25, "seed": 9}
    assert np.array_equal(resolve_subset(job, table), doc.subset)  # the engine's rows

    # ticking a row by hand makes the subset a list of rows again
    window.configure.data.model.setData(window.configure.data.model.index(0, 0),
                                        2, 10)  # Qt.CheckStateRole, Checked
    assert doc.subset_spec is None


def test_subset_dialog_refuses_a_bad_query_and_keeps_the_subset(qtbot, window):
    open_sample(qtbot, window)
    doc = window.document
    before = None if doc.subset is None else doc.subset.copy()
    dlg = _subset_dialog(window)
    dlg.query.setText("agee > 3")
    dlg.accept()
    assert "agee" in dlg.status.text()
    assert (doc.subset is None and before is None) or np.array_equal(doc.subset, before)
    dlg.query.setText("age > 200")
    dlg.accept()
    assert "no row" in dlg.status.text()


def test_population_in_configure_is_the_jobs(qtbot, window, tmp_path):
    open_sample(qtbot, window)
    doc = window.document
    editor = window.configure.privacy.population
    assert doc.settings.population is None and editor.model() is None
    editor.region.setCurrentIndex(editor.region.findData("Germany"))
    assert doc.build_job().population == {"region": "Germany"}
    editor.region.setCurrentIndex(editor.region.findData(None))  # custom
    editor.size.setValue(5_000_000)
    assert doc.build_job().population == {"size": 5_000_000}
    editor.region.setCurrentIndex(0)  # none
    assert doc.build_job().population is None


def test_save_job_file_then_open_it_again(qtbot, window, tmp_path):
    open_sample(qtbot, window)
    doc = window.document
    doc.set_population({"region": "UK"})
    doc.set_subset_spec({"sample": 0.5, "seed": 3})
    path = tmp_path / "job.toml"
    with qtbot.waitSignal(window.files.tasks.finished, timeout=30_000):
        window.files.save_job_to(path)
    job = load_job(path)
    assert job.population == {"region": "UK"}
    assert job.subset == {"sample": 0.5, "seed": 3}
    # the sample project's hierarchies live inside the project: written beside the job
    for a in job.attributes.values():
        if a.hierarchy is not None:
            assert (path.parent / a.hierarchy_path).is_file()
    before = doc.build_job()
    window.new_project()
    with qtbot.waitSignal(window.files.loaded, timeout=30_000):
        window.files.open_path(path)
    after = doc.build_job()
    assert after.population == before.population and after.subset == before.subset
    assert [m.to_dict() for m in after.privacy] == [m.to_dict() for m in before.privacy]
    assert after.metric.to_dict() == before.metric.to_dict()
    assert after.transformation == before.transformation
    assert {n: a.type for n, a in after.attributes.items()} == \
        {n: a.type for n, a in before.attributes.items()}
    assert np.array_equal(doc.subset, resolve_subset(before, doc.table))


def test_file_dialogs_start_in_the_data_folder_and_remember(qtbot, window, monkeypatch,
                                                          tmp_path):
    open_sample(qtbot, window)
    project = tmp_path / "project"
    project.mkdir()
    window.document.set_path(project / "p.anonymist")
    seen = []
    from app.widgets.export_dialog import ExportDialog

    def fake_exec(dialog):
        seen.append(dialog.path.text())
        dialog.path.setText(str(tmp_path / "elsewhere" / "out.csv"))
        dialog.accept()
        return 1

    (tmp_path / "elsewhere").mkdir()
    monkeypatch.setattr(ExportDialog, "exec", fake_exec)
    monkeypatch.setattr(window.files, "export_release", lambda request, levels=None: None)
    from engine.release_choice import CurrentTransformation
    current = CurrentTransformation({"age": 1}, False, False, True, 0, 10.0)
    result = type("R", (), {"optimum": object()})()
    monkeypatch.setattr(window.document, "release",
                        type("C", (), {"result": result, "applied": None})())
    monkeypatch.setattr(window.document, "current_transformation", lambda: current)
    window.files.export_dialog()
    assert Path(seen[0]) == project / "anonymized.csv"  # the project's folder
    window.files.export_dialog()
    assert Path(seen[1]).parent == tmp_path / "elsewhere"  # remembered


def test_start_folder_order(tmp_path):
    from app import file_dialogs
    from app.settings import AppSettings
    settings = AppSettings()
    data = tmp_path / "data"
    data.mkdir()
    doc = type("D", (), {"path": None, "source": type("S", (), {
        "location": str(data / "adult.csv")})()})()
    # an export never starts beside the raw data: the home folder without a project
    assert file_dialogs.start_folder("export", doc, settings) == str(Path.home())
    assert file_dialogs.start_folder("hierarchy", doc, settings) == str(data)
    project = tmp_path / "projects"
    project.mkdir()
    doc.path = project / "p.anonymist"
    assert file_dialogs.start_folder("export", doc, settings) == str(project)
    other = tmp_path / "out"
    other.mkdir()
    settings.remember_folder("export", other / "x.csv")
    assert file_dialogs.start_folder("export", doc, settings) == str(other)
    assert file_dialogs.start_folder("hierarchy", doc, settings) == str(project)
    other.rmdir()  # a remembered folder that is gone is not offered
    assert file_dialogs.start_folder("export", doc, settings) == str(project)


@pytest.mark.parametrize("spec", [{"query": "age > 30", "rows": "x.txt"}, {"seed": 3},
                                  {"sample": 0.0}, {"sample": 1.5}])
def test_engine_refuses_bad_subset_tables(spec):
    from engine.config import Job
    from engine.errors import JobError
    from tests.oracle import table
    with pytest.raises(JobError, match=r"\[subset\]"):
        resolve_subset(Job(subset=spec), table("data/adult/adult.csv"))


def test_genetic_settings_are_edited_from_their_declarations(qtbot, window):
    from dataclasses import replace
    open_sample(qtbot, window)
    doc = window.document
    panel = window.configure.search
    doc.set_transformation(replace(doc.settings.transformation,
                                   algorithm="genetic"))
    form = panel.genetic_forms["genetic"]
    assert form.isVisibleTo(panel) and not panel.genetic_forms["kgen"].isVisibleTo(panel)
    assert doc.settings.transformation.genetic in ({}, None)  # nothing written by showing
    form.editors["elite_fraction"].setValue(0.1)
    assert doc.settings.transformation.genetic == {"elite_fraction": 0.1}
    form.editors["subpopulation_size"].setValue(20)
    job = doc.build_job()
    assert dict(job.transformation.genetic) == {"elite_fraction": 0.1,
                                                 "subpopulation_size": 20}
    doc.set_transformation(replace(doc.settings.transformation,
                                   algorithm="kgen"))
    kgen = panel.genetic_forms["kgen"]
    assert kgen.isVisibleTo(panel) and not form.isVisibleTo(panel)
    kgen.editors["population_size"].setValue(40)
    assert doc.settings.transformation.genetic == {"elite_fraction": 0.1,
                                                   "subpopulation_size": 20,
                                                   "population_size": 40}
    doc.set_transformation(replace(doc.settings.transformation,
                                   algorithm="optimal"))
    assert not panel.genetic_box.isVisibleTo(panel)


def test_payout_parameters_are_edited_from_their_declarations(qtbot, window):
    open_sample(qtbot, window)
    doc = window.document
    panel = window.configure.utility
    combo = panel.metric
    combo.setCurrentIndex(combo.findData("publisher-payout"))
    combo.activated.emit(combo.currentIndex())
    form = panel.metric_forms["publisher-payout"]
    assert form.isVisibleTo(panel)
    metric = doc.settings.metric
    assert metric["name"] == "publisher-payout"
    declared = {p.name: p.initial for p in form.params}
    assert {k: metric[k] for k in declared} == declared  # the declared defaults, not 0.0
    form.editors["publisher_benefit"].setValue(1000.0)
    form.editors["attacker"].setCurrentIndex(form.editors["attacker"].findData("journalist"))
    job = doc.build_job()
    d = job.metric.to_dict()
    assert d["publisher_benefit"] == 1000.0 and d["attacker"] == "journalist"
    combo.setCurrentIndex(combo.findData("loss"))
    combo.activated.emit(combo.currentIndex())
    assert "publisher_benefit" not in doc.settings.metric  # strict reading would refuse it
    assert doc.build_job().metric.name == "loss"
    assert not panel.metric_box.isVisibleTo(panel)


def test_a_job_whose_subset_query_fails_is_refused_with_its_message(qtbot, window, tmp_path,
                                                                    messages):
    adult = SHARED / "data" / "adult"
    job = tmp_path / "bad.toml"
    job.write_text(f'[data]\npath = "{adult / "adult.csv"}"\n'
                   f'[attributes.sex]\ntype = "quasi-identifying"\n'
                   f'hierarchy = "{adult / "adult_hierarchy_sex.csv"}"\n'
                   '[[privacy]]\nmodel = "k-anonymity"\nk = 2\n'
                   '[subset]\nquery = "agee > 30"\n')
    with qtbot.waitSignal(window.files.tasks.failed, timeout=30_000):
        window.files.open_path(job)
    assert any("agee" in text for _, text in messages)
    assert not window.document.has_data


def test_large_counts_in_declared_forms_show_group_separators(qtbot, window):
    open_sample(qtbot, window)
    editor = window.configure.search.limits.editors["heuristic_threshold"]
    value = window.document.settings.transformation.heuristic_threshold
    assert value >= 10_000
    sep = editor.locale().groupSeparator()
    assert editor.text() == f"{value:,} transformations".replace(",", sep)
    editor.setValue(250_000)  # and it still reads back as the number
    assert window.configure.search.limits.value("heuristic_threshold") == 250_000


def test_the_job_is_read_by_the_engines_reader_once(qtbot, window):
    """build_job reads the document's job table as a job file is read: a key the
    declarations do not have is refused there, with the job file's message (it used to
    pass silently), and a valid job equals the same table read from a job file."""
    from dataclasses import replace

    from engine.project.job_file import job_from_dict
    open_sample(qtbot, window)
    doc = window.document
    assert doc.check_job() is None
    job = doc.build_job()
    again = job_from_dict(doc.job_table(), job.base_dir,
                          hierarchies={n: a.hierarchy for n, a in doc.attributes.items()})
    assert again.attributes == job.attributes and again.privacy == job.privacy
    assert again.transformation == job.transformation and again.metric == job.metric
    doc.set_transformation(replace(doc.settings.transformation, algorithm="genetic",
                                   genetic={"population": 50}))
    reason = doc.check_job()
    assert reason is not None and "population_size" in reason  # the reader's hint
