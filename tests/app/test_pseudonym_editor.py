"""Configure > attribute: an identifying attribute released as keyed pseudonyms, with a
key made from the app outside the project; the export verifies, the key is in no file
the app wrote, and the project keeps where the key is."""
from __future__ import annotations

import pandas as pd

from engine.export.targets import file_target, read_table
from engine.verify import verify_frame
from tests.app.conftest import open_sample


def test_keyed_pseudonyms_from_the_app(qtbot, window, tmp_path, messages):
    open_sample(qtbot, window)
    doc = window.document
    panel = window.configure.attributes
    name = "occupation"
    panel.select([name])
    panel.set_type("identifying", [name])
    panel.select([name])
    editor = panel.pseudonym
    assert editor.method.isEnabled()
    editor.method.setCurrentIndex(editor.method.findData("hmac-sha256"))
    editor.method.activated.emit(editor.method.currentIndex())
    assert doc.attributes[name].pseudonym is None  # no key yet: nothing changes
    assert editor.new_key.isVisibleTo(editor)
    project = tmp_path / "project"
    project.mkdir()
    doc.set_path(project / "p.anonymist")
    panel.select([name])
    assert not editor.make_key(project / "inside.key")  # refused inside the project
    assert messages and "outside the project" in messages[-1][1]
    key = tmp_path / "keys" / "study.key"
    assert editor.make_key(key)
    spec = doc.attributes[name].pseudonym
    assert spec.method == "hmac-sha256" and spec.key_file == str(key)
    with qtbot.waitSignal(window.search.finished, timeout=120_000):
        window.actions["anonymize"].trigger()
    released = doc.result.transformed(doc.applied_levels).frame
    original = doc.table.to_dataframe()[name]
    assert released[name].str.fullmatch("[0-9a-f]{16}").all()
    assert released[name].nunique() == original.nunique()
    from app.widgets.export_dialog import ExportDialog
    dialog = ExportDialog(tmp_path, ";", True, window, pseudonyms=True)
    qtbot.addWidget(dialog)
    dialog.format.setCurrentIndex(dialog.format.findData("xlsx"))
    dialog.path.setText("out.xlsx")
    dialog.with_report.setChecked(True)
    dialog.with_lookup.setChecked(True)  # into internal/, never beside the shared table
    dialog.release_folder.setText(str(tmp_path / "release"))
    dialog.accept()
    with qtbot.waitSignal(window.files.exported, timeout=120_000) as blocker:
        window.files.export_release(dialog.request)
    assert blocker.args[0].verified is True
    back = read_table(file_target(tmp_path / "release" / "share" / "out.xlsx"))
    pd.testing.assert_frame_equal(back, released.astype(str), check_dtype=False)
    assert verify_frame(back, doc.build_job()).ok
    lookup = pd.read_csv(tmp_path / "release" / "internal" / "out-pseudonyms.csv", sep=";",
                         dtype=str,
                         keep_default_na=False).set_index("pseudonym")["value"]
    assert (released[name].map(lookup) == original).all()  # it re-identifies: kept apart
    with qtbot.waitSignal(window.files.saved, timeout=30_000):
        window.files.save_to(project / "p.anonymist")
    secret = key.read_text().strip()
    for p in [*tmp_path.rglob("*")]:
        if p.is_file() and p != key:
            data = p.read_bytes()
            assert secret.encode() not in data and bytes.fromhex(secret) not in data, p
    # reopening the project keeps where the key is
    with qtbot.waitSignal(window.files.loaded, timeout=30_000):
        window.files.open_path(str(project / "p.anonymist"))
    assert window.document.attributes[name].pseudonym.key_file == str(key)


def test_release_as_editor_is_built_from_the_declarations(qtbot):
    """The editor's methods, labels and range are those of engine.pseudonyms.PARAMS."""
    from app.perspectives.configure.pseudonym_editor import PseudonymEditor
    from engine.pseudonyms import PARAMS
    editor = PseudonymEditor()
    qtbot.addWidget(editor)
    method = PARAMS["pseudonymize"]
    items = [(editor.method.itemData(i), editor.method.itemText(i))
             for i in range(editor.method.count())]
    assert items == [("removed", "Removed")] + [(m, method.choice_label(m))
                                                for m in method.choices]
    assert editor.keep.minimum() == PARAMS["keep"].low
    assert PARAMS["keep"].help in editor.keep.toolTip()
