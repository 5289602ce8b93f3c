"""CSV import: format detection, reading, and the messages for bad input."""
from __future__ import annotations

from pathlib import Path

from tests.shared_data import SHARED

import pytest

from engine.data.csv_import import (CsvFormat, detect_csv_format, detect_encoding, read_csv,
                                    read_csv_preview)
from engine.errors import DataError

ADULT = SHARED / "data" / "adult" / "adult.csv"
ROWS = [["name", "age", "city", "income"],
        ["Anna", "34", "Berlin", "52000.5"],
        ["Ben", "41", "Hamburg", "61000"],
        ["Cora", "29", "Köln", ""],
        ["Dirk", "57", "München", "48000.25"]]


def write(tmp_path: Path, text: str | bytes, name: str = "data.csv",
          encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode(encoding))
    return path


def table(rows: list[list[str]], delimiter: str, quote: str = "") -> str:
    return "".join(delimiter.join(f"{quote}{v}{quote}" for v in r) + "\n" for r in rows)


@pytest.mark.parametrize("delimiter", [";", ",", "\t", "|"])
def test_detects_each_delimiter(tmp_path, delimiter):
    path = write(tmp_path, table(ROWS, delimiter))
    fmt = detect_csv_format(path)
    assert fmt.delimiter == delimiter
    assert fmt.has_header and fmt.encoding == "utf-8" and fmt.confidence == 1.0
    df = read_csv(path)
    assert list(df.columns) == ROWS[0]
    assert df.values.tolist() == ROWS[1:]


def test_delimiter_inside_quoted_values_is_not_counted(tmp_path):
    text = 'name,address,zip\n"Doe; John","Main St 1; Apt 2",12345\n' \
           '"Roe; Jane","Elm St 5; Floor 3",54321\n"Poe; Ed","Oak 7; back",11111\n'
    fmt = detect_csv_format(write(tmp_path, text))
    assert (fmt.delimiter, fmt.quotechar) == (",", '"')
    assert read_csv(tmp_path / "data.csv")["name"].tolist() == ["Doe; John", "Roe; Jane", "Poe; Ed"]


def test_decimal_commas_do_not_beat_semicolons(tmp_path):
    text = "1,5;2,25;x\n3,5;4,75;y\n0,5;1,0;z\n"
    assert detect_csv_format(write(tmp_path, text)).delimiter == ";"


@pytest.mark.parametrize("quote", ['"', "'"])
def test_detects_quote_char(tmp_path, quote):
    rows = [["id", "comment"], ["1", "a;b"], ["2", "c;d;e"], ["3", "plain"]]
    path = write(tmp_path, table(rows, ";", quote))
    fmt = detect_csv_format(path)
    assert (fmt.delimiter, fmt.quotechar) == (";", quote)
    assert read_csv(path)["comment"].tolist() == ["a;b", "c;d;e", "plain"]


def test_quoted_newlines_and_doubled_quotes(tmp_path):
    path = write(tmp_path, 'id;text\n1;"line one\nline two"\n2;"say ""hi"""\n')
    assert read_csv(path)["text"].tolist() == ["line one\nline two", 'say "hi"']


def test_header_detected_over_numeric_body(tmp_path):
    assert detect_csv_format(write(tmp_path, "age;zip\n34;10115\n41;20095\n")).has_header


def test_no_header_when_first_row_is_numeric(tmp_path):
    path = write(tmp_path, "34;10115;Anna\n41;20095;Ben\n29;50667;Cora\n")
    assert not detect_csv_format(path).has_header
    df = read_csv(path)
    assert list(df.columns) == ["column1", "column2", "column3"]
    assert df.shape == (3, 3)


def test_no_header_when_first_row_repeats_body_categories(tmp_path):
    rows = [["Male", "White"], ["Female", "Black"], ["Male", "White"], ["Female", "White"],
            ["Male", "Black"]]
    assert not detect_csv_format(write(tmp_path, table(rows, ";"))).has_header


def test_header_over_categorical_body(tmp_path):
    rows = [["sex", "race"], ["Male", "White"], ["Female", "Black"], ["Male", "White"],
            ["Female", "White"]]
    assert detect_csv_format(write(tmp_path, table(rows, ";"))).has_header


def test_header_over_fixed_length_codes(tmp_path):
    rows = [["code", "postcode"], ["AB12", "10115"], ["CD34", "X0095"], ["EF56", "Y0667"]]
    assert detect_csv_format(write(tmp_path, table(rows, ","))).has_header


def test_given_format_overrides_detection(tmp_path):
    path = write(tmp_path, "34;10115\n41;20095\n")
    df = read_csv(path, delimiter=";", encoding="utf-8", header=True)
    assert list(df.columns) == ["34", "10115"] and len(df) == 1


def test_utf8_bom(tmp_path):
    path = write(tmp_path, b"\xef\xbb\xbf" + table(ROWS, ";").encode())
    fmt = detect_csv_format(path)
    assert fmt.encoding == "utf-8-sig"
    assert list(read_csv(path).columns) == ROWS[0]
    assert list(read_csv(path, delimiter=";", encoding="utf-8").columns) == ROWS[0]


def test_cp1252_with_umlauts(tmp_path):
    path = write(tmp_path, table(ROWS, ";"), encoding="cp1252")
    assert detect_csv_format(path).encoding == "cp1252"
    assert read_csv(path)["city"].tolist() == ["Berlin", "Hamburg", "Köln", "München"]


def test_cp1252_after_an_ascii_sample_falls_back(tmp_path):
    rows = [["id", "city"]] + [[str(i), "Berlin"] for i in range(20_000)] + [["x", "Köln"]]
    path = write(tmp_path, table(rows, ";"), encoding="cp1252")
    assert detect_csv_format(path, sample_bytes=1024).encoding == "utf-8"
    df = read_csv(path)
    assert df["city"].iloc[-1] == "Köln"
    assert df.attrs["csv_format"].encoding == "cp1252"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le"])
def test_utf16(tmp_path, encoding):
    path = write(tmp_path, table(ROWS, "\t"), encoding=encoding)
    fmt = detect_csv_format(path)
    assert fmt.encoding.startswith("utf-16") and fmt.delimiter == "\t"
    assert read_csv(path)["city"].tolist() == ["Berlin", "Hamburg", "Köln", "München"]


def test_detect_encoding_on_bytes():
    assert detect_encoding("Straße".encode()) == "utf-8"
    assert detect_encoding("Straße".encode("cp1252")) == "cp1252"
    assert detect_encoding(b"\x81\xe4") == "latin-1"
    assert detect_encoding("ä".encode("utf-8")[:1]) == "utf-8"  # cut inside a character


def test_missing_values_stay_empty_strings(tmp_path):
    path = write(tmp_path, "a;b;c\n1;;NA\nNULL;x;\n;;\n")
    df = read_csv(path)
    assert df.values.tolist() == [["1", "", "NA"], ["NULL", "x", ""], ["", "", ""]]
    assert not df.isna().any().any()


def test_blank_lines_are_skipped(tmp_path):
    assert read_csv(write(tmp_path, "a;b\n\n1;2\n\n3;4\n")).values.tolist() == [["1", "2"],
                                                                                ["3", "4"]]


def test_trailing_delimiter_on_every_line_is_dropped(tmp_path):
    df = read_csv(write(tmp_path, "a;b;\n1;2;\n3;4;\n"))
    assert list(df.columns) == ["a", "b"]


def test_preview_reads_first_rows_only(tmp_path):
    rows = [["id", "v"]] + [[str(i), "x"] for i in range(1000)] + [["bad"]]
    path = write(tmp_path, table(rows, ";"))
    df = read_csv_preview(path, detect_csv_format(path), n_rows=10)
    assert df["id"].tolist() == [str(i) for i in range(10)]
    assert list(read_csv_preview(path, CsvFormat(";", has_header=False), 3).columns) == [
        "column1", "column2"]


def test_adult_with_everything_detected():
    fmt = detect_csv_format(ADULT)
    assert fmt == CsvFormat(";", '"', True, "utf-8", 1.0)
    df = read_csv(ADULT)
    assert df.shape == (30_162, 9)
    assert list(df.columns)[:3] == ["sex", "age", "race"]
    assert df["age"].iloc[0] == "39"


@pytest.mark.slow  # reading time is measured by tests/benchmarks, never asserted here
def test_million_rows_load(tmp_path):
    lines = ADULT.read_text().splitlines()
    body = lines[1:] * (1_000_000 // (len(lines) - 1) + 1)
    path = write(tmp_path, "\n".join(lines[:1] + body[:1_000_000]) + "\n")
    df = read_csv(path)
    assert df.shape == (1_000_000, 9)


# --- bad input: each message names the file, line or value ---

def test_missing_file(tmp_path):
    with pytest.raises(DataError, match="not found: .*nope.csv"):
        read_csv(tmp_path / "nope.csv")
    with pytest.raises(DataError, match="not found"):
        read_csv(tmp_path / "nope.csv", delimiter=";", encoding="utf-8", quotechar='"',
                 header=True)


@pytest.mark.parametrize("content", [b"", b"\n\n  \n", b"\xef\xbb\xbf"])
def test_empty_file(tmp_path, content):
    path = write(tmp_path, content, name="empty.csv")
    with pytest.raises(DataError, match="empty.csv is empty"):
        read_csv(path)


def test_too_many_fields_names_line(tmp_path):
    rows = [["a", "b", "c"]] + [["1", "2", "3"]] * 15 + [["1", "2", "3", "4", "5"]]
    with pytest.raises(DataError, match=r"data\.csv line 17 has 5 fields, expected 3"):
        read_csv(write(tmp_path, table(rows, ";")), delimiter=";", header=True)


def test_too_few_fields_names_line(tmp_path):
    text = 'a;b;c\n1;"two\nlines";3\n4;5;6\n7;8\n'
    with pytest.raises(DataError, match=r"data\.csv line 5 has 2 fields, expected 3"):
        read_csv(write(tmp_path, text))


def test_too_few_fields_in_preview(tmp_path):
    path = write(tmp_path, "a;b;c\n1;2;\n4\n")
    with pytest.raises(DataError, match="line 3 has 1 field, expected 3"):
        read_csv_preview(path, CsvFormat(";"), n_rows=5)


def test_undecodable_bytes_name_encoding_offset_and_line(tmp_path):
    text = "city;n\nBerlin;1\nKöln;2\n".encode("cp1252")
    path = write(tmp_path, text, name="cities.csv")
    with pytest.raises(DataError) as err:
        read_csv(path, encoding="utf-8")
    message = str(err.value)
    assert "cities.csv is not utf-8 text" in message
    offset = text.index("ö".encode("cp1252"))
    assert "0xF6" in message and f"offset {offset}" in message
    assert "(line 3)" in message


def test_utf8_evidence_then_bad_bytes_is_an_error(tmp_path):
    good = "id;city\n1;Köln\n".encode()
    bad = "".join(f"{i};Berlin\n" for i in range(10_000)).encode() + "9;Kö\n".encode("cp1252")
    path = write(tmp_path, good + bad)
    with pytest.raises(DataError, match=r"not utf-8 text.*\(line 10003\)"):
        read_csv(path)


def test_duplicate_header_names(tmp_path):
    with pytest.raises(DataError, match="data.csv line 1: column name 'age' appears more than "
                                        r"once in the header \(columns 2 and 3\)"):
        read_csv(write(tmp_path, "name;age;age\nA;1;2\n"), header=True)


def test_empty_header_name(tmp_path):
    with pytest.raises(DataError, match="data.csv line 1: column 2 has an empty name"):
        read_csv(write(tmp_path, "name;;age\nA;x;1\n"), header=True)


def test_missing_file_in_detection(tmp_path):
    with pytest.raises(DataError, match="not found"):
        detect_csv_format(tmp_path / "x.csv")
    with pytest.raises(DataError, match="folder"):
        detect_csv_format(tmp_path)


def test_unclosed_quote_names_line(tmp_path):
    with pytest.raises(DataError, match=r"data\.csv near line 3: .* never closed"):
        read_csv(write(tmp_path, 'a;b\n1;2\n3;"x\n4;5\n'), delimiter=";", quotechar='"')


def test_single_column_file(tmp_path):
    path = write(tmp_path, "name\nAnna\nBen\n")
    assert detect_csv_format(path).confidence == 0.5
    assert read_csv(path)["name"].tolist() == ["Anna", "Ben"]


def test_header_only_file(tmp_path):
    df = read_csv(write(tmp_path, "a,b\n"))
    assert list(df.columns) == ["a", "b"] and len(df) == 0
