"""Explore perspective on Adult (k=5, 4 % suppression): lattice, list, filter, apply, clipboard."""
from __future__ import annotations

import json
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import QItemSelectionModel, Qt  # noqa: E402

import engine  # noqa: E402
from app.perspectives.explore import ExplorePerspective  # noqa: E402
from app.perspectives.explore.clipboard import ClipboardModel  # noqa: E402
from app.perspectives.explore.filters import NodeFilter  # noqa: E402
from app.perspectives.explore.list_model import (COL_LEVELS, COL_LOSS,  # noqa: E402
                                                 FIRST_LEVEL_COLUMN, NodeListModel)
from app.perspectives.explore.nodes import ExploreNodes  # noqa: E402
from engine.result import relative_percent  # noqa: E402
from engine.progress import Progress  # noqa: E402
from engine.solution_space import ANONYMOUS, NOT_ANONYMOUS, UNKNOWN  # noqa: E402
from tests.oracle import SHARED  # noqa: E402

ADULT = SHARED / "data" / "adult"
QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "occupation", "salary-class"]


def adult_job() -> dict:
    return {"data": {"path": str(ADULT / "adult.csv"), "delimiter": ";"},
            "attributes": {q: {"type": "quasi-identifying",
                               "hierarchy": str(ADULT / f"adult_hierarchy_{q}.csv")}
                           for q in QIS},
            "privacy": [{"model": "k-anonymity", "k": 5}],
            "transformation": {"suppression_limit": 0.04},
            "metric": {"name": "loss"}}


@pytest.fixture(scope="module")
def adult():
    """One Adult run and its progress reports (shared: the tests do not change states
    other than by checking transformations, which the engine's space records too)."""
    reports: list[Progress] = []
    result = engine.anonymize(None, adult_job(), progress=reports.append)
    assert result.lattice.size == 12_960
    return result, reports


@pytest.fixture
def explore(qtbot, adult):
    result, reports = adult
    view = ExplorePerspective()
    qtbot.addWidget(view)
    view.resize(1400, 900)
    view.begin_run()
    for p in reports:
        view.add_progress(p)
    with qtbot.waitSignal(view.checker.checked, timeout=60_000):
        view.set_result(result)  # selects the optimum, which is described in the worker
    view.show()
    yield view
    view.shutdown()


def wait_checked(qtbot, view):
    return qtbot.waitSignal(view.checker.checked, timeout=60_000)


def test_lattice_holds_every_node_with_the_engines_states(explore, adult):
    result, _ = adult
    assert explore.lattice.node_count() == 12_960
    assert np.array_equal(explore.lattice.shown_states(), result.space.states)
    opt = explore.nodes.optimum
    assert explore.nodes.levels_of(opt) == tuple(result.optimum.levels.values())
    assert explore.lattice.selected_row == opt
    assert explore.properties.levels == tuple(result.optimum.levels.values())
    assert "5-anonymity" in explore.properties.fields["models"].text()
    assert explore.list_model.rowCount() == 12_960


def test_selecting_in_the_list_selects_in_the_lattice(qtbot, explore):
    model, sel = explore.list_model, explore.list_view.selectionModel()
    explore.list_view.sortByColumn(COL_LOSS, Qt.SortOrder.AscendingOrder)
    with wait_checked(qtbot, explore):
        sel.setCurrentIndex(model.index(123, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect
                            | QItemSelectionModel.SelectionFlag.Rows)
    row = model.node_row(123)
    assert explore.current_row == row
    assert explore.lattice.selected_row == row
    assert explore.properties.levels == explore.nodes.levels_of(row)
    # and back: a node picked in the lattice is the list's current row
    other = (row + 4000) % len(explore.nodes)
    with wait_checked(qtbot, explore):
        explore.select_row(other, source="lattice")
    assert model.node_row(sel.currentIndex().row()) == other


def test_the_list_names_each_transformation_by_its_levels(explore):
    """The list's second column is the transformation's code (the properties' title's),
    so a row says which transformation it is without scrolling to the level columns;
    sorted by it, the rows follow the levels attribute by attribute."""
    model, nodes = explore.list_model, explore.nodes
    assert model.headerData(COL_LEVELS, Qt.Orientation.Horizontal) == "Levels"
    tip = model.headerData(COL_LEVELS, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert tip.endswith(", ".join(QIS))
    for r in (0, 77, model.rowCount() - 1):
        levels = nodes.levels_of(model.node_row(r))
        assert model.data(model.index(r, COL_LEVELS)) == "".join(str(v) for v in levels)
        assert [model.data(model.index(r, FIRST_LEVEL_COLUMN + i))
                for i in range(len(QIS))] == [str(v) for v in levels]
    # the optimum's row is bold: its code fits the column too
    from PySide6.QtGui import QFont, QFontMetrics
    bold = QFont(explore.list_view.font())
    bold.setBold(True)
    code = "".join(str(v) for v in nodes.levels_of(nodes.optimum))
    assert explore.list_view.columnWidth(COL_LEVELS) > QFontMetrics(bold).horizontalAdvance(code)
    explore.list_view.sortByColumn(COL_LEVELS, Qt.SortOrder.AscendingOrder)
    shown = [nodes.levels_of(model.node_row(r)) for r in range(model.rowCount())]
    assert shown == sorted(shown)
    explore.list_view.sortByColumn(COL_LEVELS, Qt.SortOrder.DescendingOrder)
    assert [nodes.levels_of(model.node_row(r)) for r in range(3)] == sorted(shown)[::-1][:3]
    explore.list_view.sortByColumn(COL_LOSS, Qt.SortOrder.AscendingOrder)


def test_clicking_a_node_selects_it(qtbot, explore):
    lattice = explore.lattice
    row = int(np.flatnonzero(explore.nodes.heights() == 0)[0])  # the bottom stands alone
    pos = lattice.widget_pos_of_row(row)
    # the selection is described by a check in the worker: its answer is awaited too
    with qtbot.waitSignal(explore.checker.checked, timeout=60_000):
        with qtbot.waitSignal(lattice.node_clicked, timeout=60_000) as blocker:
            qtbot.mouseClick(lattice.graphics.viewport(), Qt.MouseButton.LeftButton,
                             pos=pos)
    assert blocker.args == [row]


def test_hovering_a_node_describes_it(explore, adult):
    from app.perspectives.explore.text import node_tooltip
    result, _ = adult
    lattice, nodes = explore.lattice, explore.nodes
    opt = nodes.optimum
    viewport_pos = lattice.widget_pos_of_row(opt)
    scene_pos = lattice.graphics.mapToScene(viewport_pos)
    assert lattice.row_at(scene_pos) == opt
    far = lattice.graphics.mapToScene(viewport_pos.x(), viewport_pos.y() + 200)
    assert lattice.row_at(far) != opt
    tip = node_tooltip(nodes, opt)
    assert "Optimum" in tip and "Anonymous" in tip
    assert f"{result.optimum.information_loss_percent:.2f} %" in tip
    assert f"{result.optimum.suppressed_records:,}" in tip
    for name, level in result.optimum.levels.items():
        assert f"<td>{name}</td><td align=right>&nbsp;{level}</td>" in tip


def test_filter_counts(qtbot, explore, adult):
    result, _ = adult
    space = result.space
    panel = explore.filter
    panel.state_boxes[NOT_ANONYMOUS].setChecked(False)
    panel.state_boxes[UNKNOWN].setChecked(False)
    with qtbot.waitSignal(panel.filter_changed, timeout=60_000):
        panel.flush()
    anonymous = int((space.states == ANONYMOUS).sum())
    assert explore.lattice.node_count() == anonymous
    assert explore.list_model.rowCount() == anonymous
    assert f"<b>{anonymous:,}</b> of 12,960" in panel.counts.text()

    age = QIS.index("age")
    levels = space.levels
    explore.set_filter(NodeFilter(levels={"age": (1, 2)}))
    expected = int(((levels[:, age] >= 1) & (levels[:, age] <= 2)).sum())
    assert explore.lattice.node_count() == expected == explore.list_model.rowCount()

    # loss range: exact losses of checked nodes, lower bounds of the others
    pct = np.array([relative_percent(space.info(i).loss, *result.loss_bounds)
                    if space.info(i).loss is not None else np.nan for i in range(len(levels))])
    explore.set_filter(NodeFilter(loss=(20.0, 30.0)))
    with np.errstate(invalid="ignore"):
        expected = int(((pct >= 20.0 - 1e-9) & (pct <= 30.0 + 1e-9)).sum())
    assert 0 < explore.lattice.node_count() == expected

    explore.set_filter(NodeFilter(optimum_only=True))
    assert explore.lattice.node_count() == 1 == explore.list_model.rowCount()
    panel.reset()
    panel.flush()
    assert explore.lattice.node_count() == 12_960


def test_applying_a_checked_node_emits_its_levels(qtbot, explore, adult):
    result, _ = adult
    levels = tuple(result.optimum.levels.values())
    with qtbot.waitSignal(explore.transformation_applied, timeout=60_000) as blocker:
        explore.properties.apply.click()
    assert blocker.args == [levels]


def test_applying_an_unchecked_node_checks_it_first(qtbot, explore, adult):
    result, _ = adult
    nodes = explore.nodes
    row = int(np.flatnonzero(~nodes.checked & (nodes.states == UNKNOWN))[0])
    levels = nodes.levels_of(row)
    with qtbot.waitSignal(explore.transformation_applied, timeout=60_000) as blocker:
        explore.apply_levels(levels)
    assert blocker.args == [levels]
    assert explore.lattice.applied_row == row and explore.lattice.output_label.isVisible()
    assert nodes.checked[row] and nodes.states[row] in (ANONYMOUS, NOT_ANONYMOUS)
    node_id = result.lattice.id_of(levels)
    assert node_id in result.space.losses  # recorded in the engine's space as well
    expected = result.evaluate(levels)
    assert nodes.suppressed[row] == expected.suppressed_records
    assert explore.lattice.shown_states()[node_id] == nodes.states[row]


def test_clipboard_round_trip(qtbot, explore, adult):
    nodes = explore.nodes
    rows = [nodes.optimum, 0, len(nodes) - 1]
    for r in rows:
        explore.keep_levels(nodes.levels_of(r))
    model = explore.clipboard.model
    assert model.rowCount() == 3
    model.setData(model.index(1, 3), "the bottom: no generalization")
    model.move(2, -1)
    with qtbot.waitSignal(explore.clipboard_changed, timeout=60_000):
        model.sort_by_loss()
    state = json.loads(json.dumps(explore.clipboard_state()))
    assert [e["comment"] for e in state].count("the bottom: no generalization") == 1
    assert state[0]["levels"] == dict(zip(QIS, nodes.levels_of(nodes.optimum)))

    other = ExplorePerspective()
    qtbot.addWidget(other)
    with qtbot.assertNotEmitted(other.clipboard_changed):
        other.restore_clipboard(state)
    assert other.clipboard_state() == state
    with qtbot.waitSignal(other.clipboard.apply_requested, timeout=60_000) as blocker:
        other.clipboard.select(0)
        other.clipboard.apply.click()
    assert blocker.args == [nodes.levels_of(nodes.optimum)]
    other.shutdown()


def test_expanding_a_huge_lattice_shows_checked_neighbours(qtbot, adult):
    result, _ = adult
    view = ExplorePerspective(max_shown=1000)  # as if Adult were too big to draw whole
    qtbot.addWidget(view)
    with wait_checked(qtbot, view):
        view.set_result(result)
    nodes = view.nodes
    assert not nodes.whole
    visited = set(result.space.losses) | {result.space.optimum_id}
    assert set(nodes.ids.tolist()) == visited
    assert view.lattice.node_count() == len(visited)
    opt = nodes.levels_of(nodes.optimum)
    near = result.lattice.predecessors(opt) + result.lattice.successors(opt)
    with wait_checked(qtbot, view):
        view.expand(nodes.optimum)
    assert all(nodes.row_of(s) >= 0 and nodes.checked[nodes.row_of(s)] for s in near)
    assert view.lattice.node_count() == len(nodes) == view.list_model.rowCount()
    assert nodes.levels_of(view.current_row) == opt  # the selection stayed on the node
    view.shutdown()


def test_quality_plot_keeps_the_run(explore, adult):
    result, reports = adult
    q = explore.quality
    best = [p.best_loss for p in reports if p.best_loss is not None]
    assert q.losses[0] == best[0] and q.losses[-1] == result.optimum.information_loss
    assert all(a > b for a, b in zip(q.losses, q.losses[1:]))  # improvements only
    assert "optimum loss" in q.caption.text()
    # drawn in percent, the unit of the caption and of every other view
    _, ys = q.curve.getData()
    assert q.percent and q.plot.getAxis("left").labelText == "loss (%)"
    assert ys[-1] == pytest.approx(result.optimum.information_loss_percent)
    assert f"{result.optimum.information_loss_percent:.2f} %" in q.caption.text()
    assert set(np.round(ys, 9)) == {round(result.relative_percent(b), 9) for b in q._raw}


def test_list_model_passes_the_model_tester(qtmodeltester):
    # five of Adult's quasi-identifiers: 240 nodes (the tester visits every row), with
    # every kind of row the 12,960 of ``adult`` hold: anonymous, not anonymous, unknown
    job = adult_job()
    job["attributes"] = {q: a for q, a in job["attributes"].items()
                         if q in ("sex", "age", "race", "marital-status", "education")}
    nodes = ExploreNodes(engine.anonymize(None, job))
    assert set(np.unique(nodes.states)) == {ANONYMOUS, NOT_ANONYMOUS, UNKNOWN}
    assert 0 < int(np.count_nonzero(nodes.checked)) < len(nodes)
    model = NodeListModel()
    model.set_nodes(nodes)
    model.sort(COL_LOSS, Qt.SortOrder.DescendingOrder)
    qtmodeltester.check(model)


def test_clipboard_model_passes_the_model_tester(qtmodeltester):
    model = ClipboardModel()
    model.restore([{"levels": {"a": 1, "b": 0}, "comment": "x", "information_loss": 0.5,
                    "information_loss_percent": 50.0, "state": "anonymous"},
                   {"levels": {"a": 0, "b": 0}, "comment": "", "information_loss": None,
                    "information_loss_percent": None, "state": ""}])
    qtmodeltester.check(model)
    model.move(0, 1)
    assert model.entries[1].comment == "x"


def test_a_result_without_optimum_is_shown_without_one(qtbot):
    job = adult_job()
    job["attributes"] = {q: a for q, a in job["attributes"].items()
                         if q in ("sex", "race", "salary-class")}
    job["privacy"] = [{"model": "k-anonymity", "k": 100_000}]
    job["transformation"] = {"suppression_limit": 0.0}
    result = engine.anonymize(None, job)
    assert result.optimum is None
    view = ExplorePerspective()
    qtbot.addWidget(view)
    view.set_result(result)
    assert view.nodes.optimum == -1 and view.current_row == -1
    assert view.lattice.node_count() == result.lattice.size == 8
    assert not view.lattice.optimum_label.isVisible()
    assert "No transformation" in view.quality.caption.text()
    view.set_filter(NodeFilter(optimum_only=True))
    assert view.lattice.node_count() == 0 == view.list_model.rowCount()
    with wait_checked(qtbot, view):
        view.select_row(0)
    assert "not fulfilled" in view.properties.fields["models"].text()
    view.shutdown()


def test_levels_table_shows_every_attribute_once_with_its_level(explore, adult):
    """Two attribute/level pairs a row: each attribute once, beside its own level."""
    result, _ = adult
    table = explore.properties.level_table
    shown = {}
    for r in range(table.rowCount()):
        for c in range(0, table.columnCount(), 2):
            if table.item(r, c) is not None:
                shown[table.item(r, c).text()] = table.item(r, c + 1).text().split(" of ")[0]
    assert shown == {a: str(v) for a, v in result.optimum.levels.items()}
    assert table.rowCount() < len(shown)
