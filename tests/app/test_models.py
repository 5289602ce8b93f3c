"""Every item model passes pytest-qt's model tester; wide tables page their columns."""
from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt

from app.document import Document
from app.models.attribute_list import AttributeListModel
from app.models.column_selection import ColumnSelectionModel
from app.models.data_table import DataTableModel
from app.models.frame_table import FrameTableModel
from app.models.hierarchy import HierarchyModel
from app.models.privacy_models import PrivacyModelList
from app.source import DataSource
from engine.backends.handle import MemoryData
from engine.data.datatypes import ColumnChoice
from engine.data.table import EncodedTable


def small_document(n_cols=3, n_rows=20) -> Document:
    df = pd.DataFrame({f"c{j}": [f"v{(i * (j + 1)) % 7}" for i in range(n_rows)]
                       for j in range(n_cols)})
    doc = Document()
    doc.set_data(MemoryData(EncodedTable.from_dataframe(df)), DataSource("csv", "x.csv"))
    return doc


def test_data_table_model(qtmodeltester):
    doc = small_document()
    model = DataTableModel(doc, page_size=2)
    qtmodeltester.check(model)
    assert model.columnCount() == 3 and model.page_count == 2
    assert model.data(model.index(3, 1)) == doc.table.column("c0").values()[3]
    assert model.data(model.index(0, 0), Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked
    assert model.setData(model.index(4, 0), Qt.CheckState.Unchecked.value,
                         Qt.ItemDataRole.CheckStateRole)
    assert doc.subset is not None and not doc.subset[4] and doc.subset.sum() == 19
    model.set_page(1)
    assert model.columnCount() == 2 and model.headerData(1, Qt.Orientation.Horizontal) == "c2"
    qtmodeltester.check(model)
    doc.update_attributes(["c2"], type="quasi-identifying")
    assert "Quasi" in model.headerData(1, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)


def test_wide_table_pages_columns(qtmodeltester):
    doc = small_document(n_cols=1200, n_rows=5)
    model = DataTableModel(doc, page_size=100)
    assert model.page_count == 12 and model.columnCount() == 101
    model.set_page(11)
    assert model.headerData(100, Qt.Orientation.Horizontal) == "c1199"
    assert model.page_of("c550") == 5
    qtmodeltester.check(model)


def test_attribute_list_model(qtmodeltester):
    doc = small_document()
    model = AttributeListModel(doc)
    qtmodeltester.check(model)
    doc.update_attributes(["c1"], type="sensitive")
    assert model.data(model.index(1, 1)) == "Sensitive"
    doc.set_hierarchy_rows("c0", [["v0", "*"]])
    assert model.data(model.index(0, 3)).startswith("Incomplete (")
    tip = model.data(model.index(0, 3), Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("Incomplete, height 1: no row for")


def test_hierarchy_model(qtmodeltester):
    model = HierarchyModel()
    model.set_rows([["a", "x", "*"], ["b", "x", "*"], ["c", "y", "*"]])
    qtmodeltester.check(model)
    model.add_level()
    assert model.levels == 4
    model.remove_level()
    model.remove_level()
    assert model.levels == 2
    model.add_values(["d"])
    assert model.rows()[-1] == ["d", "*"]
    assert model.setData(model.index(0, 1), "z")
    qtmodeltester.check(model)


def test_privacy_list_model(qtmodeltester):
    doc = small_document()
    doc.set_privacy([{"model": "k-anonymity", "k": 5}])
    model = PrivacyModelList(doc)
    qtmodeltester.check(model)
    assert model.data(model.index(0, 0)) == "5-anonymity"


def test_frame_and_column_models(qtmodeltester):
    qtmodeltester.check(FrameTableModel(pd.DataFrame({"a": ["1", "2"], "b": ["x", "y"]})))
    cols = ColumnSelectionModel(page_size=50)
    cols.set_columns([ColumnChoice(f"c{i}", detected="integer", share=0.5)
                      for i in range(120)])
    qtmodeltester.check(cols)
    assert cols.page_count == 3 and cols.rowCount() == 50
    cols.set_page(2)
    assert cols.rowCount() == 20
    cols.set_all(False)
    assert not cols.included()
    assert cols.setData(cols.index(0, 0), Qt.CheckState.Checked.value,
                        Qt.ItemDataRole.CheckStateRole)
    assert [c.name for c in cols.included()] == ["c100"]
    assert np is not None
