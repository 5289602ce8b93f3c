"""`verify` of a CSV release read in pieces on every core (engine/verifier/csv_rows.py:
the file cut at record boundaries, each piece parsed and grouped by Arrow in a thread,
the distinct rows merged in file order) gives the report of the streamed reading and
of the plain pandas reading, word for word, and the identifier scan done in the same
reading gives the findings of the separate scan. Pieces are made small here (a few
hundred bytes) so that a small file is cut into many."""
from __future__ import annotations

import csv

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

from engine.api import as_job
from engine.verifier import csv_rows
from engine.verify import identifier_violations, verify_file
from tests.cli.conftest import job_text
from tests.cli.test_verify_fast import L_DIVERSITY, T_CLOSENESS, _big_tiny, released, write


@pytest.fixture
def pieces(monkeypatch):
    """The number of pieces of each reading in pieces (None: it declined the file)."""
    seen: list[int | None] = []
    real = csv_rows.count_pieces

    def count_pieces(*args, **kwargs):
        got = real(*args, **kwargs)
        seen.append(None if got is None else got.pieces)
        return got
    monkeypatch.setattr(csv_rows, "count_pieces", count_pieces)
    return seen


def three(path, job, pieces, piece_bytes=300, threads=2, **kwargs):
    """The reports of the plain (pandas), streamed (one piece) and pieced readings:
    equal; the pieced one read the file in several pieces."""
    plain = verify_file(path, job, fast=False, **kwargs).to_dict()
    streamed = verify_file(path, job, fast=True, **kwargs).to_dict()
    assert pieces == []  # the file is smaller than two default pieces
    cut = verify_file(path, job, fast=True, piece_bytes=piece_bytes, threads=threads,
                      **kwargs).to_dict()
    assert len(pieces) == 1 and pieces[0] is not None and pieces[0] > 2, pieces
    pieces.clear()
    assert cut == streamed == plain
    return cut


def test_awkward_files_give_the_same_report(tmp_path, pieces):
    job, frame = released(tmp_path, [1, 0, 1], L_DIVERSITY, limit="0.5")
    out = tmp_path / "o.csv"
    ok = three(write(frame, out), job, pieces)
    assert ok["ok"], ok["violations"]
    # every value quoted (quote bytes before each cut: cuts only outside quotes), CRLF
    assert three(write(frame, out, csv.QUOTE_ALL, lineterminator="\r\n"), job, pieces) == ok
    assert three(write(frame, out, encoding="utf-8-sig"), job, pieces) == ok
    odd = frame.assign(disease=frame["disease"].map({"flu": "flu; severe",
                                                     "cold": "Kälte", "cancer": "cancer"}))
    report = three(write(odd, out, encoding="cp1252"), job, pieces)
    assert report["ok"] and report["classes"] == ok["classes"]
    marked = frame.copy()
    marked.loc[[0, 5, 9], ["age", "sex", "zip"]] = "*"
    marked.loc[[12], "zip"] = "*"
    report = three(write(marked, out), job, pieces)
    assert report["suppressed_records"] >= 3 and not report["ok"]


@pytest.mark.parametrize("extra, levels", [("", [0, 0, 0]), (L_DIVERSITY, [1, 1, 1]),
                                           (T_CLOSENESS, [1, 0, 1])])
def test_many_pieces_give_the_same_report(tmp_path, pieces, extra, levels):
    _big_tiny(tmp_path, 6000)
    job, frame = released(tmp_path, levels, extra, k="60", limit="0.05")
    if not any(levels):  # many small classes, violations named in file order
        frame = pd.read_csv(tmp_path / "data.csv", sep=";", dtype=str).drop(columns="name")
    out = write(frame, tmp_path / "o.csv")
    # more pieces than are merged at once, one thread and two: the same report
    report = three(out, job, pieces, piece_bytes=1024, threads=1)
    assert out.stat().st_size // 1024 > 2 * csv_rows.MERGE_EVERY
    assert three(out, job, pieces, piece_bytes=1024, threads=2) == report
    if not any(levels):
        assert not report["ok"] and "violate" in " ".join(report["violations"])


def test_a_quoted_value_holding_newlines_is_never_cut(tmp_path):
    """Cuts fall only between records: each piece parsed alone gives the file's rows."""
    rows = [[f"r{i}", "a\nb\nc" if i % 3 == 0 else "x", '"' if i % 7 == 0 else ""]
            for i in range(400)]
    path = tmp_path / "q.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f, delimiter=";", quoting=csv.QUOTE_MINIMAL)
        w.writerow(["id", "note", "q"])
        w.writerows(rows)
    data = path.read_bytes()
    cuts = csv_rows.boundaries(path, 64, quoted=True)
    assert len(cuts) > 20 and cuts[0] == 0 and cuts[-1] == len(data)
    got = []
    for i, (a, b) in enumerate(zip(cuts, cuts[1:])):
        table = pacsv.read_csv(
            pa.py_buffer(data[a:b]),
            read_options=pacsv.ReadOptions(column_names=None if i == 0 else
                                           ["id", "note", "q"]),
            parse_options=pacsv.ParseOptions(delimiter=";", newlines_in_values=True),
            convert_options=pacsv.ConvertOptions(strings_can_be_null=False,
                                                 column_types={"q": pa.string()}))
        got += [list(r.values()) for r in table.to_pylist()]
    assert got == rows


def test_the_identifier_scan_in_the_same_reading_finds_what_the_scan_finds(tmp_path,
                                                                           pieces):
    """A released column the counts do not read (e-mails, phones) and a counted one
    holding identifiers: the findings (column, kind, rows, first row) of the reading in
    pieces are the separate scan's."""
    _big_tiny(tmp_path, 3000)
    text = job_text(k="1", limit="0.5").replace(
        '[attributes.disease]\ntype = "sensitive"',
        '[attributes.note]\ntype = "insensitive"\n[attributes.disease]\ntype = "sensitive"')
    (tmp_path / "j.toml").write_text(text)
    job = as_job(tmp_path / "j.toml")
    frame = pd.read_csv(tmp_path / "data.csv", sep=";", dtype=str).drop(columns="name")
    frame.insert(3, "note", ["" if i % 97 else f"mail jane.doe{i}@example.org"
                             for i in range(len(frame))])
    frame.loc[frame.index % 400 == 150, "note"] = "call +41 44 668 18 00"
    frame.loc[frame.index % 911 == 500, "disease"] = "ask anna.smith@example.com"
    out = write(frame, tmp_path / "o.csv")
    separate = identifier_violations(out, job)
    assert len(separate) >= 3, separate  # both kinds in 'note', one in 'disease'
    assert any("'disease'" in v for v in separate) and any("'note'" in v for v in separate)
    streamed = verify_file(out, job, fast=True, identifiers=True)
    cut = verify_file(out, job, fast=True, identifiers=True, piece_bytes=2048)
    assert len(pieces) == 1 and pieces[0] > 2
    assert cut.violations[-len(separate):] == separate
    assert cut.to_dict() == streamed.to_dict()
    assert not cut.ok


def test_a_file_arrow_could_misread_is_declined(tmp_path, pieces):
    """A counted value holding the quote character (an even number of them in the
    file): the reading in pieces declines it, pandas reads it, the same report."""
    job, frame = released(tmp_path, [1, 0, 1], L_DIVERSITY, limit="0.5")
    out = tmp_path / "o.csv"
    inner = frame.assign(disease=frame["disease"].where(frame.index % 5 != 3, 'fl"u'))
    write(inner, out, csv.QUOTE_NONE)
    assert out.read_text().count('"') % 2 == 0
    cut = verify_file(out, job, fast=True, piece_bytes=200).to_dict()
    assert pieces == [None]  # a value holding a quote: read as before
    assert cut == verify_file(out, job, fast=False).to_dict()


@pytest.mark.parametrize("labels", [3, 60, 2**10])  # packed (60: packed again as the
# labels grow); 8 columns of 2**10 labels need 80 bits: regrouped
def test_pieces_distinct_rows_merge_as_a_plain_count(labels):
    """The pieces' distinct rows added one piece after the other give each distinct row
    of the whole file once, in order of first row, with its records: a dictionary count
    of the same rows, whether the codes are packed into one integer or regrouped."""
    import numpy as np
    rnd = np.random.default_rng(3)
    width = 8  # 8 columns of 2**10 labels need 80 bits
    rows = rnd.integers(0, labels, size=(5000, width))
    if labels <= 60:  # many repeated rows
        rows[:, 1:] %= 1 + rnd.integers(0, 2, size=(5000, width - 1))
    rows[:, 0] = rnd.integers(0, 3, size=5000)
    rows[:, 2] = np.arange(5000) // 100 % labels  # new labels piece after piece
    expected: dict[tuple, list[int]] = {}
    for i, r in enumerate(map(tuple, rows)):
        expected.setdefault(r, [0, i])[0] += 1
    distinct = csv_rows._Distinct(width)
    for a in range(0, 5000, 700):  # pieces: their distinct rows in order of first row
        piece: dict[tuple, list[int]] = {}
        for i, r in enumerate(map(tuple, rows[a:a + 700])):
            piece.setdefault(r, [0, i + a])[0] += 1
        seen = (rows[:a + 700].max(axis=0) + 1).tolist()  # the labels met so far
        distinct.add(np.array(list(piece), dtype=np.int64).reshape(-1, width),
                     np.array([n for n, _ in piece.values()], dtype=np.int64),
                     np.array([f for _, f in piece.values()], dtype=np.int64), seen)
    codes, records, first = distinct.result((rows.max(axis=0) + 1).tolist())
    assert (distinct.parts is not None) == (labels > 60)
    assert [tuple(r) for r in codes] == list(expected)
    assert records.tolist() == [n for n, _ in expected.values()]
    assert first.tolist() == [f for _, f in expected.values()]


def test_more_threads_read_smaller_pieces():
    """The bytes being parsed at once stay bounded whatever the number of cores."""
    assert csv_rows.piece_size(1) == csv_rows.piece_size(2) == csv_rows.PIECE_BYTES
    for threads in range(1, csv_rows.MAX_THREADS + 1):
        size = csv_rows.piece_size(threads)
        assert csv_rows.MIN_PIECE_BYTES <= size <= csv_rows.PIECE_BYTES
        assert size * threads <= max(csv_rows.IN_FLIGHT_BYTES, 2 * csv_rows.PIECE_BYTES)
    assert 1 <= csv_rows.cores() <= csv_rows.MAX_THREADS


@pytest.mark.slow
def test_oracle_releases_and_broken_copies_give_the_same_report(tmp_path, pieces):
    """One ARX oracle release per combination of models, and two broken copies of it
    (a record's quasi-identifier set to a label no hierarchy holds; the first record
    dropped, a class made smaller): read in pieces, the same report as the pandas
    reading."""
    from engine.export.targets import CsvOptions, FileTarget, write_released
    from engine.output import transform
    from engine.problem import Problem
    from engine.search import run_search
    from tests import oracle
    cases = [c for c in oracle.cases()
             if c["algorithm"] == "OPTIMAL" and not c["expected_no_solution"]
             and "LocalRecoding" not in c["id"]]
    seen, checked, failing = set(), 0, 0
    for case in cases:
        job = oracle.job_for(case)
        models = tuple(sorted(m.name for m in job.privacy))
        if models in seen:
            continue
        seen.add(models)
        problem = Problem(oracle.table(case["dataset"]), job)
        optimum = run_search(problem).optimum
        if optimum is None:
            continue
        out = tmp_path / "out.csv"
        write_released(transform(problem, optimum.levels),
                       FileTarget(out, "csv", CsvOptions(delimiter=";")))
        qis = [n for n, a in job.attributes.items() if a.type == "quasi-identifying"]
        verify_job = oracle.verify_job(case)
        for path in (out, *_broken_copies(out, qis[0], tmp_path)):
            plain = verify_file(path, verify_job, fast=False).to_dict()
            cut = verify_file(path, verify_job, fast=True, threads=2,
                              piece_bytes=max(path.stat().st_size // 7, 512)).to_dict()
            assert cut == plain, (case["id"], path.name)
            assert pieces and pieces[-1] and pieces[-1] > 2, (case["id"], pieces)
            checked += 1
            failing += not cut["ok"]
        pieces.clear()
    assert checked >= 30 and failing >= checked // 3, (checked, failing)


def _broken_copies(out, qi: str, folder) -> list:
    lines = out.read_text().splitlines()
    at = lines[0].split(";").index(qi)
    last = lines[-1].split(";")
    last[at] = "no-such-label"
    label = folder / "unknown-label.csv"
    label.write_text("\n".join(lines[:-1] + [";".join(last)]) + "\n")
    dropped = folder / "first-dropped.csv"
    dropped.write_text("\n".join(lines[:1] + lines[2:]) + "\n")
    return [label, dropped]
