"""Dialogs start in the data's folder only when that folder is known: a relative data
location (a project's data beside an unsaved project) is not the working directory."""
from __future__ import annotations

from types import SimpleNamespace

from app import file_dialogs


class NoSettings:
    def last_folder(self, kind):
        return ""


def test_relative_location_is_not_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    doc = SimpleNamespace(path=None, source=SimpleNamespace(location="adult.csv"))
    monkeypatch.setattr(file_dialogs.Path, "home", classmethod(lambda cls: tmp_path / "home"))
    assert file_dialogs.start_folder("export", doc, NoSettings()) == str(tmp_path / "home")


def test_absolute_location_gives_its_folder(tmp_path, monkeypatch):
    data = tmp_path / "data.csv"
    data.write_text("a\n1\n")
    doc = SimpleNamespace(path=None, source=SimpleNamespace(location=str(data)))
    assert file_dialogs.start_folder("hierarchy", doc, NoSettings()) == str(tmp_path)
    # but an export never starts beside the raw data (issue 27 item 7)
    monkeypatch.setattr(file_dialogs.Path, "home", classmethod(lambda cls: tmp_path / "home"))
    assert file_dialogs.start_folder("export", doc, NoSettings()) == str(tmp_path / "home")
