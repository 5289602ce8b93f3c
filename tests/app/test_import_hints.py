"""A file that is not a table, or a table read with the wrong delimiter, gets words that
say so (issue 27 item 7): a PNG is named an image (not "choose the encoding"), and a
preview of one column asks about the delimiter the first line holds."""
from __future__ import annotations

import pytest

from engine.data.csv_import import detect_csv_format, one_column_hint
from engine.errors import DataError
from tests.app.conftest import ADULT

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


@pytest.mark.parametrize("head, words", [(PNG, "a PNG image"), (b"%PDF-1.7\n" + bytes(200),
                                                                   "a PDF document")])
def test_an_image_or_document_is_named_for_what_it_is(tmp_path, head, words):
    path = tmp_path / "data.csv"
    path.write_bytes(head)
    with pytest.raises(DataError) as e:
        detect_csv_format(path)
    assert words in str(e.value) and "not a data table" in str(e.value)
    assert "encoding" not in str(e.value)


def test_the_import_wizard_says_a_png_is_an_image(qtbot, window, tmp_path):
    path = tmp_path / "photo.csv"
    path.write_bytes(PNG)
    wizard = window.files.make_import_wizard(str(path))
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.next()
    assert "a PNG image" in (wizard.error or "")


def test_one_column_asks_about_the_delimiter(qtbot, window, tmp_path):
    (tmp_path / "adult.csv").write_text((ADULT / "adult.csv").read_text().replace(";", ",")
                                        [:20000].rsplit("\n", 1)[0] + "\n")
    wizard = window.files.make_import_wizard(str(tmp_path / "adult.csv"))
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.next()
    page = wizard.format_page
    page.delimiter.setCurrentText(";")
    page.refresh_preview()
    assert page.model.columnCount() == 1
    assert "is the delimiter ','?" in page.error.text()
    page.delimiter.setCurrentText(",")
    page.refresh_preview()
    assert page.model.columnCount() == 9 and page.error.text() == ""


def test_hint_words():
    assert "is the delimiter tab?" in one_column_hint("a\tb\tc", ";")
    assert "another delimiter" in one_column_hint("abc", ";")
