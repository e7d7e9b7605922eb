"""The Excerpts tab: listed apart from groups, the cut moved without a rescan, the part beside the
whole with shared passages highlighted and a jump between them, never marked."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from app.main_window import MainWindow
from neardup_core import ScanOptions, ScanSession


def _lines(rng: random.Random, k: int) -> list[str]:
    return [" ".join(f"w{rng.randrange(5000)}" for _ in range(12)) for _ in range(k)]


@pytest.fixture
def result(tmp_path: Path):
    rng = random.Random(11)
    root = tmp_path / "docs"
    root.mkdir()
    whole = _lines(rng, 80)
    (root / "article.txt").write_text("\n".join(whole), encoding="utf-8")
    (root / "answer.txt").write_text("\n".join(whole[10:40]), encoding="utf-8")
    (root / "essay.txt").write_text("\n".join(_lines(rng, 12) + whole[50:62] + _lines(rng, 3)
                                              + whole[70:76]), encoding="utf-8")
    base = _lines(rng, 30)
    (root / "memo.txt").write_text("\n".join(base), encoding="utf-8")
    (root / "memo copy.txt").write_text("\n".join([*base[:-1], "changed line"]),
                                        encoding="utf-8")
    return ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])


@pytest.fixture
def window(qtbot, settings, tmp_path):
    w = MainWindow(settings, trash=lambda p: shutil.move(p, str(tmp_path)),
                   action_log=str(tmp_path / "actions.log"))
    qtbot.addWidget(w)
    w.resize(1200, 800)
    yield w
    w.host.wait(20_000)


def test_excerpts_have_their_own_tab_and_show_where(window, result, qtbot) -> None:
    assert len(result.excerpts()) == 2
    view = window.excerpts_view
    with qtbot.waitSignal(view.pairShown, timeout=10_000):  # the first row, read in a worker
        window.set_result(result, new_scan=True)
    assert window.tabs.tabText(2) == "Excerpts (2)"
    assert view.model.rowCount() == 2
    view.table.selectRow(0)
    part, _whole, c, _ = view.model.excerpt(view.table.currentIndex().row())
    assert c == pytest.approx(1.0) and part.name == "answer.txt"
    spans = view.passages()
    assert len(spans) == 1 and view.current_passage() == 0
    (ps, pe), (ws, we) = spans[0]
    assert view.left.toPlainText()[ps:pe] == view.right.toPlainText()[ws:we]
    assert len(view.left.extraSelections()) == len(view.right.extraSelections()) == 1
    # the essay shares two passages: the jump goes from one to the other and back
    with qtbot.waitSignal(view.pairShown, timeout=10_000):
        view.table.selectRow(1)
    assert "Reading" not in view.heading.text()
    assert len(view.passages()) == 2
    view.jump(1)
    assert view.current_passage() == 1
    assert view.right.textCursor().position() == view.passages()[1][1][0]
    view.jump(1)
    assert view.current_passage() == 0
    # the cut moves without a rescan
    view.cut.setValue(90)
    assert view.model.rowCount() == 1
    view.cut.setValue(30)
    assert view.model.rowCount() == 2


def test_mark_all_but_reference_never_marks_an_excerpt(window, result) -> None:
    window.set_result(result, new_scan=True)
    window.mark_all_but_reference()
    marked = {os.path.basename(result.documents[d].path) for d in window.model.marked_docs()}
    assert marked == {"memo copy.txt"} or marked == {"memo.txt"}
    parts = {result.documents[p].name for p in result.excerpts().part}
    assert not parts & marked


def test_an_excerpt_that_cannot_be_read_again_is_said(window, result, qtbot) -> None:
    view = window.excerpts_view
    with qtbot.waitSignal(view.pairShown, timeout=10_000):
        window.set_result(result, new_scan=True)
    part, *_ = view.model.excerpt(0)
    os.remove(part.path)
    view.table.selectRow(1)  # asked for, then no longer: its answer is dropped
    with qtbot.waitSignal(view.pairShown, timeout=10_000):
        view.table.selectRow(0)
    qtbot.waitUntil(lambda: not window.host.busy(), timeout=10_000)
    assert "could not be read again" in view.heading.text()
    assert "deleted or moved" in view.heading.text()  # why, in the core's words
    assert not view.next.isEnabled()


# -- many excerpts ----------------------------------------------------------------------------

def _many_excerpts(groups: int = 1500):
    """``groups`` groups of three (scores 0.9 and 0.85 to the first), an excerpt from each
    group's second file into the next group's first (never grouped with it) with made-up
    shares, ties among them, and one excerpt inside group 0 (its second into its third,
    listed only once they are no longer in one group: above 0.85)."""
    import dataclasses

    import _app_factory as factory
    import numpy as np

    from neardup_core.result_tables import ExcerptTable

    result = factory.big(groups)
    rng = np.random.default_rng(3)
    g = np.arange(groups - 1)
    part = np.r_[3 * g + 1, 1].astype(np.int32)
    whole = np.r_[3 * (g + 1), 2].astype(np.int32)
    containment = np.r_[rng.choice([0.6, 0.7, 0.75, 0.9], g.size), 0.8].astype(np.float32)
    similarity = np.r_[rng.choice([0.2, 0.3, 0.5], g.size), 0.4].astype(np.float32)
    return dataclasses.replace(result, excerpt_table=ExcerptTable(part, whole, containment,
                                                                  similarity))


def test_many_excerpts_are_shown_and_sorted_without_asking_for_every_row(window, qtbot,
                                                                        monkeypatch) -> None:
    """A reset or a sort asks the model for the rows in view only (a proxy sorting 47,000
    excerpts asked for each one, in Python, at every threshold move: 1.2 s of a frozen
    window at 200,000 files); every column sorts both ways as a stable sort of the rows."""
    from PySide6.QtCore import Qt

    from app.models.excerpts_model import ExcerptsModel

    result = _many_excerpts()
    asked: list[int] = []
    data = ExcerptsModel.data
    monkeypatch.setattr(ExcerptsModel, "data",
                        lambda self, index, role=Qt.ItemDataRole.DisplayRole:
                        (asked.append(1), data(self, index, role))[1])
    window.show()
    window.tabs.setCurrentIndex(2)
    window.set_result(result, new_scan=True)
    view = window.excerpts_view
    model = view.model
    n = model.rowCount()
    assert n == 1499 and view.count.text() == "1499 excerpts"
    qtbot.wait(50)
    assert 0 < len(asked) < 2000  # the rows in view, not every row
    table = result.excerpts()
    docs = result.documents
    rows = list(range(n))
    keys = {ExcerptsModel.PART: lambda i: docs[int(table.part[i])].name.lower(),
            ExcerptsModel.WHOLE: lambda i: docs[int(table.whole[i])].name.lower(),
            ExcerptsModel.CONTAINMENT: lambda i: float(table.containment[i]),
            ExcerptsModel.SIMILARITY: lambda i: float(table.similarity[i])}
    for column, key in keys.items():
        for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
            asked.clear()
            view.table.sortByColumn(column, order)
            qtbot.wait(10)
            assert len(asked) < 2000
            # stable either way: ties keep the core's order (most contained first)
            want = sorted(rows, key=key, reverse=order == Qt.SortOrder.DescendingOrder)
            got = [model.excerpt(r) for r in range(n)]
            assert [(p.path, w.path) for p, w, _, _ in got] == [
                (docs[int(table.part[i])].path, docs[int(table.whole[i])].path) for i in want]


def test_a_threshold_move_that_changes_no_excerpt_keeps_the_one_shown(window, qtbot) -> None:
    result = _many_excerpts(40)
    window.set_result(result, new_scan=True)
    view = window.excerpts_view
    resets: list[int] = []
    view.model.modelReset.connect(lambda: resets.append(1))
    view.table.selectRow(5)
    chosen = view.model.excerpt(5)
    window.grouping.regroup(threshold=0.7)  # no excerpt's two files join or part
    assert window.result.threshold == pytest.approx(0.7)
    assert resets == [] and view.table.currentIndex().row() == 5
    assert view.model.excerpt(5) == chosen
    window.grouping.regroup(threshold=0.88)  # group 0's 0.85 pair parts: its excerpt is listed
    assert resets == [1] and view.model.rowCount() == 40
    assert view.table.currentIndex().row() == 0  # a new list starts at its top


def test_the_pair_is_read_off_the_window_thread_and_a_stale_answer_is_dropped(
        window, result, qtbot, monkeypatch) -> None:
    """A long PDF takes seconds to read again: the window says it is reading and answers
    meanwhile; a pair asked for and then left is not shown when its answer comes late."""
    import threading

    from app.widgets import excerpt_view

    view = window.excerpts_view
    with qtbot.waitSignal(view.pairShown, timeout=10_000):
        window.set_result(result, new_scan=True)
    release = threading.Event()
    threads: list[threading.Thread] = []
    real = excerpt_view.load_pair

    def slow(part, whole, options):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread())
        if "essay" in part:
            release.wait(10)
        return real(part, whole, options)

    monkeypatch.setattr(excerpt_view, "load_pair", slow)
    view.table.selectRow(1)  # the essay: held in its worker
    qtbot.waitUntil(lambda: len(threads) == 1, timeout=5000)
    assert view.heading.text().startswith("Reading essay.txt")
    with qtbot.waitSignal(view.pairShown, timeout=10_000):
        view.table.selectRow(0)  # asked for since: shown first
    shown = view.heading.text()
    assert "answer.txt" in shown and len(view.passages()) == 1
    release.set()
    qtbot.waitUntil(lambda: not window.host.busy(), timeout=10_000)
    assert view.heading.text() == shown  # the essay's late answer was dropped
    assert all(t is not threading.main_thread() for t in threads)


def test_sorting_keeps_the_excerpt_selected_and_shown(window, qtbot) -> None:
    from PySide6.QtCore import Qt

    view = window.excerpts_view
    with qtbot.waitSignal(view.pairShown, timeout=10_000):
        window.set_result(_many_excerpts(40), new_scan=True)  # files made up: unreadable
    view.table.selectRow(7)
    chosen = view.model.excerpt(7)
    qtbot.waitUntil(lambda: not window.host.busy(), timeout=10_000)
    heading = view.heading.text()
    assert chosen[0].name in heading
    for column in range(4):
        for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
            view.table.sortByColumn(column, order)
            assert view.model.excerpt(view.table.currentIndex().row()) == chosen
            assert view.table.selectionModel().isRowSelected(view.table.currentIndex().row())
            assert view.heading.text() == heading  # not read again
