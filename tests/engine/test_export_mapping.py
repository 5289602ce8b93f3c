"""The value mapping applied to the input reproduces the released table exactly."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine.cli import main
from engine.export.mapping import apply_mapping, read_mapping, value_mapping, write_mapping
from tests.engine.release_fixtures import QIS4, released  # noqa: F401


def _input(folder):
    return pd.read_csv(folder / "small.csv", sep=";", dtype=str, keep_default_na=False)


@pytest.mark.parametrize("target", ["mapping", "mapping.xlsx"])
def test_mapping_reproduces_the_release(released, tmp_path, target):  # noqa: F811
    folder, result = released
    levels = [result.optimum.levels[q] for q in QIS4]
    data = result.transformed(levels)
    written = write_mapping(value_mapping(result.problem, levels, data), tmp_path / target)
    assert all(p.exists() for p in written)
    tables, rows = read_mapping(tmp_path / target)
    assert list(tables) == QIS4 and len(rows) == result.optimum.suppressed_records
    applied = apply_mapping(_input(folder), tables, rows)
    pd.testing.assert_frame_equal(applied, data.frame[QIS4].astype(str), check_dtype=False)
    # per-value counts agree with the input
    for q, t in tables.items():
        counts = _input(folder)[q].value_counts()
        assert (t.set_index("input")["records"].astype(int) == counts.reindex(t["input"]).values).all()
        assert t["suppressed_records"].astype(int).sum() == len(rows)


def test_a_wrong_mapping_does_not_reproduce(released, tmp_path):  # noqa: F811
    folder, result = released
    levels = [result.optimum.levels[q] for q in QIS4]
    data = result.transformed(levels)
    m = value_mapping(result.problem, levels, data)
    applied = apply_mapping(_input(folder), m.tables, m.suppressed_rows[1:])  # one row too few
    assert not applied.equals(data.frame[QIS4].astype(str))


def test_cli_mapping_option(released, tmp_path, capsys):  # noqa: F811
    folder, result = released
    out, mapping = tmp_path / "out.csv", tmp_path / "internal" / "map"
    mapping.parent.mkdir()
    assert main(["anonymize", str(folder / "job.toml"), "--quiet", "--output", str(out),
                 "--mapping", str(mapping)]) == 0
    tables, rows = read_mapping(mapping)
    exported = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    pd.testing.assert_frame_equal(apply_mapping(_input(folder), tables, rows), exported[QIS4])
    assert np.array_equal(np.flatnonzero((exported[QIS4] == "*").all(axis=1)), rows)
