"""A window that explains itself, in Chinese as in English (issue 21, items 3-13)."""

from __future__ import annotations

import os
from pathlib import Path

import _app_factory as factory
import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication, QLocale, Qt
from PySide6.QtWidgets import QApplication, QLabel

from app import i18n
from app import settings as S
from app.choices import Choices
from app.controllers.explain import explain
from app.dialogs.confirm import ConfirmActionDialog, folder_from_root
from app.dialogs.ignored_dialog import IgnoredPairsDialog
from app.main_window import MainWindow
from app.models.problems_model import ProblemsModel
from app.models.results_model import ResultsModel, Role
from app.widgets.diff_view import DiffView
from app.widgets.histogram import HistogramWidget, y_ticks
from app.widgets.scan_panel import ScanPanel
from app.widgets.threshold_panel import STEPS, ThresholdPanel
from neardup_core import actions
from neardup_core.models import Problem, ProblemKind


@pytest.fixture
def english_plurals(qapp):
    translators = i18n.install_translators(qapp, "en")
    yield translators
    for t in translators:
        qapp.removeTranslator(t)


@pytest.fixture
def chinese_messages():
    i18n.set_current_language("zh_CN")
    yield
    i18n.set_current_language("en")


@pytest.fixture
def window(qtbot, settings, tmp_path):
    w = MainWindow(settings, action_log=str(tmp_path / "data" / "actions.log"))
    qtbot.addWidget(w)
    w.resize(1280, 720)
    yield w
    w.host.wait(20_000)


def chain(tmp_path: Path, **kw):
    """a-b 70 %, b-c 70 %, a-c far less: at a 60 % cut, c is in a's group only through b."""
    return factory.on_disk(tmp_path / "docs", {"a.txt": "alpha", "sub/b.txt": "beta",
                                               "备份/c.txt": "gamma"},
                           [("a.txt", "sub/b.txt", 0.7), ("sub/b.txt", "备份/c.txt", 0.7)],
                           **kw)


# -- item 3: core messages in the UI's language ------------------------------------------------

def test_problem_details_follow_the_interface_language(chinese_messages) -> None:
    model = ProblemsModel()
    model.set_problems((Problem("/x/a.txt", ProblemKind.UNREADABLE,
                                "the file cannot be read (permission denied)"),))
    assert model.index(0, 2).data() == "无法读取该文件（权限不足）"
    i18n.set_current_language("en")
    assert model.index(0, 2).data() == "the file cannot be read (permission denied)"


def test_notes_and_confirmation_warnings_in_chinese(chinese_messages) -> None:
    note = "3 symbolic links were not followed (turn on following links to include them)."
    assert "跟随符号链接" in i18n.core_text(note)
    assert i18n.core_text("group 2: every copy was selected; a.txt stays") == \
        "第 2 组：所有副本都被选中；保留 a.txt"


# -- item 4: plurals and locale numbers ---------------------------------------------------------

def test_english_plurals_say_one_file(english_plurals) -> None:
    assert english_plurals, "neardup_en.qm (English plural forms) did not load"
    tr = QCoreApplication.translate
    assert tr("MainWindow", "%Ln groups", "", 1) == "1 group"
    assert tr("MainWindow", "%Ln groups", "", 2) == "2 groups"
    assert tr("HistogramWidget", "+ %Ln exact-copy pairs", "", 1) == "+ 1 exact-copy pair"
    assert tr("MainWindow", "%Ln duplicates", "", 14503) == \
        f"{QLocale().toString(14503)} duplicates"


def test_confirmation_for_one_file_says_this_file(english_plurals, qtbot, tmp_path) -> None:
    result = chain(tmp_path)
    plan = actions.plan_trash(result, [2])
    dialog = ConfirmActionDialog(plan, result, str(tmp_path / "log"))
    qtbot.addWidget(dialog)
    texts = [lbl.text() for lbl in dialog.findChildren(QLabel)]
    assert "Send this file to the trash?" in texts


def test_status_bar_gives_the_size_of_what_is_marked(window, tmp_path) -> None:
    window.set_result(chain(tmp_path), new_scan=True)
    window.mark_all_below_cut_too()
    size = sum(window.result.documents[d].size for d in window.model.marked_docs())
    assert QLocale().formattedDataSize(size) in window.counts.text()


# -- item 5: empty and odd results --------------------------------------------------------------

def test_no_supported_files_says_which_types_were_skipped(tmp_path) -> None:
    empty = factory.build([])
    empty.stats["walk"] = {"skipped_suffixes": {".pdf": 12, ".doc": 3, "": 1}}
    (line,) = explain(empty)
    assert "12 .pdf" in line and "3 .doc" in line and ".txt" in line


def test_no_pairs_above_the_threshold_is_said_in_plain_words(tmp_path) -> None:
    result = chain(tmp_path).regroup(threshold=0.95)
    (line,) = explain(result)
    assert "95 %" in line and "70 %" in line and "floor" not in line


def test_files_alike_only_in_part_point_at_the_excerpts(tmp_path) -> None:
    from neardup_core import ScanOptions, ScanSession

    sentences = [f"Clause {i}: the supplier shall keep record number {i * 37} of every "
                 f"delivery for audit by the customer's appointed inspector." for i in range(60)]
    (tmp_path / "whole.txt").write_text(" ".join(sentences), encoding="utf-8")
    (tmp_path / "part.txt").write_text("My notes. " + " ".join(sentences[10:30]),
                                       encoding="utf-8")
    result = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(tmp_path)])
    assert not result.groups and len(result.excerpts()) == 1
    (line,) = explain(result)
    assert "Excerpts tab" in line and "None of these" not in line


def test_permission_denied_is_named(tmp_path) -> None:
    res = factory.build([], problems=(Problem("/x", ProblemKind.UNREADABLE,
                                              "the folder cannot be listed (permission "
                                              "denied)"),))
    assert any("permission denied" in line for line in explain(res))


def test_follow_symbolic_links_is_an_option_of_the_scan_panel(qtbot, settings) -> None:
    panel = ScanPanel()
    qtbot.addWidget(panel)
    panel.set_suffixes([".txt"])
    panel.follow_links.setChecked(True)
    assert panel.build_options(0.6).follow_symlinks
    panel.save(settings)
    assert settings.get(S.FOLLOW_SYMLINKS)
    assert panel.group_mode.isHidden()  # one Grouping control: the threshold panel's (item 9)


# -- item 6: the threshold made visible and true ------------------------------------------------

def test_a_member_below_the_cut_says_which_member_it_came_through(tmp_path) -> None:
    model = ResultsModel()
    model.set_result(chain(tmp_path))
    group = model.index(0, 0)
    rows = {model.index(k, 0, group).data(): model.index(k, 5, group)
            for k in range(model.rowCount(group))}
    assert rows["c.txt"].data(Role.VIA) == "via b.txt, 70%"
    assert "b.txt" in rows["c.txt"].data(Qt.ItemDataRole.ToolTipRole)
    assert rows["b.txt"].data(Role.VIA) is None


def test_mark_all_leaves_members_below_the_cut_unless_asked(window, tmp_path) -> None:
    window.set_result(chain(tmp_path), new_scan=True)
    window.mark_all_but_reference()
    names = {window.result.documents[d].name for d in window.model.marked_docs()}
    assert names == {"b.txt"}
    assert "not marked" in window.statusBar().currentMessage()
    window.mark_all_below_cut_too()
    assert window.model.marked_count() == 2


def test_a_reference_deleted_outside_the_app_is_flagged(tmp_path) -> None:
    result = chain(tmp_path)
    os.remove(result.documents[0].path)
    model = ResultsModel()
    model.set_result(result)
    ref = model.index(0, 0, model.index(0, 0))
    assert ref.data(Qt.ItemDataRole.DecorationRole) is not None
    assert "no longer" in ref.data(Qt.ItemDataRole.ToolTipRole)


# -- item 7: paths ------------------------------------------------------------------------------

def test_paths_elide_in_the_middle_and_confirmations_start_at_the_scanned_folder(
        window, tmp_path) -> None:
    assert window.tree.textElideMode() == Qt.TextElideMode.ElideMiddle
    root = str(tmp_path / "docs")
    assert folder_from_root(os.path.join(root, "备份", "c.txt"), (root,)) == \
        os.path.join("docs", "备份")
    assert folder_from_root(os.path.join(root, "a.txt"), (root,)) == "docs"
    assert folder_from_root("/elsewhere/x.txt", (root,)) == "/elsewhere"


def test_folder_dialogs_open_at_the_scanned_folder(window, tmp_path) -> None:
    window.set_result(chain(tmp_path), new_scan=True)
    assert window.folder_dialog_start() == str(tmp_path / "docs")


# -- item 8: the diff ---------------------------------------------------------------------------

def test_wrap_is_on_by_default_and_remembered(qtbot, settings, tmp_path) -> None:
    w = MainWindow(settings, action_log=str(tmp_path / "log"))
    qtbot.addWidget(w)
    assert w.preview.diff.word_wrap()
    w.preview.diff.wrap_action.setChecked(False)
    assert settings.get(S.DIFF_WRAP) is False
    again = MainWindow(settings, action_log=str(tmp_path / "log"))
    qtbot.addWidget(again)
    assert not again.preview.diff.word_wrap()


def test_diff_commands_live_in_the_view_menu_and_work_from_anywhere(window) -> None:
    view = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    texts = [a.text() for a in view.actions()]
    assert {"Next change", "Previous change", "Wrap lines"} <= set(texts)
    assert window.preview.diff.next_action.shortcutContext() == \
        Qt.ShortcutContext.WindowShortcut


def test_next_change_scrolls_the_change_itself_into_view(qtbot) -> None:
    view = DiffView()
    qtbot.addWidget(view)
    view.resize(600, 400)
    view.show()
    view.set_word_wrap(False)
    words = " ".join(f"word{i}" for i in range(120))
    view.set_pair("/a.txt", "start\n" + words + " end\n", "/b.txt",
                  "start\n" + words + " changed\n")
    QApplication.processEvents()
    view.go_to_change(1)
    assert view.canvas().horizontalScrollBar().value() > 0


# -- item 9: room -------------------------------------------------------------------------------

def test_the_set_up_folds_away_after_a_scan_with_groups(window, tmp_path) -> None:
    window.show()
    assert window.setup_area.isVisible()
    window.scans._on_finished(chain(tmp_path))
    assert not window.setup_area.isVisible() and not window.act_setup.isChecked()
    window.act_setup.trigger()
    assert window.setup_area.isVisible()


# -- item 10: the histogram ---------------------------------------------------------------------

def test_histogram_ticks_hover_and_arrow_keys(qtbot) -> None:
    assert y_ticks(3000, False) == [1500, 3000]
    assert y_ticks(3000, True) == [1, 10, 100, 1000, 3000]
    h = HistogramWidget()
    qtbot.addWidget(h)
    h.resize(400, 140)
    edges = np.linspace(0.4, 1.0, 61)
    counts = np.zeros(60, np.int64)
    counts[30] = 1234
    h.set_data(counts, edges)
    h.set_threshold(0.6)
    plot = h._plot_rect()
    x = plot.left() + (30.5 / 60) * plot.width()
    assert QLocale().toString(1234) in h.bar_tip(x) and "70.0 %" in h.bar_tip(x)
    with qtbot.waitSignal(h.thresholdPicked) as sig:
        qtbot.keyClick(h, Qt.Key.Key_Right)
    assert sig.args[0] == pytest.approx(0.61)


def test_slider_arrow_keys_step_one_percent(qtbot) -> None:
    panel = ThresholdPanel()
    qtbot.addWidget(panel)
    assert panel.slider.singleStep() == STEPS // 100


def test_histogram_redrawn_after_files_leave(window, tmp_path) -> None:
    result = chain(tmp_path)
    window.set_result(result, new_scan=True)
    before = int(window.threshold.histogram.counts().sum())
    window.set_result(actions.remove_documents(result, [result.documents[2].path]))
    assert int(window.threshold.histogram.counts().sum()) < before


# -- item 11: choices kept across scans ---------------------------------------------------------

def test_ignored_pairs_and_references_survive_a_rescan_and_a_rename(window, tmp_path) -> None:
    window.set_result(chain(tmp_path), new_scan=True)
    docs = window.result.documents
    window.choices.remember_ignored(window.result, {(docs[0].path, docs[1].path)})
    window.choices.remember_reference(docs[2])
    os.rename(docs[1].path, str(tmp_path / "docs" / "sub" / "b-renamed.txt"))
    again = factory.on_disk(tmp_path / "docs", {"a.txt": "alpha", "sub/b-renamed.txt": "beta",
                                                "备份/c.txt": "gamma"},
                            [("a.txt", "sub/b-renamed.txt", 0.7),
                             ("sub/b-renamed.txt", "备份/c.txt", 0.7)])
    store = Choices.load(window.choices.path)  # as the next start of the app reads it
    assert len(store.ignored) == 1 and len(store.references) == 1
    window.choices = store
    window.set_result(again, new_scan=True)
    shown = window.result
    assert (shown.documents[0].path, shown.documents[1].path) in shown.ignored
    assert shown.groups[0].reference == 2  # c.txt, made reference before the rescan


def _scan_giving(window, qtbot, result, folder: Path) -> None:  # type: ignore[no-untyped-def]
    """A scan of ``folder`` through the window's own controller and worker, whose session
    gives ``result``."""

    class Done:
        def __call__(self, options):  # type: ignore[no-untyped-def]
            return self

        def run(self, paths, progress, cancel):  # type: ignore[no-untyped-def]
            return result

    window.scans.session_factory = Done()
    window.scan_panel.folders.set_folders([str(folder)])
    with qtbot.waitSignal(window.scanFinished, timeout=10_000):
        window.start_scan()


def test_a_scan_and_an_opened_file_get_the_choices_in_their_worker(window, qtbot, tmp_path,
                                                                    monkeypatch) -> None:
    """Regrouping with the remembered choices took the window's thread tenths of a second at
    200,000 files: the scan's worker (and the one opening a results file) applies them, on a
    copy of the store, and prepares what it hands over."""
    import threading

    from neardup_core.store.results_file import save_result

    result = chain(tmp_path)
    window.set_result(result, new_scan=True)
    docs = window.result.documents
    pair = (docs[0].path, docs[1].path)
    window.choices.remember_ignored(window.result, {pair})
    threads: list[threading.Thread] = []
    real = Choices.apply
    monkeypatch.setattr(Choices, "apply", lambda self, r: (
        threads.append(threading.current_thread()), real(self, r))[1])

    _scan_giving(window, qtbot, result, tmp_path / "docs")
    shown = window.result
    assert pair in shown.ignored and shown._regrouper._forest is not None
    assert threads and all(t is not threading.main_thread() for t in threads)
    qtbot.waitUntil(lambda: not window.host.busy(), timeout=10_000)
    saved = tmp_path / "r.neardup"
    save_result(result, str(saved))
    threads.clear()
    window.ask_open_path = lambda *a: str(saved)
    with qtbot.waitSignal(window.actionFinished, timeout=10_000):
        window.open_results()
    shown = window.result
    assert (shown.documents[0].path, shown.documents[1].path) in shown.ignored
    assert threads and all(t is not threading.main_thread() for t in threads)
    qtbot.waitUntil(lambda: not window.host.busy(), timeout=10_000)


def test_the_ignored_pairs_dialog_removes_pairs(window, qtbot, tmp_path) -> None:
    window.set_result(chain(tmp_path), new_scan=True)
    docs = window.result.documents
    pair = (docs[0].path, docs[1].path)
    window.choices.remember_ignored(window.result, {pair})
    window.grouping.regroup(ignored=window.result.ignored | {pair})
    assert pair in window.result.ignored

    def review(choices, parent):
        dialog = IgnoredPairsDialog(choices, parent)
        dialog.exec = lambda: (dialog.list.selectAll(), dialog.remove_selected())  # type: ignore
        return dialog

    window.make_ignored_dialog = review
    window.show_ignored_pairs()
    assert window.choices.ignored == {} and pair not in window.result.ignored
    assert Choices.load(window.choices.path).ignored == {}


def test_a_damaged_choices_file_is_an_empty_store(tmp_path) -> None:
    path = tmp_path / "choices.json"
    path.write_text("{not json", encoding="utf-8")
    assert Choices.load(str(path)).ignored == {}


# -- item 13: duplicates only -------------------------------------------------------------------

def test_duplicates_only_hides_the_references_and_is_remembered(window, tmp_path,
                                                                settings) -> None:
    window.set_result(chain(tmp_path), new_scan=True)
    group = window.model.index(0, 0)
    window.act_dupes_only.trigger()
    assert window.tree.isRowHidden(0, group) and not window.tree.isRowHidden(1, group)
    assert settings.get(S.DUPLICATES_ONLY)
    window.grouping.regroup(threshold=0.61)
    assert window.tree.isRowHidden(0, window.model.index(0, 0))
    window.act_dupes_only.trigger()
    assert not window.tree.isRowHidden(0, window.model.index(0, 0))


def test_the_diff_shows_twenty_rows_at_1280_by_720(window, tmp_path) -> None:
    window.resize(1280, 720)
    window.show()
    window.scans._on_finished(chain(tmp_path))
    window.preview.stack.setCurrentWidget(window.preview.diff)  # as when a file is selected
    QApplication.processEvents()
    canvas = window.preview.diff.canvas()
    assert canvas.viewport().height() >= 20 * canvas.line_height()
    window.act_diff_below.trigger()  # stacked instead, on request, and remembered
    assert window.results_split.orientation() == Qt.Orientation.Vertical
    assert window.settings.get(S.DIFF_BELOW)


def test_the_way_into_a_group_is_the_same_with_the_pairs_indexed_by_document(tmp_path) -> None:
    """The view looks a member's pairs up in the index the scan's thread prepares (a look
    through every pair took a millisecond a row at 10^6 pairs): the same answers either way,
    and across a regroup, which keeps the index."""
    import dataclasses

    from app.models.links import Links

    rng = np.random.default_rng(3)
    res = factory.big(60, size=5)
    n = len(res.documents)
    a = rng.integers(0, n, 400)
    b = rng.integers(0, n, 400)
    keep = a != b
    a, b = np.minimum(a[keep], b[keep]), np.maximum(a[keep], b[keep])
    p = res.pairs
    pairs = dataclasses.replace(  # the group's own links and more pairs, some repeated
        p, a=np.concatenate([p.a, a]).astype(np.int32), b=np.concatenate([p.b, b]).astype(np.int32),
        distance=np.concatenate([p.distance, np.full(a.size, 9, np.uint8)]),
        jaccard=np.concatenate([p.jaccard, rng.random(a.size).astype(np.float32)]),
        score=np.concatenate([p.score, rng.random(a.size).astype(np.float32)]),
        exact=np.concatenate([p.exact, np.zeros(a.size, bool)]))
    res = dataclasses.replace(res, pairs=pairs)
    scanning = Links(dataclasses.replace(res))
    res.prepare_regroup()
    moved = res.regroup(threshold=0.7)
    assert moved.computed("pairs_by_document") is res.computed("pairs_by_document")
    indexed, indexed_moved = Links(res), Links(moved)
    t = res.group_table
    asked = 0
    for g in range(len(t)):
        members = t.members[t.offsets[g]:t.offsets[g + 1]]
        for d in members.tolist():
            want = scanning.via(d, members)
            assert indexed.via(d, members) == want == indexed_moved.via(d, members)
            asked += want is not None
    assert asked > 100


def test_choices_that_cannot_be_applied_never_lose_a_scan(window, qtbot, tmp_path,
                                                          monkeypatch) -> None:
    result = chain(tmp_path)

    def broken(self, r):  # type: ignore[no-untyped-def]
        raise RuntimeError("a store in a state nobody foresaw")

    monkeypatch.setattr(Choices, "apply", broken)

    _scan_giving(window, qtbot, result, tmp_path / "docs")
    assert window.result is result and window.model.group_count() > 0
    qtbot.waitUntil(lambda: not window.host.busy(), timeout=10_000)
