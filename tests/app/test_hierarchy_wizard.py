"""Hierarchy wizard: driven through its real widgets (pytest-qt, offscreen)."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QDialog, QWizard  # noqa: E402

from app.wizards.hierarchy import (HierarchyWizard, resolve_data_type,  # noqa: E402
                                   run_hierarchy_wizard)
from app.wizards.hierarchy.intervals_page import IntervalsPage  # noqa: E402
from app.wizards.hierarchy.masking_page import MaskingPage  # noqa: E402
from app.wizards.hierarchy.models import GroupsModel, HierarchyTableModel  # noqa: E402
from app.wizards.hierarchy.preview import PreviewBuilder  # noqa: E402
from engine.data.datatypes import INTEGER  # noqa: E402
from engine.data.table import EncodedTable  # noqa: E402
from engine.hierarchy.builders import IntervalSpec, MaskingSpec  # noqa: E402
from engine.hierarchy.csv_io import read_hierarchy  # noqa: E402
from engine.hierarchy.model import Hierarchy  # noqa: E402
from tests.oracle import SHARED  # noqa: E402

DATA = SHARED / "data"
FINISH = QWizard.WizardButton.FinishButton


def read_columns(path, names):
    df = pd.read_csv(path, sep=";", dtype=str, keep_default_na=False, usecols=names)
    table = EncodedTable.from_dataframe(df[names])
    return {n: table.column(n) for n in names}


@pytest.fixture(scope="module")
def adult_age():
    return read_columns(DATA / "adult" / "adult.csv", ["age"])


@pytest.fixture(scope="module")
def cup():
    return read_columns(DATA / "cup" / "cup.csv", ["ZIP", "AGE", "INCOME"])


@pytest.fixture
def make_wizard(qtbot):
    made = []

    def make(*args, **kwargs) -> HierarchyWizard:
        w = HierarchyWizard(*args, **kwargs)
        qtbot.addWidget(w)
        made.append(w)
        w.show()
        qtbot.waitExposed(w)
        return w

    yield make
    for w in made:
        if w.isVisible():
            w.reject()  # stops the preview threads


def partition(h: Hierarchy, level: int, keep=None) -> set[frozenset[str]]:
    groups: dict[str, set[str]] = {}
    for r in h.rows:
        if keep is None or r[0] in keep:
            groups.setdefault(r[level], set()).add(r[0])
    return {frozenset(g) for g in groups.values()}


def choose(qtbot, wizard: HierarchyWizard, name: str):
    wizard.start_page.choices[name].setChecked(True)
    qtbot.mouseClick(wizard.button(QWizard.WizardButton.NextButton), Qt.MouseButton.LeftButton)
    return wizard.currentPage()


def retype(qtbot, edit, text: str) -> None:
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)


def finish(qtbot, wizard: HierarchyWizard) -> dict:
    with qtbot.waitSignal(wizard.finished_with, timeout=60_000) as blocker:
        qtbot.mouseClick(wizard.button(FINISH), Qt.MouseButton.LeftButton)
    return blocker.args[0]


# --- item models ---------------------------------------------------------------------------

def test_item_models_pass_the_model_tester(qtmodeltester):
    h = read_hierarchy(DATA / "adult" / "adult_hierarchy_age.csv", "age")
    table = HierarchyTableModel(editable=True)
    table.set_hierarchy(h)
    qtmodeltester.check(table)
    groups = GroupsModel()
    groups.set_level(h, 2)
    qtmodeltester.check(groups)
    assert groups.rowCount() == len(set(h.level_labels(2)))
    empty = GroupsModel()
    qtmodeltester.check(empty)


def test_editing_a_table_cell_asks_to_rename_the_label(qtbot):
    h = Hierarchy.from_rows([["1", "a", "*"], ["2", "a", "*"], ["3", "b", "*"]])
    model = HierarchyTableModel(editable=True)
    model.set_hierarchy(h)
    with qtbot.waitSignal(model.label_edited) as blocker:
        assert model.setData(model.index(1, 1), "low")
    assert blocker.args == [1, "a", "low"]
    assert not model.setData(model.index(0, 0), "x")  # values are not labels


def test_preview_builds_after_a_pause_one_at_a_time(qtbot, adult_age):
    builder = PreviewBuilder(adult_age)
    started, built = [], []
    builder.building.connect(started.append)
    builder.built.connect(built.append)
    specs = [IntervalSpec.regular(INTEGER, 0, w) for w in (5, 10, 20)]
    with qtbot.waitSignal(builder.built, timeout=60_000):
        for spec in specs:  # typing fast: only the last one is built
            builder.request(spec)
    assert len(started) == 1 and built[-1].hierarchy.mapping(1)["17"] == "[0, 20["
    with qtbot.waitSignal(builder.built, timeout=60_000,
                          check_params_cb=lambda b: b.hierarchy.mapping(1)["17"] == "[15, 20["):
        builder.request(IntervalSpec.regular(INTEGER, 0, 3), immediately=True)
        builder.request(IntervalSpec.regular(INTEGER, 0, 5), immediately=True)  # waits its turn
    assert len(started) == 3 and len(built) == 2  # the overtaken result was not shown
    shown = len(built)
    builder.request(specs[-1])  # from the cache: shown at once, inside the call, no new build
    assert len(built) == shown + 1 and built[-1].hierarchy.mapping(1)["17"] == "[0, 20["
    assert len(started) == 3
    builder.shutdown()


# --- intervals ------------------------------------------------------------------------------

def test_adult_age_intervals_match_the_arx_hierarchy(qtbot, make_wizard, adult_age):
    wizard = make_wizard(adult_age, "integer")
    page = choose(qtbot, wizard, "intervals")
    assert isinstance(page, IntervalsPage)
    # The suggestion has one base interval and two levels of two groups each.
    assert len(page.draft.intervals) == 1 and [len(lv) for lv in page.draft.levels] == [1, 1]
    qtbot.mouseClick(page.view, Qt.MouseButton.LeftButton,
                     pos=page.view.rect_of(0, 0).center().toPoint())
    assert page.stack.currentIndex() == 0
    retype(qtbot, page.lower, "1")
    retype(qtbot, page.upper, "6")
    assert page.spec().intervals[0].lower == "1" and page.spec().intervals[0].upper == "6"
    with qtbot.waitSignal(page.preview.built, timeout=60_000,
                          check_params_cb=lambda b: b.hierarchy.rows[0][1] == "[16, 21["):
        pass
    assert page.panel.model.rowCount() == 72
    result = finish(qtbot, wizard)
    built, spec = result["age"]
    assert isinstance(spec, IntervalSpec) and built.attribute == "age"
    arx = read_hierarchy(DATA / "adult" / "adult_hierarchy_age.csv")
    present = set(adult_age["age"].dictionary)
    assert built.levels == arx.levels
    for level in range(built.levels):
        assert partition(built, level) == partition(arx, level, keep=present), level


def test_interval_structure_edits(qtbot, make_wizard, adult_age):
    wizard = make_wizard(adult_age, INTEGER, spec=IntervalSpec(INTEGER, [(0, 10)], [2]))
    page = wizard.currentPage()
    assert isinstance(page, IntervalsPage)
    page.actions_["add_interval"].trigger()
    assert [(i.lower, i.upper) for i in page.draft.intervals] == [("0", "10"), ("10", "20")]
    assert page.view.selection == (0, 1)
    page.actions_["split"].trigger()
    assert [(i.lower, i.upper) for i in page.draft.intervals][1:] == [("10", "15"), ("15", "20")]
    page.view.select(0, 0)
    page.actions_["remove_interval"].trigger()
    assert [(i.lower, i.upper) for i in page.draft.intervals] == [("0", "15"), ("15", "20")]
    page.actions_["add_level"].trigger()
    assert page.view.selection == (2, 0) and page.stack.currentIndex() == 1
    page.size.setValue(3)
    page.group_label.function.setCurrentIndex(page.group_label.function.findData("constant"))
    assert "needs a non-empty text" in page.panel.error.text()  # until its text is typed
    qtbot.keyClicks(page.group_label.text, "adult")
    page.actions_["add_group"].trigger()
    spec = page.spec()
    assert [g.size for g in spec.levels[1]] == [3, 3]
    assert spec.levels[1][1].label.text == "adult"
    page.actions_["remove_group"].trigger()
    page.view.select(2, 0)
    page.actions_["remove_group"].trigger()
    assert len(page.spec().levels) == 1
    page.view.select(1, 0)
    page.size.setValue(3)  # three base items per group: the first interval repeats
    # Keyboard and mouse select boxes; a repeat selects its pattern element.
    page.view.setFocus()
    qtbot.keyClick(page.view, Qt.Key.Key_Down)
    qtbot.keyClick(page.view, Qt.Key.Key_Right)
    assert page.view.selection == (0, 1)
    repeat = next(b for b in page.view.boxes if b.repeat and b.row == 0)
    qtbot.mouseClick(page.view, Qt.MouseButton.LeftButton,
                     pos=page.view.box_rect(repeat).center().toPoint())
    assert page.view.selection == (0, repeat.pos)
    qtbot.mouseDClick(page.view, Qt.MouseButton.LeftButton,
                      pos=page.view.rect_of(1, 0).center().toPoint())
    assert page.view.selection == (1, 0) and wizard.focusWidget() is page.size


def test_bottom_and_top_coding(qtbot, make_wizard, adult_age):
    wizard = make_wizard(adult_age, "integer", spec=IntervalSpec.regular(INTEGER, 0, 10, [2]))
    page = wizard.currentPage()
    page.coding.top_check.setChecked(True)
    assert page.current_spec() is None
    qtbot.keyClicks(page.coding.top, "80")
    result = finish(qtbot, wizard)
    table = {r[0]: r[1:] for r in result["age"][0].rows}
    assert table["85"][:2] == (">=80", ">=80") and table["79"][0] == "[70, 80["


# --- masking --------------------------------------------------------------------------------

def test_cup_zip_masking_then_reopen_and_change(qtbot, make_wizard, cup):
    zips = {"ZIP": cup["ZIP"]}
    wizard = make_wizard(zips, "string")
    page = choose(qtbot, wizard, "masking")
    assert isinstance(page, MaskingPage)
    result = finish(qtbot, wizard)
    built, spec = result["ZIP"]
    assert spec == MaskingSpec()
    arx = read_hierarchy(DATA / "cup" / "cup_hierarchy_ZIP.csv")
    present = set(cup["ZIP"].dictionary)
    for level in range(built.levels):
        assert partition(built, level) == partition(arx, level, keep=present), level

    again = make_wizard(zips, "string", existing=built, spec=spec)
    page = again.currentPage()
    assert isinstance(page, MaskingPage) and page.mask.text() == "*"
    retype(qtbot, page.mask, "#")
    page.max_levels.setValue(2)
    assert "#" in page.example.text()
    changed, new_spec = finish(qtbot, again)["ZIP"]
    assert new_spec == MaskingSpec(mask_char="#", max_levels=2)
    assert changed.levels == 3 and changed.mapping(1)["91326"] == "913##"


# --- several attributes, other builders -------------------------------------------------------

def test_one_spec_for_several_attributes(qtbot, make_wizard, cup):
    columns = {"AGE": cup["AGE"], "INCOME": cup["INCOME"]}
    wizard = make_wizard(columns, "integer")
    page = choose(qtbot, wizard, "ordering")
    assert page.panel.attribute.isVisible()
    with qtbot.waitSignal(page.preview.built, timeout=60_000,
                          check_params_cb=lambda b: b.attribute == "INCOME"):
        page.panel.attribute.setCurrentText("INCOME")
    result = finish(qtbot, wizard)
    assert set(result) == {"AGE", "INCOME"}
    assert result["AGE"][1] is result["INCOME"][1]
    for name, (h, _spec) in result.items():
        assert h.attribute == name
        assert set(h.values) == set(columns[name].dictionary)


def test_dates_and_priority_pages(qtbot, make_wizard):
    dates = EncodedTable.from_dataframe(pd.DataFrame(
        {"d": ["2020-01-15", "2020-05-02", "2021-12-31", "1999-07-01", ""]})).column("d")
    wizard = make_wizard({"d": dates}, {"kind": "date", "format": "%Y-%m-%d"})
    assert list(wizard.start_page.choices)[0] == "dates"
    page = choose(qtbot, wizard, "dates")
    page.add_coarser_level()
    assert [lv.granularity for lv in page.date_levels()] == ["month", "year", "decade",
                                                             "century"]
    page.levels.rows[0][1].setCurrentText("quarter")
    h, spec = finish(qtbot, wizard)["d"]
    assert h.mapping(1)["2020-05-02"] == "2020-Q2" and h.mapping(4)["1999-07-01"] == "1900-1999"

    wizard = make_wizard({"d": dates}, {"kind": "date", "format": "%Y-%m-%d"})
    page = choose(qtbot, wizard, "intervals")
    assert page.draft.intervals[0].lower == "1999-01-01"  # a year from the first date
    h, spec = finish(qtbot, wizard)["d"]
    assert h.mapping(1)["2020-05-02"] == "[2020-01-01, 2021-01-01["
    assert h.mapping(2)["2020-05-02"] == "[2019-01-01, 2024-01-01["

    words = EncodedTable.from_dataframe(pd.DataFrame({"w": list("aaabbc")})).column("w")
    wizard = make_wizard({"w": words}, "string")
    page = choose(qtbot, wizard, "priority")
    page.priority.setCurrentIndex(page.priority.findData("custom"))
    assert page.order.values() == ["a", "b", "c"]
    page.order.list.item(2).setSelected(True)
    page.order.move_selected(-10**9)
    assert page.order.values() == ["c", "a", "b"]
    h, spec = finish(qtbot, wizard)["w"]
    assert spec.order == ("c", "a", "b") and h.mapping(2)["c"] == "c"


def test_level_rows_are_added_and_removed_with_their_buttons(qtbot, make_wizard, cup):
    dates = EncodedTable.from_dataframe(pd.DataFrame(
        {"d": ["2020-01-15", "2020-05-02", "2021-12-31", "1999-07-01"]})).column("d")
    wizard = make_wizard({"d": dates}, {"kind": "date", "format": "%Y-%m-%d"})
    page = choose(qtbot, wizard, "dates")
    rows = page.levels
    qtbot.mouseClick(rows.add_button, Qt.MouseButton.LeftButton)
    assert [lv.granularity for lv in page.date_levels()] == ["month", "year", "decade",
                                                             "century"]
    qtbot.mouseClick(rows.rows[1][3], Qt.MouseButton.LeftButton)  # remove "year"
    assert [lv.granularity for lv in page.date_levels()] == ["month", "decade", "century"]
    assert [r[0].text() for r in rows.rows] == ["Level 1", "Level 2", "Level 3"]
    assert [r[1].objectName() for r in rows.rows] == ["granularity1", "granularity2",
                                                      "granularity3"]
    h, spec = finish(qtbot, wizard)["d"]
    assert [lv.granularity for lv in spec.levels] == ["month", "decade", "century"]

    wizard = make_wizard({"AGE": cup["AGE"]}, "integer")
    page = choose(qtbot, wizard, "ordering")
    rows = page.levels
    before = len(rows.rows)
    qtbot.mouseClick(rows.add_button, Qt.MouseButton.LeftButton)
    assert len(rows.rows) == before + 1
    assert rows.rows[-1][1].objectName() == f"levelSizes{before + 1}"
    assert rows.rows[-1][1].text() == "2" and rows.rows[-1][2].label().function == "set"
    retype(qtbot, rows.rows[-1][1], "3")
    for _ in range(before):
        qtbot.mouseClick(rows.rows[0][3], Qt.MouseButton.LeftButton)
    assert [r[0].text() for r in rows.rows] == ["Level 1"]
    assert rows.rows[0][1].objectName() == "levelSizes1"
    h, spec = finish(qtbot, wizard)["AGE"]
    assert [[g.size for g in lv] for lv in spec.levels] == [[3]]


# --- editing an imported hierarchy ------------------------------------------------------------

def test_edit_an_imported_hierarchy_and_save_it_back(qtbot, make_wizard, adult_age, tmp_path,
                                                     monkeypatch):
    arx = read_hierarchy(DATA / "adult" / "adult_hierarchy_age.csv", "age")
    wizard = make_wizard(adult_age, "integer", existing=arx)
    page = wizard.currentPage()
    assert page is wizard.editor_page and page.hierarchy == arx
    assert page.status.property("state") == "ok"
    # Rename a label by editing its cell: every row follows.
    index = page.table_model.index(0, 1)
    assert page.table_model.setData(index, "young")
    assert page.hierarchy.mapping(1)["1"] == page.hierarchy.mapping(1)["5"] == "young"
    # Remove level 3 and add a new top level.
    page.table.setCurrentIndex(page.table_model.index(0, 3))
    assert page.buttons["remove"].text() == "Remove level 3"
    qtbot.mouseClick(page.buttons["remove"], Qt.MouseButton.LeftButton)
    assert page.hierarchy.levels == arx.levels - 1
    qtbot.mouseClick(page.buttons["add_level"], Qt.MouseButton.LeftButton)
    assert page.hierarchy.levels == arx.levels
    # Regroup: move the values of "5-9" into "young" at level 1.
    page.level.setValue(1)
    group = page.groups_model.groups().index("5-9")
    parent = page.groups_model.index(group, 0)
    selection = page.tree.selectionModel()
    for row in range(page.groups_model.rowCount(parent)):
        selection.select(page.groups_model.index(row, 0, parent),
                         selection.SelectionFlag.Select)
    page.target.setCurrentText("young")
    qtbot.mouseClick(page.move_button, Qt.MouseButton.LeftButton)
    assert page.hierarchy.mapping(1)["7"] == "young"
    # An invalid edit is refused with the engine's message; undo steps back.
    page.apply(lambda h: Hierarchy.from_rows([["1", "a"], ["1", "b"]]))
    assert page.error.isVisibleTo(page) and "twice" in page.error.text()
    qtbot.mouseClick(page.buttons["undo"], Qt.MouseButton.LeftButton)
    assert page.hierarchy.mapping(1)["7"] == "5-9"
    qtbot.mouseClick(page.buttons["undo"], Qt.MouseButton.LeftButton)  # back to before the move
    page.move_items(1, ["7", "8"], "young")
    edited = page.hierarchy
    out = tmp_path / "age.csv"
    monkeypatch.setattr("app.file_dialogs.QFileDialog.getSaveFileName",
                        lambda *a, **k: (str(out), ""))
    qtbot.mouseClick(page.buttons["export"], Qt.MouseButton.LeftButton)
    assert read_hierarchy(out).rows == edited.rows
    result = finish(qtbot, wizard)
    assert result["age"] == (edited, None)


def test_drop_on_a_group_regroups(qtbot, make_wizard, adult_age):
    arx = read_hierarchy(DATA / "adult" / "adult_hierarchy_age.csv", "age")
    wizard = make_wizard(adult_age, "integer", existing=arx)
    model = wizard.editor_page.groups_model
    wizard.editor_page.level.setValue(2)
    first = model.index(0, 0)
    member = model.index(0, 0, first)
    target = model.index(1, 0)
    data = model.mimeData([member])
    assert model.canDropMimeData(data, Qt.DropAction.MoveAction, -1, -1, target)
    target_label = model.groups()[1]
    model.dropMimeData(data, Qt.DropAction.MoveAction, -1, -1, target)
    assert wizard.editor_page.hierarchy.mapping(2)["1"] == target_label
    row = model.groups().index(target_label)
    assert model.rowCount(model.index(row, 0)) == 3
    assert not model.canDropMimeData(data, Qt.DropAction.MoveAction, -1, -1,
                                     model.index(0, 0, model.index(row, 0)))  # not on a member


def test_missing_values_can_be_added(qtbot, make_wizard, adult_age):
    partial = Hierarchy.from_rows([[v, "x", "*"] for v in ("17", "18")], "age")
    wizard = make_wizard(adult_age, "integer", existing=partial)
    page = wizard.editor_page
    assert page.status.property("state") == "bad"
    qtbot.mouseClick(page.buttons["add_missing"], Qt.MouseButton.LeftButton)
    assert page.status.property("state") == "ok"
    assert page.hierarchy.mapping(1)["90"] == "90" and page.hierarchy.mapping(2)["90"] == "*"


def test_data_types_in_every_form(cup):
    from engine.data.datatypes import DateType, DecimalType, OrdinalType, StringType

    column = {"AGE": cup["AGE"]}
    assert resolve_data_type(("date", "%d.%m.%Y"), column) == DateType("%d.%m.%Y")
    assert resolve_data_type(("decimal", ","), column) == DecimalType(",")
    assert resolve_data_type((None, None), column) == StringType()
    assert resolve_data_type(None, column) == INTEGER
    assert resolve_data_type({"kind": "integer"}, column) == INTEGER
    assert resolve_data_type({"kind": "date", "format": None}, column) == DateType("%Y-%m-%d")
    assert resolve_data_type({"kind": "ordinal", "order": ["a"]}, column) == OrdinalType(("a",))
    ordinal = resolve_data_type(("ordinal", None), column)
    assert isinstance(ordinal, OrdinalType) and set(ordinal.order) == set(cup["AGE"].dictionary)


# --- entry point and specification files ------------------------------------------------------

def test_run_hierarchy_wizard_returns_results_or_none(qtbot, adult_age, monkeypatch):
    def accept(self):
        self.set_results({"age": (Hierarchy.flat(["1"], "age"), None)})
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(HierarchyWizard, "exec", accept)
    assert run_hierarchy_wizard(None, adult_age, "integer")["age"][0].height == 1
    monkeypatch.setattr(HierarchyWizard, "exec", lambda self: QDialog.DialogCode.Rejected)
    assert run_hierarchy_wizard(None, adult_age, "integer") is None


def test_save_and_open_a_specification(qtbot, make_wizard, adult_age, tmp_path, monkeypatch):
    path = tmp_path / "age.json"
    monkeypatch.setattr("app.file_dialogs.QFileDialog.getSaveFileName",
                        lambda *a, **k: (str(path), ""))
    monkeypatch.setattr("app.file_dialogs.QFileDialog.getOpenFileName",
                        lambda *a, **k: (str(path), ""))
    spec = IntervalSpec.regular(INTEGER, 5, 5, [3])
    wizard = make_wizard(adult_age, "integer", spec=spec)
    qtbot.mouseClick(wizard.button(QWizard.WizardButton.CustomButton1),
                     Qt.MouseButton.LeftButton)
    assert path.exists()
    other = make_wizard(adult_age, "integer")
    assert other.currentPage() is other.start_page
    other.start_page.findChild(type(other.button(FINISH)), "loadSpec").click()
    page = other.currentPage()
    assert isinstance(page, IntervalsPage) and page.spec() == spec


def test_a_specification_of_another_type_is_refused(qtbot, make_wizard, cup, messages):
    wizard = make_wizard({"ZIP": cup["ZIP"]}, "string")
    assert not wizard.open_spec(IntervalSpec.regular(INTEGER, 0, 10))
    assert "does not work on string" in messages[-1][1]
