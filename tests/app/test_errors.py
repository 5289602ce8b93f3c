"""Bad input ends in a message, never a traceback."""
from __future__ import annotations

from tests.app.test_workflow import configure_adult, import_adult
from tests.app.conftest import QIS


def test_ragged_csv_in_preview_shows_error_on_format_page(qtbot, window, tmp_path):
    bad = tmp_path / "broken.csv"
    bad.write_text("a;b;c\n1;2;3\n4;5\n6;7;8\n")
    wizard = window.files.make_import_wizard(str(bad))
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.next()
    page = wizard.format_page
    assert wizard.currentPage() is page
    assert "line 3" in page.error.text()
    assert not page.isComplete()


def test_ragged_csv_beyond_preview_fails_with_dialog(qtbot, window, tmp_path, messages):
    bad = tmp_path / "late.csv"
    rows = ["a;b;c"] + [f"{i};x;y" for i in range(500)] + ["1;2"] + ["3;4;5"]
    bad.write_text("\n".join(rows) + "\n")
    wizard = window.files.make_import_wizard(str(bad))
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.next()
    assert wizard.format_page.isComplete()
    wizard.next()
    spec = wizard.spec()
    with qtbot.waitSignal(window.files.tasks.failed, timeout=60_000):
        window.files.import_spec(spec)
    assert messages, "no message shown"
    title, text = messages[-1]
    assert "line 502" in text and "Traceback" not in text
    assert window.document.table is None


def test_unreadable_file_leads_to_error_page(qtbot, window, tmp_path):
    missing = tmp_path / "nothing-here.csv"
    wizard = window.files.make_import_wizard(str(missing))
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.next()
    assert wizard.currentPage() is wizard.error_page
    assert "nothing-here.csv" in wizard.error_page.message.text()
    assert not wizard.error_page.isComplete()

    empty = tmp_path / "empty.csv"
    empty.write_text("")
    wizard2 = window.files.make_import_wizard(str(empty))
    qtbot.addWidget(wizard2)
    wizard2.show()
    wizard2.next()
    assert wizard2.currentPage() is wizard2.error_page
    assert "empty" in wizard2.error_page.message.text()


def test_hierarchy_missing_a_value(qtbot, window, adult_dir, tmp_path, messages):
    import_adult(qtbot, window, adult_dir)
    configure_adult(window, adult_dir)
    lines = (adult_dir / "adult_hierarchy_race.csv").read_text().splitlines()
    dropped = next(line for line in lines if line.startswith("Black;"))
    short = tmp_path / "race_short.csv"
    short.write_text("\n".join(line for line in lines if line != dropped) + "\n")
    conf = window.configure
    conf.attributes.select(["race"])
    assert conf.hierarchy.load_file(short)
    status = conf.hierarchy.status.text()
    assert status.startswith("Incomplete") and "'Black'" in status
    assert conf.hierarchy.buttons["add_missing"].isEnabled()
    with qtbot.waitSignal(window.search.failed, timeout=30_000):
        window.actions["anonymize"].trigger()
    title, text = messages[-1]
    assert "does not cover" in text and "Black" in text and "Traceback" not in text
    # the editor can repair it: add the missing value's row
    conf.hierarchy.add_missing()
    assert conf.hierarchy.status.text().startswith("Complete")
    assert window.document.check_job() is None
    assert set(QIS) <= set(window.document.hierarchy_rows)


def test_malformed_hierarchy_file_shows_message(qtbot, window, adult_dir, tmp_path, messages):
    import_adult(qtbot, window, adult_dir)
    bad = tmp_path / "bad.csv"
    bad.write_text("Male;*\nFemale;*;extra\n")
    window.configure.attributes.select(["sex"])
    assert not window.configure.hierarchy.load_file(bad)
    assert messages and "row 2" in messages[-1][1]


def test_every_wizard_page_has_a_title_and_a_subtitle(qtbot, window, adult_dir):
    """A page without a subtitle is drawn with another header (a large bare title) than
    its neighbours: every page of the import and guided wizards has both."""
    from app.wizards.guided import GuidedReleaseWizard
    importer = window.files.make_import_wizard(str(adult_dir / "adult.csv"))
    guide = GuidedReleaseWizard(window)
    for wizard in (importer, guide):
        qtbot.addWidget(wizard)
        for page_id in wizard.pageIds():
            page = wizard.page(page_id)
            assert page.title().strip(), (type(wizard).__name__, page_id)
            assert page.subTitle().strip(), (type(wizard).__name__, page_id, page.title())


def test_format_preview_shows_values_whole(qtbot, window, adult_dir):
    """The format page is where a steward judges the delimiter: Adult's values are shown
    whole ('Married-civ-spouse', not 'Married-civ-…')."""
    wizard = window.files.make_import_wizard(str(adult_dir / "adult.csv"))
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.next()
    page = wizard.format_page
    view, model = page.preview, page.model
    metrics = view.fontMetrics()
    for col in range(model.columnCount()):
        widest = max(metrics.horizontalAdvance(str(model.data(model.index(r, col))))
                     for r in range(model.rowCount()))
        assert view.columnWidth(col) >= min(widest, 200), (col, widest, view.columnWidth(col))
