"""Project files: size limits (zip bombs), every reader error named by its member, and a
malformed member refusing the whole project while the open one stays as it was."""
from __future__ import annotations

import json
import shutil
import struct
import zipfile
from pathlib import Path

import pytest

from app.project_file import (MAX_OTHER_MEMBER_BYTES, ProjectError, check_sizes,
                              read_project)
from tests.app.conftest import open_sample

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "sample" / "adult.anonymist"


def rewritten(tmp_path, change: dict, name="p.anonymist", compression=zipfile.ZIP_DEFLATED):
    """The sample project with members replaced (bytes or str) or added."""
    out = tmp_path / name
    with zipfile.ZipFile(SAMPLE) as src, zipfile.ZipFile(out, "w", compression) as dst:
        for info in src.infolist():
            data = change.pop(info.filename, None)
            dst.writestr(info.filename, src.read(info.filename) if data is None else data)
        for member, data in change.items():
            dst.writestr(member, data)
    return out


def patch_central(path: Path, member: str, **fields) -> None:
    """Rewrite a member's declared sizes in the central directory (as a forged zip does)."""
    raw = bytearray(path.read_bytes())
    pos = raw.find(b"PK\x01\x02")
    while pos >= 0:
        name_len = struct.unpack_from("<H", raw, pos + 28)[0]
        if raw[pos + 46:pos + 46 + name_len].decode() == member:
            if "file_size" in fields:
                struct.pack_into("<I", raw, pos + 24, fields["file_size"])
            if "compress_size" in fields:
                struct.pack_into("<I", raw, pos + 20, fields["compress_size"])
            path.write_bytes(bytes(raw))
            return
        pos = raw.find(b"PK\x01\x02", pos + 4)
    raise AssertionError(f"{member} not found")


def refused(path, *needles):
    with pytest.raises(Exception) as info:
        read_project(path)
    text = str(info.value)
    assert "Traceback" not in text
    for needle in needles:
        assert needle in text, text
    return text


def test_the_sample_reads():
    assert read_project(SAMPLE).table is not None


def test_member_declaring_more_than_its_limit(tmp_path):
    path = rewritten(tmp_path, {"extras.json": "{}"})
    patch_central(path, "extras.json", file_size=MAX_OTHER_MEMBER_BYTES + 1)
    refused(path, "extras.json", "more than")


def test_compression_ratio_bomb(tmp_path):
    path = rewritten(tmp_path, {"extras.json": "{}"})
    patch_central(path, "extras.json", file_size=200 << 20)
    refused(path, "extras.json", "zip bomb")


def test_compressed_sizes_beyond_the_archive(tmp_path):
    path = rewritten(tmp_path, {})
    patch_central(path, "data.csv", compress_size=path.stat().st_size * 4,
                  file_size=path.stat().st_size * 8)
    refused(path, "damaged")


def test_total_above_four_gib(tmp_path):
    path = tmp_path / "many.anonymist"
    with zipfile.ZipFile(path, "w") as z:
        for i in range(20):
            z.writestr(f"result/{i}.npy", b"x")

    class Info:
        def __init__(self, name):
            self.filename, self.file_size, self.compress_size = name, 250 << 20, 1 << 20

    class Fake:
        def infolist(self):
            return [Info(f"result/{i}.npy") for i in range(20)]

    with pytest.raises(ProjectError, match="in all"):
        check_sizes(Fake(), "many.anonymist")


def test_corrupt_deflate_stream_names_the_member(tmp_path):
    path = rewritten(tmp_path, {"source.json": json.dumps({"kind": "csv"} | {
        f"k{i}": "v" * 50 for i in range(200)})})
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("source.json")
        start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    raw = bytearray(path.read_bytes())
    for i in range(start + 5, start + 40):
        raw[i] ^= 0xFF
    path.write_bytes(bytes(raw))
    refused(path, "source.json")


def test_crc_error_names_the_member(tmp_path):
    path = rewritten(tmp_path, {"subset.txt": "1\n2\n3\n"}, compression=zipfile.ZIP_STORED)
    raw = path.read_bytes()
    pos = raw.find(b"1\n2\n3\n")
    path.write_bytes(raw[:pos] + b"7" + raw[pos + 1:])
    refused(path, "subset.txt")


def test_job_toml_not_utf8(tmp_path):
    with zipfile.ZipFile(SAMPLE) as z:
        job = z.read("job.toml")
    refused(rewritten(tmp_path, {"job.toml": job + b"\n# caf\xe9\n"}), "job.toml", "UTF-8")


def test_hierarchy_not_utf8(tmp_path):
    with zipfile.ZipFile(SAMPLE) as z:
        member = next(n for n in z.namelist() if n.startswith("hierarchies/"))
    refused(rewritten(tmp_path, {member: b"a;\xff\n"}), member, "UTF-8")


@pytest.mark.parametrize("extras, needle", [
    ("{not json", "extras.json"),
    ("[1, 2]", "JSON object"),
    (json.dumps({"explore.clipboard": {"levels": 1}}), "must be a list"),
    (json.dumps({"explore.clipboard": [{"levels": {"age": "x"}}]}), "whole numbers"),
    (json.dumps({"risk": {"thresholds": {"highest_risk": 7}}}), "highest_risk"),
    (json.dumps({"risk": {"thresholds": {"bogus": 0.1}}}), "thresholds"),
])
def test_malformed_extras(tmp_path, extras, needle):
    refused(rewritten(tmp_path, {"extras.json": extras}), "extras.json", needle)


def test_malformed_result_json(tmp_path):
    refused(rewritten(tmp_path, {"result.json": "[]"}), "result.json", "JSON object")


def test_subset_query_that_does_not_run(tmp_path):
    with zipfile.ZipFile(SAMPLE) as z:
        job = z.read("job.toml").decode()
    job += '\n[subset]\nquery = "nosuchcolumn > 3"\n'
    refused(rewritten(tmp_path, {"job.toml": job}), "[subset]", "nosuchcolumn")


def test_a_folder_is_no_project(tmp_path):
    refused(tmp_path, "folder")


def test_malformed_project_leaves_the_open_one_untouched(qtbot, window, tmp_path, messages):
    open_sample(qtbot, window)
    doc = window.document
    before = (doc.path, list(doc.attributes), dict(doc.extras), doc.table.n_rows,
              [dict(p) for p in doc.settings.privacy])
    bad = rewritten(tmp_path, {"extras.json": json.dumps({"risk": "loud"})})
    with qtbot.waitSignal(window.files.tasks.failed, timeout=30_000):
        window.open_path(bad)
    assert messages and "extras.json" in messages[-1][1]
    assert "Unexpected" not in messages[-1][0] + messages[-1][1]
    after = (doc.path, list(doc.attributes), dict(doc.extras), doc.table.n_rows,
             [dict(p) for p in doc.settings.privacy])
    assert after == before
    shutil.rmtree(tmp_path, ignore_errors=True)
