"""sdcMicro's methods in the app: Configure sets cell suppression (the search panel's
declared form) with an importance, and PRAM on an insensitive attribute (the attribute
editor's method settings); the run's export equals the released table, every record
matches at least k records with suppressed cells as wildcards (recounted here), and the
file passes ``anonymist verify``."""
from __future__ import annotations

import numpy as np
import pandas as pd

from engine.cli import main as cli_main
from tests.app.conftest import open_sample


def _choose(combo, text):
    combo.setCurrentText(text)
    combo.activated.emit(combo.currentIndex())


def _pick(combo, data):
    combo.setCurrentIndex(combo.findData(data))


def test_cell_suppression_and_pram_journey(qtbot, window, tmp_path, capsys):
    open_sample(qtbot, window)
    doc = window.document
    conf = window.configure
    attrs = conf.attributes
    attrs.set_type("insensitive", ["salary-class"])  # the sample's Adult: all QIs
    qis = [n for n, a in doc.attributes.items() if a.type == "quasi-identifying"]
    insensitive = [n for n, a in doc.attributes.items() if a.type == "insensitive"]
    assert qis and insensitive == ["salary-class"]
    # cell suppression, from the search panel's form (declared in engine/config.py)
    form = conf.search.suppression
    _pick(form.editors["suppression"], "cells")
    assert doc.settings.transformation.suppression == "cells"
    # a quasi-identifier's importance shows under cells
    attrs.select([qis[0]])
    settings = attrs.method_settings
    assert settings.isVisibleTo(attrs.form_host)
    settings.form.editors["importance"].setValue(1)
    assert doc.attributes[qis[0]].importance == 1
    # PRAM on an insensitive attribute, with a keep probability and a seed
    target = insensitive[0]
    attrs.select([target])
    _choose(attrs.method, "pram")
    settings.form.editors["pd"].setValue(0.7)
    settings.form.editors["seed"].setValue(7)
    a = doc.attributes[target]
    assert (a.transformation, a.pd, a.seed) == ("pram", 0.7, 7)
    k = next(m["k"] for m in doc.settings.privacy if m["model"] == "k-anonymity")

    with qtbot.waitSignal(window.search.finished, timeout=300_000):
        window.actions["anonymize"].trigger()
    result = doc.result
    assert result.optimum is not None
    assert "cell suppression" in result.method
    details = conf.result.details.text()
    figures = result.to_dict()["cell_suppression"]
    assert f"{figures['cells_suppressed']:,} cells suppressed" in details
    assert "salary-class: pram" in details

    out, job = tmp_path / "out.csv", tmp_path / "job.toml"
    window.files.save_job_to(job)
    window.files.export_to(out)
    qtbot.waitUntil(lambda: out.exists() and job.exists(), timeout=60_000)
    window.files.tasks.wait_all(30_000)
    assert cli_main(["verify", str(out), str(job)]) == 0, capsys.readouterr()
    exported = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    assert exported.equals(result.transformed().frame.astype(str))
    # the wildcard rule, recounted here
    cols = [q for q in qis if not (exported[q] == "*").all()]
    keys = exported[cols].value_counts().reset_index(name="n")
    vals, n = keys[cols].to_numpy(dtype=object), keys["n"].to_numpy()
    star = vals == "*"
    fk = [n[((vals == vals[i]) | star | star[i]).all(axis=1)].sum() for i in range(len(n))]
    assert min(fk) >= k
    assert not (exported[cols] == "*").all(axis=1).all()
    # PRAM'd values stay among the input's
    original = result.problem.table.column(target).values()
    assert set(exported[target]) <= set(map(str, original))
    assert (exported[target].to_numpy() != np.asarray(original, dtype=str)).any()
