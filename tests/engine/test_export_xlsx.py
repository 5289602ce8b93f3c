"""The Excel writer of encoded columns (engine/export/xlsx.py): the worksheet openpyxl
writes, cells read back exactly, values Excel cannot hold named."""
from __future__ import annotations

import zipfile

import numpy as np
import pandas as pd
import pytest

from engine.errors import Cancelled, DataError
from engine.export.targets import file_target, read_table, write_released, write_table
from tests.engine.release_fixtures import released  # noqa: F401

AWKWARD = ["a&b", "<tag>", "x > y", " leading", "trailing ", "=SUM(A1)", "@cmd", "",
           "Zürich", "日本語", "two\nlines", "tab\there", "'quoted'", '"double"', "42",
           "-1.5e3", "TRUE"]


def _openpyxl_sheet(frame: pd.DataFrame, path) -> bytes:
    """The worksheet XML openpyxl's write-only mode writes for ``frame`` (the writer
    this module replaced: text cells, a value starting with '=' kept as text)."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    wb = Workbook(write_only=True)
    ws = wb.create_sheet("anonymized")

    def cell(v):
        if not v.startswith("="):
            return v
        c = WriteOnlyCell(ws, value=v)
        c.data_type = "s"
        return c
    ws.append([cell(str(c)) for c in frame.columns])
    for row in frame.to_numpy(dtype=object):
        ws.append([cell(v) for v in row])
    wb.save(path)
    return zipfile.ZipFile(path).read("xl/worksheets/sheet1.xml")


def _frame(rows: int = 60, columns: int = 30) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    names = [f"c{j}" for j in range(columns - 1)] + ["a&<b>"]
    return pd.DataFrame({n: rng.choice(AWKWARD, rows) for n in names})


def test_sheet_is_the_one_openpyxl_writes(tmp_path):
    frame = _frame()  # 30 columns: references beyond Z (AA1, AD60)
    target = file_target(tmp_path / "new.xlsx")
    write_table(frame, target)
    sheet = zipfile.ZipFile(target.path).read("xl/worksheets/sheet1.xml")
    assert sheet == _openpyxl_sheet(frame, tmp_path / "old.xlsx")
    assert b'r="AD61"' in sheet
    pd.testing.assert_frame_equal(read_table(target), frame)
    # a whole workbook as openpyxl (not read-only) and pandas read it
    from openpyxl import load_workbook
    wb = load_workbook(target.path)
    assert wb.sheetnames == ["anonymized"] and wb.active.max_row == len(frame) + 1
    assert wb.active["A2"].data_type == "s"
    assert zipfile.ZipFile(target.path).testzip() is None
    back = pd.read_excel(target.path, dtype=str, keep_default_na=False)
    pd.testing.assert_frame_equal(back, frame)


def test_carriage_returns_and_blank_text_read_back_exactly(tmp_path):
    frame = pd.DataFrame({"a": ["crlf\r\nend", "   ", "cr\r", "\ttab"], "b": ["x"] * 4})
    target = file_target(tmp_path / "f.xlsx")
    write_table(frame, target)
    pd.testing.assert_frame_equal(read_table(target), frame)


def test_released_table_written_from_its_codes(released, tmp_path):  # noqa: F811
    _, result = released
    target = file_target(tmp_path / "r.xlsx", batch_rows=700)
    steps = []
    write_released(result.transformed(), target, lambda done, total: steps.append(done))
    assert steps == sorted(steps) and steps[-1] == result.transformed().n_rows
    assert len(steps) >= 5
    pd.testing.assert_frame_equal(read_table(target), result.output.astype(str),
                                  check_dtype=False)
    frame_target = file_target(tmp_path / "f.xlsx")
    write_table(result.output, frame_target)
    sheet = zipfile.ZipFile(target.path).read("xl/worksheets/sheet1.xml")
    assert sheet == zipfile.ZipFile(frame_target.path).read("xl/worksheets/sheet1.xml")


@pytest.mark.parametrize("value, why", [("bell\x07", "control character"),
                                        ("x" * 40_000, "more than Excel's 32,767")])
def test_values_excel_cannot_hold_are_named(tmp_path, value, why):
    frame = pd.DataFrame({"a": ["ok", "ok", "ok"], "b": ["ok", "fine", value]})
    path = tmp_path / "bad.xlsx"
    with pytest.raises(DataError, match=f"bad.xlsx: column 'b', data row 3: .*{why}"):
        write_table(frame, file_target(path))
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(DataError, match="column name"):
        write_table(pd.DataFrame({"bad\x01name": ["x"], "b": ["y"]}), file_target(path))


def test_too_many_rows_and_cancel(tmp_path):
    from engine.export.xlsx import MAX_ROWS, write_encoded_xlsx
    with pytest.raises(DataError, match="do not fit an Excel sheet"):
        write_encoded_xlsx(tmp_path / "big.xlsx", ["a"], MAX_ROWS + 1,
                           lambda name: pytest.fail("no column is read"))
    assert list(tmp_path.iterdir()) == []
    calls = []
    with pytest.raises(Cancelled):
        write_table(_frame(3000, 3), file_target(tmp_path / "c.xlsx", batch_rows=500),
                    cancel=lambda: calls.append(1) or len(calls) > 2)
    assert len(calls) == 3 and list(tmp_path.iterdir()) == []


def _by_openpyxl(path) -> pd.DataFrame:
    from openpyxl import load_workbook
    wb = load_workbook(path, read_only=True)
    rows = wb.worksheets[0].iter_rows(values_only=True)
    header = [str(c) for c in next(rows)]
    data = [["" if v is None else str(v) for v in r] for r in rows]
    wb.close()
    return pd.DataFrame(data, columns=header, dtype=object)


@pytest.mark.parametrize("rows", [0, 1, 60, 5000])
def test_own_files_read_vectorized_as_openpyxl_reads_them(tmp_path, rows):
    from engine.export import xlsx
    frame = _frame(rows, 30)
    frame.iloc[:rows // 2, 3] = "crlf\r\nend & more"
    target = file_target(tmp_path / "f.xlsx")
    write_table(frame, target)
    own = xlsx.read_own_xlsx(target.path)
    assert own is not None
    pd.testing.assert_frame_equal(own, frame.astype(object), check_index_type=False)
    by_openpyxl = _by_openpyxl(target.path)
    changed = frame.columns[3]  # openpyxl reads a carriage return as a line feed
    pd.testing.assert_frame_equal(own.drop(columns=changed), by_openpyxl.drop(columns=changed),
                                  check_index_type=False)


def test_other_files_are_read_by_openpyxl(tmp_path, monkeypatch):
    from engine.export import xlsx
    frame = _frame(40, 5)
    _openpyxl_sheet(frame, tmp_path / "theirs.xlsx")
    assert xlsx.read_own_xlsx(tmp_path / "theirs.xlsx") is None
    pd.testing.assert_frame_equal(read_table(file_target(tmp_path / "theirs.xlsx")), frame)
    # one of ours with a cell out of place is not read as ours
    target = file_target(tmp_path / "ours.xlsx")
    write_table(frame, target)
    parts = {n: zipfile.ZipFile(target.path).read(n)
             for n in zipfile.ZipFile(target.path).namelist()}
    parts["xl/worksheets/sheet1.xml"] = parts["xl/worksheets/sheet1.xml"].replace(
        b'<c r="B3"', b'<c r="C3"', 1)
    with zipfile.ZipFile(tmp_path / "moved.xlsx", "w") as z:
        for n, data in parts.items():
            z.writestr(n, data)
    assert xlsx.read_own_xlsx(tmp_path / "moved.xlsx") is None
    # a small read block: rows cut across blocks are joined before parsing
    monkeypatch.setattr(xlsx, "READ_BLOCK", 997)
    pd.testing.assert_frame_equal(xlsx.read_own_xlsx(target.path), frame.astype(object))


def test_cli_xlsx_export_loads_no_pandas(tmp_path):
    """The Excel release is written from the encoded columns as the CSV one is: the
    command loads no pandas (Arrow arrays built from buffers, not pyarrow's shim)."""
    from tests.cli.test_without_pandas import ADULT, adult_job, run_cli_in_one_process
    if not (ADULT / "adult.csv").exists():
        pytest.skip("../shared/data/adult is not available")
    out = tmp_path / "A.xlsx"
    codes, modules = run_cli_in_one_process(
        ["anonymize", adult_job(tmp_path, "A", False), "--output", out, "--quiet"])
    assert codes == [0] and "pandas" not in modules and "openpyxl" not in modules
    assert len(read_table(file_target(out))) == 30162


def _xlsx_equals_frame(result, tmp_path):
    table = result.transformed()
    target = file_target(tmp_path / "r.xlsx")
    write_released(table, target)
    pd.testing.assert_frame_equal(read_table(target), table.frame.astype(str),
                                  check_dtype=False)


def test_aggregates_rules_pseudonyms_and_local_recoding_are_written(tmp_path, monkeypatch):
    """Columns built whole (microaggregation, coding rules, masked pseudonyms, a local
    recoding) are written as the released DataFrame holds them."""
    import shutil

    import engine
    from tests.engine.conftest import ADULT, adult_job_text
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sex.csv").write_text("m;*\nf;*\n")
    data = pd.DataFrame({"sex": ["m", "m", "m", "f", "f", "f"] * 3,
                         "age": ["15", "30", "95", "50", "70", "17"] * 3,
                         "income": ["10", "20", "999", "30", "40", "50"] * 3})
    job = {"attributes": {
        "sex": {"type": "quasi-identifying", "hierarchy": "sex.csv"},
        "age": {"type": "quasi-identifying", "transformation": "microaggregation",
                "function": "arithmetic-mean"},
        "income": {"type": "insensitive", "transformation": "top-bottom-coding", "top": 100}},
        "privacy": [{"model": "k-anonymity", "k": 3}],
        "transformation": {"suppression_limit": 0.0}}
    _xlsx_equals_frame(engine.anonymize(data, job), tmp_path)
    if not (ADULT / "adult.csv").exists():
        return
    for f in ADULT.glob("adult_hierarchy_*.csv"):
        shutil.copy(f, tmp_path / f.name)
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str,
                        keep_default_na=False).head(2000)
    frame.insert(0, "phone", [f"+41 79 {i:07d}" for i in range(len(frame))])
    frame.to_csv(tmp_path / "people.csv", sep=";", index=False)
    text = adult_job_text(qis=["sex", "age", "race", "marital-status"], data="people.csv",
                          limit=0.04).replace(
        "[transformation]\n", "[transformation]\nlocal_recoding = { iterations = 20 }\n")
    text += '\n[attributes."phone"]\ntype = "identifying"\npseudonymize = "mask"\nkeep = 3\n'
    (tmp_path / "job.toml").write_text(text)
    result = engine.anonymize(None, tmp_path / "job.toml")
    assert result.local_recoding is not None
    _xlsx_equals_frame(result, tmp_path)
