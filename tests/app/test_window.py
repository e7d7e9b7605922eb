"""The main window, driven as a user would: regroup, mark, act, export, compare, persist."""

from __future__ import annotations

import csv
import json
import os
import shutil
import threading
from pathlib import Path

import _app_factory as factory
import pytest
from PySide6.QtCore import QLocale, QMimeData, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDropEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox, QPushButton

from app import settings as S
from app.dialogs import confirm as confirm_module
from app.dialogs.confirm import ConfirmActionDialog, Confirmation
from app.dialogs.error_dialog import ErrorDialog
from app.main_window import MainWindow
from app.models import Col, Role
from neardup_core.models import ScanOptions
from neardup_core.progress import ProgressEvent, Stage

FILES = {
    "notes/report.txt": "quarterly report",
    "backup/report copy.txt": "quarterly report",         # exact copy
    "drafts/report-v2.txt": "quarterly report, edited",
    "other/plan.txt": "project plan",
    "other/plan-old.txt": "project plan (old)",
    "alone.txt": "nothing like it",
}
NEAR = [("notes/report.txt", "drafts/report-v2.txt", 0.82),
        ("other/plan.txt", "other/plan-old.txt", 0.65)]


@pytest.fixture
def messages(monkeypatch):
    """Message boxes and error dialogs recorded instead of blocking the test."""
    seen: list[tuple[str, str]] = []

    def record(kind):
        def box(parent, title, text, *args, **kwargs):
            seen.append((kind, f"{title}: {text}"))
            return QMessageBox.StandardButton.Ok
        return box

    for kind in ("information", "warning", "critical"):
        monkeypatch.setattr(QMessageBox, kind, record(kind))
    monkeypatch.setattr(ErrorDialog, "exec", lambda self: seen.append(("error", "")) or 0)
    monkeypatch.setattr(QMessageBox, "open", lambda self: seen.append(("open", self.text())))
    return seen


@pytest.fixture
def window(qtbot, settings, tmp_path, messages):
    trash_bin = tmp_path / "trash-bin"
    trash_bin.mkdir()
    trashed: list[str] = []

    def fake_trash(path: str) -> None:
        trashed.append(path)
        shutil.move(path, trash_bin / f"{len(trashed)}-{os.path.basename(path)}")

    w = MainWindow(settings, trash=fake_trash, action_log=str(tmp_path / "logs" / "actions.log"))
    w.trashed = trashed  # type: ignore[attr-defined]
    qtbot.addWidget(w)
    w.resize(1200, 800)
    yield w
    w.host.wait(20_000)


@pytest.fixture
def loaded(window, tmp_path):
    window.set_result(factory.on_disk(tmp_path / "docs", FILES, NEAR), new_scan=True)
    return window


def group_names(window: MainWindow) -> list[set[str]]:
    m = window.model
    return [{m.result.documents[mm.doc].name for mm in m.group(g).members}
            for g in range(m.group_count())]


# -- regrouping -----------------------------------------------------------------------------

def test_slider_regroups_and_updates_counts(loaded, qtbot):
    w = loaded
    assert w.model.group_count() == 2
    assert "Groups: 2" in w.counts.text()
    with qtbot.waitSignal(w.resultChanged, timeout=2000):
        w.threshold.slider.setValue(700)          # 70 %: the 0.65 pair falls apart
    assert w.result.threshold == pytest.approx(0.7)
    assert w.model.group_count() == 1
    assert "Groups: 1" in w.counts.text()
    assert w.settings.threshold == pytest.approx(0.7)
    with qtbot.waitSignal(w.resultChanged, timeout=2000):
        w.threshold.spin.setValue(50.0)
    assert w.model.group_count() == 2
    assert w.threshold.histogram.threshold() == pytest.approx(0.5)


def test_a_big_result_regroups_in_the_background_and_the_newest_move_wins(loaded, qtbot):
    """Above ``background_documents`` the groups are computed in a worker thread: the window
    shows the result it had until they are ready; moves asked for meanwhile are grouped after
    it, and only the newest is shown."""
    w = loaded
    w.grouping.background_documents = 0  # every result counts as big
    shown: list[float] = []
    w.resultChanged.connect(lambda: shown.append(w.result.threshold))
    before = w.result
    w.grouping.regroup(threshold=0.7)
    assert w.result is before  # nothing shown until the groups are ready
    assert w.grouping.latest().threshold == pytest.approx(0.7)
    w.grouping.regroup(threshold=0.5)    # asked for while 0.7 is being grouped
    w.grouping.on_mode("strict")         # on top of 0.5, not of the result on show
    qtbot.waitUntil(lambda: w.result is not before and w.result.group_mode == "strict",
                    timeout=5000)
    qtbot.waitUntil(lambda: not w.host.busy(), timeout=5000)
    assert w.result.threshold == pytest.approx(0.5)
    assert shown == [pytest.approx(0.5)]  # 0.7 and 0.5 in connected mode were never shown
    assert w.model.group_count() == 2
    assert w.result.computed("group_table") is not None


def test_a_background_regroup_says_so_in_the_status_bar_until_it_is_shown(loaded, qtbot):
    """A long jump at 10^6 documents takes tenths of a second in the worker: the status bar
    says what is coming, and the message goes once the groups are shown (not a message said
    meanwhile)."""
    w = loaded
    w.grouping.background_documents = 0
    bar = w.statusBar()
    w.grouping.regroup(threshold=0.7)
    assert bar.currentMessage() == "Regrouping at 70.0%…"
    qtbot.waitUntil(lambda: w.result.threshold == pytest.approx(0.7), timeout=5000)
    assert bar.currentMessage() == ""
    w.grouping.regroup(threshold=0.65)
    bar.showMessage("Opened somewhere")  # said while it groups: stays
    qtbot.waitUntil(lambda: w.result.threshold == pytest.approx(0.65), timeout=5000)
    assert bar.currentMessage() == "Opened somewhere"
    qtbot.waitUntil(lambda: not w.host.busy(), timeout=5000)


def test_a_background_regroup_to_another_mode_is_prepared_for_moves_once_shown(loaded,
                                                                               qtbot):
    """A mode change starts a regrouper the scan's worker did not prepare: once its groups are
    shown, its forest is computed in a worker thread, not at the first long jump."""
    w = loaded
    w.grouping.background_documents = 0
    w.grouping.on_mode("cohesive")
    qtbot.waitUntil(lambda: w.result.group_mode == "cohesive", timeout=5000)
    qtbot.waitUntil(lambda: not w.host.busy(), timeout=5000)
    regrouper = w.result._regrouper
    assert regrouper._forest is not None and regrouper._rooted is not None
    w.grouping.regroup(threshold=0.7)  # the move starts from what was prepared
    qtbot.waitUntil(lambda: w.result.threshold == pytest.approx(0.7), timeout=5000)
    assert w.result._regrouper is regrouper


def test_marks_survive_a_background_regroup_with_the_status_bar(loaded, qtbot):
    """A regroup grouped in the worker thread carries the marks over as one on the main
    thread does: kept on files still duplicates, counted and sized in the status bar."""
    w = loaded
    w.grouping.background_documents = 0
    w.model.mark_all_but_reference(below_cut=True)
    d = w.result.documents
    marked = {d[i].path for i in w.model.marked_docs()}
    assert len(marked) == 3
    w.grouping.regroup(threshold=0.7)   # the plans (0.65) part; the reports stay together
    qtbot.waitUntil(lambda: w.result.threshold == pytest.approx(0.7), timeout=5000)
    qtbot.waitUntil(lambda: not w.host.busy(), timeout=5000)
    d = w.result.documents
    kept = {d[i].path for i in w.model.marked_docs()}
    assert kept == {p for p in marked if "plan" not in p} and len(kept) == 2
    assert w.model.marked_count() == 2
    size = sum(d[i].size for i in w.model.marked_docs())
    assert f"Marked: 2 ({QLocale().formattedDataSize(size)})" in w.counts.text()
    w.grouping.regroup(threshold=0.6)   # the plan is back in a group, unmarked
    qtbot.waitUntil(lambda: w.result.threshold == pytest.approx(0.6), timeout=5000)
    qtbot.waitUntil(lambda: not w.host.busy(), timeout=5000)
    assert {w.result.documents[i].path for i in w.model.marked_docs()} == kept


def test_a_background_regroup_is_dropped_when_another_result_is_shown(loaded, qtbot,
                                                                        tmp_path):
    w = loaded
    w.grouping.background_documents = 0
    w.grouping.regroup(threshold=0.7)
    other = factory.on_disk(tmp_path / "more", FILES, NEAR)
    w.set_result(other, new_scan=True)  # a new scan arrives while the regroup runs
    qtbot.waitUntil(lambda: not w.host.busy(), timeout=5000)
    QApplication.processEvents()
    assert w.result.roots == w.model.result.roots
    assert w.result.threshold == pytest.approx(other.threshold)
    assert w.grouping.latest() is w.result


def test_a_big_result_is_grouped_ahead_where_a_click_on_the_track_lands(loaded, qtbot):
    """Once a big result is shown and prepared, its groups a page step (5 %) either side and
    beyond are computed in a worker thread; a click on the slider's track then shows its
    groups at once, computed ahead, with no regroup in the background."""
    w = loaded
    w.grouping.background_documents = 0
    w.grouping.prepare(w.result)
    warming = w.grouping._warming
    qtbot.waitUntil(lambda: not w.host.busy(), timeout=10_000)
    rg = w.result._regrouper
    assert [g.threshold for g in rg._warm][:3] == [0.55, 0.65, 0.5]
    ahead = {g.threshold: g.table for g in rg._warm}
    w.threshold.slider.triggerAction(w.threshold.slider.SliderAction.SliderPageStepAdd)
    qtbot.waitUntil(lambda: w.result.threshold == pytest.approx(0.65), timeout=2000)
    assert w.result.computed("group_table") is ahead[0.65]
    assert not w.host.busy() and w.statusBar().currentMessage() == ""
    assert w.model.group_count() == 2  # the plans (0.65) are a pair still
    w.grouping.regroup(threshold=0.63)  # off the steps: a move from the nearest (0.65)
    qtbot.waitUntil(lambda: w.result.threshold == pytest.approx(0.63), timeout=5000)
    assert w.result._regrouper is rg
    qtbot.waitUntil(lambda: not w.host.busy(), timeout=10_000)
    # a move of the threshold alone neither stops the warming nor starts another one
    assert w.grouping._warming is warming and not warming.is_set()
    assert len(rg._warm) == 12


def test_grouping_ahead_stops_for_another_result_and_when_the_window_closes(loaded, qtbot,
                                                                              tmp_path):
    w = loaded
    w.grouping.background_documents = 0
    w.grouping.prepare(w.result)
    first = w.grouping._warming
    assert first is not None and not first.is_set()
    w.grouping.regroup(threshold=0.7)  # only the threshold: the warming goes on
    assert not first.is_set()
    w.grouping.on_mode("strict")  # another regrouper: what is warmed serves it not
    assert first.is_set()
    qtbot.waitUntil(lambda: w.result.group_mode == "strict", timeout=5000)
    second = w.grouping._warming  # the strict result, prepared once shown, is warmed
    assert second is not None and not second.is_set()
    w.set_result(factory.on_disk(tmp_path / "more", FILES, NEAR), new_scan=True)
    assert second.is_set() and w.grouping._warming is None
    w.grouping.prepare(w.result)
    third = w.grouping._warming
    w.close()
    assert third.is_set()
    qtbot.waitUntil(lambda: not w.host.busy(), timeout=10_000)


def test_a_finished_scan_is_grouped_ahead(qtbot, settings, tmp_path, messages):
    result = factory.on_disk(tmp_path / "docs", FILES, NEAR)

    class Done:
        def __call__(self, options: ScanOptions) -> Done:
            return self

        def run(self, paths, progress, cancel):
            return result

    w = MainWindow(settings, folders=[str(tmp_path / "docs")], session_factory=Done())
    qtbot.addWidget(w)
    w.grouping.background_documents = 0
    with qtbot.waitSignal(w.scanFinished, timeout=10_000):
        w.start_scan()
    assert w.result is result and w.grouping._warming is not None
    qtbot.waitUntil(lambda: not w.host.busy(), timeout=10_000)
    assert 0.65 in [g.threshold for g in result._regrouper._warm]
    w.grouping.warm(result)
    warming = w.grouping._warming
    with qtbot.waitSignal(w.scanFinished, timeout=10_000):
        w.start_scan()  # a new scan stops the warming at once
        assert warming.is_set()
    qtbot.waitUntil(lambda: not w.host.busy(), timeout=10_000)


def test_a_small_result_is_not_grouped_ahead(loaded, qtbot):
    w = loaded
    w.grouping.prepare(w.result)
    assert w.grouping._warming is None
    qtbot.waitUntil(lambda: not w.host.busy(), timeout=10_000)
    assert w.result._regrouper._warm == []


def test_strict_and_connected_group_differently(window, tmp_path, qtbot):
    files = {"a.txt": "alpha", "b.txt": "alpha beta", "c.txt": "beta"}
    chain = [("a.txt", "b.txt", 0.7), ("b.txt", "c.txt", 0.7)]   # a and c share little
    window.set_result(factory.on_disk(tmp_path / "chain", files, chain), new_scan=True)
    assert group_names(window) == [{"a.txt", "b.txt", "c.txt"}]
    with qtbot.waitSignal(window.resultChanged, timeout=2000):
        window.threshold.mode.setCurrentIndex(window.threshold.mode.findData("strict"))
    assert str(window.result.group_mode) == "strict"
    assert all(len(g) < 3 for g in group_names(window))
    assert window.scan_panel.group_mode.currentData() == "strict"   # both switches agree
    with qtbot.waitSignal(window.resultChanged, timeout=2000):
        window.scan_panel.group_mode.setCurrentIndex(0)
    assert group_names(window) == [{"a.txt", "b.txt", "c.txt"}]


def test_filter_box_keeps_matching_groups(loaded):
    loaded.filter.setText("plan-old")
    assert loaded.model.rowCount() == 1
    assert "Groups: 2" in loaded.counts.text()      # counts are of the result, not the view
    loaded.filter.clear()
    assert loaded.model.rowCount() == 2


def test_make_reference_and_ignore(loaded, qtbot):
    w = loaded
    w.select_member(0, 2)
    doc = w.selected_docs()[0]
    w.make_reference()
    assert w.model.group(0).reference == doc
    assert w.model.index(0, Col.NAME, w.model.index(0, 0)).data(Role.IS_REFERENCE)
    w.select_member(1, 1)
    w.ignore_pair()
    assert w.model.group_count() == 1              # the plan pair is no longer a group
    w.select_member(0, 1)
    w.ignore_group()
    assert w.model.group_count() == 0


# -- marking --------------------------------------------------------------------------------

def test_space_marks_and_mark_helpers(loaded, qtbot, monkeypatch):
    w = loaded
    w.select_member(0, 1)
    w.tree.setFocus()
    qtbot.keyClick(w.tree, Qt.Key.Key_Space)
    assert w.model.marked_count() == 1
    assert "Marked: 1" in w.counts.text()
    qtbot.keyClick(w.tree, Qt.Key.Key_Space)
    assert w.model.marked_count() == 0
    w.mark_all_but_reference()
    assert w.model.marked_count() == 3
    w.unmark_all()
    w.mark_selected_groups()                  # the selected 3-file group
    assert w.model.marked_count() == 2
    w.unmark_all()
    w.ask_folder = lambda title: str(Path(w.result.documents[0].folder).parent / "backup")
    w.mark_in_folder()
    assert [w.result.documents[d].name for d in w.model.marked_docs()] == ["report copy.txt"]


# -- acting ---------------------------------------------------------------------------------

def test_trash_asks_first_and_a_refusal_changes_nothing(loaded):
    w = loaded
    w.mark_all_but_reference()
    asked = []
    w.confirm = lambda parent, plan, result, log: asked.append(plan) or None
    w.trash_marked()
    assert len(asked) == 1 and len(asked[0].items) == 3
    assert w.trashed == []
    assert all(os.path.exists(d.path) for d in w.result.documents)


def test_declining_the_real_dialog_trashes_nothing(loaded, monkeypatch):
    w = loaded
    w.mark_all_but_reference()
    monkeypatch.setattr(ConfirmActionDialog, "exec", lambda self: QDialog.DialogCode.Rejected)
    w.trash_marked()
    assert w.trashed == []
    assert w.model.marked_count() == 3 and w.model.group_count() == 2


def test_trash_moves_marked_files_and_updates_groups(loaded, qtbot, tmp_path):
    w = loaded
    w.mark_all_but_reference()
    marked = {w.result.documents[d].path for d in w.model.marked_docs()}
    refs = {w.result.documents[w.model.group(g).reference].path for g in range(2)}
    w.confirm = lambda parent, plan, result, log: Confirmation(allow_changed=False)
    with qtbot.waitSignal(w.actionFinished, timeout=10_000):
        w.trash_marked()
    assert set(w.trashed) == marked
    assert all(os.path.exists(p) for p in refs)           # references stay
    assert w.model.group_count() == 0                     # the groups are gone, no rescan
    assert not any(d.path in marked for d in w.result.documents)
    assert w.model.marked_count() == 0
    log = (tmp_path / "logs" / "actions.log").read_text(encoding="utf-8")
    assert all(p in log for p in marked)


def test_confirmation_dialog_lists_files_and_warns_about_fuzzy_matches(loaded, qtbot,
                                                                       monkeypatch):
    w = loaded
    w.mark_all_but_reference()
    shown: list[tuple[set[str], str]] = []

    def accept(dialog: ConfirmActionDialog):
        listed = set(factory.listed(dialog.files, 0))
        warning = dialog.fuzzy_warning.text() if dialog.fuzzy_warning is not None else ""
        shown.append((listed, warning))
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(ConfirmActionDialog, "exec", accept)
    assert w.confirm is confirm_module.confirm_plan
    with qtbot.waitSignal(w.actionFinished, timeout=10_000):
        w.trash_marked()
    listed, warning = shown[0]
    assert listed == {"report copy.txt", "report-v2.txt", "plan-old.txt"}
    assert "similar, not identical" in warning
    assert len(w.trashed) == 3


def test_never_trashes_the_last_copy(loaded, qtbot, messages):
    w = loaded
    w.select_member(1, 1)
    w.toggle_marks()                                     # plan-old.txt marked
    ref = w.result.documents[w.model.group(1).reference].path
    os.remove(ref)                                       # the copy that was to stay is gone
    w.confirm = lambda parent, plan, result, log: Confirmation(False)
    w.trash_marked()
    assert w.trashed == []
    assert any("Nothing to do" in text for _kind, text in messages)


def _as_loaded_from_a_file(result, row: int, outside: Path):
    """``result`` as a results file would hold it (each document's identity and content hash
    recorded, ``origin="file"``), with row ``row`` edited to name ``outside`` (its real size,
    mtime and identity): an edited results file."""
    import dataclasses

    from neardup_core.extract import content_hash

    def recorded(d, path: str):
        st = os.stat(path)
        return dataclasses.replace(d, path=path, size=st.st_size, mtime=st.st_mtime,
                                   mtime_ns=st.st_mtime_ns, dev=st.st_dev, ino=st.st_ino,
                                   content_hash=content_hash(path, 64 << 20))

    docs = [recorded(d, d.path) for d in result.documents]
    docs[row] = recorded(docs[row], str(outside))
    return dataclasses.replace(result, documents=tuple(docs), origin="file")


def test_refusals_of_an_untrusted_results_file_are_shown_with_their_reasons(
        window, qtbot, tmp_path, monkeypatch, messages):
    w = window
    result = factory.on_disk(tmp_path / "docs", FILES, NEAR)
    outside = tmp_path / "not scanned" / "report copy.txt"
    outside.parent.mkdir()
    outside.write_text("quarterly report", encoding="utf-8")
    row = next(i for i, d in enumerate(result.documents) if d.name == "report copy.txt")
    w.set_result(_as_loaded_from_a_file(result, row, outside), new_scan=True)
    w.mark_all_but_reference()
    shown: list[dict[str, str]] = []

    def look(dialog: ConfirmActionDialog):
        shown.append(dict(zip(factory.listed(dialog.refused, 0), factory.listed(dialog.refused, 1),
                              strict=True)))
        return QDialog.DialogCode.Rejected

    monkeypatch.setattr(ConfirmActionDialog, "exec", look)
    w.trash_marked()
    assert "not in the scanned folders" in shown[0]["report copy.txt"]
    assert w.trashed == [] and outside.exists()
    # only that file marked: nothing to do, and the message says which file and why
    w.set_result(_as_loaded_from_a_file(result, row, outside), new_scan=True)
    assert w.model.marked_count() == 0
    w.confirm = lambda parent, plan, result, log: Confirmation(False)
    for g in range(w.model.group_count()):
        for k in range(len(w.model.group(g))):
            w.select_member(g, k)
            if w.result.documents[w.selected_docs()[0]].name == "report copy.txt":
                w.toggle_marks()
    w.trash_marked()
    assert w.trashed == []
    assert any("Nothing to do" in text and "report copy.txt" in text
               and "not in the scanned folders" in text for _kind, text in messages)


def test_move_to_folder(loaded, qtbot, tmp_path):
    w = loaded
    dest = tmp_path / "moved"
    dest.mkdir()
    w.select_member(0, 2)
    w.toggle_marks()
    doc = w.result.documents[w.selected_docs()[0]]
    name = doc.name
    # the file keeps its place below the scanned folder (issue 21, item 12)
    landing = dest / os.path.relpath(doc.path, w.result.roots[0])
    w.ask_folder = lambda title: str(dest)
    w.confirm = lambda parent, plan, result, log: Confirmation(False)
    with qtbot.waitSignal(w.actionFinished, timeout=10_000):
        w.move_marked()
    assert landing.exists() and not os.path.exists(doc.path)
    assert all(d.name != name or d.path == str(landing) for d in w.result.documents)
    assert w.model.group_count() == 2                    # the 3-file group keeps two files
    assert len(w.model.group(0)) == 2 or len(w.model.group(1)) == 2


# -- comparing ------------------------------------------------------------------------------

def test_a_member_that_cannot_be_read_again_is_said_so_in_the_interface_language(
        loaded, qtbot, monkeypatch):
    """The core's reason (a file gone, a PDF past a limit) in the window's words, as the
    Problems tab says it."""
    from app import i18n

    w = loaded
    doc = w.result.documents[w.model.group(0).members[2].doc]
    os.remove(doc.path)
    monkeypatch.setattr(i18n, "_current", "zh_CN")
    with qtbot.waitSignal(w.preview.loaded, timeout=10_000):
        w.select_member(0, 2)
    header = w.preview.diff._header.text()
    assert f"{doc.name}: 扫描期间该文件被删除或移走" in header, header


def test_selecting_a_member_shows_its_diff_against_the_reference(loaded, qtbot):
    w = loaded
    with qtbot.waitSignal(w.preview.loaded, timeout=10_000):
        w.select_member(0, 2)
    assert w.preview.stack.currentWidget() is w.preview.diff
    assert w.preview.diff.diff() is not None
    assert "Similarity" in w.preview.header_text(w.model.group(0).members[2])
    w.tree.selectionModel().clearSelection()
    with qtbot.waitSignal(w.preview.loaded, timeout=10_000):
        w.select_member(0, 1)
        idx = w.model.member_index(1, 1)
        w.tree.selectionModel().select(idx, w.tree.selectionModel().SelectionFlag.Select
                                       | w.tree.selectionModel().SelectionFlag.Rows)
        assert len(w.selected_docs()) == 2
        assert w.act_compare.isEnabled()
        w.compare_selected()


# -- files ----------------------------------------------------------------------------------

def test_export_csv_json_html(loaded, qtbot, tmp_path):
    w = loaded
    for fmt in ("csv", "json", "html"):
        out = tmp_path / f"out.{fmt}"
        w.ask_save_path = lambda title, name, filters, out=out: str(out)
        with qtbot.waitSignal(w.actionFinished, timeout=20_000):
            w.export(fmt)
        assert out.exists(), fmt
    data = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert data
    with open(tmp_path / "out.csv", encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh))
    assert len(rows) >= 1 + 5                     # a header and one row per grouped file
    assert any("report-v2.txt" in cell for row in rows for cell in row)
    assert "<html" in (tmp_path / "out.html").read_text(encoding="utf-8").lower()


def test_save_and_open_results(loaded, qtbot, tmp_path):
    w = loaded
    path = tmp_path / "saved.neardup"
    w.ask_save_path = lambda *a: str(path)
    with qtbot.waitSignal(w.actionFinished, timeout=10_000):
        w.save_results()
    assert path.exists()
    w.mark_all_but_reference()
    w.ask_open_path = lambda *a: str(path)
    with qtbot.waitSignal(w.actionFinished, timeout=10_000):
        w.open_results()
    assert w.model.group_count() == 2
    assert w.model.marked_count() == 0         # loaded results start unmarked
    assert "loaded from" in w.banner.text()
    # grouped and prepared for moves and views in the worker that read it, as a scan's
    # result is (a 200,000-file result's groups took the window's thread 0.46-0.77 s)
    assert w.result.computed("group_table") is not None
    assert w.result._regrouper._forest is not None
    assert w.result.computed("pairs_by_document") is not None
    qtbot.waitUntil(lambda: not w.host.busy(), timeout=5000)


def test_open_results_reports_a_damaged_file(window, qtbot, tmp_path, messages):
    bad = tmp_path / "bad.neardup"
    bad.write_bytes(b"not a zip")
    window.ask_open_path = lambda *a: str(bad)
    with qtbot.waitSignal(window.actionFinished, timeout=10_000):
        window.open_results()
    assert messages and messages[-1][0] == "warning"


def test_open_results_says_why_in_the_interface_language(window, qtbot, tmp_path, messages,
                                                         monkeypatch):
    """The refusal of a file that is not a results file was English in a Chinese window."""
    from app import i18n

    monkeypatch.setattr(i18n, "_current", "zh_CN")
    bad = tmp_path / "坏的.neardup"
    bad.write_bytes(b"not a results file at all")
    window.ask_open_path = lambda *a: str(bad)
    with qtbot.waitSignal(window.actionFinished, timeout=10_000):
        window.open_results()
    kind, text = messages[-1]
    assert kind == "warning"
    assert f"无法打开 {bad}：" in text and "cannot be opened" not in text


# -- scanning -------------------------------------------------------------------------------

class BlockingSession:
    """Reports progress, then waits for cancel and returns a partial result."""

    def __init__(self, result) -> None:
        self.result = result

    def __call__(self, options: ScanOptions) -> BlockingSession:
        return self

    def run(self, paths, progress, cancel):
        import dataclasses

        progress(ProgressEvent(Stage.READ, 3, 10, "reading", 1.0))
        cancel.wait(30)
        return dataclasses.replace(self.result, partial=True, notes=("cut short",))


def test_cancel_shows_what_was_found(qtbot, settings, tmp_path, messages):
    result = factory.on_disk(tmp_path / "docs", FILES, NEAR)
    w = MainWindow(settings, folders=[str(tmp_path / "docs")],
                   session_factory=BlockingSession(result))
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.busyChanged, timeout=5000):
        w.start_scan()
    assert w.scan_worker is not None
    assert not w.act_scan.isEnabled() and w.act_cancel.isEnabled()
    qtbot.waitUntil(lambda: w.progress.last_event is not None, timeout=5000)
    assert "3 / 10" in w.progress.counts.text()
    with qtbot.waitSignal(w.scanFinished, timeout=10_000):
        w.progress.cancel_button.click()
    assert "Scan cancelled" in w.banner.text()
    assert w.model.group_count() == 2
    assert w.act_scan.isEnabled()
    w.host.wait(5000)


def test_a_scan_takes_the_cache_bounds_from_the_preferences(qtbot, settings, tmp_path, messages):
    from app import settings as S

    seen: list[ScanOptions] = []

    class Recording:
        def __call__(self, options: ScanOptions) -> Recording:
            seen.append(options)
            return self

        def run(self, paths, progress, cancel):
            raise RuntimeError("stop here")

    settings.set(S.CACHE_LIMIT_MIB, 300)
    settings.set(S.CACHE_DAYS, 7)
    w = MainWindow(settings, folders=[str(tmp_path)], session_factory=Recording())
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.scanFinished, timeout=10_000):
        w.start_scan()
    assert [(o.cache_limit, o.cache_days) for o in seen] == [(300 * 1024 * 1024, 7)]
    w.host.wait(5000)


def test_start_reports_bad_options_and_missing_folders(window, tmp_path, messages):
    window.start_scan()
    assert "Nothing to scan" in messages[-1][1]
    window.scan_panel.folders.set_folders([str(tmp_path / "missing")])
    window.start_scan()
    assert "Folder not found" in messages[-1][1]
    window.scan_panel.folders.set_folders([str(tmp_path)])
    window.scan_panel.set_suffixes([])
    window.start_scan()
    assert "Cannot start the scan" in messages[-1][1]
    assert window.scan_worker is None
    window.scan_panel.set_suffixes([".txt"])
    window.settings.encodings = {str(tmp_path / "a.txt"): "base64"}  # an INI edited by hand
    window.start_scan()
    assert "Cannot start the scan" in messages[-1][1] and "base64" in messages[-1][1]
    assert window.scan_worker is None


def test_an_unexpected_scan_error_shows_the_error_dialog(qtbot, settings, tmp_path, messages):
    class Broken:
        def __call__(self, options):
            return self

        def run(self, paths, progress, cancel):
            raise RuntimeError("boom")

    w = MainWindow(settings, folders=[str(tmp_path)], session_factory=Broken())
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.scanFinished, timeout=10_000):
        w.start_scan()
    assert ("error", "") in messages
    assert w.act_scan.isEnabled()
    w.host.wait(5000)


def write_corpus(root: Path) -> None:
    """Chinese and English near-duplicates in several encodings, one unrelated file and a broken
    .docx."""
    zh = ("城市公共交通的发展关系到每一位市民的日常出行。近年来，地铁线路不断延伸，公交站点"
          "更加密集，换乘也越来越方便。与此同时，共享单车解决了最后一公里的问题，"
          "但也带来了停放秩序的挑战。管理部门需要在便利与秩序之间找到平衡。")
    zh_edit = zh.replace("近年来", "过去五年").replace("挑战", "新的挑战") + "市民对此评价积极。"
    en = ("The river that runs through the old town has shaped its history for centuries. "
          "Mills were built along its banks, bridges connected the markets on either side, "
          "and floods every spring reminded people of its power. Today the river is quieter, "
          "lined with walking paths, cafes and a small museum about the mills. ") * 2
    en_edit = en.replace("centuries", "many centuries").replace("Today", "Nowadays")
    root.mkdir(parents=True, exist_ok=True)
    (root / "交通.txt").write_text(zh * 3, encoding="utf-8")
    (root / "交通 (副本).txt").write_bytes((zh * 3).encode("gb18030"))
    (root / "交通-修改.txt").write_text(zh_edit * 3, encoding="utf-8")
    (root / "river.txt").write_text(en, encoding="utf-8")
    (root / "river-edited.txt").write_bytes(en_edit.encode("utf-16"))
    (root / "unrelated.txt").write_text("A completely different note about gardening tools, "
                                        "seeds and the weather in April." * 3, encoding="utf-8")
    (root / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")


def test_real_scan_of_generated_folder_fills_the_tree(qtbot, settings, tmp_path, messages):
    root = tmp_path / "corpus"
    write_corpus(root)
    w = MainWindow(settings, folders=[str(root)])
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.scanFinished, timeout=120_000):
        w.start_scan()
    assert not messages, messages
    names = sorted(sorted(g) for g in group_names(w))
    assert names == [["river-edited.txt", "river.txt"],
                     ["交通 (副本).txt", "交通-修改.txt", "交通.txt"]]
    zh_group = next(g for g in range(w.model.group_count())
                    if len(w.model.group(g)) == 3)
    ref = w.model.group(zh_group).reference
    assert w.result.documents[ref].name == "交通.txt"        # the copy is not the reference
    assert w.problems_model.rowCount() == 1
    assert "Problems (1)" in w.tabs.tabText(1)
    assert "Files scanned: 6" in w.counts.text()
    w.host.wait(5000)


# -- window state ---------------------------------------------------------------------------

def test_settings_persist_across_windows(qtbot, settings, tmp_path, messages):
    w = MainWindow(settings, folders=[str(tmp_path)])
    qtbot.addWidget(w)
    w.scan_panel.references.set_folders([str(tmp_path / "keep")])
    w.scan_panel.exclude.setText("*.bak; ~$*")
    w.scan_panel.set_suffixes([".txt", ".md"])
    w.scan_panel.recursive.setChecked(False)
    w.scan_panel.method.setCurrentIndex(w.scan_panel.method.findData("simhash"))
    w.threshold.set_threshold(0.75)
    w.threshold.set_log_scale(True)
    w.close()
    again = MainWindow(settings)
    qtbot.addWidget(again)
    assert again.scan_panel.folders.folders() == [str(tmp_path)]
    assert again.scan_panel.references.folders() == [str(tmp_path / "keep")]
    assert again.scan_panel.suffixes() == [".txt", ".md"]
    assert not again.scan_panel.recursive.isChecked()
    assert again.scan_panel.method.currentData() == "simhash"
    assert again.threshold.threshold() == pytest.approx(0.75)
    assert again.threshold.log_box.isChecked()
    assert settings.get(S.WINDOW_GEOMETRY)
    options = again.scan_panel.build_options(again.threshold.threshold())
    assert options.exclude == ("*.bak", "~$*") and options.method == "simhash"


def test_dropping_folders_adds_them(window, tmp_path):
    folder = tmp_path / "dropped"
    folder.mkdir()
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(folder)), QUrl.fromLocalFile(str(tmp_path / "x.txt"))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    assert window.scan_panel.folders.folders() == [str(folder)]


def test_close_during_a_scan_cancels_it(qtbot, settings, tmp_path, messages):
    result = factory.on_disk(tmp_path / "docs", FILES, NEAR)
    w = MainWindow(settings, folders=[str(tmp_path / "docs")],
                   session_factory=BlockingSession(result))
    qtbot.addWidget(w)
    w.start_scan()
    worker = w.scan_worker
    w.close()
    assert worker is not None and worker.cancelled
    assert not w.host.busy()
    assert threading.active_count() >= 1


# -- reading a file in another encoding ------------------------------------------------------

class _ChosenDialog:
    """Stands in for EncodingDialog: answers ``choice`` without showing anything."""

    def __init__(self, choice: str | None, seen: list) -> None:
        self.choice, self.seen = choice, seen

    def __call__(self, path: str, current: str | None) -> _ChosenDialog:
        self.seen.append((path, current))
        return self

    def exec(self) -> int:
        return 1


def test_a_file_read_in_the_chosen_encoding_joins_its_twin(qtbot, settings, tmp_path, messages):
    """Four GBK characters read as Japanese and match nothing; the user picks the file and
    GB18030 (Scan ▸ Read a file in another encoding), the window scans again and the file joins
    its UTF-8 twin; the choice is kept, and shown when the same file is picked again; going
    back to automatic detection ungroups it."""
    root = tmp_path / "notes"
    root.mkdir()
    (root / "utf8.txt").write_text("杭州董事", encoding="utf-8")
    legacy = root / "gbk.txt"
    legacy.write_bytes("杭州董事".encode("gbk"))
    w = MainWindow(settings, folders=[str(root)])
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.scanFinished, timeout=120_000):
        w.start_scan()
    assert w.model.group_count() == 0
    seen: list = []
    w.ask_text_file = lambda title: str(legacy)
    w.make_encoding_dialog = _ChosenDialog("gb18030", seen)
    assert w.act_read_file_as.isEnabled()
    with qtbot.waitSignal(w.scanFinished, timeout=120_000):
        w.act_read_file_as.trigger()
    assert seen == [(str(legacy), None)]
    assert group_names(w) == [{"utf8.txt", "gbk.txt"}]
    doc = next(d for d in w.result.documents if d.path == str(legacy))
    assert doc.encoding == "gb18030"
    assert settings.encodings == {str(legacy): "gb18030"}
    # the file is in a group now: its context action offers the choice made
    w.select_member(0, next(i for i, m in enumerate(w.model.group(0).members)
                            if w.result.documents[m.doc].path == str(legacy)))
    assert w.act_read_as.isEnabled()
    w.make_encoding_dialog = _ChosenDialog(None, seen)
    with qtbot.waitSignal(w.scanFinished, timeout=120_000):
        w.act_read_as.trigger()
    assert seen[-1] == (str(legacy), "gb18030")
    assert w.model.group_count() == 0 and settings.encodings == {}
    assert not messages, messages
    w.host.wait(5000)


def test_the_encoding_dialog_previews_the_file_in_each_encoding(qtbot, tmp_path):
    from app.dialogs.encoding_dialog import EncodingDialog

    path = tmp_path / "big5.txt"
    path.write_bytes("博物館導覽手冊".encode("big5"))
    d = EncodingDialog(str(path), None)
    qtbot.addWidget(d)
    assert d.selected() is None and "Detected" in d.note.text()
    d.encoding.setCurrentIndex(d.encoding.findData("cp950"))
    assert d.preview.toPlainText() == "博物館導覽手冊" and d.note.text() == ""
    d.encoding.setCurrentIndex(d.encoding.findData("utf-8"))
    assert "\ufffd" in d.preview.toPlainText() and "do not fit" in d.note.text()
    d.encoding.setCurrentIndex(d.encoding.findData("cp950"))
    d.accept()
    assert d.choice == "cp950"
    missing = EncodingDialog(str(tmp_path / "gone.txt"), "gb18030")
    qtbot.addWidget(missing)
    assert not missing.ok.isEnabled() and "cannot be read" in missing.note.text()
    assert missing.selected() == "gb18030"


def test_a_text_file_listed_as_a_problem_can_be_read_in_another_encoding(
        qtbot, settings, tmp_path, messages):
    """A list of rare names in UTF-16 without a byte-order mark has no NUL byte, many control
    bytes and no common character, so the scan lists it as binary; from the problems list the
    user reads it as UTF-16 LE and it joins its UTF-8 twin. A .docx problem offers no
    encoding."""
    root = tmp_path / "wide"
    root.mkdir()
    text = "邬蔺鄞祎婧瀚翊，" * 10
    (root / "utf8.txt").write_text(text, encoding="utf-8")
    wide = root / "wide.txt"
    wide.write_bytes(text.encode("utf-16-le"))
    (root / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")
    w = MainWindow(settings, folders=[str(root)])
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.scanFinished, timeout=120_000):
        w.start_scan()
    assert w.model.group_count() == 0
    rows = {os.path.basename(w.problems_model.data(w.problems_model.index(r, 0),
                                                   Qt.ItemDataRole.UserRole)): r
            for r in range(w.problems_model.rowCount())}
    assert set(rows) == {"wide.txt", "broken.docx"}
    assert not w.problem_can_be_read_as(w.problems_model.index(rows["broken.docx"], 0))
    seen: list = []
    w.make_encoding_dialog = _ChosenDialog("utf-16-le", seen)
    with qtbot.waitSignal(w.scanFinished, timeout=120_000):
        w.read_problem_as(w.problems_model.index(rows["wide.txt"], 0))
    assert seen == [(str(wide), None)]
    assert group_names(w) == [{"utf8.txt", "wide.txt"}]
    assert w.problems_model.rowCount() == 1
    assert not messages, messages
    w.host.wait(5000)


# -- Return never confirms (issue 18, item 2) -----------------------------------------------
def _press_on_dialog(qtbot, key: Qt.Key, seen: dict) -> None:
    """Once the modal confirmation is up, note its default button and press ``key`` on the
    widget that has the focus, as a user at the keyboard would."""

    def act() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ConfirmActionDialog):
            QTimer.singleShot(20, act)
            return
        defaults = [b for b in dialog.findChildren(QPushButton) if b.isDefault()]
        seen["defaults"] = [b.text() for b in defaults]
        seen["ok_default"] = dialog.ok_button.isDefault()
        qtbot.keyClick(QApplication.focusWidget() or dialog, key)
        if dialog.isVisible():  # the key did nothing: close it as Cancel would
            seen["still_open"] = True
            dialog.reject()

    QTimer.singleShot(0, act)


@pytest.mark.parametrize("key", [Qt.Key.Key_Return, Qt.Key.Key_Enter])
def test_return_on_the_trash_confirmation_trashes_nothing(loaded, qtbot, key) -> None:
    w = loaded
    w.mark_all_but_reference()
    seen: dict = {}
    _press_on_dialog(qtbot, key, seen)
    w.trash_marked()
    w.host.wait(10_000)
    assert "defaults" in seen, "the confirmation was never shown"
    assert seen["ok_default"] is False
    assert [t.replace("&", "") for t in seen["defaults"]] == ["Cancel"]
    assert "still_open" not in seen  # Return closed it, as Cancel
    assert w.trashed == []
    assert all(os.path.exists(d.path) for d in w.result.documents)


def test_return_on_the_move_confirmation_moves_nothing(loaded, qtbot, tmp_path) -> None:
    w = loaded
    w.mark_all_but_reference()
    dest = tmp_path / "elsewhere"
    dest.mkdir()
    w.ask_folder = lambda title: str(dest)
    seen: dict = {}
    _press_on_dialog(qtbot, Qt.Key.Key_Return, seen)
    w.move_marked()
    w.host.wait(10_000)
    assert "defaults" in seen
    assert seen["ok_default"] is False
    assert list(Path(dest).iterdir()) == []
    assert all(os.path.exists(d.path) for d in w.result.documents)


def test_the_confirming_key_still_trashes(loaded, qtbot) -> None:
    """A click on the button (or its own key, Alt+T) still confirms."""
    w = loaded
    w.mark_all_but_reference()
    seen: dict = {}

    def act() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ConfirmActionDialog):
            QTimer.singleShot(20, act)
            return
        seen["key"] = dialog.ok_button.shortcut().toString()
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
        seen["closed"] = not dialog.isVisible()
        if dialog.isVisible():
            dialog.reject()

    QTimer.singleShot(0, act)
    with qtbot.waitSignal(w.actionFinished, timeout=10_000):
        w.trash_marked()
    assert seen["closed"] and len(w.trashed) == 3
    assert seen["key"] == QKeySequence("Alt+T").toString()


# -- acting on many files ---------------------------------------------------------------------

def test_many_marked_files_are_checked_in_a_worker_before_the_dialog(loaded, qtbot,
                                                                     monkeypatch):
    """Planning stats every file (3.6 s for 85,000): from PLAN_IN_WORKER_FROM files it runs in
    a worker, the window saying so; the dialog comes once it is done."""
    from app.controllers import file_actions

    monkeypatch.setattr(file_actions, "PLAN_IN_WORKER_FROM", 1)
    w = loaded
    w.mark_all_but_reference()
    threads: list[threading.Thread] = []
    real = file_actions.actions.plan_trash
    monkeypatch.setattr(file_actions.actions, "plan_trash", lambda *a: (
        threads.append(threading.current_thread()), real(*a))[1])
    asked: list[int] = []
    w.confirm = lambda parent, plan, result, log: (asked.append(len(plan.items)),
                                                   Confirmation(allow_changed=False))[1]
    with qtbot.waitSignal(w.actionFinished, timeout=10_000):
        w.trash_marked()
        assert w.statusBar().currentMessage() == "Checking 3 files…"
        assert asked == [] and w.busy_worker is not None
    assert threads and threads[0] is not threading.main_thread()
    assert asked == [3] and len(w.trashed) == 3


def test_nothing_is_done_when_the_groups_change_while_the_files_are_checked(
        loaded, qtbot, monkeypatch):
    from app.controllers import file_actions

    monkeypatch.setattr(file_actions, "PLAN_IN_WORKER_FROM", 1)
    w = loaded
    w.mark_all_but_reference()
    release = threading.Event()
    real = file_actions.actions.plan_trash
    monkeypatch.setattr(file_actions.actions, "plan_trash",
                        lambda *a: (release.wait(10), real(*a))[1])
    asked: list[object] = []
    w.confirm = lambda *a: asked.append(a) or Confirmation(allow_changed=False)
    w.trash_marked()
    w.grouping.regroup(threshold=0.7)  # the slider moves meanwhile
    release.set()
    qtbot.waitUntil(lambda: w.busy_worker is None, timeout=10_000)
    assert "nothing was changed" in w.statusBar().currentMessage()
    assert asked == [] and w.trashed == []


def test_a_confirmation_of_many_files_makes_only_the_rows_it_shows(qtbot, tmp_path):
    """A widget item per file, the first column sized to all of them, took 4 s to open for
    85,000 files, and the 36,711 notes on their groups as lines of one label 9 s more: the
    rows are made as they are shown."""
    from neardup_core.actions import ActionPlan, PlannedItem, Refusal

    result = factory.big(10)
    items = tuple(PlannedItem(i, f"/data/f{i // 100}/doc{i:06d}.txt", False, None, 1, 1.0,
                              1, 1.0) for i in range(60_000))
    refused = tuple(Refusal(i, f"/data/gone{i}.txt", "missing") for i in range(30_000))
    notes = tuple(f"group {g} is similar, not identical: what goes to the trash differs from "
                  "what stays" for g in range(40_000))
    plan = ActionPlan("trash", items, refused, None, notes, roots=("/data",))
    dialog = ConfirmActionDialog(plan, result, str(tmp_path / "log.txt"))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.files.model().rowCount() == 60_000
    assert dialog.refused.model().rowCount() == 30_000
    assert dialog.notes.model().rowCount() == 40_000  # a list, not 40,000 lines of a label
    assert dialog.notes.model().index(7, 0).data().startswith("group 7 is similar")
    for view in (dialog.files, dialog.refused, dialog.notes):
        assert len(view.model()._made) < 1000
    model = dialog.files.model()  # any row, when asked for
    assert model.index(59_999, 1).data() == "data/f599"
    assert model.index(12_345, 0).data() == "doc012345.txt"
    assert model.index(12_345, 0).data(Qt.ItemDataRole.ToolTipRole) == "/data/f123/doc012345.txt"


def _held_after_the_first_file(w) -> tuple[threading.Event, threading.Event]:
    """(set once the first file is trashed, what lets the trash go on): ``w`` trashes with
    its fake trash, holding after the first file, and confirms without asking."""
    first, release = threading.Event(), threading.Event()
    real = w.trash_function

    def trash(path: str) -> None:
        real(path)
        if not first.is_set():
            first.set()
            release.wait(10)

    w.trash_function = trash
    w.confirm = lambda parent, plan, result, log: Confirmation(allow_changed=False)
    return first, release


def test_a_trash_says_how_far_it_is_and_stops_when_cancelled(loaded, qtbot, monkeypatch):
    """85,000 files take 15-20 s to trash: the status bar counts them, and the Cancel action
    (then named for what it stops) ends the run before the next file; what was done stays."""
    import neardup_core.actions as core_actions

    monkeypatch.setattr(core_actions, "PROGRESS_EVERY", 1)
    w = loaded
    w.mark_all_but_reference()
    heard: list[tuple[int, int]] = []
    w.file_actions.acting.connect(lambda k, n: heard.append((k, n)))
    first, release = _held_after_the_first_file(w)
    reports: list[object] = []
    w.actionFinished.connect(reports.append)
    assert not w.act_cancel.isEnabled()
    w.trash_marked()
    qtbot.waitUntil(first.is_set, timeout=10_000)
    assert w.act_cancel.isEnabled() and w.act_cancel.text() == "Stop moving files"
    w.act_cancel.trigger()
    release.set()
    qtbot.waitUntil(lambda: bool(reports), timeout=10_000)
    report = reports[0]
    assert len(report.done) == 1 and len(w.trashed) == 1
    assert [o.message for o in report.skipped] == [core_actions.CANCELLED] * 2
    assert all(os.path.exists(o.path) for o in report.skipped)
    assert heard[0] == (0, 3) and heard[-1] == (3, 3)
    assert not w.act_cancel.isEnabled() and w.act_cancel.text() == "Cancel scan"


def test_closing_the_window_ends_the_pdfs_read_again_for_its_views(window, monkeypatch):
    """A PDF read again for the pair view or the Excerpts tab (in a process of its own, up to
    the scan's time limit per file) is ended when the window closes, not waited for."""
    import app.main_window as main_window

    stopped: list[bool] = []
    monkeypatch.setattr(main_window, "stop_readers", lambda: stopped.append(True))
    window.close()
    assert stopped == [True]


def test_closing_the_window_stops_a_trash_before_its_next_file(loaded, qtbot):
    """The window waits for its threads when it closes: a long trash is stopped, not waited
    for file by file (what was done is logged and stays done)."""
    w = loaded
    w.mark_all_but_reference()
    first, release = _held_after_the_first_file(w)
    w.trash_marked()
    qtbot.waitUntil(first.is_set, timeout=10_000)
    threading.Timer(0.2, release.set).start()  # the file in hand finishes while it closes
    w.close()
    assert len(w.trashed) == 1
