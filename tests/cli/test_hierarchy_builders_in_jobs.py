"""Hierarchies without the app: a job attribute naming a builder, ``anonymist hierarchy
build``, and ARX's ``<data>_hierarchy_<attribute>.csv`` files beside the data."""
from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest

from engine.data.table import EncodedTable
from engine.hierarchy.builders import (DateSpec, IntervalSpec, MaskingSpec, OrderingSpec,
                                       PrioritySpec, save_spec)
from engine.hierarchy.csv_io import read_hierarchy
from tests.cli.conftest import QIS, job_text, write_tiny


def _recount(out: Path, k: int = 2) -> list[dict]:
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter=";"))
    classes = Counter(tuple(r[q] for q in QIS) for r in rows
                      if not all(r[q] == "*" for q in QIS))
    assert classes and min(classes.values()) >= k
    return rows


def _column(folder: Path, name: str):
    from engine.data.csv_import import read_csv
    return EncodedTable.from_dataframe(read_csv(folder / "data.csv", ";", "utf-8",
                                                header=True)).column(name)


#: for each builder: the job's table, and the same specification as the wizard keeps it
CASES = {
    "intervals": ('{ builder = "intervals", data_type = "integer", intervals = '
                  '[{ lower = 20, upper = 30 }], levels = [[2], [3]] }',
                  lambda: IntervalSpec.regular(__import__("engine.data.datatypes", fromlist=[
                      "IntegerType"]).IntegerType(), 20, 10, (2, 3))),
    "ordering": ('{ builder = "ordering", data_type = "integer", levels = [[5], [2]] }', None),
    "masking": ('{ builder = "masking", align = "right", max_levels = 2 }',
                lambda: MaskingSpec(align="right", max_levels=2)),
    "priority": ('{ builder = "priority", data_type = "integer", max_levels = 3 }', None),
}


@pytest.mark.parametrize("builder", list(CASES))
def test_a_job_attribute_names_a_builder(builder, tiny, run):
    table, _ = CASES[builder]
    text = (tiny / "job.toml").read_text().replace('hierarchy = "age.csv"',
                                                   f"hierarchy = {table}")
    (tiny / "job.toml").write_text(text)
    out = tiny / "out.csv"
    r = run("anonymize", tiny / "job.toml", "--output", out, "--quiet")
    assert r.code == 0, r.err
    v = run("verify", out, tiny / "job.toml")
    assert v.code == 0, v.err
    rows = _recount(out)
    # the released ages are labels of the hierarchy the builder builds from the column,
    # built here through the builder's own classes (as the wizard builds it)
    from engine.hierarchy.from_spec import build_from_spec
    from engine.project.job_file import load_job
    spec = load_job(tiny / "job.toml").attributes["age"].hierarchy_builder
    h = build_from_spec(spec, _column(tiny, "age"), "age")
    labels = {label for row in h.rows for label in row}
    assert {r["age"] for r in rows} <= labels | {"*"}


def test_builder_keys_left_out_take_the_wizards_proposal_and_match_a_saved_spec(tiny):
    from engine.data.datatypes import IntegerType
    from engine.hierarchy.builders import default_spec
    from engine.hierarchy.from_spec import build_from_spec
    column = _column(tiny, "age")
    built = build_from_spec({"builder": "intervals", "data_type": "integer"}, column, "age")
    wizard = default_spec("intervals", IntegerType(), column).build(column, "age")
    assert built.rows == wizard.rows
    spec = IntervalSpec.regular(IntegerType(), 20, 10, (2, 3))
    as_job = json.loads(json.dumps(spec.to_json()))
    as_job.pop("version")
    assert build_from_spec(as_job, column, "age").rows == spec.build(column, "age").rows
    for other in (OrderingSpec(IntegerType(), levels=[2]), PrioritySpec(IntegerType()),
                  MaskingSpec(align="right")):
        j = other.to_json()
        j.pop("version")
        assert build_from_spec(j, column, "age").rows == other.build(column, "age").rows


def test_dates_builder_in_a_job(tmp_path, run):
    import datetime as dt
    import random
    rnd = random.Random(5)
    lines = ["born;sex"] + [
        f"{dt.date(1960, 1, 1) + dt.timedelta(days=rnd.randrange(0, 1400))};{rnd.choice('MF')}"
        for _ in range(80)]
    (tmp_path / "d.csv").write_text("\n".join(lines) + "\n")
    (tmp_path / "sex.csv").write_text("M;*\nF;*\n")
    (tmp_path / "job.toml").write_text('''format_version = 1
[data]
path = "d.csv"
[attributes.born]
type = "quasi-identifying"
data_type = "date"
format = "%Y-%m-%d"
hierarchy = { builder = "dates", levels = ["month", "year"] }
[attributes.sex]
type = "quasi-identifying"
hierarchy = "sex.csv"
[[privacy]]
model = "k-anonymity"
k = 3
[transformation]
suppression_limit = 0.05
''')
    out = tmp_path / "out.csv"
    r = run("anonymize", tmp_path / "job.toml", "--output", out, "--quiet")
    assert r.code == 0, r.err
    assert run("verify", out, tmp_path / "job.toml").code == 0
    spec = DateSpec.from_json({"builder": "dates", "version": 1,
                               "data_type": {"kind": "date", "format": "%Y-%m-%d"},
                               "levels": ["month", "year"]})
    from engine.data.csv_import import read_csv
    col = EncodedTable.from_dataframe(read_csv(tmp_path / "d.csv", ";", "utf-8",
                                               header=True)).column("born")
    labels = {x for row in spec.build(col, "born").rows for x in row}
    with open(out, newline="") as f:
        released = [r["born"] for r in csv.DictReader(f, delimiter=";")]
    assert set(released) <= labels | {"*"}
    counts = Counter(zip(released, [r for r in [line.split(";")[1] for line in
                                                  out.read_text().splitlines()[1:]]]))
    assert min(c for (b, _), c in counts.items() if b != "*") >= 3


def test_builder_mistakes_are_named(tiny, run):
    cases = {'{ builder = "interval" }': "is not one of",
             '{ builder = "masking", levels = [[2]] }': "unknown key 'levels'",
             '{ builder = "intervals", data_type = "number" }': "unknown data type kind",
             '{ builder = "dates" }': "dates builder does not work on integer data"}
    for table, message in cases.items():
        text = job_text().replace('hierarchy = "age.csv"', f"hierarchy = {table}")
        (tiny / "job.toml").write_text(text)
        r = run("anonymize", tiny / "job.toml", "--output", tiny / "o.csv")
        assert r.code == 2 and message in r.err, (table, r.err)


def test_job_round_trip_keeps_the_builder(tiny):
    from engine.project.job_file import job_to_dict, load_job
    text = job_text().replace('hierarchy = "age.csv"', 'hierarchy = ' + CASES["masking"][0])
    (tiny / "job.toml").write_text(text)
    d = job_to_dict(load_job(tiny / "job.toml"))
    assert d["attributes"]["age"]["hierarchy"] == {"builder": "masking", "align": "right",
                                                   "max_levels": 2}


def test_hierarchy_build_command_writes_what_the_builder_builds(tiny, run):
    out = tiny / "age_built.csv"
    r = run("hierarchy", "build", tiny / "data.csv", "--attribute", "age", "--builder",
            "intervals", "--set", "intervals=[{lower = 20, upper = 30}]", "--set",
            "levels=[[2], [3]]", "--output", out)
    assert r.code == 0, r.err
    from engine.data.datatypes import IntegerType
    want = IntervalSpec.regular(IntegerType(), 20, 10, (2, 3)).build(_column(tiny, "age"),
                                                                      "age")
    assert read_hierarchy(out, "age").rows == want.rows
    # a specification the wizard saved
    save_spec(MaskingSpec(align="right", max_levels=3), tiny / "zip.json")
    r = run("hierarchy", "build", tiny / "data.csv", "--attribute", "zip", "--spec",
            tiny / "zip.json", "--output", tiny / "zip_built.csv")
    assert r.code == 0, r.err
    got = read_hierarchy(tiny / "zip_built.csv", "zip")
    assert got.rows == MaskingSpec(align="right", max_levels=3).build(
        _column(tiny, "zip"), "zip").rows
    # mistakes
    r = run("hierarchy", "build", tiny / "data.csv", "--attribute", "nope", "--builder",
            "masking", "--output", tiny / "x.csv")
    assert r.code == 2 and "no column 'nope'" in r.err
    r = run("hierarchy", "build", tiny / "data.csv", "--attribute", "age", "--output",
            tiny / "x.csv")
    assert r.code == 2 and "--builder" in r.err
    r = run("hierarchy", "build", tiny / "data.csv", "--attribute", "age", "--builder",
            "masking", "--output", tiny / "data.csv")
    assert r.code == 2 and "never overwrites" in r.err


def test_hierarchies_beside_the_data_by_arx_names(tmp_path, run):
    write_tiny(tmp_path)
    for name in ("age", "sex", "zip", "disease"):
        (tmp_path / f"{name}.csv").rename(tmp_path / f"data_hierarchy_{name}.csv")
    text = job_text().replace('encoding = "utf-8"', 'encoding = "utf-8"\nhierarchies = "beside"')
    for name in ("age", "sex", "zip", "disease"):
        text = text.replace(f'hierarchy = "{name}.csv"\n', "")
    (tmp_path / "job.toml").write_text(text)
    out = tmp_path / "out.csv"
    r = run("anonymize", tmp_path / "job.toml", "--output", out, "--quiet")
    assert r.code == 0, r.err
    assert run("verify", out, tmp_path / "job.toml").code == 0
    _recount(out)
    (tmp_path / "data_hierarchy_zip.csv").unlink()
    r = run("anonymize", tmp_path / "job.toml", "--output", out, "--quiet")
    assert r.code == 2 and "data_hierarchy_zip.csv is not there" in r.err


def test_a_frequency_table_builds_what_the_records_build():
    """Out of core the data is a frequency table (rows with record weights): a builder
    ordering by frequency must count records, not rows, to build the same hierarchy."""
    import numpy as np

    from engine.data.table import EncodedColumn
    from engine.hierarchy.from_spec import build_from_spec, record_column
    dictionary = np.array(["a", "b", "c", "d"], dtype=object)
    # rows: a b c d c d d; weights make the records a:1 b:9 c:2 d:3
    rows = EncodedTable([EncodedColumn("x", np.array([0, 1, 2, 3, 2, 3, 3], np.int32),
                                       dictionary)],
                        weights=np.array([1, 9, 1, 1, 1, 1, 1]))
    records = EncodedTable([EncodedColumn("x", np.repeat(
        np.array([0, 1, 2, 3, 2, 3, 3], np.int32), [1, 9, 1, 1, 1, 1, 1]), dictionary)])
    spec = {"builder": "priority", "max_levels": 3}
    by_records = build_from_spec(spec, records.column("x"), "x")
    assert build_from_spec(spec, record_column(rows, "x"), "x").rows == by_records.rows
    assert build_from_spec(spec, rows.column("x"), "x").rows != by_records.rows


def test_builder_keys_are_declared_once_and_match_what_the_wizard_writes():
    """The declarations (engine.hierarchy.builders.params) are the keys every builder's
    specification writes (the wizard's JSON), no more and no fewer."""
    from engine.data.datatypes import DateType, IntegerType
    from engine.hierarchy.builders import BUILDERS, default_spec
    from engine.hierarchy.builders.params import BUILDER_PARAMS
    from engine.hierarchy.from_spec import BUILDER_NAMES
    assert tuple(BUILDERS) == tuple(BUILDER_PARAMS) == BUILDER_NAMES
    for name in BUILDERS:
        data_type = DateType() if name == "dates" else IntegerType()
        written = default_spec(name, data_type, ["1", "2"] if name != "dates" else
                               ["2020-01-01", "2021-02-03"]).to_json()
        assert [k for k in written if k not in ("builder", "version")] == \
            [p.name for p in BUILDER_PARAMS[name]], name


def test_builder_values_are_checked_by_their_declaration(tiny, run):
    cases = {'{ builder = "masking", max_levels = "3" }': "max_levels = '3' must be a whole",
             '{ builder = "masking", align = "center" }': "align = 'center' must be one of",
             '{ builder = "priority", highest_first = 1 }': "highest_first = 1 must be true",
             '{ builder = "masking", max_level = 2 }': "did you mean 'max_levels'"}
    for table, message in cases.items():
        (tiny / "job.toml").write_text(job_text().replace('hierarchy = "zip.csv"',
                                                          f"hierarchy = {table}"))
        r = run("anonymize", tiny / "job.toml", "--output", tiny / "o.csv")
        assert r.code == 2 and message in r.err and "zip" in r.err, (table, r.err)
